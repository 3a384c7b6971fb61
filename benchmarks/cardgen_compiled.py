"""The card generator and a constructed game, interpreted (.venv/) and compiled (.venv-fast/, `make fast`),
alternating in the same run: CPU time per `generate_cards` call and per random-vs-random constructed game
(log kept), and the generator's share of the game. Medians of the rounds.

    .venv/bin/python benchmarks/cardgen_compiled.py            # 3 rounds
    .venv/bin/python benchmarks/cardgen_compiled.py --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHILD = r"""
import json, time
from locm.engine.corebuild import core
from locm.engine.locm.cardgen import generate_cards
from locm.games.locm.play import play_one
generate_cards(1)
play_one("constructed", 0, ("random", "random"))
t = time.process_time()
for k in range(300):
    generate_cards(k)
cardgen = (time.process_time() - t) / 300
t = time.process_time()
for k in range(150):
    play_one("constructed", k + 1, ("random", "random"))
game = (time.process_time() - t) / 150
print(json.dumps({"core": str(core()), "cardgen_ms": cardgen * 1e3, "game_ms": game * 1e3}))
"""


def run(python: Path) -> dict:
    out = subprocess.run([str(python), "-c", CHILD], cwd=REPO, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONSAFEPATH="1")).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    pythons = {"interpreted": REPO / ".venv" / "bin" / "python", "compiled": REPO / ".venv-fast" / "bin" / "python"}
    if not pythons["compiled"].is_file():
        print("cardgen_compiled.py: no .venv-fast/ (run: make fast)", file=sys.stderr)
        return 2
    runs: dict[str, list[dict]] = {"interpreted": [], "compiled": []}
    for k in range(args.rounds):
        for side in (("interpreted", "compiled") if k % 2 == 0 else ("compiled", "interpreted")):
            runs[side].append(run(pythons[side]))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.rounds} rounds")
    for side, rs in runs.items():
        cg = statistics.median(r["cardgen_ms"] for r in rs)
        game = statistics.median(r["game_ms"] for r in rs)
        print(f"{side:<12} generate_cards {cg:.3f} ms, a constructed game {game:.3f} ms, share {cg / game:.0%} "
              f"({rs[0]['core']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
