"""Re-deciding a log: rebuild the game from its `game_created`, feed every recorded input through `decide`
again, and compare what comes out with what the log says, event by event.

The hash chain proves that a log was not changed after it was written; re-deciding proves that what was
written follows the rules. A log whose events were edited and then re-chained passes the chain and fails
here, at the first event the rules would not have produced.

The inputs of a game are exactly its events with ``cause`` -1 after `game_created`:
- `ActionReceived` of kind ``line`` (a whole answer: `Game.answer`), ``action`` (one command of a built-in
  agent: `Game.submit`) or ``end_turn`` (`Game.end_turn`);
- `HardError` (a timeout, a crash, a flood: `Game.forfeit`).
Everything else must be caused by one of them, and must be what the rules make of it.

Under the native core (``LOCM_CORE``, `engine.corebuild.core`) a log of the current schema whose inputs are all
of built-in agents (``action``, ``end_turn``, `HardError`) is re-decided in C++ (`engine.locm.native.redecide`);
a log it finds wrong, or does not take (answer lines of external bots among them), is re-decided here as well,
so what is reported is always this module's.

Logs of the current schema are compared byte for byte (their JSON encoding, as stored). A log of an older
schema is upcast first and compared on its facts: the types and values of its events, without ``cause``,
``rule`` and the wording of ``reason`` (which later schemas record differently); the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, cast

import msgspec

from locm.events.locm.catalog import ACTION, END_TURN, LINE, SCHEMA_VERSION, ActionReceived, Event, GameCreated, HardError
from locm.events.locm.codec import to_json
from locm.engine.locm.commands import parse_command
from locm.engine.errors import LocmError
from locm.engine.seam import Divergence
from locm.engine.locm import native
from locm.engine.locm.game import Game
from locm.engine.locm.upcast import schema_of, upcast

_LENIENT_FIELDS = ("cause", "rule", "reason")


@dataclass(frozen=True)
class Redecided:
    """The outcome: ``divergence`` is None when every event is what the rules give. ``strict`` is False for a
    log of an older schema (compared on its facts)."""

    events: int
    inputs: int
    schema: int
    divergence: Divergence | None

    @property
    def ok(self) -> bool:
        return self.divergence is None

    @property
    def strict(self) -> bool:
        return self.schema >= SCHEMA_VERSION


def redecide(events: Iterable[Event]) -> Redecided:
    """Re-decide a complete log (any schema) and report the first event the rules do not give."""
    events = list(events)
    schema = schema_of(events)
    if schema >= SCHEMA_VERSION and _native_selected():
        fast = native.redecide(events)
        if fast is not None and fast[0] == 0:
            return Redecided(len(events), fast[2], schema, None)
    inputs = 0
    try:
        events = upcast(events)
    except LocmError as exc:
        return Redecided(len(events), 0, schema, Divergence(getattr(exc, "seq", 0), f"the log does not fold: {exc}"))
    if not events or type(events[0]) is not GameCreated:
        return Redecided(len(events), 0, schema, Divergence(0, "the log does not start with game_created"))
    same = _same_strict if schema >= SCHEMA_VERSION else _same_facts
    try:
        game = Game.from_created(events[0])
    except LocmError as exc:
        return Redecided(len(events), 0, schema, Divergence(0, f"the game cannot be created again: {exc}"))
    done = 0
    produced = game.log
    while True:
        bad = _compare(events, produced, done, same)
        if bad is not None:
            return Redecided(len(events), inputs, schema, bad)
        done = len(produced)
        if done >= len(events):
            break
        e = events[done]
        if game.ended:
            return Redecided(len(events), inputs, schema,
                             Divergence(e.seq, "the game is over here, yet the log goes on", _text(e)))
        try:
            feed_input(game, e)
        except LocmError as exc:
            return Redecided(len(events), inputs, schema,
                             Divergence(e.seq, f"this input cannot be played here: {exc}", _text(e)))
        inputs += 1
    if not game.ended:
        return Redecided(len(events), inputs, schema,
                         Divergence(len(events), "the log ends before the game does", "", ""))
    return Redecided(len(events), inputs, schema, None)


def _native_selected() -> bool:
    from locm.engine.corebuild import core

    return core().kind == "native"


def departures(events: Iterable[Event], limit: int = 200) -> list[Divergence]:
    """Every event of a log that the rules would not produce, each judged from the log's own state before it
    (not only the first, as `redecide` finds): a reader that shows a forged log marks each forged event.

    The log is cut at its recorded inputs; each input is fed to the state that the log's events before it
    fold to, and what the rules give is compared with the log's events up to the next input, position by
    position (an event the log lacks or has in excess is a departure too). After a departure the state is
    rebuilt from the log itself, so the events after it are judged on their own. At most ``limit`` are
    returned; where the log cannot be followed any further (it does not fold, an input cannot be played) the
    last entry says so."""
    events = list(events)
    schema = schema_of(events)
    try:
        events = upcast(events)
    except LocmError as exc:
        return [Divergence(getattr(exc, "seq", 0), f"the log does not fold: {exc}")]
    if not events or type(events[0]) is not GameCreated:
        return [Divergence(0, "the log does not start with game_created")]
    same = _same_strict if schema >= SCHEMA_VERSION else _same_facts
    try:
        game = Game.from_created(events[0])
    except Exception as exc:  # a made-up game_created (seeds missing, ...) may break creation anywhere
        return [Divergence(0, f"the game cannot be created again from its game_created: {exc}")]
    inputs = [e.seq for e in events[1:] if e.cause == -1 and isinstance(e, (ActionReceived, HardError))]
    found: list[Divergence] = []
    start = 0
    for end in inputs + [len(events)]:
        produced = game.log[start:]
        bad = _segment(events[start:end], produced, start, same)
        found += bad
        if len(found) >= limit:
            return found[:limit]
        if end == len(events):
            if not bad and not game.ended:
                found.append(Divergence(len(events), "the log ends before the game does"))
            break
        if bad:  # judge what follows from the log's own state
            try:
                game = Game.from_log(events[:end])
            except Exception as exc:  # a forged log may break the fold anywhere
                found.append(Divergence(end, f"the log cannot be followed from here: it does not fold: {exc}"))
                break
        if game.ended:
            found.append(Divergence(end, "the game is over here, yet the log goes on", _text(events[end])))
            break
        try:
            feed_input(game, events[end])
        except LocmError as exc:
            found.append(Divergence(end, f"this input cannot be played here: {exc}", _text(events[end])))
            break
        except Exception as exc:  # a state rebuilt from a forged log (a card pool edited) may break decide
            found.append(Divergence(end, f"this input cannot be played on the log's own state here "
                                         f"({type(exc).__name__}: {exc})", _text(events[end])))
            break
        start = end
    return found


def _segment(stored: list[Event], produced: list[Event], start: int, same: Callable[[Event, Event], bool]
             ) -> list[Divergence]:
    out = []
    for k in range(max(len(stored), len(produced))):
        if k >= len(stored):
            out.append(Divergence(start + k, "the rules give an event the log does not have", "", _text(produced[k])))
        elif k >= len(produced):
            out.append(Divergence(start + k, "the log has an event the rules do not give", _text(stored[k]), ""))
        elif not same(stored[k], produced[k]):
            out.append(Divergence(start + k, "the event differs from what the rules give", _text(stored[k]),
                                  _text(produced[k])))
    return out


def feed_input(game: Game, e: Event) -> None:
    """Play one recorded input (an uncaused `action_received` or `hard_error`) into `game`; a `LocmError`
    when `e` is not one or is not the player's to move."""
    if e.cause != -1 or not isinstance(e, (ActionReceived, HardError)):
        raise _NotAnInput(f"{_tag(e)} is not caused by a recorded input")
    if game.to_move != e.player:
        raise _NotAnInput(f"the input is player {e.player}'s, but player {game.to_move} is to move")
    if isinstance(e, HardError):
        game.forfeit(e.player, e.reason, e.text)
    elif e.kind == LINE:
        game.answer(e.player, e.text)
    elif e.kind == END_TURN:
        game.end_turn()
    elif e.kind == ACTION:
        game.submit(parse_command(e.text, e.player, game.phase))
    else:
        raise _NotAnInput(f"unknown kind of input {e.kind!r}")


