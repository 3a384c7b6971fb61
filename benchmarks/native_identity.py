"""Ten thousand games a ruleset (or --games), each played by the Python core and by the native core, compared by
the hash chain of their logs' canonical JSON (and by the native core's JSON lines from the seed alone,
`engine.locm.native.play_jsonl`): half under the built-in ruleset with random 64-bit seeds, half
under random variants of it (tests/variant_strategies.py, every field drawn from the validator's ranges), agent
pairs among pass and random. Too long for the default suite (tests/test_native.py plays a few hundred); run:

    .venv/bin/python benchmarks/native_identity.py                   # 10,000 games a ruleset
    .venv-fast/bin/python -P benchmarks/native_identity.py --games 2000 --seed 7

Prints one line per ruleset and exits 1 at the first game that differs (its ruleset, seed, agents and rules).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.variant_strategies

import msgspec  # noqa: E402

import locm  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from locm.engine.corebuild import built, native_module  # noqa: E402
from locm.engine.locm.agents import make_agent, seat_seed  # noqa: E402
from locm.engine.locm.playing import play  # noqa: E402
from locm.engine.locm.game import Game  # noqa: E402
from locm.engine.locm.rulesets import by_name  # noqa: E402

ENCODE = msgspec.json.Encoder().encode
AGENTS = (("random", "random"), ("pass", "random"), ("random", "pass"), ("pass", "pass"), ("greedy", "random"),
          ("random", "greedy"), ("greedy", "greedy"))


def head(log) -> str:
    h = b""
    for e in log:
        h = hashlib.sha256(h + ENCODE(e)).digest()
    return h.hex()


def game_head(kind: str, rules, seed: int, agents) -> tuple[str, int]:
    locm.CORE_CHOICE = kind  # what LOCM_CORE sets at start
    game = Game.new(rules, seed, None, agents=agents)
    play(game, [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)])
    return head(game.log), len(game.log)


class Differs(Exception):
    pass


def jsonl_head(rules, seed: int, agents) -> str:
    """The head of the log `engine.locm.native.play_jsonl` writes (its opening decided natively from the seed)."""
    from locm.engine.locm import native

    locm.CORE_CHOICE = "native"
    h = b""
    for line in native.play_jsonl(rules, seed, agents).splitlines():
        h = hashlib.sha256(h + line).digest()
    return h.hex()


def check(kinds: tuple[str, str], rules, seed: int, agents, counts: dict) -> None:
    (a, n), (b, _) = game_head(kinds[0], rules, seed, agents), game_head(kinds[1], rules, seed, agents)
    c = jsonl_head(rules, seed, agents)
    if not a == b == c:
        raise Differs(f"{rules.name}: seed {seed}, agents {agents}: the heads differ ({kinds[0]} {a[:12]}, "
                      f"{kinds[1]} {b[:12]}, native JSON lines {c[:12]}); rules {rules!r}")
    counts["games"] += 1
    counts["events"] += n


def run(ruleset: str, games: int, seed: int, kinds: tuple[str, str]) -> dict:
    from tests.variant_strategies import variants

    rng = random.Random(seed)
    counts = {"games": 0, "events": 0}
    base = by_name(ruleset)
    for _ in range(games // 2):
        check(kinds, base, rng.randrange(-(2**63), 2**63), AGENTS[rng.randrange(len(AGENTS))], counts)

    @settings(max_examples=games - games // 2, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(rules=variants(base=ruleset), game_seed=st.integers(-(2**63), 2**63 - 1),
           agents=st.sampled_from(AGENTS))
    def under_variants(rules, game_seed, agents):
        check(kinds, rules, game_seed, agents, counts)

    under_variants()
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000, help="games a ruleset (half under variants)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", choices=["1.2", "constructed", "both"], default="both")
    args = ap.parse_args()
    module, why = native_module("locm")
    if module is None:
        print(f"native_identity: {why}", file=sys.stderr)
        return 2
    python_kind = next(c.kind for c in built() if c.kind != "native")
    for ruleset in (["1.2", "constructed"] if args.ruleset == "both" else [args.ruleset]):
        t = time.perf_counter()
        try:
            counts = run(ruleset, args.games, args.seed, (python_kind, "native"))
        except Differs as exc:
            print(f"native_identity: {exc}", file=sys.stderr)
            return 1
        print(f"{ruleset}: {counts['games']} games ({args.games // 2} built-in, the rest under random variants), "
              f"{counts['events']} events: equal head hashes, {python_kind}, native and native JSON lines "
              f"({time.perf_counter() - t:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
