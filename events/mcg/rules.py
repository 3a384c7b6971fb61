"""The data shapes of my-card-game's rules and cards, as they travel inside `game_created` (R-SETUP).

A game's log carries the resolved rules, its seeds and the definition of every card it can meet, so folding,
re-deciding and auditing never read the card file or look a ruleset up by name. `engine.mcg.rules` defines the
built-in ruleset and what each field means (its rule of ``data/mcg/RULES.md``); `engine.mcg.cards` checks
card definitions. This module is only the data, so that `events/` stays below `engine/`.

Fields get defaults and never change type (STYLE 8); decoding refuses unknown fields.
"""

from __future__ import annotations

from typing import Any

import msgspec

MONSTER, SPELL, EQUIPMENT = "monster", "spell", "equipment"
CARD_TYPES = (MONSTER, SPELL, EQUIPMENT)


class Effect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """One effect of the effect language (R-EFFECTS): when it triggers (``on``, monsters only), what it does
    (``do``), to what (``to``) and how much; ``at`` (spells only): the phase it waits for (R-FX-DELAY), empty
    for at once."""

    do: str
    to: str
    on: str = ""
    at: str = ""
    amount: int = 0
    power: int = 0
    toughness: int = 0
    card: int = 0  # summon: the token's card id
    count: int = 0  # summon: how many tokens


class CardDef(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """A card (R-CARDS): stats by type, the kind of target it is played on (spells, equipment) and its
    effects in order."""

    id: int
    name: str
    type: str
    cost: int
    rarity: float
    power: int = 0
    toughness: int = 0
    health: int = 0
    target: str = ""
    effects: tuple[Effect, ...] = ()
    token: bool = False


class EndPhaseEffect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """An effect a variant adds to every end phase from turn ``from_turn`` on (R-VARIANT)."""

    effect: Effect
    from_turn: int = 1


class McgRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every value a game of my-card-game runs with. See `engine.mcg.rules.FIELDS` for the rule of each and
    how a variant may change it."""

    name: str = "standard"
    version: str = "1"
    base: str = ""  # the built-in a variant derives from; empty for a built-in itself
    start_health: int = 30
    deck_size: int = 30
    max_copies: int = 3
    max_copies_rare: int = 1
    rare_threshold: float = 75.0
    banned: tuple[int, ...] = ()
    hand_limit: int = 12
    board_size: int = 5
    opening_hand: int = 5
    mulligan_max: int = 3
    first_mana: int = 1
    second_mana: int = 2
    mana_step: int = 1
    max_mana: int = 12
    fatigue_start: int = 1
    fatigue_step: int = 1
    turn_limit: int = 300
    chain_limit: int = 200
    rejection_limit: int = 10
    cards: tuple[CardDef, ...] = ()  # cards a variant adds to the pool
    end_phase: tuple[EndPhaseEffect, ...] = ()

    def replace(self, **changes: Any) -> "McgRules":
        return msgspec.structs.replace(self, **changes)

    def values(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__struct_fields__}


class Seeds(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A game's seeds (R-RNG): ``seed`` and the five derived from it (or given)."""

    seed: int
    play: int
    shuffle: tuple[int, int]
    deck: tuple[int, int]


__all__ = ["Effect", "CardDef", "EndPhaseEffect", "McgRules", "Seeds", "MONSTER", "SPELL", "EQUIPMENT",
           "CARD_TYPES"]
