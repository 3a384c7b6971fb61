"""Speed of `locm verify` on a big store, on each rules core built here (a script, not a test).

Builds (once) a store of ``--games`` games with ``locm tournament`` (greedy vs random, 1.2: the schedule is
recorded, so verify also checks it), then, interleaved round by round so that a slow spell of a loaded machine
hits every way alike, the median of ``--runs`` rounds of:

- ``locm verify --db DB`` as a user runs it (a new process each, Python start-up included) under each core of
  ``--cores`` (``LOCM_CORE``), in the ways of ``--modes``: ``default`` (SQLite's quick_check, the ledger, the
  schedule, every game's chain, id, fold and re-decide), ``full`` (integrity_check instead of quick_check),
  ``no_redecide`` and ``full_no_redecide`` (``--no-redecide``: the same core either way, so run once). Every run
  must find the store sound.
- with ``--against DIR``, the same ``locm verify`` of another checkout (DIR, run with DIR/.venv/bin/python from
  DIR: e.g. this one at an earlier commit, ``git worktree add DIR COMMIT`` and ``make setup native`` there), in
  the same rounds, and the ratio of each way's median to its median there.
- with ``--parts N``, where each of the first N stored games' `stored_problem` time goes, in this process, under
  the selected core: its log read and its chain checked (`EventStore.verified_log`), the whole-game run
  (`locm.verify.checks.proven`), its record, its content (with the re-decision and the agents' re-run when
  the run did not prove it) and its stored facts, in microseconds a game.
- ``engine.locm.redecide.redecide`` alone, in this process, over the first ``--redecide-games`` stored games'
  events (decoded once, before timing), under each core: microseconds a game.

    .venv/bin/python benchmarks/bench_verify.py --games 10000 --runs 3
    .venv/bin/python benchmarks/bench_verify.py --games 2000 --runs 5 --cores native,pure --modes default
    .venv/bin/python benchmarks/bench_verify.py --games 10000 --runs 3 --cores native --modes default \
        --against ../vnative-base --redecide-games 0
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOCM = [sys.executable, "-m", "locm.cli.main"]
MODES = {"default": [], "full": ["--full"], "no_redecide": ["--no-redecide"],
         "full_no_redecide": ["--full", "--no-redecide"]}


def build_store(db: Path, games: int, workers: int) -> None:
    from locm.store.eventstore import open_store

    if db.exists():
        with open_store(db, readonly=True) as store:
            if store.count() >= games:
                return
    print(f"building {db} with {games} games (locm tournament)...", file=sys.stderr)
    subprocess.run([*LOCM, "tournament", "--agents", "greedy", "random", "--games", str(games), "--db", str(db),
                    "--workers", str(workers)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def timed(args: list[str], runs: int, core: str = "", root: Path = ROOT) -> list[float]:
    times = []
    env = {**os.environ, "LOCM_CORE": core} if core else None
    locm = LOCM if root == ROOT else [str(root / ".venv" / "bin" / "python"), *LOCM[1:]]
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run([*locm, *args], cwd=root, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"locm {' '.join(args)} found a problem (exit {r.returncode}): {r.stdout[-500:]}")
    return times


def redecide_times(db: Path, games: int, cores: list[str], runs: int) -> dict[str, list[float]]:
    """Seconds of `redecide` over the first `games` stored games, a list a core (one entry a round)."""
    import locm
    from locm.engine.locm.redecide import redecide
    from locm.store.eventstore import open_store

    with open_store(db, readonly=True) as store:
        ids = [r.game_id for r in store.games(limit=games)]
        logs = [store.events(i) for i in ids]
    out: dict[str, list[float]] = {c: [] for c in cores}
    for _ in range(runs):
        for c in cores:
            locm.CORE_CHOICE = c
            t = time.perf_counter()
            bad = sum(not redecide(log).ok for log in logs)
            out[c].append(time.perf_counter() - t)
            if bad:
                sys.exit(f"redecide under {c} found {bad} unsound games")
    return out


def parts(db: Path, games: int) -> dict[str, float]:
    """Microseconds a game of each stage of `stored_problem` (see the module docstring), over the first
    ``games`` stored games."""
    from locm.engine import registry
    from locm.store.eventstore import open_store
    from locm.store.records import record_problem
    from locm.verify.checks import agents_problem, content_problem, facts_problem, proven

    spent = dict.fromkeys(["read and chain", "whole-game run", "record", "content and agents", "facts"], 0.0)

    def timed_part(name: str, f: Any) -> Any:
        t = time.perf_counter()
        out = f()
        spent[name] += time.perf_counter() - t
        return out

    with open_store(db, readonly=True) as store:
        records = store.games(limit=games)
        for r in records:
            game = registry.get(r.game)
            events, lines, head = timed_part("read and chain", lambda: store.verified_log(r.game_id))
            whole = timed_part("whole-game run", lambda: proven(game, events, r.meta, lines))
            if timed_part("record", lambda: record_problem(game, r, events, (lines, head) if whole else None)):
                sys.exit(f"game {r.game_id}: its record is not what its events give")
            ok = timed_part("content and agents", lambda: content_problem(
                r.game_id, events, meta=r.meta, winner=r.winner, reason=r.reason, game=game, proven=whole).ok
                and (whole or agents_problem(game, events, r.meta).ok))
            if not ok or timed_part("facts", lambda: facts_problem(store, r, events)):
                sys.exit(f"game {r.game_id} is not sound")
    return {k: round(v / max(1, len(records)) * 1e6, 1) for k, v in spent.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "locm-bench-verify.db")
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cores", default="native,pure", help="LOCM_CORE values, comma-separated (those built here)")
    ap.add_argument("--modes", default="default,no_redecide", help=f"comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--redecide-games", type=int, default=2000, help="games re-decided in process (0: none)")
    ap.add_argument("--against", type=Path, help="another checkout whose locm verify is timed in the same rounds")
    ap.add_argument("--parts", type=int, default=0, help="games whose verify stages are timed in process (0: none)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from locm.store.eventstore import open_store

    cores = [c for c in args.cores.split(",") if c]
    modes = [m for m in args.modes.split(",") if m]
    build_store(args.db, args.games, args.workers)
    with open_store(args.db, readonly=True) as store:
        n = store.count()
    result: dict = {"games_in_store": n, "store_bytes": args.db.stat().st_size, "runs": args.runs,
                    "load_average_before": round(os.getloadavg()[0], 2)}
    ways = [(m, c) for m in modes for c in (cores if "redecide" not in m else cores[:1])]
    times: dict[tuple[str, str], list[float]] = {w: [] for w in ways}
    against: dict[tuple[str, str], list[float]] = {w: [] for w in ways} if args.against else {}
    for _ in range(args.runs):  # interleaved by round, so that a slow spell hits every way alike
        for m, c in ways:
            times[m, c] += timed(["verify", "--db", str(args.db), *MODES[m]], 1, c)
            if args.against:
                against[m, c] += timed(["verify", "--db", str(args.db), *MODES[m]], 1, c, args.against.resolve())
    for (m, c), ts in times.items():
        key = f"{m}_{c}"
        result[f"{key}_s"] = round(statistics.median(ts), 2)
        result[f"{key}_runs_s"] = [round(t, 2) for t in ts]
        result[f"{key}_games_per_s"] = round(n / statistics.median(ts), 1)
        if against:
            base = against[m, c]
            result[f"{key}_against_s"] = round(statistics.median(base), 2)
            result[f"{key}_against_runs_s"] = [round(t, 2) for t in base]
            result[f"{key}_speedup"] = round(statistics.median(base) / statistics.median(ts), 2)
    rd = redecide_times(args.db, args.redecide_games, cores, args.runs) if args.redecide_games else {}
    k = min(args.redecide_games, n)
    for c, ts in rd.items():
        result[f"redecide_{c}_us_per_game"] = round(statistics.median(ts) / k * 1e6, 1)
        result[f"redecide_{c}_runs_s"] = [round(t, 3) for t in ts]
    if args.parts:
        result["parts_us_per_game"] = parts(args.db, args.parts)
    result["load_average_after"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"store: {n} games, {result['store_bytes'] / 1e6:.1f} MB; medians of {args.runs} rounds, interleaved; "
          f"load average {result['load_average_before']} before, {result['load_average_after']} after")
    for m, c in ways:
        key = f"{m}_{c}"
        print(f"  LOCM_CORE={c} locm verify {' '.join(MODES[m]) or '(default)'}: {result[f'{key}_s']} s "
              f"({result[f'{key}_games_per_s']} games/s; runs {result[f'{key}_runs_s']})")
        if against:
            print(f"    the same in {args.against}: {result[f'{key}_against_s']} s (runs "
                  f"{result[f'{key}_against_runs_s']}): this checkout is {result[f'{key}_speedup']}x faster")
    for c in rd:
        print(f"  redecide alone, in process, {k} games, {c}: {result[f'redecide_{c}_us_per_game']} us a game "
              f"(runs {result[f'redecide_{c}_runs_s']} s)")
    if args.parts:
        spent = result["parts_us_per_game"]
        print(f"  where verify's time goes, first {min(args.parts, n)} games, in process, us a game: "
              + ", ".join(f"{k} {v}" for k, v in spent.items()) + f" (total {round(sum(spent.values()), 1)})")
    if len(rd) > 1:
        base = cores[0]
        for c in cores[1:]:
            print(f"  redecide: {base} is {result[f'redecide_{c}_us_per_game'] / result[f'redecide_{base}_us_per_game']:.2f}x "
                  f"faster than {c}")


if __name__ == "__main__":
    main()
