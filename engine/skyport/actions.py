"""One action of the player to move, as the 2013 server carries it out: move, mine, upgrade, laser, mortar, droid
(R-ACTIONS .. R-DROID), the damage they deal, the points and deaths that follow (R-DAMAGE .. R-DEATH).

Each handler reads the action object's fields as the server does (org.json's ``getString`` is strict: a
number is "not a string"), checks in the server's order, and emits either the facts or one `ActionRejected`
with the error the server sends, or "" where it stays silent (R-ERRORS). `perform` returns whether the action
was carried out and whether it was a shot (a valid shot ends the turn, R-ACTIONS).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from locm.engine.skyport.emit import Out
from locm.engine.skyport.hexmap import (
    DIRECTIONS, RESOURCE_OF, ROCK, SPAWN, TILE_NAMES, VOID, WALKABLE, Pos, clamp_walk, mortar_distance,
    neighbours, on_map, step,
)
from locm.engine.skyport.orgjson import parse_java_int, quote
from locm.engine.skyport.rules import RESOURCE_OF_WEAPON
from locm.events.skyport.catalog import (
    ActionRejected, AreaHit, Died, DroidFired, Hit, HitAbsorbed, LaserFired, Mined, Moved, MortarFired, Penalized,
    Scored, TileDepleted, Upgraded,
)

SHOTS = ("laser", "mortar", "droid")
Reject = Callable[..., tuple[bool, bool]]
"""Emits the refusal of the action at hand (rule, reason, error, warning) and returns (False, False)."""


class MissingField(Exception):
    """org.json's JSONException for one field (absent, or not of the type asked): ``str()`` is its message."""


def get_string(obj: dict[str, Any], key: str) -> str:
    """org.json's ``getString``: the field's string, else `MissingField` with org.json's message."""
    if key not in obj:
        raise MissingField(f"JSONObject[{quote(key)}] not found.")
    value = obj[key]
    if not isinstance(value, str):
        raise MissingField(f"JSONObject[{quote(key)}] not a string.")
    return value


def java_round(x: float) -> int:
    """Java's ``Math.round`` of a double: the nearest integer, halves up."""
    r = math.floor(x)
    return int(r) + 1 if x - r >= 0.5 else int(r)


def bonus_damage(base: int, unused: int, bonus: float) -> int:
    """A weapon's damage with `unused` actions left (R-BONUS): ``round(base + bonus·unused·base)``, in the
    server's order of double operations."""
    return java_round(base + bonus * unused * base)


def perform(out: Out, player: int, action: dict[str, Any], index: int, text: str) -> tuple[bool, bool]:
    """Carry out one action; returns (valid, a shot). ``(False, False)`` with the game ended means the
    action stopped the server (R-MORTAR-CRASH)."""
    unused = out.state.rules.actions_per_turn - 1 - index

    def reject(rule: str, reason: str, error: str = "", warning: str = "") -> tuple[bool, bool]:
        out.emit(ActionRejected, rule, player=player, index=index, action=text, reason=reason, error=error,
                 warning=warning)
        return False, False

    try:
        kind = get_string(action, "type")
    except MissingField:
        return reject("R-ACTIONS", "no-type")
    robot = out.state.robots[player]
    if kind == "move":
        return _move(out, player, action, reject)
    if kind in SHOTS:
        if out.state.tile(robot.position) == SPAWN:
            return reject("R-SPAWN-SAFE", "from-spawn")
        level = robot.level(kind)
        if level == 0:
            return reject("R-LOADOUT", "weapon-not-carried")
        if kind == "laser":
            valid = _laser(out, player, action, level, unused, reject)
        elif kind == "mortar":
            valid = _mortar(out, player, action, level, unused, reject)
        else:
            valid = _droid(out, player, action, level, unused, reject)
        return valid, valid
    if kind == "mine":
        tile = out.state.tile(robot.position)
        if tile not in RESOURCE_OF:
            return reject("R-MINE", "not-on-resource", "Tried to mine while not on a resource tile!")
        resource = RESOURCE_OF[tile]
        left = out.state.resources_left(robot.position) - 1
        out.emit(Mined, "R-MINE", player=player, resource=resource, position=robot.position, left=left,
                 total=robot.resource(resource) + 1)
        if left == 0:
            out.emit(TileDepleted, "R-MINE", position=robot.position, resource=resource)
        return True, False
    if kind == "upgrade":
        try:
            weapon = get_string(action, "weapon")
        except MissingField:
            return reject("R-UPGRADE", "no-weapon")
        level = robot.level(weapon) if weapon in RESOURCE_OF_WEAPON else 0
        if level == 0:
            return reject("R-UPGRADE", "weapon-not-carried")
        costs = out.state.rules.upgrade_costs
        if level > len(costs):
            return reject("R-UPGRADE", "max-level")
        resource = RESOURCE_OF_WEAPON[weapon]
        if robot.resource(resource) < costs[level - 1]:
            return reject("R-UPGRADE", "not-enough")
        out.emit(Upgraded, "R-UPGRADE", player=player, weapon=weapon, level=level + 1, resource=resource,
                 cost=costs[level - 1])
        return True, False
    return reject("R-ACTIONS", "unknown-type", f"Invalid action: {kind}")


