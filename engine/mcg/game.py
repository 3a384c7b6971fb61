"""A live my-card-game match: its state and event log, and the ways to act on it; re-deciding a log; playing
a match with built-in agents; the outcome.

`McgGame.new` records the opening events (`setup.create`); every command goes through `decide` and its events
are applied with `evolve`. `from_log` folds a stored log. `redecide` feeds a log's recorded commands through
`decide` again from its `game_created`, which must give the same log (how a reader knows a log is what the
rules produce): every random outcome is drawn again and compared, never read from the log.
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple, Sequence

import msgspec

from locm.engine.errors import InvalidLogError, LocmError
from locm.engine.mcg.agents import make_agent
from locm.engine.mcg.commands import Command, Timeout
from locm.engine.mcg.decide import decide_and_apply, decide_line
from locm.engine.mcg.emit import derived_random
from locm.engine.mcg.evolve import evolve, fold
from locm.engine.mcg.legal import legal_actions, to_move
from locm.engine.mcg.protocol import message
from locm.engine.mcg.rules import STANDARD
from locm.engine.mcg.setup import create
from locm.engine.mcg.state import ENDED, McgState
from locm.events.mcg.catalog import TIMEOUT, CommandReceived, Event, GameCreated
from locm.events.mcg.rules import CardDef, McgRules, Seeds


class McgResult(NamedTuple):
    """How a match ended, read from its final state: the winner, the ranking (winner first), why, the turn, and both
    players' health (more than the seam's `engine.seam.Outcome`, which the definition reads from the log's end)."""

    winner: int
    ranking: tuple[int, int]
    reason: str
    turn: int
    health: tuple[int, int]


def outcome(state: McgState) -> McgResult | None:
    """The outcome of an ended match, None while it goes on (there are no draws, R-WIN)."""
    if state.phase != ENDED:
        return None
    w = state.winner
    return McgResult(w, (w, 1 - w), state.end_reason, state.turn, (state.players[0].health, state.players[1].health))


class McgGame:
    __slots__ = ("state", "log")

    def __init__(self, state: McgState, log: list[Event]) -> None:
        self.state = state
        self.log = log

    @classmethod
    def new(cls, rules: McgRules = STANDARD, seeds: int | Mapping[str, int] | Seeds = 0,
            agents: Sequence[str] = ("random", "random"), decks: Sequence[Sequence[int]] | None = None,
            first: int | None = None, cards: Mapping[int, CardDef] | None = None,
            bots: Sequence[str] | None = None, behaviour: int | msgspec.UnsetType | None = None,
            accounts: Sequence[str] | None = None) -> "McgGame":
        events = create(rules, seeds, agents, decks, first, cards, bots, behaviour, accounts)
        return cls(fold(events), events)

    @classmethod
    def from_log(cls, events: Iterable[Event]) -> "McgGame":
        log = list(events)
        return cls(fold(log), log)

    @property
    def ended(self) -> bool:
        return self.state.phase == ENDED

    @property
    def to_move(self) -> int:
        return to_move(self.state)

    def legal_actions(self) -> list[Command]:
        return legal_actions(self.state)

    def message(self, player: int) -> str:
        return message(self.state, player)

    def input_for(self, player: int) -> str:
        """What a bot in seat `player` is sent now (`message`: the core's runner asks every game this)."""
        return message(self.state, player)

    @property
    def rules(self) -> McgRules:
        return self.state.rules

    def outcome(self) -> McgResult | None:
        return outcome(self.state)

    def submit(self, command: Command) -> list[Event]:
        """Decide `command` and apply its events; returns them."""
        events, self.state = decide_and_apply(self.state, command)
        self.log.extend(events)
        return events

    def answer(self, player: int, line: str) -> list[Event]:
        """A bot's answer line, as received (R-ANSWER)."""
        events = decide_line(self.state, player, line)
        return self._apply(events)

    def timeout(self, player: int) -> list[Event]:
        """`player` did not answer in time: inactivity is surrender (R-INACTIVE)."""
        return self.submit(Timeout(player))

    def forfeit(self, player: int, reason: str, text: str = "") -> list[Event]:
        """`player` failed outside any answer (a timeout, a crash, a flood): inactivity is surrender
        (R-INACTIVE), whatever the reason."""
        return self.timeout(player)

    def _apply(self, events: list[Event]) -> list[Event]:
        for e in events:
            evolve(self.state, e)
        self.log.extend(events)
        return events


