"""Salvage: every game SQLite can still read from a damaged store, written as an export file (`salvage_jsonl`).

A store can be damaged where its games are not: a ``locm_meta`` page of random bytes (a garbled ``-wal`` that
a checkpoint copied into the main file), a ``-wal`` whose frames no longer match its index (``-shm``), a page
of the games table. SQLite may read the games through one view of the files and not another, so salvage
reads up to four views and keeps each game once, the first time it reads and verifies:

0. SQLite's own recovery first (`recover`: the ``.recover`` of the shell `recover_shell` finds, by default
   ``.venv/bin/sqlite3-recover``, which ``make setup`` builds from SQLite's own sources with the
   ``sqlite_dbpage`` table that Debian 12's ``sqlite3`` 3.40.1 lacks): it reads every page of a private copy of
   the main file and its ``-wal`` and writes what it finds into a new database, so games survive a damaged root
   page of ``logs``, which no view through SQLite's own B-trees gets past (its rows come back through
   ``lost_and_found``). A file whose first 100 bytes (SQLite's header) are damaged gets a new header first
   (`_header_for`: the page size the pages themselves agree with); a damaged one-page ``games`` root it does
   not get past. Without a shell
   that can recover, the view says so in one line and the others go on;
1. the store as it is: its ``-wal`` read through its index, the ``locm_meta`` checks skipped when that page is
   what is damaged;
2. a private copy of the main file and its ``-wal`` without the index: SQLite rebuilds the index from the
   frames whose checksums hold, so the ``-wal`` is read up to its first damaged frame;
3. a private copy of the main file alone: what was checkpointed.

Nothing is written beside the store (the copies are made in a temporary folder, removed after). A game that
no view reads and verifies is passed to ``on_bad``; the export file always ends well, so it imports.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from locm.errors import StoreError
from locm.store.eventstore import export_end, export_header, open_store


def salvage_jsonl(path: str | os.PathLike, game_ids: Iterable[str] | None, out: BinaryIO, *,
                  on_bad: Callable[[str, StoreError], None], on_view: Callable[[str, int], None] | None = None) -> int:
    """Write to ``out`` every game (of ``game_ids``, or all) that one of the views reads and verifies; return
    how many. ``on_view(description, n)`` is told what each view gave (n new games, or -1 when it does not
    open); ``on_bad(game_id, error)`` is told each game no view saved, with the first view's error."""
    wanted = None if game_ids is None else list(dict.fromkeys(game_ids))
    done: set[str] = set()
    bad: dict[str, StoreError] = {}  # games a view listed but did not read, with the first error
    unopened: list[StoreError] = []
    games = events = 0
    out.write(export_header())
    with tempfile.TemporaryDirectory(prefix="locm-salvage-") as tmp:
        for what, view in _views(Path(path), Path(tmp)):
            if view is None:
                if on_view:
                    on_view(what, -1)
                continue
            try:
                store = open_store(view, create=False, readonly=True, salvage=True)
            except StoreError as exc:
                unopened.append(exc)
                if on_view:
                    on_view(what, -1)
                continue
            new = 0
            with store:
                try:
                    ids = wanted if wanted is not None else store.readable_ids()
                except StoreError as exc:
                    unopened.append(exc)
                    ids = []
                for gid in ids:
                    if gid in done:
                        continue
                    try:
                        block, n = store.export_game(gid)
                    except StoreError as exc:
                        bad.setdefault(gid, exc)
                        continue
                    out.write(block)
                    done.add(gid)
                    games, events, new = games + 1, events + n, new + 1
            if on_view:
                on_view(what, new)
    out.write(export_end(games, events))
    if not games and not bad and unopened:
        raise unopened[0]  # no view opened: say why the store does not
    for gid, exc in bad.items():
        if gid not in done:
            on_bad(gid, exc)
    return games


RECOVER_S = 600
"""How long SQLite's recovery of a store may take (it reads every page; a store of 1 GB takes about a minute)."""


