"""The native battle environment (`locm.rl.locm_native`) against the Python one: N native games and N single
`GameEnv`s (through `locm.rl.vector.GameVectorEnv`) stepped with the same seeds and actions give the same
observations, masks, rewards, terminations, truncations and autoreset, element for element; with the log kept,
each finished game's log is the Python core's, byte for byte (so the same head hash).

Skipped, saying why, where the native core is not built (`make native`).
"""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest

from locm.engine.corebuild import native_module
from locm.engine.locm.gameid import episode_id
from locm.events.locm.catalog import GameEnded
from locm.events.locm.codec import from_jsonl, to_jsonl

MODULE, WHY = native_module("locm")
pytestmark = pytest.mark.skipif(MODULE is None, reason=f"no native core: {WHY}")

if MODULE is not None:
    from locm.rl.env import GameEnv
    from locm.rl.locm import LocmSpec
    from locm.rl.locm_native import ENV_ID, NativeBattleVectorEnv
    from locm.rl.vector import make_vec


def _actions(rng: np.random.Generator, masks: np.ndarray, invalid: float, first: float | None = None) -> np.ndarray:
    """A legal slot of each row, or (with probability `invalid`, `first` for row 0) any slot, legal or not."""
    out = []
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if rng.random() < (invalid if i or first is None else first) or not len(legal):
            out.append(int(rng.integers(0, len(row))))
        else:
            out.append(int(rng.choice(legal)))
    return np.array(out)


def _head(data: bytes) -> bytes:
    """The hash chain's head over a log's JSON lines (sha256(previous + line), as the store chains them)."""
    prev = bytes(32)
    for line in data.splitlines():
        prev = hashlib.sha256(prev + line).digest()
    return prev


@pytest.mark.parametrize(("ruleset", "opponent", "own_agent", "seat"), [
    ("1.2", "random", "random", 0), ("constructed", "random", "random", 0), ("1.2", "greedy", "greedy", 1),
    ("constructed", "greedy", "random", 1), ("1.2", "pass", "pass", 0)])
def test_steps_as_the_single_environments(ruleset, opponent, own_agent, seat):
    n, seed, steps = 6, 11, 600
    options = dict(opponent=opponent, own_agent=own_agent, seat=seat, max_invalid=3)
    native = NativeBattleVectorEnv(n, ruleset, **options)
    python = make_vec("LOCM-battle-v0", n, ruleset, **options)
    got, info = native.reset(seed=seed)
    want, want_info = python.reset(seed=seed)
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(got, want) and np.array_equal(info["action_mask"], want_info["action_mask"])
    rng = np.random.default_rng(seed)
    finished = truncated = 0
    for t in range(steps):
        actions = _actions(rng, info["action_mask"], 0.1, first=0.7)
        got, rewards, terms, truncs, info = native.step(actions)
        want, want_rewards, want_terms, want_truncs, want_info = python.step(actions)
        where = f"step {t} (seed {seed}, actions {actions.tolist()})"
        assert np.array_equal(got, want), where
        assert np.array_equal(info["action_mask"], want_info["action_mask"]), where
        assert np.array_equal(rewards, want_rewards), where
        assert np.array_equal(terms, want_terms) and np.array_equal(truncs, want_truncs), where
        assert ("final_obs" in info) == ("final_obs" in want_info), where
        if "final_obs" in info:
            assert np.array_equal(info["final_obs"], want_info["final_obs"]), where
            assert np.array_equal(info["_final_obs"], want_info["_final_obs"]), where
            assert np.array_equal(info["_result"], want_info["_result"]), where
            assert np.array_equal(info["result"], want_info["result"]), where
        finished += int(terms.sum())
        truncated += int(truncs.sum())
    assert finished >= n  # the comparison went through autoresets, not one game a row
    assert opponent == "pass" or truncated  # and through truncations by invalid actions (max_invalid=3)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_kept_logs_are_the_python_cores(ruleset):
    """Each finished game's log, kept natively, is the single environment's `match.log`, byte for byte."""
    n, seed = 3, 5
    native = NativeBattleVectorEnv(n, ruleset, opponent="random", keep_log=True)
    singles = [GameEnv(LocmSpec(ruleset), phases=("battle",), opponent="random") for _ in range(n)]
    _, info = native.reset(seed=seed)
    for i, env in enumerate(singles):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    compared = 0
    while compared < 2 * n:
        actions = _actions(rng, info["action_mask"], 0.0)
        _, _, terms, _, info = native.step(actions)
        for i, env in enumerate(singles):
            _, _, term, _, _ = env.step(int(actions[i]))
            assert term == terms[i]
            if term:
                want = to_jsonl(env.match.log)
                got = info["episode_log"][i]
                assert got == want, f"row {i}, seed {seed}"
                assert _head(got) == _head(want)
                assert info["game_id"][i] == episode_id(env.match.log)
                assert type(from_jsonl(got)[-1]) is GameEnded
                env.reset()
                compared += 1


