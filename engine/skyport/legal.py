"""The actions a player may take now, one per distinct outcome: the one list both the built-in agents and the
property tests play from (STYLE 5).

Every action listed is carried out by the rules (none is refused): moves onto free walkable tiles, mining on a
resource tile, the upgrades the player can pay, and, off the spawn tile, the laser in six directions, the mortar
at every tile in range (one vector per landing tile) and the droid to every tile it can reach (one shortest
sequence per tile, the empty one included). Anything else a client may send is refused or is one of these
outcomes by another route (a longer droid sequence, a mortar vector that the edge cuts short).
"""

from __future__ import annotations

import functools
from typing import Any

from locm.engine.skyport.commands import droid, laser, mine, mortar, move, upgrade
from locm.engine.skyport.hexmap import (
    DIRECTION_NAMES, RESOURCE_OF, ROCK, SPAWN, VOID, WALKABLE, Pos, clamp_walk, mortar_distance, step,
)
from locm.engine.skyport.rules import RESOURCE_OF_WEAPON
from locm.engine.skyport.state import TURN, SkyportState


def legal_actions(state: SkyportState, player: int) -> list[dict[str, Any]]:
    """The actions `player` may take now (empty when it is not its turn)."""
    if state.phase != TURN or state.current != player:
        return []
    robot = state.robots[player]
    pos = robot.position
    out: list[dict[str, Any]] = []
    for d in DIRECTION_NAMES:
        to = step(pos, d)
        if state.tile(to) in WALKABLE and state.occupant(to) < 0:
            out.append(move(d))
    if state.tile(pos) in RESOURCE_OF:
        out.append(mine())
    costs = state.rules.upgrade_costs
    for weapon in (robot.primary, robot.secondary):
        level = robot.level(weapon)
        if 0 < level <= len(costs) and robot.resource(RESOURCE_OF_WEAPON[weapon]) >= costs[level - 1]:
            out.append(upgrade(weapon))
    if state.tile(pos) == SPAWN:
        return out
    if robot.level("laser"):
        out.extend(laser(d) for d in DIRECTION_NAMES)
    level = robot.level("mortar")
    if level:
        for vector in mortar_vectors(state, pos, state.rules.mortar.range[level - 1]):
            out.append(mortar(*vector))
    level = robot.level("droid")
    if level:
        out.extend(droid(seq) for seq in droid_routes(state, pos, state.rules.droid.range[level - 1]).values())
    return out


def mortar_vectors(state: SkyportState, pos: Pos, reach: int) -> list[Pos]:
    """One relative vector in range per tile a shell can land on, the shortest first."""
    seen: dict[Pos, Pos] = {}
    for vector in _vectors_in_range(reach):
        target = clamp_walk(pos, vector, state.size)
        if target not in seen:
            seen[target] = vector
    return list(seen.values())


@functools.cache
def _vectors_in_range(reach: int) -> tuple[Pos, ...]:
    """Every vector the mortar reaches at this range, shortest first (then by value)."""
    vectors = [(dj, dk) for dj in range(-reach, reach + 1) for dk in range(-reach, reach + 1)
               if mortar_distance(dj, dk) <= reach]
    return tuple(sorted(vectors, key=lambda v: (abs(v[0]) + abs(v[1]), v)))


def droid_routes(state: SkyportState, pos: Pos, reach: int) -> dict[Pos, tuple[str, ...]]:
    """A shortest step sequence (at most `reach` steps) to every tile a droid can reach from `pos`, by tile."""
    routes: dict[Pos, tuple[str, ...]] = {pos: ()}
    frontier = [pos]
    for _ in range(reach):
        nxt = []
        for p in frontier:
            for d in DIRECTION_NAMES:
                q = step(p, d)
                if q not in routes and state.tile(q) not in ("", SPAWN, ROCK, VOID):
                    routes[q] = routes[p] + (d,)
                    nxt.append(q)
        frontier = nxt
    return routes


__all__ = ["legal_actions", "mortar_vectors", "droid_routes"]