class RecoverUnavailable(OSError):
    """SQLite's ``.recover`` cannot run here (no ``sqlite3`` shell, or one without ``sqlite_dbpage``) or gave
    nothing; the message says which."""


def recover_shell() -> str | None:
    """The sqlite3 shell salvage runs ``.recover`` with (the seam): ``LOCM_SQLITE3_SHELL`` if set, else the one
    ``make setup`` builds beside this Python (``sqlite3-recover``: SQLite's own shell.c with
    SQLITE_ENABLE_DBPAGE_VTAB, which Debian 12's ``sqlite3`` lacks), else ``sqlite3`` on the PATH."""
    named = os.environ.get("LOCM_SQLITE3_SHELL")
    if named:
        return named if os.access(named, os.X_OK) else None
    built = Path(sys.executable).parent / "sqlite3-recover"
    if os.access(built, os.X_OK):
        return str(built)
    return shutil.which("sqlite3")


def recover(path: Path, out: Path) -> None:
    """SQLite's own recovery of the store at ``path`` (and its ``-wal``) into the new database ``out``: the
    ``sqlite3`` shell's ``.recover`` of a private copy, its SQL run by a second shell into ``out``.
    `RecoverUnavailable` when it cannot."""
    shell = recover_shell()
    if shell is None:
        raise RecoverUnavailable("the sqlite3 shell is not installed (make setup builds one that recovers)")
    source = out.parent / "recover-source" / path.name
    source.parent.mkdir()
    shutil.copyfile(path, source)
    wal = Path(f"{path}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{source}-wal"))
    _repair_header(source, wal=wal.exists())
    with open(out.parent / "recover.sql", "w+b") as sql, open(out.parent / "recover.err", "w+b") as err:
        try:
            subprocess.run([shell, "-batch", str(source), ".recover --ignore-freelist"], stdin=subprocess.DEVNULL, stdout=sql,
                           stderr=err, timeout=RECOVER_S, check=False)
            err.seek(0)
            said = err.read().decode("utf-8", "replace")
            if "sql error" in said or "sqlite_dbpage" in said:
                raise RecoverUnavailable(f"this sqlite3 shell cannot recover ({said.strip().splitlines()[0]}): "
                                         "it needs one built with SQLITE_ENABLE_DBPAGE_VTAB, as SQLite's own")
            sql.seek(0)
            loaded = subprocess.run([shell, "-batch", str(out)], stdin=sql, capture_output=True, timeout=RECOVER_S)
        except subprocess.TimeoutExpired:
            raise RecoverUnavailable(f"the sqlite3 shell did not finish within {RECOVER_S} s") from None
    if not out.exists() or not out.stat().st_size:
        said = loaded.stderr.decode("utf-8", "replace").strip()[:200]
        raise RecoverUnavailable(f"it recovered nothing{f' ({said})' if said else ''}")
    _logs_from_lost_and_found(out)


MAGIC = b"SQLite format 3\x00"
PAGE_SIZES = (4096, 16384, 1024, 2048, 8192, 32768, 65536, 512)
"""The page sizes SQLite allows, SQLite's default first and then the store's own (`locm.store.sqlite.PAGE_SIZE`)."""


def _header_for(page_size: int, *, wal: bool) -> bytes:
    """A database header of SQLite's file format (https://sqlite.org/fileformat.html, 1.3) for a file of
    ``page_size`` pages: UTF-8, schema format 4, no free list (``.recover --ignore-freelist`` reads past one),
    no auto-vacuum, the size taken from the file's length (the change counter and version-valid-for differ),
    WAL when a ``-wal`` lies beside it."""
    header = bytearray(100)
    header[0:16] = MAGIC
    header[16:18] = (1 if page_size == 65536 else page_size).to_bytes(2, "big")
    header[18] = header[19] = 2 if wal else 1
    header[21:24] = bytes((64, 32, 32))
    header[24:28] = (1).to_bytes(4, "big")
    header[40:44] = (1).to_bytes(4, "big")
    header[44:48] = (4).to_bytes(4, "big")
    header[56:60] = (1).to_bytes(4, "big")
    major, minor, patch = sqlite3.sqlite_version_info
    header[96:100] = (major * 1_000_000 + minor * 1000 + patch).to_bytes(4, "big")
    return bytes(header)


