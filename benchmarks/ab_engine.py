"""Same-run A/B of `locm bench` between two checkouts: this one and a baseline worktree.

Run with any python from anywhere:

    python benchmarks/ab_engine.py --base /tmp/engine-base            # both rulesets, 7 rounds
    python benchmarks/ab_engine.py --base /tmp/engine-base --ruleset 1.2 --rounds 9 --games 600

The baseline is another checkout with its own `.venv` (e.g. `git worktree add /tmp/engine-base main` and
`make setup` there). Each round plays the games of `locm bench` in both checkouts, one after the other in separate
processes, the order alternating between rounds so a drift of the machine's load hits both alike. Reported:
the median games/s of each side, the median of the per-round ratios (this checkout / baseline) and the
ratio of the best runs (the least disturbed by other jobs). On a shared machine only the ratios mean much;
the games are timed by the process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
GAMES = {"1.2": 600, "constructed": 400}


# The games of `locm bench` (locm.games.locm.play.play_one, random vs random, log kept), timed by the CPU time of the
# process: another engineer's job on the same cores slows the wall clock of a run far more than its CPU time.
SNIPPET = """
import json, sys, time
try:  # this layout (locm/ in rooms) or a baseline from before it (a flat locm/: locm/cli.py, locm/play.py)
    import locm.cli.main
    from locm.games.locm.play import play_one
except ImportError:
    import locm.cli
    from locm.play import play_one
ruleset, games = sys.argv[1], int(sys.argv[2])
play_one(ruleset, 0, ("random", "random"))  # one-off loading (imports, card data) out of the clock, both sides
logs = []  # kept, as `locm bench` keeps every game's log
t = time.process_time()
for k in range(games):
    logs.append(play_one(ruleset, 1 + k, ("random", "random")).log)
print(json.dumps({"games_per_s": games / (time.process_time() - t)}))
"""


def bench(repo: Path, ruleset: str, games: int) -> float:
    out = subprocess.run(
        [str(repo / ".venv/bin/python"), "-c", SNIPPET, ruleset, str(games)],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["games_per_s"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the baseline checkout (with its .venv)")
    ap.add_argument("--ruleset", choices=["1.2", "constructed", "all"], default="all")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--games", type=int, help="games per run (default 600 for 1.2, 400 for constructed)")
    args = ap.parse_args()
    for ruleset in (["1.2", "constructed"] if args.ruleset == "all" else [args.ruleset]):
        games = args.games or GAMES[ruleset]
        ours, base, ratios = [], [], []
        for k in range(args.rounds):
            if k % 2:
                b = bench(args.base, ruleset, games)
                o = bench(HERE, ruleset, games)
            else:
                o = bench(HERE, ruleset, games)
                b = bench(args.base, ruleset, games)
            ours.append(o)
            base.append(b)
            ratios.append(o / b)
        print(f"{ruleset}: this {statistics.median(ours):.0f} games/s, base {statistics.median(base):.0f} games/s, "
              f"median ratio {statistics.median(ratios):.2f}x, best/best {max(ours) / max(base):.2f}x "
              f"(rounds {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
