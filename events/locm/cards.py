"""Card definitions as they travel inside events (R-DRAFT, R-CARDGEN).

A `Card` is the static definition of a card (its base id and printed values). Instances in a game are
separate (see `engine.locm.state`). Keywords are a bit mask in the fixed order of the referee's `BCDGLW`
string, so that rendering and testing a keyword are both cheap.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

CREATURE, GREEN, RED, BLUE = 0, 1, 2, 3
TYPE_NAMES = ("creature", "itemGreen", "itemRed", "itemBlue")

# Keyword bits, in the order of the referee's six-character keyword string.
BREAKTHROUGH, CHARGE, DRAIN, GUARD, LETHAL, WARD = 1, 2, 4, 8, 16, 32
KEYWORD_LETTERS = "BCDGLW"
KEYWORD_NAMES = ("breakthrough", "charge", "drain", "guard", "lethal", "ward")

# Area (1.5): 0 the target only, 1 the target's lane, 2 both lanes.
AREA_TARGET, AREA_LANE1, AREA_LANE2 = 0, 1, 2
AREA_NAMES = ("target", "lane1", "lane2")


def keywords_to_str(mask: int) -> str:
    """Render a keyword mask as the referee's fixed six-character string, e.g. ``---G-W``."""
    return _KW_STRINGS[mask]


def keywords_from_str(text: str) -> int:
    """Parse a six-character ``BCDGLW`` string (``-`` for absent) into a mask."""
    mask = 0
    for bit, ch in enumerate(text):
        if ch != "-":
            mask |= 1 << bit
    return mask


_KW_STRINGS = tuple(
    "".join(KEYWORD_LETTERS[b] if m >> b & 1 else "-" for b in range(6)) for m in range(64)
)


KeywordMask = Annotated[int, msgspec.Meta(ge=0, le=63)]
"""A keyword bit mask (six bits). The value types below bound what a decoded log may hold (a log read from a
file is hostile until checked); building a `Card` in code checks nothing and costs nothing more."""
CardType = Annotated[int, msgspec.Meta(ge=0, le=len(TYPE_NAMES) - 1)]
AreaCode = Annotated[int, msgspec.Meta(ge=0, le=len(AREA_NAMES) - 1)]


class Card(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One card definition. Item damage is a negative ``defense`` (R-DRAFT). Never tracked by the garbage
    collector (``gc=False``): numbers and strings only, so never part of a reference cycle. Not keyword-only:
    the 1.5 generator makes 120 a game positionally (a third cheaper); elsewhere name the fields."""

    base_id: int
    type: CardType
    cost: int
    attack: int
    defense: int
    keywords: KeywordMask
    my_health: int
    opp_health: int
    draw: int
    area: AreaCode = 0
    name: str = ""
    text: str = ""
