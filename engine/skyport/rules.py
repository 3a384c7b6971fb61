"""Skyport's rules as data: the built-in ``2013`` values (the official server's), what each field means, variants
checked on load, and the built-in maps.

A variant is a TOML text naming its base and changing any field of `SkyportRules` by its own name; a weapon's
table is a sub-table::

    base = "2013"
    name = "glass-cannon"
    health = 60
    actions_per_turn = 4
    map = "crossroads-4p"

    [laser]
    damage = [20, 24, 30]

The text is checked as a whole before anything runs; the first problem is one `VariantError` line naming the
source, the field and what was expected. Ranges keep every accepted value playable (a test plays random
games under random variants). This module reads the package's own data (the built-in maps) and never opens a
user's file (the command line does).
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import Any, Callable, NamedTuple

import msgspec

from locm.engine.errors import LocmError
from locm.engine.skyport.hexmap import MapError, parse_map
from locm.events.skyport.rules import GameMap, SkyportRules, Weapon

RULES_2013 = SkyportRules()
"""The official 2013 competition server (``pilsprog/skyport-logic`` cf40a95), turn limit as the oracle runs
it (200 player-turns; the 2013 server stops by wall-clock time)."""

BUILTIN = {"2013": RULES_2013}
WEAPONS = ("laser", "mortar", "droid")
RESOURCE_OF_WEAPON = {"laser": "rubidium", "mortar": "explosium", "droid": "scrap"}

FIELDS: dict[str, tuple[str, str]] = {
    "health": ("R-DEATH", "health a robot starts and respawns with"),
    "actions_per_turn": ("R-ACTIONS", "actions a player may use in one turn"),
    "turn_limit": ("R-END", "player-turns in a game (the game ends before turn turn_limit + 1)"),
    "action_bonus": ("R-BONUS", "extra damage per unused action, as a fraction of the weapon's damage"),
    "laser": ("R-LASER", "laser damage and range by level"),
    "mortar": ("R-MORTAR", "mortar damage, range and area damage by level"),
    "droid": ("R-DROID", "droid damage, steps and area damage by level"),
    "upgrade_costs": ("R-UPGRADE", "resources to reach level 2, 3, ... (one level per cost)"),
    "tile_resources": ("R-MINE", "units a resource tile holds before it turns into grass"),
    "kill_points": ("R-KILL", "points for destroying another robot"),
    "death_penalty": ("R-DEATH", "points lost when your robot is destroyed"),
    "spawn_penalty": ("R-SPAWN-PENALTY", "points lost for ending your turn on your spawn tile"),
    "idle_penalty": ("R-IDLE", "points lost for a turn without a valid action"),
    "bad_mortar_crashes": ("R-MORTAR-CRASH", "a mortar whose coordinates are not 'int,int' stops the game, "
                                             "as it killed the 2013 server (false: the action is refused)"),
    "map": ("R-MAP", "the built-in map a game is played on when none is given"),
}


class VariantError(LocmError):
    """Skyport rules that cannot be used: ``source``, ``field`` (dotted) and what was expected, in one line."""

    def __init__(self, source: str, field: str, expected: str, got: object = None) -> None:
        self.source, self.field, self.expected = source, field, expected
        where = f"{source}: {field}: " if field else f"{source}: "
        tail = "" if got is None else f", got {repr(got)[:60]}"
        super().__init__(f"{where}expected {expected}{tail}")


class UnknownMap(LocmError):
    """A map name that is not one of the built-in maps."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown map {name!r}: expected one of {', '.join(builtin_map_names())} or a "
                         ".skyportmap file")


# --- maps ---------------------------------------------------------------------------------------------------


def builtin_map_names() -> list[str]:
    folder = files("locm.data") / "skyport" / "maps"
    return sorted(p.name.removesuffix(".skyportmap") for p in folder.iterdir() if p.name.endswith(".skyportmap"))


def builtin_map(name: str) -> GameMap:
    """A map shipped in ``data/skyport/maps`` by its name (the file's stem)."""
    if name not in builtin_map_names():
        raise UnknownMap(name)
    text = (files("locm.data") / "skyport" / "maps" / f"{name}.skyportmap").read_text(encoding="utf-8")
    return parse_map(text, name, f"{name}.skyportmap")


# --- checks ---------------------------------------------------------------------------------------------------


class _Check(NamedTuple):
    expected: str
    ok: Callable[[Any], bool]


def _int(lo: int, hi: int) -> _Check:
    return _Check(f"an integer in {lo}..{hi}", lambda v: type(v) is int and lo <= v <= hi)


def _ints(lo: int, hi: int, length: int | None, what: str = "") -> _Check:
    count = f"{length} " if length is not None else ""
    return _Check(f"a list of {count}integers in {lo}..{hi}{what}",
                  lambda v: isinstance(v, (list, tuple)) and (length is None or len(v) == length)
                  and all(type(x) is int and lo <= x <= hi for x in v))


