"""Rebuilding the state at any point of any game's log, with periodic snapshots and a forward cursor.

`History(game, events).state_at(seq)` returns the state just after event `seq`. The first call folds the log
once and keeps a copy of the state every `every` events (128: in LOCM a snapshot costs a copy of every card
instance, so one at every turn start, as before, made building them several times a plain fold). Later calls
start from the nearest snapshot at or before `seq`, or from the state of the previous call when that is
nearer (stepping forward through a game folds one event a step), so a rebuild costs at most `every` events of
folding plus one copy. The log's own rules (its created event) are used; the game reads older schemas
through its ``upcast`` first. Nothing here knows a game: the definition folds, applies and copies.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterable

from locm.engine.errors import InvalidLogError
from locm.engine.seam import GameDef
from locm.events.base import Event

DEFAULT_EVERY = 128


class History:
    __slots__ = ("game", "events", "every", "_seqs", "_states", "_cursor")

    def __init__(self, game: GameDef, events: Iterable[Event], every: int = DEFAULT_EVERY) -> None:
        self.game = game
        self.events = game.upcast(list(events))
        if not self.events:
            raise InvalidLogError("an empty log has no history")
        self.every = every
        self._seqs: list[int] = []
        self._states: list[Any] = []
        self._cursor: tuple[int, Any] | None = None  # (seq, state after it) of the last call

    def __len__(self) -> int:
        return len(self.events)

    def _build(self) -> None:
        game, events, every = self.game, self.events, self.every
        state = game.fold(events[:1])
        seqs, states = [0], [game.copy(state)]
        for at in range(every, len(events), every):  # fold a chunk, keep a copy, and on
            state = game.apply(state, events[at - every + 1: at + 1])
            seqs.append(at)
            states.append(game.copy(state))
        self._seqs, self._states = seqs, states

    def state_at(self, seq: int) -> Any:
        """The state after event `seq` (a fresh copy the caller may keep)."""
        if not 0 <= seq < len(self.events):
            raise InvalidLogError(f"seq must be in 0..{len(self.events) - 1}, got {seq}")
        if not self._seqs:
            self._build()
        copy = self.game.copy
        k = bisect_right(self._seqs, seq) - 1
        start, base = self._seqs[k], self._states[k]
        cursor = self._cursor
        if cursor is not None and start <= cursor[0] <= seq:
            start, base = cursor
            state = base  # the cursor is private: fold on, then hand out a copy
        else:
            state = copy(base)
        state = self.game.apply(state, self.events[start + 1: seq + 1])
        self._cursor = (seq, state)
        return copy(state)

    def final(self) -> Any:
        return self.state_at(len(self.events) - 1)

    def turn_starts(self) -> list[tuple[int, int, int]]:
        """(seq, turn, player) of every turn start, for navigation."""
        return self.game.turn_starts(self.events)


__all__ = ["History", "DEFAULT_EVERY"]
