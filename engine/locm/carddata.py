"""The static 1.2 card list (R-DRAFT), read once from the repo's `data/` package."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from locm.engine.errors import CardDataError
from locm.events.locm.cards import TYPE_NAMES, Card, keywords_from_str

CARDLIST_FILE = "cardlist-1.2.txt"
CARDLIST_SIZE = 160



def parse_cardlist(text: str) -> dict[int, Card]:
    """Parse the referee's ` ; `-separated card list into {baseId: Card}."""
    cards: dict[int, Card] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        f = [x.strip() for x in line.split(" ; ")]
        if len(f) < 10:
            raise CardDataError(f"card list line {lineno}: expected 11 fields, got {len(f)}")
        try:
            card = Card(
                base_id=int(f[0]),
                name=f[1],
                type=TYPE_NAMES.index(f[2]),
                cost=int(f[3]),
                attack=int(f[4]),
                defense=int(f[5]),
                keywords=keywords_from_str(f[6]),
                my_health=int(f[7]),
                opp_health=int(f[8]),
                draw=int(f[9]),
                text=f[10] if len(f) > 10 else "",
            )
        except ValueError as exc:
            raise CardDataError(f"card list line {lineno}: {exc}") from None
        cards[card.base_id] = card
    return cards


@lru_cache(maxsize=1)
def cardlist_12() -> dict[int, Card]:
    """The 160 cards of 1.2, keyed by baseId (1..160)."""
    cards = parse_cardlist((files("locm.data") / CARDLIST_FILE).read_text(encoding="utf-8"))
    if sorted(cards) != list(range(1, CARDLIST_SIZE + 1)):
        raise CardDataError(f"{CARDLIST_FILE}: expected baseIds 1..{CARDLIST_SIZE}")
    return cards
