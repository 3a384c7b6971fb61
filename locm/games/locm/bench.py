"""`locm bench`: seeded random-vs-random games in one process, deck building included, full event log kept.
Timed: the games (creation, card pool or draft, deck building, battle); not timed: imports and the one-off
loading of card data (`engine.locm.setup.preload`), as in the peer benchmark."""

from __future__ import annotations

import ast
import statistics
import time
from pathlib import Path

from locm.events.locm.catalog import TurnStarted
from locm.engine.corebuild import core, stale_sources
from locm.engine.locm.folding import fold
from locm.engine.history import History
from locm.engine.locm.definition import GAME as LOCM
from locm.engine.locm.rulesets import by_name
from locm.engine.locm.setup import preload
from locm.games.locm.play import play_one


def compiled_beside(checkout: Path | None = None) -> tuple[str | None, str]:
    """The `locm` of the compiled build in .venv-fast/ beside this checkout (`make fast`), if this install is the
    checkout's pure editable one and that build is there and current; else None, and why not when a build is
    there but cannot be used (a stale one: its sources in this checkout changed since it was built, which it
    would refuse to run), or "" when there is none."""
    here = core()
    checkout = checkout or Path(__file__).resolve().parents[3]
    fast = checkout / ".venv-fast" / "bin" / "locm"
    if here.kind != "pure" or here.build != "editable" or not fast.is_file():
        return None, ""
    info = sorted((checkout / ".venv-fast").glob("lib/python*/site-packages/locm/engine/_corebuild.py"))
    sources = _build_sources(info[0]) if info else None
    if sources is None:
        return None, "the build in .venv-fast/ does not say what it was built from"
    changed = stale_sources(sources, [checkout])
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        return None, f"the compiled core in .venv-fast/ is stale ({shown} changed since it was built)"
    return str(fast), ""


def _build_sources(path: Path) -> dict[str, str] | None:
    """``SOURCES`` of a build's ``_corebuild.py`` (written by setup.py), read as data, never run."""
    try:
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["SOURCES"]:
                value = ast.literal_eval(node.value)
                if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in value.items()):
                    return value
    except (OSError, SyntaxError, ValueError):
        pass
    return None


def bench(ruleset, games: int, seed: int = 1, progress=None) -> dict:
    # One-off loading (the card list, the card generator's tables) before the clock starts, as the peer
    # benchmark (benchmarks/peer_gymlocm.py) loads its card data before its own.
    preload(by_name(ruleset) if isinstance(ruleset, str) else ruleset)
    logs = []
    events = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    for k in range(games):
        g = play_one(ruleset, seed + k, ("random", "random"))
        logs.append(g.log)
        events += len(g.log)
        if progress:
            progress(1)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0  # the process's own CPU time: what a machine shared with other work leaves
    # Rebuild the state at the last turn start of each game (a late turn): by a plain fold from the first
    # event, and from a History whose snapshots are already built.
    cold, warm = [], []
    for log in logs[: min(len(logs), 50)]:
        late = max(e.seq for e in log if type(e) is TurnStarted)
        t = time.perf_counter()
        fold(log[: late + 1])
        cold.append(time.perf_counter() - t)
        h = History(LOCM, log)
        h.state_at(0)
        t = time.perf_counter()
        h.state_at(late)
        warm.append(time.perf_counter() - t)
    return {
        "core": str(core()),
        "ruleset": getattr(ruleset, "name", ruleset),
        "games": games,
        "seconds": round(elapsed, 4),
        "cpu_seconds": round(cpu, 4),
        "games_per_s": round(games / elapsed, 1),
        "events": events,
        "events_per_s": round(events / elapsed, 1),
        "events_per_game": round(events / games, 1),
        "rebuild_ms": round(statistics.median(cold) * 1000, 3),
        "rebuild_snapshot_ms": round(statistics.median(warm) * 1000, 3),
    }
