"""The event store's SQLite backend (the recorder of eventsourcing's split): `SqliteStore`, the DDL of store
schema 3 (`SCHEMA_SQL`), a row of the ``games`` table to and from a `GameRecord`, and the inspection that
refuses a file that is not a store before anything is written (`_inspect`). The layout is described in
`locm.store.eventstore`'s docstring; `locm.store.eventstore.open_store` is how a caller gets one.

Over 450 lines for one reason: it is the one module that speaks SQL. The backend, its DDL and the inspection of
a file share the expected tables and columns (`_COLUMNS`, `_TABLES`) and the read-only connection rules
(`_read_uri`); split, the inspection would import the backend's constants and the backend the inspection,
and `locm.store.eventstore` loads this module lazily, only when a store file is opened.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import sys
import time
import threading
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from locm.events.codec import json_array
from locm.errors import (
    CorruptStoreError,
    DuplicateGameError,
    GameNotFoundError,
    NotAStoreError,
    OldStoreError,
    StoreBusyError,
    StoreError,
    StoreNotFoundError,
)
from locm.store.records import (
    GENESIS,
    GameRecord,
    OLD_SCHEMAS,
    STORE_FORMAT,
    STORE_SCHEMA_VERSION,
    SeatExtras,
    _AccountRow,
    _KnownGame,
    _Prepared,
    _ScheduleRow,
    _ledger_link,
    log_hash,
    utc_timestamp,
)
from locm.store.interface import DEFAULT_PATH, EventStore
from locm.store import provchain
from locm.store.provenance import PROVENANCE_SQL, SOURCES_SQL, Provenance, Scope, Source


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


FACTS_SQL = """\
CREATE TABLE IF NOT EXISTS game_facts (
    game      INTEGER PRIMARY KEY REFERENCES games (id),
    head_hash BLOB NOT NULL,
    log_hash  BLOB NOT NULL,
    version   TEXT NOT NULL,
    data      BLOB NOT NULL
)"""
"""Each LOCM game's facts as the card report reads them (`analysis.locm.packedfacts`), written with the game in its
transaction (`locm.store.records.game_facts`), by the games' integer key. ``head_hash`` is the game's and
``log_hash`` the SHA-256 of its ``logs.data`` when they were computed, ``version`` what computed them
(`analysis.locm.packedfacts.FACTS_VERSION`): the report uses a row only when all three are the game's as it is and
this locm's (`EventStore.current_facts`), and `locm verify` recomputes every row from its game's events. Made
by the first write of a game with facts, so a store without it is still whole; derived data, like the
``cardfacts_`` tables, which the store's open check ignores."""


def default_busy_timeout() -> float:
    """``$LOCM_BUSY_TIMEOUT`` (seconds) if set and valid, else `BUSY_TIMEOUT_S`."""
    try:
        value = float(os.environ.get("LOCM_BUSY_TIMEOUT", BUSY_TIMEOUT_S))
    except ValueError:
        return BUSY_TIMEOUT_S
    return value if math.isfinite(value) and value >= 0 else BUSY_TIMEOUT_S


