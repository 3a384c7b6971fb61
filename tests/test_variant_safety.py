"""Variants are valid or refused, and valid ones always play to an end (issue 18): the constants the engine
and the agents use come from the ruleset, validation refuses what cannot be played (naming the reason), and
the hard cap (R-CAP, `data/LOCM-EXTRA-RULES.md`) ends a game that would never end. The property tests over
random variants are in `tests/test_properties.py`."""

from __future__ import annotations

import pytest

from locm.engine.locm.agents import PassAgent
from locm.engine.locm.playing import play
from locm.engine.locm.commands import Summon
from locm.engine.locm.drawing import CAP_EVENTS, CAP_TURNS
from locm.engine.locm.game import Game
from locm.engine.locm.protocol import render_input
from locm.engine.locm.variants import VariantError, parse_variant, variant_from_dict
from locm.events.locm.catalog import ActionReceived, CreatureSummoned, DeckOrdered, GameEnded, TurnEnded
from locm.games.locm.play import build_agents, play_one
from locm.replay.rules import rule


def variant(base: str, **changes):
    return variant_from_dict({"base": base, "name": "v", **changes}, "v.toml")


AGENTS = ("random", "greedy", "pass")


# --- constants from the ruleset ---------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_max_copies_1_every_built_in_agent_builds_a_legal_deck(agent):
    rules = variant("constructed", max_copies=1)
    for seed in range(1, 6):
        game = play_one(rules, seed, (agent, agent))
        assert game.ended and game.log[-1].reason != "hard_error"
        for e in game.log:
            if type(e) is DeckOrdered:
                assert len(set(e.base_ids)) == len(e.base_ids) == 30


@pytest.mark.parametrize("deck_size", [5, 40, 60, 99, 120, 240])
def test_area_copies_never_take_a_deck_id_whatever_the_deck_size(deck_size):
    """R-DECK: Area copies are numbered after both decks (2 * deck_size + 1 on), so they never collide."""
    rules = variant("constructed", deck_size=deck_size, max_copies=max(2, -(-deck_size // 120)))
    copies = 0
    for seed in range(1, 11):
        game = play_one(rules, seed, ("random", "greedy"))
        assert game.ended and game.log[-1].reason != "hard_error"
        ids = [i for e in game.log if type(e) is DeckOrdered for i in e.ids]
        assert sorted(ids) == list(range(1, 2 * deck_size + 1))
        extra = [e.id for e in game.log if type(e) is CreatureSummoned and e.copy_of]
        assert extra == list(range(2 * deck_size + 1, 2 * deck_size + 1 + len(extra)))
        copies += len(extra)
    assert copies  # the property was exercised


def test_a_1_2_variant_with_area_numbers_copies_after_its_draft_decks():
    rules = variant("1.2", draft_rounds=12, area=True, cards={str(b): {"area": "lane1"} for b in range(1, 161)
                                                               if b not in (116,)})
    game = play_one(rules, 4, ("greedy", "greedy"))
    extra = [e.id for e in game.log if type(e) is CreatureSummoned and e.copy_of]
    assert extra and extra == list(range(25, 25 + len(extra)))


def test_the_draft_and_construct_inputs_show_the_rulesets_health_and_first_rune():
    game = Game.new(variant("1.2", start_health=40, runes=[35, 10]), 1)
    assert render_input(game.state, 1).splitlines()[:2] == ["40 0 0 35 0", "40 0 1 35 0"]
    assert render_input(Game.new("1.2", 1).state, 1).splitlines()[:2] == ["30 0 0 25 0", "30 0 1 25 0"]
    game = Game.new(variant("constructed", start_health=12), 1)
    assert render_input(game.state, 0).splitlines()[:2] == ["12 0 0 0", "12 0 0 0"]


# --- validation ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, field, expected", [
    ('base = "1.2"\ndraft_rounds = 2', "draft_rounds", "an integer in 5..80, got 2"),
    ('base = "1.2"\ndraft_rounds = 3', "draft_rounds", "an integer in 5..80, got 3"),
    ('base = "constructed"\ndeck_size = 4', "deck_size", "an integer in 5..240, got 4"),
    ('base = "1.2"\nhand_limit = 4', "hand_limit", "an integer in 5..30, got 4"),
    ('base = "1.2"\nturn_limit = 500', "turn_limit", "an integer in 1..499, got 500"),
    ('base = "1.2"\nstart_health = 25', "start_health", "runes below start_health (25)"),
    ('base = "1.2"\nrunes = [40, 5]', "runes", "runes below start_health (30)"),
    ('base = "1.2"\nrunes = [1000]', "runes", "a list of integers in 1..999"),
    ('base = "constructed"\nrunes = [1]\nturn_limit_penalty = "lose_rune"', "turn_limit_penalty",
     "the same policy for turn_limit_penalty and empty_deck"),
    ('base = "constructed"\nrunes = [1]', "runes", "runes = [] with draw_rule = 'damage_draw'"),
    ('base = "1.2"\ndamage_draw_step = 5', "damage_draw_step", "damage_draw_step = 0 with draw_rule = 'runes'"),
    ('base = "1.2"\npenalty_damage = 5', "penalty_damage", "penalty_damage = 0 with empty_deck = 'lose_rune'"),
    ('base = "constructed"\n[weights.keywordProbabilities.guard]\nmultCost = 1e308',
     "weights.keywordProbabilities.guard.multCost", "a number in 0..2, got 1e+308"),
    ('base = "constructed"\n[weights.keywordProbabilities.guard]\nweight = nan',
     "weights.keywordProbabilities.guard.weight", "a number in 0..1e+06, got nan"),
    ('base = "constructed"\n[weights.bonusAttackDistribution]\nstd = inf',
     "weights.bonusAttackDistribution.std", "a number in 0..100, got inf"),
    ('base = "constructed"\n[weights.drawProbabilities.4]\naddCost = 1e9',
     "weights.drawProbabilities.4.addCost", "a number in 0..100"),
])
def test_a_variant_that_cannot_be_played_is_refused_with_the_reason(text, field, expected):
    with pytest.raises(VariantError) as info:
        parse_variant(text, "bad.toml", "bad")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"bad.toml: {field}: expected"), message
    assert expected in message, message


