"""`evolve(state, event) -> state` for Skyport: apply one fact. Rebuilding a game is folding it over its log.

`evolve` never looks anything up outside the state and the event, never draws a random number and never raises
on a valid log: it updates the state in place (the fold's private working copy, STYLE 2) and returns it.
Dispatch is `match` on the event's type; the last case raises, so an event nobody handles fails on the first
replay (STYLE 3).
"""

from __future__ import annotations

from typing import Iterable

from locm.engine.errors import InvalidLogError
from locm.engine.seam import check_behaviour, fold_log
from locm.engine.skyport.behaviour import BEHAVIOUR
from locm.engine.skyport.state import ENDED, LOADOUT, TURN, SkyportState
from locm.events.skyport.catalog import (
    ACTION, ActionRejected, AreaHit, CommandReceived, Died, DroidFired, Event, GameCreated, GameEnded, Hit,
    HitAbsorbed, LaserFired, LoadoutChosen, LoadoutRejected, Mined, Moved, MortarFired, Penalized, Respawned,
    Scored, SpawnsDrawn, TileDepleted, TurnEnded, TurnOrderDrawn, TurnSkipped, TurnStarted, Upgraded,
)


def initial_state(created: Event) -> SkyportState:
    """The state right after `game_created`."""
    if type(created) is not GameCreated:
        raise InvalidLogError(f"a Skyport log must start with game_created, not {type(created).__name__}")
    state = SkyportState(created.rules, created.map, created.names)
    state.behaviour = check_behaviour(created, BEHAVIOUR)
    state.seq = created.seq + 1
    return state


def fold(events: Iterable[Event]) -> SkyportState:
    """The state a log leads to. Raises `InvalidLogError` for a log that is not a Skyport game's."""
    return fold_log(initial_state, evolve, events)


def evolve(state: SkyportState, e: Event) -> SkyportState:
    if e.seq != state.seq:
        raise InvalidLogError(f"event {e.seq} ({type(e).__name__}) out of sequence: expected seq {state.seq}")
    state.seq += 1
    match e:
        case CommandReceived():
            if e.kind == ACTION:
                state.used += 1
        case Moved():
            state.robots[e.player].position = e.to
            state.valid += 1
        case Mined():
            robot = state.robots[e.player]
            setattr(robot, e.resource, e.total)
            state.left[e.position] = state.rules.tile_resources - e.left
            state.valid += 1
        case TileDepleted():
            state.tiles[e.position[0]][e.position[1]] = "G"
            state.left.pop(e.position, None)
        case Hit() | AreaHit():
            state.robots[e.player].health = e.health
        case Scored():
            state.robots[e.player].score += e.points
        case Penalized():
            state.robots[e.player].score -= e.points
        case Died():
            robot = state.robots[e.player]
            robot.has_to_pass = robot.needs_respawn = True
        case LaserFired() | MortarFired() | DroidFired():
            state.valid += 1
        case Upgraded():
            robot = state.robots[e.player]
            setattr(robot, e.resource, robot.resource(e.resource) - e.cost)
            if robot.primary == e.weapon:
                robot.primary_level = e.level
            else:
                robot.secondary_level = e.level
            state.valid += 1
        case ActionRejected() | HitAbsorbed() | LoadoutRejected():
            pass
        case TurnStarted():
            state.phase = TURN
            state.turn = e.turn
            state.current = e.player
            state.cursor = state.order.index(e.player)
            state.used = state.valid = 0
        case TurnSkipped():
            state.robots[e.player].has_to_pass = False
        case Respawned():
            robot = state.robots[e.player]
            robot.position = e.position
            robot.health = e.health
            robot.needs_respawn = False
        case TurnEnded():
            pass
        case LoadoutChosen():
            robot = state.robots[e.player]
            robot.primary, robot.secondary = e.primary, e.secondary
        case SpawnsDrawn():
            for robot, spawn in zip(state.robots, e.spawns):
                robot.spawn = robot.position = spawn
        case TurnOrderDrawn():
            state.order = e.order
            state.cursor = 0
            state.phase = LOADOUT
        case GameEnded():
            state.phase = ENDED
            state.current = -1
            state.ranking = e.ranking
            state.winner = e.winner
            state.end_reason = e.reason
        case GameCreated():
            raise InvalidLogError(f"event {e.seq}: a second game_created")
        case _:
            raise InvalidLogError(f"event {e.seq}: {type(e).__name__} is not a Skyport event")
    return state


__all__ = ["initial_state", "fold", "evolve"]
