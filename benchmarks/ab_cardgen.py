"""Same-run A/B of the 1.5 card generator (`generate_cards`) between this checkout and a baseline worktree.

Run with any python from anywhere:

    python benchmarks/ab_cardgen.py --base /tmp/engine-base            # 7 rounds
    python benchmarks/ab_cardgen.py --base /tmp/engine-base --rounds 9 --sets 200

The baseline is another checkout with its own `.venv` (as for `ab_engine.py`). Each round times
`generate_cards` over the same card-generation seeds in both checkouts, one after the other in separate
processes, the order alternating between rounds. A process builds its tables first (untimed), then reports its
best of 15 timings, in microseconds per card set (CPU time: another job on the same cores barely moves it).
Reported: the median of each side and the median of the per-round ratios (baseline / this checkout: the
speed-up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

SNIPPET = """
import json, sys, time
from locm.engine.locm.cardgen import generate_cards
sets = int(sys.argv[1])
generate_cards(0)  # the weights decoded and the tables built, out of the clock
best = float("inf")
for _ in range(15):
    t = time.process_time()
    for seed in range(1, sets + 1):
        generate_cards(seed)
    best = min(best, time.process_time() - t)
print(json.dumps({"us_per_set": best / sets * 1e6}))
"""


def bench(repo: Path, sets: int) -> float:
    out = subprocess.run(
        [str(repo / ".venv/bin/python"), "-c", SNIPPET, str(sets)],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["us_per_set"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the baseline checkout (with its .venv)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sets", type=int, default=100, help="card sets per timing (default 100)")
    args = ap.parse_args()
    ours, base, ratios = [], [], []
    for k in range(args.rounds):
        if k % 2:
            b = bench(args.base, args.sets)
            o = bench(HERE, args.sets)
        else:
            o = bench(HERE, args.sets)
            b = bench(args.base, args.sets)
        ours.append(o)
        base.append(b)
        ratios.append(b / o)
    print(f"generate_cards: this {statistics.median(ours):.0f} us/set, base {statistics.median(base):.0f} us/set, "
          f"median speed-up {statistics.median(ratios):.2f}x (rounds {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
