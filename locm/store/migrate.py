"""`migrate`: convert an event store of schema 1 (one row per event) or 2 (one compressed log per game, LOCM's
columns) to schema 3 (`locm.store.eventstore`: a ``game`` column, each game's own index fields as JSON), losing nothing.

Every game of the old file is read with its events and checked exactly as an import checks a game
(`locm.store.records.prepare_game`: each event decodes, seqs are 0..n-1, the record matches what the events say;
the caller's checker, `locm.store.hooks.Checker`: its id is what its content gives, re-deciding its inputs
gives its events) and its hash chain is recomputed and compared with every stored per-event hash and with the
record's ``head_hash``; the first game that does not check stops the migration, naming it, with the old file
untouched.

Atomic: the games are written into a new file beside the old one (``DB.migrating``, any leftover of an
interrupted run is replaced), which becomes ``DB`` only when complete. Then the old file is checkpointed
and switched out of WAL mode (so that no ``DB-wal`` of it is left to be mistaken for the new file's; this needs
every other program to have closed it, and it checks that no game was stored meanwhile), then kept as ``DB.vN``
(N its schema) through a hard link, and the new file renamed over ``DB`` (one atomic rename: at every moment
``DB`` is either the whole old store or the whole new one). Where hard links are not possible, the old file is
renamed to ``DB.vN`` first. A migrated store exports the same bytes as before (`locm.store.eventstore.EXPORT_STORE_SCHEMA`).

What a store keeps beside its games comes along: its tournament schedules (each manifest checked to give its
key, as an import checks one), so that `locm verify` still finds a scheduled game missing, and its ledger's
value as it stands in the old file. The games are copied in the order stored, so an intact store's ledger
comes out the same; one that no longer matches its games (a game deleted behind the store's back) is kept as
it was, not recomputed over what is left, so that `locm verify` of the new file still says so (and
``note`` says it at once).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from locm.events.codec import DecodeError
from locm.engine.errors import LocmError
from locm.engine.registry import get
from locm.errors import MigrateError, StoreError
from locm.store.eventstore import (
    GENESIS,
    SCHEDULES_SQL,
    OLD_SCHEMAS,
    STORE_FORMAT,
    STORE_SCHEMA_VERSION,
    chain_hash,
    _inflate,
    first_difference,
    open_store,
    prepare_game,
)
from locm.store.export import FLAT_GAME, _FlatRecord, _flat_of, _record_of
from locm.store.provenance import Source, new_run
from locm.store.records import utc_timestamp

if TYPE_CHECKING:
    from locm.store.hooks import Checker

BATCH = 200
"""Games written per transaction into the new file (which is not in place until the end)."""

SCHEMA_TABLES = {1: {"locm_meta", "games", "events"}, 2: {"locm_meta", "games", "logs"}}


def schema_of(path: Path) -> int | None:
    """The store schema version of the file at ``path`` (None if it is not a locm event store)."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        meta = dict(conn.execute("SELECT key, value FROM locm_meta").fetchall())
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
    if meta.get("format") != STORE_FORMAT:
        return None
    try:
        return int(meta.get("schema_version", ""))
    except ValueError:
        return None


def count_games(path: Path) -> int:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    finally:
        conn.close()


