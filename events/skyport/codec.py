"""JSON codec of the Skyport event union: one encoder, one decoder (STYLE 1). Decoding refuses unknown
fields and unknown tags, so a line that does not match the schema is an error, not a guess."""

from __future__ import annotations

from typing import Iterable

import msgspec

from locm.events.skyport.catalog import SCHEMA_VERSION, AnyEvent, Event

_enc = msgspec.json.Encoder()
_dec: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)


class DecodeError(ValueError):
    """A serialized event does not decode to a Skyport event of this schema version."""


def to_json(event: Event) -> bytes:
    return _enc.encode(event)


def from_json(data: bytes | str) -> Event:
    try:
        return _dec.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"not a Skyport event of schema {SCHEMA_VERSION}: {exc}") from None


def to_jsonl(events: Iterable[Event]) -> bytes:
    """The log as JSON lines, one event per line."""
    return b"".join(_enc.encode(e) + b"\n" for e in events)


def from_jsonl(data: bytes) -> list[Event]:
    return [from_json(line) for line in data.splitlines() if line.strip()]


__all__ = ["DecodeError", "to_json", "from_json", "to_jsonl", "from_jsonl"]
