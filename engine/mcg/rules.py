"""my-card-game's rules as data: the built-in ruleset, what each value means and how a variant may change it,
the deck rules (R-DECK) and the card pool a ruleset plays with.

The value type is `events.mcg.rules.McgRules` (a frozen msgspec Struct) because a game's resolved rules
travel in its `game_created`. `FIELDS` names, for every field, its rule in ``data/mcg/RULES.md`` and how a
variant may change it (R-VARIANT: "rules may be added but not subtracted"):

- ``fixed``: the text's value; a variant cannot change it;
- ``lower``: a variant may lower it (a tighter deck rule: every deck legal under the variant is legal under
  the base), within the bounds given;
- ``any``: a value the text is silent about (the caps this project adds), anywhere within the bounds;
- ``add``: a variant may add entries (banned cards, cards, end-phase effects), never remove the base's.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from typing import Iterable, Mapping, NamedTuple

import msgspec

from locm.engine.mcg.cards import base_pool
from locm.engine import seam
from locm.engine.mcg.errors import DeckError, UnknownRules
from locm.engine.seam import RuleDifference
from locm.events.mcg.rules import CardDef, McgRules

FIXED, LOWER, ANY, ADD = "fixed", "lower", "any", "add"


class FieldInfo(NamedTuple):
    rule: str
    doc: str
    change: str  # FIXED, LOWER, ANY or ADD
    low: float = 0
    high: float = 0


FIELDS: dict[str, FieldInfo] = {
    "name": FieldInfo("R-VARIANT", "ruleset name", ANY),
    "version": FieldInfo("R-VARIANT", "rules version", FIXED),
    "base": FieldInfo("R-VARIANT", "the built-in ruleset a variant changes", ANY),
    "start_health": FieldInfo("R-PLAYER", "players' health at the start", FIXED),
    "deck_size": FieldInfo("R-DECK", "cards in a deck", FIXED),
    "max_copies": FieldInfo("R-DECK", "copies of a card a deck may hold", LOWER, 1, 3),
    "max_copies_rare": FieldInfo("R-DECK", "copies of a rare card (rarity >= rare_threshold) a deck may hold",
                                 LOWER, 0, 1),
    "rare_threshold": FieldInfo("R-DECK", "rarity from which max_copies_rare applies", LOWER, 0, 75),
    "banned": FieldInfo("R-DECK", "card ids no deck may hold", ADD),
    "hand_limit": FieldInfo("R-HAND", "cards in a hand at most", FIXED),
    "board_size": FieldInfo("R-SUMMON", "monsters on a side at most", FIXED),
    "opening_hand": FieldInfo("R-OPENING", "cards drawn before the first turn", FIXED),
    "mulligan_max": FieldInfo("R-MULLIGAN", "cards a mulligan may put back", FIXED),
    "first_mana": FieldInfo("R-MANA", "the starting player's mana in its first turn", FIXED),
    "second_mana": FieldInfo("R-MANA", "the other player's mana in its first turn", FIXED),
    "mana_step": FieldInfo("R-MANA", "mana gained every own turn", FIXED),
    "max_mana": FieldInfo("R-MANA", "mana at most", FIXED),
    "fatigue_start": FieldInfo("R-FATIGUE", "damage of the first draw from an empty deck", FIXED),
    "fatigue_step": FieldInfo("R-FATIGUE", "how much more each next one deals", FIXED),
    "turn_limit": FieldInfo("R-CAP", "turns of a game at most (both players'); at least what a game can last",
                            ANY, 2, 100_000),
    "chain_limit": FieldInfo("R-CAP", "effects one action may trigger at most; at least what a chain can reach",
                             ANY, 1, 100_000),
    "rejection_limit": FieldInfo("R-CAP", "rejected actions of a player in one turn that lose the game", ANY, 1,
                                 100),
    "cards": FieldInfo("R-VARIANT", "cards the variant adds to the pool", ADD),
    "end_phase": FieldInfo("R-VARIANT", "effects the variant adds to every end phase", ADD),
}

STANDARD = McgRules()
RULESETS = {"standard": STANDARD}
ALIASES = {"mcg": "standard", "my-card-game": "standard"}


def by_name(name: str) -> McgRules:
    """A built-in ruleset by name or alias."""
    key = ALIASES.get(name, name)
    if key not in RULESETS:
        raise UnknownRules(name, ", ".join([*RULESETS, *ALIASES]))
    return RULESETS[key]


@functools.lru_cache(maxsize=64)
def rules_hash(rules: McgRules) -> str:
    """SHA-256 (hex) of the msgspec JSON of the rules' values without their names (``name``, ``base``)."""
    return hashlib.sha256(msgspec.json.encode(rules.replace(name="", base=""))).hexdigest()


