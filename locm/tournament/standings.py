"""The standings of a tournament's stored games, every game's: per agent, its games, wins and win rate with its
95% Wilson interval.

- Two seats (`standings`, over LOCM's records): hard errors, timeouts and think time per turn too; an agent
  given twice (playing itself) has its games against itself in two more rows, one per seat (`seat_entry`);
  head to head (`pair_rows`) and how the bots were confined (`sandbox_lines`).
- Any number of seats (`match_standings`, over any game's rows, `GameRecord`): by places (so a game of points
  and a game won or lost rank alike), the mean place (1 = first), in a game of points the mean score with its
  95% interval, and the games lost by an error (a bot that crashed or broke the protocol, a client that did
  not join).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from locm.analysis.stats import mean_interval, wilson


@dataclass
class Standing:
    """One agent's row of a tournament's standings, any game's: its games, its wins (first places; a first
    place shared by k counts 1/k), the games it lost by a hard error (``errors``: a bot that crashed or broke
    the protocol, a client that did not join) or a timeout (``timeouts``; ``failures``: either), its think time
    per turn, its places (1 = first) and, in a game of points, its scores."""

    agent: str
    games: int = 0
    wins: float = 0.0
    errors: int = 0
    timeouts: int = 0
    failures: int = 0
    think_ms: float = 0.0  # total over the turns counted
    think_turns: int = 0
    place_sum: int = 0  # 0 for the first
    scores: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% Wilson interval ((0, 1) without a game)."""
        return wilson(round(self.wins), self.games)

    @property
    def avg_think_ms(self) -> float | None:
        return self.think_ms / self.think_turns if self.think_turns else None

    @property
    def mean_place(self) -> float:
        """The mean place, 1 the first (0.0 without a game)."""
        return 1 + self.place_sum / self.games if self.games else 0.0

    def add(self, row: Any, seat: int, turns: Sequence[int]) -> None:
        """Count one seat of a stored game (a `GameRecord`), its bot's turns answered being ``turns[seat]``."""
        self.games += 1
        place = row.places[seat]
        self.place_sum += place
        if place == 0:
            self.wins += 1 / sum(1 for p in row.places if p == 0)
        if seat < len(row.seats):
            x = row.seats[seat]
            self.errors += x.error
            self.timeouts += x.timeout
            self.failures += bool(x.error or x.timeout)
            if x.think_ms is not None and turns[seat]:
                self.think_ms += x.think_ms * turns[seat]
                self.think_turns += turns[seat]
        if row.scores is not None:
            self.scores.append(row.scores[seat])


def _turns(row: Any) -> Sequence[int]:
    """Each seat's turns answered, from a game's meta (1 each when it does not say)."""
    try:
        turns = json.loads(row.meta).get("turns")
    except (ValueError, AttributeError):
        turns = None
    return turns if isinstance(turns, list) and len(turns) >= len(row.agents) else [1] * len(row.agents)


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
    """Per agent (in the order given), over stored two-seat games (LOCM's round robin): an agent's row counts
    its games against the other agents; an agent given twice has its games against itself in two more rows,
    one per seat (`seat_entry`)."""
    names, selfplay = _entries(agents)
    table = {a: Standing(a) for a in names}
    for row in records:
        a, b = row.agents
        if a == b:
            if a not in selfplay:
                continue
            seats = (seat_entry(a, 0), seat_entry(b, 1))
        else:
            seats = (a, b)
        turns = _turns(row)
        for s, name in enumerate(seats):
            st = table.get(name)
            if st is not None:
                st.add(row, s, turns)
    return list(table.values())


def match_standings(records: Sequence[Any], agents: Sequence[str]) -> list[Standing]:
    """Per agent, over stored games of any number of seats (every seat an agent played counted), best win
    rate first, then the best mean place."""
    table = {a: Standing(a) for a in dict.fromkeys(agents)}
    for row in records:
        turns = _turns(row)
        for seat, name in enumerate(row.agents):
            st = table.get(name)
            if st is not None:
                st.add(row, seat, turns)
    return sorted(table.values(), key=lambda s: (-s.win_rate, s.mean_place, s.agent))


def standings_rows(table: list[Standing]) -> list[tuple]:
    rows = []
    for st in table:
        lo, hi = st.interval
        think = "-" if st.avg_think_ms is None else f"{st.avg_think_ms:.2f}"
        rows.append((st.agent, st.games, _count(st.wins), f"{100 * st.win_rate:.1f}%",
                     f"[{100 * lo:.1f}%, {100 * hi:.1f}%]", st.errors, st.timeouts, think))
    return rows


def _count(wins: float) -> int | float:
    """Wins as a table shows them: a whole number without a decimal point."""
    return int(wins) if float(wins).is_integer() else wins


STANDINGS_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "errors", "timeouts", "think ms")


def pair_rows(records: Sequence[Any], agents: Sequence[str]) -> list[tuple]:
    """Head to head, one row per pair in schedule order: games, each side's wins; an agent playing itself
    is one row of its two seats (`seat_entry`)."""
    rows = []
    distinct = list(dict.fromkeys(agents))
    for a, b in itertools.combinations(distinct, 2):
        both = [r for r in records if set(r.agents) == {a, b} and a != b]
        wins_a = sum(r.agents[r.winner] == a for r in both)
        rows.append((a, b, len(both), wins_a, len(both) - wins_a))
    for a in _entries(agents)[1]:
        mirror = [r for r in records if r.agents == (a, a)]
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


MATCH_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "mean place", "mean score [95%]", "errors")


def match_rows(table: Sequence[Standing]) -> list[tuple]:
    """`match_standings`' rows: the mean place, the mean score with its 95% interval, the games lost by an
    error or a timeout."""
    def score(s: Standing) -> str:
        if not s.scores:
            return "-"
        mean, low, high = mean_interval(s.scores)
        if not math.isfinite(low):
            return f"{mean:.1f}"
        return f"{mean:.1f} [{low:.1f}, {high:.1f}]"

    def interval(s: Standing) -> str:
        low, high = s.interval if s.games else (0.0, 0.0)
        return f"{low:.1%}-{high:.1%}"

    return [(s.agent, s.games, f"{s.wins:g}", f"{s.win_rate:.1%}", interval(s), f"{s.mean_place:.2f}", score(s),
             s.failures) for s in table]

__all__ = ["Standing", "seat_entry", "standings", "standings_rows", "pair_rows", "sandbox_lines", "STANDINGS_HEADERS",
           "PAIR_HEADERS", "match_standings", "match_rows", "MATCH_HEADERS"]
