"""Reading logs of older event schemas (STYLE 8): an upcaster turns them into events of the current schema.

Schema 1 logs lack what schema 2 records. Everything missing follows from the log itself:

- `GameCreated.rules`: the values of the built-in ruleset the log names (schema 1 only ran those two);
- `ActionReceived.kind`: a record whose own facts include a `TurnEnded`, `GameEnded` or `HardError`, or any
  record outside the battle, was a whole answer (``line``: read as a line, it decides to exactly the same
  events, because a built-in agent's end of turn and a one-action line that ends the game are decided alike);
  a battle record without them was one action of a built-in agent (``action``);
- `CreatureSummoned.can_attack`, `TurnStarted.ready`/`cleared`, `CardPicked`/`DeckChosen.ends_phase`: the
  values schema 1's fold computed, computed here the same way while folding the log.

Upcasting never renumbers, drops or adds events, so seqs (and the stored bytes the hash chain covers) stay as
they were. A log of the current schema is returned as it is.
"""

from __future__ import annotations

from typing import Iterable, Sequence, cast

import msgspec

from locm.events.locm.cards import CHARGE
from locm.events.locm.catalog import (
    ACTION, LINE, SCHEMA_VERSION, ActionReceived, CardPicked, CreatureSummoned, DeckChosen, GameCreated, GameEnded,
    Event, HardError, TurnEnded, TurnStarted,
)
from locm.engine.errors import InvalidLogError, UnknownRuleset
from locm.engine.locm.evolve import apply_all, initial_state
from locm.engine.locm.rulesets import by_name
from locm.engine.locm.state import BATTLE

_replace = msgspec.structs.replace
_V1_DRAFT_ROUNDS = 30


def schema_of(events: Sequence[Event]) -> int:
    """The schema a log was recorded under (its `game_created`'s ``schema_version``)."""
    first = events[0] if events else None
    return first.schema_version if type(first) is GameCreated else SCHEMA_VERSION


def upcast(events: Iterable[Event]) -> list[Event]:
    """The log as events of the current schema (the same list if it already is one)."""
    events = events if isinstance(events, list) else list(events)
    if not events or type(events[0]) is not GameCreated or events[0].schema_version >= SCHEMA_VERSION:
        return events
    return _from_v1(events)


def _from_v1(events: list[Event]) -> list[Event]:
    created = cast(GameCreated, events[0])  # upcast checked it
    if created.rules is None:
        try:
            created = _replace(created, rules=by_name(created.ruleset))
        except UnknownRuleset:
            raise InvalidLogError(f"schema 1 log of an unknown ruleset {created.ruleset!r}", 0) from None
    caused: dict[int, set[type]] = {}
    for e in events:
        if e.cause >= 0:
            caused.setdefault(e.cause, set()).add(type(e))
    out: list[Event] = [created]
    state = initial_state(created)
    for e in events[1:]:
        if type(e) is ActionReceived and e.cause == -1:
            kinds = caused.get(e.seq, set())
            line = state.phase != BATTLE or bool(kinds & {TurnEnded, GameEnded, HardError})
            e = _replace(e, kind=LINE if line else ACTION)
        elif type(e) is CreatureSummoned:
            card = state.units[e.copy_of].card if e.copy_of else state.units[e.id].card
            keywords = card.keywords if e.copy_of else state.units[e.id].keywords
            e = _replace(e, can_attack=bool(keywords & CHARGE))
        elif type(e) is TurnStarted:
            p = e.player
            cleared = tuple(u.id for u in state.players[1 - p].board) if state.phase == BATTLE else ()
            e = _replace(e, ready=tuple(u.id for u in state.players[p].board), cleared=cleared)
        elif type(e) is CardPicked:
            e = _replace(e, ends_phase=e.player == 1 and e.round == _V1_DRAFT_ROUNDS - 1)
        elif type(e) is DeckChosen:
            e = _replace(e, ends_phase=e.player == 1)
        apply_all(state, (e,))
        out.append(e)
    return out
