"""The event store: completed games and their event logs, in one SQLite file or in memory (STYLE 6, 7).

A game is written once, when it is complete, in one transaction (`EventStore.append_game`), so a crash never
leaves half a game. Two implementations share one interface and one test class: `SqliteStore` (sqlite-utils
over an embedded SQLite file, default ``locm.db``) and `MemoryStore` (plain dicts). `open_store` is what a CLI
calls.

Modules (eventsourcing's split): this one is the factory (`open_store`, which picks the backend) and the
store's description; `locm.store.interface` is the interface (`EventStore`, whose shared logic works on any
backend) and the memory backend (`MemoryStore`); `locm.store.records` is the mapper (the one record of a
stored game of any game, `GameRecord`, the extras its caller hands in, the checks and chain of a log before it
is stored); `locm.store.export` is the export format; `locm.store.sqlite` is the SQLite backend
(`SqliteStore`, the DDL, the inspection of a file); `locm.store.hooks` is what the store is handed (its
checker, each game's projections through its definition). Every name of the others is also reachable here.
The store names no game and imports no runner, tournament or verify module (tests/test_store_layers.py).

Schema (SQLite, store schema version 3)
---------------------------------------

The DDL is `SCHEMA_SQL` below; the README shows the same text (a test keeps them equal).

- ``locm_meta`` holds ``format = 'locm-event-store'`` and ``schema_version = '3'``. A file is opened only if it
  is new, empty (0 bytes or no tables), or has these two rows and the tables with exactly these
  columns; anything else is refused *before anything is written* (it is inspected through a read-only
  connection first): `CorruptStoreError` for bytes that are not a readable SQLite database (random bytes,
  truncated), `NotAStoreError` for another SQLite database or another schema version; a store of schema 1
  or 2 (locm before schema 3) is refused with `OldStoreError`, whose one line says to run ``locm migrate DB``
  (`locm.store.migrate`). SQLite does the
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
  object of the game's index fields (`engine.seam.GameDef.index`): or those its edges' ``record_fields``
  give (`locm.store.hooks`): for LOCM the seeds and parameters of ``GameCreated`` with ``ruleset_version``,
  ``id_scheme`` and ``event_schema_version``. Every game, whatever its game, reads back as one `GameRecord`.
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
values), agents with their bots' versions, first seed and number of seeds (`locm.games.locm.tournament.Schedule`). A game a
tournament played says its place in ``meta`` (``"schedule": key, "place": k``). ``locm verify`` rebuilds each
schedule from its manifest and reports the scheduled games missing from the store, the games that claim a place
whose game is another, and games that name a schedule the store does not keep.

Provenance
----------
``provenance_sources`` and ``provenance`` (`locm.store.provenance`: `SOURCES_SQL`, `PROVENANCE_SQL`, made by the
first write of games, so a store without them is still whole) say how each game came in: played here by a run
(its id and command), imported from a file (its path, the SHA-256 of the bytes read, when, whether its signature
was trusted), or migrated; ``locm_meta``'s ``provenance_since`` tells the games stored before provenance was
recorded from those written behind the store's back. `EventStore.provenance` reads one game's. Every
provenance row written extends the provenance chain in the same transaction (``provenance_log``, its head in
``locm_meta``'s ``provenance_ledger``: `locm.store.provchain`), which ``locm verify`` checks the rows against
(`EventStore.provenance_problems`) and the signed ledger covers.

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
    {"schedule":{"key":K,"manifest":"<the manifest's text>"}}    with --all: each tournament schedule kept
    {"game":{...the columns of schema 2, head_hash in hex...}}   one per LOCM game, then its n_events lines:
    {"hash":"<64 hex>","event":{...the stored payload, byte for byte...}}
    {"match":{...every field of GameRecord...}}                  one per game of another game, then its events
    {"account":{"account":A,"n_events":N,"head_hash":H}}         with --all: each my-card-game account, then its
                                                                 N event lines (hashes of the account's chain)
    {"end":{"games":G,"events":E}}                               last line: totals, so a cut file is caught
                                                                 (with "schedules", "accounts", "account_events"
                                                                 when the file has any)

Games come in the order stored, LOCM's and the others' alike. A store of LOCM games without schedules or
accounts exports exactly the lines it did before other games, schedules and accounts were exported.

``store_schema`` in the header is the schema whose game lines the file holds (`EXPORT_STORE_SCHEMA`, 2).
Store schemas 2 and 3 changed how games are kept in the store's file, not a field of a LOCM game or an event,
so the game lines are the same from any of them: a file written by a schema-1 store (``store_schema`` 1) is
read alike, and an export of a store is the same byte for byte before and after `locm migrate` to schema 3
(from schema 1, only the header's number differs).

`EventStore.import_jsonl` reads and checks the whole file before anything is kept: each line's JSON, each
event's decoding, seqs 0..n-1, every hash of the chain, each game record against what its events say (the
fields derived from events and ``head_hash``), each game as `locm verify` checks it (`locm.verify.checks`: its id is
what its game_created gives, re-deciding its inputs gives its events: a forger who recomputes the chain is
caught here), the totals and that nothing follows the end line; another game's as `locm verify` checks it (its record what its
events give, its log re-decided by the core); a schedule's key what its manifest gives; an account's log as `locm
verify` checks one (re-decided, every card traced), equal to or extending the stored log of that account. The
first
wrong line raises `ImportFormatError` naming the line number, and then *nothing* of the file is written, not
even the games before that line (SQLite: one transaction for the whole file, rolled back). A game already in
the store is an error too, unless ``skip_existing=True`` (``--skip-existing``) and it is the same game (same
``head_hash``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from locm.errors import (
    ChainError,
    CorruptStoreError,
    DuplicateGameError,
    GameNotFoundError,
    ImportFormatError,
    InvalidRecordError,
    NotAStoreError,
    StoreBusyError,
    StoreError,
    StoreNotFoundError,
)
from locm.store.export import (  # noqa: F401  (the export format's names, re-exported)
    EXPORT_STORE_SCHEMA,
    EXPORT_STORE_SCHEMAS,
    EXPORT_VERSION,
    ImportSummary,
    account_block,
    event_schema,
    export_end,
    export_header,
    game_block,
    parse_export,
    schedule_block,
)
from locm.store.records import (  # noqa: F401  (the mapper's names, re-exported)
    GENESIS,
    GameExtras,
    GameRecord,
    LOG_LEVEL,
    OLD_SCHEMAS,
    PreparedGame,
    STDERR_LIMIT,
    STORE_FORMAT,
    STORE_SCHEMA_VERSION,
    SeatExtras,
    _AccountRow,
    _Prepared,
    _ScheduleRow,
    _as_extras,
    _bound,
    _first_bad_seq,
    _first_fault,
    _gaps,
    _inflate,
    _ledger_link,
    _lines,
    _verify,
    chain_hash,
    first_difference,
    game_facts,
    log_hash,
    pack_log,
    prepare_game,
    record_problem,
    utc_timestamp,
)

if TYPE_CHECKING:
    from locm.store.hooks import Checker
from locm.store.interface import DEFAULT_PATH, EventStore, MemoryStore, _field_text  # noqa: F401

_SQLITE_NAMES = frozenset((
    "BUSY_MESSAGE_S",
    "BUSY_TIMEOUT_S",
    "FACTS_SQL",
    "RECOVER_HINT",
    "SCHEDULES_SQL",
    "SCHEMA_SQL",
    "SqliteStore",
    "_COLUMNS",
    "_DECODERS",
    "_FIELDS",
    "_FACTS_COLUMNS",
    "_HEAD",
    "_INSERT_LOG",
    "_JSON_COLUMNS",
    "_SET_LEDGER",
    "_SELECT",
    "_SQLITE_MAGIC",
    "_TABLES",
    "_connect_read",
    "_expected_columns",
    "_from_row",
    "_inspect",
    "_json",
    "_log_json",
    "_print_wait",
    "_read_uri",
    "_to_row",
    "default_busy_timeout",
    "register_functions",
))


def __getattr__(name: str):
    """The SQLite backend's names (`locm.store.sqlite`), imported on first use: a command that never opens a
    store file (`locm show` of a log) does not import sqlite3."""
    if name in _SQLITE_NAMES:
        from locm.store import sqlite as store_sqlite

        return getattr(store_sqlite, name)
    raise AttributeError(f"module 'locm.store.eventstore' has no attribute {name!r}")


def open_store(path: str | os.PathLike = DEFAULT_PATH, *, create: bool = True, readonly: bool = False,
               busy_timeout: float | None = None, on_wait: Callable[[str], None] | None = None,
               salvage: bool = False, checker: Checker | None = None) -> EventStore:
    """Open the event store at ``path`` (``":memory:"`` gives a `MemoryStore`).

    ``checker`` (`locm.store.hooks.Checker`) is what checks the games of a file imported into it
    (`EventStore.import_jsonl`): the store knows no game's rules, its caller hands them in
    (`locm.games.registry.checker()`, what the command line gives).

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
        return MemoryStore(checker=checker)
    if str(path) == "-":  # `-` is standard input/output for the file options, which cannot hold a store
        raise NotAStoreError("-", "an event store is an SQLite file, not standard input or output: give a file name")
    from locm.store.sqlite import SqliteStore  # the backend, imported when a file is opened

    store = SqliteStore(path, create=create, readonly=readonly or salvage, busy_timeout=busy_timeout,
                        on_wait=on_wait, salvage=salvage)
    store.checker = checker
    return store


