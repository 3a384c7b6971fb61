"""`GameVectorEnv`: many games stepped in one process, with Gymnasium's vector API.

    >>> from locm.rl.vector import GameVectorEnv
    >>> from locm.rl import game_spec
    >>> envs = GameVectorEnv(game_spec("locm", "1.2"), 16, phases=("battle",), opponent="greedy")
    >>> obs, infos = envs.reset(seed=0)                 # games 0..15 (a list of seeds works too)
    >>> actions = infos["action_mask"].argmax(axis=1)    # any legal slot of each game
    >>> obs, rewards, terminations, truncations, infos = envs.step(actions)

Each game is a `locm.rl.env.GameEnv` (the same options); the batch's observations, masks and rewards are
written into arrays made once, so a step costs the games' own work and little else. Autoreset is Gymnasium's
``SAME_STEP`` mode: a game that ends is reset at once, its row holds the next game's first observation and
``infos["final_obs"]`` / ``infos["final_info"]`` (with ``"_final_obs"`` flags) hold the last one's;
``infos["result"]`` (flag ``"_result"``) the finished games' results for the learner, ``infos["game_id"]`` the
stored ids with ``store``. The next game of a row draws its seed from that row's generator, so a run is
reproducible from the seeds of the first `reset`.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from locm.rl.adapter import GameSpec
from locm.rl.env import GameEnv


def row_seeds(seed: int | Sequence[int] | None, num_envs: int) -> list[int | None]:
    """A vector environment's ``reset(seed=...)`` as one seed per row: None for none, ``seed + i`` for row i
    from one integer, or one given per row (`ValueError` for another count)."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, int):
        return [seed + i for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise ValueError(f"{len(seeds)} seeds for {num_envs} environments")
    return seeds


class GameVectorEnv(VectorEnv):
    """`num_envs` games of one `GameSpec`, stepped in this process (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, spec: GameSpec, num_envs: int, **options: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        self.envs = [GameEnv(spec, **options) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.action_space = batch_space(first.action_space, num_envs)
        n, size = first.layout.n_actions, first.layout.obs_size
        self._obs = np.zeros((num_envs, size), dtype=np.float32)
        self._masks = np.zeros((num_envs, n), dtype=bool)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=bool)
        self._truncations = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        seeds = row_seeds(seed, self.num_envs)
        for i, env in enumerate(self.envs):
            self._obs[i], info = env.reset(seed=seeds[i])
            self._masks[i] = info["action_mask"]
        return self._obs.copy(), {"action_mask": self._masks.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, masks, rewards = self._obs, self._masks, self._rewards
        terminations, truncations = self._terminations, self._truncations
        infos: dict[str, Any] = {}
        for i, (env, action) in enumerate(zip(self.envs, np.asarray(actions).tolist())):
            o, r, term, trunc, info = env.step(action)
            rewards[i], terminations[i], truncations[i] = r, term, trunc
            if term or trunc:
                self._finish(infos, i, o, info)
                o, info = env.reset()
            obs[i] = o
            masks[i] = info["action_mask"]
        infos["action_mask"] = masks.copy()
        return obs.copy(), rewards.copy(), terminations.copy(), truncations.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The legal slots of every game now, one row a game."""
        return self._masks.copy()

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def _finish(self, infos: dict[str, Any], i: int, obs: np.ndarray, info: dict[str, Any]) -> None:
        n = self.num_envs
        if "final_obs" not in infos:
            infos["final_obs"] = np.zeros((n, *obs.shape), dtype=np.float32)
            infos["_final_obs"] = np.zeros(n, dtype=bool)
            infos["final_info"] = [None] * n
            infos["result"] = np.zeros(n, dtype=np.float64)
            infos["_result"] = np.zeros(n, dtype=bool)
        infos["final_obs"][i] = obs
        infos["_final_obs"][i] = True
        infos["final_info"][i] = info
        if "result" in info:
            infos["result"][i] = info["result"]
            infos["_result"][i] = True
        if "game_id" in info:
            infos.setdefault("game_id", [None] * n)[i] = info["game_id"]


def make_vec(env_id: str, num_envs: int, ruleset: Any = None, **options: Any) -> GameVectorEnv:
    """`num_envs` games of an environment id (`locm.rl.ENV_IDS`) in one `GameVectorEnv`."""
    from locm.rl import ENV_IDS, game_spec

    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment {env_id!r}: expected one of {', '.join(ENV_IDS)}")
    game, phases, default = ENV_IDS[env_id]
    return GameVectorEnv(game_spec(game, default if ruleset is None else ruleset), num_envs, phases=phases,
                         **options)


__all__ = ["GameVectorEnv", "make_vec", "row_seeds", "gym"]
