"""JSON codecs of my-card-game's two logs, a match's events and an account's (STYLE 1), over the generic
`events.codec.Codec`: one encoder, one decoder per union; decoding refuses unknown fields and unknown tags, so
a line that does not match the schema is an error naming its line, not a guess."""

from __future__ import annotations

from locm.events.codec import Codec, DecodeError
from locm.events.mcg.account import AccountEvent, AnyAccountEvent
from locm.events.mcg.catalog import SCHEMA_VERSION, AnyEvent, Event

CODEC: Codec[Event] = Codec(AnyEvent, f"a my-card-game event of schema {SCHEMA_VERSION}")
ACCOUNT_CODEC: Codec[AccountEvent] = Codec(AnyAccountEvent, "a my-card-game account event")

to_json = CODEC.to_json
from_json = CODEC.from_json
to_jsonl = CODEC.to_jsonl
from_jsonl = CODEC.from_jsonl
account_event_from_json = ACCOUNT_CODEC.from_json
account_from_jsonl = ACCOUNT_CODEC.from_jsonl

__all__ = ["CODEC", "ACCOUNT_CODEC", "DecodeError", "to_json", "from_json", "account_event_from_json", "to_jsonl",
           "from_jsonl", "account_from_jsonl"]
