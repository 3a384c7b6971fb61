"""Skyport's adapter for the environments: its observation encoder and the slots of its action space.

Everything else is shared: the game itself comes from its registered definition (`engine/skyport/definition.py`:
create, legal actions, whose move, phase, outcome, views, built-in agents) through `locm.rl.seam_game`, and the
environments, opponents, rewards, masks and storing from `locm.rl.env`; this module numbers the phases. Two
seats (the rules' map, else the smallest built-in map for two); two phases, each a block of the action space:

- ``loadout`` (6 slots): the primary and the secondary weapon, an ordered pair of laser, mortar and droid
  (R-LOADOUT);
- ``turn``: 0 ends the turn; then move in each of the 6 directions, mine, upgrade the primary, upgrade the
  secondary, the laser in each direction, the mortar at each relative vector its longest range reaches, and
  the droid to each tile within its longest range (by the tile's offset from the robot; the game's shortest
  route to it). 168 slots under the 2013 rules (mortar range 4: 61 vectors; droid range 5: 91 tiles).

Every slot of the mask is one of the game's `legal_actions` (one per distinct outcome), so `decide` judges
each action as the server would. Observations are what the seat may know (R-VIEW: its own resources, nobody
else's): its robot, the other robot, and the tiles around its robot; `phases(rules)` names every number.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from locm.engine.skyport.commands import EndTurn
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import (
    DIRECTION_NAMES, DIRECTIONS, RESOURCE_OF, SPAWN, WALKABLE, distance, mortar_distance,
)
from locm.engine.skyport.rules import RULES_2013, WEAPONS
from locm.engine.skyport.state import LOADOUT, TURN
from locm.events.skyport.rules import SkyportRules
from locm.rl.adapter import Phase
from locm.rl.seam_game import SeamMatch, SeamSpec

RADIUS = 3
"""The tiles within this many steps of the robot are in the observation (37 tiles)."""
LOADOUTS = tuple((a, b) for a in WEAPONS for b in WEAPONS if a != b)
ROBOT = ("health", "score", "j", "k", *(f"{w}_level" for w in WEAPONS), "dead")
"""A robot (9): health / the rules' health, score /100, position j and k / map size, each weapon's level / the
number of levels (0: not carried), destroyed and waiting to respawn."""
ME = (*ROBOT, "rubidium", "explosium", "scrap", "actions_left", "on_resource", "on_spawn")
"""The seat's own robot: `ROBOT`, its resources /5, actions left this turn / actions per turn, on a resource tile,
on its spawn tile."""
OTHER = (*ROBOT, "dj", "dk", "distance")
"""The other robot: `ROBOT`, its offset from the seat's robot / map size, its distance in steps / map size."""
TILE = ("walkable", "resource", "robot")


def _disk(radius: int) -> list[tuple[int, int]]:
    return sorted(((dj, dk) for dj in range(-radius, radius + 1) for dk in range(-radius, radius + 1)
                   if distance((0, 0), (dj, dk)) <= radius), key=lambda v: (distance((0, 0), v), v))


def _mortar_vectors(reach: int) -> list[tuple[int, int]]:
    return sorted(((dj, dk) for dj in range(-reach, reach + 1) for dk in range(-reach, reach + 1)
                   if mortar_distance(dj, dk) <= reach), key=lambda v: (abs(v[0]) + abs(v[1]), v))


def _turn_slots(rules: SkyportRules) -> list[str]:
    return (["end turn"] + [f"move {d}" for d in DIRECTION_NAMES] + ["mine", "upgrade primary", "upgrade secondary"]
            + [f"laser {d}" for d in DIRECTION_NAMES]
            + [f"mortar {dj},{dk}" for dj, dk in _mortar_vectors(max(rules.mortar.range))]
            + [f"droid to {dj},{dk}" for dj, dk in _disk(max(rules.droid.range))])


def phases(rules: SkyportRules) -> tuple[Phase, ...]:
    robots = tuple(f"me_{f}" for f in ME) + tuple(f"other_{f}" for f in OTHER)
    tiles = tuple(f"tile{dj},{dk}_{f}" for dj, dk in _disk(RADIUS) for f in TILE)
    return (Phase("loadout", len(LOADOUTS), robots + tiles, tuple(f"{a} + {b}" for a, b in LOADOUTS)),
            Phase("turn", len(_turn_slots(rules)), robots + tiles, tuple(_turn_slots(rules))))