_SCALARS: dict[str, _Check] = {
    "health": _int(1, 10_000),
    "actions_per_turn": _int(1, 10),
    "turn_limit": _int(1, 100_000),
    "action_bonus": _Check("a number in 0..10", lambda v: type(v) in (int, float) and 0 <= v <= 10),
    "tile_resources": _int(1, 1000),
    "kill_points": _int(0, 10_000),
    "death_penalty": _int(0, 10_000),
    "spawn_penalty": _int(0, 10_000),
    "idle_penalty": _int(0, 10_000),
    "bad_mortar_crashes": _Check("true or false", lambda v: type(v) is bool),
}
_RANGES = {"laser": (0, 50), "mortar": (0, 20), "droid": (0, 50)}
TOP_KEYS = ("base", "name", "map", "upgrade_costs") + tuple(_SCALARS) + WEAPONS


def parse_variant(text: str, source: str = "<rules>", default_name: str = "") -> SkyportRules:
    """The rules a variant's TOML text gives; `source` names it in errors."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(source, "", f"a TOML document ({exc})") from None
    return variant_from_dict(doc, source, default_name)


def variant_from_dict(doc: dict[str, Any], source: str = "<rules>", default_name: str = "") -> SkyportRules:
    """As `parse_variant`, from the decoded table."""
    for key in doc:
        if key not in TOP_KEYS:
            raise VariantError(source, key, "a field of the Skyport rules (" + ", ".join(TOP_KEYS) + ")")
    base_name = doc.get("base", "2013")
    if not isinstance(base_name, str) or base_name not in BUILTIN:
        raise VariantError(source, "base", "one of " + ", ".join(BUILTIN), base_name)
    base = BUILTIN[base_name]
    name = doc.get("name", default_name or "variant")
    if not isinstance(name, str) or not name or len(name) > 64 or not name.isprintable():
        raise VariantError(source, "name", "a name of 1 to 64 printable characters", name)
    changes: dict[str, Any] = {"name": name, "base": base_name}
    for key, check in _SCALARS.items():
        if key in doc:
            if not check.ok(doc[key]):
                raise VariantError(source, key, check.expected, doc[key])
            changes[key] = float(doc[key]) if key == "action_bonus" else doc[key]
    costs = doc.get("upgrade_costs", list(base.upgrade_costs))
    check = _ints(0, 10_000, None, ", at most 5 (one per upgrade)")
    if not check.ok(costs) or len(costs) > 5:
        raise VariantError(source, "upgrade_costs", check.expected, costs)
    changes["upgrade_costs"] = tuple(costs)
    levels = len(costs) + 1
    for weapon in WEAPONS:
        changes[weapon] = _weapon(doc.get(weapon, {}), base.weapon(weapon), weapon, levels, source)
    if "map" in doc:
        if not isinstance(doc["map"], str) or doc["map"] not in builtin_map_names():
            raise VariantError(source, "map", "one of " + ", ".join(builtin_map_names()), doc["map"])
        changes["map"] = doc["map"]
    return base.replace(**changes)


def _weapon(table: Any, base: Weapon, weapon: str, levels: int, source: str) -> Weapon:
    if not isinstance(table, dict):
        raise VariantError(source, weapon, "a table with damage, range" + ("" if weapon == "laser" else ", area"))
    allowed = ("damage", "range") if weapon == "laser" else ("damage", "range", "area")
    for key in table:
        if key not in allowed:
            raise VariantError(source, f"{weapon}.{key}", "one of " + ", ".join(allowed))
    values: dict[str, tuple[int, ...]] = {}
    for key in allowed:
        lo, hi = _RANGES[weapon] if key == "range" else (0, 10_000)
        check = _ints(lo, hi, levels, f" (one per level: {levels} levels)")
        inherited = list(getattr(base, key))
        if key not in table and len(inherited) < levels:  # the base's table is too short: it must be given
            raise VariantError(source, f"{weapon}.{key}", check.expected + f"; the base has {len(inherited)} levels")
        value = table.get(key, inherited[:levels])  # fewer levels than the base: its first ones
        if not check.ok(value):
            raise VariantError(source, f"{weapon}.{key}", check.expected, value)
        values[key] = tuple(value)
    return Weapon(**values)


def check_rules(rules: SkyportRules, source: str = "<rules>") -> SkyportRules:
    """`rules` if every value is one a variant may have (a `SkyportRules` built in code is checked the same
    way as a file), else `VariantError`."""
    doc = msgspec.to_builtins(rules)
    doc.pop("base", None)
    if not doc["laser"].get("area"):
        doc["laser"].pop("area", None)
    if not doc.get("map"):
        doc.pop("map", None)
    checked = variant_from_dict({**doc, "base": "2013"}, source)
    return checked.replace(name=rules.name, base=rules.base)


def describe_rules(rules: SkyportRules) -> dict[str, Any]:
    """Each value of `rules` with its rule id: ``{field: (rule, value)}``."""
    values = msgspec.to_builtins(rules)
    return {k: (FIELDS[k][0], values[k]) for k in FIELDS}


__all__ = ["RULES_2013", "BUILTIN", "WEAPONS", "RESOURCE_OF_WEAPON", "FIELDS", "VariantError", "UnknownMap",
           "builtin_map_names", "builtin_map", "parse_variant", "variant_from_dict", "check_rules",
           "describe_rules", "MapError"]
