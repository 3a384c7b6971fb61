"""The native battle environment (`locm.rl.locm_native`) beside locm's Python environments and gym-locm's, in one
run: steps/s with random masked actions, single and batched, medians over rounds; and memory per environment.

    .venv/bin/python benchmarks/bench_native_vec.py                     # both rulesets, 3 rounds of 2 s a side
    .venv/bin/python benchmarks/bench_native_vec.py --ruleset 1.2 --rounds 5 --seconds 3 --json
    .venv/bin/python benchmarks/bench_native_vec.py --rounds 3 --seconds 2 --compare-openings

Sides (each a separate process per round, the order rotating within a round):
  gym-locm      benchmarks/rl_steps.py --engine gym-locm under /work/peer-venv (bash benchmarks/setup_peer.sh)
  locm          benchmarks/rl_steps.py --engine locm: `GameEnv` (single) and `GameVectorEnv` (batched)
  native        this file's --inner: `NativeBattleVectorEnv` (single: one game; batched: N games a step)
  native (Python opening)   with --compare-openings: the same with ``native_opening=False``, each episode's
                seeds and agents made in Python (the path before core.cpp's `open_row_from`), in the same rotation
Every side: the opponent and the deck building are the engine's random agents, the learner's action a random
legal slot (rl_steps.py's policies: ``rng.choice(flatnonzero(mask))`` single, the highest of random numbers
times the mask batched); a step includes the opponent's turns up to the learner's next decision, and a game's
end its next game's deck building. Batched steps count games (one step of 256 games is 256 steps). The native
side also reports ``in_step``: steps/s counting only the time inside ``step`` (the policy's NumPy work left out).

Memory per environment: the resident set's growth from before the environments are made to after a reset and
200 steps, divided by their number (one process each: native 1,024 games, locm 256, gym-locm 64), once a run.
`--inner` and `--inner-memory` are the sides' own processes (one JSON object each).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OURS = REPO / ".venv" / "bin" / "python"
PEER = Path(os.environ.get("LOCM_PEER_PYTHON", "/work/peer-venv/bin/python"))
BATCHES = (64, 256)


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def inner(ruleset: str, num_envs: int, seconds: float, seed: int, native_opening: bool = True) -> dict:
    """The native side: steps/s of `num_envs` games (1: the single environment)."""
    from locm.rl.locm_native import NativeBattleVectorEnv

    envs = NativeBattleVectorEnv(num_envs, ruleset, opponent="random", native_opening=native_opening)

    def run(seconds: float, seed: int) -> dict:
        rng = np.random.default_rng(seed)
        _, info = envs.reset(seed=seed)
        steps, inside, episodes = 0, 0.0, 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=1)
            t0 = time.perf_counter()
            _, _, terms, _, info = envs.step(actions)
            inside += time.perf_counter() - t0
            steps += num_envs
            episodes += int(terms.sum())
        elapsed = time.perf_counter() - start
        return {"steps": steps, "episodes": episodes, "seconds": elapsed, "steps_per_s": steps / elapsed,
                "in_step": steps / inside}

    run(min(1.0, seconds / 5), seed + 1000)  # warm-up
    return run(seconds, seed)


def inner_memory(engine: str, ruleset: str, num_envs: int) -> dict:
    """Bytes per environment: the resident set's growth over making `num_envs`, a reset and 200 steps."""
    sys.path.insert(0, str(HERE))
    import gymnasium  # noqa: F401  (imported before the first measure: not the environments' memory)

    if engine == "native":
        from locm.rl.locm_native import NativeBattleVectorEnv

        before = _rss()
        envs = NativeBattleVectorEnv(num_envs, ruleset)
    else:
        import rl_steps

        make = rl_steps._locm if engine == "locm" else rl_steps._peer
        if engine == "locm":
            import locm.rl.vector  # noqa: F401
        else:
            import gym_locm  # noqa: F401
        before = _rss()
        envs = make("battle", ruleset, num_envs)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    for _ in range(200):
        mask = np.asarray(info["action_mask"], dtype=bool)
        _, _, _, _, info = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
    grown = _rss() - before
    return {"engine": engine, "num_envs": num_envs, "bytes_per_env": grown / num_envs}


