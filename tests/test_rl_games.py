"""The same environments for my-card-game and Skyport, through their game definitions (`locm.rl.seam_game`
and the encoders `locm.rl.mcg`, `locm.rl.skyport`): Gymnasium's and PettingZoo's checkers, every
mask exactly the game's legal actions, the same seed and actions giving the log of the game's own definition
(actions decoded from the game's view by a decoder written here, not the encoder's), stored episodes that
re-decide, and their dataset rows."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")  # the extra locm[rl]; the test extra installs it
pettingzoo_test = pytest.importorskip("pettingzoo.test")

from locm.engine import mcg  # noqa: E402
from locm.engine.mcg.commands import Attack, ChooseStarter, EndTurn, Mulligan, Play  # noqa: E402
from locm.engine.skyport import commands as sk  # noqa: E402
from locm.engine.registry import get as get_game  # noqa: E402
from locm.engine.skyport.game import redecide as skyport_redecide  # noqa: E402
from locm.engine.skyport.hexmap import DIRECTION_NAMES, DIRECTIONS, distance, mortar_distance  # noqa: E402
from locm.engine.skyport.legal import legal_actions as skyport_legal  # noqa: E402
from locm.engine.skyport.rules import RULES_2013  # noqa: E402
from locm.engine.skyport.state import view as skyport_view  # noqa: E402
from locm.events.mcg.codec import from_jsonl as mcg_from_jsonl, to_json as mcg_json  # noqa: E402
from locm.events.skyport.codec import from_jsonl as skyport_from_jsonl, to_json as skyport_json  # noqa: E402
from locm.rl import make_env  # noqa: E402
from locm.rl.logfolder import LogFolder  # noqa: E402
from locm.rl.pz import env as aec_env  # noqa: E402
from locm.rl.vector import make_vec  # noqa: E402

# Short Skyport games keep the suite fast (the 2013 rules play 200 turns).
SHORT_SKYPORT = RULES_2013.replace(name="short", base="2013", turn_limit=12)
SMALL_MCG = mcg.STANDARD.replace(name="small", base="standard", hand_limit=7, board_size=3)


@pytest.mark.parametrize("env_id,ruleset", [("MCG-v0", None), ("MCG-v0", SMALL_MCG), ("MCG-main-v0", None),
                                            ("Skyport-v0", None), ("Skyport-v0", SHORT_SKYPORT)])
def test_gymnasium_check_env(env_id, ruleset):
    env = gym.make(f"locm.rl:{env_id}", ruleset=ruleset, opponent="greedy" if env_id[0] == "M" else "hunter")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym.utils.env_checker.check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("game,ruleset,phases", [("mcg", None, None), ("mcg", SMALL_MCG, ("main",)),
                                                 ("skyport", SHORT_SKYPORT, None)])
def test_pettingzoo_api_and_seed(game, ruleset, phases):
    pettingzoo_test.api_test(aec_env(game, ruleset, phases=phases), num_cycles=200)
    pettingzoo_test.seed_test(lambda: aec_env(game, ruleset, phases=phases), num_cycles=200)


def _mcg_decode(state, slot: int, rules):
    """The slot layout of the module docstring read off the game's own view (`mcg.view`)."""
    p = state.current
    v = mcg.view(state, p)
    if v["phase"] == "choose":
        return ChooseStarter(p, p if slot == 0 else 1 - p)
    hand = [c["id"] for c in v["you"]["hand"]]
    if v["phase"] == "mulligan":
        subsets = [c for k in range(rules.mulligan_max + 1) for c in combinations(range(rules.opening_hand), k)]
        ordered = sorted(hand)
        return Mulligan(p, tuple(ordered[i] for i in subsets[slot]))
    own = [m["id"] for m in v["board"]["you"]]
    enemy = [m["id"] for m in v["board"]["enemy"]]
    b, h = rules.board_size, rules.hand_limit
    if slot == 0:
        return EndTurn(p)
    slot -= 1
    width = 3 + 2 * b
    if slot < h * width:
        k, t = divmod(slot, width)
        target = [-1, p, 1 - p][t] if t < 3 else own[t - 3] if t < 3 + b else enemy[t - 3 - b]
        return Play(p, hand[k], target)
    i, t = divmod(slot - h * width, 1 + b)
    return Attack(p, own[i], 1 - p if t == 0 else enemy[t - 1])


