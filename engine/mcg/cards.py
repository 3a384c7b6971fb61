"""Cards as data (R-CARDS) and the effect language (R-EFFECTS): reading and checking ``data/mcg/cards.toml``.

A card file is a TOML document of ``[[card]]`` tables. It is checked as a whole before anything uses it; the
first problem is one `CardFileError` line naming the file, the card (id and name) and the field, with what was
expected and what was got. A variant's ``[[cards]]`` go through the same checks (`check_cards`).

The vocabulary: what an effect does (``do``) and to what (``to``) are tables below, each naming the kinds of
character it works on (players, monsters); an effect is accepted only when its ``to`` yields kinds its ``do``
works on. Every field an action does not use must be left out, so that a misspelt effect is refused rather
than silently doing something else.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib.resources import files
from typing import Any, Container, Iterable, Mapping, TypeGuard

import msgspec

from locm.engine.mcg.errors import CardFileError
from locm.events.mcg.rules import CARD_TYPES, EQUIPMENT, MONSTER, SPELL, CardDef, Effect

CARD_FILE = "cards.toml"

TIERS = ("Basic", "Common", "Uncommon", "Rare", "Epic", "Mythical", "Legendary")
TIER_BOUNDS = (15.0, 30.0, 45.0, 60.0, 75.0, 90.0)  # R-RARITY: a tier is below its bound, Legendary >= 90
MAX_COST = 12  # R-CARDS: no player ever has more mana (R-MANA)

PLAYER, MONSTER_KIND = "player", "monster"
_BOTH = frozenset((PLAYER, MONSTER_KIND))
_PLAYERS = frozenset((PLAYER,))
_MONSTERS = frozenset((MONSTER_KIND,))

# do -> (the kinds it acts on, the numeric fields it takes, its rule)
ACTIONS: dict[str, tuple[frozenset[str], tuple[str, ...], str]] = {
    "damage": (_BOTH, ("amount",), "R-FX-DAMAGE"),
    "heal": (_BOTH, ("amount",), "R-FX-HEAL"),
    "raise_max_health": (_MONSTERS, ("amount",), "R-FX-MAXHEALTH"),
    "reduce_toughness": (_MONSTERS, ("amount",), "R-FX-TOUGHNESS"),
    "buff": (_MONSTERS, ("power", "toughness"), "R-FX-BUFF"),
    "draw": (_PLAYERS, ("amount",), "R-FX-DRAW"),
    "destroy": (_MONSTERS, (), "R-FX-DESTROY"),
    "summon": (_PLAYERS, ("card", "count"), "R-FX-SUMMON"),
}
# to -> the kinds it yields ("target": the card's chosen target, see TARGET_KINDS)
SELECTORS: dict[str, frozenset[str]] = {
    "target": _BOTH,
    "self": _MONSTERS,
    "own_player": _PLAYERS,
    "enemy_player": _PLAYERS,
    "both_players": _PLAYERS,
    "all_monsters": _MONSTERS,
    "enemy_monsters": _MONSTERS,
    "own_monsters": _MONSTERS,
    "other_own_monsters": _MONSTERS,
    "enemy_characters": _BOTH,
    "random_enemy_monster": _MONSTERS,
}
# a card's `target`: what its player may choose (R-SPELL, R-EQUIP)
TARGET_KINDS: dict[str, frozenset[str]] = {
    "monster": _MONSTERS,
    "own_monster": _MONSTERS,
    "enemy_monster": _MONSTERS,
    "character": _BOTH,
    "enemy_character": _BOTH,
}
TRIGGERS = ("summon", "death", "turn", "turn_start", "main_start")  # R-FX-PHASE: the last two
WAITS = ("end_phase", "turn_start")  # a spell's effect's `at` (R-FX-DELAY)
_LIMITS = {"amount": (1, 99), "power": (0, 99), "toughness": (0, 99), "count": (1, 5)}
_DRAW_MAX = 10

_CARD_KEYS = ("id", "name", "type", "cost", "rarity", "power", "toughness", "health", "target", "effects", "token")
_EFFECT_KEYS = ("on", "at", "do", "to", "amount", "power", "toughness", "card", "count")


def tier(rarity: float) -> int:
    """The index in `TIERS` of a rarity score (R-RARITY)."""
    for i, bound in enumerate(TIER_BOUNDS):
        if rarity < bound:
            return i
    return len(TIER_BOUNDS)


def rule_of(effect: Effect) -> str:
    """The rule an effect applies (R-FX-…)."""
    return ACTIONS[effect.do][2]


def chosen_target(card: CardDef) -> str:
    """The kind of target a card is played on, or "" (equipment: any monster, R-EQUIP)."""
    if card.type == EQUIPMENT:
        return "monster"
    return card.target


# --- reading -------------------------------------------------------------------------------------------------


def parse_cards(text: str, source: str = CARD_FILE) -> tuple[CardDef, ...]:
    """The cards of a card file's text, checked as a whole (sorted by id)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardFileError(source, "", f"a TOML document: {exc}", has_got=False) from None
    extra = sorted(set(doc) - {"card"})
    if extra:
        raise CardFileError(source, extra[0], "only [[card]] tables", has_got=False)
    tables = doc.get("card")
    if not isinstance(tables, list) or not tables:
        raise CardFileError(source, "card", "one or more [[card]] tables", tables)
    return check_cards(tables, source)


