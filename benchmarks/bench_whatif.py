"""What-if throughput: `locm.tournament.whatif.whatif` re-running N stored greedy-vs-random 1.2 games under a variant
(start_health 20) with K worker processes, every re-run stored.

The stored games are made once by a tournament into --store (kept between invocations, so later runs skip
that step). Each run works on a fresh copy of that store (the copy is not timed), so every run re-plays and
stores all N games; the figure is games per second, median of --runs runs, reading the stored games,
re-playing, comparing and storing included.

    .venv/bin/python benchmarks/bench_whatif.py --games 10000 --workers 2 --runs 3
    .venv/bin/python benchmarks/bench_whatif.py --games 400 --runs 3 --json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.engine.locm.rulesets import RULES_12  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import run_tournament  # noqa: E402
from locm.engine import registry  # noqa: E402
from locm.tournament.whatif import whatif  # noqa: E402

AGENTS = ("greedy", "random")
VARIANT = RULES_12.replace(name="bench-health-20", base="1.2", start_health=20, runes=(15, 10, 5))


def build(store_path: Path, games: int, workers: int) -> tuple[int, float]:
    t0 = time.perf_counter()
    with open_store(store_path) as store:
        run_tournament(store, "1.2", AGENTS, games, workers=workers)
        n = len(store.games(ruleset="1.2"))
    return n, time.perf_counter() - t0


def one_run(store_path: Path, games: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory(dir=store_path.parent) as tmp:
        copy = Path(tmp) / "copy.db"
        shutil.copyfile(store_path, copy)
        t0 = time.perf_counter()
        with open_store(copy) as store:
            result = whatif(store, registry.get("locm"), VARIANT, games=games, workers=workers)
        elapsed = time.perf_counter() - t0
    assert result.played == result.selected == games and not result.skipped, result
    s = result.summary()
    return {"seconds": elapsed, "games_per_s": games / elapsed, "winner_changed": s["winner_changed"]["rate"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="stored games to re-run (even)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "locm-bench-whatif.db",
                    help="where the stored games are kept between invocations")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n, build_s = build(args.store, args.games, args.workers)
    runs = [one_run(args.store, args.games, args.workers) for _ in range(args.runs)]
    out = {
        "games": args.games, "workers": args.workers, "runs": args.runs, "stored_games": n,
        "build_seconds": round(build_s, 2),
        "median_seconds": round(statistics.median(r["seconds"] for r in runs), 2),
        "median_games_per_s": round(statistics.median(r["games_per_s"] for r in runs), 1),
        "all_seconds": [round(r["seconds"], 2) for r in runs],
        "winner_changed": runs[0]["winner_changed"],
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"whatif over {args.games} stored games, {args.workers} workers: median {out['median_seconds']} s "
              f"({out['median_games_per_s']} games/s) over {args.runs} runs {out['all_seconds']}; "
              f"store built in {out['build_seconds']} s; winner changed in {100 * out['winner_changed']:.1f}%")


if __name__ == "__main__":
    main()
