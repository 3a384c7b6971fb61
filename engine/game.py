"""A live game: the state, its event log, and the two ways players act on it.

- `Game.answer(player, text)`: a whole answer line in the referee protocol (bots, conformance logs).
- `Game.submit(command)`: one structured command (built-in agents, tests).
Both go through `decide` and `evolve`; the log is the only record of what happened.
"""

from __future__ import annotations

from events.catalog import GameCreated
from engine import protocol, setup
from engine.commands import BuildDeck, EndTurn, Pass, Pick
from engine.decide import decide, hard_error, record
from engine.errors import CommandError, ProtocolError
from engine.evolve import apply_all, fold
from engine.rulesets import Ruleset, by_name
from engine.state import BATTLE, CONSTRUCT, DRAFT, ENDED, GameState


class Game:
    __slots__ = ("state", "log")

    def __init__(self, state: GameState, log: list) -> None:
        self.state = state
        self.log = log

    @classmethod
    def new(cls, ruleset: str | Ruleset = "1.2", seed: int | None = None, params: dict | None = None,
            agents: tuple[str, str] = ("", "")) -> "Game":
        """A new game (R-SEEDS): `seed`, and any derived parameter given explicitly in `params`."""
        rules = by_name(ruleset) if isinstance(ruleset, str) else ruleset
        events = setup.create(rules, seed, params, agents)
        return cls(fold(events), list(events))

    @classmethod
    def from_log(cls, events) -> "Game":
        events = list(events)
        return cls(fold(events), events)

    # --- reading ----------------------------------------------------------------------------------------

    @property
    def created(self) -> GameCreated:
        return self.state.params

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def to_move(self) -> int:
        return self.state.current

    @property
    def ended(self) -> bool:
        return self.state.phase == ENDED

    @property
    def winner(self) -> int:
        return self.state.winner

    def input_for(self, player: int) -> str:
        return protocol.render_input(self.state, player)

    # --- acting -----------------------------------------------------------------------------------------

    def _apply(self, events: list) -> list:
        apply_all(self.state, events)
        self.log.extend(events)
        return events

    def submit(self, command, cause: int = -1) -> list:
        """Decide one command and apply its events; returns them."""
        return self._apply(decide(self.state, command, cause))

    def end_turn(self, cause: int = -1) -> list:
        return self.submit(EndTurn(), cause)

    def answer(self, player: int, text: str) -> list:
        """Play one answer line of `player`, exactly as the referee would. Returns the events it caused."""
        state = self.state
        if state.phase == ENDED:
            raise CommandError("the game is over")
        if player != state.current:
            raise CommandError(f"it is player {state.current}'s turn, not player {player}'s")
        start = len(self.log)
        phase = state.phase
        rec = self._apply(record(state, player, text))[0].seq
        try:
            if phase == BATTLE:
                commands = protocol.parse_battle(text)
            elif phase == DRAFT:
                commands = [Pick(player, protocol.parse_pick(text, state.offer))]
            elif phase == CONSTRUCT:
                ids = protocol.parse_construct(text, len(state.cards), state.rules.deck_size)
                commands = [BuildDeck(player, ids)]
            else:
                raise CommandError(f"no answers are taken in the {state.phase} phase")
        except ProtocolError as exc:
            self._apply(hard_error(state, player, str(exc), text, rec))
            return self.log[start:]
        for command in commands:
            if type(command) is Pass:
                continue
            self._apply(decide(state, command, rec))
            if state.phase == ENDED:
                return self.log[start:]
        if phase == BATTLE:
            self._apply(decide(state, EndTurn(), rec))
        return self.log[start:]

    def forfeit(self, player: int, reason: str, text: str = "") -> list:
        """A hard error outside the answer's text (timeout, crash, flood): the player loses."""
        return self._apply(hard_error(self.state, player, reason, text))
