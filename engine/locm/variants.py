"""Ruleset variants written as files (TOML): a built-in base, a name, changed values, changed cards.

A variant file names its base (``base = "1.2"`` or ``"constructed"``), a ``name`` for the variant, any field
of `engine.locm.rulesets.Ruleset` by its own name, card changes by base id (``[cards.116]``, 1.2 only: the
constructed cards are generated per game) and, for constructed, changes to the card generator's weights
(``[weights.typeProbabilities]``, in the keys of ``data/cardWeights-1.5.json``)::

    base = "1.2"
    name = "low-health"
    start_health = 20
    hand_limit = 6

    [cards.116]
    cost = 5
    keywords = "B---LW"

The file is validated as a whole before anything runs: the first problem found is one `VariantError` line
naming the file, the field and what was expected. The result is an ordinary `Rules` value whose fields hold
everything the variant changes (card changes in ``cards``, generator weights in ``card_weights``), so a game
played under it carries all of it in its `game_created`.

This module is pure: it parses text (stdlib ``tomllib``) and never opens a file (`locm.games.locm.variants` does).
Comparing two rulesets is `engine.locm.rulesdiff`.

Why about 470 lines: the checks of every field a file may give (the tables `OVERRIDABLE` and `_CARD_CHECKS`,
the generator's weights, the values that depend on each other) are the file format's one definition; split,
a field could be read in one module and left unchecked in another.
"""

from __future__ import annotations

import functools
import re
import tomllib
from typing import Any, Callable, NamedTuple

import msgspec

from locm.engine.locm.carddata import CARDLIST_SIZE, cardlist_12
from locm.engine.locm.drawing import CAP_TURNS, OPENING_HAND
from locm.engine.errors import LocmError
from locm.engine.locm.rulesets import ALIASES, DAMAGE_DRAW, DRAFT, LOSE_RUNE, RULESETS, RUNES, TEN_DAMAGE, Rules
from locm.events.locm.cards import AREA_NAMES, KEYWORD_LETTERS, TYPE_NAMES, Card, keywords_from_str


class VariantError(LocmError):
    """A ruleset file that cannot be used: ``source`` (the file), ``field`` (its dotted path) and what was
    expected, in one line."""

    def __init__(self, source: str, field: str, expected: str, got: object = None, *, has_got: bool = True):
        self.source, self.field, self.expected = source, field, expected
        where = f"{source}: {field}: " if field else f"{source}: "
        tail = f", got {_shown(got)}" if has_got and got is not None else ""
        super().__init__(f"{where}expected {expected}{tail}")


