"""my-card-game variants (R-VARIANT): a file may add rules, never remove or loosen one; a variant that cannot
be played is refused; an accepted one plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from locm.engine.mcg.bounds import bounds
from locm.engine.mcg.commands import Play
from locm.engine.mcg.game import play_match, redecide
from locm.engine.mcg.rules import STANDARD, diff_rules, pool
from locm.engine.mcg.variants import VariantError, parse_variant
from locm.events.mcg.catalog import EffectFizzled, EffectTriggered
from tests.mcg_helpers import Position, fx, monster, spell

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mcg" / "singleton-sudden-death.toml"


def test_the_example_variant_tightens_adds_and_plays():
    rules = parse_variant(EXAMPLE.read_text(), EXAMPLE.name, "x")
    assert rules.base == "standard" and rules.max_copies == 1 and rules.end_phase and rules.cards
    assert {d.field for d in diff_rules(STANDARD, rules)} >= {"max_copies", "banned", "cards", "end_phase"}
    for seed in range(3):
        game = play_match(rules, seeds=seed, agents=("greedy", "random"))
        assert game.ended and redecide(game.log)[1] == -1
        assert max(__import__("collections").Counter(game.log[0].decks[0]).values()) == 1


@pytest.mark.parametrize("line, message", [
    ("start_health = 40", "v.toml: start_health: expected 30: the text fixes it (R-PLAYER); a variant may add rules, "
                          "never change or remove one, got 40"),
    ("hand_limit = 10", "v.toml: hand_limit: expected 12: the text fixes it (R-HAND)"),
    ("max_copies = 4", "v.toml: max_copies: expected an integer in 1..3 (R-DECK: a variant may tighten a deck rule, "
                       "never loosen it), got 4"),
    ("max_copies_rare = 2", "v.toml: max_copies_rare: expected an integer in 0..1"),
    ("rare_threshold = 80.0", "v.toml: rare_threshold: expected a number in 0..75"),
    ("turn_limit = 1.5", "v.toml: turn_limit: expected an integer in 2..100000, got 1.5"),
    ("mana = 3", "v.toml: mana: expected a known field"),
    ("version = \"2\"", "v.toml: version: expected a known field"),
    ("banned = [1, 1]", "v.toml: banned: expected each card id once"),
    ("banned = [4242]", "v.toml: banned: expected ids of collectible cards of the pool, got 4242"),
    ("banned = [901]", "v.toml: banned: expected ids of collectible cards of the pool, got 901"),
    ("max_copies = 1\nbanned = [" + ", ".join(str(i) for i in range(1, 60)) + "]",
     "v.toml: banned: expected a pool with a legal deck: at most 25 cards fit a deck under these rules, a deck "
     "needs 30"),
    ("[[cards]]\nid = 1\nname = \"Copy\"\ntype = \"monster\"\ncost = 1\nrarity = 1\nhealth = 1",
     "v.toml: cards: card 1 (Copy): id: expected an id no other card has, got 1"),
    ("[[cards]]\nid = 2000\nname = \"Odd\"\ntype = \"monster\"\ncost = 1\nrarity = 1\nhealth = 0",
     "v.toml: cards: card 2000 (Odd): health: expected at least 1 for a monster, got 0"),
    ("[[end_phase]]\ndo = \"damage\"\nto = \"target\"\namount = 1",
     "v.toml: end_phase[0].to: expected a selector that needs no card (not target or self), got 'target'"),
    ("[[end_phase]]\nfrom_turn = 0\ndo = \"damage\"\nto = \"both_players\"\namount = 1",
     "v.toml: end_phase[0].from_turn: expected an integer in 1..1000, got 0"),
    ("[[end_phase]]\ndo = \"draw\"\nto = \"all_monsters\"\namount = 1",
     "v.toml: end_phase[0].to: expected characters draw acts on (player only), got 'all_monsters'"),
])
def test_a_variant_that_removes_loosens_or_cannot_play_is_one_line(line, message):
    """R-VARIANT: one line naming the file and the field; the text's rules cannot change."""
    with pytest.raises(VariantError) as err:
        parse_variant(f'base = "standard"\nname = "v"\n{line}\n', "v.toml")
    assert str(err.value).startswith(message), str(err.value)


def test_repeating_a_fixed_value_is_no_change():
    rules = parse_variant('base = "standard"\nname = "same"\nstart_health = 30\nhand_limit = 12\n')
    assert diff_rules(STANDARD, rules) == []


