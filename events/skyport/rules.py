"""The data shapes a Skyport game carries in its `game_created`: its rules (a variant's resolved values) and its
map. Only shapes: `engine.skyport.rules` defines the built-in values, what each field means (its rule id) and
how a variant is checked; `engine.skyport.hexmap` reads and writes maps.

Fields get defaults (the 2013 server's values) and never change type (STYLE 8); decoding refuses unknown
fields.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One weapon's table, one entry per level (level 1 first): direct damage, range (laser and droid: steps;
    mortar: distance) and area damage on the six tiles around the impact (mortar and droid)."""

    damage: tuple[int, ...]
    range: tuple[int, ...]
    area: tuple[int, ...] = ()


LASER_2013 = Weapon(damage=(16, 18, 22), range=(5, 6, 7))
MORTAR_2013 = Weapon(damage=(20, 20, 25), range=(2, 3, 4), area=(18, 18, 18))
DROID_2013 = Weapon(damage=(22, 24, 26), range=(3, 4, 5), area=(10, 10, 10))


class SkyportRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every value a Skyport game runs with. See `engine.skyport.rules.FIELDS` for each field's rule."""

    name: str = "2013"
    base: str = ""  # the built-in a variant changes; empty for a built-in itself
    health: int = 100
    actions_per_turn: int = 3
    turn_limit: int = 200
    action_bonus: float = 0.2
    laser: Weapon = LASER_2013
    mortar: Weapon = MORTAR_2013
    droid: Weapon = DROID_2013
    upgrade_costs: tuple[int, ...] = (4, 5)
    tile_resources: int = 2
    kill_points: int = 20
    death_penalty: int = 40
    spawn_penalty: int = 10
    idle_penalty: int = 10
    bad_mortar_crashes: bool = True
    map: str = ""  # a built-in map's name, used when a game is created without a map of its own

    def replace(self, **changes: Any) -> "SkyportRules":
        return msgspec.structs.replace(self, **changes)

    @property
    def levels(self) -> int:
        """How many levels each weapon has (level 1, then one per upgrade cost)."""
        return len(self.upgrade_costs) + 1

    def weapon(self, name: str) -> Weapon:
        table: Weapon = getattr(self, name)
        return table


class GameMap(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A map as the server reads it from a ``.skyportmap`` file: ``rows[j][k]`` is the tile letter at (j, k)
    (G grass, V void, S spawn, E explosium, R rubidium, C scrap, O rock), ``size`` rows of ``size`` letters.
    ``players`` is the header's value, which the server ignores (it plays one robot per connection)."""

    name: str
    description: str
    players: int
    size: int
    rows: tuple[str, ...]


__all__ = ["Weapon", "SkyportRules", "GameMap", "LASER_2013", "MORTAR_2013", "DROID_2013"]
