"""The base of every game's events: what the core reads of any event, whatever its game.

Each game has its own catalog (`events.locm.catalog`, `events.mcg.catalog`, `events.skyport.catalog`): frozen,
tagged msgspec Structs deriving from `Event`, in one union per game, decoded only with that game's codec
(`events.codec.Codec`). Every event carries
- ``seq``: its position in its game's log (0, 1, 2, ...),
- ``cause``: the ``seq`` of the record or event that caused it (-1 for a root: the game's creation, a
  player's recorded input),
- ``rule``: the id of the rule of its game's rules file it applied (``R-…``).

So the core can check any log's order and causes (`engine.logcheck`), walk any event's causes back to a
root, and show any event's rule, without knowing the game. Tags are written out and never reused within a
game (STYLE 1, 8); two games may use the same tag (a log is decoded with its own game's codec).
"""

from __future__ import annotations

from typing import Annotated

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True, gc=False):
    """Base of every event of every game.

    ``gc=False``: the garbage collector never tracks an event. An event is a frozen value whose fields hold
    numbers, strings and tuples of them or of other frozen values, so it can never be part of a reference
    cycle; and a process that keeps many logs (a tournament, `locm bench`) would otherwise have the collector
    walk every event that holds a tuple again and again as they age."""

    seq: int
    cause: int
    rule: str


Behaviour = Annotated[int, msgspec.Meta(ge=1)]
"""The type of a created event's ``behaviour``: which behaviour of its game's rules decided the game, counted
from 1 (`engine.seam.GameDef.behaviour`). A log without the field (unset: stored before it was recorded) is of
behaviour 1 (`engine.seam.behaviour_of`)."""


def tag_of(event_type: type[Event]) -> str:
    """The tag an event type is stored under (its ``type`` field)."""
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str), f"{event_type.__name__} has no string tag"
    return tag


__all__ = ["Event", "Behaviour", "tag_of"]
