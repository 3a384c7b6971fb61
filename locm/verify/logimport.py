"""One door for a game's log into the store, whatever its game: `import_log` (what `locm import FILE` calls for
a `locm play --log` or `locm serve --log` file).

The log is decoded by its game's codec, checked by the checker the store was handed (`locm.store.hooks.Checker`:
what `locm verify` checks of a log, LOCM's own checks through its definition's edges, the core's re-deciding
for a game without checks of its own) and stored under the id its content gives (`GameDef.game_id`, the id
`locm play --db` stores it under). What a game knows of its seats beyond the events (LOCM's hard errors and
timeouts) comes from its edges' ``seat_extras(events)`` (`locm.store.hooks.seat_extras_of`), never from a branch
on its name.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from locm.engine.errors import LocmError
from locm.engine.seam import game_id_of
from locm.errors import InputFileError, StoreError
from locm.events.base import tag_of
from locm.events.codec import DecodeError
from locm.store.hooks import seat_extras_of
from locm.store.provenance import Source, imported_source
from locm.store.records import GameExtras, utc_timestamp

_UNREADABLE = (KeyError, ValueError, IndexError, AttributeError, TypeError)
"""What the rules may raise on a forged log they cannot read (a one-line error, never a traceback)."""


def import_log(store: Any, game: Any, data: bytes, source: str, *, skip_existing: bool = False,
               origin: Source | None = None) -> tuple[str, bool]:
    """Store the game of ``game``'s event log ``data`` (read from ``source``) after the store's checker's checks
    (its built-in agents re-run among them); return (game id, stored). An identical game already stored is
    skipped with ``skip_existing``, else refused. Every refusal is an `InputFileError` (one line), a store
    opened without a checker a `StoreError`. ``origin``: the import's provenance (`locm.store.provenance`;
    default an untrusted import of ``source``), its ``sha256`` that of ``data``."""
    try:
        events = game.codec.from_jsonl(data)
    except DecodeError as exc:
        raise InputFileError(source, f"not a {game.title} log: {exc}") from None
    if not events or type(events[0]) is not game.created:
        raise InputFileError(source, f"not a {game.title} log: it does not start with {tag_of(game.created)}")
    if store.checker is None:
        raise StoreError(f"{store.path}: a log is checked before it is stored, by the checker its caller hands the "
                         "store (open_store(..., checker=...)): none was given")
    try:
        verdict = store.checker.game_problem(game, None, events)
    except LocmError as exc:
        raise InputFileError(source, f"the log does not follow the rules: {exc}") from None
    except _UNREADABLE as exc:
        raise InputFileError(source, f"the log does not follow the rules: {type(exc).__name__} {exc}") from None
    if not verdict.ok:
        raise InputFileError(source, f"the log does not follow the rules: {verdict.problem}")
    gid = game_id_of(game, events)
    if store.has_game(gid):
        same = [game.codec.to_json(e) for e in store.events(gid)] == [game.codec.to_json(e) for e in events]
        if skip_existing and same:
            return gid, False
        raise InputFileError(source, f"game {gid!r} is already in the store"
                             + ("" if skip_existing else " (--skip-existing skips identical games)"))
    seat_extras = seat_extras_of(game)
    origin = origin or imported_source(source, at=utc_timestamp())
    digest = hashlib.sha256(data).hexdigest()
    if origin.trusted and origin.sha256 and origin.sha256 != digest:
        raise InputFileError(source, "the bytes imported are not the bytes whose signature was checked (the file "
                                     "changed): nothing was stored")
    store.append_game(game, GameExtras(game_id=gid, seats=None if seat_extras is None else seat_extras(events)),
                      events, source=msgspec.structs.replace(origin, sha256=digest))
    return gid, True


__all__ = ["import_log"]
