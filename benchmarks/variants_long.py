"""The property tests over random variants (tests/test_properties.py), run for longer than CI does: the
random-variant game property (`--games N` examples: a drawn variant, drawn built-in agents, two plays, the
fold, the bytes, the re-decided log) and the state machine (`--machine N` examples), with how many distinct
variants and games they played and how long it took.

    .venv/bin/python benchmarks/variants_long.py --games 20000 --machine 1500
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402

from locm.engine.locm import game as engine_game  # noqa: E402
from locm.engine.locm.rulesets import RULESETS  # noqa: E402
from tests import test_properties as tp  # noqa: E402
from tests.variant_strategies import variants  # noqa: E402

SEEN: set = set()
GAMES = [0]
_new = engine_game.Game.new.__func__


def _counting_new(cls, ruleset="1.2", *args, **kw):
    if not isinstance(ruleset, str) and RULESETS.get(ruleset.name) != ruleset:
        SEEN.add(ruleset)
        GAMES[0] += 1
    return _new(cls, ruleset, *args, **kw)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="examples of the random-variant game property")
    ap.add_argument("--machine", type=int, default=200, help="examples of the state machine over variants")
    ap.add_argument("--memory-mb", type=int, default=2048, help="address-space limit of this process")
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (args.memory_mb << 20, args.memory_mb << 20))
    engine_game.Game.new = classmethod(_counting_new)
    quick = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))

    @settings(max_examples=args.games, **quick)
    @given(rules=variants(), seed=tp.SEEDS, agents=tp.AGENT_PAIRS)
    def games(rules, seed, agents):
        tp.check_random_variant_game(rules, seed, agents)

    def machine():
        run_state_machine_as_test(tp.GameMachineVariant, settings=settings(
            max_examples=args.machine, stateful_step_count=200, **quick))

    for name, n, run in (("random-variant games", args.games, games), ("state machine", args.machine, machine)):
        if not n:
            continue
        SEEN.clear()
        GAMES[0] = 0
        t0 = time.perf_counter()
        run()
        print({"run": name, "examples": n, "distinct_variants": len(SEEN), "games": GAMES[0],
               "seconds": round(time.perf_counter() - t0, 1)}, flush=True)


if __name__ == "__main__":
    main()