def migrate(path: str | os.PathLike, progress: Callable[[int], None] | None = None,
            note: Callable[[str], None] | None = None, *, checker: Checker) -> tuple[int, int, Path]:
    """Convert the store of schema 1 or 2 at ``path`` to schema 3 in place, keeping the old file as ``path.vN``;
    ``progress(n)`` after each batch of n games; ``note(text)`` for what the user should know (the schedules
    kept, a ledger that does not match the games); ``checker`` checks each game's content and reads each
    schedule's manifest (`locm.store.hooks.Checker`: `locm.games.registry.checker()`). Return ``(games,
    events, backup path)``."""
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise MigrateError(f"{name}: no such file")
    version = schema_of(path)
    if version is None:
        raise MigrateError(f"{name}: not a locm event store")
    if version == STORE_SCHEMA_VERSION:
        raise MigrateError(f"{name}: already an event store of schema {STORE_SCHEMA_VERSION}: nothing to migrate")
    if version not in OLD_SCHEMAS:
        raise MigrateError(f"{name}: an event store of schema {version}, which this locm cannot migrate")
    backup, new = Path(f"{path}.v{version}"), Path(f"{path}.migrating")
    if backup.exists():
        raise MigrateError(f"{name}: {backup} is in the way (a migration keeps the old store there): move it first")
    for leftover in (new, Path(f"{new}-wal"), Path(f"{new}-shm")):
        leftover.unlink(missing_ok=True)
    try:
        old = sqlite3.connect(name, timeout=5, isolation_level=None)
    except sqlite3.Error as exc:
        raise MigrateError(f"{name}: cannot open: {exc}") from None
    try:
        tables = {r[0] for r in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not SCHEMA_TABLES[version] <= tables:
            raise MigrateError(f"{name}: schema {version} says the meta table, but the tables "
                               f"{sorted(SCHEMA_TABLES[version])} are not all there")
        games, events, last = _copy(old, version, new, name, progress, checker)
        _copy_beside(old, tables, new, name, note or (lambda text: None), checker)
        try:  # fold the -wal in and leave WAL mode: the old file is then whole on its own, with no -wal beside
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            mode = old.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
        except sqlite3.OperationalError as exc:
            raise MigrateError(f"{name}: cannot take the store for migration ({exc}): close the programs using "
                               f"it and run again") from None
        if mode != "delete":
            raise MigrateError(f"{name}: another program has the store open: close it and run again")
        if old.execute("SELECT count(*), max(rowid) FROM games").fetchone() != (games, last):
            raise MigrateError(f"{name}: games were stored while migrating: run again")
    except BaseException as exc:
        for leftover in (new, Path(f"{new}-wal"), Path(f"{new}-shm")):
            leftover.unlink(missing_ok=True)
        if isinstance(exc, sqlite3.Error):  # a damaged page, a directory that cannot be written, ...
            raise MigrateError(f"{name}: cannot migrate: {exc}") from None
        raise
    finally:
        old.close()
    for leftover in (Path(f"{path}-wal"), Path(f"{path}-shm")):  # none after journal_mode=DELETE; be sure
        if leftover.exists() and leftover.stat().st_size:
            raise MigrateError(f"{name}: {leftover} appeared during the migration (another writer?): the old store "
                               f"is untouched; the new one is {new}")
        leftover.unlink(missing_ok=True)
    try:
        os.link(path, backup)
    except OSError:  # no hard links here: the old store moves aside first (for a moment there is no DB)
        os.replace(path, backup)
    os.replace(new, path)
    _fsync_dir(path.parent)
    return games, events, backup


def _copy(old: sqlite3.Connection, version: int, new: Path, name: str, progress,
          checker: Checker) -> tuple[int, int, int | None]:
    """Copy every game into a new store at ``new``: (games, events, last rowid of the old games table)."""
    games = events = 0
    last = None
    columns = ", ".join(_FlatRecord.__struct_fields__)
    source = Source(kind="migrated", run=new_run(), file=name, at=utc_timestamp())  # how the old store got them
    with open_store(new) as store:                                                  # it did not record
        batch = []
        rows = old.cursor().execute(f"SELECT rowid, {columns} FROM games ORDER BY rowid")
        while chunk := rows.fetchmany(BATCH):  # streamed: the events are read through another cursor
            for row in chunk:
                last, record = row[0], _flat_from_row(row[1:])
                batch.append(_check(old, version, row[0], record, name, checker))
                games, events = games + 1, events + record.n_events
            store.append_games(batch, source=source)
            if progress:
                progress(len(batch))
            batch = []
    if Path(f"{new}-wal").exists():  # closing the last connection checkpoints and removes it
        raise MigrateError(f"{new}: its -wal was not folded in on close")
    return games, events, last


def _copy_beside(old: sqlite3.Connection, tables: set, new: Path, name: str, note: Callable[[str], None],
                 checker: Checker) -> None:
    """The old store's schedules and ledger into the new file (closed, not yet in place)."""
    schedules = old.execute("SELECT key, manifest, created FROM schedules ORDER BY rowid").fetchall() \
        if "schedules" in tables else []
    for key, manifest, _ in schedules:
        try:
            found = checker.schedule_of(manifest).key
        except (LocmError, ValueError) as exc:
            raise MigrateError(f"{name}: schedule {key}: its manifest does not read: {exc}") from None
        if found != key:
            raise MigrateError(f"{name}: schedule {key}: its manifest gives the key {found} (altered)")
    ledger = old.execute("SELECT value FROM locm_meta WHERE key = 'ledger'").fetchone()
    conn = sqlite3.connect(new, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        if schedules:
            conn.execute(SCHEDULES_SQL)
            conn.executemany("INSERT INTO schedules (key, manifest, created) VALUES (?, ?, ?)", schedules)
        if ledger is not None:
            computed = conn.execute("SELECT value FROM locm_meta WHERE key = 'ledger'").fetchone()
            if computed is None or computed[0] != ledger[0]:
                count = str(ledger[0]).split(" ")[0]
                note(f"the old store's ledger ({count} games recorded) does not match the games it holds: kept as "
                     f"it was, so `locm verify` names what differs")
                conn.execute("INSERT OR REPLACE INTO locm_meta (key, value) VALUES ('ledger', ?)", ledger)
        conn.execute("COMMIT")
    finally:
        conn.close()
    if schedules:
        note(f"{len(schedules)} tournament schedule{'s' * (len(schedules) != 1)} kept")


def _flat_from_row(row: Sequence) -> _FlatRecord:
    """A LOCM game's record from a row of the ``games`` table of schema 1 or 2 (one column per field, in the
    order of the export file's flat line, `locm.store.export._FlatRecord`)."""
    doc = dict(zip(_FlatRecord.__struct_fields__, row))
    doc["head_hash"] = doc["head_hash"].hex()
    for flag in ("error0", "error1", "timeout0", "timeout1"):
        doc[flag] = bool(doc[flag])
    return _FlatRecord(**doc)


def _check(old: sqlite3.Connection, version: int, key: int, record: _FlatRecord, name: str, checker: Checker):
    """The game as schema 3 writes it, after every check of an import and of its stored hashes (schema 1:
    every event's; schema 2: the record's head hash over its log)."""
    gid = record.game_id
    where = f"{name}: game {gid!r}"
    if version == 1:
        rows = old.execute("SELECT seq, payload, hash FROM events WHERE game_id = ? ORDER BY seq", (gid,)).fetchall()
    else:
        found = old.execute("SELECT data FROM logs WHERE game = ?", (key,)).fetchone()
        if found is None:
            raise MigrateError(f"{where}: its log is missing")
        try:
            lines = _inflate(name, gid, found[0]).split(b"\n")
        except StoreError as exc:
            raise MigrateError(f"{where}: {exc}") from None
        rows, prev = [], GENESIS
        for i, line in enumerate(lines):  # the hashes schema 2 does not keep, so the check below is the head's
            prev = chain_hash(prev, line)
            rows.append((i, line.decode("utf-8", "replace"), prev))
    if len(rows) != record.n_events:
        raise MigrateError(f"{where}: the record says {record.n_events} events, the file has {len(rows)}")
    game = get(FLAT_GAME)
    prev, payloads, decoded, codec = GENESIS, [], [], game.codec
    for i, (seq, payload, stored) in enumerate(rows):
        data = payload.encode()
        prev = chain_hash(prev, data)
        if seq != i or prev != stored:
            raise MigrateError(f"{where} event {i}: its hash chain does not verify (altered or damaged): migrate "
                               f"after `locm export --all --salvage` with the locm that wrote it")
        try:
            decoded.append(codec.from_json(data))
        except DecodeError as exc:
            raise MigrateError(f"{where} event {i}: {exc}") from None
        payloads.append(data)
    if prev.hex() != record.head_hash:
        raise MigrateError(f"{where}: the chain ends at {prev.hex()[:16]}..., the record says "
                           f"{record.head_hash[:16]}...")
    try:
        prepared = prepare_game(game, _record_of(record).extras(), decoded, payloads=payloads,
                                head=prev)  # the chain just checked, not hashed again
    except StoreError as exc:
        raise MigrateError(f"{where}: {exc}") from None
    if _flat_of(prepared.record) != record:
        field = first_difference(_flat_of(prepared.record), record)
        raise MigrateError(f"{where}: field {field!r} differs from what its events say")
    verdict = checker.game_problem(game, gid, decoded, meta=record.meta)
    if not verdict.ok:  # its id, its fold, re-deciding its inputs: what `locm verify` checks of a stored game
        raise MigrateError(f"{where}: {verdict.problem}")
    return prepared


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = ["migrate", "MigrateError", "schema_of", "count_games", "OLD_SCHEMAS"]