def _readable(db: Path) -> int:
    """How many rows of its tables SQLite reads through ``db``'s B-trees (-1 when its schema does not read)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error:
        return -1
    try:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        rows = 0
        for name in tables:
            try:
                rows += 1 + conn.execute(f'SELECT count(*) FROM "{name.replace(chr(34), chr(34) * 2)}"').fetchone()[0]
            except sqlite3.Error:
                pass
        return rows
    except sqlite3.Error:
        return -1
    finally:
        conn.close()


def _repair_header(copy: Path, *, wal: bool) -> None:
    """Give the private ``copy`` a new header when its own is not SQLite's (the magic string or page size
    damaged): of the page sizes that divide the file, the one through which SQLite reads the most rows. The
    header holds nothing of the games (page 1's schema starts at byte 100), so nothing is lost by it."""
    with open(copy, "r+b") as f:
        old = f.read(100)
        size = f.seek(0, 2)
    page = int.from_bytes(old[16:18], "big") if len(old) == 100 else 0
    page = 65536 if page == 1 else page
    if len(old) == 100 and old[:16] == MAGIC and page in PAGE_SIZES and size % page == 0 and old[18] in (1, 2):
        return
    best, best_rows = None, 0
    for candidate in PAGE_SIZES:
        if size < candidate or size % candidate:
            continue
        with open(copy, "r+b") as f:
            f.write(_header_for(candidate, wal=wal))
        if (rows := _readable(copy)) > best_rows:
            best, best_rows = candidate, rows
    if best is not None:
        with open(copy, "r+b") as f:
            f.write(_header_for(best, wal=wal))


def _logs_from_lost_and_found(db: Path) -> None:
    """Rows whose table's root page is gone land in ``.recover``'s ``lost_and_found`` (rowid in ``id``, columns in
    ``c0``...). A row of two fields whose second is a blob, under the rowid of a game the recovery holds, is put
    back as that game's log; export verifies every log's chain, so a row that was not one is refused there."""
    conn = sqlite3.connect(db)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"lost_and_found", "logs", "games"} <= tables:
            return
        cols = {row[1] for row in conn.execute("PRAGMA table_info(lost_and_found)")}
        if not {"nfield", "id", "c1"} <= cols:
            return
        with conn:
            conn.execute("INSERT OR IGNORE INTO logs (game, data) SELECT id, c1 FROM lost_and_found "
                         "WHERE nfield = 2 AND typeof(c1) = 'blob' AND id IN (SELECT id FROM games)")
    finally:
        conn.close()


def _views(path: Path, tmp: Path):
    """``(description, file)`` of each view of the store, the copies made only when needed."""
    recovered = tmp / "recovered" / path.name
    recovered.parent.mkdir()
    try:
        recover(path, recovered)
        yield "SQLite's recovery (.recover)", recovered
    except (RecoverUnavailable, OSError) as exc:
        yield f"SQLite's recovery (.recover: {exc.strerror or exc})", None
    yield "the store as it is", path
    wal = Path(f"{path}-wal")
    if not (wal.exists() and wal.stat().st_size > 0):
        return
    with_wal = tmp / "with-wal" / path.name
    with_wal.parent.mkdir()
    shutil.copyfile(path, with_wal)
    shutil.copyfile(wal, Path(f"{with_wal}-wal"))
    yield "its main file and -wal, the -wal's index rebuilt", with_wal
    main = tmp / "main" / path.name
    main.parent.mkdir()
    shutil.copyfile(path, main)
    yield "its main file alone", main


__all__ = ["salvage_jsonl", "recover", "recover_shell", "RecoverUnavailable"]
