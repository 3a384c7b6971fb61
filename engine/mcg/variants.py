"""my-card-game variants written as files (TOML): play modes that add rules, never remove one (R-VARIANT).

A variant file names its ``base`` (``standard``) and its ``name``, and may set::

    base = "standard"
    name = "singleton-sudden-death"
    max_copies = 1            # a tighter deck rule (FIELDS: "lower")
    banned = [61]             # cards no deck may hold
    turn_limit = 60           # a cap this project adds (FIELDS: "any")

    [[cards]]                 # cards added to the pool, checked as the card file's are
    id = 1001
    name = "Sand Golem"
    type = "monster"
    cost = 3
    rarity = 12.0
    power = 2
    toughness = 2
    health = 3

    [[end_phase]]             # an effect at the end of every turn from turn 30 on
    from_turn = 30
    do = "damage"
    to = "both_players"
    amount = 2

The file is checked as a whole before anything runs; the first problem is one `VariantError` line naming the
file and the field. A value of the text (FIELDS: "fixed") may be repeated but not changed; a deck rule may be
tightened, not loosened; a variant whose pool leaves no legal deck is refused (it could never be played).
The result is an ordinary `McgRules` value, carried whole by every game played under it.

This module is pure: it parses text (stdlib ``tomllib``) and never opens a file.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from locm.engine.mcg.bounds import bounds, least_caps
from locm.engine.mcg.cards import check_cards, check_effect
from locm.engine.mcg.errors import CardFileError, VariantError
from locm.engine.mcg.rules import ALIASES, ANY, FIELDS, FIXED, LOWER, RULESETS, deck_capacity, pool
from locm.events.mcg.rules import SPELL, EndPhaseEffect, McgRules

TOP_KEYS = ("base", "name")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+]*(?:-[A-Za-z0-9._+]+)*")
_BUILTIN_NAMES = set(RULESETS) | set(ALIASES)
MAX_ADDED = 200  # cards or end-phase effects a variant may add


def parse_variant(text: str, source: str = "<variant>", default_name: str = "") -> McgRules:
    """The resolved rules of a variant file's text; `source` names the file in errors; `default_name` is the
    variant's name when the file gives none (the file's stem)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(source, "", f"a TOML document: {exc}", has_got=False) from None
    return variant_from_dict(doc, source, default_name)


def variant_from_dict(doc: dict[str, Any], source: str = "<variant>", default_name: str = "") -> McgRules:
    """As `parse_variant`, from the decoded TOML table."""
    for key in doc:
        if key not in FIELDS and key not in TOP_KEYS or key == "version":
            known = ", ".join(k for k in FIELDS if k != "version")
            raise VariantError(source, key, f"a known field ({known})", has_got=False)
    base_name = doc.get("base")
    if base_name is None:
        raise VariantError(source, "base", 'a base ruleset: base = "standard"', has_got=False)
    if not isinstance(base_name, str) or ALIASES.get(base_name, base_name) not in RULESETS:
        raise VariantError(source, "base", " or ".join(repr(k) for k in [*RULESETS, *ALIASES]), base_name)
    base = RULESETS[ALIASES.get(base_name, base_name)]
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not _NAME.fullmatch(name) or len(name) > 40:
        raise VariantError(source, "name", "a name of letters, digits, '.', '_', '+' and '-' (at most 40)", name)
    if name in _BUILTIN_NAMES:
        raise VariantError(source, "name", "a name other than a built-in ruleset's", name)
    changes: dict[str, Any] = {}
    for key, info in FIELDS.items():
        if key not in doc or key in TOP_KEYS:
            continue
        value, old = doc[key], getattr(base, key)
        if info.change == FIXED:
            if value != old or type(value) is not type(old):
                raise VariantError(source, key, f"{old!r}: the text fixes it ({info.rule}); a variant may add "
                                   "rules, never change or remove one", value)
        elif info.change in (LOWER, ANY):
            changes[key] = _number(source, key, value, old, info.change, info.low, info.high, info.rule)
    if "banned" in doc:
        changes["banned"] = _banned(source, doc["banned"], base.banned)
    if "cards" in doc:
        changes["cards"] = _cards(source, doc["cards"], base)
    rules = base.replace(name=name, base=base.name, **changes)
    if "end_phase" in doc:
        rules = rules.replace(end_phase=base.end_phase + _end_phase(source, doc["end_phase"], pool(rules)))
    banned = set(rules.banned)
    cards = pool(rules)
    unknown = sorted(banned - {c.id for c in cards.values() if not c.token})
    if unknown:
        raise VariantError(source, "banned", "ids of collectible cards of the pool", unknown[0])
    capacity = deck_capacity(rules, cards)
    if capacity < rules.deck_size:
        raise VariantError(source, "banned", f"a pool with a legal deck: at most {capacity} cards fit a deck under "
                           f"these rules, a deck needs {rules.deck_size}", has_got=False)
    return _caps(source, doc, rules, cards, base)