def test_runes_under_a_higher_start_health_are_accepted():
    rules = parse_variant('base = "1.2"\nstart_health = 26\n', "ok.toml", "ok")
    assert rules.runes == (25, 20, 15, 10, 5) and play_one(rules, 1, ("greedy", "random")).ended


@pytest.mark.parametrize("agents", [("pass", "pass"), ("random", "greedy")])
def test_a_variant_without_creatures_plays_to_an_end(agents):
    rules = parse_variant('base = "constructed"\n[weights.typeProbabilities]\ncreature = 0\n', "v.toml", "v")
    for seed in (1, 2):
        game = play_one(rules, seed, agents)
        assert game.ended and len(game.log) < 20_000 and all(c.type != 0 for c in game.state.cards.values())


# --- the hard cap (R-CAP) ------------------------------------------------------------------------------------------


ENDLESS = dict(empty_deck="ten_damage", turn_limit_penalty="ten_damage", penalty_damage=0)


@pytest.mark.parametrize("base", ["1.2", "constructed"])
def test_a_game_that_would_never_end_ends_at_the_turn_cap(base):
    """No damage is ever dealt (two passing players, no penalty damage): the game ends when turn 999 ends; equal
    health, so the acting player (player 1, whose turn 999 is) wins."""
    rules = variant(base, **ENDLESS, **({"runes": []} if base == "1.2" else {}))
    game = play_one(rules, 3, ("pass", "pass"))
    end = game.log[-1]
    assert type(end) is GameEnded and (end.rule, end.reason, end.turn, end.winner) == ("R-CAP", "cap", 999, 1)
    assert game.state.turn == CAP_TURNS - 1 and type(game.log[end.cause]) is TurnEnded
    assert play_one(rules, 3, ("pass", "pass")).log == game.log  # deterministic
    assert "No battle turn 1000 begins" in rule("R-CAP").text


def test_a_game_that_floods_its_log_ends_at_the_event_cap_the_healthier_player_winning():
    rules = variant("1.2", **ENDLESS, start_health=200, runes=[])
    game = Game.new(rules, 5)
    agents = build_agents(("greedy", "pass"), 5)
    while game.state.players[1].health == 200:  # greedy hurts the passing player 1
        agents[game.to_move].play_turn(game, game.to_move)
    assert not game.ended and game.to_move == 1
    while not game.ended:  # then player 1 sends illegal actions: one rejection each
        game.submit(Summon(999, 0))
    end = game.log[-1]
    assert (end.rule, end.reason, end.winner) == ("R-CAP", "cap", 0)
    assert CAP_EVENTS <= len(game.log) <= CAP_EVENTS + 2 and type(game.log[-2]) is ActionReceived
    assert game.state.players[0].health > game.state.players[1].health


def test_an_answer_line_stops_at_the_event_cap():
    rules = variant("1.2", **ENDLESS, runes=[])
    game = Game.new(rules, 6)
    while game.phase == "draft":
        PassAgent().play_turn(game, game.to_move)
    line = ";".join(["SUMMON 999 0"] * 20_000)
    for _ in range(3):
        game.answer(game.to_move, line)
    assert game.ended and game.log[-1].rule == "R-CAP" and len(game.log) <= CAP_EVENTS + 2


def test_the_built_in_rulesets_end_long_before_the_cap():
    for ruleset in ("1.2", "constructed"):
        game = Game.new(ruleset, 9)
        play(game, build_agents(("pass", "pass"), 9))
        assert game.log[-1].reason == "health" and game.state.turn < 130


def test_a_creature_with_negative_attack_is_refused():
    """Found by the state machine over random variants (Eldritch Swooper at -1/5 on the board)."""
    with pytest.raises(VariantError, match=r"cards\.90\.attack: expected at least 0 for a creature, got -1"):
        parse_variant('base = "1.2"\n[cards.90]\nattack = -1\n', "v.toml", "v")
    assert parse_variant('base = "1.2"\n[cards.151]\nattack = -3\n', "v.toml", "v").cards[0].attack == -3  # an item


def test_a_turn_start_cannot_draw_past_the_event_cap():
    """A draw bonus of 2**63 - 1 (a forged log, re-decided from its own state by a reader) once made a turn
    start emit a lost draw per draw until memory ran out (24 GB); the draws stop at the cap (R-CAP)."""
    import msgspec

    from locm.engine.locm.folding import fold
    from locm.events.locm.catalog import DrawBonus

    game = play_one("constructed", 3, ("greedy", "random"))
    k = next(i for i, e in enumerate(game.log) if type(e) is DrawBonus and e.player == 0)
    forged = game.log[:k] + [msgspec.structs.replace(game.log[k], amount=2**63 - 1)]
    live = Game(fold(forged), list(forged))
    while not live.ended:  # both pass until player 0's next turn starts with its draws
        PassAgent().play_turn(live, live.to_move)
    assert live.log[-1].rule == "R-CAP" and CAP_EVENTS <= len(live.log) <= CAP_EVENTS + 1