@pytest.mark.parametrize("ruleset", [mcg.STANDARD, SMALL_MCG], ids=["standard", "small"])
def test_mcg_same_seed_and_actions_give_the_log_of_the_core(ruleset):
    for seed in (4, 9):
        e = aec_env("mcg", ruleset)
        e.reset(seed=seed)
        g = get_game("mcg").new(ruleset, seed, ("player_0", "player_1"))  # the game's own definition
        rng = np.random.default_rng(seed)
        steps = 0
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            offset = {"choose": 0, "mulligan": 2, "main": 2 + e.layout.phases[1].actions}[g.state.phase]
            assert int(agent[-1]) == g.to_move
            legal = g.legal_actions()
            assert mask.sum() == len(legal)
            slot = int(rng.choice(np.flatnonzero(mask)))
            action = _mcg_decode(g.state, slot - offset, ruleset)
            assert action in legal, (seed, slot, action)
            g.submit(action)
            e.step(slot)
            steps += 1
        assert g.ended and steps > 20
        assert [mcg_json(x) for x in e.match.log] == [mcg_json(x) for x in g.log]


def _skyport_decode(state, p: int, slot: int, rules):
    """The turn's slots of the module docstring, from the rules' ranges and the view's position."""
    pos = tuple(skyport_view(state, p)["robots"][p]["position"])
    if slot == 0:
        return sk.EndTurn(p)
    table = [sk.move(d) for d in DIRECTION_NAMES] + [sk.mine(), "primary", "secondary"]
    table += [sk.laser(d) for d in DIRECTION_NAMES]
    r = max(rules.mortar.range)
    vectors = sorted(((a, b) for a in range(-r, r + 1) for b in range(-r, r + 1) if mortar_distance(a, b) <= r),
                     key=lambda v: (abs(v[0]) + abs(v[1]), v))
    table += [sk.mortar(*v) for v in vectors]
    r = max(rules.droid.range)
    disk = sorted(((a, b) for a in range(-r, r + 1) for b in range(-r, r + 1) if distance((0, 0), (a, b)) <= r),
                  key=lambda v: (distance((0, 0), v), v))
    table += [("droid", v) for v in disk]
    entry = table[slot - 1]
    robot = state.robots[p]
    if entry in ("primary", "secondary"):
        return sk.Act(p, sk.upgrade(getattr(robot, entry)))
    if type(entry) is tuple:  # the route the game lists to that tile
        target = (pos[0] + entry[1][0], pos[1] + entry[1][1])
        for a in skyport_legal(state, p):
            if a["type"] == "droid":
                j, k = pos
                for d in a["sequence"]:
                    j, k = j + DIRECTIONS[d][0], k + DIRECTIONS[d][1]
                if (j, k) == target:
                    return sk.Act(p, a)
        raise AssertionError(f"no droid route to {target}")
    return sk.Act(p, entry)


def test_skyport_same_seed_and_actions_give_the_log_of_the_core():
    rules = SHORT_SKYPORT
    loadouts = [(a, b) for a in ("laser", "mortar", "droid") for b in ("laser", "mortar", "droid") if a != b]
    for seed in (2, 5):
        e = aec_env("skyport", rules)
        e.reset(seed=seed)
        g = get_game("skyport").new(rules, seed, ("player_0", "player_1"))  # the game's own definition
        rng = np.random.default_rng(seed)
        kinds = set()
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            p = int(agent[-1])
            assert p == min(g.state.to_move)
            slot = int(rng.choice(np.flatnonzero(mask)))
            if g.state.phase == "loadout":
                assert mask.sum() == 6
                action = sk.ChooseLoadout(p, *loadouts[slot])
            else:
                assert mask.sum() == len(skyport_legal(g.state, p)) + 1  # and ending the turn
                action = _skyport_decode(g.state, p, slot - 6, rules)
                kinds.add(getattr(action, "action", {"type": "end"})["type"])
            g.submit(action)
            e.step(slot)
        assert g.over and {"move", "end"} <= kinds
        assert [skyport_json(x) for x in e.match.log] == [skyport_json(x) for x in g.log]


def _play_out(env, seed: int) -> None:
    obs, info = env.reset(seed=seed)
    while True:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if term or trunc:
            return


def test_stored_episodes_are_logs_that_re_decide(tmp_path):
    """An episode of either game, stored in a folder, reads back with the game's codec and re-decides."""
    env = make_env("MCG-v0", opponent="greedy", store=tmp_path / "mcg")
    for seed in (1, 2):
        _play_out(env, seed)
    _play_out(env, 1)  # the same seed and actions: the same game, stored once
    folder = LogFolder(tmp_path / "mcg", "mcg")
    assert len(folder.ids()) == 2
    for gid in folder.ids():
        log = mcg_from_jsonl(folder.read(gid))
        assert gid.startswith("env-mcg-") and mcg.redecide(log)[1] == -1 and mcg.fold(log).ended
    env = make_env("Skyport-v0", ruleset=SHORT_SKYPORT, opponent="hunter", store=tmp_path / "sky")
    _play_out(env, 3)
    (gid,) = LogFolder(tmp_path / "sky", "skyport").ids()
    assert skyport_redecide(skyport_from_jsonl(LogFolder(tmp_path / "sky", "skyport").read(gid)))[1] == -1


