"""`open_game`: every game a user has, of any registered game, as one `Replay`.

- a stored game: ``open_game(db="locm.db", game_id="1.2-7-01ab")`` (a unique prefix of the id is enough);
- an event log written by ``locm play --log`` or ``locm serve --log`` (JSON lines): ``open_game("game.jsonl")``;
- a file of a game's own kind, read by its wing (`replay.wing.Wing.file_kind`): an official LOCM referee log
  (one game per line, plain or .gz): ``open_game("official.txt.gz", game=3)``, replayed through the engine
  exactly as ``locm conformance`` does (`replay.locm.referee`).
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import msgspec

from locm.engine.errors import LocmError, UnknownBehaviourError
from locm.events.codec import DECODE_ERRORS, DecodeError
from locm.replay.game import Replay, ReplaySourceError, game_of
from locm.replay.wing import wing_of

_GZIP_MAGIC = b"\x1f\x8b"


def open_game(path: str | Path | None = None, *, db: str | Path | None = None, game_id: str | None = None,
              game: int | None = None) -> Replay:
    """One game as a `Replay`: from a store (``db`` and ``game_id``), an event log or a file a game's wing
    reads (``game``: which game of a file of several)."""
    if db is not None:
        if game_id is None:
            raise ReplaySourceError("a stored game needs its id (or a unique prefix of it)")
        return open_stored(db, game_id)
    if path is None:
        raise ReplaySourceError("give a log file, or --db FILE and a game id")
    kind, data = sniff(path)
    source = "<stdin>" if str(path) == "-" else str(path)
    first = next((line for line in data.splitlines() if line.strip()), b"")
    found = game_of_line(first) if kind == "match" else None
    if found is not None or kind == "events":
        if game is not None:
            raise ReplaySourceError(f"{path}: an event log holds one game; --game is for official logs")
        if found is None:
            found = _claimed(first)[0]
        try:
            events = found.codec.from_jsonl(data)
        except (LocmError, DecodeError) as exc:
            what = "an event log" if kind == "events" else f"a {found.title} log"
            raise ReplaySourceError(f"{path}: not {what}: {exc}") from None
        return checked_replay(events, source, game=found)
    wing = _claimed(first)[1]
    return wing.open_file(kind, path, data, game)


def sniff(path: str | Path) -> tuple[str, bytes]:
    """``(kind, bytes)`` of a file that may be a game (``match``: a registered game's event log; ``events``,
    ``official``...: a kind a game's wing reads), or `ReplaySourceError` naming what it is not."""
    kind, data = read_source(path)
    if kind == "export":
        p = Path("<stdin>" if str(path) == "-" else path)
        raise ReplaySourceError(f"{p}: is a store export: 'locm import {p} --db DB' it, then use --db DB GAME_ID")
    if kind != "match":
        first = next((line for line in data.splitlines() if line.strip()), b"")
        refusal = _claimed(first)[1].refusal(kind, str(path))
        if refusal:
            raise ReplaySourceError(refusal)
    return kind, data


def read_source(path: str | Path) -> tuple[str, bytes]:
    """``("events" | "official" | "export", bytes)`` for a file (``-``: standard input; gzip is
    decompressed), or `ReplaySourceError` naming what it is not."""
    p = Path(path)
    if str(path) == "-":  # standard input: an event log or an official log piped in
        p = Path("<stdin>")
        data = _bounded(p, sys.stdin.buffer.read(MAX_FILE + 1))
    elif p.is_dir():
        raise ReplaySourceError(f"{p}: is a directory, not a log file")
    else:
        data = _read(p)
    return _sniffed(p, data)


MAX_FILE = 256 << 20
"""The most bytes a log file may hold, decompressed (an event log of `codec.MAX_EVENTS` events is smaller)."""


def _read(p: Path) -> bytes:
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_FILE + 1)
    except FileNotFoundError:
        raise ReplaySourceError(f"{p}: no such file") from None
    except OSError as exc:
        raise ReplaySourceError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return _bounded(p, data)


def _bounded(p: Path, data: bytes) -> bytes:
    if len(data) > MAX_FILE:
        raise ReplaySourceError(f"{p}: larger than {MAX_FILE >> 20} MiB: not a game's log")
    return data


class _Sniff(msgspec.Struct):
    """What the first line of a store export says it is (nothing else of it is decoded)."""

    locm_export: msgspec.Raw = msgspec.Raw(b"")


