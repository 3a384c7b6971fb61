"""JSON and MessagePack codecs for LOCM's event union: one encoder and one decoder each (STYLE 1), over the
generic `events.codec.Codec`.

Decoding refuses unknown fields, so a stored row that does not match the schema is an error, not a guess.
"""

from __future__ import annotations

import msgspec

from locm.events.codec import (DECODE_ERRORS, MAX_EVENTS, MAX_LINE, Codec, DecodeError, bounded_lines,
                               json_array)
from locm.events.locm.catalog import SCHEMA_VERSION, AnyEvent, Event

CODEC: Codec[Event] = Codec(AnyEvent, f"an event of schema {SCHEMA_VERSION}",
                            f"a list of events of schema {SCHEMA_VERSION}")
_mp_enc = msgspec.msgpack.Encoder()
_mp_dec: msgspec.msgpack.Decoder[AnyEvent] = msgspec.msgpack.Decoder(AnyEvent)

to_json = CODEC.to_json
from_json = CODEC.from_json
to_jsonl = CODEC.to_jsonl
from_jsonl = CODEC.from_jsonl
from_json_array = CODEC.from_json_array


def to_msgpack(event: Event) -> bytes:
    return _mp_enc.encode(event)


def from_msgpack(data: bytes) -> Event:
    try:
        return _mp_dec.decode(data)
    except DECODE_ERRORS as exc:
        raise DecodeError(f"not an event of schema {SCHEMA_VERSION}: {exc}") from None


__all__ = ["CODEC", "DecodeError", "to_json", "from_json", "to_msgpack", "from_msgpack", "to_jsonl", "from_jsonl",
           "json_array", "from_json_array", "bounded_lines", "MAX_LINE", "MAX_EVENTS", "DECODE_ERRORS"]