def _print_wait(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _Checkpointer(threading.Thread):
    """Checkpoints a store's WAL from a connection of its own while the writer goes on writing: SQLite's
    advice for a busy writer (``wal_autocheckpoint`` off on the writer's connection, PASSIVE checkpoints from
    another). Copying the WAL's pages into the database and syncing them then no longer stops the writer at
    every thousandth page; it runs on another core, SQLite's calls releasing the GIL. Woken after each commit,
    it checkpoints once the WAL holds `limit` bytes (SQLite's own threshold: 1000 pages). A
    checkpoint it cannot make (the lock taken, an error) is left to the next one or to the writer's close,
    whose connection, the last, checkpoints everything."""

    def __init__(self, path: str, limit: int):
        super().__init__(name="locm-store-checkpoint", daemon=True)
        self._path = path
        self._limit = limit
        self._wake = threading.Event()
        self._stopping = False

    def poke(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self.join()

    def run(self) -> None:
        try:
            conn = sqlite3.connect(self._path, timeout=1.0, isolation_level=None)
        except sqlite3.Error:
            return
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    if os.path.getsize(self._path + "-wal") >= self._limit:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except (OSError, sqlite3.Error):
                    pass
        finally:
            conn.close()


WRITE_CHUNK = 64
"""Games a write inserts with one statement a table (`SqliteStore._insert`): a tournament's batch is one chunk,
an import's lines go in chunks as they are read."""

PAGE_SIZE = 16384
"""The page size of a new store. SQLite's default, 4 KB, spills every game's log (about 8 KB compressed) into
overflow pages: 16 KB pages store games 1.16x faster (`benchmarks/bench_writer.py`). A store made before keeps
its page size."""


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
        self._facts: bool | None = None  # the game_facts table: None not looked at yet (`_facts_layout`)
        self._provenance_layout: tuple | None = None  # `_provenances`' tables and provenance_since, once made
        self._checkpointer: _Checkpointer | None = None  # started by the first chunk of games (`_insert`)
        try:
            if not readonly:
                if fresh:  # before WAL mode fixes it: a game's log (8 KB compressed) fits a page
                    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
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
        if self._checkpointer is not None:
            self._checkpointer.poke()

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self._conn.close()  # the last connection: SQLite checkpoints the whole WAL and removes it

    def count(self) -> int:
        return self._query("SELECT count(*) FROM games")[0][0]

    def count_events(self) -> int:
        return self._query("SELECT coalesce(sum(n_events), 0) FROM games")[0][0]

    def _query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None

    def _write(self, games: Iterable[_Prepared], source: Source | None = None,
               digest: Callable[[], str] | None = None) -> None:
        """Store `games` (and an import's schedule and account rows) in one transaction, all or nothing. The
        games go in chunks of `WRITE_CHUNK`, each table's rows of a chunk in one statement (`_insert`), read as
        they come: an import's lines are never all held in memory. Each game's provenance row names
        ``source`` (its row made or found by its ``run``; its ``sha256`` updated from ``digest()`` at the end);
        a trusted source takes over the games an untrusted import stored that it holds identically
        (`_KnownGame`)."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        conn, game_id = self._conn, ""
        layout = self._facts_layout()
        source = source or self.played()
        try:
            with self._transaction():
                count, head = self._ledger()  # read under the write lock: no other writer extends it meanwhile
                key = conn.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
                sid, made = self._source_id(source, key)
                chain = provchain.Writer(conn)  # the provenance chain, extended as the rows are written
                chunk: list[_Prepared] = []
                for p in games:
                    if type(p) is _ScheduleRow:  # an import's tournament schedule
                        conn.execute(SCHEDULES_SQL)
                        conn.execute("INSERT OR IGNORE INTO schedules (key, manifest, created) VALUES (?, ?, ?)",
                                     (p.key, p.manifest, utc_timestamp()))
                        continue
                    if type(p) is _AccountRow:  # an import's my-card-game account (checked, it extends the row)
                        from locm.store.hooks import side_logs_of

                        side_logs_of("account").write(conn, p.account, p.lines)
                        continue
                    if type(p) is _KnownGame:  # stored identically: an untrusted import of it is now this one
                        if source.trusted and conn.execute(_TRUST_KNOWN, (sid, p.game_id)).rowcount:
                            taken = conn.execute("SELECT id FROM games WHERE game_id = ?", (p.game_id,)).fetchone()
                            chain.game(taken[0], p.game_id, sid, source.run)
                        continue
                    game_id = p.record.game_id
                    chunk.append(p)
                    if len(chunk) == WRITE_CHUNK:
                        key, count, head, layout = self._insert(chunk, key, count, head, layout, sid)
                        self._chain_games(chain, chunk, key, sid, source.run)
                        chunk = []
                if chunk:
                    key, count, head, layout = self._insert(chunk, key, count, head, layout, sid)
                    self._chain_games(chain, chunk, key, sid, source.run)
                conn.execute(_SET_LEDGER, (f"{count} {head.hex()}",))
                if digest is not None:
                    conn.execute("UPDATE provenance_sources SET sha256 = ? WHERE id = ?", (digest(), sid))
                if made:  # the source row as its transaction leaves it (an import's SHA-256 known only now)
                    chain.source(sid)
                chain.close()
            self._facts = layout  # only once committed: a rolled-back transaction took a new table away
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"{self.path}: game {game_id!r} refused by the database: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write game {game_id!r}: {exc}") from None

    def _source_id(self, source: Source, key: int) -> tuple[int, bool]:
        """The key of ``source``'s row and whether it was made now (with the provenance tables the first time:
        then ``provenance_since`` is the key of the next game; and the provenance chain, `provchain.start`, over
        the rows before it), in the open transaction."""
        conn = self._conn
        conn.execute(SOURCES_SQL)
        conn.execute(PROVENANCE_SQL)
        conn.execute("INSERT OR IGNORE INTO locm_meta (key, value) VALUES ('provenance_since', ?)", (str(key + 1),))
        provchain.start(conn)
        made = conn.execute("INSERT OR IGNORE INTO provenance_sources (run, kind, command, file, sha256, at, "
                            "trusted, signer) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (source.run, source.kind, source.command, source.file, source.sha256, source.at,
                             int(source.trusted), source.signer)).rowcount == 1
        return conn.execute("SELECT id FROM provenance_sources WHERE run = ?", (source.run,)).fetchone()[0], made

    @staticmethod
    def _chain_games(chain: provchain.Writer, chunk: list[_Prepared], last: int, sid: int, run: str) -> None:
        """The provenance chain's entries of a chunk of games just stored (keys up to ``last``)."""
        for k, p in enumerate(chunk, last - len(chunk) + 1):
            chain.game(k, p.record.game_id, sid, run)

    def provenance_ledger(self) -> tuple[int, str] | None:
        """The provenance chain's length and head (hex), None if the store has none (`locm.store.provchain`)."""
        found = self._read(provchain.read_head)
        return None if found is None else (found[0], found[1].hex())

    def provenance_head_at(self, count: int) -> str | None:
        """The provenance chain's head (hex) over its first ``count`` entries recomputed from the rows as they
        are, None if it has fewer (what a signed ledger's chain must still read)."""
        found = self._read(lambda conn: provchain.head_at(conn, count))
        return None if found is None else found.hex()

    def provenance_problems(self) -> list[str]:
        """What differs between the provenance rows and their chain (`locm.store.provchain.problems`)."""
        return self._read(provchain.problems)

    def chain_provenance(self) -> None:
        """Start the provenance chain of a store whose provenance rows were written before it (nothing if it has
        one or has no provenance tables), in a transaction of its own."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only, cannot write")
        with self._transaction():
            if provchain.has_tables(self._conn):
                provchain.start(self._conn)

    def _read(self, query: Callable[[sqlite3.Connection], Any]) -> Any:
        try:
            return query(self._conn)
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None

    def _provenances(self, game_ids: list[str] | None) -> dict[str, Provenance]:
        if self._provenance_layout is None:  # (tables, provenance_since) once both tables are there: fixed
            layout = ({r[0] for r in self._query("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
                                                 "('provenance', 'provenance_sources')")},
                      self._query("SELECT value FROM locm_meta WHERE key = 'provenance_since'"))
            if len(layout[0]) < 2 or not layout[1]:
                tables, since = layout
            else:
                self._provenance_layout = tables, since = layout
        else:
            tables, since = self._provenance_layout
        if game_ids is not None and len(game_ids) == 1:  # a tournament's look-up of one scheduled game
            where, params = " WHERE g.game_id = ?", (game_ids[0],)
        elif game_ids is not None:
            where, params = " WHERE g.game_id IN (SELECT value FROM json_each(?))", (_json.encode(game_ids).decode(),)
        else:
            where, params = "", ()
        if len(tables) < 2:
            rows = [(gid, key) + (None,) * 8 for gid, key in
                    self._query(f"SELECT g.game_id, g.id FROM games g{where} ORDER BY g.id", params)]
        else:
            rows = self._query("SELECT g.game_id, g.id, s.kind, s.run, s.command, s.file, s.sha256, s.at, s.trusted, "
                               "s.signer FROM games g LEFT JOIN provenance p ON p.game = g.id LEFT JOIN "
                               f"provenance_sources s ON s.id = p.source{where} ORDER BY g.id", params)
        try:
            first = int(since[0][0]) if since else None
        except (TypeError, ValueError):
            first = 0  # a value not written by locm: every game without a row is unrecorded
        return {row[0]: _provenance(row, first) for row in rows}

    def _insert(self, chunk: list[_Prepared], key: int, count: int, head: bytes, layout: bool | None,
                source: int) -> tuple[int, int, bytes, bool | None]:
        """Whole games in the open transaction, each table's rows in one statement: the games' keys are given
        (the next after `key`, the largest so far, as SQLite would give them one by one), so the logs and facts
        need no key read back. The last key, the ledger's count and head after them, and the facts' layout."""
        conn = self._conn
        if len(chunk) > 1 and self._checkpointer is None:  # a writer of batches: its WAL is checkpointed beside
            conn.execute("PRAGMA wal_autocheckpoint=0")     # it from now on
            self._checkpointer = _Checkpointer(self.path, 1000 * conn.execute("PRAGMA page_size").fetchone()[0])
            self._checkpointer.start()
        rows, logs, facts, origins = [], [], [], []
        before = key
        for p in chunk:
            key += 1
            row = _to_row(p.record)
            rows.append((key, *row))
            logs.append((key, p.data))
            origins.append((key, source))
            if p.facts is not None and layout is not False:
                version, blob, digest = p.facts
                facts.append((key, row[_HEAD], digest, version, blob))
            count, head = count + 1, _ledger_link(head, p.record.game_id, row[_HEAD])
        try:
            conn.executemany(_INSERT_GAME_KEYED, rows)
        except sqlite3.IntegrityError as exc:
            if "games.game_id" in str(exc):  # named while this transaction's earlier games are still visible
                raise DuplicateGameError(self._first_stored(chunk, before)) from None
            raise
        conn.executemany(_INSERT_LOG, logs)
        conn.executemany(_INSERT_PROVENANCE, origins)
        if facts:
            if layout is None:
                conn.execute(FACTS_SQL)
                layout = True
            conn.executemany(_INSERT_FACTS, facts)
        return key, count, head, layout

    def _first_stored(self, chunk: list[_Prepared], before: int) -> str:
        """The id of the first game of a refused chunk that the store held before it (a key up to `before`:
        stored earlier, or by this transaction's earlier chunks), or that the chunk holds twice: the one a
        `DuplicateGameError` names. (The chunk's rows inserted before the refused one are still there: keys
        after `before`.)"""
        seen: set[str] = set()
        for p in chunk:
            game_id = p.record.game_id
            if game_id in seen or self._query("SELECT 1 FROM games WHERE game_id = ? AND id <= ?", (game_id, before)):
                return game_id
            seen.add(game_id)
        return ""

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

    def _facts_layout(self) -> bool | None:
        """Whether this store keeps games' facts: True (the table of `FACTS_SQL`), None (no table yet: the first
        write of a game with facts makes it), False (a table of another layout, of some other locm: never read
        nor written, so that a tournament never fails on derived data; the report projects from the events)."""
        if self._facts is None:
            cols = [r[1] for r in self._query("PRAGMA table_info(game_facts)")]
            self._facts = None if not cols else cols == list(_FACTS_COLUMNS)
        return self._facts

    def _stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        if not self._facts_layout():
            return None
        rows = self._query("SELECT f.head_hash, f.version, f.data FROM games g JOIN game_facts f ON f.game = g.id "
                           "WHERE g.game_id = ?", (game_id,))
        if not rows:
            return None
        head, version, data = rows[0]
        if not isinstance(head, bytes) or not isinstance(version, str) or not isinstance(data, bytes):
            return "", str(version), b""  # a row of other types (edited behind the store's back): not used
        return head.hex(), version, data

    def _current_facts(self, game_ids: list[str], version: str) -> dict[str, bytes]:
        if not self._facts_layout():
            return {}
        rows = self._query("SELECT g.game_id, f.data, f.log_hash, l.data FROM games g JOIN game_facts f ON "
                           "f.game = g.id AND f.head_hash = g.head_hash AND f.version = ? JOIN logs l ON "
                           "l.game = g.id WHERE g.game_id IN (SELECT value FROM json_each(?))",
                           (version, _json.encode(game_ids).decode()))
        return {game_id: data for game_id, data, digest, log in rows
                if isinstance(data, bytes) and isinstance(log, bytes) and digest == log_hash(log)}

    def log_hashes(self, game_ids: Sequence[str]) -> dict[str, bytes]:
        rows = self._query("SELECT g.game_id, l.data FROM games g JOIN logs l ON l.game = g.id WHERE g.game_id IN "
                           "(SELECT value FROM json_each(?))", (_json.encode(list(game_ids)).decode(),))
        return {game_id: log_hash(log) for game_id, log in rows if isinstance(log, bytes)}

    def has_game(self, game_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM games WHERE game_id = ?", (game_id,)))

    def _row(self, game_id: str) -> GameRecord | None:
        rows = self._query(f"SELECT {_SELECT} FROM games WHERE game_id = ?", (game_id,))
        return self._from_row(rows[0]) if rows else None

    def scope(self) -> Scope:
        """Which of the stored games count (`locm.store.provenance.Scope`), read now (a few source rows)."""
        try:
            return scope_of(self._conn)
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None

    def left_out(self, game: str | None = None, ruleset: str | None = None,
                 agent: str | None = None) -> dict[str, int]:
        scope = self.scope()
        where, params = [scope.uncounted_sql("g.id")], []
        if game is not None:
            where.append("g.game = ?"), params.append(game)
        if ruleset is not None:
            where.append("g.ruleset = ?"), params.append(ruleset)
        if agent is not None:
            where.append("EXISTS (SELECT 1 FROM json_each(g.agents) a WHERE a.value = ?)"), params.append(agent)
        out: dict[str, int] = {}
        for source, n in self._query(f"SELECT {scope.kind_sql('g.id')}, count(*) FROM games g WHERE "
                                     f"{' AND '.join(where)} GROUP BY 1", params):
            why = scope.kind_of(source)
            out[why] = out.get(why, 0) + n
        return out

    def _rows(self, game, ruleset, agent, winner, limit, counted: bool = False) -> list[GameRecord]:
        where, params = [], []
        if counted:
            where.append(self.scope().counted_sql("games.id"))
        if game is not None:
            where.append("game = ?"), params.append(game)
        if ruleset is not None:
            where.append("ruleset = ?"), params.append(ruleset)
        if agent is not None:
            where.append("EXISTS (SELECT 1 FROM json_each(games.agents) a WHERE a.value = ?)"), params.append(agent)
        if winner is not None:
            where.append("winner = ?"), params.append(winner)
        sql = (f"SELECT {_SELECT} FROM games" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY id")
        if limit is not None:
            sql, params = sql + " LIMIT ?", params + [limit]
        return [self._from_row(r) for r in self._query(sql, params)]

    def _from_row(self, row: Sequence) -> GameRecord:
        try:
            return _from_row(row)
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
                yield game_id, self.game(game_id).game, self._log(game_id)
            return
        try:
            cursor = self._conn.execute("SELECT g.game_id, g.game, l.data FROM games g LEFT JOIN logs l ON "
                                        "l.game = g.id ORDER BY g.id")  # a missing log (NULL) is reported, not skipped
            while batch := cursor.fetchmany(100):
                yield from batch
        except sqlite3.DatabaseError as exc:
            raise CorruptStoreError(self.path, str(exc)) from None


_SQLITE_MAGIC = b"SQLite format 3\x00"

_TABLES = ("locm_meta", "games", "logs")

_FIELDS = GameRecord.__struct_fields__

_INSERT_GAME_KEYED = (f"INSERT INTO games (id, {', '.join(_FIELDS)}) "
                      f"VALUES ({', '.join('?' * (len(_FIELDS) + 1))})")

_INSERT_LOG = "INSERT INTO logs (game, data) VALUES (?, ?)"

_INSERT_PROVENANCE = "INSERT OR REPLACE INTO provenance (game, source) VALUES (?, ?)"

_TRUST_KNOWN = ("UPDATE provenance SET source = ? WHERE game = (SELECT id FROM games WHERE game_id = ?) AND source IN "
                "(SELECT id FROM provenance_sources WHERE kind = 'imported' AND trusted = 0)")
"""A stored game imported untrusted, now imported identically from a trusted file: that file's."""

_SET_LEDGER = "INSERT OR REPLACE INTO locm_meta (key, value) VALUES ('ledger', ?)"

_FACTS_COLUMNS = ("game", "head_hash", "log_hash", "version", "data")

_INSERT_FACTS = ("INSERT OR REPLACE INTO game_facts (game, head_hash, log_hash, version, data) "
                 "VALUES (?, ?, ?, ?, ?)")

_SELECT = ", ".join(_FIELDS)

_HEAD = _FIELDS.index("head_hash")

_JSON_COLUMNS = tuple(_FIELDS.index(f) for f in ("agents", "places", "scores", "seats", "fields"))

_json = msgspec.json.Encoder()


def _provenance(row: Sequence, since: int | None) -> Provenance:
    """A game's provenance from its row of `SqliteStore._provenances`' query (``since``: ``provenance_since``,
    None when the store never recorded provenance); a source row of other types or values is not one locm
    wrote: unrecorded."""
    _, key, kind, run, command, file, sha256, at, trusted, signer = row
    if kind is None:
        return Provenance(kind="before" if since is None or key < since else "unrecorded")
    texts = (run, command, file, sha256, at, signer)
    if kind not in _SOURCE_KINDS or type(trusted) is not int or trusted not in (0, 1) \
            or not all(type(t) is str for t in texts):
        return Provenance(kind="unrecorded")
    source = Source(kind=kind, run=run, command=command, file=file, sha256=sha256, at=at, trusted=bool(trusted),
                    signer=signer)
    return Provenance(kind=kind, source=source)


_SOURCE_KINDS = ("played", "imported", "migrated")


def scope_of(conn: sqlite3.Connection, schema: str = "") -> Scope:
    """Which games of the store open on ``conn`` (its tables in ``schema``, ``"s."`` for an attached store) count:
    its source rows (few: one per run or file) each classified by `Provenance.counted` as `_provenance` reads
    it, and its ``provenance_since`` read as `SqliteStore._provenances` reads it."""
    try:
        since_rows = conn.execute(f"SELECT value FROM {schema}locm_meta WHERE key = 'provenance_since'").fetchall()
    except sqlite3.OperationalError:
        since_rows = []
    try:
        since = int(since_rows[0][0]) if since_rows else None
    except (TypeError, ValueError):
        since = 0  # a value not written by locm: every game without a row is unrecorded
    try:
        conn.execute(f"SELECT game, source FROM {schema}provenance LIMIT 0")
        rows = conn.execute(f"SELECT id, kind, run, command, file, sha256, at, trusted, signer FROM "
                            f"{schema}provenance_sources ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # no provenance tables (yet)
        return Scope(tables=False, since=since)
    uncounted = []
    for key, *rest in rows:
        if rest[0] is None:  # read as no source row (`_provenance`): the game's key decides
            continue
        came = _provenance((None, None, *rest), since)
        if not came.counted and type(key) is int:
            uncounted.append((key, "imported" if came.kind == "imported" else "unrecorded"))
    return Scope(tables=True, since=since, uncounted=tuple(uncounted))


def _to_row(m: GameRecord) -> list:
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


def _from_row(row: Sequence) -> GameRecord:
    doc = dict(zip(_FIELDS, row))
    doc["head_hash"] = doc["head_hash"].hex()
    for name, dec in _DECODERS.items():
        if doc[name] is not None:
            doc[name] = dec.decode(doc[name])
    return GameRecord(**doc)


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


def _log_json(data: bytes | None) -> str | None:
    """``locm_log_json(data)``: a ``logs.data`` as one JSON array of its events (NULL for NULL)."""
    if data is None:
        return None
    return json_array(zlib.decompress(data)).decode()


def register_functions(conn: sqlite3.Connection) -> None:
    """Register the SQL functions of the store's ``events`` view (``locm_log_json``) on a connection."""
    conn.create_function("locm_log_json", 1, _log_json, deterministic=True)
