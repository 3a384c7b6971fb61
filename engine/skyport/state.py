"""The state of one Skyport game: what `evolve` builds and `decide` reads.

A private working copy (STYLE 2): only `engine.skyport.evolve` changes it, one event at a time; `copy()` gives
an independent copy. `view(state, player)` is what one player may know (R-VIEW): the server never tells a
client anybody's resources (its own included, which it can count), nor what a resource tile has left.
"""

from __future__ import annotations

from typing import Any

from locm.events.skyport.rules import GameMap, SkyportRules

Pos = tuple[int, int]

# Phases
SETUP, LOADOUT, TURN, ENDED = "setup", "loadout", "turn", "ended"
RESOURCES = ("rubidium", "explosium", "scrap")


class Robot:
    """One player's robot."""

    __slots__ = ("slot", "name", "spawn", "position", "health", "score", "rubidium", "explosium", "scrap",
                 "primary", "primary_level", "secondary", "secondary_level", "has_to_pass", "needs_respawn")

    def __init__(self, slot: int, name: str, health: int) -> None:
        self.slot = slot
        self.name = name
        self.spawn: Pos = (-1, -1)
        self.position: Pos = (-1, -1)
        self.health = health
        self.score = 0
        self.rubidium = 0
        self.explosium = 0
        self.scrap = 0
        self.primary = ""  # "" until the loadout (R-LOADOUT)
        self.primary_level = 1
        self.secondary = ""
        self.secondary_level = 1
        self.has_to_pass = False  # destroyed since its last turn: the next one is skipped (R-RESPAWN)
        self.needs_respawn = False

    def copy(self) -> "Robot":
        r = Robot.__new__(Robot)
        r.slot, r.name, r.spawn, r.position = self.slot, self.name, self.spawn, self.position
        r.health, r.score = self.health, self.score
        r.rubidium, r.explosium, r.scrap = self.rubidium, self.explosium, self.scrap
        r.primary, r.primary_level = self.primary, self.primary_level
        r.secondary, r.secondary_level = self.secondary, self.secondary_level
        r.has_to_pass, r.needs_respawn = self.has_to_pass, self.needs_respawn
        return r

    @property
    def alive(self) -> bool:
        return self.health > 0

    @property
    def has_loadout(self) -> bool:
        return self.primary != ""

    def level(self, weapon: str) -> int:
        """The level of `weapon`, or 0 when the robot does not carry it."""
        if self.primary == weapon:
            return self.primary_level
        if self.secondary == weapon:
            return self.secondary_level
        return 0

    def resource(self, name: str) -> int:
        value: int = getattr(self, name)
        return value

    def key(self) -> tuple[object, ...]:
        return tuple(getattr(self, n) for n in Robot.__slots__)

    def __repr__(self) -> str:
        return (f"Robot({self.slot} {self.name!r} at {self.position}, {self.health} hp, {self.score} points, "
                f"{self.primary}{self.primary_level}/{self.secondary}{self.secondary_level})")