def _move(out: Out, player: int, action: dict[str, Any], reject: Reject) -> tuple[bool, bool]:
    state = out.state
    try:
        direction = get_string(action, "direction")
    except MissingField as exc:
        return reject("R-MOVE", "no-direction", f"Invalid move packet: {exc}")
    if direction not in DIRECTIONS:
        return reject("R-MOVE", "bad-direction",
                      f"Invalid move packet: Invalid direction: '{direction}'")
    origin = state.robots[player].position
    to = step(origin, direction)
    tile = state.tile(to)
    if not tile:
        return reject("R-MOVE", "off-map",
                      f"Invalid move packet: Invalid move: tile {direction} is not accessible (outside of map)")
    if tile not in WALKABLE:
        return reject("R-MOVE", "not-walkable",
                      f"Invalid move packet: Invalid move: {TILE_NAMES[tile]} tile is not accessible")
    other = state.occupant(to)
    if other >= 0:  # a robot, or a destroyed robot's body (R-BODY)
        return reject("R-MOVE" if state.robots[other].alive else "R-BODY", "occupied",
                      f"Invalid move packet: Player {state.robots[other].name} is already on this tile.")
    out.emit(Moved, "R-MOVE", player=player, direction=direction, origin=origin, to=to)
    return True, False


def _laser(out: Out, player: int, action: dict[str, Any], level: int, unused: int, reject: Reject) -> bool:
    state = out.state
    try:
        direction = get_string(action, "direction")
    except MissingField:
        reject("R-LASER", "no-direction", "Invalid shot: lacks a direction key")
        return False
    if direction not in DIRECTIONS:
        reject("R-LASER", "bad-direction", f"Invalid shot: unknown direction '{direction}'")
        return False
    table = state.rules.laser
    damage = bonus_damage(table.damage[level - 1], unused, state.rules.action_bonus)
    start = cur = state.robots[player].position
    path = []
    for _ in range(table.range[level - 1]):
        nxt = step(cur, direction)
        if not on_map(nxt, state.size) or state.tile(nxt) == ROCK:
            break
        cur = nxt
        path.append(cur)
    out.emit(LaserFired, "R-LASER", player=player, direction=direction, level=level, start=start, stop=cur,
             path=tuple(path), damage=damage, unused=unused)
    for pos in path:
        damage_tile(out, pos, damage, player, "laser", area=False)
    return True


def parse_vector(text: str) -> Pos | None:
    """The server's ``new Coordinate(text)``: ``split(",")``, then ``Integer.parseInt`` of the first two parts
    (more are ignored); None where Java throws (R-MORTAR-CRASH)."""
    parts = text.split(",") if "," in text else [text]
    while parts and parts[-1] == "" and "," in text:
        parts.pop()  # Java's split drops trailing empty strings
    if len(parts) < 2:
        return None
    j, k = parse_java_int(parts[0]), parse_java_int(parts[1])
    if j is None or k is None:
        return None
    return j, k


