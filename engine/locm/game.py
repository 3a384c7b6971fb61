"""A live game: the state, its event log, and the ways players act on it.

- `Game.answer(player, text)`: a whole answer line in the referee protocol (bots, referee logs), recorded as
  an `action_received` of kind ``line``.
- `Game.submit(command)`: one structured command (built-in agents, tests), recorded as kind ``action``
  (``end_turn`` for `EndTurn`).
- `Game.forfeit(player, reason)`: a hard error outside any answer (timeout, crash): the `hard_error` is the
  record.
All go through `decide` and `evolve`; the log is the only record of what happened, and `engine.locm.redecide`
can feed those records through the same paths again.
"""

from __future__ import annotations

from typing import Any, Iterable, cast

from locm.events.locm.catalog import ActionReceived, Event, GameCreated, HardError
from locm.engine.locm import protocol, setup
from locm.engine.locm.commands import BattleAction, BuildDeck, Command, EndTurn, Pass, Pick
from locm.engine.locm.decide import decide, hard_error, record
from locm.engine.errors import CommandError, ProtocolError
from locm.engine.locm.evolve import apply_decided
from locm.engine.locm.folding import fold
from locm.engine.locm.legal import LegalCache
from locm.engine.locm.rulesets import Rules, by_name
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT, ENDED, GameState
from locm.engine.locm.upcast import upcast


class Game:
    """A live game: its state, its log, and the legal list it keeps between events (`LegalCache`: the state
    knows nothing of it; every batch of events this game applies is shown to it)."""

    __slots__ = ("state", "log", "legal_cache")

    def __init__(self, state: GameState, log: list[Event]) -> None:
        self.state = state
        self.log = log
        self.legal_cache = LegalCache()

    @classmethod
    def new(cls, ruleset: str | Rules = "1.2", seed: int | None = None, params: dict[str, Any] | None = None,
            agents: tuple[str, str] = ("", ""), bots: tuple[str, str] | None = None,
            behaviour: int | None = None) -> "Game":
        """A new game (R-SEEDS) under `ruleset` (a built-in name or alias, or any `Rules` value, which the log
        then carries): `seed`, and any derived parameter given explicitly in `params`; ``agents`` and their
        versions (``bots``: a bot's file hash, "" for a built-in agent) are recorded in `game_created`, and so
        is ``behaviour``, the behaviour of the rules that decides it (None: the current one)."""
        rules = by_name(ruleset) if isinstance(ruleset, str) else ruleset
        events = setup.create(rules, seed, params, agents, bots, behaviour)
        return cls(fold(events), events)

    @classmethod
    def from_log(cls, events: Iterable[Event]) -> "Game":
        """Continue a game from its log (of any schema: older ones are upcast)."""
        log = upcast(list(events))
        return cls(fold(log), log)

    @classmethod
    def from_created(cls, created: GameCreated) -> "Game":
        """A game rebuilt from its `game_created` alone: what follows from it (card pool, draft offers) is
        decided again."""
        events = [created] + setup.opening(created)
        return cls(fold(events), events)

    # --- reading ----------------------------------------------------------------------------------------

    @property
    def created(self) -> GameCreated:
        return cast(GameCreated, self.state.params)  # every log starts with game_created

    @property
    def rules(self) -> Rules:
        return self.state.rules

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

    def legal_actions(self) -> tuple[BattleAction, ...]:
        """The legal battle actions of the player to move (an immutable tuple; empty outside the battle)."""
        return self.legal_cache.actions(self.state)

    def owed_input(self) -> tuple[int, str] | None:
        """An input the referee still sends after the game has ended, as (player, text), or None.

        In a draft or construct round the referee sends both players their input before it reads either
        answer (`DraftTurn`, `ConstructTurn`). So when player 0's answer of such a round is a hard error or a
        timeout, the game is over, yet player 1 has been sent that round's input.
        """
        if not self.ended:
            return None
        k = last_input(self.log)
        record_ = cast("ActionReceived | HardError", self.log[k])  # an ended game has such a record
        if record_.player != 0 or not any(type(e) is HardError for e in self.log[k:]):
            return None
        before = fold(self.log[:k])
        if before.phase not in (DRAFT, CONSTRUCT):
            return None
        return 1, protocol.render_input(before, 1)

    # --- acting -----------------------------------------------------------------------------------------

    def _apply(self, events: list[Event]) -> list[Event]:
        state = self.state
        cache = self.legal_cache
        if cache.hand is None and cache.attacks is None:  # nothing kept to keep true (the draft)
            apply_decided(state, events)
        else:  # through the kept legal list, which looks at the state after each event
            cache.apply(state, events)
        self.log.extend(events)
        return events

    def submit(self, command: Command, cause: int = -1) -> list[Event]:
        """Decide one command and apply its events; returns them."""
        # `_apply` written out (a call less per command): every built-in agent's command comes this way
        state = self.state
        cache = self.legal_cache
        events = decide(state, command, cause, cache.whole if cache.seq == state.seq else None)
        if cache.hand is None and cache.attacks is None:
            apply_decided(state, events)
        else:
            cache.apply(state, events)
        self.log.extend(events)
        return events

    def end_turn(self, cause: int = -1) -> list[Event]:
        return self.submit(EndTurn(), cause)

    def answer(self, player: int, text: str) -> list[Event]:
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
                rules = state.rules
                ids = protocol.parse_construct(text, len(state.cards), rules.deck_size, rules.max_copies)
                commands = [BuildDeck(player, ids)]
            else:
                raise CommandError(f"no answers are taken in the {state.phase} phase")
        except ProtocolError as exc:
            self._apply(hard_error(state, player, str(exc), text, rec))
            return self.log[start:]
        for command in commands:
            if type(command) is Pass:
                continue
            self._apply(decide(state, command, rec, self.legal_cache.known(state)))
            if state.phase == ENDED:
                return self.log[start:]
        if phase == BATTLE:
            self._apply(decide(state, EndTurn(), rec))
        return self.log[start:]

    def forfeit(self, player: int, reason: str, text: str = "") -> list[Event]:
        """A hard error outside the answer's text (timeout, crash, flood): the player loses."""
        if self.state.phase == ENDED:
            raise CommandError("the game is over")
        return self._apply(hard_error(self.state, player, reason, text))


def last_input(log: list[Event]) -> int:
    """The index of the last recorded input of a log (an `action_received` or a `hard_error` with cause -1:
    what started the last decision), or 0 when there is none (the game's root)."""
    k = len(log) - 1
    while k > 0 and not (log[k].cause == -1 and type(log[k]) in (ActionReceived, HardError)):
        k -= 1
    return k
