"""Ratings with intervals for a round robin of any number of players per game, by the openskill library
(Weng-Lin's Bayesian approximation, the Plackett-Luce model): each game is a ranking of its players (a
two-player game: the winner first; a Skyport game: its finishing order; equal ranks for a draw or a tie).
Pure: rankings in, ratings out.

A rating is the model's ``mu`` with its uncertainty ``sigma``; the interval is ``mu +- 1.96 sigma`` (the
model's 95% credible interval). The agents do not change during a tournament, so the model's dynamics factor
``tau`` is 0: ``sigma`` only shrinks as games come. The update is sequential, so the games are given in a
fixed order (the schedule's): the same games give the same ratings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from openskill.models import PlackettLuce

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rating:
    agent: str
    mu: float
    sigma: float
    games: int

    @property
    def interval(self) -> tuple[float, float]:
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    def as_dict(self) -> dict:
        lo, hi = self.interval
        return {"agent": self.agent, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "low": round(lo, 4),
                "high": round(hi, 4), "games": self.games}


def model() -> PlackettLuce:
    """The model the ratings use (its defaults: mu 25, sigma 25/3; no dynamics: ``tau`` 0)."""
    return PlackettLuce(tau=0.0)


def rate(games: Iterable[Sequence[tuple[str, int]]], agents: Sequence[str]) -> list[Rating]:
    """Ratings of ``agents`` (in that order) from ``games``, each a sequence of ``(agent, rank)`` with rank 0
    the best (ranks may tie). A game with an agent not in ``agents`` or with one agent twice is refused
    (`ValueError`); a game of fewer than two players rates nobody."""
    m = model()
    current = {a: m.rating(name=a) for a in agents}
    played = dict.fromkeys(agents, 0)
    for game in games:
        names = [a for a, _ in game]
        unknown = [a for a in names if a not in current]
        if unknown:
            raise ValueError(f"a game with agent {unknown[0]!r}, not one of {list(agents)}")
        if len(set(names)) != len(names):
            raise ValueError(f"a game with an agent twice: {names}")
        if len(names) < 2:
            continue
        teams = m.rate([[current[a]] for a in names], ranks=[float(r) for _, r in game])
        for a, (r,) in zip(names, teams):
            current[a] = r
            played[a] += 1
    return [Rating(a, current[a].mu, current[a].sigma, played[a]) for a in agents]


def rating_rows(ratings: Sequence[Rating]) -> list[tuple]:
    """Table rows, best ``mu`` first: agent, games, rating, its 95% interval."""
    rows = []
    for r in sorted(ratings, key=lambda r: -r.mu):
        lo, hi = r.interval
        rows.append((r.agent, r.games, f"{r.mu:.2f}", f"[{lo:.2f}, {hi:.2f}]"))
    return rows


RATING_HEADERS = ("agent", "games", "rating", "95% interval")

__all__ = ["Rating", "rate", "model", "rating_rows", "RATING_HEADERS"]
