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

With ``--redecide``, the stages of re-deciding a greedy-against-random log natively (`engine.locm.native.redecide`)
instead, beside the Python path's whole re-decide (``pure redecide``, not part of the total): ``opening``
(`setup.opening` from `game_created`), ``encode opening`` (the made and the stored opening, compared),
``encode rest`` (the stored events after it), ``opening args`` (`rules_tuple`, `opening_of`) and
``redecide_inputs`` (the C++ call: the inputs read from the JSON, played, the log written and compared).
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
REDECIDE_STAGES = ("opening", "encode opening", "encode rest", "opening args", "redecide_inputs")


def redecide_stages(ruleset: str, games: int) -> tuple[dict[str, float], float]:
    """CPU seconds of each stage of the native re-decide over `games` logs, and of the Python path's."""
    import locm
    from locm.engine.locm.playing import play
    from locm.engine.locm.redecide import redecide
    from locm.engine.locm.setup import opening

    logs = []
    for seed in range(games):
        game = Game.new(ruleset, seed, None, agents=("greedy", "random"))
        play(game, [make_agent(a, seat_seed(seed, p)) for p, a in enumerate(("greedy", "random"))])
        logs.append(list(game.log))
    spent = dict.fromkeys(REDECIDE_STAGES, 0.0)
    pure = 0.0
    clock = time.process_time
    enc = native.encode
    for log in logs:
        t0 = clock()
        made = [log[0], *opening(log[0])]
        t1 = clock()
        n = len(made)
        assert enc(made) == enc(log[:n])
        t2 = clock()
        rest = enc(log[n:])
        t3 = clock()
        args = (native.rules_tuple(log[0].rules), *native.opening_of(made))
        t4 = clock()
        assert native._native.redecide_inputs(*args, rest)[0] == 0
        t5 = clock()
        before, locm.CORE_CHOICE = locm.CORE_CHOICE, "pure"
        assert redecide(log).ok
        locm.CORE_CHOICE = before
        pure += clock() - t5
        for stage, a, b in zip(REDECIDE_STAGES, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
            spent[stage] += b - a
    return spent, pure


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", default="1.2", choices=["1.2", "constructed"])
    p.add_argument("--games", type=int, default=1500)
    p.add_argument("--stages", default="", help="play_game: only what callgrind needs (no printed table)")
    p.add_argument("--redecide", action="store_true", help="the stages of a native re-decide instead")
    args = p.parse_args(argv)
    if not native.available():
        raise SystemExit(f"no native core: {native.WHY_UNAVAILABLE}")
    if args.redecide:
        spent, pure = redecide_stages(args.ruleset, args.games)
        total = sum(spent.values())
        print(f"{args.ruleset}, {args.games} greedy-random logs re-decided, load average {os.getloadavg()[0]:.2f}: "
              "CPU us a game")
        for stage, v in spent.items():
            print(f"  {stage:16} {v / args.games * 1e6:8.1f}  {v / total:6.1%}")
        print(f"  {'total':16} {total / args.games * 1e6:8.1f}")
        print(f"  {'pure redecide':16} {pure / args.games * 1e6:8.1f}  ({pure / total:.2f}x the native total)")
        return 0
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
