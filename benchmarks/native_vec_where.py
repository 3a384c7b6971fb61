"""Where a step of the native battle environment (`locm.rl.locm_native.NativeBattleVectorEnv`) spends its CPU
time: inside the C++ `BattleVec.step` call, in the next games' openings made in Python once an episode
(`_open`: the seeds, the agents), in the policy (rl_steps.py's batched one: the highest of random numbers times
the mask) and in the rest of the Gymnasium wrapper (the arrays' copies, the infos), per environment step.

    .venv/bin/python benchmarks/native_vec_where.py --num-envs 64 --ruleset 1.2 --steps 1000
    .venv/bin/python benchmarks/native_vec_where.py --num-envs 64 --ruleset 1.2 --steps 1000 --python-opening

``--python-opening``: each episode's seeds and agents made in Python (``native_opening=False``, the path before
core.cpp's `open_row_from`), to compare in one session.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from locm.rl.locm_native import NativeBattleVectorEnv


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--ruleset", default="1.2")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--python-opening", action="store_true", help="the seeds and agents made in Python")
    args = ap.parse_args()
    n = args.num_envs
    envs = NativeBattleVectorEnv(n, args.ruleset, opponent="random", native_opening=not args.python_opening)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    spent = {"step": 0.0, "open": 0.0}
    core, real_open = envs._core, envs._open

    class Timed:  # the core with its `step` timed
        def __getattr__(self, name):
            return getattr(core, name)

        def step(self, *a):
            t = time.process_time()
            core.step(*a)
            spent["step"] += time.process_time() - t

    def timed_open(i, seed):
        t = time.process_time()
        real_open(i, seed)
        spent["open"] += time.process_time() - t

    envs._core, envs._open = Timed(), timed_open
    policy, episodes = 0.0, 0
    total = time.process_time()
    for _ in range(args.steps):
        t = time.process_time()
        actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=1)
        policy += time.process_time() - t
        _, _, terms, _, info = envs.step(actions)
        episodes += int(terms.sum())
    total = time.process_time() - total
    k = n * args.steps
    rest = total - spent["step"] - spent["open"] - policy
    which = "Python" if args.python_opening else "native"
    print(f"{args.ruleset}, {n} games, {which} opening: us of CPU an environment step: total {total / k * 1e6:.2f} "
          f"({k / total:,.0f} steps a CPU second), BattleVec.step {spent['step'] / k * 1e6:.2f}, next games' "
          f"openings {spent['open'] / k * 1e6:.2f}, policy {policy / k * 1e6:.2f}, the wrapper's rest "
          f"{rest / k * 1e6:.2f}; {k / max(episodes, 1):.1f} steps an episode")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
