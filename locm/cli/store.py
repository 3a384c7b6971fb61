"""`locm migrate` (a store of schema 1 or 2 to schema 3, `locm.store.migrate`) and `locm sql` (SQL over a store, with the
``events`` view's function registered). Registered in `locm.cli.main` by `register`."""

from __future__ import annotations

import functools
import signal
import sqlite3
import threading
from pathlib import Path

import click

from locm.errors import StoreError


@click.command()
@click.argument("db", type=click.Path(dir_okay=False, path_type=Path))
def migrate(db: Path) -> None:
    """Convert an event store of schema 1 (one row per event) or 2 (LOCM's columns) to schema 3 (a game column,
    each game's own fields as JSON: a store of every registered game). Its tournament schedules and its
    ledger come along (a ledger that no longer matches the games is kept as it was, and said).

    Every game is checked while it is copied (its events decode, its hash chain matches the stored hashes,
    its record matches its events, its id and re-decided log are what `locm verify` wants) into a new file
    beside DB, which replaces DB only when complete; the old file is kept as DB.v1 or DB.v2. `locm verify --db
    DB` passes afterwards, and `locm export` gives the same bytes as before.

    \b
    Example:
      locm migrate t.db          # t.db becomes schema 3, the original stays as t.db.v2 (or .v1)
    """
    from locm.games.registry import checker
    from locm.store.migrate import OLD_SCHEMAS, count_games, migrate as run, schema_of

    version = schema_of(db) if db.is_file() else None
    if version not in OLD_SCHEMAS:
        # not a schema-1 or 2 store: raises, saying in one line what it is (before any progress bar)
        run(db, checker=checker())
    total = count_games(db)
    notes: list[str] = []
    from locm.cli.progress import bar as progress_bar

    with progress_bar(length=total, label="migrating", show_pos=True, show_eta=True) as bar:
        games, events, backup = run(db, bar.update, notes.append, checker=checker())
    for text in notes:
        click.echo(f"{db}: {text}", err=True)
    click.echo(f"migrated {games} game{'s' * (games != 1)} ({events} events) to store schema 3 in {db}; "
               f"the schema-{version} file is kept as {backup}")


@click.command()
@click.argument("query")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The event store (an SQLite file), opened read-only.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row instead of a table.")
def sql(query: str, db: Path, as_json: bool) -> None:
    """Run one read-only SQL query on an event store and print the rows as a table. Only reading is allowed:
    a statement that writes anywhere (INSERT, CREATE, ATTACH, VACUUM INTO, a pragma that sets a value) is
    refused; Ctrl-C stops a long query.

    The `events` view (game, game_id, seq, type, payload) shows every event of every stored game, its
    payload the event's JSON (query it with json_extract); `games` has one row per game.

    \b
    Example:
      locm sql "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC" --db t.db
      locm sql "SELECT game_id, json_extract(payload, '$.amount') FROM events
                WHERE type = 'player_damaged' LIMIT 5" --db t.db
    """
    import json

    from locm.store.eventstore import open_store
    from locm.common.tables import table

    with open_store(db, create=False, readonly=True) as store:
        conn = store.db.conn
        refused: list[str] = []
        conn.set_authorizer(functools.partial(_read_only, refused))
        stop = threading.Event()
        conn.set_progress_handler(stop.is_set, 10_000)  # a query is stopped soon after Ctrl-C
        previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
        try:
            cursor = conn.execute(query)
            rows = cursor.fetchall()
        except sqlite3.Error as exc:
            if stop.is_set():
                raise KeyboardInterrupt from None
            if refused:
                raise StoreError(f"{db}: SQL: refused: {refused[0]}; locm sql runs read-only queries (SELECT, "
                                 "and pragmas that read)") from None
            raise StoreError(f"{db}: SQL: {exc}") from None
        finally:
            signal.signal(signal.SIGINT, previous)
            conn.set_progress_handler(None, 0)
            conn.set_authorizer(None)
        headers = [d[0] for d in cursor.description or ()]
    if as_json:
        for row in rows:
            click.echo(json.dumps(dict(zip(headers, (v.hex() if isinstance(v, bytes) else v for v in row))),
                                  ensure_ascii=False))
        return
    shown = [[v.hex() if isinstance(v, bytes) else v for v in row] for row in rows]
    click.echo(table(headers, shown) if headers else "")
    click.echo(f"({len(rows)} row{'s' * (len(rows) != 1)})", err=True)


_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
_READ_PRAGMAS = {"page_count", "page_size", "freelist_count", "encoding", "user_version", "schema_version",
                 "application_id", "journal_mode", "data_version", "compile_options", "database_list",
                 "function_list", "pragma_list", "collation_list", "table_list"}
"""Pragmas that read, allowed with no value (with a value, most of them set it)."""
_ARG_PRAGMAS = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                "foreign_key_list", "foreign_key_check", "quick_check", "integrity_check"}
"""Pragmas whose argument names what to read (a table, an index), allowed with or without it."""
_ACTIONS = {sqlite3.SQLITE_INSERT: "INSERT", sqlite3.SQLITE_UPDATE: "UPDATE", sqlite3.SQLITE_DELETE: "DELETE",
            sqlite3.SQLITE_ATTACH: "ATTACH (VACUUM INTO too)", sqlite3.SQLITE_DETACH: "DETACH",
            sqlite3.SQLITE_TRANSACTION: "a transaction", sqlite3.SQLITE_SAVEPOINT: "a savepoint",
            sqlite3.SQLITE_ALTER_TABLE: "ALTER TABLE", sqlite3.SQLITE_REINDEX: "REINDEX",
            sqlite3.SQLITE_ANALYZE: "ANALYZE"}


def _read_only(refused: list[str], action: int, arg1, arg2, dbname, source) -> int:
    """SQLite's authorizer for `locm sql`: reads, functions and pragmas that read; nothing that writes
    anywhere (INSERT, CREATE, ..., ATTACH, which VACUUM INTO uses too, a pragma given a value). The store is
    opened read-only as well: this also keeps a query from making files elsewhere or changing the connection.
    (SQLite itself marks ``sqlite_master`` as updated when a query uses a pragma as a table: allowed.)"""
    if action in _READ_ACTIONS or (action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master" and source is None
                                   and dbname == "main"):
        return sqlite3.SQLITE_OK
    name = str(arg1).lower()
    if action == sqlite3.SQLITE_PRAGMA and (name in _ARG_PRAGMAS or name in _READ_PRAGMAS and arg2 is None):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        refused.append(f"PRAGMA {arg1}" + (f" = {arg2}" if arg2 is not None else ""))
    elif arg1 == "sqlite_master":
        refused.append("a change of the schema (CREATE, DROP)")
    else:
        refused.append(_ACTIONS.get(action, "a statement that changes the schema or the data")
                       + (f" {arg1}" if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE,
                                                   sqlite3.SQLITE_DELETE, sqlite3.SQLITE_ATTACH) else ""))
    return sqlite3.SQLITE_DENY


def register(cli: click.Group) -> None:
    cli.add_command(migrate)
    cli.add_command(sql)