@pytest.mark.parametrize("text, message", [
    ('name = "x"', "<variant>: base: expected a base ruleset"),
    ('base = "locm"\nname = "x"', "<variant>: base: expected 'standard' or 'mcg' or 'my-card-game', got 'locm'"),
    ('base = "standard"\nname = "standard"', "<variant>: name: expected a name other than a built-in"),
    ('base = "standard"\nname = "a b"', "<variant>: name: expected a name of letters"),
    ("base = [", "<variant>: expected a TOML document"),
])
def test_the_head_of_a_variant_file(text, message):
    with pytest.raises(VariantError) as err:
        parse_variant(text)
    assert str(err.value).startswith(message)


# --- R-CAP: a cap never cuts a rule of the text short -------------------------------------------------------


@pytest.mark.parametrize("cap, value", [("turn_limit", 2), ("turn_limit", 100), ("chain_limit", 10)])
def test_a_cap_below_what_a_legal_game_reaches_is_refused_naming_the_rule(cap, value):
    """R-CAP, R-VARIANT: a turn cap of 2 would end games on health at turn 2, a chain cap of 10 would make a
    required death effect fizzle; both are refused in one line naming the rule and the least value."""
    chain, turns = bounds(STANDARD, pool(STANDARD))
    need = {"turn_limit": turns, "chain_limit": chain}[cap]
    with pytest.raises(VariantError) as err:
        parse_variant(f'base = "standard"\nname = "v"\n{cap} = {value}\n', "v.toml")
    assert str(err.value) == (f"v.toml: {cap}: expected an integer in {need}..100000 (R-CAP: under these rules "
                              + (f"one action may trigger {need} effects" if cap == "chain_limit" else
                                 f"a game may last {need} turns")
                              + f"; a cap may add a rule, never cut one short), got {value}")
    assert parse_variant(f'base = "standard"\nname = "v"\n{cap} = {need}\n', "v.toml").values()[cap] == need


def test_the_built_in_caps_cut_no_game_and_a_variants_cards_raise_them():
    """R-CAP: the standard caps are at least the card file's bounds; a variant whose cards heal more gets a turn
    cap that rises with them when it sets none, and is refused when it sets one below."""
    chain, turns = bounds(STANDARD, pool(STANDARD))
    assert STANDARD.chain_limit >= chain and STANDARD.turn_limit >= turns
    rules_md = (Path(__file__).resolve().parent.parent / "data" / "mcg" / "RULES.md").read_text()
    assert f"card file gives turn `{turns}`" in rules_md and f"the card file gives `{chain}`" in rules_md
    healer = ('[[cards]]\nid = 3000\nname = "Healer"\ntype = "monster"\ncost = 1\nrarity = 1\nhealth = 5\n'
              'effects = [{ on = "turn", do = "heal", to = "own_player", amount = 30 }]\n')
    rules = parse_variant(f'base = "standard"\nname = "v"\n{healer}', "v.toml")
    more = bounds(rules, pool(rules))[1]
    assert more > STANDARD.turn_limit and rules.turn_limit == more
    with pytest.raises(VariantError, match="turn_limit: expected an integer in"):
        parse_variant(f'base = "standard"\nname = "v"\nturn_limit = 300\n{healer}', "v.toml")


def test_ten_required_death_effects_all_resolve_under_the_least_chain_cap():
    """R-CAP: the issue's case: ten monsters whose death effects the text requires, all killed by one spell;
    under the least cap a variant may set, none fizzles."""
    rules = parse_variant(f'base = "standard"\nname = "v"\nchain_limit = {bounds(STANDARD, pool(STANDARD))[0]}\n',
                          "v.toml")
    pos = Position(rules=rules)
    for seat in (0, 1):
        for _ in range(2):
            pos.in_deck(seat, monster())
        if seat == 0:
            wipe = pos.in_hand(0, spell(fx("destroy", "all_monsters")))
        for _ in range(5):
            pos.on_board(seat, monster(effects=(fx("damage", "all_monsters", on="death", amount=1),
                                                fx("heal", "own_player", on="death", amount=1))))
    game = pos.game()
    events = game.submit(Play(0, wipe))
    assert len([e for e in events if type(e) is EffectTriggered and e.on == "death"]) == 20
    assert not [e for e in events if type(e) is EffectFizzled and e.reason == "chain limit"]
