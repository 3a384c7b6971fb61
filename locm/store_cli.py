"""`locm migrate` (a schema-1 store to schema 2, `locm.migrate`) and `locm sql` (SQL over a store, with the
``events`` view's function registered). Registered in `locm.cli` by `register`."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import click

from locm.errors import StoreError


@click.command()
@click.argument("db", type=click.Path(dir_okay=False, path_type=Path))
def migrate(db: Path) -> None:
    """Convert an event store of schema 1 (locm before store schema 2: one row per event) to schema 2.

    Every game is checked while it is copied (its events decode, its hash chain matches every stored hash,
    its record matches its events) into a new file beside DB, which replaces DB only when complete; the old
    file is kept as DB.v1. `locm verify --db DB` passes afterwards, and `locm export` gives the same bytes as
    before.

    \b
    Example:
      locm migrate t.db          # t.db becomes schema 2, the original stays as t.db.v1
    """
    from locm.migrate import count_games, migrate as run, schema_of

    if not (db.is_file() and schema_of(db) == 1):
        run(db)  # not a schema-1 store: raises, saying in one line what it is (before any progress bar)
    total = count_games(db)
    with click.progressbar(length=total, label="migrating", file=sys.stderr, show_pos=True, show_eta=True) as bar:
        games, events, backup = run(db, bar.update)
    click.echo(f"migrated {games} game{'s' * (games != 1)} ({events} events) to store schema 2 in {db}; "
               f"the schema-1 file is kept as {backup}")


@click.command()
@click.argument("query")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The event store (an SQLite file), opened read-only.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row instead of a table.")
def sql(query: str, db: Path, as_json: bool) -> None:
    """Run one read-only SQL query on an event store and print the rows as a table.

    The `events` view (game, game_id, seq, type, payload) shows every event of every stored game, its
    payload the event's JSON (query it with json_extract); `games` has one row per game.

    \b
    Example:
      locm sql "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC" --db t.db
      locm sql "SELECT game_id, json_extract(payload, '$.amount') FROM events
                WHERE type = 'player_damaged' LIMIT 5" --db t.db
    """
    import json

    from locm.store import open_store
    from locm.tables import table

    with open_store(db, create=False, readonly=True) as store:
        try:
            cursor = store.db.execute(query)
            rows = cursor.fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{db}: SQL: {exc}") from None
        headers = [d[0] for d in cursor.description or ()]
    if as_json:
        for row in rows:
            click.echo(json.dumps(dict(zip(headers, (v.hex() if isinstance(v, bytes) else v for v in row))),
                                  ensure_ascii=False))
        return
    shown = [[v.hex() if isinstance(v, bytes) else v for v in row] for row in rows]
    click.echo(table(headers, shown) if headers else "")
    click.echo(f"({len(rows)} row{'s' * (len(rows) != 1)})", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(migrate)
    cli.add_command(sql)