def _sniffed(p: Path, data: bytes) -> tuple[str, bytes]:
    if data[:2] == _GZIP_MAGIC:
        try:
            inflate = zlib.decompressobj(wbits=31)
            data = _bounded(p, inflate.decompress(data, MAX_FILE + 1))
            if not inflate.eof:
                raise zlib.error("the compressed data ends early (truncated?)")
        except zlib.error as exc:
            raise ReplaySourceError(f"{p}: cannot decompress: {exc}") from None
    if data[:16] == b"SQLite format 3\x00":
        raise ReplaySourceError(f"{p}: is an event store: use --db {p} GAME_ID")
    first = next((line for line in data.splitlines() if line.strip()), b"")
    try:
        obj = msgspec.json.decode(first.strip()[:first.strip().rfind(b"}") + 1], type=_Sniff)
    except DECODE_ERRORS:
        raise ReplaySourceError(f"{p}: not an event log (JSON lines) or an official referee log") from None
    if game_of_line(first) is not None:
        return "match", data  # a log of another registered game (`engine.registry`)
    claimed = _claimed(first)
    if claimed is not None:
        return claimed[2], data  # a kind of file a game's wing reads (`replay.wing.Wing.file_kind`)
    if obj.locm_export:
        return "export", data
    raise ReplaySourceError(f"{p}: not an event log (first event is not game_created) or an official "
                            "referee log")


def _claimed(first: bytes):
    """(game, wing, kind) of the first registered game whose wing claims a file by its first line, or None."""
    from locm.engine import registry

    for name in registry.GAMES:
        game = registry.get(name)
        wing = wing_of(game)
        kind = wing.file_kind(first)
        if kind is not None:
            return game, wing, kind
    return None


def game_of_line(line: bytes):
    """The registered game whose created event `line` is, other than the default game (None: the default
    game's, or no game's: its wing reads its logs, `replay.wing.Wing.file_kind`)."""
    from locm.engine import registry

    line = line.strip()
    default = registry.get(registry.DEFAULT)
    if default.codec.decodes(line) and type(default.codec.from_json(line)) is default.created:
        return None  # LOCM's: no other game's, and no package's entry points read for it
    for game in registry.definitions():  # the built-in games, then those of other packages that load
        if game.name == registry.DEFAULT:
            continue
        if game.codec.decodes(line) and type(game.codec.from_json(line)) is game.created:
            return game
    return None


def checked_replay(events: list, source: str, meta: dict | None = None, untrusted: str = "", *,
                   game=None) -> Replay:
    """A `Replay` of a log that nothing vouches for (a file, standard input, a stored game whose chain does
    not hold): re-decided from its inputs, every departure from the rules kept with it (`Replay.warning`)."""
    game = game if game is not None else game_of(events)
    wing = wing_of(game)
    try:
        departures = wing.departures(game, list(events))
    except UnknownBehaviourError as exc:  # a later engine's game: readable, but not re-decided here
        raise ReplaySourceError(f"{source or 'log'}: {exc}") from None
    except LocmError as exc:
        raise ReplaySourceError(wing.unreadable(game, source, exc)) from None
    except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:  # a forged log the rules cannot read
        raise ReplaySourceError(wing.unreadable(game, source, f"{type(exc).__name__} {exc}")) from None
    return Replay(events, source=source, meta=meta, departures=departures, untrusted=untrusted, game=game)


def open_stored(db: str | Path, game_id: str) -> Replay:
    """A stored game of any game (``game_id``: its id or a unique prefix of it). Its hash chain is checked as
    it is read: a game whose chain holds is what was stored (and checked) then; one whose chain does not is
    shown re-decided, its departures from the rules named."""
    from locm.engine import registry
    from locm.errors import ChainError
    from locm.store.eventstore import open_store  # the store is an edge: imported only when a store is used

    untrusted = ""
    with open_store(db, create=False, readonly=True) as store:
        gid = resolve_id(store, game_id)
        row = store.game(gid)
        try:
            events = store.verified_events(gid)
        except ChainError as exc:
            untrusted = f"its stored hash chain does not hold ({str(exc).removeprefix(f'game {gid!r}: ')})"
            events = store.events(gid)
    game = registry.get(row.game)
    try:
        meta = json.loads(row.meta)
    except ValueError:
        meta = {}
    meta = {"game_id": gid, "agents": list(row.agents), **(meta if isinstance(meta, dict) else {})}
    if untrusted:
        return checked_replay(events, f"{db} {gid}", meta, untrusted, game=game)
    return Replay(events, source=f"{db} {gid}", meta=meta, game=game)


def resolve_id(store, game_id: str) -> str:
    """The stored id that ``game_id`` names exactly or as a unique prefix."""
    found = store.ids_named(game_id)
    if not found:
        raise ReplaySourceError(f"no game {game_id!r} in {store.path} (see 'locm games --db {store.path}')")
    if len(found) > 1:
        raise ReplaySourceError(f"game id prefix {game_id!r} is ambiguous in {store.path}: {found[0]}, "
                                f"{found[1]}, ...")
    return found[0]


__all__ = ["open_game", "open_stored", "checked_replay", "read_source", "resolve_id", "sniff", "game_of_line",
           "MAX_FILE", "LocmError"]
