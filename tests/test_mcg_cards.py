"""The card file and the effect language (R-CARDS, R-RARITY, R-EFFECTS): what the built-in cards cover, and a
bad card file refused in one line naming the card and the field."""

from __future__ import annotations

from collections import Counter

import pytest

from locm.engine.mcg.cards import (
    ACTIONS, SELECTORS, TARGET_KINDS, TIERS, TRIGGERS, WAITS, base_cards, parse_cards, tier,
)
from locm.engine.mcg.errors import CardFileError

GOOD = '''
[[card]]
id = 1
name = "Imp"
type = "monster"
cost = 1
rarity = 3.0
power = 2
toughness = 0
health = 1
effects = [{ on = "summon", do = "damage", to = "enemy_player", amount = 1 }]

[[card]]
id = 2
name = "Bolt"
type = "spell"
cost = 1
rarity = 20
target = "character"
effects = [{ do = "damage", to = "target", amount = 2 }]

[[card]]
id = 3
name = "Sword"
type = "equipment"
cost = 1
rarity = 50
power = 2

[[card]]
id = 9
name = "Sprout"
type = "monster"
cost = 0
rarity = 0
token = true
health = 1
'''


def test_the_built_in_cards_cover_the_text_and_the_issue():
    """R-CARDS: at least 80 collectible cards, the three types, every rarity tier, every trigger, targeted and
    untargeted spells, and every action of the effect language."""
    cards = base_cards()
    collectible = [c for c in cards if not c.token]
    assert len(collectible) >= 80
    assert set(Counter(c.type for c in collectible)) == {"monster", "spell", "equipment"}
    assert {TIERS[tier(c.rarity)] for c in collectible} == set(TIERS)
    effects = [e for c in cards for e in c.effects]
    assert {e.on for e in effects} == {"", *TRIGGERS}
    assert {e.at for e in effects} == {"", *WAITS}
    assert {e.do for e in effects} == set(ACTIONS)
    spells = [c for c in collectible if c.type == "spell"]
    assert any(c.target for c in spells) and any(not c.target for c in spells)
    assert any(c.token for c in cards)
    assert len({c.name for c in cards}) == len(cards)


@pytest.mark.parametrize("rarity, name", [(0, "Basic"), (14.99, "Basic"), (15, "Common"), (44.5, "Uncommon"),
                                          (59.9, "Rare"), (74.9, "Epic"), (75, "Mythical"), (89.99, "Mythical"),
                                          (90, "Legendary"), (100, "Legendary")])
def test_rarity_tiers_follow_the_text(rarity, name):
    """R-RARITY: < 15 Basic, < 30 Common, < 45 Uncommon, < 60 Rare, < 75 Epic, < 90 Mythical, >= 90 Legendary."""
    assert TIERS[tier(rarity)] == name


def test_a_good_file_reads():
    cards = parse_cards(GOOD, "test.toml")
    assert [c.id for c in cards] == [1, 2, 3, 9]
    assert cards[1].target == "character" and cards[1].effects[0].to == "target"


