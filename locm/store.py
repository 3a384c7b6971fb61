"""The event store: completed games and their event logs, in one SQLite file or in memory (STYLE 6, 7).

A game is written once, when it is complete, in one transaction (`EventStore.append_game`), so a crash never
leaves half a game. Two implementations share one interface and one test class: `SqliteStore` (sqlite-utils
over an embedded SQLite file, default ``locm.db``) and `MemoryStore` (plain dicts). `open_store` is what a CLI
calls.

Schema (SQLite, store schema version 3)
---------------------------------------

The DDL is `SCHEMA_SQL` below; the README shows the same text (a test keeps them equal).

- ``locm_meta`` holds ``format = 'locm-event-store'`` and ``schema_version = '3'``. A file is opened only if it
  is new, empty (0 bytes or no tables), or has these two rows and the tables with exactly these
  columns; anything else is refused *before anything is written* (it is inspected through a read-only
  connection first): `CorruptStoreError` for bytes that are not a readable SQLite database (random bytes,
  truncated), `NotAStoreError` for another SQLite database or another schema version; a store of schema 1
  or 2 (locm before schema 3) is refused with `OldStoreError`, whose one line says to run ``locm migrate DB``
  (`locm.migrate`). SQLite does the
  checking: it recovers the ``-wal`` of a writer that died, so a main file shorter than its header says (a
  checkpoint cut short by kill -9 or a full disk) is accepted when ``PRAGMA quick_check`` finds the store
  whole; a damaged one is refused with how to recover (``salvage=True`` opens it read-only to export what
  still reads). Reading opens ``immutable=1`` where the directory cannot be written (read-only media).
- Creating the schema is one ``BEGIN IMMEDIATE`` transaction that does nothing if the tables exist, so any
  number of processes may open a new file at once. A writer waits for another's lock up to a busy timeout
  (`BUSY_TIMEOUT_S`, ``$LOCM_BUSY_TIMEOUT``), saying so every `BUSY_MESSAGE_S`, then `StoreBusyError`.
- ``games``: one row per completed game of any registered game (`engine.registry`), in the order appended
  (``id``, an integer key: joins and inserts on it are cheaper than on text; ``game_id``, the text id users
  see, is UNIQUE, so its index serves exact and prefix look-ups). ``game`` is the game's registered name
  (``locm``, ``mcg``, ``skyport``). What the core knows of every game is a column: ``ruleset``, ``seed``,
  ``agents`` (a JSON array, one per seat, 2 to N), the outcome (``winner``, -1 for none; ``places``, each
  seat's place, 0 first; ``scores`` for a game of points, else NULL; ``reason``; ``turns``), ``n_events`` and
  ``head_hash`` (the hash of the last event: they pin the whole log), ``created`` (ISO-8601 UTC with
  microseconds and a ``Z``, ``2026-05-09T07:35:25.000000Z``), ``seats`` (the runner's extras by seat, a JSON
  array of ``{"stderr", "think_ms", "error", "timeout"}``: stderr at most `STDERR_LIMIT` characters, a longer
  text keeping its tail behind a ``[... N characters, start cut]`` line; think time in milliseconds, null when
  unknown) and ``meta`` (free JSON text, ``{}`` by default). What only one game has is in ``fields``, a JSON
  object of the game's index fields (`engine.seam.GameDef.index`): for LOCM the seeds and parameters of
  ``GameCreated`` with ``ruleset_version``, ``id_scheme`` and ``event_schema_version`` (`LOCM_FIELDS`). A LOCM
  game reads back as its `GameRecord` (the columns of schema 2, field for field: `locm_record`); any game as
  its `MatchRecord`. The LOCM commands (games, show, export, report, ...) read LOCM's games only.
- ``logs``: one row per game, its whole event log, in a table of its own so that listing or filtering games
  never reads a log page. ``data`` is the zlib stream (level `LOG_LEVEL`) of the events' canonical JSON bytes
  (exactly its game's codec's ``to_json(event)``, what is hashed and exported), one event per line, in seq order,
  joined by ``\n`` (canonical JSON has no raw newline). The per-event hashes are not stored: the chain is
  recomputed from these bytes whenever it is checked (``verify_chain``, export), against ``n_events`` and
  ``head_hash`` of the game's row. That a game's seqs are exactly 0..n-1 and that it begins with
  ``game_created`` and ends with ``game_ended`` is checked before its one transaction (`GameLogError`);
  ``verify_chain`` checks the seqs again when the chain does not end at ``head_hash``, to name a line lost
  or moved.
- ``events``: a view, one row per event (``game``, ``game_id``, ``seq``, ``type``, ``payload`` = the event's
  JSON), over ``json_each(locm_log_json(logs.data))``. SQLite cannot inflate zlib, so ``locm_log_json(data)``
  (the log as one JSON array) is a Python function that every connection the store opens registers
  (`register_functions`); ``locm sql "SELECT ..."`` runs a query with it, e.g. ``SELECT game_id,
  json_extract(payload, '$.amount') FROM events WHERE type = 'player_damaged'``. In another SQLite client the
  view is there but the function is not (``no such function: locm_log_json``). The payload the view shows is
  SQLite's minified rendering of the stored JSON, which is already minified: the same bytes (a test checks).
- Why this layout (measured on played 1.2 games, 330-350 events and 40 KB of JSON each,
  ``benchmarks/bench_store.py --real``): the schema-1 layout (a row per event with its JSON text and hash, a
  text key) took 76 KB per game and appended 120-135k events/s; one compressed row per game takes 9 KB and an
  append of a prepared game is two INSERTs. zlib level 1 (`LOG_LEVEL`): 9.0 KB a game in the file and 460k
  events/s appended from event objects (level 3: 8.5 KB, 410k/s; level 6: 7.3 KB, 320k/s, same run);
  inflating costs 0.1 ms a game at any level. Level 1 because compressing is part of every game a tournament
  worker plays. A preset dictionary (``zdict``) of typical events saved 3-6 % more: not worth versioning one.
  Reading a game is one inflate and one ``msgspec`` decode of the whole log as a JSON array (not a decode per
  event). JSON lines rather than MessagePack: the hash is over the JSON bytes, so storing them means verifying
  and exporting never re-encode (a re-encoding could differ once the schema gains a field). Not storing the
  per-event hashes (32 bytes an event, incompressible: 10 KB a game) means that a broken chain says that a log
  was altered, not at which event; ``locm verify`` re-decides the log and names the first event the rules
  would not produce.
- `MemoryStore` keeps exactly these records and log blobs in dicts; everything above except SQL holds for it.
- WAL journal with ``synchronous=NORMAL``: a crash of the program never loses or half-writes a committed
  game; a power cut may lose the last few commits, never corrupt the file. One writer at a time (SQLite's
  lock); readers, e.g. ``open_store(path, readonly=True)``, may run beside it.

Hash chain
----------
``hash[seq] = sha256(hash[seq - 1] + payload_bytes)`` with ``hash[-1]`` the genesis: 32 zero bytes
(`GENESIS`). ``payload_bytes`` are the canonical JSON bytes of the event (``events.locm.codec.to_json``) as
stored. The chain catches accidental damage and naive edits (and, with ``head_hash`` and ``n_events``, a
truncated log); it is not a signature: someone who rewrites every hash and the record defeats it.

Tournament schedules
--------------------
``schedules(key, manifest, created)`` (`SCHEDULES_SQL`, made by the first tournament that uses the store, so a
store of schema 2 without it is still whole) holds one manifest per tournament schedule: its ruleset (the
values), agents with their bots' versions, first seed and number of seeds (`locm.tournament.Schedule`). A game a
tournament played says its place in ``meta`` (``"schedule": key, "place": k``). ``locm verify`` rebuilds each
schedule from its manifest and reports the scheduled games missing from the store, the games that claim a place
whose game is another, and games that name a schedule the store does not keep.

The store's ledger
------------------
Every game stored extends one more chain, over the games in the order stored (transparency-log style):
``ledger[k] = sha256(ledger[k - 1] + game_id + NUL + head_hash)``, from `GENESIS`, its length and last value
kept in ``locm_meta`` (key ``ledger``, value ``"{count} {head hex}"``) and updated in the transaction that stores
the games.
A game whose row is deleted, replaced or reordered no longer matches it: `EventStore.ledger_problem` (run by
``locm verify``) says so, with how many games the ledger counts, and the integer keys missing from ``games``
(a row deleted in the middle leaves a gap). A store written before the ledger gets one over its games at its
next write. Like the hash chain, it catches deletion and editing behind the store's back, not someone who
rewrites the ledger rows too.

Export format (JSON lines, UTF-8, one object per line)
-----------------------------------------------------
    {"locm_export":1,"store_schema":2,"event_schema":2}         line 1: the file header
    {"game":{...every field of GameRecord, head_hash in hex...}} one per game, then its n_events lines:
    {"hash":"<64 hex>","event":{...the stored payload, byte for byte...}}
    {"end":{"games":G,"events":E}}                               last line: totals, so a cut file is caught

``store_schema`` in the header is the schema whose game lines the file holds (`EXPORT_STORE_SCHEMA`, 2).
Store schemas 2 and 3 changed how games are kept in the store's file, not a field of a LOCM game or an event,
so the game lines are the same from any of them: a file written by a schema-1 store (``store_schema`` 1) is
read alike, and an export of a store is the same byte for byte before and after `locm migrate` to schema 3
(from schema 1, only the header's number differs). Exporting exports LOCM's games (other games: not yet).

`EventStore.import_jsonl` reads and checks the whole file before anything is kept: each line's JSON, each
event's decoding, seqs 0..n-1, every hash of the chain, each game record against what its events say (the
fields derived from events and ``head_hash``), each game as `locm verify` checks it (`locm.checks`: its id is
what its game_created gives, re-deciding its inputs gives its events: a forger who recomputes the chain is
caught here), the totals and that nothing follows the end line. The first
wrong line raises `ImportFormatError` naming the line number, and then *nothing* of the file is written, not
even the games before that line (SQLite: one transaction for the whole file, rolled back). A game already in
the store is an error too, unless ``skip_existing=True`` (``--skip-existing``) and it is the same game (same
``head_hash``).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Self

import msgspec

from locm.events.locm.catalog import EVENT_TYPES, Event, GameCreated, GameEnded
from locm.events.locm.catalog import SCHEMA_VERSION as EVENT_SCHEMA_VERSION
from locm.events.locm.codec import (DECODE_ERRORS, MAX_EVENTS, MAX_LINE, DecodeError, bounded_lines, from_json,
                               from_json_array, json_array, to_json)
from locm.errors import (
    ChainError,
    CorruptStoreError,
    DuplicateEventError,
    DuplicateGameError,
    GameLogError,
    GameNotFoundError,
    ImportFormatError,
    InvalidRecordError,
    NotAStoreError,
    OldStoreError,
    StoreBusyError,
    StoreError,
    StoreNotFoundError,
)

STORE_FORMAT = "locm-event-store"
STORE_SCHEMA_VERSION = 3
OLD_SCHEMAS = (1, 2)
"""Store schemas that `locm migrate` converts to this one."""
EXPORT_VERSION = 1
EXPORT_STORE_SCHEMA = 2
"""The ``store_schema`` an export file's header says: the schema whose game lines it holds. Schema 3 changed how
a game is kept in the file (a game column, index fields as JSON), not a LOCM game's record or events, so its
export lines are those of schema 2, byte for byte, header included."""
EXPORT_STORE_SCHEMAS = (1, 2)
"""The ``store_schema`` values an export file's header may hold (the game lines are the same for both)."""
LOCM = "locm"
"""The name of LOCM in the ``game`` column (`engine.registry`)."""
LOG_LEVEL = 1
"""The zlib level of the stored logs (see the module docstring for the measurements behind it)."""
DEFAULT_PATH = "locm.db"
GENESIS = bytes(32)
STDERR_LIMIT = 8192
BUSY_TIMEOUT_S = 600.0
"""How long a writer waits for another writer's lock before giving up (`StoreBusyError`), by default; the
environment variable ``LOCM_BUSY_TIMEOUT`` (seconds) changes the default."""
BUSY_MESSAGE_S = 5.0
"""How often a waiting writer says it is waiting."""

