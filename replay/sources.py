"""`open_game`: every game a user has, as one `Replay`.

- a stored game: ``open_game(db="locm.db", game_id="1.2-7-01ab")`` (a unique prefix of the id is enough);
- an event log written by ``locm play --log`` (JSON lines): ``open_game("game.jsonl")``;
- an official referee log (one game per line, plain or .gz): ``open_game("official.txt.gz", game=3)``, replayed
  through the engine exactly as ``locm conformance`` does (`replay.locm.conformance.check_game`); a game that does
  not replay identically is refused with the conformance message.

`referee_games` turns a whole official log file into stored-game form (`locm import-referee`).
"""

from __future__ import annotations

import hashlib
import json
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from locm.engine.errors import LocmError
from locm.events.locm.codec import DECODE_ERRORS, DecodeError, from_json, from_jsonl
from locm.replay.game import Replay, ReplaySourceError

if TYPE_CHECKING:
    from locm.replay.locm.conformance import LoggedGame

_GZIP_MAGIC = b"\x1f\x8b"


def open_game(path: str | Path | None = None, *, db: str | Path | None = None, game_id: str | None = None,
              game: int | None = None) -> Replay:
    """One game as a `Replay`: from a store (``db`` and ``game_id``), an event log or an official log."""
    if db is not None:
        if game_id is None:
            raise ReplaySourceError("a stored game needs its id (or a unique prefix of it)")
        return open_stored(db, game_id)
    if path is None:
        raise ReplaySourceError("give a log file, or --db FILE and a game id")
    kind, data = sniff(path)
    if kind == "match":  # a log of another registered game: the viewer shell over its definition
        from locm.replay.match import MatchReplay

        if game is not None:
            raise ReplaySourceError(f"{path}: an event log holds one game; --game is for official logs")
        found = game_of_line(next(line for line in data.splitlines() if line.strip()))
        try:
            events = found.codec.from_jsonl(data)
        except (LocmError, DecodeError) as exc:
            raise ReplaySourceError(f"{path}: not a {found.title} log: {exc}") from None
        return MatchReplay(found, events, "<stdin>" if str(path) == "-" else str(path))
    if kind == "events":
        if game is not None:
            raise ReplaySourceError(f"{path}: an event log holds one game; --game is for official logs")
        try:
            events = from_jsonl(data)
        except DecodeError as exc:
            raise ReplaySourceError(f"{path}: not an event log: {exc}") from None
        return checked_replay(events, "<stdin>" if str(path) == "-" else str(path))
    logged, count = _pick_logged(path, data, game)
    return replay_logged(logged, str(path), count)


def sniff(path: str | Path) -> tuple[str, bytes]:
    """``("events" | "official" | "match", bytes)`` for a file, or `ReplaySourceError` naming what it is not."""
    kind, data = read_source(path)
    if kind == "account":
        raise ReplaySourceError(f"{path}: a my-card-game account's log, not a game: 'locm verify {path}' checks it")
    if kind == "export":
        p = Path("<stdin>" if str(path) == "-" else path)
        raise ReplaySourceError(f"{p}: is a store export: 'locm import {p} --db DB' it, then use --db DB GAME_ID")
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
    """What the first line of a log says it is (nothing else of it is decoded)."""

    type: object = None
    outputs: msgspec.Raw = msgspec.Raw(b"")
    errors: msgspec.Raw = msgspec.Raw(b"")
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
    if obj.type == "mcg_account_opened":
        return "account", data  # a my-card-game account's log (its collection economy)
    if obj.type == "game_created":
        return "events", data
    if obj.outputs and obj.errors:
        return "official", data
    if obj.locm_export:
        return "export", data
    raise ReplaySourceError(f"{p}: not an event log (first event is not game_created) or an official "
                            "referee log")


def game_of_line(line: bytes):
    """The registered game other than LOCM whose created event `line` is (None: LOCM's, or no game's)."""
    from locm.engine import registry

    line = line.strip()
    for name in registry.GAMES:
        if name == registry.DEFAULT:
            continue
        game = registry.get(name)
        if game.codec.decodes(line) and type(game.codec.from_json(line)) is game.created:
            return game
    return None


def _pick_logged(path, data: bytes, game: int | None) -> tuple[LoggedGame, int]:
    from locm.replay.locm.conformance import ConformanceFileError, parse_log_line  # only for official logs

    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    if game is None:
        if len(lines) != 1:
            raise ReplaySourceError(f"{path}: an official log of {len(lines)} games: pick one with --game K "
                                    f"(0..{len(lines) - 1})")
        game = 0
    if not 0 <= game < len(lines):
        raise ReplaySourceError(f"{path}: --game must be in 0..{len(lines) - 1}, got {game}")
    try:
        return parse_log_line(lines[game], game, str(path), game + 1), len(lines)
    except ConformanceFileError as exc:
        raise ReplaySourceError(str(exc)) from None


def replay_logged(logged: LoggedGame, path: str, count: int = 0) -> Replay:
    return Replay(_replayed(logged, path), source=f"{path} game {logged.index}", meta=referee_meta(logged, path))