class SkyportState:
    """Everything the rules need: the map as it is now (resource tiles turn into grass), the robots, the ring
    of turns and where it stands."""

    __slots__ = ("rules", "map", "size", "tiles", "left", "robots", "order", "cursor", "turn", "phase",
                 "current", "used", "valid", "seq", "ranking", "winner", "end_reason", "behaviour")

    def __init__(self, rules: SkyportRules, game_map: GameMap, names: tuple[str, ...]) -> None:
        self.rules = rules
        self.map = game_map
        self.size = game_map.size
        self.tiles = [list(row) for row in game_map.rows]  # tiles[j][k], the letters as the gamestate sends them
        self.left: dict[Pos, int] = {}  # units mined from a resource tile so far, by position (absent: none)
        self.robots = [Robot(i, n, rules.health) for i, n in enumerate(names)]
        self.order: tuple[int, ...] = ()  # the ring of turns (R-ORDER)
        self.cursor = -1  # index in `order` of the player to move (the turn-0 list starts at 0)
        self.turn = 0
        self.phase = SETUP
        self.current = -1
        self.used = 0  # actions read in the current turn
        self.valid = 0  # of them, carried out
        self.seq = 0  # the seq of the next event
        self.ranking: tuple[int, ...] = ()
        self.winner = -1
        self.end_reason = ""
        self.behaviour = 1  # the behaviour of the rules deciding the game (its created event's)

    def copy(self) -> "SkyportState":
        s = SkyportState.__new__(SkyportState)
        for name in SkyportState.__slots__:
            setattr(s, name, getattr(self, name))
        s.tiles = [row[:] for row in self.tiles]
        s.left = dict(self.left)
        s.robots = [r.copy() for r in self.robots]
        return s

    # --- reading -------------------------------------------------------------------------------------------

    def tile(self, pos: Pos) -> str:
        """The tile letter at `pos`, or "" off the map."""
        j, k = pos
        if 0 <= j < self.size and 0 <= k < self.size:
            return self.tiles[j][k]
        return ""

    def resources_left(self, pos: Pos) -> int:
        """Units a resource tile still holds (0 for any other tile)."""
        if self.tile(pos) not in ("R", "E", "C"):
            return 0
        return self.rules.tile_resources - self.left.get(pos, 0)

    def occupant(self, pos: Pos) -> int:
        """The slot of the robot (or body) on `pos`, or -1."""
        for r in self.robots:
            if r.position == pos:
                return r.slot
        return -1

    def turn_list(self) -> tuple[int, ...]:
        """The ring from the player to move, as the gamestate lists the players."""
        n = len(self.order)
        return tuple(self.order[(self.cursor + i) % n] for i in range(n)) if n and self.cursor >= 0 else ()

    @property
    def to_move(self) -> tuple[int, ...]:
        """Who may act now: every player still without a loadout, the player whose turn it is, or nobody."""
        if self.phase == LOADOUT:
            return tuple(r.slot for r in self.robots if not r.has_loadout)
        if self.phase == TURN:
            return (self.current,)
        return ()

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(r.score for r in self.robots)

    def key(self) -> tuple[object, ...]:
        """Everything that defines the state, for comparing two states."""
        return (self.rules, self.map, tuple(map(tuple, self.tiles)), tuple(sorted(self.left.items())),
                tuple(r.key() for r in self.robots), self.order, self.cursor, self.turn, self.phase, self.current,
                self.used, self.valid, self.seq, self.ranking, self.winner, self.end_reason)


def view(state: SkyportState, player: int | None = None) -> dict[str, Any]:
    """What `player` may know (R-VIEW), as plain data: every robot's name, position, health, score and weapons,
    the map as it is now; resource counts only for `player`'s own robot (None: the whole state, counts and
    tiles' remaining units included)."""
    robots = []
    for r in state.robots:
        entry: dict[str, Any] = {
            "slot": r.slot, "name": r.name, "position": r.position, "spawn": r.spawn, "health": r.health,
            "score": r.score, "primary": [r.primary, r.primary_level], "secondary": [r.secondary, r.secondary_level],
            "dead": r.needs_respawn,
        }
        if player is None or player == r.slot:
            entry.update({k: r.resource(k) for k in RESOURCES})
        robots.append(entry)
    out: dict[str, Any] = {"turn": state.turn, "phase": state.phase, "to_move": list(state.to_move),
                           "order": list(state.turn_list()), "robots": robots,
                           "map": ["".join(row) for row in state.tiles]}
    if player is None:
        out["tiles_left"] = {f"{j}, {k}": state.resources_left((j, k)) for (j, k) in sorted(state.left)}
    return out


__all__ = ["SETUP", "LOADOUT", "TURN", "ENDED", "RESOURCES", "Robot", "SkyportState", "view"]
