"""The catalog of Skyport's domain events: every fact a game can produce.

Each event is a frozen, tagged msgspec Struct carrying ``seq`` (its position in the log), ``cause`` (the
``seq`` of the command record or event that caused it, -1 for the root) and ``rule`` (the id of the rule of
``data/skyport/RULES.md`` it applied). Tags are written out and never reused (STYLE 1, 8); each names a
Skyport fact, and a Skyport log is decoded only with this module's decoder (`events.skyport.codec`).

Positions are ``(j, k)`` pairs; players are slots (connection order, 0-based).
"""

from __future__ import annotations

from typing import Union

import msgspec

from locm.events.base import Behaviour, Event as Event  # every module of the game names its events from here
from locm.events.skyport.rules import GameMap, SkyportRules

SCHEMA_VERSION = 1

Pos = tuple[int, int]

# Kinds of `CommandReceived`
LOADOUT, ACTION, END, FORFEIT, STOP = "loadout", "action", "end", "forfeit", "stop"




# --- set-up ---------------------------------------------------------------------------------------------------


class GameCreated(Event, frozen=True, tag="game_created"):
    """A game begins (R-SETUP): its rules, its map, the seed of its two random draws, and the players' names
    by slot (connection order). ``agents``: what plays each seat (a built-in agent's name or a client's
    command line). ``bots``: each seat's client's version (the SHA-256 of its command's files; "" for a
    built-in agent), set when a seat is a client started from a command line, absent (and not written) in
    a game without one, so such logs are unchanged; with it, the names are what the clients said in their
    handshakes, which is why a game's id then leaves them out (`engine.skyport.definition`)."""

    rules: SkyportRules
    map: GameMap
    seed: int
    names: tuple[str, ...]
    agents: tuple[str, ...] = ()
    schema_version: int = SCHEMA_VERSION
    bots: tuple[str, ...] | msgspec.UnsetType = msgspec.UNSET
    behaviour: Behaviour | msgspec.UnsetType = msgspec.UNSET
    """Which behaviour of the rules decided the game (`engine.seam.GameDef.behaviour`, read through
    `engine.seam.behaviour_of`): written in every new game. Unset, and then absent from the JSON, in a log
    stored before it was recorded, which is of behaviour 1 and keeps its bytes (its hash chain)."""


class SpawnsDrawn(Event, frozen=True, tag="spawns_drawn"):
    """Each slot's spawn tile, drawn as the server draws them (R-SPAWN). Every robot starts on its own."""

    spawns: tuple[Pos, ...]


class TurnOrderDrawn(Event, frozen=True, tag="turn_order_drawn"):
    """The ring of turns, drawn as the server draws it (R-ORDER): ``order[0]`` heads the turn-0 gamestate,
    ``order[1]`` plays turn 1."""

    order: tuple[int, ...]


# --- records of commands ---------------------------------------------------------------------------------------


class CommandReceived(Event, frozen=True, tag="command_received"):
    """What a player sent, as the engine received it: the record every fact of a decision points to.

    ``kind`` ``loadout`` (``text`` is the two weapons as a JSON object), ``action`` (``text`` is the action
    object as JSON, ``index`` its place among the turn's actions, 0-based), ``end`` (the turn's deadline
    came before all of its actions were used), ``forfeit`` (the player's client did not join in time:
    ``text`` says what it lacked; the server plays its seat as a client that has left, R-FORFEIT), or ``stop``
    (the game's wall-clock limit ran out before the turn of ``player``, the player to move: ``text`` says the
    limit; the game ends there, R-WALL-CLOCK)."""

    player: int
    kind: str
    text: str = ""
    turn: int = 0
    index: int = 0


class LoadoutChosen(Event, frozen=True, tag="loadout_chosen"):
    """A player's two weapons for the whole game, both at level 1 (R-LOADOUT)."""

    player: int
    primary: str
    secondary: str


class LoadoutRejected(Event, frozen=True, tag="loadout_rejected"):
    """A loadout the server refuses, with the error it sends back (R-LOADOUT)."""

    player: int
    primary: str
    secondary: str
    error: str


# --- turns -------------------------------------------------------------------------------------------------------


class TurnStarted(Event, frozen=True, tag="turn_started"):
    """A player's turn begins (R-TURN): ``turn`` counts player-turns from 1; ``order`` is the ring from the
    player to move, as the gamestate lists the players."""

    turn: int
    player: int
    order: tuple[int, ...]


class TurnSkipped(Event, frozen=True, tag="turn_skipped"):
    """A robot destroyed since its last turn loses its next one (R-RESPAWN); no turn number is used."""

    player: int


class Respawned(Event, frozen=True, tag="respawned"):
    """A destroyed robot is back on its spawn tile with full health when its turn comes (R-RESPAWN)."""

    player: int
    position: Pos
    health: int


class TurnEnded(Event, frozen=True, tag="turn_ended"):
    """A player's turn is over (R-TURN): ``used`` actions read, ``valid`` of them carried out."""

    player: int
    turn: int
    used: int
    valid: int


class GameEnded(Event, frozen=True, tag="game_ended"):
    """The game is over (R-END): by the turn limit, or because the 2013 server's game thread died
    (``server-crash``, R-MORTAR-CRASH). ``scores`` by slot; ``ranking`` the slots by score, best first
    (R-RANK); ``winner`` the slot the server announces, or -1 for its "Tie!" (and after a crash)."""

    turn: int
    reason: str
    scores: tuple[int, ...]
    ranking: tuple[int, ...]
    winner: int


