"""Skyport's answers for `locm audit --seq S` (its wing's hook, `replay.skyport.wing`): the
questions its players ask, answered from the log and its map alone.

- "Why did my laser not hit?" (a ``laser_fired`` or one of its hits): where the beam went, why it stopped
  there (the rock on the next tile, the map's edge, or its range), whom it hit, and every other robot on its
  line (behind the rock, out of range) or not on it at all.
- "Why -10?" (a ``penalized``): the rule, and its cause in this game: the turn without a carried-out action
  (each refused action and why), the turn ended on the spawn tile, or the robot's destruction (by whom).
- A mortar that did not explode: the tile it landed on.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from typing import Any

from locm.engine.skyport.hexmap import DIRECTIONS, ROCK, TILE_NAMES, on_map, step
from locm.events.skyport.catalog import (ActionRejected, AreaHit, Died, Hit, HitAbsorbed, LaserFired,
                                         MortarFired, Penalized, TurnEnded, TurnStarted)
from locm.replay.game import Replay


@lru_cache(maxsize=1)
def _rules() -> dict[str, str]:
    text = (files("locm.data") / "skyport" / "RULES.md").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        out[head.split()[0]] = " ".join(line.strip("- ").strip() for line in body.strip().splitlines())
    return out


def rule_text(rule_id: str) -> str:
    return f"{rule_id}: {_rules().get(rule_id, '(no text)')}"


def _pos(p: Any) -> str:
    return f"({p[0]}, {p[1]})"


def _laser(r: Replay, shot: LaserFired) -> list[str]:
    before = r.history.state_at(shot.seq - 1)
    rules = before.rules
    rng = rules.laser.range[shot.level - 1]
    d = DIRECTIONS[shot.direction]
    out = [f"P{shot.player}'s laser (level {shot.level}, range {rng}) fired {shot.direction} from "
           f"{_pos(shot.start)}: the beam crossed {len(shot.path)} tile(s) "
           + " ".join(_pos(p) for p in shot.path) + "."]
    nxt = step(tuple(shot.stop), shot.direction)
    if len(shot.path) >= rng:
        out.append(f"It stopped at {_pos(shot.stop)}: its range, {rng} tiles at level {shot.level} (R-LASER).")
    elif not on_map(nxt, before.size):
        out.append(f"It stopped at {_pos(shot.stop)}: the next tile {_pos(nxt)} is off the map's edge (R-LASER).")
    elif before.tile(nxt) == ROCK:
        out.append(f"It stopped at {_pos(shot.stop)}: the next tile {_pos(nxt)} is rock; the beam stops before "
                   "a rock (R-LASER).")
    hits = [e for e in r.events[shot.seq + 1:_next_shot(r, shot.seq)] if isinstance(e, (Hit, HitAbsorbed))]
    for h in hits:
        if type(h) is Hit:
            out.append(f"It hit P{h.player} on {_pos(h.position)} for {h.amount} (health {h.health} after) "
                       "(R-DAMAGE; every robot on the beam is hit).")
        else:
            why = "it stood on a spawn tile (R-SPAWN-SAFE)" if h.reason == "spawn" else \
                "it was a destroyed robot's body (R-BODY)"
            out.append(f"It reached P{h.player} on {_pos(h.position)} but did no damage: {why}.")
    if not hits:
        out.append("No robot stood on the beam's tiles.")
    hit = {h.player for h in hits}
    for robot in before.robots:
        if robot.slot == shot.player or robot.slot in hit:
            continue
        dj, dk = robot.position[0] - shot.start[0], robot.position[1] - shot.start[1]
        n = next((i for i in range(1, 2 * before.size) if (d[0] * i, d[1] * i) == (dj, dk)), 0)
        if n == 0:
            out.append(f"P{robot.slot} on {_pos(robot.position)} was not on the line {shot.direction} from "
                       f"{_pos(shot.start)}.")
            continue
        line = [(shot.start[0] + d[0] * i, shot.start[1] + d[1] * i) for i in range(1, n)]
        rock = next((p for p in line if before.tile(p) == ROCK), None)
        if rock is not None:
            out.append(f"P{robot.slot} on {_pos(robot.position)} was on the line, {n} tiles away, behind the rock "
                       f"on {_pos(rock)}.")
        else:
            out.append(f"P{robot.slot} on {_pos(robot.position)} was on the line but {n} tiles away: out of range "
                       f"({rng}).")
    return out


def _next_shot(r: Replay, seq: int) -> int:
    for e in r.events[seq + 1:]:
        if isinstance(e, (LaserFired, MortarFired, TurnEnded, TurnStarted)) or type(e).__name__ == "DroidFired":
            return e.seq
    return len(r.events)


def _shot_of(r: Replay, seq: int) -> Any:
    for e in reversed(r.events[:seq + 1]):
        if isinstance(e, (LaserFired, MortarFired)) or type(e).__name__ == "DroidFired":
            return e
        if type(e) is TurnStarted:
            return None
    return None


def _penalty(r: Replay, e: Penalized) -> list[str]:
    out = [f"P{e.player} lost {e.points} points: {rule_text(e.rule)}"]
    turn = next((t for t in reversed(r.events[:e.seq]) if type(t) is TurnStarted), None)
    if e.reason == "idle":
        rejected = [a for a in r.events[(turn.seq if turn else 0):e.seq] if type(a) is ActionRejected]
        if not rejected:
            out.append(f"In this turn (turn {turn.turn if turn else '?'}) P{e.player} sent no action before its "
                       "turn ended.")
        for a in rejected:
            out.append(f"Its action {a.index + 1} ({a.action}) was refused: {a.reason} ({a.rule})"
                       + (f", the server said {a.error!r}" if a.error else "") + ".")
    elif e.reason == "spawn":
        robot = r.history.state_at(e.seq).robots[e.player]
        out.append(f"P{e.player}'s turn (turn {turn.turn if turn else '?'}) ended with its robot on its spawn tile "
                   f"{_pos(robot.spawn)}; moving off it before the turn ends avoids this.")
    elif e.reason == "death":
        died = next((d for d in reversed(r.events[:e.seq]) if type(d) is Died and d.player == e.player), None)
        if died is not None:
            who = "itself" if died.by == e.player else f"P{died.by}"
            out.append(f"P{e.player} was destroyed on {_pos(died.position)} by {who} (seq {died.seq}).")
    return out


def why(r: Replay, seq: int) -> list[str]:
    """The answer to the question event `seq` raises (empty when it raises none this module answers)."""
    e = r.events[seq]
    if type(e) is Penalized:
        return _penalty(r, e)
    shot = _shot_of(r, seq) if isinstance(e, (LaserFired, MortarFired, Hit, AreaHit, HitAbsorbed)) \
        or type(e).__name__ == "DroidFired" else None
    if type(shot) is LaserFired:
        return _laser(r, shot)
    if type(shot) is MortarFired and not shot.exploded:
        tile = r.history.state_at(shot.seq).tile(tuple(shot.target))
        return [f"P{shot.player}'s mortar landed on {_pos(shot.target)}, a {TILE_NAMES.get(tile, tile).lower()} "
                "tile: on rock, void or a spawn tile it does not explode (R-MORTAR)."]
    return []


__all__ = ["why", "rule_text"]