def _caps(source: str, doc: dict[str, Any], rules: McgRules, cards: dict[int, Any], base: McgRules) -> McgRules:
    """A cap a variant sets must cut no legal game (R-CAP): at least its bound; one it leaves alone rises to it."""
    least = least_caps(rules, cards, bounds(base, pool(base)))
    raised = {}
    for cap, need in least.items():
        value = getattr(rules, cap)
        if value >= need:
            continue
        if cap in doc:
            what = f"one action may trigger {need} effects" if cap == "chain_limit" else f"a game may last {need} turns"
            raise VariantError(source, cap, f"an integer in {need}..{int(FIELDS[cap].high)} (R-CAP: under these "
                               f"rules {what}; a cap may add a rule, never cut one short)", value)
        raised[cap] = need
    return rules.replace(**raised) if raised else rules


def _number(source: str, key: str, value: object, old: Any, change: str, low: float, high: float,
            rule: str) -> Any:
    if isinstance(old, float):
        ok = type(value) in (int, float) and not isinstance(value, bool)
        value = float(value) if ok else value  # type: ignore[arg-type]
    else:
        ok = type(value) is int
    top = old if change == LOWER else high
    shown_top = int(top) if float(top).is_integer() else top
    shown_low = int(low) if float(low).is_integer() else low
    if not ok or not low <= value <= top:  # type: ignore[operator]
        why = f" ({rule}: a variant may tighten a deck rule, never loosen it)" if change == LOWER else ""
        kind = "a number" if isinstance(old, float) else "an integer"
        raise VariantError(source, key, f"{kind} in {shown_low}..{shown_top}{why}", value)
    return value


def _banned(source: str, value: object, base: tuple[int, ...]) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int for v in value) or len(value) > 1000:
        raise VariantError(source, "banned", "a list of card ids", value)
    if len(set(value)) != len(value):
        raise VariantError(source, "banned", "each card id once", value)
    return tuple(sorted(set(base) | set(value)))


def _cards(source: str, value: object, base: McgRules) -> tuple[Any, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_ADDED:
        raise VariantError(source, "cards", f"[[cards]] tables (1 to {MAX_ADDED})", value)
    try:
        return base.cards + check_cards(value, source, pool(base), what="cards")
    except CardFileError as exc:
        raise VariantError(source, f"cards: {exc.where}", exc.expected, exc.got,
                           has_got=exc.got is not None) from None


def _end_phase(source: str, value: object, cards: dict[int, Any]) -> tuple[EndPhaseEffect, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_ADDED:
        raise VariantError(source, "end_phase", f"[[end_phase]] tables (1 to {MAX_ADDED})", value)
    out = []
    for i, table in enumerate(value):
        where = f"end_phase[{i}]"
        if not isinstance(table, dict):
            raise VariantError(source, where, "a table: from_turn and an effect (do, to, ...)", table)
        raw = dict(table)
        from_turn = raw.pop("from_turn", 1)
        if type(from_turn) is not int or not 1 <= from_turn <= 1000:
            raise VariantError(source, f"{where}.from_turn", "an integer in 1..1000", from_turn)
        if "at" in raw:
            raise VariantError(source, f"{where}.at", "no at: an end-phase effect acts in every end phase",
                               has_got=False)
        if raw.get("to") in ("target", "self"):
            raise VariantError(source, f"{where}.to", "a selector that needs no card (not target or self)",
                               raw["to"])
        try:
            effect = check_effect(raw, source, where, SPELL, "")
        except CardFileError as exc:
            raise VariantError(source, exc.where, exc.expected, exc.got, has_got=exc.got is not None) from None
        if effect.do == "summon" and not getattr(cards.get(effect.card), "token", False):
            raise VariantError(source, f"{where}.card", "the id of a token card", effect.card)
        out.append(EndPhaseEffect(effect=effect, from_turn=from_turn))
    return tuple(out)


__all__ = ["parse_variant", "variant_from_dict", "VariantError", "TOP_KEYS", "MAX_ADDED"]
