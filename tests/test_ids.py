"""A game id names its content (`locm.engine.locm.gameid`): the id computed before a game is played is the one its
`game_created` gives, two different games never share one, a game under another game's id is caught, a bot's
version is part of its identity, and the ids of older stores stay valid."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from locm.engine.locm.game import Game
from locm.engine.locm.rulesets import RULES_12, RULES_CONSTRUCTED
from locm.engine.locm.setup import derive_params
from locm.events.locm.codec import to_json
from locm.engine.locm.gameid import check_id, created_id, game_id, id_problem, referee_id
from locm.games.locm.play import play_one
from locm.games.locm.tournament import run_game
from locm.tournament.schedule import bot_fingerprint
from locm.replay.locm.referee import referee_game, referee_logs
from tests.variant_strategies import variants
from tests.test_store_cli import GOOD_BOT, ROOT

BASES = {"1.2": RULES_12, "constructed": RULES_CONSTRUCTED}
AGENTS = ("greedy", "random", "pass", "python3 examples/bot.py")


@st.composite
def rulesets(draw):
    """A built-in ruleset or a variant of one (any values its file would accept: `tests.variant_strategies`)."""
    base_name = draw(st.sampled_from(sorted(BASES)))
    if draw(st.booleans()):
        return BASES[base_name]
    return draw(variants(base_name))


@st.composite
def games(draw):
    rules = draw(rulesets())
    seed = draw(st.integers(-2**63, 2**63 - 1))
    agents = tuple(draw(st.sampled_from(AGENTS)) for _ in (0, 1))
    names = draw(st.lists(st.sampled_from(list(rules.seed_params)), unique=True, max_size=2))
    params = {n: draw(st.integers(-2**63, 2**63 - 1)) for n in names}
    bots = tuple(draw(st.sampled_from(["", "ab" * 32, "cd" * 32])) if " " in a else "" for a in agents)
    return rules, seed, agents, params, bots


@settings(max_examples=40, deadline=None)
@given(games())
def test_the_id_known_before_a_game_is_the_one_its_game_created_gives(g):
    rules, seed, agents, params, bots = g
    created = Game.new(rules, seed, params, agents=agents, bots=bots).created
    gid = game_id(rules, seed, agents, params, bots)
    assert gid == created_id(created), f"seed {seed}"
    assert gid.startswith(f"{rules.name}-{seed}-")
    assert id_problem(gid, [created]) is None


@settings(max_examples=40, deadline=None)
@given(games(), games())
def test_two_different_game_createds_never_share_an_id(a, b):
    ca = Game.new(a[0], a[1], a[3], agents=a[2], bots=a[4]).created
    cb = Game.new(b[0], b[1], b[3], agents=b[2], bots=b[4]).created
    same_game = ca == cb
    assert (created_id(ca) == created_id(cb)) == same_game, (to_json(ca), to_json(cb))


def test_a_redundant_parameter_names_the_same_game():
    seed = 9
    derived = derive_params(RULES_12, seed)
    plain = game_id("1.2", seed, ("greedy", "random"))
    assert game_id("1.2", seed, ("greedy", "random"), {"shufflePlayer1Seed": derived["shufflePlayer1Seed"]}) == plain
    assert game_id("1.2", seed, ("greedy", "random"), {"shufflePlayer1Seed": 5}) != plain


def test_a_game_stored_under_a_scheduled_games_id_is_caught():
    """The skip-forever case: a seed-7 game under the id of the seed-1 game a tournament schedules."""
    scheduled = game_id("1.2", 1, ("greedy", "random"))
    seven = play_one("1.2", 7, ("greedy", "random")).log
    assert id_problem(scheduled, seven) == ("the id is not what its content gives: its game_created gives "
                                            f"'{game_id('1.2', 7, ('greedy', 'random'))}'")
    renamed = [msgspec.structs.replace(seven[0], agents=("greedy", "pass"))] + seven[1:]  # a renamed agent
    assert id_problem(game_id("1.2", 7, ("greedy", "random")), renamed).startswith("the id is not what")


def test_a_ruleset_edited_under_its_old_hash_is_caught():
    log = play_one("1.2", 3, ("greedy", "random")).log
    edited = [msgspec.structs.replace(log[0], rules=RULES_12.replace(start_health=50))] + log[1:]
    assert id_problem(game_id("1.2", 3, ("greedy", "random")), edited).startswith("game_created says rules_hash ")


def test_ids_of_older_locm_stay_valid():
    """Pinned: what locm before content ids gave (its game_id kept a seed given equal to the derived one)."""
    seed = 9
    derived = derive_params(RULES_12, seed)
    log = Game.new("1.2", seed, {"shufflePlayer1Seed": derived["shufflePlayer1Seed"]}, agents=("a", "b")).log
    assert created_id(log[0]) == "1.2-9-56af5681149e"
    assert check_id("1.2-9-ed58368f1b15", log).ok  # the old id of this content
    assert not check_id("1.2-9-ed58368f1b16", log).ok


def test_a_bot_game_records_the_bots_version_and_its_id_covers_it(tmp_path):
    played = run_game("1.2", 4, (GOOD_BOT, "greedy"))
    created = played.game.created
    assert created.bot_sha256 == (bot_fingerprint(GOOD_BOT), "")
    assert played.game_id == created_id(created) == game_id("1.2", 4, (GOOD_BOT, "greedy"),
                                                            bots=(bot_fingerprint(GOOD_BOT), ""))
    assert played.game_id != game_id("1.2", 4, (GOOD_BOT, "greedy"))  # the same command, another version
    built_in = Game.new("1.2", 4, agents=("greedy", "random")).created
    assert b"bot_sha256" not in to_json(built_in)  # logs of built-in agents keep their bytes


def test_a_referee_games_id_covers_its_answers():
    path = ROOT / "tests" / "data" / "official-1.2-games-00-49.txt.gz"
    logged = referee_logs(path)[:2]
    games = [referee_game(g, path) for g in logged]
    for g in games:
        assert g.game_id == referee_id(g.events) and id_problem(g.game_id, g.events) is None
    answers = [e for e in games[0].events if type(e).__name__ == "ActionReceived"]
    k = answers[3].seq
    other = games[0].events[:k] + [msgspec.structs.replace(games[0].events[k], text="PASS")] + games[0].events[k + 1:]
    assert referee_id(other) != games[0].game_id