def _shown(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# --- checks of one value -----------------------------------------------------------------------------------


class _Check(NamedTuple):
    expected: str
    ok: Callable[[object], bool]
    convert: Callable[[Any], object] = lambda v: v  # takes what `ok` accepted
    domain: tuple[Any, ...] = ()  # the accepted values: (lo, hi) for an integer, the choices of a choice (for tests)


def _int(lo: int, hi: int) -> _Check:
    return _Check(f"an integer in {lo}..{hi}", lambda v: type(v) is int and lo <= v <= hi, domain=(lo, hi))


def _choice(*values: str) -> _Check:
    return _Check("one of " + ", ".join(repr(v) for v in values), lambda v: v in values, domain=values)


MAX_RUNE = 999
"""The largest rune a file may give (runes are below the start health, at most 1000)."""
_BOOL = _Check("true or false", lambda v: type(v) is bool, domain=(False, True))
_RUNES = _Check(f"a list of integers in 1..{MAX_RUNE}, largest first (e.g. [25, 20, 15, 10, 5]) or []",
                lambda v: isinstance(v, list) and all(type(x) is int and 0 < x <= MAX_RUNE for x in v)
                and all(a > b for a, b in zip(v, v[1:])), tuple, domain=(1, MAX_RUNE))

OPENING_CARDS = max(OPENING_HAND)
"""A deck holds at least the larger opening hand (R-TURN: 4 and 5 cards), and a hand may hold it."""
MAX_TURN_LIMIT = CAP_TURNS // 2 - 1
"""The turn limit is below the hard cap (R-CAP), or it would never apply."""

# The fields a file may change, with what each must be. Ranges keep a game finite and playable; `_coherent`
# checks the values that depend on each other.
OVERRIDABLE: dict[str, _Check] = {
    "runes": _RUNES,
    "draw_rule": _choice(RUNES, DAMAGE_DRAW),
    "damage_draw_step": _int(0, 1000),
    "empty_deck": _choice(LOSE_RUNE, TEN_DAMAGE),
    "turn_limit": _int(1, MAX_TURN_LIMIT),
    "turn_limit_penalty": _choice(LOSE_RUNE, TEN_DAMAGE),
    "penalty_damage": _int(0, 1000),
    "full_hand_stops_draws": _BOOL,
    "area": _BOOL,
    "hand_limit": _int(OPENING_CARDS, 30),
    "start_health": _int(1, 1000),
    "deck_size": _int(OPENING_CARDS, 240),
    "lane_size": _int(1, 10),
    "max_mana": _int(0, 99),
    "draft_rounds": _int(OPENING_CARDS, CARDLIST_SIZE // 2),
    "max_copies": _int(1, 30),
}
# Fields that define the base itself (how seeds are derived, ids numbered, the protocol spoken): a variant
# keeps its base's, so that games, bots and replays of the base stay valid.
FIXED = ("version", "seed_params", "deck_building", "id_scheme", "input_runes", "input_area",
         "zeroed_fields_quirk")
TOP_KEYS = ("base", "name", "cards", "weights", "generated")

_CARD_CHECKS: dict[str, _Check] = {
    "name": _Check("a string", lambda v: isinstance(v, str)),
    "text": _Check("a string", lambda v: isinstance(v, str)),
    "type": _Check("one of " + ", ".join(TYPE_NAMES), lambda v: v in TYPE_NAMES, TYPE_NAMES.index),
    "cost": _int(0, 99),
    "attack": _int(-99, 99),
    "defense": _int(-99, 99),
    "keywords": _Check(f"six characters, each its letter of {KEYWORD_LETTERS} or '-' (e.g. 'B---LW')",
                       lambda v: isinstance(v, str) and len(v) == 6
                       and all(c in ("-", KEYWORD_LETTERS[i]) for i, c in enumerate(v)), keywords_from_str),
    "my_health": _int(-99, 99),
    "opp_health": _int(-99, 99),
    "draw": _int(0, 10),
    "area": _Check("one of target, lane1, lane2", lambda v: v in AREA_NAMES, AREA_NAMES.index),
}

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+]*(?:-[A-Za-z0-9._+]+)*")
_BUILTIN_NAMES = set(RULESETS) | set(ALIASES)


# --- the whole file ----------------------------------------------------------------------------------------


def parse_variant(text: str, source: str = "<ruleset>", default_name: str = "") -> Rules:
    """The resolved `Rules` of a variant file's text; `source` names the file in errors, `default_name` is
    the variant's name when the file gives none (the file's stem)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(source, "", f"a TOML document: {exc}", has_got=False) from None
    return variant_from_dict(doc, source, default_name)


def variant_from_dict(doc: dict[str, Any], source: str = "<ruleset>", default_name: str = "") -> Rules:
    """As `parse_variant`, from the decoded TOML table."""
    for key in doc:
        if key not in OVERRIDABLE and key not in TOP_KEYS:
            if key in FIXED:
                raise VariantError(source, key, "no change: it is fixed by the base ruleset (choose another "
                                   "base instead)", has_got=False)
            known = ", ".join([*TOP_KEYS, *OVERRIDABLE])
            raise VariantError(source, key, f"a known field ({known})", has_got=False)
    if "base" not in doc:
        raise VariantError(source, "base", 'a base ruleset: base = "1.2" or base = "constructed"', has_got=False)
    base_name = doc["base"]
    if not isinstance(base_name, str) or ALIASES.get(base_name, base_name) not in RULESETS:
        raise VariantError(source, "base", '"1.2" or "constructed" (alias "1.5")', base_name)
    base = RULESETS[ALIASES.get(base_name, base_name)]
    name = doc.get("name", default_name)
    if not isinstance(name, str) or not _NAME.fullmatch(name) or len(name) > 40:
        raise VariantError(source, "name", "a name of letters, digits, '.', '_', '+' and '-' (at most 40)", name)
    if name in _BUILTIN_NAMES:
        raise VariantError(source, "name", "a name other than a built-in ruleset's", name)
    changes: dict[str, Any] = {}  # each value checked against its field above
    for key, check in OVERRIDABLE.items():
        if key in doc:
            value = doc[key]
            if not check.ok(value):
                raise VariantError(source, key, check.expected, value)
            changes[key] = check.convert(value)
    _coherent(base.replace(**changes), source, changes)
    draft = base.deck_building == DRAFT
    if draft:
        if "max_copies" in changes:
            raise VariantError(source, "max_copies", "no change: copies apply to constructed decks (1.2 decks "
                               "are the draft picks)", has_got=False)
        if "deck_size" in changes:
            raise VariantError(source, "deck_size", "no change: a 1.2 deck is the draft picks (change "
                               "draft_rounds)", has_got=False)
    else:
        if "draft_rounds" in changes:
            raise VariantError(source, "draft_rounds", "no change: constructed has no draft", has_got=False)
        copies = changes.get("max_copies", base.max_copies)
        if changes.get("deck_size", base.deck_size) > 120 * copies:
            raise VariantError(source, "deck_size", f"at most {120 * copies} (120 cards, {copies} copies each)",
                               changes["deck_size"])
    if "cards" in doc:
        if not draft:
            raise VariantError(source, "cards", "no card changes under constructed: its cards are generated "
                               "per game (change [weights] instead)", has_got=False)
        changes["cards"] = _card_changes(doc["cards"], source)
    if "weights" in doc:
        if draft:
            raise VariantError(source, "weights", "no generator weights under 1.2: its cards are a fixed list "
                               "(change [cards.ID] instead)", has_got=False)
        changes["card_weights"] = _weights(doc["weights"], source)
    if "generated" in doc:
        if draft:
            raise VariantError(source, "generated", "no generated-card changes under 1.2: its cards are a fixed "
                               "list (change [cards.ID] instead)", has_got=False)
        changes["card_weights"] = with_card_changes(changes.get("card_weights", ""),
                                                    _generated(doc["generated"], source))
    return base.replace(name=name, base=base.name, **changes)


# Ranges a log's rules may have that a new file may not: values the validator accepted before it was
# tightened, under which games were stored and must still be read (they play: the cap ends them).
_OLD_RANGES = {"turn_limit": _int(1, 1000), "hand_limit": _int(1, 30),
               "runes": _Check("a list of positive integers, largest first", lambda v: isinstance(v, list)
                               and all(type(x) is int and x > 0 for x in v) and all(a > b for a, b in zip(v, v[1:])))}


def check_rules(rules: Rules, source: str = "rules", *, from_log: bool = False) -> None:
    """Refuse a `Rules` value that the engine cannot play (`VariantError`): the values a variant file may
    hold, checked on the value itself, so that rules built in code (`RULES_12.replace(...)`) or read from a
    log are held to the file's ranges. ``from_log``: the rules of a stored game, which may use ranges the
    validator accepted before (`_OLD_RANGES`) and are not held to the checks of values that only make sense
    together (`_coherent`); what could crash or never end the engine is refused either way. Built-in rulesets
    pass at once; the answer is cached per value."""
    if RULESETS.get(rules.name) == rules:
        return
    _check_rules(rules, source, from_log)


@functools.lru_cache(maxsize=256)
def _check_rules(rules: Rules, source: str, from_log: bool) -> None:
    # The base: named (a variant file's), or the built-in of the same deck building (rules built in code
    # without a base, e.g. ``RULES_12.replace(name="house", ...)``).
    base = RULESETS.get(rules.base) if rules.base else next(
        (b for b in RULESETS.values() if b.deck_building == rules.deck_building), None)
    if base is None:
        raise VariantError(source, "base", 'a built-in base ruleset ("1.2" or "constructed")', rules.base)
    if not rules.name or len(rules.name) > 40 or not rules.name.isprintable():
        raise VariantError(source, "name", "a name of 1 to 40 printable characters", rules.name)
    if rules.name in _BUILTIN_NAMES and not from_log:
        raise VariantError(source, "name", f"a name other than a built-in ruleset's: these values are not "
                           f"{rules.name}'s (give the variant its own name)", rules.name)
    for key in FIXED:
        if getattr(rules, key) != getattr(base, key):
            raise VariantError(source, key, f"the base's value {getattr(base, key)!r} (fixed by the base)",
                               getattr(rules, key))
    draft = base.deck_building == DRAFT
    for key, check in OVERRIDABLE.items():
        value = getattr(rules, key)
        if (key in ("deck_size", "max_copies") and draft) or (key == "draft_rounds" and not draft):
            if value != getattr(base, key):
                raise VariantError(source, key, f"the base's value {getattr(base, key)!r} (not used by "
                                   f"{base.name})", value)
            continue
        value = list(value) if key == "runes" else value
        check = _OLD_RANGES.get(key, check) if from_log else check
        if not check.ok(value):
            raise VariantError(source, key, check.expected, value)
    if not draft and rules.deck_size > 120 * rules.max_copies:
        raise VariantError(source, "deck_size", f"at most {120 * rules.max_copies} (120 cards, "
                           f"{rules.max_copies} copies each)", rules.deck_size)
    if not from_log:
        _coherent(rules, source, {})
    if rules.cards and not draft:
        raise VariantError(source, "cards", "no card changes under constructed", has_got=False)
    for card in rules.cards:
        _check_card(card, source)
    if rules.card_weights:
        if draft:
            raise VariantError(source, "card_weights", "no generator weights under 1.2", has_got=False)
        _check_weights_text(rules.card_weights, source)


def _check_card(card: Card, source: str) -> None:
    where = f"cards.{card.base_id}"
    if card.base_id not in cardlist_12():
        raise VariantError(source, where, f"a card id of the 1.2 list (1..{CARDLIST_SIZE})", card.base_id)
    values = msgspec.structs.asdict(card)
    checks = {**_CARD_CHECKS, "type": _int(0, len(TYPE_NAMES) - 1), "area": _int(0, len(AREA_NAMES) - 1),
              "keywords": _int(0, (1 << len(KEYWORD_LETTERS)) - 1)}
    for field, check in checks.items():
        if not check.ok(values[field]):
            raise VariantError(source, f"{where}.{field}", check.expected, values[field])
    _creature_stats(values, where, source)


def _creature_stats(values: dict[str, Any], where: str, source: str) -> None:
    """A creature has defense 1 or more and attack 0 or more (an item's negative values are its effect)."""
    if values["type"] == 0 and values["defense"] < 1:
        raise VariantError(source, f"{where}.defense", "at least 1 for a creature", values["defense"])
    if values["type"] == 0 and values["attack"] < 0:
        raise VariantError(source, f"{where}.attack", "at least 0 for a creature", values["attack"])


def _check_weights_text(text: str, source: str) -> None:
    from locm.engine.locm.cardgen import check_weights

    try:
        check_weights(text)
        doc = msgspec.json.decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise VariantError(source, "weights", f"weights the generator can use ({exc})", has_got=False) from None
    for key, value in doc.items():
        if key == "cardChanges":  # changes to the generated cards, not numbers of the generator (check_weights)
            continue
        for name, entry in (((o.get("name"), o) for o in value) if isinstance(value, list) else [(None, value)]):
            for k, v in entry.items():
                if k != "name":
                    bound = WEIGHT_BOUNDS.get(k, WEIGHT_BOUNDS["weight"])
                    _weight_number(v, bound, source, ".".join(str(x) for x in ("weights", key, name, k) if x))


def _coherent(rules: Rules, source: str, changes: dict[str, Any]) -> None:
    """Refuse values that are each in range but cannot be played together, naming a field the file changed."""
    def field(*names: str) -> str:
        return next((n for n in names if n in changes), names[0])

    if rules.runes and rules.runes[0] >= rules.start_health:
        raise VariantError(source, field("runes", "start_health"), f"runes below start_health "
                           f"({rules.start_health}): a rune at or above it would break before any damage",
                           list(rules.runes))
    if rules.turn_limit_penalty != rules.empty_deck:
        raise VariantError(source, field("turn_limit_penalty", "empty_deck"),
                           f"the same policy for turn_limit_penalty and empty_deck (here {rules.empty_deck!r} "
                           f"and {rules.turn_limit_penalty!r}): drawing follows the 1.2 rules (lose_rune) or "
                           "the 1.5 rules (ten_damage) as a whole (R-DRAW)", has_got=False)
    if rules.draw_rule != RUNES and rules.runes:
        raise VariantError(source, field("runes", "draw_rule"), f"runes = [] with draw_rule = "
                           f"{rules.draw_rule!r}: runes break only under draw_rule = 'runes' (R-RUNES)",
                           list(rules.runes))
    if rules.empty_deck == LOSE_RUNE and rules.penalty_damage:
        raise VariantError(source, field("penalty_damage", "empty_deck"), "penalty_damage = 0 with empty_deck = "
                           "'lose_rune': that penalty is a rune, not damage (R-DRAW)", rules.penalty_damage)
    if rules.draw_rule == RUNES and rules.damage_draw_step:
        raise VariantError(source, field("damage_draw_step", "draw_rule"), "damage_draw_step = 0 with draw_rule "
                           "= 'runes': damage draws apply only under draw_rule = 'damage_draw' (R-DAMAGEDRAW)",
                           rules.damage_draw_step)


def _card_changes(table: object, source: str) -> tuple[Card, ...]:
    if not isinstance(table, dict):
        raise VariantError(source, "cards", "tables [cards.ID] with the changed values", table)
    originals = cardlist_12()
    out = []
    for key, change in table.items():
        where = f"cards.{key}"
        if not key.isdigit() or int(key) not in originals:
            raise VariantError(source, where, f"a card id of the 1.2 list (1..{CARDLIST_SIZE})", key)
        if not isinstance(change, dict):
            raise VariantError(source, where, "a table of changed values (cost = 5, ...)", change)
        values = msgspec.structs.asdict(originals[int(key)])
        for field, value in change.items():
            check = _CARD_CHECKS.get(field)
            if check is None:
                raise VariantError(source, f"{where}.{field}", f"a card field ({', '.join(_CARD_CHECKS)})",
                                   has_got=False)
            if not check.ok(value):
                raise VariantError(source, f"{where}.{field}", check.expected, value)
            values[field] = check.convert(value)
        _creature_stats(values, where, source)
        card = Card(**values)
        if card != originals[card.base_id]:
            out.append(card)
    return tuple(sorted(out, key=lambda c: c.base_id))


WEIGHT_BOUNDS = {"weight": 1e6, "multCost": 2.0, "addCost": 100.0, "mean": 100.0, "std": 100.0}
"""The largest value of each kind of generator number (a weight, a cost factor or term, a bonus
distribution's mean or spread; the official file's largest are 100, 1, 2, 1 and 2): room for any real change,
while every generated card keeps finite stats (a budget of at most 12 mana times 2 for each of its at most 10
properties, plus its bonus)."""


def _weight_number(v: object, bound: float, source: str, where: str) -> None:
    if not isinstance(v, (int, float)) or type(v) is bool or not 0 <= v <= bound:  # NaN and infinities fail
        raise VariantError(source, where, f"a number in 0..{bound:g}", v)


def _generated(tables: object, source: str) -> list[Any]:
    """``[[generated]]`` tables (``when``, ``set``, ``add``) as `engine.locm.cardweights.CardChange` values."""
    from locm.engine.locm.cardgen import change_problem
    from locm.engine.locm.cardweights import CardChange

    if not isinstance(tables, list) or not tables:
        raise VariantError(source, "generated", "[[generated]] tables, each with when, set and/or add", tables)
    out = []
    for i, table in enumerate(tables, 1):
        where = f"generated[{i}]"
        if not isinstance(table, dict) or not table.keys() <= {"when", "set", "add"} or not (
                table.keys() & {"set", "add"}):
            raise VariantError(source, where, "a table of when = {...} and set = {...} and/or add = {...}", table)
        for part in table:
            if not isinstance(table[part], dict):
                raise VariantError(source, f"{where}.{part}", "a table (e.g. { keyword = \"guard\" })",
                                   table[part])
        if "cost" in table.get("set", {}):
            raise VariantError(source, f"{where}.set.cost", "no cost change: a generated card keeps its place "
                               "(baseId) in the set sorted by cost", has_got=False)
        try:
            change = msgspec.convert(table, CardChange)
        except msgspec.ValidationError as exc:
            raise VariantError(source, where, f"fields of when (type, cost, min_cost, keyword, area, draw, "
                               f"min_draw), set (type, attack, defense, keywords, my_health, opp_health, draw, "
                               f"area, text) and add (attack, defense, my_health, opp_health, draw): {exc}",
                               has_got=False) from None
        problem = change_problem(change)
        if problem:
            raise VariantError(source, f"{where}.{problem.partition(':')[0]}", problem.partition(": expected ")[2],
                               has_got=False)
        out.append(change)
    return out


def with_card_changes(card_weights: str, changes: list[Any]) -> str:
    """A ruleset's ``card_weights`` (empty: the official file) with ``cardChanges`` (`CardChange` values)."""
    from locm.engine.locm.cardgen import official_weights

    doc = msgspec.json.decode(card_weights.encode() if card_weights else official_weights())
    doc["cardChanges"] = msgspec.to_builtins(changes)
    return msgspec.json.encode(doc).decode()


def _weights(table: object, source: str) -> str:
    from locm.engine.locm.cardgen import check_weights, official_weights

    official = msgspec.json.decode(official_weights())
    if not isinstance(table, dict):
        raise VariantError(source, "weights", "tables [weights.KEY] (keys of cardWeights-1.5.json)", table)
    merged = dict(official)
    for key, change in table.items():
        where = f"weights.{key}"
        if key not in official:
            raise VariantError(source, where, f"a key of cardWeights-1.5.json ({', '.join(official)})",
                               has_got=False)
        base = official[key]
        if not isinstance(change, dict):
            raise VariantError(source, where, "a table of changes", change)
        if isinstance(base, list):  # options by name: [weights.keywordProbabilities.guard] weight = 3
            options = {o["name"]: dict(o) for o in base}
            for opt, fields in change.items():
                if opt not in options:
                    raise VariantError(source, f"{where}.{opt}", f"an option of {key} ({', '.join(options)})",
                                       has_got=False)
                if not isinstance(fields, dict):
                    raise VariantError(source, f"{where}.{opt}", "a table of weight, multCost, addCost", fields)
                for f, v in fields.items():
                    if f not in ("weight", "multCost", "addCost"):
                        raise VariantError(source, f"{where}.{opt}.{f}", "weight, multCost or addCost",
                                           has_got=False)
                    _weight_number(v, WEIGHT_BOUNDS[f], source, f"{where}.{opt}.{f}")
                    options[opt][f] = float(v)
            merged[key] = list(options.values())
        else:
            values = dict(base)
            for k, v in change.items():
                if k not in base and key != "manaCurve":
                    raise VariantError(source, f"{where}.{k}", f"a key of {key} ({', '.join(base)})",
                                       has_got=False)
                _weight_number(v, WEIGHT_BOUNDS.get(k, WEIGHT_BOUNDS["weight"]), source, f"{where}.{k}")
                values[k] = float(v) if isinstance(base.get(k, 0.0), float) else v
            merged[key] = values
    text = msgspec.json.encode(merged).decode()
    try:
        check_weights(text)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise VariantError(source, "weights", f"weights the generator can use ({exc})", has_got=False) from None
    if merged == official:
        return ""
    return text


__all__ = ["parse_variant", "variant_from_dict", "check_rules", "VariantError", "OVERRIDABLE", "FIXED"]