SCHEMA_SQL = """\
CREATE TABLE locm_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    id         INTEGER PRIMARY KEY,
    game_id    TEXT NOT NULL UNIQUE,
    game       TEXT NOT NULL,
    ruleset    TEXT NOT NULL,
    seed       INTEGER,
    agents     TEXT NOT NULL CHECK (json_valid(agents) AND json_type(agents) = 'array'),
    winner     INTEGER NOT NULL CHECK (winner >= -1),
    places     TEXT NOT NULL CHECK (json_valid(places) AND json_type(places) = 'array'),
    scores     TEXT CHECK (scores IS NULL OR json_valid(scores)),
    reason     TEXT NOT NULL,
    turns      INTEGER NOT NULL,
    n_events   INTEGER NOT NULL CHECK (n_events >= 2),
    head_hash  BLOB NOT NULL,
    created    TEXT NOT NULL,
    seats      TEXT NOT NULL CHECK (json_valid(seats) AND json_type(seats) = 'array'),
    fields     TEXT NOT NULL CHECK (json_valid(fields) AND json_type(fields) = 'object'),
    meta       TEXT NOT NULL CHECK (json_valid(meta))
);
CREATE TABLE logs (
    game INTEGER PRIMARY KEY REFERENCES games (id),
    data BLOB    NOT NULL
);
CREATE VIEW events AS
    SELECT g.id AS game, g.game_id, CAST(e.key AS INTEGER) AS seq, json_extract(e.value, '$.type') AS type,
           e.value AS payload
    FROM games g JOIN logs l ON l.game = g.id, json_each(locm_log_json(l.data)) e;
"""
"""The DDL of store schema 3; the module docstring shows the same text (a test checks it)."""

SCHEDULES_SQL = """\
CREATE TABLE IF NOT EXISTS schedules (
    key      TEXT PRIMARY KEY,
    manifest TEXT NOT NULL CHECK (json_valid(manifest)),
    created  TEXT NOT NULL
)"""
"""The tournaments' schedules (`EventStore.record_schedule`), made by the first tournament of a store: a
manifest per schedule (ruleset, agents and bot versions, seeds: a few hundred bytes however many games), never
a row per game."""

# Fields of GameCreated copied into the games table under the same name.
CREATED_FIELDS = (
    "ruleset", "ruleset_version", "seed", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
    "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
)
_TAGS: dict[type, str] = {cls: cls.__struct_config__.tag for cls in EVENT_TYPES}


# --- types ------------------------------------------------------------------------------------------------


class GameExtras(msgspec.Struct, frozen=True, kw_only=True):
    """What the caller knows about a game beyond its events (the tournament runner fills the optional part).

    ``created``: an aware datetime or an ISO-8601 string with an offset; None means now.
    """

    game_id: str
    created: datetime | str | None = None
    stderr0: str = ""
    stderr1: str = ""
    think_ms0: float | None = None
    think_ms1: float | None = None
    error0: bool = False
    error1: bool = False
    timeout0: bool = False
    timeout1: bool = False
    meta: str = "{}"


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One row of the ``games`` table, field for column (``head_hash`` as hex here, a BLOB in SQLite)."""

    game_id: str
    ruleset: str
    ruleset_version: str
    seed: int | None
    shuffle_player0_seed: int
    shuffle_player1_seed: int
    draft_choices_seed: int | None
    predefined_draft_ids: str | None
    card_gen_seed: int | None
    constructed_choices_seed: int | None
    id_scheme: str
    event_schema_version: int
    agent0: str
    agent1: str
    winner: int
    reason: str
    turns: int
    n_events: int
    head_hash: str
    created: str
    stderr0: str
    stderr1: str
    think_ms0: float | None
    think_ms1: float | None
    error0: bool
    error1: bool
    timeout0: bool
    timeout1: bool
    meta: str

    def extras(self) -> GameExtras:
        """The caller-supplied part of this record."""
        return GameExtras(**{f: getattr(self, f) for f in GameExtras.__struct_fields__})


class SeatExtras(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the runner knows of one seat beyond the events: its bot's stderr (bounded), thinking time (ms,
    None when unknown), whether it lost by an error or a timeout."""

    stderr: str = ""
    think_ms: float | None = None
    error: bool = False
    timeout: bool = False


class MatchRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One row of the ``games`` table of schema 3, for any game (``game`` its registered name): what the core
    knows of every game, and the game's own index fields (``fields``, from its created event). A LOCM game's
    `GameRecord` is the same row read with LOCM's fields (`locm_record`)."""

    game_id: str
    game: str
    ruleset: str
    seed: int | None
    agents: tuple[str, ...]
    winner: int
    places: tuple[int, ...]
    scores: tuple[float, ...] | None
    reason: str
    turns: int
    n_events: int
    head_hash: str
    created: str
    seats: tuple[SeatExtras, ...]
    fields: dict[str, Any]
    meta: str


LOCM_FIELDS = ("ruleset_version", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
               "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
               "event_schema_version")
"""The fields of a LOCM game's `GameRecord` kept in ``fields`` (the columns of schema 2 that only LOCM has)."""


def match_of(record: GameRecord) -> MatchRecord:
    """A LOCM game's record as the row schema 3 keeps."""
    w = record.winner
    return MatchRecord(
        game_id=record.game_id, game=LOCM, ruleset=record.ruleset, seed=record.seed,
        agents=(record.agent0, record.agent1), winner=w, places=(0, 1) if w == 0 else (1, 0), scores=None,
        reason=record.reason, turns=record.turns, n_events=record.n_events, head_hash=record.head_hash,
        created=record.created,
        seats=(SeatExtras(stderr=record.stderr0, think_ms=record.think_ms0, error=record.error0,
                          timeout=record.timeout0),
               SeatExtras(stderr=record.stderr1, think_ms=record.think_ms1, error=record.error1,
                          timeout=record.timeout1)),
        fields={f: getattr(record, f) for f in LOCM_FIELDS}, meta=record.meta)


def locm_record(m: MatchRecord) -> GameRecord:
    """A LOCM game's row as its `GameRecord` (the inverse of `match_of`)."""
    s0, s1 = m.seats
    return GameRecord(
        game_id=m.game_id, ruleset=m.ruleset, seed=m.seed, **{f: m.fields[f] for f in LOCM_FIELDS},
        agent0=m.agents[0], agent1=m.agents[1], winner=m.winner, reason=m.reason, turns=m.turns,
        n_events=m.n_events, head_hash=m.head_hash, created=m.created, stderr0=s0.stderr, stderr1=s1.stderr,
        think_ms0=s0.think_ms, think_ms1=s1.think_ms, error0=s0.error, error1=s1.error, timeout0=s0.timeout,
        timeout1=s1.timeout, meta=m.meta)