def _replayed(logged: LoggedGame, path: str | Path) -> list:
    """The event log of an official game replayed through the engine, or `ReplaySourceError` if the engine
    does not send every input the referee sent."""
    from locm.replay.locm.conformance import check_game

    res = check_game(logged, keep_game=True)
    if not res.identical:
        raise ReplaySourceError(f"{path}: game {logged.index} does not replay identically: {res.summary()}")
    return res.game.log


def referee_meta(logged: LoggedGame, path: str) -> dict:
    return {"source": "official referee log", "file": Path(path).name, "game": logged.index,
            "scores": list(logged.scores), "params": logged.params}


def checked_replay(events: list, source: str, meta: dict | None = None, untrusted: str = "") -> Replay:
    """A `Replay` of a log that nothing vouches for (a file, standard input, a stored game whose chain does
    not hold): re-decided from its inputs, every departure from the rules kept with it (`Replay.warning`)."""
    from locm.engine.locm.redecide import departures

    return Replay(events, source=source, meta=meta, departures=departures(events), untrusted=untrusted)


def open_stored(db: str | Path, game_id: str) -> Replay:
    """A stored game (``game_id``: its id or a unique prefix of it). Its hash chain is checked as it is read:
    a game whose chain holds is what was stored (and checked) then; one whose chain does not is shown
    re-decided, its departures from the rules named."""
    from locm.errors import ChainError
    from locm.store.eventstore import open_store  # the store is an edge: imported only when a store is used

    untrusted = ""
    with open_store(db, create=False, readonly=True) as store:
        gid = resolve_id(store, game_id)
        row = store.match(gid)
        if row.game != "locm":  # another registered game: its chain checked as it is read
            from locm.engine.registry import get
            from locm.replay.match import MatchReplay

            try:
                return MatchReplay(get(row.game), store.verified_match_events(gid), f"{db} {gid}", trusted=True)
            except ChainError:
                return MatchReplay(get(row.game), store.match_events(gid), f"{db} {gid}")
        record = store.game(gid)
        try:
            events = store.verified_events(gid)
        except ChainError as exc:
            untrusted = f"its stored hash chain does not hold ({str(exc).removeprefix(f'game {gid!r}: ')})"
            events = store.events(gid)
    try:
        meta = json.loads(record.meta)
    except ValueError:
        meta = {}
    meta = {"game_id": gid, "agents": [record.agent0, record.agent1], **(meta if isinstance(meta, dict) else {})}
    if untrusted:
        return checked_replay(events, f"{db} {gid}", meta, untrusted)
    return Replay(events, source=f"{db} {gid}", meta=meta)


def resolve_id(store, game_id: str) -> str:
    """The stored id that ``game_id`` names exactly or as a unique prefix."""
    found = store.ids_named(game_id)
    if not found:
        raise ReplaySourceError(f"no game {game_id!r} in {store.path} (see 'locm games --db {store.path}')")
    if len(found) > 1:
        raise ReplaySourceError(f"game id prefix {game_id!r} is ambiguous in {store.path}: {found[0]}, "
                                f"{found[1]}, ...")
    return found[0]


# --- import of official logs -------------------------------------------------------------------------------


@dataclass
class RefereeGame:
    game_id: str
    events: list
    meta: dict


def referee_logs(path: str | Path) -> list[LoggedGame]:
    """The games of an official log file, parsed (not yet replayed)."""
    from locm.replay.locm.conformance import ConformanceFileError, read_log_file

    try:
        return list(read_log_file(path))
    except ConformanceFileError as exc:
        raise ReplaySourceError(str(exc)) from None


def referee_game(logged: LoggedGame, path: str | Path) -> RefereeGame:
    """One official game replayed through the engine, or `ReplaySourceError` if it does not replay
    identically. Its id names its content (`locm.engine.locm.gameid.referee_id`: its game_created and its inputs)."""
    from locm.engine.locm.gameid import referee_id

    events = _replayed(logged, path)
    return RefereeGame(referee_id(events), events, referee_meta(logged, str(path)))


def referee_games(path: str | Path) -> list[RefereeGame]:
    """Every game of an official log file replayed, or `ReplaySourceError` for the first game that does not
    replay identically (so a file is imported all or none)."""
    return [referee_game(logged, path) for logged in referee_logs(path)]


def referee_game_id(logged: LoggedGame) -> str:
    """The id that locm gave a referee game before ids named their content (`locm.engine.locm.gameid`): ``ref-<ruleset>-
    <seed>-<12 hex>``, the hash over the file's parameters and answers. `locm import-referee` looks it up, so
    that a store made then does not get the same game again under its new id."""
    key = json.dumps([logged.ruleset, sorted(logged.params.items()), [t[3] for t in logged.turns]],
                     separators=(",", ":"), ensure_ascii=False)
    seed = logged.params.get("seed", "x")
    return f"ref-{logged.ruleset}-{seed}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


__all__ = ["open_game", "open_stored", "checked_replay", "read_source", "referee_game", "referee_game_id",
           "referee_games", "resolve_id", "sniff", "LocmError"]