def next_first(previous: McgState) -> int:
    """The seat that starts the next match of a best-of series: the one that did not start `previous`
    (R-SERIES); pass it as ``first`` to `create`."""
    if previous.first not in (0, 1):
        raise InvalidLogError("the previous match has no starting seat yet")
    return 1 - previous.first


def agent_seed(seeds: Seeds, seat: int) -> int:
    """A built-in agent's seed in a match: derived from the match's seed (R-RNG, salt ``agent<seat>``)."""
    return derived_random(seeds.seed, f"agent{seat}").next_long()


def play_match(rules: McgRules = STANDARD, seeds: int | Mapping[str, int] | Seeds = 0,
               agents: Sequence[str] = ("random", "random"), decks: Sequence[Sequence[int]] | None = None,
               first: int | None = None, cards: Mapping[int, CardDef] | None = None,
               agent_seeds: Sequence[int] | None = None, accounts: Sequence[str] | None = None) -> McgGame:
    """A whole match between built-in agents, each seeded (`agent_seed` unless given), played to its end;
    `accounts`: the seats' collection accounts (R-REWARD), as `McgGame.new` takes them."""
    game = McgGame.new(rules, seeds, agents, decks, first, cards, accounts=accounts)
    created = game.log[0]
    assert isinstance(created, GameCreated)
    own = list(agent_seeds) if agent_seeds is not None else [agent_seed(created.seeds, i) for i in (0, 1)]
    players = [make_agent(agents[i], own[i]) for i in (0, 1)]
    while not game.ended:
        p = game.to_move
        game.submit(players[p].act(game.state, p))
    return game


def redecide(log: Sequence[Event]) -> tuple[McgGame, int]:
    """Replay the commands recorded in `log` through `decide` from its `game_created`. Returns the game this
    gives and the seq of the first event that differs from `log` (-1 when the two logs are identical)."""
    if not log or type(log[0]) is not GameCreated:
        raise InvalidLogError("a my-card-game log must start with mcg_game_created")
    game = _created_again(log[0])
    for e in log[1:]:
        if type(e) is CommandReceived and e.cause == -1:
            if game.ended:
                break
            try:
                _feed(game, e)
            except LocmError:  # a record the rules would never have taken (another seat's action, ...)
                return game, min(len(game.log), len(log))
    for i, (a, b) in enumerate(zip(game.log, log)):
        if a != b:
            return game, i
    return game, -1 if len(game.log) == len(log) else min(len(game.log), len(log))


def resume(created: Event, inputs: Sequence[Event]) -> McgGame:
    """The game a `game_created` and its log's recorded commands after it give (a position's: `engine.position`),
    every other event decided again; a `LocmError` where one cannot be played."""
    if type(created) is not GameCreated:
        raise InvalidLogError("a my-card-game log must start with mcg_game_created")
    game = _created_again(created)
    for e in inputs:
        if type(e) is not CommandReceived or e.cause != -1:
            raise InvalidLogError(f"seq {e.seq}: not a recorded command")
        _feed(game, e)
    return game


def feed_input(game: McgGame, e: Event) -> None:
    """Play one recorded command (an uncaused `command_received`) into `game` as it was received; a `LocmError`
    when `e` is not one or is not the input of the seat to move."""
    if type(e) is not CommandReceived or e.cause != -1:
        raise InvalidLogError(f"seq {e.seq}: not a recorded command")
    if e.player != game.to_move:
        raise InvalidLogError(f"seq {e.seq}: the command is player {e.player}'s, but player {game.to_move} is to "
                              "move")
    _feed(game, e)


def _created_again(created: GameCreated) -> McgGame:
    return McgGame.new(created.rules, created.seeds, created.agents, created.decks,
                       None if created.first == -1 else created.first, {c.id: c for c in created.cards},
                       created.bots or None, created.behaviour,  # under the behaviour that decided it
                       created.accounts or None)


def _feed(game: McgGame, e: CommandReceived) -> None:
    if e.kind == TIMEOUT:
        game.submit(Timeout(e.player))
    else:
        game.answer(e.player, e.text)


__all__ = ["McgGame", "McgResult", "feed_input", "outcome", "play_match", "redecide", "resume", "agent_seed",
           "next_first"]
