"""Card win rates of my-card-game from a store (`locm report --game mcg`), with LOCM's report's honesty rules.

For each pairing of agents (an agent against an opponent, both seats together) and each card: the player-games
in which that agent played the card (``n``), how many of them it won, the win rate with its 95% Wilson interval,
and the pairing's baseline (the agent's win rate over all its games against that opponent). A card is said to
win more or less than the baseline only when its interval excludes the baseline; a card played in fewer than
``min_games`` player-games is shown as not enough data. A pairing whose agents differ in strength beyond
``max_imbalance`` is flagged: its card rates then mostly tell which cards the stronger agent plays, not what a
card is worth. These are associations from stored games, not causes (a card played is also a card drawn and
a turn survived). The report says first the starter's win rate with its interval (the seat that started each
game, R-COIN or R-SERIES: `starter_line`), and each pairing's games started and won.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from locm.analysis.stats import wilson

MIN_GAMES = 30
MAX_IMBALANCE = 0.15


@dataclass(frozen=True)
class CardRate:
    agent: str
    opponent: str
    card: int
    name: str
    n: int
    wins: int
    rate: float
    low: float
    high: float
    baseline: float
    verdict: str  # "above", "below", "within", "not enough data"


@dataclass(frozen=True)
class Pairing:
    """An agent against an opponent, both seats together: its games and wins, whether it is lopsided, and the
    games it started (``started``, R-COIN or R-SERIES) and won of those (``started_won``)."""

    agent: str
    opponent: str
    games: int
    wins: int
    lopsided: bool
    started: int = 0
    started_won: int = 0


def card_rates(store, min_games: int = MIN_GAMES, max_imbalance: float = MAX_IMBALANCE,
               agent: str | None = None, counted: bool = True) -> tuple[list[Pairing], list[CardRate]]:
    """The pairings and every card's rate in each (see the module docstring), over the stored mcg games (only
    those the store may count, `locm.store.provenance`, when ``counted``)."""
    from locm.events.mcg.catalog import CardPlayed, GameCreated, StarterChosen

    games: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # games, wins, started, won those
    played: dict[tuple[str, str, int], list[int]] = defaultdict(lambda: [0, 0])
    names: dict[int, str] = {}
    for m in store.games(game="mcg", counted=counted):
        events = store.events(m.game_id)
        created = events[0]
        assert isinstance(created, GameCreated)
        names.update((c.id, c.name) for c in created.cards)
        cards: list[set[int]] = [set(), set()]
        first = -1
        for e in events:
            if type(e) is CardPlayed:
                cards[e.player].add(e.card)
            elif type(e) is StarterChosen:
                first = e.first
        for seat in (0, 1):
            key = (m.agents[seat], m.agents[1 - seat])
            won = int(m.winner == seat)
            games[key][0] += 1
            games[key][1] += won
            games[key][2] += seat == first
            games[key][3] += won and seat == first
            for card in cards[seat]:
                played[(*key, card)][0] += 1
                played[(*key, card)][1] += won
    pairings = [Pairing(a, o, n, w, abs(w / n - 0.5) > max_imbalance, st, sw)
                for (a, o), (n, w, st, sw) in sorted(games.items()) if agent is None or a == agent]
    rates = []
    for (a, o, card), (n, w) in sorted(played.items()):
        if agent is not None and a != agent:
            continue
        base = games[(a, o)][1] / games[(a, o)][0]
        low, high = wilson(w, n)
        low, high = min(low, w / n), max(high, w / n)  # the bounds' rounding (5e-17 over 0 of 3) kept off the rate
        eps = 1e-9  # an interval's bound computed in floating point, against a baseline of exactly 0 or 1
        verdict = ("not enough data" if n < min_games else "above" if low > base + eps
                   else "below" if high < base - eps else "within")
        rates.append(CardRate(a, o, card, names.get(card, str(card)), n, w, w / n, low, high, base, verdict))
    return pairings, rates


def report_lines(pairings: Iterable[Pairing], rates: Iterable[CardRate], min_games: int) -> list[str]:
    from locm.common.tables import table

    rates = list(rates)
    pairings = list(pairings)
    lines = [starter_line(sum(p.started for p in pairings), sum(p.started_won for p in pairings))]
    for p in pairings:
        flag = "  LOPSIDED: its card rates mostly tell which cards the stronger agent plays" if p.lopsided else ""
        lines.append(f"{p.agent} against {p.opponent}: {p.games} player-games, won {p.wins} "
                     f"({p.wins / p.games:.1%}); started {p.started}, won {p.started_won} of those{flag}")
    rows = [(r.agent, r.opponent, r.card, r.name, r.n, r.wins,
             "-" if r.verdict == "not enough data" else f"{r.rate:.1%}",
             "-" if r.verdict == "not enough data" else f"{r.low:.1%}-{r.high:.1%}", f"{r.baseline:.1%}", r.verdict)
            for r in sorted(rates, key=lambda r: (r.agent, r.opponent, r.verdict == "not enough data", -r.rate))]
    lines.append("")
    lines.append(table(("agent", "opponent", "card", "name", "played in", "won", "win rate", "95% interval",
                        "baseline", "vs baseline"), rows))
    few = sum(r.verdict == "not enough data" for r in rates)
    lines.append(f"{len(rates)} card rates; {few} on fewer than {min_games} player-games (not enough data); "
                 f"{sum(r.verdict in ('above', 'below') for r in rates)} whose 95% interval excludes the baseline")
    return lines


def starter_line(games: int, wins: int) -> str:
    """The starter's win rate over ``games`` games (each counted once, by the seat that started) with its 95%
    Wilson interval."""
    if not games:
        return "the starter: no game says who started"
    lo, hi = wilson(wins, games)
    return f"the starter won {wins} of {games} games ({wins / games:.1%}, 95% interval {lo:.1%}-{hi:.1%})"


__all__ = ["starter_line", "card_rates", "report_lines", "CardRate", "Pairing", "MIN_GAMES", "MAX_IMBALANCE"]
