"""The checks every game's log passes before anything reads it, whatever its game (the core's, not a rule's).

- it starts with its game's created event and nothing else is one, and that names a behaviour of the game's
  rules this engine knows (`engine.seam.check_behaviour`);
- its seqs are 0, 1, 2, ... (an event dropped, repeated or moved is refused);
- each event's cause is an earlier event, or -1 (a root: the creation, a player's recorded input);
- a complete log ends with its game's end event, and only there.

`check_log` raises `InvalidLogError` naming the first seq that fails. `causes` walks an event's causes back to
its root, which these checks make finite (each step goes to a smaller seq).
"""

from __future__ import annotations

from typing import Sequence

from locm.engine.errors import InvalidLogError
from locm.engine.seam import GameDef, check_behaviour
from locm.events.base import Event, tag_of


def check_log(game: GameDef, events: Sequence[Event], *, complete: bool = True) -> None:
    """Raise `InvalidLogError` (with the seq) if `events` is not a well-formed log of `game` (see the module
    docstring); ``complete``: it must also end with the game's end event."""
    created, ended = tag_of(game.created), tag_of(game.ended)
    if not events:
        raise InvalidLogError(f"the log is empty: a {game.title} log starts with {created}")
    if type(events[0]) is not game.created:
        raise InvalidLogError(f"seq 0: a {game.title} log starts with {created}, not {tag_of(type(events[0]))}", 0)
    check_behaviour(events[0], game.behaviour)
    last = len(events) - 1
    for i, e in enumerate(events):
        if e.seq != i:
            raise InvalidLogError(f"seq {e.seq}: expected seq {i} here (an event is missing, repeated or out of "
                                  "order)", e.seq)
        if not -1 <= e.cause < i:
            raise InvalidLogError(f"seq {i}: its cause {e.cause} is not an earlier event", i)
        if i and type(e) is game.created:
            raise InvalidLogError(f"seq {i}: a second {created}", i)
        if type(e) is game.ended and i != last:
            raise InvalidLogError(f"seq {i}: {ended} before the end of the log", i)
    if complete and type(events[last]) is not game.ended:
        raise InvalidLogError(f"seq {last}: the log ends with {tag_of(type(events[last]))}, not {ended}", last)


def causes(events: Sequence[Event], seq: int) -> list[Event]:
    """The chain of causes of event `seq`, nearest first, up to its root (the event itself excluded)."""
    out = []
    cause = events[seq].cause
    while 0 <= cause < seq:
        e = events[cause]
        out.append(e)
        seq, cause = cause, e.cause
    return out


def consequences(events: Sequence[Event], seq: int, limit: int = 500) -> list[tuple[int, Event]]:
    """What event `seq` set off: every event whose chain of causes passes through it, depth first in log
    order, each with its depth (1: caused by `seq` itself), at most ``limit`` of them (a chain of triggers)."""
    children: dict[int, list[Event]] = {}
    for e in events[seq + 1:]:
        if e.cause >= seq:
            children.setdefault(e.cause, []).append(e)
    out: list[tuple[int, Event]] = []
    stack = [(1, e) for e in reversed(children.get(seq, []))]
    while stack and len(out) < limit:
        depth, e = stack.pop()
        out.append((depth, e))
        stack.extend((depth + 1, c) for c in reversed(children.get(e.seq, [])))
    return out


__all__ = ["check_log", "causes", "consequences"]
