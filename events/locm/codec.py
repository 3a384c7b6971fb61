"""JSON and MessagePack codecs for the event union: one encoder and one decoder each (STYLE 1).

Decoding refuses unknown fields, so a stored row that does not match the schema is an error, not a guess.
"""

from __future__ import annotations

from typing import IO, Iterable, Iterator

import msgspec

from locm.events.locm.catalog import SCHEMA_VERSION, AnyEvent, Event

_json_enc = msgspec.json.Encoder()
_json_dec: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)
_json_list_dec: msgspec.json.Decoder[list[AnyEvent]] = msgspec.json.Decoder(list[AnyEvent])
_mp_enc = msgspec.msgpack.Encoder()
_mp_dec: msgspec.msgpack.Decoder[AnyEvent] = msgspec.msgpack.Decoder(AnyEvent)


class DecodeError(ValueError):
    """A serialized event does not decode to a known event of this schema version."""


MAX_LINE = 1 << 20
"""The longest line (bytes) a reader takes from a file: an event, an export line. A bot's longest answer (64 KB,
`locm.bots.LINE_LIMIT`) fits escaped; a longer line is refused, naming it, before it is decoded."""
MAX_EVENTS = 1_000_000
"""The most events a reader takes for one game: far above any game (the hard cap R-CAP ends a game at 50,000;
games stored before it had at most a few hundred thousand)."""
DECODE_ERRORS = (msgspec.DecodeError, RecursionError, UnicodeDecodeError)
"""What a msgspec decode of untrusted bytes raises: bad JSON or a bad value, JSON nested too deeply (refused,
not a crash), bytes that are not UTF-8. Every reader catches these and says which line."""


def to_json(event: Event) -> bytes:
    return _json_enc.encode(event)


def from_json(data: bytes | str) -> Event:
    try:
        return _json_dec.decode(data)
    except DECODE_ERRORS as exc:
        raise DecodeError(f"not an event of schema {SCHEMA_VERSION}: {exc}") from None


def to_msgpack(event: Event) -> bytes:
    return _mp_enc.encode(event)


def from_msgpack(data: bytes) -> Event:
    try:
        return _mp_dec.decode(data)
    except DECODE_ERRORS as exc:
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
    except DECODE_ERRORS as exc:
        raise DecodeError(f"not a list of events of schema {SCHEMA_VERSION}: {exc}") from None


def from_jsonl(data: bytes) -> list[Event]:
    """The events of a JSON lines log; `DecodeError` naming the first line that is not an event, is longer
    than `MAX_LINE`, or is past `MAX_EVENTS`."""
    out: list[Event] = []
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise DecodeError(f"line {n}: longer than {MAX_LINE} bytes")
        if len(out) == MAX_EVENTS:
            raise DecodeError(f"line {n}: more than {MAX_EVENTS} events")
        try:
            out.append(from_json(line))
        except DecodeError as exc:
            raise DecodeError(f"line {n}: {exc}") from None
    return out


def bounded_lines(stream: IO[bytes] | Iterable[bytes], limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of a binary stream, each read with at most `limit` + 1 bytes in memory; a longer line is
    yielded as None (and the rest of it skipped), so the reader can refuse it by its number."""
    readline = getattr(stream, "readline", None)
    if readline is None:  # an iterable of lines already in memory
        for line in stream:
            yield None if len(line) > limit else line
        return
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while (rest := readline(1 << 16)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line


__all__ = ["DecodeError", "to_json", "from_json", "to_msgpack", "from_msgpack", "to_jsonl", "from_jsonl",
           "json_array", "from_json_array", "bounded_lines", "MAX_LINE", "MAX_EVENTS", "DECODE_ERRORS"]
