"""The resolved values of a ruleset, as they travel inside `game_created` (R-SEEDS).

A game's log carries every value its rules ran with, so folding, re-deciding and auditing a log never look a
ruleset up by name: a stored game says exactly which rules it ran under, even if the built-in rulesets change
later or the game ran under a custom `Rules` value. `engine.locm.rulesets` defines the two official instances and
what each field means (its rule id); this module is only the data shape, so that `events/` stays below
`engine/`.

Fields get defaults (the 1.2 values) and never change type (STYLE 8); decoding refuses unknown fields.
"""

from __future__ import annotations

from typing import Any

import msgspec

from locm.events.locm.cards import Card


class Rules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every parameter and policy that differs between rulesets. See `engine.locm.rulesets.FIELDS` for the rule
    and the meaning of each field."""

    name: str = "1.2"
    version: str = "1.2"
    seed_params: tuple[str, ...] = ("draftChoicesSeed", "shufflePlayer0Seed", "shufflePlayer1Seed")
    deck_building: str = "draft"
    runes: tuple[int, ...] = (25, 20, 15, 10, 5)
    draw_rule: str = "runes"
    damage_draw_step: int = 0
    empty_deck: str = "lose_rune"
    turn_limit: int = 50
    turn_limit_penalty: str = "lose_rune"
    penalty_damage: int = 0
    full_hand_stops_draws: bool = True
    area: bool = False
    id_scheme: str = "1.2"
    input_runes: bool = True
    input_area: bool = False
    zeroed_fields_quirk: bool = True
    hand_limit: int = 8
    start_health: int = 30
    deck_size: int = 30
    lane_size: int = 3
    max_mana: int = 12
    draft_rounds: int = 30
    max_copies: int = 2
    base: str = ""  # the built-in a variant changes; empty for a built-in itself (and logs before variants)
    cards: tuple[Card, ...] = ()
    card_weights: str = ""

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some fields changed (``RULES_12.replace(start_health=1)``)."""
        return msgspec.structs.replace(self, **changes)

    @property
    def base_name(self) -> str:
        """The built-in ruleset these rules are or derive from (``1.2`` or ``constructed``)."""
        return self.base or self.name

    def values(self) -> dict[str, Any]:
        """Every field and its value, in declaration order."""
        return {f: getattr(self, f) for f in self.__struct_fields__}
