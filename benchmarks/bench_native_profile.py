"""Where a native full game's time goes with the log on: each stage of `engine.locm.native.play` (and the
`Game.new` before it) timed apart, in CPU time of this process (`time.process_time`: steadier than the wall
clock when other work shares the cores), random against random.

    .venv/bin/python benchmarks/bench_native_profile.py --ruleset 1.2 --games 1500

Stages: ``Game.new`` (the Python core's opening: `setup.create` and its fold), ``agents`` (two built-in agents),
``why_not``, ``opening args`` (the card pool as canonical JSON, the offers, the agents' generators),
``play_game`` (the C++ game, its msgspec events built in C++ and its final state as tuples), ``log.extend``,
``set_state`` (the final state into the `GameState`). Inside ``play_game``, instruction counts (deterministic,
whatever the load) come from callgrind:

    valgrind --tool=callgrind --toggle-collect='*play_game*' .venv/bin/python \\
        benchmarks/bench_native_profile.py --ruleset 1.2 --games 100 --stages play_game
    callgrind_annotate --inclusive=yes callgrind.out.*
"""

from __future__ import annotations

import argparse
import os
import time

from locm.engine.locm import native
from locm.engine.locm.agents import make_agent, seat_seed
from locm.engine.locm.game import Game
from locm.engine.locm.legal import LegalCache

STAGES = ("Game.new", "agents", "why_not", "opening args", "play_game", "log.extend", "set_state")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", default="1.2", choices=["1.2", "constructed"])
    p.add_argument("--games", type=int, default=1500)
    p.add_argument("--stages", default="", help="play_game: only what callgrind needs (no printed table)")
    args = p.parse_args(argv)
    if not native.available():
        raise SystemExit(f"no native core: {native.WHY_UNAVAILABLE}")
    spent = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time
    for seed in range(args.games):
        t0 = clock()
        game = Game.new(args.ruleset, seed, None, agents=("random", "random"))
        t1 = clock()
        players = [make_agent("random", seat_seed(seed, p)) for p in (0, 1)]
        t2 = clock()
        assert native.why_not(game, players) is None
        t3 = clock()
        made = (native.rules_tuple(game.state.rules), *native.opening(game), native.agent_specs(players))
        t4 = clock()
        events, final, _, _ = native._native.play_game(*made, True, False, native._KW_VALUES)
        t5 = clock()
        game.log.extend(events)
        t6 = clock()
        native._set_state(game.state, final)
        game.legal_cache = LegalCache()
        t7 = clock()
        for stage, a, b in zip(STAGES, (t0, t1, t2, t3, t4, t5, t6), (t1, t2, t3, t4, t5, t6, t7)):
            spent[stage] += b - a
    if args.stages:
        return 0
    total = sum(spent.values())
    print(f"{args.ruleset}, {args.games} games, load average {os.getloadavg()[0]:.2f}: CPU us a game")
    for stage, v in spent.items():
        print(f"  {stage:14} {v / args.games * 1e6:8.1f}  {v / total:6.1%}")
    print(f"  {'total':14} {total / args.games * 1e6:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
