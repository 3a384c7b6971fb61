"""JSON codec of the Skyport event union (STYLE 1), over the generic `events.codec.Codec`: decoding refuses
unknown fields and unknown tags, so a line that does not match the schema is an error, not a guess."""

from __future__ import annotations

from locm.events.codec import Codec, DecodeError
from locm.events.skyport.catalog import SCHEMA_VERSION, AnyEvent, Event

CODEC: Codec[Event] = Codec(AnyEvent, f"a Skyport event of schema {SCHEMA_VERSION}")

to_json = CODEC.to_json
from_json = CODEC.from_json
to_jsonl = CODEC.to_jsonl
from_jsonl = CODEC.from_jsonl

__all__ = ["CODEC", "DecodeError", "to_json", "from_json", "to_jsonl", "from_jsonl"]
