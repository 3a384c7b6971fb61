"""Positions (`engine.position`): how long a position string is, full and redacted, and how long rebuilding it
and warming its agents up to it take (`locm.tournament.continued.warmed`), per game, for seeds 1..N with the
position at 3/4 of the game.

    .venv/bin/python benchmarks/bench_positions.py --seeds 10
"""

from __future__ import annotations

import argparse
import statistics
import time

from locm.engine import core, registry
from locm.engine.position import decode, encode, position, rebuild
from locm.tournament.continued import warmed

GAMES = (("locm", "1.2", ("greedy", "random")), ("locm", "constructed", ("greedy", "random")),
         ("mcg", "standard", ("greedy", "random")), ("skyport", "2013", ("random", "hunter")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    for name, ruleset, agents in GAMES:
        game = registry.get(name)
        full, redacted, rebuilt, warm = [], [], [], []
        for seed in range(1, args.seeds + 1):
            log = core.play(game, ruleset, seed, agents).log
            seq = len(log) * 3 // 4
            text = encode(position(game, log, seq, "id"))
            full.append(len(text))
            redacted.append(len(encode(position(game, log, seq, "id", seat=0))))
            t0 = time.perf_counter()
            match = rebuild(game, decode(text))
            t1 = time.perf_counter()
            warmed(game, match.log, agents, seed)
            t2 = time.perf_counter()
            rebuilt.append((t1 - t0) * 1000)
            warm.append((t2 - t1) * 1000)
        print(f"{name} {ruleset}: full {statistics.median(full):.0f} characters (max {max(full)}), redacted "
              f"{statistics.median(redacted):.0f}; rebuild {statistics.median(rebuilt):.1f} ms, warm-up "
              f"{statistics.median(warm):.1f} ms (medians of {args.seeds} seeds)")


if __name__ == "__main__":
    main()
