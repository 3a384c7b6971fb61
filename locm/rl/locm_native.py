"""`NativeBattleVectorEnv`: LOCM's battle environment for N games stepped in the native (C++) core, one call a step.

    >>> from locm.rl.locm_native import NativeBattleVectorEnv
    >>> envs = NativeBattleVectorEnv(256, ruleset="1.2", opponent="random")
    >>> obs, infos = envs.reset(seed=0)                  # games 0..255 (a list of seeds works too)
    >>> obs, rewards, terminations, truncations, infos = envs.step(infos["action_mask"].argmax(axis=1))

or ``gymnasium.make_vec("locm.rl.locm_native:LOCM-battle-native-v0", num_envs=256, ruleset="constructed")``.

The same environment as `locm.rl.vector.GameVectorEnv` over ``LOCM-battle-v0`` (`locm.rl.env.GameEnv` with
``phases=("battle",)`` and the win-loss reward), row for row: the same observations (float32, the encoding of
`locm.rl.locm.LocmMatch`), masks, rewards, terminations and truncations for the same seeds and actions, and the
same autoreset (Gymnasium's ``SAME_STEP``: a finished row holds the next game's first observation,
``infos["final_obs"]`` / ``"_final_obs"`` the last one's, ``infos["result"]`` / ``"_result"`` the results; the
next game's seed is drawn from the row's generator, seeded by the first `reset`). tests/test_native_vec.py
checks this element for element.

Where the work is done: each `step` is one call into core.cpp's ``BattleVec``, which plays every row's action,
the opponent's turns and the learner's own agent's deck building, and writes the arrays in place. Once an
episode, a finished row's next game is one call too (``open_row_from``: its seed drawn from the row's generator
in Python, then in C++ its seed parameters as `engine.locm.setup.derive_params` derives them, the draft's offers
or the generated pool, the agents seeded by the seeds `locm.rl.env.derive_seed` gives them in Python, hashlib's SHA-256); with the
log kept, or ``native_opening=False``, the opening's events or seeds and agents are Python's, as before (the
tests compare both paths). The opponent and the learner's own agent are the native core's built-in agents (``pass``,
``random``, ``greedy``); the reward is win-loss. A game that ends before the learner's first decision (possible in a variant
with tiny health) is passed over: its row opens its next game.

``keep_log=True`` keeps every game's event log: a finished row's log is in ``infos["episode_log"]`` (its JSON
lines, the bytes `locm.events.locm.codec.to_jsonl` makes, so the same hash chain as the Python core's game for
the same seeds and actions) and its id in ``infos["game_id"]`` (`locm.engine.locm.gameid.episode_id`). Off
(the default), events are applied and dropped.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from locm.engine.locm import native, setup
from locm.rl.env import Layout, derive_seed
from locm.rl.locm import LocmSpec
from locm.rl.vector import row_seeds

NATIVE_AGENTS = ("pass", "random", "greedy")
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1  # the seeds the native opening takes (others: Python's, refused)
ENV_ID = "LOCM-battle-native-v0"


class NativeBattleVectorEnv(VectorEnv):
    """`num_envs` LOCM battles stepped by the native core (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, ruleset: Any = "1.2", *, seat: int = 0, opponent: str = "random",
                 own_agent: str = "random", invalid_reward: float = 0.0, max_invalid: int = 100,
                 keep_log: bool = False, name: str = "policy", native_opening: bool = True) -> None:
        if not native.available():
            raise RuntimeError(f"the native vector environment needs the native core: {native.WHY_UNAVAILABLE}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        for role, spec in (("opponent", opponent), ("own_agent", own_agent)):
            if spec not in NATIVE_AGENTS:
                raise ValueError(f"{role} must be one of the native core's agents {', '.join(NATIVE_AGENTS)}, "
                                 f"not {spec!r}")
        self.spec_ = LocmSpec(ruleset)
        self.layout = Layout(self.spec_, ("battle",))
        self.num_envs = num_envs
        self.seat, self.opponent, self.own_agent, self.name = seat, opponent, own_agent, name
        self.keep_log = keep_log
        self.single_observation_space = self.layout.observation_space
        self.single_action_space = self.layout.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._core = native.battle_vec(self.spec_.rules, num_envs, self.spec_.bounded, keep_log, invalid_reward,
                                       max_invalid)
        assert (self._core.obs_size, self._core.n_actions) == (self.layout.obs_size, self.layout.n_actions)
        self._obs = np.zeros((num_envs, self.layout.obs_size), dtype=np.float32)
        self._masks = np.zeros((num_envs, self.layout.n_actions), dtype=bool)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._terminations = np.zeros(num_envs, dtype=bool)
        self._truncations = np.zeros(num_envs, dtype=bool)
        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        self._openings: list[Any] = [None] * num_envs  # each row's opening events (with keep_log)
        self._pool = self._seeded_pool()
        self._from_seed = native_opening and self._pool is not None
        if self._from_seed:  # each episode's opening from its seed alone, in C++ (`_open_one`)
            names = list(self.spec_.rules.seed_params)
            self._core.set_seeding(len(names), names.index(self._pool[0]), names.index("shufflePlayer0Seed"),
                                   names.index("shufflePlayer1Seed"), self._pool[1], seat,
                                   native.AGENT_KIND_OF[own_agent], native.AGENT_KIND_OF[opponent])

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        seeds = row_seeds(seed, self.num_envs)
        for i, s in enumerate(seeds):
            if s is not None or self._rngs[i] is None:
                self._rngs[i], _ = seeding.np_random(s)
            self._open(i, s)
        return self._obs.copy(), {"action_mask": self._masks.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs = self._obs
        self._core.step(np.asarray(actions, dtype=np.int64).reshape(self.num_envs), obs, self._masks,
                        self._rewards, self._terminations, self._truncations)
        infos: dict[str, Any] = {}
        done = np.flatnonzero(self._terminations | self._truncations)
        if len(done):
            n = self.num_envs
            infos["final_obs"] = np.zeros_like(obs)
            infos["_final_obs"] = np.zeros(n, dtype=bool)
            infos["result"] = np.zeros(n, dtype=np.float64)
            infos["_result"] = self._terminations.copy()
            infos["result"][self._terminations] = self._rewards[self._terminations]
            for i in done.tolist():
                infos["final_obs"][i] = obs[i]
                infos["_final_obs"][i] = True
                if self.keep_log:
                    log, gid = self._episode(i)
                    infos.setdefault("episode_log", [None] * n)[i] = log
                    infos.setdefault("game_id", [None] * n)[i] = gid
                self._open(i, None)
        infos["action_mask"] = self._masks.copy()
        return (obs.copy(), self._rewards.copy(), self._terminations.copy(), self._truncations.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """The legal slots of every game now, one row a game."""
        return self._masks.copy()

    def memory_per_env(self) -> int:
        """Bytes of the native core's record of one game, without its vectors' contents (the benchmark measures
        the whole)."""
        return int(self._core.row_bytes())

    # --- inside ---------------------------------------------------------------------------------------------

    def _open(self, i: int, seed: int | None) -> None:
        """Row i's next game (seed given, or drawn from the row's generator as `GameEnv.reset` draws it). A game
        that ends before the learner's first decision (a variant's tiny health: `GameEnv` would give a mask with
        no legal slot and refuse the next step) is passed over: the row opens the next seed of its generator."""
        self._open_one(i, seed)
        while not self._masks[i].any():
            self._open_one(i, None)

    def _open_one(self, i: int, seed: int | None) -> None:
        rng = self._rngs[i]
        assert rng is not None
        game_seed = seed if seed is not None else int(rng.integers(0, 2**31))
        if self._from_seed and _LONG_MIN <= game_seed <= _LONG_MAX:
            self._core.open_row_from(i, game_seed, derive_seed(game_seed, f"own{self.seat}"),
                                     derive_seed(game_seed, f"agent{1 - self.seat}"), self._obs, self._masks)
            return
        seat, other = self.seat, 1 - self.seat
        names = [self.name, self.opponent] if seat == 0 else [self.opponent, self.name]
        agents = [None, None]
        agents[other] = self.spec_.opponent(self.opponent, derive_seed(game_seed, f"agent{other}")).agent
        agents[seat] = self.spec_.opponent(self.own_agent, derive_seed(game_seed, f"own{seat}")).agent
        specs = native.agent_specs(agents)
        if self._pool is not None:  # the opening decided natively from the game's seeds (its events not kept)
            params = setup.derive_params(self.spec_.rules, game_seed)
            self._core.open_row_seeded(i, params["shufflePlayer0Seed"], params["shufflePlayer1Seed"],
                                       params[self._pool[0]], self._pool[1], seat, specs, self._obs, self._masks)
            return
        events = setup.create(self.spec_.rules, game_seed, None, (names[0], names[1]))  # what `LocmMatch` makes
        self._core.open_row(i, *native.opening_of(events), seat, specs, self._obs, self._masks)
        if self.keep_log:
            self._openings[i] = events

    def _seeded_pool(self) -> tuple[str, int] | None:
        """How the native core makes the card pool from a game's seed (the seed's name, the card generator's
        handle), having handed it the 1.2 card list; None where the Python core's opening is needed: the log
        kept (its opening events), or a generator's weights with ``cardChanges``."""
        rules = self.spec_.rules
        if self.keep_log:
            return None
        if rules.deck_building == "draft":
            from locm.engine.locm.carddata import CARDLIST_SIZE, cardlist_12

            cards = {**cardlist_12(), **{c.base_id: c for c in rules.cards}}  # as draft.draft_events takes them
            self._core.set_card_list(native.encode(tuple(cards[b] for b in range(1, CARDLIST_SIZE + 1))))
            return "draftChoicesSeed", 0
        from locm.engine.locm.cardgen import _load_tables
        from locm.engine.locm.nativecards import cardgen_handle

        handle = cardgen_handle(rules.card_weights, _load_tables)
        return None if handle is None else ("cardGenSeed", handle)

    def _episode(self, i: int) -> tuple[bytes, str]:
        """Row i's finished game: its whole log as JSON lines, and its episode id."""
        from locm.engine.locm.gameid import episode_id
        from locm.events.locm.codec import from_jsonl, to_jsonl

        data = to_jsonl(self._openings[i]) + self._core.take_log(i)
        return data, episode_id(from_jsonl(data))


def make_native_vec(num_envs: int = 1, ruleset: Any = "1.2", **options: Any) -> NativeBattleVectorEnv:
    """`gymnasium.make_vec`'s entry point for `ENV_ID`."""
    return NativeBattleVectorEnv(num_envs, ruleset, **options)


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, vector_entry_point=make_native_vec)

__all__ = ["NativeBattleVectorEnv", "make_native_vec", "ENV_ID", "NATIVE_AGENTS"]
