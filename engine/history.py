"""Rebuilding the state at any point of a log, with periodic snapshots and a forward cursor.

`History(events).state_at(seq)` returns the state just after event `seq`. The first call folds the log once
and keeps a copy of the state every `every` events (128: a snapshot costs a copy of every card instance, so
one at every turn start, as before, made building them several times a plain fold). Later calls start from
the nearest snapshot at or before `seq`, or from the state of the previous call when that is nearer (stepping
forward through a game folds one event a step), so a rebuild costs at most `every` events of folding plus one
copy. The log's own rules (`game_created`) are used; older schemas are upcast first.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable

from locm.events.locm.catalog import Event, TurnStarted
from locm.engine.errors import InvalidLogError
from locm.engine.locm.evolve import apply_all, fold, initial_state
from locm.engine.locm.state import GameState
from locm.engine.locm.upcast import upcast

DEFAULT_EVERY = 128


class History:
    __slots__ = ("events", "every", "_seqs", "_states", "_cursor")

    def __init__(self, events: Iterable[Event], every: int = DEFAULT_EVERY) -> None:
        self.events = upcast(list(events))
        if not self.events:
            raise InvalidLogError("an empty log has no history")
        self.every = every
        self._seqs: list[int] = []
        self._states: list[GameState] = []
        self._cursor: tuple[int, GameState] | None = None  # (seq, state after it) of the last call

    def __len__(self) -> int:
        return len(self.events)

    def _build(self) -> None:
        state = initial_state(self.events[0])
        seqs, states = [0], [state.copy()]
        events, every = self.events, self.every
        for at in range(every, len(events), every):  # fold a chunk, keep a copy, and on
            apply_all(state, events[at - every + 1: at + 1])
            seqs.append(at)
            states.append(state.copy())
        self._seqs, self._states = seqs, states

    def state_at(self, seq: int) -> GameState:
        """The state after event `seq` (a fresh copy the caller may keep)."""
        if not 0 <= seq < len(self.events):
            raise InvalidLogError(f"seq must be in 0..{len(self.events) - 1}, got {seq}")
        if not self._seqs:
            self._build()
        k = bisect_right(self._seqs, seq) - 1
        start, base = self._seqs[k], self._states[k]
        cursor = self._cursor
        if cursor is not None and start <= cursor[0] <= seq:
            start, base = cursor
            state = base  # the cursor is private: fold on, then hand out a copy
        else:
            state = base.copy()
        apply_all(state, self.events[start + 1: seq + 1])
        self._cursor = (seq, state)
        return state.copy()

    def final(self) -> GameState:
        return self.state_at(len(self.events) - 1)

    def turn_starts(self) -> list[tuple[int, int, int]]:
        """(seq, turn, player) of every turn start, for navigation."""
        return [(e.seq, e.turn, e.player) for e in self.events if type(e) is TurnStarted]


def rebuild(events: Iterable[Event], seq: int) -> GameState:
    """The state after event `seq`, by a plain fold from the start (no snapshots)."""
    return fold(upcast(list(events))[: seq + 1])