class _NotAnInput(LocmError):
    """An event where the log should hold a recorded input."""


def _compare(
    stored: list[Event], produced: list[Event], start: int, same: Callable[[Event, Event], bool]
) -> Divergence | None:
    for i in range(start, len(produced)):
        got = produced[i]
        if i >= len(stored):
            return Divergence(got.seq, "the rules give an event the log does not have", "", _text(got))
        if not same(stored[i], got):
            return Divergence(stored[i].seq, "the event differs from what the rules give", _text(stored[i]),
                              _text(got))
    return None


def _same_strict(a: Event, b: Event) -> bool:
    return to_json(a) == to_json(b)


def _same_facts(a: Event, b: Event) -> bool:
    if type(a) is not type(b):
        return False
    fa, fb = msgspec.structs.asdict(a), msgspec.structs.asdict(b)
    for name in _LENIENT_FIELDS:
        fa.pop(name, None)
        fb.pop(name, None)
    if type(a) is GameCreated:
        fa.pop("schema_version", None)
        fb.pop("schema_version", None)
    return fa == fb


def _text(e: Event) -> str:
    return to_json(e).decode()


def _tag(e: Event) -> str:
    return cast(str, type(e).__struct_config__.tag)  # every event names its tag


__all__ = ["redecide", "departures", "feed_input", "Redecided", "Divergence"]
