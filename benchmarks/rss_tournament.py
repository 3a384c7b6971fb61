"""Memory of a tournament over its run: the resident memory (MB) of `locm tournament` and its workers,
sampled every 0.5 s, at 10%, 50% and 90% of the run and at most (a script, not a test): the whole process
tree, the main process (the store's writer) and the largest worker.

    .venv/bin/python benchmarks/rss_tournament.py --games 6000
    .venv/bin/python benchmarks/rss_tournament.py --games 6000 --src /path/to/another/checkout
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mb(pid: int) -> float:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    found = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            found += [int(c) for c in open(f"/proc/{pid}/task/{t}/children").read().split()]
    except OSError:
        pass
    return found


def tree_rss_mb(pid: int) -> tuple[float, float, float]:
    """(the whole tree, the process itself, its largest child) in MB."""
    own, kids = rss_mb(pid), children(pid)
    sizes, todo = [], list(kids)
    while todo:
        q = todo.pop()
        sizes.append(rss_mb(q))
        todo += children(q)
    per_child = [rss_mb(k) for k in kids]
    return own + sum(sizes), own, max(per_child, default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=6000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent), help="the checkout to run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "tournament", "--agents", "pass", "random",
                              "--games", str(args.games), "--db", f"{tmp}/t.db", "-j", str(args.workers)],
                             cwd=args.src, env=dict(os.environ, PYTHONPATH=args.src),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples = []
        while p.poll() is None:
            samples.append(tree_rss_mb(p.pid))
            time.sleep(0.5)
    n = len(samples)
    for k, what in enumerate(("whole tree", "main process (writer)", "largest worker")):
        at = [round(samples[int(n * f)][k]) for f in (0.1, 0.5, 0.9)] if n else []
        print(f"{args.games} games, {args.workers} workers, {what}: RSS MB at 10/50/90% of the run {at}, "
              f"max {round(max((x[k] for x in samples), default=0))}")
    print(f"  {n / 2:.1f} s")


if __name__ == "__main__":
    main()
