"""Tournaments on Ray against local worker processes on this machine: games per second of the same schedule
(greedy vs random, every game stored in a fresh SQLite store), and Ray's overhead per game.

Ray runs a local cluster of ``--cpus`` CPUs (started once, untimed: `ray.init`); local runs use the same
number of worker processes. Runs alternate (local, Ray, local, ...) so that a change of load hits both; the
medians are printed. The overhead per game is (Ray's seconds - local's seconds) / games, and the cost of an
empty Ray task is measured too (``--empty`` tasks of a function that returns at once, submitted all at once).

    .venv/bin/python benchmarks/bench_ray.py --games 2000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.tournament.ray_backend import play_jobs_ray  # noqa: E402
from locm.tournament.ray_backend import BATCH_GAMES, connect  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import schedule  # noqa: E402
from locm.tournament.run import play_jobs  # noqa: E402


def _noop() -> int:
    return 0


def one_run(backend: str, ruleset: str, games: int, cpus: int, batch: int) -> float:
    jobs = schedule(ruleset, ("greedy", "random"), games, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "b.db") as store:
            t0 = time.perf_counter()
            if backend == "ray":
                run = play_jobs_ray(store, jobs, count=len(jobs), batch_games=batch)
            else:
                run = play_jobs(store, jobs, workers=cpus, count=len(jobs))
            seconds = time.perf_counter() - t0
            assert run.played == games and not run.failed
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="1.2")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--batch", type=int, default=BATCH_GAMES, help="Games per Ray task.")
    ap.add_argument("--empty", type=int, default=2000, help="Empty Ray tasks for the per-task cost.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ray = connect(None, num_cpus=args.cpus)
    start_s = time.perf_counter() - t0
    noop = ray.remote(num_cpus=1)(_noop)
    ray.get([noop.remote() for _ in range(2 * args.cpus)])  # workers started
    t0 = time.perf_counter()
    ray.get([noop.remote() for _ in range(args.empty)])
    task_ms = 1000 * (time.perf_counter() - t0) / args.empty
    secs: dict[str, list[float]] = {"local": [], "ray": []}
    for r in range(args.runs):
        for backend in ("local", "ray"):
            secs[backend].append(one_run(backend, args.ruleset, args.games, args.cpus, args.batch))
            if not args.json:
                print(f"run {r + 1} {backend}: {args.games / secs[backend][-1]:.0f} games/s", flush=True)
    med = {b: statistics.median(v) for b, v in secs.items()}
    out = {"games": args.games, "cpus": args.cpus, "batch": args.batch, "ray_start_s": start_s,
           "empty_task_ms": task_ms, "local_games_per_s": args.games / med["local"],
           "ray_games_per_s": args.games / med["ray"],
           "overhead_ms_per_game": 1000 * (med["ray"] - med["local"]) / args.games}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"median of {args.runs}, {args.games} {args.ruleset} games on {args.cpus} CPUs: local "
              f"{out['local_games_per_s']:.0f} games/s, Ray {out['ray_games_per_s']:.0f} games/s "
              f"({out['ray_games_per_s'] / out['local_games_per_s']:.2f}x; batches of {args.batch}); Ray's "
              f"overhead {out['overhead_ms_per_game']:+.3f} ms a game; an empty Ray task {task_ms:.2f} ms; "
              f"starting Ray {start_s:.1f} s (untimed)")
    ray.shutdown()


if __name__ == "__main__":
    main()
