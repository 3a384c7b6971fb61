"""A forger's tools, for the tests: edit a game's events or record and recompute everything a checksum covers
(the hash chain, the record's derived fields and head hash, the export's totals), as someone who knows the
formats would. What is left to catch a forgery is what the rules and the ids say."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import msgspec

from locm.events.locm.catalog import Event
from locm.events.locm.codec import from_json
from locm.store.eventstore import GameExtras, GameRecord, MemoryStore
from locm.store.export import _FlatRecord, _record_of
from locm.engine.locm.definition import GAME as LOCM_GAME

EditEvents = Callable[[list[Event]], list[Event]]


def games_of(export: bytes) -> list[tuple[GameRecord, list[Event]]]:
    """The games of an export file: each record and its events."""
    out = []
    for line in export.splitlines()[1:-1]:
        obj = json.loads(line)
        if "game" in obj:
            out.append((_record_of(msgspec.convert(obj["game"], _FlatRecord)), []))
        else:
            out[-1][1].append(from_json(json.dumps(obj["event"], separators=(",", ":"))))
    return out


def reforge(export: bytes, edit: EditEvents | None = None, *, game: int = 0, game_id: str | None = None) -> bytes:
    """The export with game number ``game`` edited (its events through ``edit``, its id replaced by
    ``game_id``) and everything re-chained: a file that every checksum accepts."""
    store = MemoryStore()
    for i, (record, events) in enumerate(games_of(export)):
        extras = record.extras()
        if i == game:
            if edit is not None:
                events = [msgspec.structs.replace(e, seq=k) for k, e in enumerate(edit(events))]
            if game_id is not None:
                extras = msgspec.structs.replace(extras, game_id=game_id)
        store.append_game(LOCM_GAME, extras, events)
    buf = io.BytesIO()
    store.export_jsonl(None, buf)
    return buf.getvalue()


def replace_event(events: list[Event], kind: str, n: int = 0, **changes) -> list[Event]:
    """The log with the ``n``-th event of type ``kind`` (its class name) changed."""
    found = [i for i, e in enumerate(events) if type(e).__name__ == kind]
    k = found[n]
    return events[:k] + [msgspec.structs.replace(events[k], **changes)] + events[k + 1:]