def pool(rules: McgRules, base: Mapping[int, CardDef] | None = None) -> dict[int, CardDef]:
    """Every card a game under `rules` may use: the card file's and the variant's (tokens included)."""
    cards = dict(base_pool() if base is None else base)
    cards.update({c.id: c for c in rules.cards})
    return cards


def copies_allowed(rules: McgRules, card: CardDef) -> int:
    """How many copies of `card` a deck may hold under `rules` (R-DECK)."""
    if card.token or card.id in rules.banned:
        return 0
    return rules.max_copies_rare if card.rarity >= rules.rare_threshold else rules.max_copies


def deck_problem(rules: McgRules, deck: Iterable[int], cards: Mapping[int, CardDef]) -> str | None:
    """Why `deck` (card ids) is not a legal deck under `rules` (R-DECK), or None."""
    deck = list(deck)
    if len(deck) != rules.deck_size:
        return f"expected {rules.deck_size} cards, got {len(deck)} (R-DECK)"
    for cid, n in sorted(Counter(deck).items()):
        card = cards.get(cid)
        if card is None:
            return f"card {cid} is not a card of this game's pool (R-DECK)"
        if card.token:
            return f"card {cid} ({card.name}) is a token: tokens are never in a deck (R-CARDS)"
        if cid in rules.banned:
            return f"card {cid} ({card.name}) is banned by the ruleset {rules.name!r} (R-VARIANT)"
        limit = copies_allowed(rules, card)
        if n > limit:
            rare = " (rarity %g >= %g)" % (card.rarity, rules.rare_threshold) if card.rarity >= rules.rare_threshold \
                else ""
            return f"{n} copies of card {cid} ({card.name}){rare}: at most {limit} (R-DECK)"
    return None


def check_deck(rules: McgRules, deck: Iterable[int], cards: Mapping[int, CardDef], seat: int = -1) -> None:
    reason = deck_problem(rules, deck, cards)
    if reason is not None:
        raise DeckError(reason, seat)


def deck_capacity(rules: McgRules, cards: Mapping[int, CardDef]) -> int:
    """The most cards a deck could hold under `rules` from this pool (a pool below `deck_size` has no legal
    deck: R-VARIANT refuses it)."""
    return sum(copies_allowed(rules, c) for c in cards.values())


def diff_rules(a: McgRules, b: McgRules) -> list[RuleDifference]:
    """Every value that differs between two rulesets, with its rule id, in field order (names left out)."""
    return seam.diff_rules(a, b, FIELDS)


def _check_fields() -> None:
    missing = set(McgRules.__struct_fields__) ^ set(FIELDS)
    if missing:  # pragma: no cover - a programming error caught at import
        raise RuntimeError(f"engine.mcg.rules.FIELDS and events.mcg.rules.McgRules differ: {sorted(missing)}")


_check_fields()

__all__ = ["STANDARD", "RULESETS", "ALIASES", "FIELDS", "FieldInfo", "FIXED", "LOWER", "ANY", "ADD", "by_name",
           "rules_hash", "pool", "copies_allowed", "deck_problem", "check_deck", "deck_capacity", "diff_rules",
           "RuleDifference"]