def _run(cmd: list[str], label: str) -> dict:
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"{label} failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _sides(ruleset: str, seconds: float, peer: bool, compare: bool) -> list[tuple[str, list[str]]]:
    steps = [str(HERE / "rl_steps.py"), "--env", "battle", "--ruleset", ruleset, "--seconds", str(seconds)]
    me = [str(OURS), str(Path(__file__).resolve()), "--inner", "--ruleset", ruleset, "--seconds", str(seconds)]
    sides = []
    if peer:
        sides.append(("gym-locm single", [str(PEER), *steps, "--engine", "gym-locm"]))
    sides += [("locm single", [str(OURS), *steps, "--engine", "locm"]),
              ("locm 64 (GameVectorEnv)", [str(OURS), *steps, "--engine", "locm", "--num-envs", "64"]),
              ("native single", [*me, "--num-envs", "1"])]
    sides += [(f"native {n}", [*me, "--num-envs", str(n)]) for n in BATCHES]
    if compare:
        sides += [(f"native {n} (Python opening)", [*me, "--num-envs", str(n), "--python-opening"])
                  for n in (1, *BATCHES)]
    return sides


def _memory(ruleset: str, peer: bool) -> dict:
    out = {}
    cases = [("native", 1024), ("locm", 256)] + ([("gym-locm", 64)] if peer else [])
    for engine, n in cases:
        python = PEER if engine == "gym-locm" else OURS
        out[engine] = _run([str(python), str(Path(__file__).resolve()), "--inner-memory", engine, "--ruleset",
                            ruleset, "--num-envs", str(n)], f"memory {engine}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", choices=["1.2", "constructed"], action="append")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--num-envs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--compare-openings", action="store_true",
                   help="also the native sides with each episode's seeds and agents made in Python")
    p.add_argument("--python-opening", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--inner-memory", choices=["native", "locm", "gym-locm"], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    rulesets = args.ruleset or ["1.2", "constructed"]
    if args.inner:
        print(json.dumps(inner(rulesets[0], args.num_envs, args.seconds, args.seed, not args.python_opening)))
        return 0
    if args.inner_memory:
        print(json.dumps(inner_memory(args.inner_memory, rulesets[0], args.num_envs)))
        return 0
    peer = PEER.exists()
    if not peer:
        print(f"gym-locm left out: no {PEER} (bash benchmarks/setup_peer.sh)", file=sys.stderr)
    report: dict = {"load_before": os.getloadavg(), "rounds": args.rounds, "seconds": args.seconds, "rulesets": {}}
    for ruleset in rulesets:
        sides = _sides(ruleset, args.seconds, peer, args.compare_openings)
        runs: dict[str, list[dict]] = {label: [] for label, _ in sides}
        for r in range(args.rounds):
            k = r % len(sides)
            for label, cmd in sides[k:] + sides[:k]:
                runs[label].append(_run(cmd + ["--seed", str(args.seed + r)], label))
        medians = {label: {"steps_per_s": float(np.median([x["steps_per_s"] for x in rs])),
                           **({"in_step": float(np.median([x["in_step"] for x in rs]))} if "in_step" in rs[0] else {})}
                   for label, rs in runs.items()}
        report["rulesets"][ruleset] = {"steps": medians, "memory": _memory(ruleset, peer)}
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"load average before {report['load_before'][0]:.2f}, after {report['load_after'][0]:.2f}; "
          f"medians of {args.rounds} rounds of {args.seconds:g} s a side")
    for ruleset, got in report["rulesets"].items():
        base = got["steps"].get("gym-locm single", {}).get("steps_per_s")
        print(f"\n{ruleset}: side, steps/s, (in step), x gym-locm")
        for label, m in got["steps"].items():
            ratio = f"{m['steps_per_s'] / base:.1f}x" if base else ""
            inside = f"{m['in_step']:,.0f}" if "in_step" in m else ""
            print(f"  {label:26} {m['steps_per_s']:>12,.0f} {inside:>12} {ratio:>8}")
        for engine, m in got["memory"].items():
            print(f"  memory {engine:10} {m['bytes_per_env'] / 1024:8.1f} KiB per environment ({m['num_envs']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
