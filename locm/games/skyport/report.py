"""Win and score rates of Skyport from a store (`locm report --game skyport`), with LOCM's report's honesty rules.

A row is one agent's player-games with one loadout (its two weapons, primary first) or on one map: ``n``
player-games, the wins (the game's winner: the best score, R-END) with the win rate and its 95% Wilson
interval, and the mean score with its 95% interval (mean ± 1.96·sd/√n, a normal approximation). Each row is
set against its agent's baseline (its win rate and mean score over all its stored Skyport games): it is said
to win or score more or less only when its interval excludes the baseline. A row of fewer than ``min_games``
player-games is shown as thin (no verdict). Rows are per agent because the agent chooses the loadout (a
hunter's loadout and a random agent's are not the same experiment), and these are associations from stored
games, not causes (a map also sets the number of players; a loadout meets the others' loadouts).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from locm.analysis.stats import mean_interval, wilson

MIN_GAMES = 30


@dataclass(frozen=True)
class Row:
    agent: str
    by: str  # "loadout" or "map"
    key: str
    n: int
    wins: int
    win_low: float
    win_high: float
    score: float
    score_low: float
    score_high: float
    base_win: float
    base_score: float
    verdict: str  # "thin", or the win verdict and the score verdict: "above"/"below"/"within"


def _verdict(low: float, high: float, base: float) -> str:
    eps = 1e-9
    return "above" if low > base + eps else "below" if high < base - eps else "within"


def player_games(store, counted: bool = True) -> Iterable[tuple[str, str, str, bool, float]]:
    """(agent, loadout, map, won, score) of every seat of every stored Skyport game (only those the store may
    count, `locm.store.provenance`, when ``counted``)."""
    from locm.events.skyport.catalog import GameCreated, LoadoutChosen

    for m in store.games(game="skyport", counted=counted):
        events = store.events(m.game_id)
        created = events[0]
        assert isinstance(created, GameCreated)
        loadout = {e.player: f"{e.primary}+{e.secondary}" for e in events if type(e) is LoadoutChosen}
        for seat, agent in enumerate(m.agents):
            score = m.scores[seat] if m.scores else 0.0
            yield agent, loadout.get(seat, "none"), created.map.name, m.winner == seat, float(score)


def rates(rows: Iterable[tuple[str, str, str, bool, float]], min_games: int = MIN_GAMES) -> list[Row]:
    games: dict[str, list[tuple[bool, float]]] = defaultdict(list)
    cells: dict[tuple[str, str, str], list[tuple[bool, float]]] = defaultdict(list)
    for agent, loadout, game_map, won, score in rows:
        games[agent].append((won, score))
        cells[(agent, "loadout", loadout)].append((won, score))
        cells[(agent, "map", game_map)].append((won, score))
    out = []
    for (agent, by, key), xs in sorted(cells.items()):
        base = games[agent]
        base_win = sum(w for w, _ in base) / len(base)
        base_score = sum(s for _, s in base) / len(base)
        n, wins = len(xs), sum(w for w, _ in xs)
        lo, hi = wilson(wins, n)
        lo, hi = min(lo, wins / n), max(hi, wins / n)
        mean, slo, shi = mean_interval([s for _, s in xs])
        verdict = ("thin" if n < min_games else
                   f"wins {_verdict(lo, hi, base_win)}, scores {_verdict(slo, shi, base_score)}")
        out.append(Row(agent, by, key, n, wins, lo, hi, mean, slo, shi, base_win, base_score, verdict))
    return out


def report_lines(rows: list[Row], min_games: int) -> list[str]:
    out = [f"Skyport: win and score rates per agent, by loadout and by map (95% intervals; thin: fewer than "
           f"{min_games} player-games, no verdict; against the agent's own baseline)"]
    for agent in sorted({r.agent for r in rows}):
        mine = [r for r in rows if r.agent == agent]
        b = mine[0]
        out.append(f"\n{agent}: baseline win rate {100 * b.base_win:.1f}%, mean score {b.base_score:.1f}")
        for by in ("loadout", "map"):
            out.append(f"  {'by ' + by:<17} {'n':>5} {'win %':>6} {'95% interval':>14} {'score':>7} {'95% interval':>16}"
                       "  verdict")
            for r in (r for r in mine if r.by == by):
                fmt = lambda x: f"{x:.0f}" if math.isfinite(x) else "?"  # noqa: E731
                out.append(f"  {r.key:<17.17} {r.n:>5} {100 * r.wins / r.n:>6.1f} "
                           f"{f'{100 * r.win_low:.1f}-{100 * r.win_high:.1f}':>14} {r.score:>7.1f} "
                           f"{f'{fmt(r.score_low)} to {fmt(r.score_high)}':>16}  {r.verdict}")
    out.append("\nAssociations from stored games, not causes: the agent chose its loadout; a map also sets the "
               "number of players.")
    return out


def summary(store, min_games: int = MIN_GAMES, counted: bool = True) -> list[Row]:
    return rates(player_games(store, counted), min_games)


__all__ = ["Row", "rates", "report_lines", "summary", "player_games", "MIN_GAMES"]

