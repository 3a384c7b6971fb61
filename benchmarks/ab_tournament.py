"""Same-run A/B of a tournament between two checkouts: this one and a baseline worktree.

Run with any python from anywhere:

    python benchmarks/ab_tournament.py --base /tmp/rs-base                      # 1.2, 1 worker, 5 rounds
    python benchmarks/ab_tournament.py --base /tmp/rs-base --ruleset constructed --workers 2 --rounds 7

The baseline is another checkout with its own `.venv` (e.g. `git worktree add /tmp/rs-base main` and `make
setup` there). Each round runs the same tournament (greedy vs random, mirrored seeds, a fresh SQLite store,
`locm.games.locm.tournament.run_tournament`) in both checkouts, one after the other in separate processes, the order
alternating between rounds so that a drift of the machine's load hits both alike. Reported per side: the
median games/s by the clock, and the median CPU milliseconds per game of the workers (playing, checking,
encoding, chaining and compressing each game, and what else a worker does per game) and of the main process
(the store's one writer); then the medians of the per-round ratios (this checkout / baseline). On a shared
machine the CPU times mean more than the clock.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

SNIPPET = """
import json, resource, sys, tempfile, time
from pathlib import Path
try:  # this layout (locm/ in rooms) or a baseline from before it (a flat locm/)
    from locm.store.eventstore import open_store
    from locm.games.locm.tournament import run_tournament
except ImportError:
    from locm.store import open_store
    from locm.tournament import run_tournament
ruleset, games, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with tempfile.TemporaryDirectory() as tmp:
    with open_store(Path(tmp) / "ab.db") as store:
        t0, c0 = time.perf_counter(), time.process_time()
        run = run_tournament(store, ruleset, ("greedy", "random"), games, workers=workers, seed=1)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert run.played == games and not run.failed, run
after = resource.getrusage(resource.RUSAGE_CHILDREN)
child = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"games_per_s": games / elapsed, "worker_ms": 1000 * child / games, "main_ms": 1000 * cpu / games}))
"""


def run(checkout: Path, ruleset: str, games: int, workers: int) -> dict:
    python = checkout / ".venv" / "bin" / "python"
    out = subprocess.run([str(python), "-c", SNIPPET, ruleset, str(games), str(workers)], cwd=checkout,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="The baseline checkout (with its own .venv).")
    ap.add_argument("--ruleset", choices=("1.2", "constructed"), default="1.2")
    ap.add_argument("--games", type=int, default=2000, help="Games per tournament (even).")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sides = {"this": HERE, "base": args.base.resolve()}
    got: dict[str, list[dict]] = {"this": [], "base": []}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        order = ("this", "base") if r % 2 == 0 else ("base", "this")
        for side in order:
            got[side].append(run(sides[side], args.ruleset, args.games, args.workers))
        load.append(os.getloadavg()[0])
        if not args.json:
            t, b = got["this"][-1], got["base"][-1]
            print(f"round {r + 1}: this {t['games_per_s']:.0f} games/s, workers {t['worker_ms']:.3f} ms, main "
                  f"{t['main_ms']:.3f} ms a game; base {b['games_per_s']:.0f} games/s, workers {b['worker_ms']:.3f} "
                  f"ms, main {b['main_ms']:.3f} ms (load average {load[-1]:.1f})", flush=True)
    keys = ("games_per_s", "worker_ms", "main_ms")
    med = {side: {k: statistics.median(x[k] for x in got[side]) for k in keys} for side in got}
    ratio = {k: statistics.median(t[k] / b[k] for t, b in zip(got["this"], got["base"])) for k in keys}
    summary = {"ruleset": args.ruleset, "games": args.games, "workers": args.workers, "rounds": args.rounds,
               "this": med["this"], "base": med["base"], "ratio_this_over_base": ratio,
               "load_average": [min(load), max(load)]}
    if args.json:
        print(json.dumps(summary))
        return
    for side in ("this", "base"):
        m = med[side]
        print(f"{side}: median {m['games_per_s']:.0f} games/s, workers {m['worker_ms']:.3f} ms a game, main "
              f"{m['main_ms']:.3f} ms a game")
    print(f"this / base (median of the rounds' ratios): games/s {ratio['games_per_s']:.3f}x, worker CPU a game "
          f"{ratio['worker_ms']:.3f}x, main CPU a game {ratio['main_ms']:.3f}x; load average {min(load):.1f} to "
          f"{max(load):.1f}")


if __name__ == "__main__":
    main()
