"""The reinforcement-learning environments (`locm.rl`): Gymnasium's and PettingZoo's own checkers on every
environment, the action slots checked against gym-locm's layout by an independent decoder, the same seed and
actions giving the same event log as `locm.Game`, stored episodes that re-decide, the vectorised environment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")  # the extra locm[rl]; the test extra installs it
pettingzoo_test = pytest.importorskip("pettingzoo.test")

import locm  # noqa: E402
from locm.engine.locm.commands import Attack, EndTurn, Pick, Summon, Use  # noqa: E402
from locm.engine.locm.redecide import redecide  # noqa: E402
from locm.engine.locm.rulesets import RULES_12, RULES_CONSTRUCTED  # noqa: E402
from locm.events.locm.codec import to_json  # noqa: E402
from locm.engine.locm.gameid import check_id, episode_id  # noqa: E402
from locm.rl import ENV_IDS, make_env  # noqa: E402
from locm.rl.pz import env as aec_env  # noqa: E402
from locm.rl.vector import make_vec  # noqa: E402
from locm.store.eventstore import MemoryStore  # noqa: E402
from locm.engine.locm.definition import GAME as LOCM_GAME

# A variant of each ruleset with other hand and lane sizes: the action space follows the rules it plays.
SMALL_12 = RULES_12.replace(name="small", base="1.2", hand_limit=6, lane_size=2)
WIDE_C = RULES_CONSTRUCTED.replace(name="wide", base="constructed", hand_limit=10, lane_size=4)
DRAFTED = ("1.2", SMALL_12)
CONSTRUCTED = ("constructed", WIDE_C)
CASES = ([("LOCM-draft-v0", rs) for rs in DRAFTED] + [("LOCM-constructed-v0", rs) for rs in CONSTRUCTED]
         + [(env_id, rs) for env_id in ("LOCM-battle-v0", "LOCM-v0") for rs in DRAFTED + CONSTRUCTED])


def _rules_name(rs) -> str:
    return rs if isinstance(rs, str) else rs.name


@pytest.mark.parametrize("env_id,ruleset", CASES, ids=[f"{i}-{_rules_name(r)}" for i, r in CASES])
def test_gymnasium_check_env(env_id, ruleset):
    env = gym.make(f"locm.rl:{env_id}", ruleset=ruleset, opponent="greedy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning of the checker fails the test
        gym.utils.env_checker.check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("ruleset,phases", [("1.2", None), ("constructed", ("battle",)), (SMALL_12, ("draft",))])
def test_pettingzoo_api_and_seed(ruleset, phases):
    pettingzoo_test.api_test(aec_env("locm", ruleset, phases=phases), num_cycles=300)
    pettingzoo_test.seed_test(lambda: aec_env("locm", ruleset, phases=phases), num_cycles=300)


def _decode(game: locm.Game, slot: int):
    """gym-locm's slot layout read off the game's own view, independent of `locm.rl.locm`, for an
    environment of the whole game (the deck building's slots first: 3 picks or 120 cards): 0 pass, summons (hand
    h, lane l), uses (hand h, target: none, own lanes, enemy lanes), attacks (own lane-slot j, target: opponent,
    enemy of j's lane)."""
    rules = game.rules
    if game.phase == "draft":
        return Pick(game.to_move, slot)
    if game.phase == "construct":
        return locm.Choose(slot)
    slot -= 3 if rules.deck_building == "draft" else 120
    h, s = rules.hand_limit, rules.lane_size
    view = game.view(game.to_move)
    me, op = view["players"][game.to_move], view["players"][1 - game.to_move]
    if slot == 0:
        return EndTurn()
    slot -= 1
    if slot < 2 * h:
        k, lane = divmod(slot, 2)
        return Summon(me["hand"][k]["id"], lane)
    slot -= 2 * h
    if slot < h * (1 + 4 * s):
        k, t = divmod(slot, 1 + 4 * s)
        if t == 0:
            return Use(me["hand"][k]["id"], -1)
        side, rest = divmod(t - 1, 2 * s)
        lane, i = divmod(rest, s)
        return Use(me["hand"][k]["id"], (me, op)[side]["board"][lane][i]["id"])
    slot -= h * (1 + 4 * s)
    j, t = divmod(slot, 1 + s)
    lane, i = divmod(j, s)
    attacker = me["board"][lane][i]["id"]
    return Attack(attacker, -1 if t == 0 else op["board"][lane][t - 1]["id"])


@pytest.mark.parametrize("ruleset", ["1.2", "constructed", SMALL_12, WIDE_C], ids=_rules_name)
def test_same_seed_and_actions_give_the_log_of_locm_game(ruleset):
    """Two learners in the AEC choose random legal slots; the same choices, decoded by gym-locm's layout, are
    played on a `locm.Game` of the same seed: every mask holds exactly the game's legal actions and the two
    event logs are equal, event for event."""
    for seed in (3, 11):
        e = aec_env("locm", ruleset)
        e.reset(seed=seed)
        g = locm.Game(ruleset, seed=seed, agents=("player_0", "player_1"))
        rng = np.random.default_rng(seed)
        steps = 0
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            assert int(agent[-1]) == g.to_move
            assert mask.sum() == len(g.legal_actions()), g
            slot = int(rng.choice(np.flatnonzero(mask)))
            action = _decode(g, slot)
            assert action in g.legal_actions(), (seed, slot, action)
            g.play(action)
            e.step(slot)
            steps += 1
        assert g.ended and steps > 30
        assert [to_json(x) for x in e.match.log] == [to_json(x) for x in g.log]


def _play(env, seed: int, choose) -> tuple[list[bytes], list[float]]:
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        obs, r, term, trunc, info = env.step(choose(info["action_mask"]))
        rewards.append(r)
        if term or trunc:
            return [to_json(x) for x in env.match.log], rewards


def test_reset_with_a_seed_replays_the_game():
    env = make_env("LOCM-v0", opponent="greedy", seat="alternate")
    first = lambda mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    last = lambda mask: int(np.flatnonzero(mask)[-1])  # noqa: E731
    a, ra = _play(env, 5, last)
    b, rb = _play(env, 5, last)  # the seat alternates: seed 5 from the other seat
    c, _ = _play(env, 5, last)
    assert a == c and ra[-1] in (1.0, -1.0) and a != b
    assert _play(env, 5, first)[0] != a


def test_draft_and_constructed_are_the_learner_s_and_the_battle_is_played_for_it():
    env = make_env("LOCM-draft-v0", opponent="greedy", own_agent="greedy")
    obs, info = env.reset(seed=1)
    steps = 0
    while True:
        assert info["phase"] == "draft" and info["action_mask"].sum() == 3
        obs, r, term, _, info = env.step(0)
        steps += 1
        if term:
            break
    assert steps == 30 and r in (1.0, -1.0)
    env = make_env("LOCM-constructed-v0", opponent="greedy")
    obs, info = env.reset(seed=1)
    for k in range(30):
        assert info["phase"] == "construct"
        card = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, term, _, info = env.step(card)
        if k < 29:  # two copies at most: the card is masked after its second choice
            assert bool(info["action_mask"][card]) == (k % 2 == 0)
    assert term and r in (1.0, -1.0)


def test_an_action_outside_the_mask_changes_nothing_and_truncates_in_the_end():
    env = make_env("LOCM-battle-v0", max_invalid=3, invalid_reward=-0.1)
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    before = len(env.match.log)
    for k in range(3):
        obs2, r, term, trunc, info = env.step(illegal)
        assert info["invalid"] and r == -0.1 and not term and trunc == (k == 2)
    assert len(env.match.log) == before and np.array_equal(obs, obs2)


def test_policy_opponent_and_shaped_rewards():
    """Self-play: the opponent is a policy callable that sees its own seat; the shaped reward is the change of
    gym-locm's health terms between two decisions of the learner."""
    seen = []

    def policy(obs, mask):
        seen.append(mask.sum())
        return int(np.flatnonzero(mask)[-1])

    env = make_env("LOCM-battle-v0", opponent=policy, reward={"player-health": 1.0, "opponent-health": 1.0})
    obs, info = env.reset(seed=4)
    total = 0.0
    while True:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        total += r
        if term:
            break
    s = env.match.state
    assert seen and all(n >= 1 for n in seen)
    expected = (s.players[0].health - 30) / 30 - (max(0, s.players[1].health) - 30) / 30
    assert total == pytest.approx(expected)


def test_stored_episodes_are_games_that_re_decide():
    store = MemoryStore()
    env = make_env("LOCM-battle-v0", ruleset="constructed", opponent="greedy", store=store)
    ids = []
    for seed in (1, 2):
        _play(env, seed, lambda mask: int(np.flatnonzero(mask)[-1]))
        ids.append(episode_id(env.match.log))
    assert store.count() == 2
    for gid in ids:
        events = store.events(gid)
        assert gid.startswith("env-constructed-") and check_id(gid, events).ok
        assert redecide(events).divergence is None


def test_vector_env_steps_many_games_and_resets_them():
    envs = make_vec("LOCM-battle-v0", 4, opponent="random")
    obs, infos = envs.reset(seed=10)
    assert obs.shape == (4, 282) and infos["action_mask"].shape == (4, 145)
    finished = 0
    for _ in range(400):
        actions = infos["action_mask"].argmax(axis=1)
        obs, rewards, term, trunc, infos = envs.step(actions)
        assert infos["action_mask"][np.arange(4), 0].all()  # every row is a live game: "end turn" is legal
        if term.any():
            finished += int(term.sum())
            assert infos["_final_obs"][term].all() and set(infos["result"][term]) <= {1.0, -1.0}
            assert (rewards[term] == infos["result"][term]).all()
    assert finished >= 4
    again = make_vec("LOCM-battle-v0", 4, opponent="random")
    obs2, _ = again.reset(seed=10)
    assert np.array_equal(obs2, envs.reset(seed=10)[0])


def test_features_are_what_their_names_say():
    """The named features (the manual's tables, docs/guides/rl.md) read back the game: health, mana, a hand card's cost and
    playability, a creature's attack by lane and position, for the seat to move."""
    env = make_env("LOCM-battle-v0", ruleset="constructed", opponent="greedy")
    names = env.layout.feature_names()
    obs, info = env.reset(seed=9)
    checked = 0
    for _ in range(60):
        s = env.match.state
        me, op = s.players[env.seat], s.players[1 - env.seat]
        f = dict(zip(names, obs.tolist()))
        assert f["battle.me_health"] == pytest.approx(me.health / 30)
        assert f["battle.op_health"] == pytest.approx(op.health / 30)
        assert f["battle.me_mana"] == pytest.approx(me.mana / 13)
        for k, u in enumerate(me.hand):
            assert f[f"battle.hand{k}_cost"] == pytest.approx(u.card.cost / 12)
            assert f[f"battle.hand{k}_playable"] == (u.card.cost <= me.mana)
        for who, pl in (("own", me), ("enemy", op)):
            for lane in (0, 1):
                units = [u for u in pl.board if u.lane == lane]
                for i, u in enumerate(units):
                    assert f[f"battle.{who}{lane}.{i}_attack"] == pytest.approx(u.attack / 12)
                    assert f[f"battle.{who}{lane}.{i}_guard"] == bool(u.keywords & 8)
                    checked += 1
                assert f.get(f"battle.{who}{lane}.{len(units)}_present", 0.0) == 0.0
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if term:
            obs, info = env.reset(seed=10)
    assert checked > 20


def test_dataset_rows_are_the_stored_games_decisions(tmp_path):
    """Games where seat 0 answers whole lines as a bot does (some of its actions refused) and seat 1 is
    greedy: every row's action is legal in its mask, each line gives one row per played action and one for
    its end, and the outcome is the seat's."""
    from locm.engine.locm import game as engine_game
    from locm.engine.locm.agents import make_agent
    from locm.engine.locm.gameid import created_id
    from locm.rl.locm_dataset import export
    from locm.store.eventstore import GameExtras, open_store

    db = tmp_path / "t.db"
    lines = 0
    with open_store(db) as store:
        for seed in range(3):
            g = engine_game.Game.new("1.2", seed, None, ("linebot", "greedy"))
            greedy, rng = make_agent("greedy", seed), np.random.default_rng(seed)
            while not g.ended:
                if g.to_move == 1:
                    greedy.play_turn(g, 1)
                elif g.phase == "battle":
                    acts = [a.text() for a in g.legal_actions()]
                    rng.shuffle(acts)
                    g.answer(0, ";".join(acts[:4]) or "PASS")
                    lines += 1
                else:
                    g.answer(0, f"PICK {rng.integers(3)}")
            store.append_game(LOCM_GAME, GameExtras(game_id=created_id(g.log[0])), g.log)
    summary = export(db, tmp_path / "bc.npz", ruleset="1.2", phases=("battle",), agent="linebot")
    assert summary.games == 3 and not summary.skipped
    d = np.load(tmp_path / "bc.npz")
    n = len(d["action"])
    assert n == summary.rows and (d["seat"] == 0).all() and list(d["agents"]) == ["linebot"]
    assert d["mask"][np.arange(n), d["action"]].all()
    assert (d["action"] == 0).sum() >= lines - 3  # a line ends its turn (unless its game ended)
    assert d["done"].sum() == 3 and set(d["reward"][d["done"]]) <= {1.0, -1.0}
    assert (d["reward"][~d["done"]] == 0).all()


def test_a_game_that_ends_before_the_learners_first_decision_is_skipped_by_reset():
    """With health 1 the opponent's first-turn charge can end the game before the learner decides: reset must not
    give an episode with nothing legal (an all-false mask that step refuses), but the next derived seed's game."""
    rules = RULES_12.replace(name="h1", base="1.2", start_health=1, runes=())
    env = make_env("LOCM-battle-v0", ruleset=rules, opponent="greedy", seat=1)
    skipped_any = False
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        assert info["action_mask"].any() and env.match.to_move() == 1, seed
        skipped_any |= info["skipped"] > 0
        if info["skipped"]:
            again, info2 = env.reset(seed=seed)  # deterministic: the same skip, the same game
            assert info2["skipped"] == info["skipped"] and np.array_equal(again, obs)
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert skipped_any  # seed 4 (and others) end on the opponent's first turn