@pytest.mark.parametrize("old, new, message", [
    ('name = "Imp"\ntype = "monster"', 'name = "Imp"\ntype = "creature"',
     "test.toml: card 1 (Imp): type: expected one of monster, spell, equipment, got 'creature'"),
    ("cost = 1\nrarity = 3.0", "cost = 13\nrarity = 3.0",
     "test.toml: card 1 (Imp): cost: expected an integer in 0..12, got 13"),
    ("rarity = 3.0", "rarity = 101", "test.toml: card 1 (Imp): rarity: expected a number in 0..100, got 101"),
    ("health = 1\neffects", "health = 0\neffects",
     "test.toml: card 1 (Imp): health: expected at least 1 for a monster, got 0"),
    ('to = "enemy_player", amount = 1', 'to = "enemy_player", amount = 0',
     "test.toml: card 1 (Imp): effects[0].amount: expected an integer in 1..99, got 0"),
    ('on = "summon", do = "damage"', 'on = "attack", do = "damage"',
     "test.toml: card 1 (Imp): effects[0].on: expected one of summon, death, turn, turn_start, main_start, "
     "got 'attack'"),
    ('do = "damage", to = "enemy_player"', 'do = "draw", to = "enemy_monsters"',
     "test.toml: card 1 (Imp): effects[0].to: expected characters draw acts on (player only), got 'enemy_monsters'"),
    ('to = "enemy_player", amount = 1 }', 'to = "enemy_player", amount = 1, power = 2 }',
     "test.toml: card 1 (Imp): effects[0].power: expected no power for damage"),
    ('target = "character"', 'target = "everyone"',
     "test.toml: card 2 (Bolt): target: expected one of " + ", ".join(TARGET_KINDS) + ", got 'everyone'"),
    ('target = "character"\n', '',
     "test.toml: card 2 (Bolt): target: expected the kind of target its effects act on"),
    ("power = 2\n\n[[card]]\nid = 9", "power = 0\n\n[[card]]\nid = 9",
     "test.toml: card 3 (Sword): power: expected a boost: power or toughness above 0, got 0"),
    ('name = "Sword"', 'name = "Bolt"',
     "test.toml: card 3 (Bolt): name: expected a name no other card has, got 'Bolt'"),
    ("id = 9", "id = 2", "test.toml: card 2 (Sprout): id: expected an id no other card has, got 2"),
    ('cost = 1\nrarity = 3.0', 'cost = 1\ncolour = "red"\nrarity = 3.0',
     "test.toml: card 1 (Imp): colour: expected a card field"),
    ('do = "damage", to = "target"', 'do = "damage", to = "self"',
     "test.toml: card 2 (Bolt): effects[0].to: expected a selector other than self"),
])
def test_a_bad_card_file_is_one_line_naming_the_card_and_the_field(old, new, message):
    """R-EFFECTS: the file is checked as a whole; the first problem is one line naming the card and the field."""
    assert old in GOOD
    with pytest.raises(CardFileError) as err:
        parse_cards(GOOD.replace(old, new, 1), "test.toml")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_a_summon_must_name_a_token():
    text = GOOD.replace('amount = 1 }]', 'amount = 1 }, { on = "death", do = "summon", to = "own_player", card = 2, '
                        'count = 1 }]', 1)
    with pytest.raises(CardFileError, match=r"card 1 \(Imp\): effects\[1\].card: expected the id of a token card"):
        parse_cards(text, "test.toml")


def test_not_toml_is_one_line():
    with pytest.raises(CardFileError, match="^x.toml: expected a TOML document"):
        parse_cards("[[card]\nid = ", "x.toml")


def test_every_selector_and_target_kind_is_documented():
    """The vocabulary in the code is the one RULES.md lists (R-EFFECTS)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "data" / "mcg" / "RULES.md").read_text()
    for word in [*SELECTORS, *TARGET_KINDS, *ACTIONS, *TRIGGERS, *WAITS]:
        assert f"`{word}" in text, word


def _kinds(card):
    """R-TIERS: an effect's kind is its trigger (or a spell's wait, or played at once), action and selector."""
    return {(e.on or (f"at {e.at}" if e.at else "play"), e.do, e.to) for e in card.effects}


def test_every_mythical_and_legendary_card_has_an_effect_no_lower_tier_has():
    """R-TIERS: "Mythical and legendary cards have unique effects": each has an effect of a kind that no card of
    a lower tier has (a Legendary card's, none of a Mythical one's either); none is equipment (no effect)."""
    cards = [c for c in base_cards() if not c.token]
    mythical = TIERS.index("Mythical")
    rare = [c for c in cards if tier(c.rarity) >= mythical]
    assert len(rare) >= 15
    for card in rare:
        below = set().union(*(_kinds(c) for c in cards if tier(c.rarity) < tier(card.rarity)))
        assert card.type != "equipment" and _kinds(card) - below, f"{card.name}: {sorted(_kinds(card))}"
    hooks = [c for c in cards if any(e.at or e.on in ("turn_start", "main_start") for e in c.effects)]
    assert hooks and all(tier(c.rarity) >= mythical for c in hooks)  # the phase hooks are the rare tiers' own
