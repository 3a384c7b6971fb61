"""History's trade-off: what building its snapshots costs against a plain fold (time and memory), and what a
random `state_at` and a forward walk over every seq cost then. Median over games.

    .venv/bin/python benchmarks/bench_history.py --games 50
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from locm.engine.locm.folding import fold  # noqa: E402
from locm.engine.history import History  # noqa: E402
from locm.engine.locm.definition import GAME as LOCM  # noqa: E402
from locm.games.locm.play import play_one  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--ruleset", default="1.2")
    a = ap.parse_args()
    rows: dict[str, list[float]] = {k: [] for k in ("fold_ms", "build_ms", "build_x", "memory_x", "random_ms",
                                                    "walk_ms_per_seq")}
    rng = random.Random(1)
    for seed in range(1, a.games + 1):
        log = play_one(a.ruleset, seed, ("random", "random")).log
        t = time.perf_counter()
        fold(log)
        f = time.perf_counter() - t
        h = History(LOCM, log)
        t = time.perf_counter()
        h.state_at(0)
        b = time.perf_counter() - t
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        kept = History(LOCM, log)
        kept.state_at(0)  # the snapshots it keeps (measured apart: tracing slows the build)
        snap_mem = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        tracemalloc.start()
        import msgspec
        copy = msgspec.json.decode(msgspec.json.encode(log))  # a stand-in of the log's size in memory
        log_mem = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del copy
        seqs = [rng.randrange(len(log)) for _ in range(50)]
        t = time.perf_counter()
        for s in seqs:
            h.state_at(s)
        r = (time.perf_counter() - t) / len(seqs)
        h2 = History(LOCM, log)
        t = time.perf_counter()
        for s in range(len(log)):
            h2.state_at(s)
        w = (time.perf_counter() - t) / len(log)
        for k, v in (("fold_ms", f * 1e3), ("build_ms", b * 1e3), ("build_x", b / f), ("memory_x", snap_mem / log_mem),
                     ("random_ms", r * 1e3), ("walk_ms_per_seq", w * 1e3)):
            rows[k].append(v)
    print(f"{a.ruleset}, {a.games} games: " + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in rows.items()))


if __name__ == "__main__":
    main()
