"""Benchmark: the card-balance report over a large store, projection included (issue 23: 100,000 games in
under 30 s).

CPU seconds (this process and the workers) are printed too: the machine is shared, and the wall time
depends on the other jobs running (the load average is printed). Each run drops the card-facts projection
(untimed), projects every game (worker processes, one per core), computes every metric and writes the whole
report (JSON, CSV, PNGs, HTML). Prints each phase per run and the median over runs.

``--mode stored`` (the default) is the report as a tournament leaves the store: every game was stored with its
facts (`locm.store.records.game_facts`), so the projection adds them up and reads no log. ``--mode events`` is
the report of a store without them (written before them, or after a definitions change): every game is read,
its chain checked and folded (``locm report --rebuild``). ``--mode both`` alternates the two, run by run.

A store is built first if the file does not exist (a greedy/random round robin, half 1.2, half constructed,
with `locm tournament`'s machinery; 100k games take about 5 minutes on 2 cores).

    .venv/bin/python benchmarks/bench_report.py --db /tmp/bench100k.db --games 100000 --runs 3
    .venv/bin/python benchmarks/bench_report.py --db /tmp/bench100k.db --runs 2 --mode both
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.games.locm import facts_store as cardfacts_store  # noqa: E402
from locm.games.locm.cardreport import collect, write_report  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import schedule  # noqa: E402
from locm.tournament.run import pending, play_jobs  # noqa: E402


def build(db: Path, games: int, workers: int) -> None:
    store = open_store(db)
    try:
        for ruleset in ("1.2", "constructed"):
            jobs = schedule(ruleset, ("greedy", "random"), games // 2, seed=1)
            todo = pending(store, jobs)
            print(f"building: {len(todo)} {ruleset} games", file=sys.stderr)
            play_jobs(store, todo, workers=workers)
    finally:
        store.close()


def _cpu() -> float:
    """CPU seconds used by this process and its finished children (the projection's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run_once(db: Path, out: Path, workers: int | None, mode: str) -> dict[str, float]:
    conn = cardfacts_store.connect(db)
    td = time.perf_counter()
    cardfacts_store.drop(conn)  # as if the report had never run on this store: not part of the timing
    conn.close()
    t0 = time.perf_counter()
    drop_s = t0 - td
    cpu0 = _cpu()
    s = cardfacts_store.refresh(db, workers=workers, rebuild=mode == "events")
    t1 = time.perf_counter()
    cpu1 = _cpu()
    data = collect(db, refresh=False)
    t2 = time.perf_counter()
    write_report(data, out)
    t3 = time.perf_counter()
    cpu3 = _cpu()
    return {"projection_cpu_s": cpu1 - cpu0, "cpu_s": cpu3 - cpu0, "games": s.projected,
            "from_stored": s.from_stored, "projection_s": t1 - t0, "metrics_s": t2 - t1, "write_s": t3 - t2,
            "total_s": t3 - t0, "drop_s": drop_s, "load_avg_1min": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--games", type=int, default=100_000, help="Games to build when --db does not exist.")
    ap.add_argument("--runs", type=int, default=3, help="Runs of each mode.")
    ap.add_argument("--workers", type=int, default=None, help="Projection workers (default: one per core).")
    ap.add_argument("--mode", choices=("stored", "events", "both"), default="stored",
                    help="stored: the games' stored facts are added up; events: every log is read (--rebuild); "
                         "both: alternating.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.db.exists():
        build(args.db, args.games, os.cpu_count() or 1)
    modes = ("stored", "events") if args.mode == "both" else (args.mode,)
    runs: dict[str, list] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.runs):
            for mode in modes:
                r = run_once(args.db, Path(d) / f"report{i}{mode}", args.workers, mode)
                runs[mode].append(r)
                if not args.json:
                    print(f"run {i + 1} ({mode}): {r['games']} games ({r['from_stored']} from stored facts): "
                          f"projection {r['projection_s']:.1f} s, metrics {r['metrics_s']:.1f} s, writing "
                          f"{r['write_s']:.1f} s, total {r['total_s']:.1f} s (CPU {r['cpu_s']:.1f} s, of which "
                          f"projection {r['projection_cpu_s']:.1f} s; dropping the old projection first: "
                          f"{r['drop_s']:.1f} s, untimed; load average {r['load_avg_1min']:.1f})", flush=True)
    out = {}
    for mode, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        med["games_per_s"] = med["games"] / med["total_s"]
        med["cpus"] = os.cpu_count()
        out[mode] = med
        if not args.json:
            print(f"{mode}: median of {len(rs)}: {med['total_s']:.1f} s for {med['games']:.0f} games "
                  f"({med['games_per_s']:.0f} games/s; projection {med['projection_s']:.1f} s, metrics "
                  f"{med['metrics_s']:.1f} s, writing {med['write_s']:.1f} s) on {med['cpus']} cores; CPU "
                  f"{med['cpu_s']:.1f} s in all, so at least {med['cpu_s'] / med['cpus']:.1f} s on idle cores")
    if args.json:
        print(json.dumps(out if len(out) > 1 else out[modes[0]]))


if __name__ == "__main__":
    main()
