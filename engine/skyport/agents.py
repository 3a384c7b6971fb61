"""Built-in Skyport players, each seeded and deterministic (its own ``java.util.Random``, never the game's).

- `random`: a random loadout, then, action by action, a uniformly random choice among `legal_actions` and
  ending the turn.
- `hunter`: laser and mortar; fires the shot that does the most damage to other robots (its own damage
  counted against it), otherwise walks toward the nearest robot it can hurt, mining and upgrading on the way
  when there is nobody to reach.

An agent reads only what its player may know (`engine.skyport.state.view`): positions, health, scores, weapons
and the map; resource counts of its own robot only.
"""

from __future__ import annotations

from typing import Any

from locm.engine.errors import LocmError
from locm.engine.jrandom import JavaRandom
from locm.engine.skyport.commands import Act, ChooseLoadout, Command, EndTurn, move
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import (
    DIRECTION_NAMES, ROCK, SPAWN, WALKABLE, Pos, clamp_walk, neighbours, on_map, step,
)
from locm.engine.skyport.legal import legal_actions
from locm.engine.skyport.rules import WEAPONS
from locm.engine.skyport.state import LOADOUT, TURN, SkyportState

AGENT_NAMES = ("random", "hunter")
_LOADOUTS = [(a, b) for a in WEAPONS for b in WEAPONS if a != b]


class UnknownAgent(LocmError):
    """An agent name that is not a built-in Skyport agent."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown Skyport agent {name!r}: expected one of {', '.join(AGENT_NAMES)}")


class Agent:
    name = "agent"

    def __init__(self, seed: int) -> None:
        self.rng = JavaRandom(seed)

    def loadout(self, state: SkyportState, player: int) -> tuple[str, str]:
        return _LOADOUTS[self.rng.next_int(len(_LOADOUTS))]

    def act(self, state: SkyportState, player: int) -> Command:
        raise NotImplementedError

    def command(self, state: SkyportState, player: int) -> Command:
        """This agent's next command as `player`."""
        if state.phase == LOADOUT:
            return ChooseLoadout(player, *self.loadout(state, player))
        return self.act(state, player)


class RandomAgent(Agent):
    name = "random"

    def act(self, state: SkyportState, player: int) -> Command:
        options = legal_actions(state, player)
        i = self.rng.next_int(len(options) + 1)
        return EndTurn(player) if i == len(options) else Act(player, options[i])


class HunterAgent(Agent):
    name = "hunter"

    def loadout(self, state: SkyportState, player: int) -> tuple[str, str]:
        return "laser", "mortar"

    def act(self, state: SkyportState, player: int) -> Command:
        options = legal_actions(state, player)
        best, best_value = None, 0
        for action in options:
            if action["type"] in ("laser", "mortar", "droid"):
                value = shot_value(state, player, action)
                if value > best_value or (value == best_value and best is not None and self.rng.next_int(2)):
                    best, best_value = action, value
        if best is not None:
            return Act(player, best)
        robot = state.robots[player]
        targets = {r.position for r in state.robots
                   if r.slot != player and r.alive and state.tile(r.position) != SPAWN}
        first = first_step_toward(state, robot.position, targets)
        if first is not None:
            return Act(player, move(first))
        for action in options:
            if action["type"] in ("upgrade", "mine"):
                return Act(player, action)
        moves = [a for a in options if a["type"] == "move"]
        if moves:
            return Act(player, moves[self.rng.next_int(len(moves))])
        return EndTurn(player)


def shot_value(state: SkyportState, player: int, action: dict[str, Any]) -> int:
    """Damage a shot would deal to other robots minus twice what it would deal to the shooter (bonus for
    unused actions left out: it scales every shot alike)."""
    robot = state.robots[player]
    kind = action["type"]
    level = robot.level(kind)
    table = state.rules.weapon(kind)
    hits: list[tuple[Pos, int]] = []
    if kind == "laser":
        cur = robot.position
        for _ in range(table.range[level - 1]):
            nxt = step(cur, action["direction"])
            if not on_map(nxt, state.size) or state.tile(nxt) == ROCK:
                break
            cur = nxt
            hits.append((cur, table.damage[level - 1]))
    else:
        if kind == "mortar":
            dj, dk = (int(x) for x in action["coordinates"].split(","))
            target = clamp_walk(robot.position, (dj, dk), state.size)
            if state.tile(target) not in WALKABLE:
                return 0
        else:
            target = robot.position
            for d in action["sequence"]:
                target = step(target, d)
        hits.append((target, table.damage[level - 1]))
        hits.extend((p, table.area[level - 1]) for p in neighbours(target, state.size))
    value = 0
    for pos, amount in hits:
        victim = state.occupant(pos)
        if victim < 0 or state.tile(pos) == SPAWN or not state.robots[victim].alive:
            continue
        value += -2 * amount if victim == player else amount
    return value


def first_step_toward(state: SkyportState, start: Pos, targets: set[Pos]) -> str | None:
    """The first step of a shortest walk from `start` to a tile next to one of `targets`, or None."""
    if not targets:
        return None
    goal = {p for t in targets for p in neighbours(t, state.size)}
    seen: dict[Pos, str] = {start: ""}
    frontier = [start]
    while frontier:
        nxt = []
        for p in frontier:
            for d in DIRECTION_NAMES:
                q = step(p, d)
                if q in seen or state.tile(q) not in WALKABLE or state.occupant(q) >= 0:
                    continue
                seen[q] = seen[p] or d
                if q in goal:
                    return seen[q]
                nxt.append(q)
        frontier = nxt
    return None


def make_agent(name: str, seed: int) -> Agent:
    if name == "random":
        return RandomAgent(seed)
    if name == "hunter":
        return HunterAgent(seed)
    raise UnknownAgent(name)


def play(game: SkyportGame, agents: list[Agent]) -> SkyportGame:
    """Play `game` to its end with one agent per slot."""
    while not game.over:
        state = game.state
        if state.phase == TURN:
            game.submit(agents[state.current].command(state, state.current))
        else:
            for p in state.to_move:
                game.submit(agents[p].command(game.state, p))
    return game


def agent_seed(seed: int, slot: int) -> int:
    """The seed of the built-in agent in `slot` of a game seeded `seed`."""
    return seed * 1000 + 7 * slot + 1


__all__ = ["AGENT_NAMES", "UnknownAgent", "Agent", "RandomAgent", "HunterAgent", "shot_value", "first_step_toward",
           "make_agent", "play", "agent_seed"]