# --- actions -----------------------------------------------------------------------------------------------------


class ActionRejected(Event, frozen=True, tag="action_rejected"):
    """An action the server does not carry out (its rule says why). ``reason`` is a short code; ``error`` the
    text the server sends the player, or "" where it stays silent (R-ERRORS)."""

    player: int
    index: int
    action: str
    reason: str
    error: str = ""
    warning: str = ""  # a message the server sent before the one that refused it (a droid's too long sequence)


class Moved(Event, frozen=True, tag="moved"):
    """A robot moved one tile (R-MOVE)."""

    player: int
    direction: str
    origin: Pos
    to: Pos


class Mined(Event, frozen=True, tag="mined"):
    """A robot mined one unit of its tile's resource (R-MINE): ``left`` on the tile, ``total`` the robot's
    count of that resource after."""

    player: int
    resource: str
    position: Pos
    left: int
    total: int


class TileDepleted(Event, frozen=True, tag="tile_depleted"):
    """A resource tile with nothing left turned into grass (R-MINE)."""

    position: Pos
    resource: str


class Upgraded(Event, frozen=True, tag="upgraded"):
    """A weapon went up one level, paid in its resource (R-UPGRADE)."""

    player: int
    weapon: str
    level: int
    resource: str
    cost: int


class LaserFired(Event, frozen=True, tag="laser_fired"):
    """A laser shot (R-LASER): every tile of ``path`` (from the shooter's, excluded, to ``stop``) takes
    ``damage``; ``unused`` actions raised it (R-BONUS)."""

    player: int
    direction: str
    level: int
    start: Pos
    stop: Pos
    path: tuple[Pos, ...]
    damage: int
    unused: int


class MortarFired(Event, frozen=True, tag="mortar_fired"):
    """A mortar shot at the relative ``vector`` (R-MORTAR): it lands on ``target`` (the map's edge stops it
    early) and explodes there unless ``target`` is rock, void or a spawn tile (``exploded``)."""

    player: int
    level: int
    vector: Pos
    target: Pos
    exploded: bool
    damage: int
    area_damage: int
    unused: int


class DroidFired(Event, frozen=True, tag="droid_fired"):
    """A droid (R-DROID) walked ``steps`` (the accepted prefix of the ``requested`` sequence) along ``path``
    and exploded on ``target``. ``warning`` is the error message the server sends although the droid goes (a
    sequence longer than its range), else ""."""

    player: int
    level: int
    steps: tuple[str, ...]
    requested: int
    path: tuple[Pos, ...]
    target: Pos
    damage: int
    area_damage: int
    unused: int
    warning: str = ""


# --- damage, points, death ---------------------------------------------------------------------------------------


class Hit(Event, frozen=True, tag="hit"):
    """A robot took a weapon's direct damage (R-DAMAGE): ``health`` after it (never below 0)."""

    player: int
    by: int
    weapon: str
    position: Pos
    amount: int
    health: int


class AreaHit(Event, frozen=True, tag="area_hit"):
    """A robot next to an impact took the area damage (R-AOE): ``health`` after it (never below 0)."""

    player: int
    by: int
    weapon: str
    position: Pos
    amount: int
    health: int


class HitAbsorbed(Event, frozen=True, tag="hit_absorbed"):
    """A shot reached a robot that takes no damage (``reason``: ``spawn``, it stands on a spawn tile,
    R-SPAWN-SAFE; ``dead``, it is a destroyed robot's body, R-BODY)."""

    player: int
    by: int
    weapon: str
    position: Pos
    reason: str


class Scored(Event, frozen=True, tag="scored"):
    """Points for hurting another robot (``damage``: the full damage, overkill included, R-POINTS) or for
    destroying it (``kill``, R-KILL). Hurting yourself earns nothing."""

    player: int
    points: int
    reason: str
    victim: int


class Died(Event, frozen=True, tag="died"):
    """A robot's health reached 0 (R-DEATH): its body stays on ``position`` until it respawns."""

    player: int
    by: int
    position: Pos


class Penalized(Event, frozen=True, tag="penalized"):
    """Points taken away (``reason``: ``death`` R-DEATH, ``spawn`` R-SPAWN-PENALTY, ``idle`` R-IDLE)."""

    player: int
    points: int
    reason: str


AnyEvent = Union[
    GameCreated, SpawnsDrawn, TurnOrderDrawn, CommandReceived, LoadoutChosen, LoadoutRejected, TurnStarted,
    TurnSkipped, Respawned, TurnEnded, GameEnded, ActionRejected, Moved, Mined, TileDepleted, Upgraded,
    LaserFired, MortarFired, DroidFired, Hit, AreaHit, HitAbsorbed, Scored, Died, Penalized,
]

EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
TAGS: dict[str, type[Event]] = {t.__struct_config__.tag: t for t in EVENT_TYPES}  # type: ignore[misc]

__all__ = ["SCHEMA_VERSION", "Pos", "LOADOUT", "ACTION", "END", "Event", "AnyEvent", "EVENT_TYPES", "TAGS"] + [
    t.__name__ for t in EVENT_TYPES]