@lru_cache(maxsize=1)
def base_cards() -> tuple[CardDef, ...]:
    """The built-in card file (``data/mcg/cards.toml``), read and checked once."""
    return parse_cards((files("locm.data") / "mcg" / CARD_FILE).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def base_pool() -> dict[int, CardDef]:
    return {c.id: c for c in base_cards()}


def check_cards(tables: Iterable[object], source: str, known: Mapping[int, CardDef] | None = None,
                what: str = "card") -> tuple[CardDef, ...]:
    """Card definitions from decoded TOML tables, each checked (R-CARDS, R-EFFECTS), ids and names unique
    among themselves and against `known` (cards they may summon as tokens, too). Sorted by id."""
    known = dict(known or {})
    cards: dict[int, CardDef] = {}
    names = {c.name for c in known.values()}
    raw = list(tables)
    for n, table in enumerate(raw):
        card = _card(table, source, f"{what}[{n}]")
        where = _where(card)
        if card.id in cards or card.id in known:
            raise CardFileError(source, f"{where}: id", "an id no other card has", card.id)
        if card.name in names:
            raise CardFileError(source, f"{where}: name", "a name no other card has", card.name)
        cards[card.id] = card
        names.add(card.name)
    every = {**known, **cards}
    for card in cards.values():
        for i, e in enumerate(card.effects):
            if e.do == "summon":
                token = every.get(e.card)
                if token is None or not token.token:
                    raise CardFileError(source, f"{_where(card)}: effects[{i}].card", "the id of a token card",
                                        e.card)
    return tuple(sorted(cards.values(), key=lambda c: c.id))


def _is_int(v: object) -> TypeGuard[int]:
    return type(v) is int


def _is_number(v: object) -> TypeGuard[int | float]:
    return type(v) in (int, float)


def _where(card: CardDef) -> str:
    return f"card {card.id} ({card.name})"


def _card(table: object, source: str, where: str) -> CardDef:
    if not isinstance(table, dict):
        raise CardFileError(source, where, "a table of card fields", table)
    cid = table.get("id")
    if not _is_int(cid) or not 1 <= cid <= 9999:
        raise CardFileError(source, f"{where}: id", "an integer in 1..9999", cid)
    name = table.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 40 or not name.isprintable():
        raise CardFileError(source, f"card {cid}: name", "a printable name of 1 to 40 characters", name)
    where = f"card {cid} ({name})"
    for key in table:
        if key not in _CARD_KEYS:
            raise CardFileError(source, f"{where}: {key}", f"a card field ({', '.join(_CARD_KEYS)})",
                                has_got=False)
    kind = table.get("type")
    if kind not in CARD_TYPES:
        raise CardFileError(source, f"{where}: type", "one of " + ", ".join(CARD_TYPES), kind)
    cost = table.get("cost")
    if not _is_int(cost) or not 0 <= cost <= MAX_COST:
        raise CardFileError(source, f"{where}: cost", f"an integer in 0..{MAX_COST}", cost)
    rarity = table.get("rarity")
    if not _is_number(rarity) or not 0 <= rarity <= 100:
        raise CardFileError(source, f"{where}: rarity", "a number in 0..100", rarity)
    token = table.get("token", False)
    if type(token) is not bool or (token and kind != MONSTER):
        raise CardFileError(source, f"{where}: token", "true only for a monster (or false)", token)
    stats = {k: table.get(k, 0) for k in ("power", "toughness", "health")}
    for k, v in stats.items():
        if not _is_int(v) or not 0 <= v <= 99:
            raise CardFileError(source, f"{where}: {k}", "an integer in 0..99", v)
    target = table.get("target", "")
    effects_raw = table.get("effects", [])
    if not isinstance(effects_raw, list) or len(effects_raw) > 8:
        raise CardFileError(source, f"{where}: effects", "a list of at most 8 effects", effects_raw)
    if kind == MONSTER:
        if stats["health"] < 1:
            raise CardFileError(source, f"{where}: health", "at least 1 for a monster", stats["health"])
        if "target" in table:
            raise CardFileError(source, f"{where}: target", "no target for a monster (its effects choose none)",
                                has_got=False)
    elif kind == SPELL:
        for k in stats:
            if k in table:
                raise CardFileError(source, f"{where}: {k}", "no stats for a spell", has_got=False)
        if not effects_raw:
            raise CardFileError(source, f"{where}: effects", "at least one effect for a spell", has_got=False)
        if "target" in table and not _named(target, TARGET_KINDS):
            raise CardFileError(source, f"{where}: target", "one of " + ", ".join(TARGET_KINDS), target)
    else:
        if "health" in table:
            raise CardFileError(source, f"{where}: health", "no health for equipment (R-EQUIP: power and "
                                "toughness only)", has_got=False)
        if effects_raw:
            raise CardFileError(source, f"{where}: effects", "no effects for equipment (R-EQUIP)", has_got=False)
        if "target" in table:
            raise CardFileError(source, f"{where}: target", "no target field for equipment (it is played on a "
                                "monster)", has_got=False)
        if stats["power"] + stats["toughness"] == 0:
            raise CardFileError(source, f"{where}: power", "a boost: power or toughness above 0", 0)
    effects = tuple(check_effect(e, source, f"{where}: effects[{i}]", kind, target) for i, e in enumerate(effects_raw))
    if kind == SPELL:
        uses = any(e.to == "target" for e in effects)
        if uses and not target:
            raise CardFileError(source, f"{where}: target", "the kind of target its effects act on (one of "
                                + ", ".join(TARGET_KINDS) + ")", has_got=False)
        if target and not uses:
            raise CardFileError(source, f"{where}: target", 'no target, or an effect with to = "target"', target)
    return CardDef(id=cid, name=name, type=kind, cost=cost, rarity=float(rarity), target=target, effects=effects,
                   token=token, **stats)


def _named(value: object, names: Container[str]) -> TypeGuard[str]:
    """Whether `value` is one of the names of `names` (a table's keys): a string, never a list or a table (which
    a dict lookup would refuse with a TypeError)."""
    return isinstance(value, str) and value in names


def check_effect(raw: object, source: str, where: str, kind: str, target: str) -> Effect:
    if not isinstance(raw, dict):
        raise CardFileError(source, where, "a table {do = ..., to = ..., ...}", raw)
    for key in raw:
        if key not in _EFFECT_KEYS:
            raise CardFileError(source, f"{where}.{key}", f"an effect field ({', '.join(_EFFECT_KEYS)})",
                                has_got=False)
    do = raw.get("do")
    if not _named(do, ACTIONS):
        raise CardFileError(source, f"{where}.do", "one of " + ", ".join(ACTIONS), do)
    acts_on, numbers, _ = ACTIONS[do]
    to = raw.get("to")
    if not _named(to, SELECTORS):
        raise CardFileError(source, f"{where}.to", "one of " + ", ".join(SELECTORS), to)
    yields = TARGET_KINDS.get(target, _BOTH) if to == "target" else SELECTORS[to]
    if not yields <= acts_on:
        kinds = " and ".join(sorted(acts_on))
        raise CardFileError(source, f"{where}.to", f"characters {do} acts on ({kinds} only)", to)
    on = raw.get("on", "")
    if kind == MONSTER:
        if on not in TRIGGERS:
            raise CardFileError(source, f"{where}.on", "one of " + ", ".join(TRIGGERS), on or None)
    elif "on" in raw:
        raise CardFileError(source, f"{where}.on", "no trigger for a spell's effect (it acts when played)",
                            has_got=False)
    at = raw.get("at", "")
    if "at" in raw and (kind != SPELL or not _named(at, WAITS)):
        raise CardFileError(source, f"{where}.at", "a phase a spell's effect waits for (one of " + ", ".join(WAITS)
                            + "); only a spell's effect waits", at)
    if to == "self" and kind != MONSTER:
        raise CardFileError(source, f"{where}.to", "a selector other than self (only a monster has a self)", to)
    values: dict[str, int] = {}
    for key in ("amount", "power", "toughness", "card", "count"):
        if key in raw and key not in numbers:
            raise CardFileError(source, f"{where}.{key}", f"no {key} for {do}", has_got=False)
    for key in numbers:
        v = raw.get(key, 0 if key in ("power", "toughness") else None)
        if key == "card":
            if type(v) is not int:
                raise CardFileError(source, f"{where}.card", "the id of a token card", v)
        else:
            lo, hi = _LIMITS[key]
            if key == "amount" and do == "draw":
                hi = _DRAW_MAX
            if type(v) is not int or not lo <= v <= hi:
                raise CardFileError(source, f"{where}.{key}", f"an integer in {lo}..{hi}", v)
        values[key] = v
    if do == "buff" and values["power"] + values["toughness"] == 0:
        raise CardFileError(source, f"{where}.power", "a buff: power or toughness above 0", 0)
    return Effect(on=on, at=at, do=do, to=to, **values)


def card_text(card: CardDef) -> str:
    """A card's effects in words, for views and descriptions: ``summon: damage 1 to enemy_player``."""
    parts = []
    for e in card.effects:
        head = f"{e.on}: " if e.on else f"at {e.at}: " if e.at else ""
        if e.do == "buff":
            what = f"buff +{e.power}/+{e.toughness}"
        elif e.do == "summon":
            what = f"summon {e.count} x card {e.card}"
        elif e.do == "destroy":
            what = "destroy"
        else:
            what = f"{e.do} {e.amount}"
        parts.append(f"{head}{what} to {e.to}")
    return "; ".join(parts)


def collectible(cards: Iterable[CardDef]) -> list[CardDef]:
    """The cards a deck, a pack or a craft may hold: all but tokens."""
    return [c for c in cards if not c.token]


def as_table(card: CardDef) -> dict[str, Any]:
    """A card as the TOML table that defines it (a variant's ``[[cards]]``, tests)."""
    return msgspec.to_builtins(card)  # type: ignore[no-any-return]


__all__ = ["parse_cards", "base_cards", "base_pool", "check_cards", "tier", "TIERS", "TIER_BOUNDS", "ACTIONS",
           "SELECTORS", "TARGET_KINDS", "TRIGGERS", "WAITS", "check_effect", "rule_of", "chosen_target", "card_text",
           "collectible", "as_table", "MAX_COST"]
