"""The generic JSON codec of one game's event union (`Codec`), and the bounds every reader of a log keeps.

A game builds one `Codec` over its union (STYLE 1: one encoder, one decoder): its events' canonical JSON
(``to_json``, what the store hashes and keeps), a log as JSON lines and back, and a whole log as one JSON
array (one decode call: how the store reads a game). Decoding refuses unknown fields and unknown tags, so a
line that does not match the schema is an error naming its line, not a guess.
"""

from __future__ import annotations

from typing import IO, Any, Callable, Generic, Iterable, Iterator, TypeVar

import msgspec

from locm.events.base import Event

E = TypeVar("E", bound=Event)

MAX_LINE = 1 << 20
"""The longest line (bytes) a reader takes from a file: an event, an export line. A bot's longest answer (64 KB,
`locm.runner.botprocess.LINE_LIMIT`) fits escaped; a longer line is refused, naming it, before it is decoded."""
MAX_EVENTS = 1_000_000
"""The most events a reader takes for one game: far above any game (LOCM's hard cap R-CAP ends a game at
50,000; games stored before it had at most a few hundred thousand)."""
DECODE_ERRORS = (msgspec.DecodeError, RecursionError, UnicodeDecodeError)
"""What a msgspec decode of untrusted bytes raises: bad JSON or a bad value, JSON nested too deeply (refused,
not a crash), bytes that are not UTF-8. Every reader catches these and says which line."""


class DecodeError(ValueError):
    """Serialized events that do not decode to events of a game's schema; ``line`` is the 1-based line of a log
    where it happened (0 for one event or an array)."""

    def __init__(self, message: str, line: int = 0) -> None:
        self.line = line
        super().__init__(message)


class Codec(Generic[E]):
    """The JSON codec of one game's union. ``what`` names one event in messages (``"an event of schema 2"``).

    ``to_json`` is the encoder's own bound method (no wrapper: it runs once per event stored)."""

    def __init__(self, union: Any, what: str, array_what: str = "") -> None:
        self.what = what
        self.types: tuple[type, ...] = getattr(union, "__args__", None) or (union,)
        """The event classes of the union."""
        self.array_what = array_what or f"a list of {what.removeprefix('an ').removeprefix('a ')}s"
        enc = msgspec.json.Encoder()
        self._dec: msgspec.json.Decoder[E] = msgspec.json.Decoder(union)
        self._list_dec: msgspec.json.Decoder[list[E]] = msgspec.json.Decoder(list[union])
        self.to_json: Callable[[Any], bytes] = enc.encode
        self._encode = enc.encode

    def from_json(self, data: bytes | str) -> E:
        try:
            return self._dec.decode(data)
        except DECODE_ERRORS as exc:
            raise DecodeError(f"not {self.what}: {exc}") from None

    def to_jsonl(self, events: Iterable[E]) -> bytes:
        """The log as JSON lines: one event per line, each line ending in a newline."""
        enc = self._encode
        return b"".join(enc(e) + b"\n" for e in events)

    def from_jsonl(self, data: bytes) -> list[E]:
        """The events of a JSON lines log (blank lines skipped); `DecodeError` naming the first line that is
        not an event, is longer than `MAX_LINE`, or is past `MAX_EVENTS`."""
        out: list[E] = []
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            if len(line) > MAX_LINE:
                raise DecodeError(f"line {n}: longer than {MAX_LINE} bytes", n)
            if len(out) == MAX_EVENTS:
                raise DecodeError(f"line {n}: more than {MAX_EVENTS} events", n)
            try:
                out.append(self.from_json(line))
            except DecodeError as exc:
                raise DecodeError(f"line {n}: {exc}", n) from None
        return out

    def from_json_array(self, data: bytes) -> list[E]:
        """A JSON array of events (`json_array`), decoded in one call."""
        try:
            return self._list_dec.decode(data)
        except DECODE_ERRORS as exc:
            raise DecodeError(f"not {self.array_what}: {exc}") from None

    def decodes(self, line: bytes) -> bool:
        """Whether `line` is one event of this union (how a reader tells a log's game by its first line)."""
        try:
            self._dec.decode(line)
        except DECODE_ERRORS:
            return False
        return True


def json_array(lines: bytes) -> bytes:
    """Events' canonical JSON joined by newlines (a stored log, `locm.store.eventstore`) as one JSON array, so that a whole
    log decodes in one call. Exact: canonical JSON has no raw newline."""
    return b"[" + lines.replace(b"\n", b",") + b"]"


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


__all__ = ["Codec", "DecodeError", "json_array", "bounded_lines", "MAX_LINE", "MAX_EVENTS", "DECODE_ERRORS"]