def test_vector_env_of_each_game():
    for env_id, ruleset in (("MCG-main-v0", None), ("Skyport-v0", SHORT_SKYPORT)):
        envs = make_vec(env_id, 3, ruleset=ruleset, opponent="random")
        obs, infos = envs.reset(seed=5)
        finished = 0
        for _ in range(300):
            obs, rewards, term, trunc, infos = envs.step(infos["action_mask"].argmax(axis=1))
            assert infos["action_mask"].any(axis=1).all()
            finished += int(term.sum())
        assert finished >= 3, env_id


def test_features_read_the_position():
    """A few named features read back the game from the learner's seat."""
    env = make_env("MCG-main-v0", opponent="random")
    obs, info = env.reset(seed=8)
    names = env.unwrapped.layout.feature_names() if hasattr(env, "unwrapped") else env.layout.feature_names()
    s = env.match.state
    me = s.players[env.seat]
    assert obs[names.index("main.me_health")] == pytest.approx(me.health / 30)
    assert obs[names.index("main.hand0_cost")] == pytest.approx(s.card(me.hand[0]).cost / 12)
    env = make_env("Skyport-v0", ruleset=SHORT_SKYPORT, opponent="random")
    obs, info = env.reset(seed=8)
    names = env.layout.feature_names()
    s = env.match.state
    r = s.robots[env.seat]
    assert obs[names.index("phase_loadout")] == 1.0
    assert obs[names.index("loadout.me_health")] == pytest.approx(r.health / SHORT_SKYPORT.health)


@pytest.mark.parametrize("env_id,ruleset", [("MCG-v0", None), ("Skyport-v0", SHORT_SKYPORT)])
def test_dataset_rows_of_stored_logs_are_the_learner_s_decisions(tmp_path, env_id, ruleset):
    """Episodes stored in a folder, exported: the learner's rows are exactly the observations, masks and
    actions the environment gave and took, in order, with the game's result."""
    from locm.rl.dataset import export_logs

    game = "mcg" if env_id.startswith("MCG") else "skyport"
    env = make_env(env_id, ruleset=ruleset, opponent="random", store=tmp_path / "eps")
    seen = []
    rng = np.random.default_rng(1)
    results = []
    for seed in (7, 8):
        obs, info = env.reset(seed=seed)
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            seen.append((obs, info["action_mask"].copy(), action))
            obs, r, term, trunc, info = env.step(action)
            if term or trunc:
                results.append(info["result"])
                break
    summary = export_logs(game, tmp_path / "eps", tmp_path / "rows.npz", ruleset=ruleset, seats=(0,))
    data = np.load(tmp_path / "rows.npz")
    assert summary.games == 2 and not summary.skipped and summary.rows == len(seen)
    assert np.array_equal(data["obs"], np.array([s[0] for s in seen]))
    assert np.array_equal(data["mask"], np.array([s[1] for s in seen]))
    assert list(data["action"]) == [s[2] for s in seen]
    ids = list(LogFolder(tmp_path / "eps", game).ids())
    by_seed = {int(gid.split("-")[2]): g for g, gid in enumerate(ids)}
    for seed, result in zip((7, 8), results):
        rows = data["game"] == by_seed[seed]
        assert set(data["outcome"][rows]) == {result} and data["done"][rows][-1]
    # a file in the folder that is no log of the game is skipped with its reason, never read as one
    (tmp_path / "eps" / f"env-{game}-1-forged.jsonl").write_text('{"type": "nothing"}\n')
    again = export_logs(game, tmp_path / "eps", tmp_path / "rows2.npz", ruleset=ruleset, seats=(0,))
    assert again.rows == summary.rows and [gid for gid, _ in again.skipped] == [f"env-{game}-1-forged"]


def test_the_environments_are_those_the_registered_games_declare():
    """`locm.rl` lists no game: its ids and adapters are the definitions' (`GameDef.rl_envs`, ``rl_adapter``)."""
    from locm.engine import registry
    from locm.rl import ENV_IDS, game_spec

    assert ENV_IDS == {i: (g, p, r) for g in registry.GAMES for i, p, r in registry.get(g).rl_envs}
    assert {g for g, _, _ in ENV_IDS.values()} == set(registry.GAMES)
    assert game_spec("my-card-game").game == "mcg" and game_spec("skyport").game == "skyport"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        game_spec("chess")