def _as_match(record: GameRecord | MatchRecord) -> MatchRecord:
    return record if isinstance(record, MatchRecord) else match_of(record)


class ImportSummary(NamedTuple):
    """What `EventStore.import_jsonl` did: games and events written, identical games skipped."""

    games: int
    events: int
    skipped: int


class _Prepared(NamedTuple):
    """A validated game ready to write: its record and its log, the ``data`` of its ``logs`` row (the zlib
    stream of its events' canonical JSON lines). Cheap to pickle: what a tournament worker sends the writer."""

    record: GameRecord | MatchRecord
    data: bytes


PreparedGame = _Prepared


# --- public helpers ---------------------------------------------------------------------------------------


def chain_hash(prev: bytes, payload: bytes) -> bytes:
    """One link of the chain: ``sha256(prev + payload)``."""
    return hashlib.sha256(prev + payload).digest()


def utc_timestamp(when: datetime | str | None = None, game_id: str = "") -> str:
    """``when`` (aware datetime, ISO-8601 string with offset, or None for now) as ISO-8601 UTC ending in Z."""
    if when is None:
        when = datetime.now(UTC)
    elif isinstance(when, str):
        try:
            when = datetime.fromisoformat(when)
        except ValueError:
            raise InvalidRecordError(game_id, "created", "an ISO-8601 timestamp", when) from None
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise InvalidRecordError(game_id, "created", "a timestamp with a time zone", when)
    return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def open_store(path: str | os.PathLike = DEFAULT_PATH, *, create: bool = True, readonly: bool = False,
               busy_timeout: float | None = None, on_wait: Callable[[str], None] | None = None,
               salvage: bool = False) -> EventStore:
    """Open the event store at ``path`` (``":memory:"`` gives a `MemoryStore`).

    A missing file (or a 0-byte one, or an SQLite file with no tables) is made into a store when ``create``
    and not ``readonly``, else `StoreNotFoundError`. An existing file is first inspected read-only and
    refused untouched if it is not a store of this schema (`CorruptStoreError`, `NotAStoreError`).
    Creating the schema is one transaction that does nothing if another process did it first, so any number
    of processes may open a new file at once.

    A write waits for another writer's lock up to ``busy_timeout`` seconds (default `BUSY_TIMEOUT_S` or
    ``$LOCM_BUSY_TIMEOUT``), calling ``on_wait(message)`` every `BUSY_MESSAGE_S` (default: print it on
    stderr), then raises `StoreBusyError` having written nothing.

    ``salvage`` (read-only): open a store that SQLite finds damaged anyway, to export what still reads
    (`EventStore.export_jsonl` with ``on_bad``); a file that is not a store is still refused.
    """
    if str(path) == ":memory:":
        return MemoryStore()
    if str(path) == "-":  # `-` is standard input/output for the file options, which cannot hold a store
        raise NotAStoreError("-", "an event store is an SQLite file, not standard input or output: give a file name")
    return SqliteStore(path, create=create, readonly=readonly or salvage, busy_timeout=busy_timeout,
                       on_wait=on_wait, salvage=salvage)


def export_header() -> bytes:
    """The first line of an export file."""
    return msgspec.json.encode({"locm_export": EXPORT_VERSION, "store_schema": EXPORT_STORE_SCHEMA,
                                "event_schema": EVENT_SCHEMA_VERSION}) + b"\n"


def export_end(games: int, events: int) -> bytes:
    """The last line of an export file: what it holds (an import checks it)."""
    return msgspec.json.encode({"end": {"games": games, "events": events}}) + b"\n"


def default_busy_timeout() -> float:
    """``$LOCM_BUSY_TIMEOUT`` (seconds) if set and valid, else `BUSY_TIMEOUT_S`."""
    try:
        value = float(os.environ.get("LOCM_BUSY_TIMEOUT", BUSY_TIMEOUT_S))
    except ValueError:
        return BUSY_TIMEOUT_S
    return value if math.isfinite(value) and value >= 0 else BUSY_TIMEOUT_S


