"""JSON and MessagePack codecs for the event union: one encoder and one decoder each (STYLE 1).

Decoding refuses unknown fields, so a stored row that does not match the schema is an error, not a guess.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from locm.events.catalog import SCHEMA_VERSION, AnyEvent, Event

_json_enc = msgspec.json.Encoder()
_json_dec: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)
_json_list_dec: msgspec.json.Decoder[list[AnyEvent]] = msgspec.json.Decoder(list[AnyEvent])
_mp_enc = msgspec.msgpack.Encoder()
_mp_dec: msgspec.msgpack.Decoder[AnyEvent] = msgspec.msgpack.Decoder(AnyEvent)


class DecodeError(ValueError):
    """A serialized event does not decode to a known event of this schema version."""


def to_json(event: Event) -> bytes:
    return _json_enc.encode(event)


def from_json(data: bytes | str) -> Event:
    try:
        return _json_dec.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"not an event of schema {SCHEMA_VERSION}: {exc}") from None


def to_msgpack(event: Event) -> bytes:
    return _mp_enc.encode(event)


def from_msgpack(data: bytes) -> Event:
    try:
        return _mp_dec.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"not an event of schema {SCHEMA_VERSION}: {exc}") from None


def to_jsonl(events: Iterable[Event]) -> bytes:
    """The log as JSON lines: one event per line, each line ending in a newline."""
    enc = _json_enc.encode
    return b"".join(enc(e) + b"\n" for e in events)


def json_array(lines: bytes) -> bytes:
    """Events' canonical JSON joined by newlines (a stored log, `locm.store`) as one JSON array, so that a whole
    log decodes in one call. Exact: canonical JSON has no raw newline."""
    return b"[" + lines.replace(b"\n", b",") + b"]"


def from_json_array(data: bytes) -> list[AnyEvent]:
    """A JSON array of events (`json_array`), decoded in one call."""
    try:
        return _json_list_dec.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"not a list of events of schema {SCHEMA_VERSION}: {exc}") from None


def from_jsonl(data: bytes) -> list[Event]:
    return [from_json(line) for line in data.splitlines() if line.strip()]


__all__ = ["DecodeError", "to_json", "from_json", "to_msgpack", "from_msgpack", "to_jsonl", "from_jsonl",
           "json_array", "from_json_array"]
