"""`fold(log) -> state`: a game's state rebuilt from its log of any schema, upcast first (`engine.locm.upcast`)
and then folded with `engine.locm.evolve`."""

from __future__ import annotations

from itertools import islice
from typing import Iterable

from locm.events.locm.catalog import Event
from locm.engine.errors import InvalidLogError
from locm.engine.locm.evolve import apply_all, initial_state
from locm.engine.locm.state import GameState
from locm.engine.locm.upcast import upcast


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Rebuild a state from a log (or continue folding onto `state`). A log of an older schema is upcast
    first (`engine.locm.upcast`)."""
    if state is None:
        events = upcast(events)
        if not events:
            raise InvalidLogError("a game's log must start with a game_created event; the log is empty")
        state = initial_state(events[0])
        return apply_all(state, islice(events, 1, None))
    return apply_all(state, events)


__all__ = ["fold"]
