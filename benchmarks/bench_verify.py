"""Speed of `locm verify` on a big store (a script, not a test).

Builds (once) a store of ``--games`` games with ``locm tournament`` (greedy vs random, 1.2: the schedule is
recorded, so verify also checks it), then times ``locm verify --db DB`` as a user runs it (a new process each,
Python start-up included), the median of ``--runs`` runs, in four ways: the default (SQLite's quick_check,
the ledger, the schedule, every game's chain, id, fold and re-decide), with ``--full`` (integrity_check
instead of quick_check), and both with ``--no-redecide``. Every run must find the store sound.

    .venv/bin/python benchmarks/bench_verify.py --games 10000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def timed(args: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run([*LOCM, *args], cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"locm {' '.join(args)} found a problem (exit {r.returncode}): {r.stdout[-500:]}")
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "locm-bench-verify.db")
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from locm.store.eventstore import open_store

    build_store(args.db, args.games, args.workers)
    with open_store(args.db, readonly=True) as store:
        n = store.count()
    result: dict = {"games_in_store": n, "store_bytes": args.db.stat().st_size, "runs": args.runs}
    for name, flags in MODES.items():  # interleaved by round, so that a slow spell hits every mode alike
        result[name] = []
    for _ in range(args.runs):
        for name, flags in MODES.items():
            result[name] += timed(["verify", "--db", str(args.db), *flags], 1)
    for name in MODES:
        times = result.pop(name)
        result[f"{name}_s"] = round(statistics.median(times), 2)
        result[f"{name}_runs_s"] = [round(t, 2) for t in times]
        result[f"{name}_games_per_s"] = round(n / statistics.median(times), 1)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"store: {n} games, {result['store_bytes'] / 1e6:.1f} MB; medians of {args.runs} runs, each a new process")
    for name, flags in MODES.items():
        print(f"  locm verify {' '.join(flags) or '(default)'}: {result[f'{name}_s']} s "
              f"({result[f'{name}_games_per_s']} games/s; runs {result[f'{name}_runs_s']})")


if __name__ == "__main__":
    main()
