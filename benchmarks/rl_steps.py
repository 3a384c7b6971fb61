"""Environment steps per second with random masked actions, in locm's environments or gym-locm 2.0.0b1's.

One measurement, printed as one JSON object; `benchmarks/bench_rl.py` runs both engines alternately. Runs with
either venv's python (it imports only the engine it measures, Gymnasium and NumPy):

    .venv/bin/python benchmarks/rl_steps.py --engine locm --env battle --ruleset 1.2 --seconds 5
    /work/peer-venv/bin/python benchmarks/rl_steps.py --engine gym-locm --env battle --ruleset 1.2 --seconds 5

Both sides: the opponent and the deck building are each engine's random agents; the learner's action is a
uniformly random legal slot of the mask (``rng.choice(flatnonzero(mask))``; vectorised: the highest of random
numbers times the mask, one row a game). A step of a single environment includes the opponent's actions up to
the learner's next decision, and a reset the whole deck building (both engines work that way). Vectorised:
``--num-envs`` games in one process, steps counted per game (one vector step of 16 games is 16 steps): locm's
own `GameVectorEnv`; gym-locm has none, so its environments go through Gymnasium's `SyncVectorEnv`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _locm(env: str, ruleset: str, num_envs: int):
    from locm.rl import make_env
    from locm.rl.vector import make_vec

    env_id = {"battle": "LOCM-battle-v0", "game": "LOCM-v0", "draft": "LOCM-draft-v0",
              "constructed": "LOCM-constructed-v0"}[env]
    if num_envs:
        return make_vec(env_id, num_envs, ruleset=ruleset)
    return make_env(env_id, ruleset=ruleset)


def _peer(env: str, ruleset: str, num_envs: int):
    import gymnasium as gym
    import gym_locm  # noqa: F401  (registers its ids)
    from gym_locm.envs import LOCMBattleSingleEnv, LOCMConstructedSingleEnv, LOCMDraftSingleEnv

    version = "1.5" if ruleset == "constructed" else "1.2"

    def one(i: int = 0):
        if env == "battle":
            e = LOCMBattleSingleEnv(version=version, return_action_mask=True, seed=1 + i)
        elif env == "draft":
            e = LOCMDraftSingleEnv(seed=1 + i)
        elif env == "constructed":
            e = LOCMConstructedSingleEnv(seed=1 + i)
        else:
            raise SystemExit(f"gym-locm has no {env!r} environment")
        return e

    if num_envs:
        return gym.vector.SyncVectorEnv([lambda i=i: _MaskInfo(one(i)) for i in range(num_envs)])
    return one()


class _MaskInfo:
    """For Gymnasium's `SyncVectorEnv`: the mask read from `action_masks()` into the info (gym-locm's draft and
    constructed environments give none there), and a zero observation where gym-locm gives None (an ended
    game)."""

    def __init__(self, env) -> None:
        self.env = env
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.metadata, self.render_mode, self.spec = {"render_modes": []}, None, None
        self.np_random = np.random.default_rng()

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed)
        return obs, dict(info, action_mask=self._mask())

    def step(self, action):
        obs, r, term, trunc, info = self.env.step(action)
        if obs is None:  # gym-locm's observation of an ended game
            obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        return obs, r, term, trunc, dict(info, action_mask=self._mask())

    def _mask(self):
        try:
            mask = np.asarray(self.env.action_masks(), dtype=bool)
        except Exception:  # an ended game has none
            mask = np.zeros(self.action_space.n, dtype=bool)
        return mask if mask.shape == (self.action_space.n,) else np.zeros(self.action_space.n, dtype=bool)

    def close(self):
        pass

    @property
    def unwrapped(self):
        return self


def _mask(env, info) -> np.ndarray:
    mask = info.get("action_mask")
    return np.asarray(env.action_masks() if mask is None else mask, dtype=bool)


def run_single(env, seconds: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    steps = episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        mask = _mask(env, info)
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if term or trunc:
            episodes += 1
            obs, info = env.reset()
            if time.perf_counter() >= deadline:
                break
    elapsed = time.perf_counter() - start
    return {"steps": steps, "episodes": episodes, "seconds": elapsed, "steps_per_s": steps / elapsed}


def run_vector(envs, seconds: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    n = envs.num_envs
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        mask = np.asarray(info["action_mask"], dtype=bool)
        obs, r, term, trunc, info = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
        steps += n
    elapsed = time.perf_counter() - start
    return {"steps": steps, "seconds": elapsed, "steps_per_s": steps / elapsed}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", required=True, choices=["locm", "gym-locm"])
    p.add_argument("--env", required=True, choices=["battle", "game", "draft", "constructed"])
    p.add_argument("--ruleset", default="1.2", choices=["1.2", "constructed"])
    p.add_argument("--num-envs", type=int, default=0, help="0: a single environment; N: N games vectorised")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    make = _locm if args.engine == "locm" else _peer
    env = make(args.env, args.ruleset, args.num_envs)
    # warm-up (imports, card data, first games), then the measurement
    (run_vector if args.num_envs else run_single)(env, min(1.0, args.seconds / 5), args.seed + 1000)
    out = (run_vector if args.num_envs else run_single)(env, args.seconds, args.seed)
    out.update(engine=args.engine, env=args.env, ruleset=args.ruleset, num_envs=args.num_envs)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
