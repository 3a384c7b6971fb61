"""Tournament throughput: games per second of `locm.games.locm.tournament.run_tournament` (greedy vs random, mirrored
seeds, every game stored in a fresh SQLite store) with 1 and 2 worker processes, for each ruleset.

Each figure is the median of --runs runs; a run is a whole tournament of --games games, worker start-up and
the store's writes included; the runs of 1 and 2 workers alternate, so that a change of load on a shared
machine hits both alike. For reference, ``baseline`` is the same games played in this process with no
store and no workers (`locm.games.locm.play.play_one` in a loop). It also reports the CPU time per game of the main
process (the one writer of the store: receiving, unpickling and inserting each game) and of the workers,
and the load average before the runs: the 2-worker figure means something only on a machine whose other
load is near 0.

The machine's own ceiling is measured in the same run (``ceiling``): a fixed pure-Python busy loop run by one
process, then by two processes at once, alternating with the tournament runs. On a virtual machine two vCPUs
need not give twice the work of one (this project's 2-vCPU machine gives 1.2-1.8x from run to run), so the
tournament's 2/1 ratio is reported beside that ceiling and as a share of it.

    .venv/bin/python benchmarks/bench_tournament.py                  # both rulesets, 1 and 2 workers
    .venv/bin/python benchmarks/bench_tournament.py --ruleset 1.2 --games 400 --runs 5 --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.games.locm.play import play_one  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import run_tournament, schedule  # noqa: E402

AGENTS = ("greedy", "random")


def one_run(ruleset: str, games: int, workers: int, seed: int) -> tuple[float, float, float]:
    """Games per second, and the CPU milliseconds per game of the main process and of the workers."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "bench.db") as store:
            t0, c0 = time.perf_counter(), time.process_time()
            run = run_tournament(store, ruleset, AGENTS, games, workers=workers, seed=seed)
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
            assert run.played == games and not run.failed, run
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return games / elapsed, 1000 * cpu / games, 1000 * child / games


def _burn(n: int) -> int:
    x = 0
    for i in range(n):
        x += i * i
    return x


def ceiling(n: int = 6_000_000) -> float:
    """How much more work two processes do than one on this machine right now: the same busy loop once in
    one process, then twice in two processes at once (started before the clock, by a fork)."""
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        pool.map(_burn, [1, 1])  # both started
        t0 = time.perf_counter()
        pool.apply(_burn, (n,))
        one = time.perf_counter() - t0
        t0 = time.perf_counter()
        pool.map(_burn, [n, n], chunksize=1)
        two = time.perf_counter() - t0
    return 2 * one / two


def baseline(ruleset: str, games: int, seed: int) -> float:
    jobs = schedule(ruleset, AGENTS, games, seed)
    t0 = time.perf_counter()
    for j in jobs:
        play_one(ruleset, j.seed, (j.agent0, j.agent1))
    return games / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", choices=("1.2", "constructed", "all"), default="all")
    ap.add_argument("--games", type=int, default=400, help="games per run (even)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rulesets = ("1.2", "constructed") if args.ruleset == "all" else (args.ruleset,)
    results = {}
    for ruleset in rulesets:
        load = [round(x, 2) for x in os.getloadavg()]
        entry = {"games": args.games, "runs": args.runs,
                 "baseline_games_per_s": statistics.median(baseline(ruleset, args.games, args.seed)
                                                           for _ in range(args.runs))}
        runs = {w: [] for w in args.workers}
        ceilings = []
        for _ in range(args.runs):
            for w in args.workers:
                runs[w].append(one_run(ruleset, args.games, w, args.seed))
            ceilings.append(ceiling())
        entry["machine_ceiling_2_over_1"] = round(statistics.median(ceilings), 2)
        entry["machine_ceiling_all_runs"] = [round(c, 2) for c in ceilings]
        for w in args.workers:
            entry[f"workers_{w}_games_per_s"] = statistics.median(r[0] for r in runs[w])
            entry[f"workers_{w}_all_runs"] = [round(r[0], 1) for r in runs[w]]
            entry[f"workers_{w}_main_cpu_ms_per_game"] = round(statistics.median(r[1] for r in runs[w]), 3)
            entry[f"workers_{w}_worker_cpu_ms_per_game"] = round(statistics.median(r[2] for r in runs[w]), 3)
        if 1 in args.workers and 2 in args.workers:
            entry["speedup_2_over_1"] = round(entry["workers_2_games_per_s"] / entry["workers_1_games_per_s"], 2)
            entry["speedup_share_of_ceiling"] = round(entry["speedup_2_over_1"] / entry["machine_ceiling_2_over_1"], 2)
        entry["load_average_before"] = load
        results[ruleset] = entry
        if not args.json:
            figures = ", ".join(f"{w} worker{'s' * (w != 1)} {entry[f'workers_{w}_games_per_s']:.0f}"
                                for w in args.workers)
            print(f"{ruleset}: {args.games} games/run, median of {args.runs}: {figures} games/s "
                  f"(in-process, no store: {entry['baseline_games_per_s']:.0f})"
                  + (f"; 2 workers / 1: {entry['speedup_2_over_1']}x" if "speedup_2_over_1" in entry else ""))
            for w in args.workers:
                print(f"  {w} worker{'s' * (w != 1)}: runs {entry[f'workers_{w}_all_runs']} games/s; CPU ms a game: "
                      f"main process (writer) {entry[f'workers_{w}_main_cpu_ms_per_game']}, workers "
                      f"{entry[f'workers_{w}_worker_cpu_ms_per_game']}")
            print(f"  machine ceiling (a busy loop, 2 processes / 1): median {entry['machine_ceiling_2_over_1']}x, "
                  f"runs {entry['machine_ceiling_all_runs']}"
                  + (f"; the tournament reaches {entry['speedup_share_of_ceiling']:.0%} of it"
                     if "speedup_share_of_ceiling" in entry else ""))
            print(f"  load average before: {load}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
