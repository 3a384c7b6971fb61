"""The event store: completed games and their event logs, in one SQLite file or in memory (STYLE 6, 7).

A game is written once, when it is complete, in one transaction (`EventStore.append_game`), so a crash never
leaves half a game. Two implementations share one interface and one test class: `SqliteStore` (sqlite-utils
over an embedded SQLite file, default ``locm.db``) and `MemoryStore` (plain dicts). `open_store` is what a CLI
calls.

Modules (eventsourcing's split): this one is the interface (`EventStore`, whose shared logic works on any
backend), the memory backend (`MemoryStore`) and `open_store`; `locm.store.records` is the mapper (records,
the checks and chain of a log before it is stored, the export format); `locm.store.sqlite` is the SQLite
backend (`SqliteStore`, the DDL, the inspection of a file). Every name of the two is also reachable here.

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
values), agents with their bots' versions, first seed and number of seeds (`locm.games.locm.tournament.Schedule`). A game a
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
    {"schedule":{"key":K,"manifest":"<the manifest's text>"}}    with --all: each tournament schedule kept
    {"game":{...every field of GameRecord, head_hash in hex...}} one per LOCM game, then its n_events lines:
    {"hash":"<64 hex>","event":{...the stored payload, byte for byte...}}
    {"match":{...every field of MatchRecord...}}                 one per game of another game, then its events
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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO, Self

import msgspec

from locm.events.locm.catalog import Event, GameCreated, GameEnded
from locm.events.locm.codec import DecodeError, from_json, from_json_array, json_array
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
from locm.store.records import (  # noqa: F401  (the mapper's names, re-exported)
    CREATED_FIELDS,
    EXPORT_STORE_SCHEMA,
    EXPORT_STORE_SCHEMAS,
    EXPORT_VERSION,
    GENESIS,
    GameExtras,
    GameRecord,
    ImportSummary,
    LOCM,
    LOCM_FIELDS,
    LOG_LEVEL,
    MatchRecord,
    OLD_SCHEMAS,
    PreparedGame,
    STDERR_LIMIT,
    STORE_FORMAT,
    STORE_SCHEMA_VERSION,
    SeatExtras,
    _Control,
    _ENDS,
    _EventLine,
    _FileHeader,
    _Prepared,
    _Seq,
    _TAGS,
    _TYPES,
    _Totals,
    _AccountRow,
    _ScheduleRow,
    _as_extras,
    _as_match,
    _b,
    _bound,
    _check_end,
    _control_dec,
    _event_line_dec,
    _first_bad_seq,
    _first_fault,
    _gaps,
    _header_dec,
    _inflate,
    _ledger_link,
    _lines,
    _make_record,
    _parse_export,
    _prepare,
    _seq,
    _seq_dec,
    _verify,
    account_block,
    chain_hash,
    export_end,
    export_header,
    schedule_block,
    first_difference,
    locm_record,
    log_hash,
    match_of,
    pack_log,
    prepare_game,
    prepare_match,
    record_problem,
    utc_timestamp,
)

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
    "_FACTS_COLUMNS",
    "_FLAGS",
    "_HEAD",
    "_INSERT_LOG",
    "_JSON_COLUMNS",
    "_MATCH_COLUMNS",
    "_MATCH_FIELDS",
    "_SCHEMA_2_FIELDS",
    "_SET_LEDGER",
    "_SQLITE_MAGIC",
    "_TABLES",
    "_connect_read",
    "_expected_columns",
    "_inspect",
    "_json",
    "_log_json",
    "_match_from_row",
    "_match_to_row",
    "_print_wait",
    "_read_uri",
    "_record_from_row",
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


DEFAULT_PATH = "locm.db"

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
    from locm.store.sqlite import SqliteStore  # the backend, imported when a file is opened

    return SqliteStore(path, create=create, readonly=readonly or salvage, busy_timeout=busy_timeout,
                       on_wait=on_wait, salvage=salvage)


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

    def stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        """A LOCM game's facts as stored with it (`locm.store.records.game_facts`): the head hash (hex) of the
        game they were computed from, their version and their blob (`analysis.packedfacts`); None if the store
        keeps none for it. Derived data: `locm.verify.checks.facts_problem` recomputes them from the events."""
        return self._stored_facts(game_id)

    def current_facts(self, game_ids: Sequence[str], version: str) -> dict[str, bytes]:
        """The stored facts' blobs of those of ``game_ids`` whose facts are of ``version`` and were computed from
        the game as it is now: its head hash, and its log's very bytes (their SHA-256, `log_hash`: a log edited
        behind the store's back is caught without inflating it). What the card report may count instead of
        folding the logs."""
        return self._current_facts(list(game_ids), version)

    def log_hashes(self, game_ids: Sequence[str]) -> dict[str, bytes]:
        """`log_hash` of each stored game's log bytes (what its facts are bound to)."""
        return {game_id: log_hash(self._log(game_id)) for game_id in game_ids}

    def match(self, game_id: str) -> MatchRecord:
        """A stored game's row, whatever its game (`GameNotFoundError` if there is none)."""
        found = self._match(game_id)
        if found is None:
            raise GameNotFoundError(game_id)
        return found

    def matches(self, game: str | None = None, ruleset: str | None = None, agent: str | None = None,
                winner: int | None = None, limit: int | None = None, *, seats: int | None = None,
                winner_agent: str | None = None, place: int | None = None,
                fields: Mapping[str, str] | None = None) -> list[MatchRecord]:
        """The rows of the stored games (of one game when ``game`` is given), in the order stored; ``agent``
        matches any seat; ``winner`` is a seat (-1: games without a winner); ``seats`` the number of players;
        ``winner_agent`` the agent in the winner's seat; ``place`` (with ``agent``) the place that agent
        finished in, 0 for the first (alone or shared), in any of its seats; ``fields`` index fields' values
        (as text: ``{"map": "octagon-8p"}``)."""
        if place is not None and agent is None:
            raise StoreError("place: a place is an agent's: give the agent too")
        if seats is None and winner_agent is None and place is None and not fields:
            return self._matches(game, ruleset, agent, winner, limit)
        found = [m for m in self._matches(game, ruleset, agent or winner_agent, winner, None)
                 if (seats is None or len(m.agents) == seats)
                 and (winner_agent is None or 0 <= m.winner < len(m.agents) and m.agents[m.winner] == winner_agent)
                 and (place is None or any(a == agent and p == place for a, p in zip(m.agents, m.places)))
                 and all(k in m.fields and _field_text(m.fields[k]) == v for k, v in (fields or {}).items())]
        return found if limit is None else found[:limit]

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
        """Write games (all when ``game_ids`` is None: every registered game's, in the order stored, with the
        store's tournament schedules first and its my-card-game accounts after) to ``out`` in the export
        format; return how many games. Each game's and account's chain is verified before it is written
        (`ChainError`, `AccountStoreError`: the output then lacks its end line, so importing it is refused).
        With ``on_bad`` (salvage), a game that cannot be read or does not verify is passed to it and left out
        instead, and the file stays importable (salvage writes games only)."""
        out.write(export_header())
        games = events = schedules = accounts = account_events = 0
        whole = game_ids is None
        if game_ids is None:
            game_ids = self.readable_ids() if on_bad else [m.game_id for m in self._matches(None, None, None, None,
                                                                                            None)]
        if whole and on_bad is None:
            for key, manifest in self.schedules():
                out.write(schedule_block(key, manifest))
                schedules += 1
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
        if whole and on_bad is None:
            from locm.games.mcg.accounts import account_hashes, account_lines, account_names

            for name in account_names(self):
                lines = account_lines(self, name)
                out.write(account_block(name, lines, account_hashes(lines)))
                accounts, account_events = accounts + 1, account_events + len(lines)
        out.write(export_end(games, events, schedules, accounts, account_events))
        return games

    def export_game(self, game_id: str) -> tuple[bytes, int]:
        """One game in the export format (its record line, ``game`` for LOCM's and ``match`` for another
        game's, and its event lines, the chain verified first) and its number of events; `ChainError` or
        another `StoreError` if it does not read or verify."""
        enc = msgspec.json.encode
        m = self._match(game_id)
        if m is not None and m.game != LOCM:
            try:
                lines = _lines(self.path, game_id, self._log(game_id))
            except CorruptStoreError as exc:
                raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
            hashes = self._check_chain(m, lines)
            parts = [b'{"match":' + enc(m) + b"}\n"]
        else:
            record, lines, hashes = self._verified(game_id)
            m = record
            parts = [b'{"game":' + enc(record) + b"}\n"]
        parts += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(lines, hashes)]
        return b"".join(parts), m.n_events

    def _account_lines(self, name: str) -> list[bytes] | None:
        """A stored my-card-game account's log lines (its chain checked), or None when there is no such account
        (a memory store keeps none)."""
        from locm.games.mcg.accounts import account_lines, account_names

        return account_lines(self, name) if name in account_names(self) else None

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
        """Keep a tournament's schedule (its manifest: JSON text, `locm.tournament.schedule.Schedule.manifest`) under
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
        `locm verify` checks a stored game (`locm.verify.checks.content_problem`: its id is what its content gives,
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

    def _stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        raise NotImplementedError

    def _current_facts(self, game_ids: list[str], version: str) -> dict[str, bytes]:
        found = {}
        for game_id in game_ids:
            row = self._stored_facts(game_id)
            if row is not None and row[1] == version and row[0] == self.match(game_id).head_hash:
                found[game_id] = row[2]
        return found  # (the memory backend's logs cannot be edited behind its back)

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


def _field_text(value: Any) -> str:
    """An index field's value as a filter compares it: text as it is, anything else as its JSON."""
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


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
        schedules: dict[str, str] = {}
        for p in games:  # consume (and so validate) everything before changing anything
            if type(p) is _ScheduleRow:
                schedules.setdefault(p.key, p.manifest)
                continue
            if type(p) is _AccountRow:
                raise StoreError(f"{self.path}: accounts are kept in a store file (SQLite), not in memory")
            game_id = p.record.game_id
            if game_id in self._games or game_id in staged:
                raise DuplicateGameError(game_id)
            staged[game_id] = p
        count, head = self._ledger_state
        for p in staged.values():
            count, head = count + 1, _ledger_link(head, p.record.game_id, bytes.fromhex(p.record.head_hash))
        self._games.update(staged)
        self._ledger_state = (count, head)
        for key, manifest in schedules.items():
            self._schedule_rows.setdefault(key, manifest)

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

    def _stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        p = self._games.get(game_id)
        if p is None or p.facts is None:
            return None
        return p.record.head_hash, p.facts[0], p.facts[1]

    def _iter_logs(self, game_ids):
        if game_ids is None:
            game_ids = [g for g, p in self._games.items() if isinstance(p.record, GameRecord)]
        for game_id in game_ids:
            yield game_id, self._log(game_id)
