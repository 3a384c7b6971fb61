"""The LOCM 1.5 card generator's weights file and its precomputed tables, as msgspec structs
(`engine.locm.cardgen` decodes the one and builds the other).

In a module of their own so that `engine.locm.cardgen` holds only the arithmetic, which can then be compiled with
mypyc (tried in commit 22699cf: not shipped, since it needs a C compiler) while these stay ordinary msgspec
structs: a compiled module's struct classes no longer decode.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Option(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: str
    weight: float
    mult_cost: float
    add_cost: float


class Distribution(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    mean: float
    std: float


class CardMatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Which generated cards a `CardChange` changes: every condition given holds (none given: every card).
    ``keyword`` is a keyword's name (the card has it) or ``none`` (it has no keyword)."""

    type: str | None = None
    cost: int | None = None
    min_cost: int | None = None
    keyword: str | None = None
    area: str | None = None
    draw: int | None = None
    min_draw: int | None = None


class CardValues(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """New values of a changed card (a field not given keeps its value); ``keywords`` as ``BCDGLW`` text."""

    type: str | None = None
    attack: int | None = None
    defense: int | None = None
    keywords: str | None = None
    my_health: int | None = None
    opp_health: int | None = None
    draw: int | None = None
    area: str | None = None
    text: str | None = None


class CardDeltas(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Amounts added to a changed card's values (after `CardValues`)."""

    attack: int = 0
    defense: int = 0
    my_health: int = 0
    opp_health: int = 0
    draw: int = 0


class CardChange(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename={"set_": "set"}):
    """A locm extension of the weights file (``cardChanges``, never in the referee's file): a change applied to
    every generated card that matches ``when``, after the whole set is generated, so that every other card
    and every random draw stay as they were (R-CARDGEN). Costs never change: a card keeps its place (its
    baseId) in the set sorted by cost. A ruleset variant writes it as ``[[generated]]`` tables."""

    when: CardMatch = CardMatch()
    set_: CardValues = CardValues()
    add: CardDeltas = CardDeltas()


class Weights(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    type_probabilities: dict[str, float]
    mana_curve: dict[str, float]
    area_probabilities: list[Option]
    keyword_number_probabilities: dict[str, float]
    keyword_probabilities: list[Option]
    draw_probabilities: list[Option]
    my_health_probabilities: list[Option]
    opp_health_probabilities: list[Option]
    bonus_attack_distribution: Distribution
    bonus_defense_distribution: Distribution
    card_changes: list[CardChange] = []  # a locm extension: see `CardChange`


class Choice(msgspec.Struct, frozen=True):
    """A weighted choice; `values[bisect_left(thresholds, D)]` is the referee's pick for nextDouble() = D/2**53.

    Values are ints (type, cost, keyword count) or (mult, add, value) rows of budgeted properties.
    `buckets[D >> 45]` is that index already when no threshold falls inside D's bucket of 2**45 values, else
    255 (`engine.locm.cardgen._pick_indices`); `codes[index]` is the value when every value is an int in 0..255;
    `live[index]` is 0 for a row that changes nothing (`engine.locm.cardgen._is_no_op`), else 1. A choice has at
    most 255 options (`engine.locm.cardgen.check_weights`), so that an index is a byte.
    """

    weights: list[float]  # sorted, as the referee walks them
    total: float
    thresholds: list[int]
    values: list[Any]  # ints or (mult, add, value) rows
    buckets: bytes = b""
    codes: bytes = b""
    live: bytes = b""
    fine: dict[int, bytes] = {}  # for each ambiguous bucket, its 256 sub-buckets by D's next byte, as `buckets`


class Tables(msgspec.Struct, frozen=True):
    types: Choice
    mana: Choice
    area: Choice
    kw_count: Choice
    keywords: tuple[Choice | None, ...]  # one Choice (None when all are taken) per mask of the bits taken
    draw: Choice
    my_health: Choice
    opp_health: Choice
    attack: Distribution
    defense: Distribution
    # Every combination of the four budgeted picks and its active set (`engine.locm.cardgen._combinations`).
    combos: list[tuple[Any, ...]] = []
    combo_actives: bytes = b""
    changes: tuple[CardChange, ...] = ()


__all__ = ["Option", "Distribution", "Weights", "Choice", "Tables", "CardChange", "CardMatch", "CardValues",
           "CardDeltas"]
