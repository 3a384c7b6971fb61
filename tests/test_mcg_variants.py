"""my-card-game variants (R-VARIANT): a file may add rules, never remove or loosen one; a variant that cannot
be played is refused; an accepted one plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from locm.engine.mcg.game import play_match, redecide
from locm.engine.mcg.rules import STANDARD, diff_rules
from locm.engine.mcg.variants import VariantError, parse_variant

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
    ("turn_limit = 1", "v.toml: turn_limit: expected an integer in 2..1000, got 1"),
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
