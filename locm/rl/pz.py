"""PettingZoo environments: two learning players in one game (gym-locm's ``-2p`` environments, as an AEC).

    >>> from locm.rl.pz import env
    >>> e = env("locm", ruleset="1.2")                   # the whole game; phases=("battle",) for the battle only
    >>> e.reset(seed=7)
    >>> for agent in e.agent_iter():
    ...     obs, reward, termination, truncation, info = e.last()
    ...     action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
    ...     e.step(action)

Agents ``player_0`` and ``player_1`` are the game's seats. As in PettingZoo's classic card games, an
observation is a dict: ``"observation"``, the same numbers as the Gymnasium environment's from that seat, and
``"action_mask"`` (int8), the legal slots of the agent to move (all 0 for the other). The game's turn order is
the AEC's: ``agent_selection`` is the seat whose decision the game waits for; phases the players do not learn
(``phases``) are played for both seats by ``own_agent``. Rewards are the game's result (1 / -1) at its end,
plus the changes of the shaping terms (``reward``, as `locm.rl.env.GameEnv` takes it) after every action.
An action outside the mask changes nothing (``infos[agent]["invalid"]``); ``max_invalid`` in a row truncate.
``store`` stores every finished game.

No parallel environment: PettingZoo's conversion (`aec_to_parallel`) needs every agent to act once per cycle,
and a card game's seat makes several decisions in a row (a battle turn is many actions), so it does not fit.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv

from locm.rl.env import EpisodeHoldings, Layout, derive_seed, make_reward


class GameAEC(EpisodeHoldings, AECEnv):
    """Two learning seats of one game (module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "locm_v0", "is_parallelizable": False, "render_fps": 4}

    def __init__(self, spec: Any, *, phases: Sequence[str] | None = None, own_agent: str = "random",
                 reward: Any = "win-loss", max_invalid: int = 100, store: Any = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.spec_ = spec
        self.layout = Layout(spec, phases)
        self.possible_agents = [f"player_{i}" for i in range(spec.seats)]
        self.metadata = dict(self.metadata, name=f"{spec.game}_v0")
        mask_space = gym.spaces.Box(0, 1, (self.layout.n_actions,), np.int8)
        self._observation_space = gym.spaces.Dict({"observation": self.layout.observation_space,
                                                   "action_mask": mask_space})
        self._action_space = self.layout.action_space
        self.own_agent = own_agent
        self._value, _ = make_reward(spec, reward)
        self.max_invalid = max_invalid
        self.render_mode = render_mode
        self._store_option = store
        self._store: Any = None
        self.match: Any = None
        self._agents: dict[int, Any] = {}
        self._np_random_seed: int | None = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = seed if seed is not None else int(self._rng.integers(0, 2**31))
        self._close_agents()
        self.agents = list(self.possible_agents)
        self.match = self.spec_.new(game_seed, self.agents)
        if len(self.layout.learned) < len(self.spec_.phases):
            self._agents = {p: self.spec_.opponent(self.own_agent, derive_seed(game_seed, f"own{p}"))
                            for p in range(self.spec_.seats)}
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._values = [self._value(self.match, p) if self._value else 0.0 for p in range(self.spec_.seats)]
        self._invalid = 0
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self.possible_agents.index(agent)
        if self.match is None or self.match.to_move() < 0 or self._phase < 0:
            obs = np.zeros(self.layout.obs_size, dtype=np.float32)
        else:
            obs, _, _ = self.layout.encode(self.match, p, self._phase)
        mask = self._mask if agent == self.agent_selection else np.zeros(self.layout.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        chosen = self._actions.get(int(action))
        if chosen is None:
            self._invalid += 1
            self.infos = {a: {} for a in self.agents}
            self.infos[agent] = {"invalid": True}
            if self._invalid >= self.max_invalid:
                self.truncations = {a: True for a in self.agents}
            self._accumulate_rewards()
            return
        self._invalid = 0
        self.match.play(chosen)
        self._advance()
        result = self.match.result()
        for p, a in enumerate(self.agents):
            if self._value is not None:
                value = self._value(self.match, p)
                self.rewards[a], self._values[p] = value - self._values[p], value
            elif result is not None:
                self.rewards[a] = result[p]
        self.infos = {a: {} for a in self.agents}
        if result is not None:
            self.terminations = {a: True for a in self.agents}
            for p, a in enumerate(self.agents):
                self.infos[a]["result"] = result[p]
            if self._store_option is not None:
                gid = self.spec_.store_episode(self._open_store(), self.match)
                for a in self.agents:
                    self.infos[a]["game_id"] = gid
            self._close_agents()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.match is not None and self.match.to_move() >= 0:
            return self.match.text(self.match.to_move())
        return None

    def close(self) -> None:
        self._release()

    # --- inside ---------------------------------------------------------------------------------------------

    def _advance(self) -> None:
        match = self.match
        learned = self.layout.learned
        while True:
            p = match.to_move()
            if p < 0:
                self._phase, self._actions = -1, {}
                self._mask = np.zeros(self.layout.n_actions, dtype=np.int8)
                return
            phase = match.phase()
            if phase in learned:
                self._phase = phase
                self.agent_selection = self.possible_agents[p]
                _, mask, self._actions = self.layout.encode(match, p, phase)
                self._mask = mask.astype(np.int8)
                return
            self._agents[p].play(match, p)



def env(game: str = "locm", ruleset: Any = None, **options: Any) -> GameAEC:
    """The AEC environment of a game (`locm.rl.game_spec`); `options` as `GameAEC` takes them."""
    from locm.rl import game_spec

    return GameAEC(game_spec(game, ruleset), **options)


__all__ = ["GameAEC", "env"]