def _mortar(out: Out, player: int, action: dict[str, Any], level: int, unused: int, reject: Reject) -> bool:
    state = out.state
    rules = state.rules
    try:
        text = get_string(action, "coordinates")
    except MissingField:
        reject("R-MORTAR", "no-coordinates", "Invalid shot: lacks 'coordinates' key")
        return False
    vector = parse_vector(text)
    if vector is None:
        if rules.bad_mortar_crashes:
            out.crash(player)
        else:
            reject("R-MORTAR-CRASH", "bad-coordinates", f"Invalid shot: coordinates '{text}' are not 'j,k'")
        return False
    if mortar_distance(*vector) > rules.mortar.range[level - 1]:
        reject("R-MORTAR", "out-of-range")
        return False
    damage = bonus_damage(rules.mortar.damage[level - 1], unused, rules.action_bonus)
    area = bonus_damage(rules.mortar.area[level - 1], unused, rules.action_bonus)
    position = state.robots[player].position
    target = clamp_walk(position, vector, state.size)
    exploded = state.tile(target) not in (ROCK, VOID, SPAWN)
    out.emit(MortarFired, "R-MORTAR", player=player, level=level, vector=vector, target=target, exploded=exploded,
             damage=damage, area_damage=area, unused=unused)
    if exploded:
        _explode(out, target, damage, area, player, "mortar")
    return True


def _droid(out: Out, player: int, action: dict[str, Any], level: int, unused: int, reject: Reject) -> bool:
    state = out.state
    rules = state.rules
    sequence = action.get("sequence")
    if not isinstance(sequence, list):
        reject("R-DROID", "no-sequence", "Invalid shot: lacks a direction key")
        return False
    reach = rules.droid.range[level - 1]
    warning = ""
    if len(sequence) > reach:
        warning = (f"Got {len(sequence)} commands for the droid, but your droids level ({level}) only supports "
                   f"{reach} steps.")
    if not all(isinstance(s, str) and s in DIRECTIONS for s in sequence):
        reject("R-DROID", "bad-sequence", "Invalid shot: unknown direction in droid sequence", warning)
        return False
    cur = state.robots[player].position
    path = []
    for direction in sequence[:reach]:
        nxt = step(cur, direction)
        if state.tile(nxt) in ("", SPAWN, ROCK, VOID):
            break
        cur = nxt
        path.append(cur)
    damage = bonus_damage(rules.droid.damage[level - 1], unused, rules.action_bonus)
    area = bonus_damage(rules.droid.area[level - 1], unused, rules.action_bonus)
    out.emit(DroidFired, "R-DROID", player=player, level=level, steps=tuple(sequence[:len(path)]),
             requested=len(sequence), path=tuple(path), target=cur, damage=damage, area_damage=area, unused=unused,
             warning=warning)
    _explode(out, cur, damage, area, player, "droid")
    return True


def _explode(out: Out, target: Pos, damage: int, area: int, by: int, weapon: str) -> None:
    damage_tile(out, target, damage, by, weapon, area=False)
    for pos in neighbours(target, out.state.size):
        damage_tile(out, pos, area, by, weapon, area=True)


def damage_tile(out: Out, pos: Pos, amount: int, by: int, weapon: str, area: bool) -> None:
    """A tile takes `amount` (R-DAMAGE, R-AOE): the robot on it, if any, loses that much health unless it
    stands on a spawn tile (R-SPAWN-SAFE) or is already destroyed (R-BODY); the shooter scores the full amount
    unless it hit itself (R-POINTS), and a kill follows at 0 health (R-KILL, R-DEATH)."""
    state = out.state
    victim = state.occupant(pos)
    if victim < 0:
        return
    if state.tile(pos) == SPAWN:
        out.emit(HitAbsorbed, "R-SPAWN-SAFE", player=victim, by=by, weapon=weapon, position=pos, reason="spawn")
        return
    robot = state.robots[victim]
    if robot.health <= 0:
        out.emit(HitAbsorbed, "R-BODY", player=victim, by=by, weapon=weapon, position=pos, reason="dead")
        return
    health = robot.health - amount
    cls = AreaHit if area else Hit
    out.emit(cls, "R-AOE" if area else "R-DAMAGE", player=victim, by=by, weapon=weapon, position=pos,
             amount=amount, health=max(0, health))
    other = state.robots[by].name != robot.name  # "yourself" is the same name (R-POINTS)
    if other:
        out.emit(Scored, "R-POINTS", player=by, points=amount, reason="damage", victim=victim)
    if health <= 0:
        out.emit(Died, "R-DEATH", player=victim, by=by, position=pos)
        if other:
            out.emit(Scored, "R-KILL", player=by, points=state.rules.kill_points, reason="kill", victim=victim)
        out.emit(Penalized, "R-DEATH", player=victim, points=state.rules.death_penalty, reason="death")


__all__ = ["SHOTS", "Reject", "MissingField", "get_string", "java_round", "bonus_damage", "perform", "parse_vector",
           "damage_tile"]
