"""JSON codecs of my-card-game's two logs: a match's events and an account's (STYLE 1). One encoder, one
decoder per union; decoding refuses unknown fields and unknown tags, so a line that does not match the schema
is an error, not a guess."""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

import msgspec

from locm.events.mcg.account import AccountEvent, AnyAccountEvent
from locm.events.mcg.catalog import SCHEMA_VERSION, AnyEvent, Event

_enc = msgspec.json.Encoder()
_dec: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)
_account_dec: msgspec.json.Decoder[AnyAccountEvent] = msgspec.json.Decoder(AnyAccountEvent)


class DecodeError(ValueError):
    """A line that is not an event of this schema (``line``: its 1-based number in a log, 0 for one event)."""

    def __init__(self, message: str, line: int = 0) -> None:
        self.line = line
        super().__init__(message)


def to_json(event: Event | AccountEvent) -> bytes:
    return _enc.encode(event)


def from_json(data: bytes | str) -> Event:
    try:
        return _dec.decode(data)
    except msgspec.DecodeError as exc:  # msgspec.ValidationError is a DecodeError
        raise DecodeError(f"not a my-card-game event of schema {SCHEMA_VERSION}: {exc}") from None


def account_event_from_json(data: bytes | str) -> AccountEvent:
    try:
        return _account_dec.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"not a my-card-game account event: {exc}") from None


def to_jsonl(events: Iterable[Event | AccountEvent]) -> bytes:
    """A log as JSON lines, one event per line."""
    return b"".join(_enc.encode(e) + b"\n" for e in events)


def from_jsonl(data: bytes) -> list[Event]:
    return _lines(data, from_json)


def account_from_jsonl(data: bytes) -> list[AccountEvent]:
    return _lines(data, account_event_from_json)


T = TypeVar("T")


def _lines(data: bytes, decode: Callable[[bytes], T]) -> list[T]:
    out = []
    for n, line in enumerate(data.splitlines(), 1):
        if line.strip():
            try:
                out.append(decode(line))
            except DecodeError as exc:
                raise DecodeError(f"line {n}: {exc}", n) from None
    return out


__all__ = ["DecodeError", "to_json", "from_json", "account_event_from_json", "to_jsonl", "from_jsonl",
           "account_from_jsonl"]
