"""A live Skyport game: the state and its event log, and the one way to act on it (`submit`).

`SkyportGame.new` records the opening events; every command goes through `decide` and its events are applied
with `evolve` (the state `decide` leads to is the fold of its events, `engine.skyport.emit`). `from_log` folds
a stored log; `redecide` feeds a log's recorded commands through `decide` again, which must give the same log
(how `verify` knows a log is what the rules produce).
"""

from __future__ import annotations

import json
from typing import Iterable

import msgspec

from locm.engine.errors import InvalidLogError
from locm.engine.skyport.commands import Act, ChooseLoadout, Command, EndTurn, Forfeit, Stop
from locm.engine.skyport.decide import decide_and_apply
from locm.engine.skyport.evolve import fold
from locm.engine.skyport.rules import RULES_2013
from locm.engine.skyport.setup import create
from locm.engine.skyport.state import ENDED, SkyportState
from locm.events.skyport.catalog import ACTION, END, FORFEIT, LOADOUT, STOP, CommandReceived, Event, GameCreated
from locm.events.skyport.rules import GameMap, SkyportRules


class SkyportGame:
    __slots__ = ("state", "log")

    def __init__(self, state: SkyportState, log: list[Event]) -> None:
        self.state = state
        self.log = log

    @classmethod
    def new(cls, names: tuple[str, ...] | list[str], seed: int, game_map: GameMap | None = None,
            rules: SkyportRules = RULES_2013, agents: tuple[str, ...] = (),
            bots: tuple[str, ...] | None = None,
            behaviour: int | msgspec.UnsetType | None = None) -> "SkyportGame":
        """The game's opening events; `bots` (each seat's client version) is recorded when given, and so is
        ``behaviour`` (None: the current one)."""
        events = create(names, seed, game_map, rules, agents, bots, behaviour)
        return cls(fold(events), events)

    @classmethod
    def from_log(cls, events: Iterable[Event]) -> "SkyportGame":
        log = list(events)
        return cls(fold(log), log)

    @property
    def over(self) -> bool:
        return self.state.phase == ENDED

    @property
    def ended(self) -> bool:
        return self.state.phase == ENDED

    @property
    def to_move(self) -> int:
        """The first of the players who may act now (all players choose a loadout at once), -1 once over."""
        seats = self.state.to_move
        return seats[0] if seats else -1

    def answer(self, player: int, line: str) -> list[Event]:
        """Bots speak the server's TCP protocol, which `locm serve` (a later issue) will carry; the core's
        one-line runner does not play Skyport bots yet."""
        raise NotImplementedError("Skyport bots play through the Skyport server's protocol, not one line")

    def forfeit(self, player: int, reason: str, text: str = "") -> list[Event]:
        raise NotImplementedError("Skyport bots play through the Skyport server's protocol, not one line")

    def submit(self, command: Command) -> list[Event]:
        """Decide `command` and apply its events; returns them."""
        events, self.state = decide_and_apply(self.state, command)
        self.log.extend(events)
        return events


def command_of(record: CommandReceived) -> Command:
    """The command a `command_received` records."""
    if record.kind == LOADOUT:
        weapons = json.loads(record.text)
        return ChooseLoadout(record.player, weapons["primary-weapon"], weapons["secondary-weapon"])
    if record.kind == ACTION:
        return Act(record.player, json.loads(record.text))
    if record.kind == END:
        return EndTurn(record.player)
    if record.kind == FORFEIT:
        return Forfeit(record.player, record.text)
    if record.kind == STOP:
        return Stop(record.player, record.text)
    raise InvalidLogError(f"event {record.seq}: unknown command kind {record.kind!r}")


def _opened(created: GameCreated) -> SkyportGame:
    """The game a created event opens, its opening drawn again from its seed (under its behaviour)."""
    return SkyportGame.new(created.names, created.seed, created.map, created.rules, created.agents,
                           None if isinstance(created.bots, msgspec.UnsetType) else created.bots, created.behaviour)


def feed_input(game: SkyportGame, e: Event) -> None:
    """Play one recorded command (an uncaused `command_received`) into `game` as it was received; an
    `InvalidLogError` when `e` is not one or is not the command of the seat to move."""
    if type(e) is not CommandReceived or e.cause != -1:
        raise InvalidLogError(f"seq {e.seq}: not a recorded command")
    if e.player != game.to_move:
        raise InvalidLogError(f"seq {e.seq}: the command is player {e.player}'s, but player {game.to_move} is to "
                              "move")
    game.submit(command_of(e))


def resume(created: Event, inputs: Iterable[Event]) -> SkyportGame:
    """The game a created event and the recorded commands after it rebuild (the rules deciding the rest)."""
    if type(created) is not GameCreated:
        raise InvalidLogError("a Skyport log must start with game_created")
    game = _opened(created)
    for e in inputs:
        if type(e) is not CommandReceived or e.cause != -1:
            raise InvalidLogError(f"seq {e.seq}: not a recorded command")
        game.submit(command_of(e))
    return game


def redecide(log: list[Event]) -> tuple[SkyportGame, int]:
    """Replay the commands recorded in `log` through `decide` from its opening events. Returns the game this
    gives and the seq of the first event that differs from `log` (-1 when the two logs are identical)."""
    if not log or type(log[0]) is not GameCreated:
        raise InvalidLogError("a Skyport log must start with game_created")
    created = log[0]
    game = SkyportGame.new(created.names, created.seed, created.map, created.rules, created.agents,
                           None if isinstance(created.bots, msgspec.UnsetType) else created.bots,
                           created.behaviour)  # under the behaviour that decided it
    for e in log[3:]:
        if type(e) is CommandReceived and e.cause == -1:
            if game.state.phase == ENDED:
                break
            game.submit(command_of(e))
    for i, (a, b) in enumerate(zip(game.log, log)):
        if a != b:
            return game, i
    return game, -1 if len(game.log) == len(log) else min(len(game.log), len(log))


__all__ = ["SkyportGame", "command_of", "feed_input", "redecide", "resume"]