class SkyportEncoder:
    """Skyport's `locm.rl.seam_game.Encoder` under one ruleset."""

    phase_names = (LOADOUT, TURN)

    def __init__(self, rules: SkyportRules) -> None:
        self.rules = rules
        self.phases = phases(rules)
        self._slot = {name: i for i, name in enumerate(_turn_slots(rules))}
        self._levels = rules.levels

    def slots(self, s: Any, p: int, legal: Sequence[Any]) -> tuple[list[int], list[Any]]:
        if s.phase == LOADOUT:
            index = {pair: i for i, pair in enumerate(LOADOUTS)}
            return [index[(c.primary, c.secondary)] for c in legal], list(legal)
        if s.phase != TURN:
            return [], []
        robot = s.robots[p]
        slot = self._slot
        slots: list[int] = []
        actions: list[Any] = []
        for c in legal:
            if type(c) is EndTurn:
                slots.append(0)
                actions.append(c)
                continue
            a = c.action
            kind = a["type"]
            if kind in ("move", "laser"):
                name = f"{kind} {a['direction']}"
            elif kind == "mine":
                name = "mine"
            elif kind == "upgrade":
                name = "upgrade primary" if a["weapon"] == robot.primary else "upgrade secondary"
            elif kind == "mortar":
                name = f"mortar {a['coordinates']}"
            else:  # droid: to the tile its route ends on
                j, k = robot.position
                for d in a["sequence"]:
                    dj, dk = DIRECTIONS[d]
                    j, k = j + dj, k + dk
                name = f"droid to {j - robot.position[0]},{k - robot.position[1]}"
            i = slot.get(name)
            if i is not None:
                slots.append(i)
                actions.append(c)
        return slots, actions

    def _robot(self, s: Any, r: Any) -> list[float]:
        size = s.size
        return [r.health / self.rules.health, r.score / 100, r.position[0] / size, r.position[1] / size,
                *(r.level(w) / self._levels for w in WEAPONS), 1.0 if r.needs_respawn else 0.0]

    def observe(self, s: Any, player: int) -> list[float]:
        me = s.robots[player]
        other = s.robots[1 - player]
        size = s.size
        pos = me.position
        tile = s.tile(pos)
        out = self._robot(s, me)
        left = self.rules.actions_per_turn - s.used if s.phase == TURN and s.current == player else 0
        out += [me.rubidium / 5, me.explosium / 5, me.scrap / 5, left / self.rules.actions_per_turn,
                1.0 if tile in RESOURCE_OF else 0.0, 1.0 if tile == SPAWN else 0.0]
        out += self._robot(s, other)
        dj, dk = other.position[0] - pos[0], other.position[1] - pos[1]
        out += [dj / size, dk / size, distance(pos, other.position) / size]
        robots = {r.position for r in s.robots if r.slot != player}
        for vj, vk in _disk(RADIUS):
            q = (pos[0] + vj, pos[1] + vk)
            t = s.tile(q)
            out += [1.0 if t in WALKABLE else 0.0, 1.0 if t in RESOURCE_OF else 0.0, 1.0 if q in robots else 0.0]
        return out


def _health(m: SeamMatch, p: int) -> float:
    return m.state.robots[p].health / m.state.rules.health


def _opponent_health(m: SeamMatch, p: int) -> float:
    return -m.state.robots[1 - p].health / m.state.rules.health


def _score(m: SeamMatch, p: int) -> float:
    s = m.state
    return (s.robots[p].score - s.robots[1 - p].score) / 100


class SkyportSpec(SeamSpec):
    """Skyport for two robots under one ruleset (``2013``, a rules file's path or `SkyportRules`) as a
    `GameSpec`."""

    def __init__(self, ruleset: Any = None) -> None:
        if ruleset is None or ruleset == "2013":
            rules = RULES_2013
        elif isinstance(ruleset, SkyportRules):
            rules = ruleset
        else:
            from pathlib import Path

            from locm.engine.skyport.rules import parse_variant

            path = Path(ruleset)
            rules = parse_variant(path.read_text(encoding="utf-8"), str(path), path.stem)
        super().__init__("skyport", rules, SkyportEncoder(rules),
                         {"player-health": _health, "opponent-health": _opponent_health, "score-lead": _score})

    def decisions(self, log: Sequence[Any]) -> Iterator[tuple[SeamMatch, int, Any]]:
        """A stored two-robot log played again: (match, seat, command) before each recorded command is applied.
        The match's log in the end is what the rules give."""
        from locm.engine.errors import LocmError
        from locm.engine.skyport.game import command_of
        from locm.events.skyport.catalog import CommandReceived, GameCreated

        created = log[0]
        if type(created) is not GameCreated or len(created.names) != 2:
            raise LocmError("expected the log of a two-robot Skyport game, starting with game_created")
        game = SkyportGame.new(created.names, created.seed, created.map, created.rules, created.agents)
        match = SeamMatch(self.definition, self.encoder, game, created.seed)
        for e in log[1:]:
            if type(e) is not CommandReceived or e.cause != -1 or game.over:
                continue
            command = command_of(e)
            yield match, e.player, command
            game.submit(command)


__all__ = ["SkyportSpec", "SkyportEncoder", "phases", "LOADOUTS"]
