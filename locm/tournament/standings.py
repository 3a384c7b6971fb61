"""The standings of a tournament's stored games, every game's: per agent, its games, wins and win rate with its
95% Wilson interval.

- Two seats (`standings`, over LOCM's records): hard errors, timeouts and think time per turn too; an agent
  given twice (playing itself) has its games against itself in two more rows, one per seat (`seat_entry`);
  head to head (`pair_rows`) and how the bots were confined (`sandbox_lines`).
- Any number of seats (`match_standings`, over any game's rows, `MatchRecord`): by places (so a game of points
  and a game won or lost rank alike), the mean place (1 = first), in a game of points the mean score with its
  95% interval, and the games lost by an error (a bot that crashed or broke the protocol, a client that did
  not join).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

from locm.analysis.stats import mean_interval, wilson


@dataclass
class Standing:
    agent: str
    games: int = 0
    wins: int = 0
    errors: int = 0
    timeouts: int = 0
    think_ms: float = 0.0  # total over the turns counted
    think_turns: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def avg_think_ms(self) -> float | None:
        return self.think_ms / self.think_turns if self.think_turns else None


def seat_entry(agent: str, seat: int) -> str:
    """The name of one seat of an agent playing itself, in the standings: ``greedy (seat 0)``."""
    return f"{agent} (seat {seat})"


def _entries(agents: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
    """The standings' rows: each agent once (its games against the others), and for an agent given twice
    (playing itself) one row per seat of those games, so that no game counts twice in a row."""
    distinct = list(dict.fromkeys(agents))
    selfplay = tuple(a for a in distinct if list(agents).count(a) > 1)
    rows = distinct if len(distinct) > 1 else []
    return rows + [seat_entry(a, s) for a in distinct if a in selfplay for s in (0, 1)], selfplay


def standings(records: Sequence[Any], agents: Sequence[str]) -> list[Standing]:
    """Per agent (in the order given): games, wins, hard errors, timeouts and think time per turn,
    from stored records. An agent's row counts its games against the other agents; an agent given twice has
    its games against itself in two more rows, one per seat (`seat_entry`)."""
    names, selfplay = _entries(agents)
    table = {a: Standing(a) for a in names}
    for r in records:
        try:
            turns = json.loads(r.meta).get("turns", [1, 1])
        except (ValueError, AttributeError):
            turns = [1, 1]
        if r.agent0 == r.agent1:
            if r.agent0 not in selfplay:
                continue
            seats = (seat_entry(r.agent0, 0), seat_entry(r.agent1, 1))
        else:
            seats = (r.agent0, r.agent1)
        for s, name in enumerate(seats):
            st = table.get(name)
            if st is None:
                continue
            st.games += 1
            st.wins += r.winner == s
            st.errors += getattr(r, f"error{s}")
            st.timeouts += getattr(r, f"timeout{s}")
            ms = getattr(r, f"think_ms{s}")
            if ms is not None and turns[s]:
                st.think_ms += ms * turns[s]
                st.think_turns += turns[s]
    return list(table.values())


def standings_rows(table: list[Standing]) -> list[tuple]:
    rows = []
    for st in table:
        lo, hi = st.interval
        think = "-" if st.avg_think_ms is None else f"{st.avg_think_ms:.2f}"
        rows.append((st.agent, st.games, st.wins, f"{100 * st.win_rate:.1f}%",
                     f"[{100 * lo:.1f}%, {100 * hi:.1f}%]", st.errors, st.timeouts, think))
    return rows


STANDINGS_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "errors", "timeouts", "think ms")


def pair_rows(records: Sequence[Any], agents: Sequence[str]) -> list[tuple]:
    """Head to head, one row per pair in schedule order: games, each side's wins; an agent playing itself
    is one row of its two seats (`seat_entry`)."""
    rows = []
    distinct = list(dict.fromkeys(agents))
    for a, b in itertools.combinations(distinct, 2):
        both = [r for r in records if {r.agent0, r.agent1} == {a, b} and a != b]
        wins_a = sum((r.agent0, r.agent1)[r.winner] == a for r in both)
        rows.append((a, b, len(both), wins_a, len(both) - wins_a))
    for a in _entries(agents)[1]:
        mirror = [r for r in records if r.agent0 == r.agent1 == a]
        wins_0 = sum(r.winner == 0 for r in mirror)
        rows.append((seat_entry(a, 0), seat_entry(a, 1), len(mirror), wins_0, len(mirror) - wins_0))
    return rows


PAIR_HEADERS = ("agent A", "agent B", "games", "A wins", "B wins")


def sandbox_lines(records: Sequence[Any]) -> list[str]:
    """How the bots of these games were confined, from each game's ``meta.sandbox``: one line per way, with
    its number of games (games without a bot have none). Unsandboxed games and games with the network are
    said in capitals, so that standings never hide them."""
    ways: dict[str, int] = {}
    for r in records:
        try:
            box = json.loads(r.meta).get("sandbox")
        except (ValueError, AttributeError):
            continue
        if isinstance(box, dict):
            key = json.dumps(box, sort_keys=True)
            ways[key] = ways.get(key, 0) + 1
    lines = []
    for key, n in ways.items():
        box = json.loads(key)
        if box.get("tool") == "none":
            how = "UNSANDBOXED (--no-sandbox)"
        else:
            how = f"sandboxed ({box.get('tool')}; limits {box.get('limits')}"
            how += "; NETWORK ON" if box.get("network") else "; no network"
            how += "; kept per bot across games" if box.get("kept") else ""
            how += f"; also shown: {', '.join(map(str, box.get('binds') or []))})" if box.get("binds") else ")"
        lines.append(f"bots: {n} game{'s' * (n != 1)} {how}")
    return lines


class MatchStanding(NamedTuple):
    agent: str
    games: int
    wins: float
    rate: float
    low: float
    high: float
    place: float
    score: float | None
    score_low: float | None = None
    score_high: float | None = None
    errors: int = 0


def match_standings(records: Sequence, agents: Sequence[str]) -> list[MatchStanding]:
    """Each agent's results over stored rows (`MatchRecord`), best win rate first. A win is place 0; a
    shared first place counts as a share of a win (1/k of it among k)."""
    out = []
    for agent in dict.fromkeys(agents):
        n = wins = 0
        places: list[int] = []
        scores: list[float] = []
        errors = 0
        for m in records:
            for seat, name in enumerate(m.agents):
                if name != agent:
                    continue
                n += 1
                errors += bool(seat < len(m.seats) and (m.seats[seat].error or m.seats[seat].timeout))
                place = m.places[seat]
                places.append(place)
                if place == 0:
                    wins += 1 / sum(1 for p in m.places if p == 0)
                if m.scores is not None:
                    scores.append(m.scores[seat])
        low, high = wilson(round(wins), n) if n else (0.0, 0.0)
        score, score_low, score_high = mean_interval(scores) if scores else (None, None, None)
        out.append(MatchStanding(agent, n, wins, wins / n if n else 0.0, low, high,
                                 1 + sum(places) / n if n else 0.0, score, score_low, score_high, errors))
    return sorted(out, key=lambda s: (-s.rate, s.place, s.agent))


MATCH_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "mean place", "mean score [95%]", "errors")


def match_rows(table: Sequence[MatchStanding]) -> list[tuple]:
    def score(s: MatchStanding) -> str:
        if s.score is None:
            return "-"
        if s.score_low is None or s.score_high is None or not math.isfinite(s.score_low):
            return f"{s.score:.1f}"
        return f"{s.score:.1f} [{s.score_low:.1f}, {s.score_high:.1f}]"

    return [(s.agent, s.games, f"{s.wins:g}", f"{s.rate:.1%}", f"{s.low:.1%}-{s.high:.1%}", f"{s.place:.2f}",
             score(s), s.errors) for s in table]

__all__ = ["Standing", "seat_entry", "standings", "standings_rows", "pair_rows", "sandbox_lines", "STANDINGS_HEADERS",
           "PAIR_HEADERS", "MatchStanding", "match_standings", "match_rows", "MATCH_HEADERS"]