def _print_wait(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- the interface and its shared logic -------------------------------------------------------------------


class EventStore:
    """The store's interface. Subclasses provide the private primitives at the end of this class."""

    path: str

    def append_game(self, extras: GameExtras | Mapping[str, Any], events: Sequence[Event]) -> GameRecord:
        """Store one complete game (``GameCreated`` first, ``GameEnded`` last, seqs 0..n-1) atomically."""
        return self.append_prepared(prepare_game(extras, events))

    def append_prepared(self, prepared: PreparedGame) -> GameRecord:
        """Store a game checked and chained by `prepare_game` (possibly in another process) atomically."""
        self._write([prepared])
        return prepared.record

    def append_games(self, prepared: Sequence[PreparedGame]) -> None:
        """Store several games checked by `prepare_game` in one transaction: all of them or none."""
        self._write(list(prepared))

    def append_match(self, game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Any],
                     seats: Sequence[SeatExtras] | None = None) -> MatchRecord:
        """Store one complete game of any registered game (`engine.seam.GameDef`) atomically, with each seat's
        extras (`prepare_match`); a LOCM game is stored as `append_game` stores it."""
        prepared = prepare_match(game, extras, events, seats)
        self._write([prepared])
        return _as_match(prepared.record)

    def has_game(self, game_id: str) -> bool:
        return self._match(game_id) is not None

    def match(self, game_id: str) -> MatchRecord:
        """A stored game's row, whatever its game (`GameNotFoundError` if there is none)."""
        found = self._match(game_id)
        if found is None:
            raise GameNotFoundError(game_id)
        return found

    def matches(self, game: str | None = None, ruleset: str | None = None, agent: str | None = None,
                winner: int | None = None, limit: int | None = None) -> list[MatchRecord]:
        """The rows of the stored games (of one game when ``game`` is given), in the order stored; ``agent``
        matches any seat."""
        return self._matches(game, ruleset, agent, winner, limit)

    def match_events(self, game_id: str) -> list[Any]:
        """A stored game's events, decoded by its own game's codec (`engine.registry`)."""
        from locm.engine.registry import get

        m = self.match(game_id)
        if m.game == LOCM:
            return self.events(game_id)
        codec = get(m.game).codec
        raw = _inflate(self.path, game_id, self._log(game_id))
        try:
            return codec.from_json_array(json_array(raw))
        except DecodeError as exc:
            raise CorruptStoreError(self.path, f"game {game_id!r}: {exc}") from None

    def _record(self, game_id: str) -> GameRecord | None:
        """A LOCM game's record (None: no such game); another game's is refused in one line."""
        m = self._match(game_id)
        if m is None:
            return None
        if m.game != LOCM:
            raise StoreError(f"{self.path}: game {game_id!r} is a {m.game} game: this reads LOCM games")
        return locm_record(m)

    def _records(self, ruleset, agent, winner, limit) -> list[GameRecord]:
        return [locm_record(m) for m in self._matches(LOCM, ruleset, agent, winner, limit)]

    def game_ids_with_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` stored game ids that start with ``prefix`` (to resolve an abbreviated id)."""
        return self._ids_with_prefix(prefix, limit)

    def ids_named(self, name: str) -> list[str]:
        """The stored game ids a user's ``name`` may mean: ``[name]`` when it is a stored id, else up to two ids
        that start with it (one: the abbreviation is unique; none or two: the caller says why not)."""
        if self.has_game(name):
            return [name]
        return self._ids_with_prefix(name, 2) if name else []

    def find(self, game_id: str) -> GameRecord | None:
        """A stored game's record, or None."""
        return self._record(game_id)

    def game(self, game_id: str) -> GameRecord:
        record = self._record(game_id)
        if record is None:
            raise GameNotFoundError(game_id)
        return record

    def games(self, ruleset: str | None = None, agent: str | None = None, winner: int | None = None,
              limit: int | None = None, *, winner_agent: str | None = None) -> list[GameRecord]:
        """Records in the order stored. ``agent`` matches either seat; ``winner`` is the seat 0 or 1;
        ``winner_agent`` the agent that won (in either seat)."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise StoreError(f"limit: expected an integer >= 0 or None, got {limit!r}")
        if winner_agent is None:
            return self._records(ruleset, agent, winner, limit)
        found = [r for r in self._records(ruleset, agent or winner_agent, winner, None)
                 if (r.agent0, r.agent1)[r.winner] == winner_agent]
        return found if limit is None else found[:limit]

    def events(self, game_id: str) -> list[Event]:
        """A game's events, decoded, in seq order."""
        raw = _inflate(self.path, game_id, self._log(game_id))
        try:
            return from_json_array(json_array(raw))
        except DecodeError:
            return self._decode_lines(game_id, raw.split(b"\n"))  # names the line that does not decode

    def iter_events(self, game_ids: Iterable[str] | None = None, *,
                    types: Iterable[str] | None = None, verify: bool = False) -> Iterator[tuple[str, Event]]:
        """Stream ``(game_id, event)`` for the given games (all, in stored order, when None), each in seq
        order, optionally only events whose tag is in ``types`` (the other lines are not decoded). With
        ``verify`` each game's hash chain is checked against its record first (`ChainError`)."""
        heads = None if types is None else tuple(b'{"type":"' + t.encode() + b'"' for t in types)
        for game_id, data in self._iter_logs(None if game_ids is None else list(game_ids)):
            lines = _lines(self.path, game_id, data)
            if verify:
                self._check_chain(self.game(game_id), lines)
            if heads is not None:
                lines = [line for line in lines if line.startswith(heads)]
            for event in self._decode_lines(game_id, lines):
                yield game_id, event

    def verify_chain(self, game_id: str) -> str:
        """Recompute a game's hash chain; return its head hash (hex) or raise `ChainError` (or
        `GameNotFoundError`)."""
        return self._verified(game_id)[0].head_hash

    def verified_events(self, game_id: str) -> list[Event]:
        """`verify_chain`, then the game's events, from the one read of its log that the check made."""
        return self._decode_lines(game_id, self._verified(game_id)[1])

    def verified_match_events(self, game_id: str) -> list[Any]:
        """A stored game of any game: its chain checked against its row (`ChainError`), then its events
        decoded by its game's codec."""
        from locm.engine.registry import get

        m = self.match(game_id)
        try:
            lines = _lines(self.path, game_id, self._log(game_id))
        except CorruptStoreError as exc:
            raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
        self._check_chain(m, lines)
        try:
            return get(m.game).codec.from_json_array(json_array(b"\n".join(lines)))
        except DecodeError as exc:
            raise CorruptStoreError(self.path, f"game {game_id!r}: {exc}") from None

    def export_jsonl(self, game_ids: Iterable[str] | None, out: BinaryIO, *,
                     on_bad: Callable[[str, StoreError], None] | None = None) -> int:
        """Write games (all when ``game_ids`` is None) to ``out`` in the export format; return how many.
        Each game's chain is verified before it is written (`ChainError`: the output then lacks its end
        line, so importing it is refused). With ``on_bad`` (salvage), a game that cannot be read or does not
        verify is passed to it and left out instead, and the file stays importable."""
        out.write(export_header())
        games = events = 0
        if game_ids is None:
            game_ids = self.readable_ids() if on_bad else [r.game_id for r in self._records(None, None, None, None)]
        for game_id in game_ids:
            try:
                block, n = self.export_game(game_id)
            except StoreError as exc:
                if on_bad is None or isinstance(exc, GameNotFoundError):
                    raise
                on_bad(game_id, exc)
                continue
            out.write(block)
            games, events = games + 1, events + n
        out.write(export_end(games, events))
        return games

    def export_game(self, game_id: str) -> tuple[bytes, int]:
        """One game in the export format (its record line and its event lines, the chain verified first) and
        its number of events; `ChainError` or another `StoreError` if it does not read or verify."""
        enc = msgspec.json.encode
        record, lines, hashes = self._verified(game_id)
        parts = [b'{"game":' + enc(record) + b"}\n"]
        parts += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(lines, hashes)]
        return b"".join(parts), record.n_events

    def readable_ids(self) -> list[str]:
        """The ids of the stored games, as far as they can still be read (for salvage): from the games table,
        or, where it is damaged, from whatever of it and of the events table still reads."""
        return [r.game_id for r in self._records(None, None, None, None)]

    def integrity(self, full: bool = False) -> list[str]:
        """What SQLite finds wrong with the file (``PRAGMA quick_check``, or with ``full`` the slower
        ``integrity_check``, which also compares every index with its table): [] when nothing."""
        return []

    def ledger(self) -> tuple[int, str]:
        """The store's ledger: how many games it has recorded and its head (hex; `GENESIS` for none)."""
        count, head = self._ledger()
        return count, head.hex()

    def ledger_problem(self) -> str | None:
        """None if the ledger matches the stored games (in the order stored); else what differs, in one line."""
        count, head = self._ledger()
        entries = self._ledger_entries()
        prev = GENESIS
        for _, game_id, head_hash in entries[:count]:
            prev = _ledger_link(prev, game_id, head_hash)
        keys = [key for key, _, _ in entries]
        gaps = _gaps(keys)
        gap_text = f"; keys missing from the games table: {gaps}" if gaps else ""
        if len(entries) < count:
            return (f"the ledger records {count} games stored, the store holds {len(entries)}: "
                    f"{count - len(entries)} deleted{gap_text}")
        if prev != head:
            return (f"the ledger's {count} games are not the first {count} stored: a game deleted, replaced or "
                    f"edited behind the store's back{gap_text}")
        if len(entries) > count:
            extra = [game_id for _, game_id, _ in entries[count:]]
            return (f"{len(extra)} game(s) stored outside the ledger (written behind the store's back, or by a "
                    f"locm before the ledger): {', '.join(extra[:5])}{', ...' if len(extra) > 5 else ''}")
        return None

    def record_schedule(self, key: str, manifest: str) -> None:
        """Keep a tournament's schedule (its manifest: JSON text, `locm.tournament.Schedule.manifest`) under
        ``key``; a schedule already kept is left as it is."""
        try:
            msgspec.json.decode(manifest)
        except msgspec.DecodeError:
            raise InvalidRecordError(key, "manifest", "JSON text", manifest) from None
        self._record_schedule(key, manifest, utc_timestamp())

    def schedules(self) -> list[tuple[str, str]]:
        """``(key, manifest)`` of every schedule kept, in the order recorded."""
        return self._schedules()

    def import_jsonl(self, stream: BinaryIO | Iterable[bytes], *, skip_existing: bool = False,
                     check: bool = True) -> ImportSummary:
        """Read an export file; write all its games in one transaction or, on the first wrong line, none
        (`ImportFormatError` with the line number). With ``check`` (the default) each game is also checked as
        `locm verify` checks a stored game (`locm.checks.content_problem`: its id is what its content gives,
        its fold, re-deciding its inputs gives its events), so a forged game with its chain recomputed is
        refused at the first event the rules would not produce; ``check=False`` is for logs that are not
        games of the rules (the store's own tests)."""
        counts = [0, 0, 0]
        self._write(_parse_export(stream, self, skip_existing, counts, check))
        return ImportSummary(*counts)

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # primitives --------------------------------------------------------------------------------------------

    def count(self) -> int:
        """The number of games."""
        raise NotImplementedError

    def count_events(self) -> int:
        """The number of events of all games."""
        raise NotImplementedError

    def _write(self, games: Iterable[_Prepared]) -> None:
        """Store every game of ``games`` or, if any error is raised while consuming it, none."""
        raise NotImplementedError

    def _match(self, game_id: str) -> MatchRecord | None:
        raise NotImplementedError

    def _matches(self, game, ruleset, agent, winner, limit) -> list[MatchRecord]:
        raise NotImplementedError

    def _ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        raise NotImplementedError

    def _log(self, game_id: str) -> bytes:
        """A game's ``logs.data``; `GameNotFoundError` if there is no such game, `CorruptStoreError` if its
        log is missing."""
        raise NotImplementedError

    def _iter_logs(self, game_ids: list[str] | None) -> Iterator[tuple[str, bytes]]:
        """``(game_id, data)`` of the given games (all LOCM games, in stored order, when None)."""
        raise NotImplementedError

    def _ledger(self) -> tuple[int, bytes]:
        """The ledger's length and head as stored (for a store without one: over its games)."""
        raise NotImplementedError

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        raise NotImplementedError

    def _schedules(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        """``(key, game_id, head_hash)`` of every stored game, in the order stored."""
        raise NotImplementedError

    def _verified(self, game_id: str) -> tuple[GameRecord, list[bytes], list[bytes]]:
        """A game's record, its events' JSON lines and their chained hashes, the chain checked against the
        record (`ChainError`: the log was altered, cut, lost or does not inflate)."""
        record = self.game(game_id)
        try:
            lines = _lines(self.path, game_id, self._log(game_id))
        except CorruptStoreError as exc:
            raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
        return record, lines, self._check_chain(record, lines)

    def _check_chain(self, record: GameRecord, lines: list[bytes]) -> list[bytes]:
        """The chained hashes of a game's log lines, checked against its record (`ChainError`)."""
        game_id = record.game_id
        hashes = _verify(game_id, lines)
        if hashes[-1].hex() != record.head_hash:
            _first_bad_seq(game_id, lines)  # a line lost or moved is named; else the count or the head hash
        if len(lines) != record.n_events:
            raise ChainError(game_id, -1, record.n_events, len(lines), "event count")
        if hashes[-1].hex() != record.head_hash:
            raise ChainError(game_id, -1, record.head_hash, hashes[-1].hex())
        return hashes

    def _decode_lines(self, game_id: str, lines: list[bytes]) -> list[Event]:
        """The events of JSON lines, decoded in one call (as one JSON array)."""
        try:
            return from_json_array(json_array(b"\n".join(lines)))
        except DecodeError:
            for seq, line in enumerate(lines):  # find the line to name; the array decoder does not say
                try:
                    from_json(line)
                except DecodeError as exc:
                    raise CorruptStoreError(self.path, f"game {game_id!r} event {seq}: {exc}") from None
            raise CorruptStoreError(self.path, f"game {game_id!r}: the log does not decode") from None


class MemoryStore(EventStore):
    """The store in plain dicts, for tests and throw-away runs. Same behaviour as `SqliteStore`."""

    def __init__(self) -> None:
        self.path = ":memory:"
        self._games: dict[str, _Prepared] = {}
        self._ledger_state = (0, GENESIS)
        self._schedule_rows: dict[str, str] = {}

    def count(self) -> int:
        return len(self._games)

    def count_events(self) -> int:
        return sum(p.record.n_events for p in self._games.values())

    def _write(self, games: Iterable[_Prepared]) -> None:
        staged: dict[str, _Prepared] = {}
        for p in games:  # consume (and so validate) everything before changing anything
            game_id = p.record.game_id
            if game_id in self._games or game_id in staged:
                raise DuplicateGameError(game_id)
            staged[game_id] = p
        count, head = self._ledger_state
        for p in staged.values():
            count, head = count + 1, _ledger_link(head, p.record.game_id, bytes.fromhex(p.record.head_hash))
        self._games.update(staged)
        self._ledger_state = (count, head)

    def _ledger(self) -> tuple[int, bytes]:
        return self._ledger_state

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        self._schedule_rows.setdefault(key, manifest)

    def _schedules(self) -> list[tuple[str, str]]:
        return list(self._schedule_rows.items())

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        return [(k, gid, bytes.fromhex(p.record.head_hash)) for k, (gid, p) in enumerate(self._games.items(), 1)]

    def _match(self, game_id: str) -> MatchRecord | None:
        p = self._games.get(game_id)
        return None if p is None else _as_match(p.record)

    def _matches(self, game, ruleset, agent, winner, limit) -> list[MatchRecord]:
        found = [m for m in map(_as_match, (p.record for p in self._games.values()))
                 if (game is None or m.game == game) and (ruleset is None or m.ruleset == ruleset)
                 and (agent is None or agent in m.agents) and (winner is None or m.winner == winner)]
        return found if limit is None else found[:limit]

    def _ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        return [g for g in self._games if g.startswith(prefix)][:limit]

    def _log(self, game_id: str) -> bytes:
        p = self._games.get(game_id)
        if p is None:
            raise GameNotFoundError(game_id)
        return p.data

    def _iter_logs(self, game_ids):
        if game_ids is None:
            game_ids = [g for g, p in self._games.items() if isinstance(p.record, GameRecord)]
        for game_id in game_ids:
            yield game_id, self._log(game_id)


class SqliteStore(EventStore):
    """The store in one SQLite file, through sqlite-utils. Use `open_store` to get one."""

    def __init__(self, path: str | os.PathLike = DEFAULT_PATH, *, create: bool = True, readonly: bool = False,
                 busy_timeout: float | None = None, on_wait: Callable[[str], None] | None = None,
                 salvage: bool = False):
        self.path = str(path)
        self.readonly = readonly
        self.busy_timeout = default_busy_timeout() if busy_timeout is None else float(busy_timeout)
        self.on_wait = on_wait or _print_wait
        fresh = _inspect(Path(path), self.path, salvage)
        if fresh and (readonly or not create):
            raise StoreNotFoundError(self.path)
        step = min(1.0, self.busy_timeout)  # SQLite's own busy wait per attempt; _retry bounds the total
        try:
            if readonly:
                conn = _connect_read(Path(path), salvage, timeout=step, isolation_level=None)
            else:
                conn = sqlite3.connect(self.path, timeout=step, isolation_level=None)
            register_functions(conn)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from None
        self._conn = conn
        self._db = None
        try:
            if not readonly:
                self._retry(lambda: conn.execute("PRAGMA journal_mode=wal").fetchall())
                conn.execute("PRAGMA synchronous=NORMAL")
                if fresh:
                    self._create_schema()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise CorruptStoreError(self.path, str(exc)) from None
        except BaseException:
            conn.close()
            raise

    @property
    def db(self):
        """The store's connection as a `sqlite_utils.Database` (for queries of your own, `locm sql`). Made on
        first use: importing sqlite-utils costs more than a whole `locm show`, which never needs it."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self._conn)
        return self._db

    def _create_schema(self) -> None:
        """Create the tables and the meta rows in one write transaction, unless another process has."""
        with self._transaction():
            if self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'locm_meta'").fetchone():
                return
            for statement in SCHEMA_SQL.split(";"):
                if statement.strip():
                    self._conn.execute(statement)
            self._conn.execute("INSERT INTO locm_meta (key, value) VALUES ('format', ?), ('schema_version', ?)",
                               (STORE_FORMAT, str(STORE_SCHEMA_VERSION)))

    def _retry(self, attempt: Callable[[], Any]) -> Any:
        """``attempt()``, again while another connection holds the lock, up to the busy timeout."""
        start = told = time.monotonic()
        while True:
            try:
                return attempt()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                now = time.monotonic()
                if now - start >= self.busy_timeout:
                    raise StoreBusyError(self.path, now - start) from None
                if now - told >= BUSY_MESSAGE_S or told == start:
                    told = now
                    self.on_wait(f"locm: {self.path}: waiting for another writer to finish "
                                 f"({now - start:.0f} s; giving up after {self.busy_timeout:.0f} s)")
                time.sleep(0.05)

    @contextlib.contextmanager
    def _transaction(self):
        """One write transaction, begun with the write lock taken (``BEGIN IMMEDIATE``, waiting for it as
        `_retry` does), committed at the end or rolled back on any error."""
        conn = self._conn
        self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._retry(lambda: conn.execute("COMMIT"))

    def close(self) -> None:
        self._conn.close()

    def count(self) -> int:
        return self._query("SELECT count(*) FROM games")[0][0]

    def count_events(self) -> int:
        return self._query("SELECT coalesce(sum(n_events), 0) FROM games")[0][0]

    def _query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None

    def _write(self, games: Iterable[_Prepared]) -> None:
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        conn, game_id = self._conn, ""
        try:
            with self._transaction():
                count, head = self._ledger()  # read under the write lock: no other writer extends it meanwhile
                for p in games:
                    game_id = p.record.game_id
                    row = _match_to_row(_as_match(p.record))
                    key = conn.execute(_INSERT_GAME, row).lastrowid
                    conn.execute(_INSERT_LOG, (key, p.data))
                    count, head = count + 1, _ledger_link(head, game_id, row[_HEAD])
                conn.execute(_SET_LEDGER, (f"{count} {head.hex()}",))
        except sqlite3.IntegrityError as exc:
            text = str(exc)
            if "games.game_id" in text:
                raise DuplicateGameError(game_id) from None
            raise StoreError(f"{self.path}: game {game_id!r} refused by the database: {text}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write game {game_id!r}: {exc}") from None

    def integrity(self, full: bool = False) -> list[str]:
        pragma = "integrity_check(20)" if full else "quick_check(20)"
        try:
            found = [r[0] for r in self._conn.execute(f"PRAGMA {pragma}")]
        except sqlite3.DatabaseError as exc:
            return [str(exc)]
        return [] if found == ["ok"] else found

    def _ledger(self) -> tuple[int, bytes]:
        rows = self._query("SELECT value FROM locm_meta WHERE key = 'ledger'")
        if not rows:  # a store written before the ledger: one over its games as they are
            head = GENESIS
            entries = self._ledger_entries()
            for _, game_id, head_hash in entries:
                head = _ledger_link(head, game_id, head_hash)
            return len(entries), head
        try:
            count, head = rows[0][0].split(" ")
            return int(count), bytes.fromhex(head)
        except ValueError:
            raise CorruptStoreError(self.path, f"the ledger row of locm_meta does not read: {rows[0][0]!r:.80}") \
                from None

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        return self._query("SELECT id, game_id, head_hash FROM games ORDER BY id")

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        with self._transaction():
            self._conn.execute(SCHEDULES_SQL)
            self._conn.execute("INSERT OR IGNORE INTO schedules (key, manifest, created) VALUES (?, ?, ?)",
                               (key, manifest, created))

    def _schedules(self) -> list[tuple[str, str]]:
        if not self._query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schedules'"):
            return []
        return self._query("SELECT key, manifest FROM schedules ORDER BY rowid")

    def readable_ids(self) -> list[str]:
        found: dict[str, None] = {}
        for sql in ("SELECT game_id FROM games ORDER BY id", "SELECT game_id FROM games INDEXED BY "
                    "sqlite_autoindex_games_1"):
            try:
                for (game_id,) in self._conn.execute(sql):
                    found[game_id] = None
            except sqlite3.DatabaseError:
                continue  # a damaged page: what was read before it is kept; try the next way in
        return list(found)

    def has_game(self, game_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM games WHERE game_id = ?", (game_id,)))

    def _match(self, game_id: str) -> MatchRecord | None:
        rows = self._query(f"SELECT {_MATCH_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        return self._match_from_row(rows[0]) if rows else None

    def _matches(self, game, ruleset, agent, winner, limit) -> list[MatchRecord]:
        where, params = [], []
        if game is not None:
            where.append("game = ?"), params.append(game)
        if ruleset is not None:
            where.append("ruleset = ?"), params.append(ruleset)
        if agent is not None:
            where.append("EXISTS (SELECT 1 FROM json_each(games.agents) a WHERE a.value = ?)"), params.append(agent)
        if winner is not None:
            where.append("winner = ?"), params.append(winner)
        sql = (f"SELECT {_MATCH_COLUMNS} FROM games" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY id")
        if limit is not None:
            sql, params = sql + " LIMIT ?", params + [limit]
        return [self._match_from_row(r) for r in self._query(sql, params)]

    def _match_from_row(self, row: Sequence) -> MatchRecord:
        try:
            return _match_from_row(row)
        except (msgspec.DecodeError, TypeError, ValueError, AttributeError) as exc:
            raise CorruptStoreError(self.path, f"game {row[0]!r}: its row does not read: {exc}") from None

    def _ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        rows = self._query("SELECT game_id FROM games WHERE game_id >= ? AND game_id < ? ORDER BY game_id LIMIT ?",
                           (prefix, prefix + "\U0010ffff", limit))  # a range of the primary key
        return [r[0] for r in rows]

    def _log(self, game_id: str) -> bytes:
        rows = self._query("SELECT g.id, l.data FROM games g LEFT JOIN logs l ON l.game = g.id WHERE g.game_id = ?",
                           (game_id,))
        if not rows:
            raise GameNotFoundError(game_id)
        if rows[0][1] is None:
            raise CorruptStoreError(self.path, f"game {game_id!r}: its log is missing")
        return rows[0][1]

    def _iter_logs(self, game_ids):
        if game_ids is not None:
            for game_id in game_ids:
                yield game_id, self._log(game_id)
            return
        try:
            cursor = self._conn.execute("SELECT g.game_id, l.data FROM games g LEFT JOIN logs l ON l.game = g.id "
                                        "WHERE g.game = 'locm' ORDER BY g.id")  # a missing log (NULL) is reported, not skipped
            while batch := cursor.fetchmany(100):
                yield from batch
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None


# --- private helpers: SQLite ------------------------------------------------------------------------------

_SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = ("locm_meta", "games", "logs")
_MATCH_FIELDS = MatchRecord.__struct_fields__
_INSERT_GAME = f"INSERT INTO games ({', '.join(_MATCH_FIELDS)}) VALUES ({', '.join('?' * len(_MATCH_FIELDS))})"
_INSERT_LOG = "INSERT INTO logs (game, data) VALUES (?, ?)"
_SET_LEDGER = "INSERT OR REPLACE INTO locm_meta (key, value) VALUES ('ledger', ?)"
_MATCH_COLUMNS = ", ".join(_MATCH_FIELDS)
_HEAD = _MATCH_FIELDS.index("head_hash")
_JSON_COLUMNS = tuple(_MATCH_FIELDS.index(f) for f in ("agents", "places", "scores", "seats", "fields"))
_json = msgspec.json.Encoder()


def _match_to_row(m: MatchRecord) -> list:
    row = list(msgspec.structs.astuple(m))
    row[_HEAD] = bytes.fromhex(row[_HEAD])
    for i in _JSON_COLUMNS:
        if row[i] is not None:
            row[i] = _json.encode(row[i]).decode()
    return row


_DECODERS = {
    "agents": msgspec.json.Decoder(tuple[str, ...]), "places": msgspec.json.Decoder(tuple[int, ...]),
    "scores": msgspec.json.Decoder(tuple[float, ...] | None), "seats": msgspec.json.Decoder(tuple[SeatExtras, ...]),
    "fields": msgspec.json.Decoder(dict[str, Any]),
}


def _match_from_row(row: Sequence) -> MatchRecord:
    doc = dict(zip(_MATCH_FIELDS, row))
    doc["head_hash"] = doc["head_hash"].hex()
    for name, dec in _DECODERS.items():
        if doc[name] is not None:
            doc[name] = dec.decode(doc[name])
    return MatchRecord(**doc)


_SCHEMA_2_FIELDS = GameRecord.__struct_fields__
_FLAGS = tuple(_SCHEMA_2_FIELDS.index(f) for f in ("error0", "error1", "timeout0", "timeout1"))


def _record_from_row(row: Sequence) -> GameRecord:
    """A game's record from a row of the ``games`` table of schema 1 or 2 (one column per field, in
    `GameRecord`'s order): what `locm migrate` reads."""
    row = list(row)
    row[_SCHEMA_2_FIELDS.index("head_hash")] = row[_SCHEMA_2_FIELDS.index("head_hash")].hex()
    for i in _FLAGS:
        row[i] = bool(row[i])
    return GameRecord(**dict(zip(_SCHEMA_2_FIELDS, row)))


def _expected_columns() -> dict[str, list[tuple]]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA_SQL)
    cols = {t: conn.execute(f"PRAGMA table_info({t})").fetchall() for t in _TABLES}
    conn.close()
    return cols


_COLUMNS = _expected_columns()


def _read_uri(path: Path) -> str:
    """The URI that opens ``path`` for reading only, the way that works where it lies.

    ``immutable=1`` (SQLite reads the file as it is, creating no ``-shm``/``-wal`` beside it) when there is no
    ``-wal`` with content to recover and either the file is in WAL mode (an idle WAL store, whose ``-wal``
    any writer would have created) or its directory cannot be written (read-only media: a plain read-only
    connection would need to create a ``-shm`` there). Otherwise ``mode=ro``: SQLite recovers the ``-wal``
    of a writer that died (into ``-shm``, or into private memory where ``-shm`` cannot be written).
    """
    wal = Path(f"{path}-wal")
    pending_wal = wal.exists() and wal.stat().st_size > 0
    with open(path, "rb") as f:
        wal_mode = f.read(20)[18:20] == b"\x02\x02"
    writable = os.access(path.parent, os.W_OK)
    immutable = not pending_wal and (wal_mode and not wal.exists() or not writable)
    return path.resolve().as_uri() + ("?immutable=1" if immutable else "?mode=ro")


def _connect_read(path: Path, salvage: bool = False, **kw) -> sqlite3.Connection:
    """A read-only connection (`_read_uri`). ``salvage``: with ``writable_schema`` on, which makes SQLite
    read a file shorter than its header says up to its end instead of refusing it whole (nothing is written:
    the connection is read-only)."""
    conn = sqlite3.connect(_read_uri(path), uri=True, **kw)
    if salvage:
        conn.execute("PRAGMA writable_schema = ON")
    return conn


RECOVER_HINT = ("to recover: `locm export --all --salvage --db FILE -o rescued.jsonl` writes every game that "
                "still reads and verifies and names the others, then `locm import rescued.jsonl --db NEW.db`")


def _inspect(path: Path, name: str, salvage: bool = False) -> bool:
    """Check ``path`` without writing to it: True if it is absent or empty (a store may be created there),
    False if it is a store of this schema; otherwise raise.

    SQLite does the checking: it recovers a ``-wal`` left by a writer that died, so a main file that is
    shorter than its header says (a checkpoint cut short by kill -9 or a full disk, the pages still in the
    ``-wal``) is fine if SQLite finds it whole. Only then, when the sizes disagree, ``PRAGMA quick_check``
    runs, and a store it finds damaged is refused with a way to recover."""
    if not path.exists():
        return True
    if not path.is_file():
        raise NotAStoreError(name, "not a regular file")
    size = path.stat().st_size
    if size == 0:
        return True
    with open(path, "rb") as f:
        header = f.read(100)
    if not header.startswith(_SQLITE_MAGIC):
        raise CorruptStoreError(name, "not an SQLite database (no SQLite header)")
    if len(header) < 100:
        raise CorruptStoreError(name, f"truncated: {size} bytes, less than an SQLite header")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    short = bool(pages) and header[24:28] == header[92:96] and size < pages * page_size
    try:
        conn = _connect_read(path, salvage)
    except sqlite3.Error as exc:
        raise StoreError(f"{name}: cannot open: {exc}") from None
    try:
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            found = ["ok"]
            if short:  # a checkpoint cut short (the -wal holds the rest) or a truncated file: SQLite decides
                found = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
        except sqlite3.OperationalError as exc:  # not damage: the file or its -wal/-shm cannot be opened
            if "unable to open" in str(exc) or "readonly" in str(exc):
                raise StoreError(f"{name}: cannot open: {exc}" + (
                    "; it has a -wal file to recover and its directory is read-only: copy the store with its "
                    "-wal and -shm files to a writable place" if not os.access(path.parent, os.W_OK) else "")
                ) from None
            if not short:
                raise
            found = [str(exc)]
        except sqlite3.DatabaseError as exc:
            if not short:
                raise
            found = [str(exc)]
        if found != ["ok"] and not salvage:
            raise CorruptStoreError(name, f"truncated: the header says {pages * page_size} bytes, the file "
                                          f"has {size}, and SQLite's quick_check finds: {found[0][:80]}",
                                    RECOVER_HINT)
        if not tables:
            return True
        if "locm_meta" not in tables and not (salvage and {"games", "logs"} <= tables):
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise NotAStoreError(name, f"expected a locm_meta table, found tables {shown}")
        try:
            meta = dict(conn.execute("SELECT key, value FROM locm_meta")) if "locm_meta" in tables else {}
        except sqlite3.DatabaseError:
            if not salvage:
                raise
            meta = {}  # salvage: a damaged locm_meta page does not keep the games from being read
        if salvage and not meta:
            meta = {"format": STORE_FORMAT, "schema_version": str(STORE_SCHEMA_VERSION)}
        if meta.get("format") != STORE_FORMAT:
            raise NotAStoreError(name, f"expected format {STORE_FORMAT!r}, got {meta.get('format')!r}")
        if meta.get("schema_version") in {str(v) for v in OLD_SCHEMAS}:
            raise OldStoreError(name, int(meta["schema_version"]), STORE_SCHEMA_VERSION)
        if meta.get("schema_version") != str(STORE_SCHEMA_VERSION):
            raise NotAStoreError(name, f"expected schema version {STORE_SCHEMA_VERSION}, "
                                       f"got {meta.get('schema_version')!r}")
        for table, expected in _COLUMNS.items():
            got = conn.execute(f"PRAGMA table_info({table})").fetchall()
            if got != expected:
                raise NotAStoreError(name, f"table {table} does not have the columns of schema "
                                           f"{STORE_SCHEMA_VERSION}")
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'events'").fetchone():
            raise NotAStoreError(name, f"the events view of schema {STORE_SCHEMA_VERSION} is missing")
        if not salvage:
            conn.execute("SELECT count(*) FROM games").fetchone()
        return False
    except sqlite3.DatabaseError as exc:
        raise CorruptStoreError(name, str(exc), RECOVER_HINT) from None
    finally:
        conn.close()


# --- private helpers: building and checking games ---------------------------------------------------------


def prepare_game(extras: GameExtras | Mapping[str, Any], events: Sequence[Event]) -> PreparedGame:
    """Check a complete game's log, encode it and chain its hashes: everything an append does but the write.

    Tournament workers call this, so that the one process writing the store only runs the SQL.
    """
    return _prepare(_as_extras(extras), events)


def prepare_match(game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Any],
                  seats: Sequence[SeatExtras] | None = None) -> PreparedGame:
    """`prepare_game` for any registered game (`engine.seam.GameDef`): the core's checks of its log
    (`engine.logcheck`), its id what its content gives, its outcome from its end event, its events chained
    as its codec encodes them. ``seats``: each seat's extras (default: none known; for two seats, the
    per-seat fields of ``extras``)."""
    from locm.engine.errors import LocmError
    from locm.engine.logcheck import check_log

    if game.name == LOCM:
        return prepare_game(extras, events)
    x = _as_extras(extras)
    game_id = x.game_id
    if not isinstance(game_id, str) or not game_id:
        raise InvalidRecordError(str(game_id), "game_id", "a non-empty string", game_id)
    try:
        check_log(game, events)
    except LocmError as exc:
        raise GameLogError(game_id, getattr(exc, "seq", -1), f"a complete {game.title} log", str(exc)) from None
    created = events[0]
    expected = game.game_id(created)
    if game_id != expected:
        raise InvalidRecordError(game_id, "game_id", f"the id its content gives ({expected})", game_id)
    agents = tuple(game.agents(created))
    if seats is None:
        seats = ((SeatExtras(stderr=x.stderr0, think_ms=x.think_ms0, error=x.error0, timeout=x.timeout0),
                  SeatExtras(stderr=x.stderr1, think_ms=x.think_ms1, error=x.error1, timeout=x.timeout1))
                 if len(agents) == 2 else tuple(SeatExtras() for _ in agents))
    if len(seats) != len(agents):
        raise InvalidRecordError(game_id, "seats", f"{len(agents)} seats' extras", len(seats))
    seats = tuple(msgspec.structs.replace(s, stderr=_bound(s.stderr)) for s in seats)
    try:
        msgspec.json.decode(x.meta)
    except DECODE_ERRORS:
        raise InvalidRecordError(game_id, "meta", "JSON text", x.meta) from None
    lines = [game.codec.to_json(e) for e in events]
    head = GENESIS
    for line in lines:
        head = hashlib.sha256(head + line).digest()
    out = game.outcome(events)
    index = game.index(created)
    record = MatchRecord(
        game_id=game_id, game=game.name, ruleset=str(index.get("ruleset", "")), seed=index.get("seed"),
        agents=agents, winner=out.winner, places=out.places(len(agents)), scores=out.scores, reason=out.reason,
        turns=out.turns, n_events=len(events), head_hash=head.hex(), created=utc_timestamp(x.created, game_id),
        seats=seats, fields=index, meta=x.meta)
    return _Prepared(record, pack_log(lines))


def _b(payload: bytes | str) -> bytes:
    return payload if isinstance(payload, bytes) else payload.encode()


def _as_extras(extras: GameExtras | Mapping[str, Any]) -> GameExtras:
    if isinstance(extras, GameExtras):
        return extras
    try:
        return GameExtras(**extras)
    except TypeError as exc:  # an unknown or missing field; the values are checked by _make_record
        raise InvalidRecordError(str(extras.get("game_id", "")), "extras", "fields of GameExtras", str(exc)) \
            from None


def _prepare(extras: GameExtras, events: Sequence[Event], payloads: Sequence[bytes] | None = None,
             head: bytes | None = None) -> _Prepared:
    """Check a game's log and chain it; ``payloads`` are the events' JSON bytes (default: encode them), ``head``
    the last hash of their chain when the caller has already computed it (`_verify`)."""
    game_id = extras.game_id
    if not isinstance(game_id, str) or not game_id:
        raise InvalidRecordError(str(game_id), "game_id", "a non-empty string", game_id)
    n = len(events)
    if n < 2:
        raise GameLogError(game_id, n, "at least game_created and game_ended", f"{n} event(s)")
    types = list(map(type, events))
    # the whole log's checks at once (this is the append's hot path); the loop below names the first fault
    if not (_TYPES.issuperset(types) and types[0] is GameCreated and types[-1] is GameEnded
            and types.count(GameCreated) == 1 and types.count(GameEnded) == 1
            and [e.seq for e in events] == list(range(n))):
        _first_fault(game_id, events)
    lines = list(map(to_json, events)) if payloads is None else list(payloads)
    prev = head
    if prev is None:
        prev, sha256 = GENESIS, hashlib.sha256
        for line in lines:
            prev = sha256(prev + line).digest()  # chain_hash, inlined
    return _Prepared(_make_record(extras, events[0], events[-1], n, prev), pack_log(lines))


def record_problem(record: GameRecord, events: Sequence[Event]) -> str | None:
    """None if the columns of a stored game's record that its events determine (its ``game_created`` fields,
    agents, winner, reason, turns, event count) are what its events say; otherwise the first that is not."""
    created, ended = events[0], events[-1]
    if type(created) is not GameCreated or type(ended) is not GameEnded:
        return "the log does not begin with game_created and end with game_ended"
    given = {f: getattr(created, f) for f in CREATED_FIELDS}
    given.update(event_schema_version=created.schema_version, agent0=created.agents[0], agent1=created.agents[1],
                 winner=ended.winner, reason=ended.reason, turns=ended.turn, n_events=len(events))
    for field, value in given.items():
        if getattr(record, field) != value:
            return f"the record says {field} {getattr(record, field)!r:.60}, its events say {value!r:.60}"
    return None


def first_difference(a: GameRecord, b: GameRecord) -> str:
    """The name of the first field in which two different records differ."""
    return next(f for f in GameRecord.__struct_fields__ if getattr(a, f) != getattr(b, f))


def _first_fault(game_id: str, events: Sequence[Event]) -> None:
    """Raise `GameLogError` at the first event of a log that is not a complete game's."""
    last = len(events) - 1
    for i, event in enumerate(events):
        tag = _TAGS.get(type(event))
        if tag is None:
            raise GameLogError(game_id, i, "an event of events.locm.catalog", event)
        if event.seq != i:
            raise GameLogError(game_id, i, f"seq {i}", event.seq)
        if tag in _ENDS or i == 0 or i == last:
            _check_end(game_id, i, last, tag)
    raise AssertionError("_first_fault: the log has no fault")  # pragma: no cover


_TYPES = frozenset(_TAGS)


def _ledger_link(prev: bytes, game_id: str, head_hash: bytes) -> bytes:
    """One link of the store's ledger: a game's id and the head of its chain, after the previous link."""
    return hashlib.sha256(prev + game_id.encode() + b"\0" + head_hash).digest()


def _gaps(keys: Sequence[int]) -> str:
    """The integers missing between 1 and the last of ascending ``keys``, as ranges (``"3, 7-9"``), at most 5."""
    found, expected = [], 1
    for key in keys:
        if key > expected:
            found.append(str(expected) if key - 1 == expected else f"{expected}-{key - 1}")
        expected = key + 1
    return ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")


def pack_log(lines: Sequence[bytes]) -> bytes:
    """The ``logs.data`` of a game whose events' canonical JSON bytes are ``lines``."""
    return zlib.compress(b"\n".join(lines), LOG_LEVEL)


def _inflate(path: str, game_id: str, data: bytes) -> bytes:
    try:
        return zlib.decompress(data)
    except (zlib.error, TypeError) as exc:
        raise CorruptStoreError(path, f"game {game_id!r}: the log does not inflate: {exc}") from None


def _lines(path: str, game_id: str, data: bytes) -> list[bytes]:
    """A stored log's events as their JSON lines."""
    return _inflate(path, game_id, data).split(b"\n")


def _log_json(data: bytes | None) -> str | None:
    """``locm_log_json(data)``: a ``logs.data`` as one JSON array of its events (NULL for NULL)."""
    if data is None:
        return None
    return json_array(zlib.decompress(data)).decode()


def register_functions(conn: sqlite3.Connection) -> None:
    """Register the SQL functions of the store's ``events`` view (``locm_log_json``) on a connection."""
    conn.create_function("locm_log_json", 1, _log_json, deterministic=True)


_ENDS = frozenset(("game_created", "game_ended"))


def _check_end(game_id: str, i: int, last: int, tag: str) -> None:
    if (i == 0) != (tag == "game_created"):
        raise GameLogError(game_id, i, "game_created first and only first", tag)
    if (i == last) != (tag == "game_ended"):
        raise GameLogError(game_id, i, "game_ended last and only last", tag)


def _make_record(x: GameExtras, created: GameCreated, ended: GameEnded, n: int, head: bytes) -> GameRecord:
    game_id = x.game_id
    think = []
    for field in ("think_ms0", "think_ms1"):
        value = getattr(x, field)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise InvalidRecordError(game_id, field, "milliseconds >= 0 or None", value)
            value = float(value)
        think.append(value)
    for field in ("stderr0", "stderr1", "meta"):
        if not isinstance(getattr(x, field), str):
            raise InvalidRecordError(game_id, field, "text", getattr(x, field))
    try:
        msgspec.json.decode(x.meta)
    except DECODE_ERRORS:
        raise InvalidRecordError(game_id, "meta", "JSON text", x.meta) from None
    if ended.winner not in (0, 1):
        raise GameLogError(game_id, n - 1, "a winner 0 or 1", ended.winner)
    for field in CREATED_FIELDS:
        value = getattr(created, field)
        if isinstance(value, int) and not -2**63 <= value < 2**63:
            raise InvalidRecordError(game_id, field, "a 64-bit integer", value)
    return GameRecord(
        game_id=game_id, **{f: getattr(created, f) for f in CREATED_FIELDS},
        event_schema_version=created.schema_version, agent0=created.agents[0], agent1=created.agents[1],
        winner=ended.winner, reason=ended.reason, turns=ended.turn, n_events=n, head_hash=head.hex(),
        created=utc_timestamp(x.created, game_id), stderr0=_bound(x.stderr0), stderr1=_bound(x.stderr1),
        think_ms0=think[0], think_ms1=think[1], error0=bool(x.error0), error1=bool(x.error1),
        timeout0=bool(x.timeout0), timeout1=bool(x.timeout1), meta=x.meta,
    )


def _bound(text: str) -> str:
    """At most `STDERR_LIMIT` characters: a longer text keeps its tail behind a note of how much was cut."""
    if len(text) <= STDERR_LIMIT:
        return text
    note = f"[... {len(text)} characters, start cut]\n"
    return note + text[len(text) - (STDERR_LIMIT - len(note)):]


def _verify(game_id: str, lines: Sequence[bytes]) -> list[bytes]:
    """The chained hashes of a log's lines."""
    prev, hashes, sha256 = GENESIS, [], hashlib.sha256
    for line in lines:
        prev = sha256(prev + line).digest()
        hashes.append(prev)
    return hashes


def _first_bad_seq(game_id: str, lines: Sequence[bytes]) -> None:
    """Raise `ChainError` (what ``seq``) at the first line whose event's seq is not its line number."""
    for i, line in enumerate(lines):
        seq = _seq(line)
        if seq != i:
            raise ChainError(game_id, i, i, seq, "seq")


def _seq(line: bytes) -> int | str:
    """The ``seq`` of an event's JSON line (its text, shortened, when it has none)."""
    try:
        seq = _seq_dec.decode(line).seq
    except DECODE_ERRORS:
        return repr(line[:40])
    return seq


class _Seq(msgspec.Struct):
    seq: int


_seq_dec = msgspec.json.Decoder(_Seq)


# --- private helpers: the export format -------------------------------------------------------------------


class _FileHeader(msgspec.Struct, forbid_unknown_fields=True):
    locm_export: int
    store_schema: int
    event_schema: int


class _Totals(msgspec.Struct, forbid_unknown_fields=True):
    games: int
    events: int


class _Control(msgspec.Struct, forbid_unknown_fields=True):
    game: GameRecord | None = None
    end: _Totals | None = None


class _EventLine(msgspec.Struct, forbid_unknown_fields=True):
    hash: str
    event: msgspec.Raw


_header_dec = msgspec.json.Decoder(_FileHeader)
_control_dec = msgspec.json.Decoder(_Control)
_event_line_dec = msgspec.json.Decoder(_EventLine)


def _parse_export(stream: Iterable[bytes], store: EventStore, skip_existing: bool, counts: list[int],
                  check: bool = True) -> Iterator[_Prepared]:
    """Yield the games of an export file, each checked; raise `ImportFormatError` at the first wrong line.
    ``counts`` receives [games, events, skipped]."""
    lines = enumerate(bounded_lines(stream, MAX_LINE), 1)
    lineno = 0

    def next_line(what: str) -> bytes:
        nonlocal lineno
        for lineno, line in lines:
            if line is None:
                raise ImportFormatError(lineno, f"expected {what}: the line is longer than {MAX_LINE} bytes")
            return _b(line)
        lineno += 1
        raise ImportFormatError(lineno, f"the file ends where {what} was expected (truncated?)")

    def decode(dec: msgspec.json.Decoder, line: bytes, what: str):
        try:
            return dec.decode(line)
        except DECODE_ERRORS as exc:
            raise ImportFormatError(lineno, f"expected {what}: {exc}") from None

    head = decode(_header_dec, next_line("the file header"), "the file header line")
    if head.locm_export != EXPORT_VERSION:
        raise ImportFormatError(lineno, f"expected export format {EXPORT_VERSION}, got {head.locm_export}")
    if head.store_schema not in EXPORT_STORE_SCHEMAS:
        raise ImportFormatError(lineno, f"expected store schema {' or '.join(map(str, EXPORT_STORE_SCHEMAS))}, "
                                        f"got {head.store_schema}")
    if head.event_schema > EVENT_SCHEMA_VERSION:
        raise ImportFormatError(lineno, f"expected event schema <= {EVENT_SCHEMA_VERSION}, got {head.event_schema}")
    seen: set[str] = set()
    games = events = 0
    while True:
        control = decode(_control_dec, next_line("a game line or the end line"), "a game line or the end line")
        if (control.game is None) == (control.end is None):
            raise ImportFormatError(lineno, "expected a game line or the end line, got neither or both")
        if control.end is not None:
            if (control.end.games, control.end.events) != (games, events):
                raise ImportFormatError(lineno, f"end line says {control.end.games} games, {control.end.events} "
                                                f"events; the file has {games} games, {events} events")
            for extra, _ in lines:
                raise ImportFormatError(extra, "expected nothing after the end line")
            return
        record, header_line = control.game, lineno
        game_id = record.game_id
        if game_id in seen:
            raise ImportFormatError(lineno, f"game {game_id!r} appears twice in the file")
        seen.add(game_id)
        if not 2 <= record.n_events <= MAX_EVENTS:
            raise ImportFormatError(lineno, f"game {game_id!r}: expected n_events in 2..{MAX_EVENTS}, got "
                                            f"{record.n_events}")
        parsed, payloads, hashes = [], [], []
        for i in range(record.n_events):
            line = next_line(f"event {i} of game {game_id!r} ({record.n_events} events)")
            item = decode(_event_line_dec, line, f"event {i} of game {game_id!r}")
            try:
                event = from_json(item.event)
                hashes.append(bytes.fromhex(item.hash))
                raw = bytes(item.event)
                raw.decode()  # the payload column is UTF-8 text
                payloads.append(raw)
            except (DecodeError, ValueError) as exc:
                raise ImportFormatError(lineno, f"game {game_id!r} event {i}: {exc}") from None
            if event.seq != i:  # caught here, not later, so that a lost line is reported where it is missed
                raise ImportFormatError(lineno, str(GameLogError(game_id, i, f"seq {i}", event.seq)))
            parsed.append(event)
        chain = _verify(game_id, payloads)
        try:
            prepared = _prepare(record.extras(), parsed, payloads, chain[-1])
        except GameLogError as exc:
            raise ImportFormatError(header_line + 1 + max(exc.index, 0), str(exc)) from None
        except InvalidRecordError as exc:
            raise ImportFormatError(header_line, str(exc)) from None
        for i, (got, stored) in enumerate(zip(chain, hashes)):
            if got != stored:
                raise ImportFormatError(header_line + 1 + i, f"game {game_id!r} event {i}: expected hash "
                                                             f"{got.hex()}, the file has {stored.hex()}")
        if prepared.record != record:
            field = first_difference(prepared.record, record)
            raise ImportFormatError(header_line, f"game {game_id!r}: field {field!r}: the events give "
                                                 f"{getattr(prepared.record, field)!r:.60}, the line has "
                                                 f"{getattr(record, field)!r:.60}")
        games, events = games + 1, events + record.n_events
        existing = store._record(game_id)
        if existing is not None:
            if skip_existing and existing.head_hash == record.head_hash:
                counts[2] += 1
                continue
            raise ImportFormatError(header_line, f"game {game_id!r} is already in the store"
                                    + ("" if skip_existing else " (--skip-existing skips identical games)"))
        if check:
            from locm.checks import content_problem

            verdict = content_problem(game_id, parsed, meta=record.meta)
            if not verdict.ok:
                at = header_line + 1 + verdict.seq if 0 <= verdict.seq < record.n_events else header_line
                raise ImportFormatError(at, f"game {game_id!r}: {verdict.problem}")
        counts[0], counts[1] = counts[0] + 1, counts[1] + record.n_events
        yield prepared
