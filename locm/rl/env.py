"""`GameEnv`: a Gymnasium environment over any game's adapter (`locm.rl.adapter.GameSpec`).

One learner sits in one seat and makes the decisions of the phases it learns (``phases``: e.g. only the
battle, only the draft, or the whole game); an ``opponent`` plays the other seat, and ``own_agent`` the
learner's seat in the phases it does not learn (the deck of a battle learner, the battles of a draft learner).
Both are a built-in agent's name, an external bot's command line (run in the sandbox, for games that have one)
or, for the opponent, a policy callable ``policy(observation, mask) -> action`` that sees the game from its seat
in this environment's spaces (self-play).

Spaces: a fixed ``Discrete(n)`` action space, the phases' blocks one after the other (`action_offsets`), and a
``Box`` of float32 observations: a one-hot of the phase when there are several, then each phase's block (the
block of the phase being decided is filled, the others are 0). ``info["action_mask"]`` and `action_masks()`
(sb3-contrib's `MaskablePPO`) give the legal slots. An action outside the mask changes nothing in the game: it
is reported in ``info["invalid"]``, rewarded ``invalid_reward``, and ``max_invalid`` of them in a row truncate
the episode.

Seeds: ``reset(seed=s)`` plays game seed ``s`` with agents seeded from it, so the same seed and the same actions
give the same event log (`match.log`) as `locm.Game` with the same seed and actions; ``reset()`` without a seed
draws the game's seed from the environment's generator (seeded by the first ``reset(seed=...)``). A game that
ends before the learner's first decision (a variant's health of 1, a charge on the first turn) is no episode:
`reset` plays the next seed derived from it instead (``derive_seed(s, "skip1")``, ...), says how many it skipped
in ``info["skipped"]``, and gives up with an error after 100 in a row.

Rewards: ``"win-loss"`` (1 / -1 at the end, the default), a name of the game's shaping terms (LOCM: gym-locm's
``player-health``, ``opponent-health``, ``player-board-presence``, ``opponent-board-presence``), a dict of names
(or callables ``f(match, seat) -> float``) to weights, or one callable. A shaping term is a value of the
position; the reward of a step is the change of the weighted sum since the learner's previous decision.

``store``: an event store (or its path): every finished episode is stored under its id (``env-...``, which
covers its actions), so any training game can be replayed, audited and re-decided like any other.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Mapping, Sequence

import gymnasium as gym
import numpy as np

from locm.rl.adapter import GameSpec, Match, Opponent

Policy = Callable[[np.ndarray, np.ndarray], int]
BOUND = 100.0
"""Observations are clipped to [-BOUND, BOUND] (scaled features are within [-1, 1] in the built-in rulesets;
a variant's larger values stay below the bound unless extreme)."""


def derive_seed(seed: int, salt: str) -> int:
    """A seed for an agent of a game, from the game's seed (31 bits: any agent accepts it)."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{salt}".encode()).digest()[:4], "big") >> 1


class Layout:
    """Where each phase goes in the action space and in the observation, for the phases an environment learns."""

    def __init__(self, spec: GameSpec, learned: Sequence[str] | None) -> None:
        names = [p.name for p in spec.phases]
        learned = names if learned is None else list(learned)
        for name in learned:
            if name not in names:
                raise ValueError(f"unknown phase {name!r} for {spec.game}: expected one of {', '.join(names)}")
        self.learned = tuple(i for i, n in enumerate(names) if n in learned)
        self.phases = spec.phases
        self.bounded = getattr(spec, "bounded", False)  # the game's features stay within the bounds: no clip
        self.action_offsets: dict[int, int] = {}
        self.obs_offsets: dict[int, int] = {}
        onehot = len(self.learned) if len(self.learned) > 1 else 0
        a, o = 0, onehot
        for k, i in enumerate(self.learned):
            self.action_offsets[i], self.obs_offsets[i] = a, o
            a += spec.phases[i].actions
            o += len(spec.phases[i].features)
        self.onehot = {i: k for k, i in enumerate(self.learned)} if onehot else {}
        self.n_actions, self.obs_size = a, o
        self.observation_space = gym.spaces.Box(-BOUND, BOUND, (o,), np.float32)
        self.action_space = gym.spaces.Discrete(a)

    def feature_names(self) -> list[str]:
        names = [f"phase_{self.phases[i].name}" for i in self.onehot]
        for i in self.learned:
            names += [f"{self.phases[i].name}.{f}" for f in self.phases[i].features]
        return names

    def encode(self, match: Match, player: int, phase: int) -> tuple[np.ndarray, np.ndarray, dict[int, Any]]:
        """The observation from `player`'s seat, the mask, and each legal slot's action (global slot numbers)."""
        features = match.observe(player)
        if type(features) is bytearray:  # float32 bytes (the game packed them): read, not converted
            features = np.frombuffer(features, dtype=np.float32)
        if len(self.learned) == 1:
            obs = features if type(features) is np.ndarray else np.array(features, dtype=np.float32)
        else:
            obs = np.zeros(self.obs_size, dtype=np.float32)
            obs[self.onehot[phase]] = 1.0
            start = self.obs_offsets[phase]
            obs[start:start + len(features)] = features
        if not self.bounded:
            np.clip(obs, -BOUND, BOUND, out=obs)
        slots, actions = match.choices()
        mask = bytearray(self.n_actions)
        offset = self.action_offsets[phase]
        if offset:
            slots = [s + offset for s in slots]
        for s in slots:
            mask[s] = 1
        return obs, np.frombuffer(mask, dtype=bool), dict(zip(slots, actions))


def make_reward(spec: GameSpec, reward: Any) -> tuple[Callable[[Match, int], float] | None, bool]:
    """(shaping value or None, whether win-loss counts) from the ``reward`` option."""
    if reward is None or reward == "win-loss":
        return None, True
    terms: Mapping[Any, float] = reward if isinstance(reward, Mapping) else {reward: 1.0}
    win_loss = 0.0
    fns: list[tuple[Callable[[Match, int], float], float]] = []
    for name, weight in terms.items():
        if name == "win-loss":
            win_loss = weight
        elif callable(name):
            fns.append((name, weight))
        elif name in spec.rewards:
            fns.append((spec.rewards[name], weight))
        else:
            raise ValueError(f"unknown reward {name!r}: expected win-loss, "
                             f"{', '.join(spec.rewards)}, or a callable f(match, seat) -> float")

    def value(match: Match, seat: int) -> float:
        v = sum(w * f(match, seat) for f, w in fns)
        if win_loss:
            r = match.result()
            if r is not None:
                v += win_loss * r[seat]
        return v

    return value, False


class EpisodeHoldings:
    """What an environment holds across episodes: the opponents' agents (``_agents``, closed after each
    episode) and the store episodes go to (``_store``, opened on first use from ``_store_option`` by the
    game's ``spec_``; closed with the environment when it opened it)."""

    spec_: GameSpec
    _store_option: Any
    _store: Any
    _agents: dict[int, Any]

    def _open_store(self) -> Any:
        if self._store is None:
            self._store = self.spec_.open_store(self._store_option)
        return self._store

    def _close_agents(self) -> None:
        for agent in self._agents.values():
            agent.close()
        self._agents = {}

    def _release(self) -> None:
        self._close_agents()
        if self._store is not None and self._store is not self._store_option:  # one it opened
            self._store.close()
        self._store = None


class GameEnv(EpisodeHoldings, gym.Env):
    """A Gymnasium environment for one learner against an opponent (module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, spec: GameSpec, *, phases: Sequence[str] | None = None, seat: int | str = 0,
                 opponent: str | Policy = "random", own_agent: str = "random", reward: Any = "win-loss",
                 invalid_reward: float = 0.0, max_invalid: int = 100, store: Any = None, name: str = "policy",
                 render_mode: str | None = None) -> None:
        if seat not in (0, 1, "alternate", "random"):
            raise ValueError(f"seat must be 0, 1, 'alternate' or 'random', not {seat!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.spec_ = spec
        self.layout = Layout(spec, phases)
        self.observation_space = self.layout.observation_space
        self.action_space = self.layout.action_space
        self.seat_option = seat
        self.opponent_spec = opponent
        self.own_agent_spec = own_agent
        self._value, self._win_loss = make_reward(spec, reward)
        self.invalid_reward = invalid_reward
        self.max_invalid = max_invalid
        self.max_skipped = 100
        self.name = name
        self.render_mode = render_mode
        self._store_option = store
        self._store: Any = None
        self.match: Match | None = None
        self.seat = 0
        self._agents: dict[int, Opponent] = {}
        self._mask = np.zeros(self.layout.n_actions, dtype=bool)
        self._actions: dict[int, Any] = {}
        self._invalid = 0
        self._potential = 0.0
        self._episodes = 0

    # --- the Gymnasium API ----------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._close_agents()
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31))
        self.seat = self._choose_seat()
        self._episodes += 1
        obs = self._start(game_seed)
        skipped = 0
        while self.match.to_move() < 0:  # the game ended before the learner's first decision: not an episode
            skipped += 1
            if skipped > self.max_skipped:
                raise RuntimeError(f"{skipped} games in a row ended before the learner's first decision (game "
                                   f"seed {game_seed}): these rules leave the learner nothing to decide")
            self._close_agents()
            obs = self._start(derive_seed(game_seed, f"skip{skipped}"))
        self._potential = self._value(self.match, self.seat) if self._value else 0.0
        info = self._info(False)
        info["skipped"] = skipped
        return obs, info

    def _start(self, game_seed: int) -> np.ndarray:
        """A new game of seed ``game_seed`` with its agents, played up to the learner's first decision."""
        opponent = self.opponent_spec if isinstance(self.opponent_spec, str) else "policy"
        names = [self.name, opponent] if self.seat == 0 else [opponent, self.name]
        self.match = self.spec_.new(game_seed, names)
        other = 1 - self.seat
        if isinstance(self.opponent_spec, str):
            self._agents[other] = self.spec_.opponent(self.opponent_spec, derive_seed(game_seed, f"agent{other}"))
        if len(self.layout.learned) < len(self.spec_.phases) or not isinstance(self.opponent_spec, str):
            # the learner's seat in the phases it does not learn (and a policy opponent's, likewise)
            for p in (self.seat, other):
                if p not in self._agents:
                    self._agents[p] = self.spec_.opponent(self.own_agent_spec, derive_seed(game_seed, f"own{p}"))
        self._invalid = 0
        return self._advance()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        match = self.match
        if match is None:
            raise RuntimeError("call reset() before step()")
        if match.to_move() < 0:
            raise RuntimeError("the episode is over: call reset()")
        chosen = self._actions.get(int(action))
        if chosen is None:
            self._invalid += 1
            truncated = self._invalid >= self.max_invalid
            info = self._info(True)
            info["action_mask"] = info["action_mask"].copy()  # the same decision: copies, not what was returned
            return self._obs.copy(), self.invalid_reward, False, truncated, info
        self._invalid = 0
        match.play(chosen)
        obs = self._advance()
        result = match.result()
        terminated = result is not None
        if self._value is not None:
            value = self._value(match, self.seat)
            reward, self._potential = value - self._potential, value
        else:
            reward = result[self.seat] if terminated else 0.0
        info = self._info(False)
        if terminated:
            info["result"] = result[self.seat]
            if self._store_option is not None:
                info["game_id"] = self.spec_.store_episode(self._open_store(), match)
            self._close_agents()
        return obs, float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The legal slots now (what sb3-contrib's `MaskablePPO` asks for)."""
        return self._mask.copy()

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.match is not None:
            return self.match.text(self.seat)
        return None

    def view(self) -> dict[str, Any]:
        """The game as the learner's seat may see it (the game's own view: hidden cards hidden)."""
        if self.match is None:
            raise RuntimeError("call reset() first")
        return self.match.view(self.seat)

    def close(self) -> None:
        self._release()
        super().close()

    # --- inside ---------------------------------------------------------------------------------------------

    def _choose_seat(self) -> int:
        option = self.seat_option
        if option == "alternate":
            return self._episodes % 2
        if option == "random":
            return int(self.np_random.integers(0, 2))
        return int(option)

    def _advance(self) -> np.ndarray:
        """Let the other players play until the learner decides in a phase it learns, or the game ends; the
        observation for the learner."""
        match = self.match
        learned = self.layout.learned
        seat = self.seat
        policy = None if isinstance(self.opponent_spec, str) else self.opponent_spec
        while True:
            p = match.to_move()
            if p < 0:
                self._actions = {}
                self._mask = np.zeros(self.layout.n_actions, dtype=bool)
                self._obs = np.zeros(self.layout.obs_size, dtype=np.float32)
                return self._obs
            phase = match.phase()
            if phase in learned:
                if p == seat:
                    self._obs, self._mask, self._actions = self.layout.encode(match, p, phase)
                    return self._obs  # a new array at every decision: nothing the caller holds is changed
                if policy is not None:
                    obs, mask, actions = self.layout.encode(match, p, phase)
                    slot = int(policy(obs, mask))
                    match.play(actions[slot] if slot in actions else actions[min(actions)])
                    continue
            self._agents[p].play(match, p)

    def _info(self, invalid: bool) -> dict[str, Any]:
        match = self.match
        phase = match.phase()
        return {"action_mask": self._mask, "phase": self.spec_.phases[phase].name if phase >= 0 else "ended",
                "seat": self.seat, "invalid": invalid}



__all__ = ["GameEnv", "Layout", "derive_seed", "make_reward", "Policy"]