def test_made_by_gymnasium_and_refuses_other_agents():
    envs = gym.make_vec(f"locm.rl.locm_native:{ENV_ID}", num_envs=4, ruleset="constructed")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (4, envs.single_observation_space.shape[0])
    assert info["action_mask"][:, 0].all()  # the end of the turn is always legal
    with pytest.raises(ValueError, match="opponent must be one of the native core's agents"):
        NativeBattleVectorEnv(2, opponent="lookahead")
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        NativeBattleVectorEnv(0)


def test_a_variants_sizes():
    """A variant's hand, lanes (other slot counts) and health (features past 1: health 1000 / 30), step for step
    as the Python environment."""
    import msgspec

    from locm.engine.locm.rulesets import by_name
    from locm.rl.vector import GameVectorEnv

    rules = msgspec.structs.replace(by_name("1.2"), hand_limit=6, lane_size=2, start_health=1000, name="wide")
    native = NativeBattleVectorEnv(3, rules)
    python = GameVectorEnv(LocmSpec(rules), 3, phases=("battle",))
    got, info = native.reset(seed=2)
    want, want_info = python.reset(seed=2)
    assert got.shape == (3, 16 + 6 * 19 + 2 * 2 * 19) and got.max() == np.float32(1000 / 30)
    rng = np.random.default_rng(2)
    for t in range(150):
        actions = _actions(rng, info["action_mask"], 0.0)
        got, rewards, _, _, info = native.step(actions)
        want, want_rewards, _, _, want_info = python.step(actions)
        assert np.array_equal(got, want) and np.array_equal(info["action_mask"], want_info["action_mask"]), t


def test_a_game_over_before_the_first_decision_is_passed_over():
    """Health 1: the opponent's first turn can end a game before the learner (seat 1) decides; such a row opens
    its next game rather than staying without a legal slot."""
    import msgspec

    from locm.engine.locm.rulesets import by_name

    rules = msgspec.structs.replace(by_name("1.2"), start_health=1, name="thin")
    envs = NativeBattleVectorEnv(64, rules, seat=1, opponent="greedy")
    _, info = envs.reset(seed=0)
    assert info["action_mask"].any(axis=1).all()
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, terms, _, info = envs.step(_actions(rng, info["action_mask"], 0.0))
        assert info["action_mask"].any(axis=1).all()


@pytest.mark.parametrize(("ruleset", "opponent", "own_agent", "seat", "health"), [
    ("1.2", "random", "random", 0, None), ("constructed", "random", "random", 1, None),
    ("1.2", "greedy", "random", 1, None), ("constructed", "random", "greedy", 0, None),
    ("1.2", "greedy", "random", 1, 1)])
def test_native_openings_are_the_python_paths(ruleset, opponent, own_agent, seat, health):
    """Each episode's opening made in C++ from its seed (`open_row_from`: the seeds, the pool and offers, the
    agents' seeds) gives the episodes of the opening made from Python's seeds and agents (`native_opening=False`),
    observation for observation, over several seeds a row and its autoresets, both rulesets (health 1: games over
    before the learner's first decision, passed over)."""
    import msgspec

    from locm.engine.locm.rulesets import by_name

    rules = ruleset if health is None else msgspec.structs.replace(by_name(ruleset), start_health=health, name="thin")
    n, seeds = 4, [21, 1, 2**40 + 3, 77]
    options = dict(opponent=opponent, own_agent=own_agent, seat=seat, max_invalid=3)
    fast = NativeBattleVectorEnv(n, rules, **options)
    slow = NativeBattleVectorEnv(n, rules, native_opening=False, **options)
    assert fast._from_seed and not slow._from_seed
    got, info = fast.reset(seed=seeds)
    want, want_info = slow.reset(seed=seeds)
    assert np.array_equal(got, want) and np.array_equal(info["action_mask"], want_info["action_mask"])
    rng = np.random.default_rng(4)
    finished = 0
    for t in range(300):
        actions = _actions(rng, info["action_mask"], 0.05)
        got, rewards, terms, truncs, info = fast.step(actions)
        want, want_rewards, want_terms, want_truncs, want_info = slow.step(actions)
        assert np.array_equal(got, want), t
        assert np.array_equal(info["action_mask"], want_info["action_mask"]), t
        assert np.array_equal(rewards, want_rewards) and np.array_equal(terms, want_terms), t
        assert np.array_equal(truncs, want_truncs), t
        finished += int(terms.sum())
    assert finished >= 2 * n
