"""How strong each built-in agent is: a round robin of random, pass, greedy and lookahead in both rulesets (each
pair plays --games games on mirrored seeds, as `locm tournament` does), and the win rate of each agent against
each other with its 95% Wilson interval, as a Markdown table for the manual (docs/measurements.md). Games per
second are printed too (the agents' cost). The games are kept in --db, so a second invocation only reads them.

    .venv/bin/python benchmarks/agent_strength.py --games 1000 --workers 2 --db /tmp/locm-strength.db
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.analysis.stats import wilson  # noqa: E402
from locm.engine.locm.agents import AGENT_NAMES  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import run_tournament  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games per pair (even: both seats of each seed)")
    ap.add_argument("--seed", type=int, default=100001, help="first seed (away from the seeds agents were tuned on)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--db", type=Path, default=Path("/tmp/locm-strength.db"))
    args = ap.parse_args()
    agents = [a for a in ("lookahead", "greedy", "random", "pass") if a in AGENT_NAMES]
    with open_store(args.db) as store:
        for ruleset in ("1.2", "constructed"):
            t0 = time.perf_counter()
            run = run_tournament(store, ruleset, agents, args.games, workers=args.workers, seed=args.seed)
            dt = time.perf_counter() - t0
            cells: dict = {}
            for r in store.games(ruleset=ruleset):
                if r.agents[0] in agents and r.agents[1] in agents and args.seed <= r.seed < args.seed + args.games // 2:
                    for s, (me, other) in enumerate((r.agents, r.agents[::-1])):
                        c = cells.setdefault((me, other), [0, 0])
                        c[0] += r.winner == s
                        c[1] += 1
            print(f"\n{ruleset}: {run.scheduled} games ({run.played} played now in {dt:.0f} s"
                  + (f", {run.played / dt:.0f} games/s" if run.played else "") + ")\n")
            print("| row agent's win rate against | " + " | ".join(agents) + " |")
            print("| --- |" + " --- |" * len(agents))
            for a in agents:
                row = []
                for b in agents:
                    if a == b:
                        row.append("-")
                        continue
                    k, n = cells.get((a, b), (0, 0))
                    lo, hi = wilson(k, n)
                    row.append(f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" if n else "n/a")
                print(f"| {a} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
