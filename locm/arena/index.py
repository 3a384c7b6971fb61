"""The arena's own index of a store: a projection of the ``games`` table into a separate SQLite file, so that a
filter that matches few of a million games is still one index lookup (the store keeps no index but its keys, and
the arena never writes the store).

The index file holds, per stored game (by its integer key): its game, ruleset, number of seats, the agent in
the winner's seat, its tournament (``meta.schedule``) and map (``fields.map``), and one row per seat (agent,
place); the distinct games and rulesets (the filter form's choices); and the keys of the games the store may not
count (``u``: `locm.store.provenance.Scope`, each with its source row's key, NULL when it has none), which the
standings, ratings and bot pages leave out: few, so leaving them out costs a lookup of a small table. It is built by SQL alone (the store attached read-only, ``mode=ro``) and extended with the games stored
since (``id > last``) before each read, so it follows a store that tournaments are writing. It names the store it
indexes (its path and the id of its first and last indexed game): a store replaced or rewritten under the same
name is indexed again from scratch. The store's `Scope` (its few source rows, classified) is read again whenever
a game was stored since: when it changed (an untrusted import, the provenance tables made), ``u`` is made again
over every indexed game, the rest of the index kept.

Where it lives: ``--index PATH``, else ``$XDG_CACHE_HOME/locm/arena/`` (``~/.cache``), a file per store path; it
is derived data, safe to delete.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

from locm.store.provenance import Scope
from locm.store.sqlite import scope_of

INDEX_VERSION = "3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS g (
    id INTEGER PRIMARY KEY, game TEXT, ruleset TEXT, seats INTEGER, winner_agent TEXT, tournament TEXT, map TEXT);
CREATE TABLE IF NOT EXISTS a (agent TEXT NOT NULL, id INTEGER NOT NULL, seat INTEGER NOT NULL, place INTEGER,
    PRIMARY KEY (agent, id, seat)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS u (id INTEGER PRIMARY KEY, source INTEGER);
CREATE TABLE IF NOT EXISTS vals (kind TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, value)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS g_game ON g (game, id);
CREATE INDEX IF NOT EXISTS g_ruleset ON g (ruleset, id);
CREATE INDEX IF NOT EXISTS g_seats ON g (seats, id);
CREATE INDEX IF NOT EXISTS g_winner ON g (winner_agent, id);
CREATE INDEX IF NOT EXISTS g_tournament ON g (tournament, id);
CREATE INDEX IF NOT EXISTS g_map ON g (map, id);
"""

_FILL = """
INSERT INTO g (id, game, ruleset, seats, winner_agent, tournament, map)
    SELECT id, game, ruleset, json_array_length(agents),
           CASE WHEN winner >= 0 THEN json_extract(agents, '$[' || winner || ']') END,
           CASE WHEN json_valid(meta) AND json_type(meta) = 'object' THEN json_extract(meta, '$.schedule') END,
           json_extract(fields, '$.map')
    FROM s.games WHERE id > ? AND id <= ?;
INSERT OR IGNORE INTO a (agent, id, seat, place)
    SELECT ag.value, g.id, CAST(ag.key AS INTEGER), json_extract(g.places, '$[' || ag.key || ']')
    FROM s.games g, json_each(g.agents) ag WHERE g.id > ? AND g.id <= ?;
INSERT OR IGNORE INTO vals (kind, value) SELECT DISTINCT 'game', game FROM s.games WHERE id > ? AND id <= ?;
INSERT OR IGNORE INTO vals (kind, value) SELECT DISTINCT 'ruleset', ruleset FROM s.games WHERE id > ? AND id <= ?;
"""


def default_path(store: Path) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "locm" / "arena"
    digest = hashlib.sha256(str(store.resolve()).encode()).hexdigest()[:16]
    return base / f"{store.stem}-{digest}.sqlite"


class StoreIndex:
    """The index of one store (`refresh` extends it; its connection is shared under a lock)."""

    CHUNK = 200_000

    def __init__(self, store: Path, path: Path | None = None) -> None:
        self.store = store
        self.path = path or default_path(store)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = OFF")  # derived data: a crash costs a rebuild, never a store
        self.conn.executescript(_SCHEMA)
        self.conn.execute("ATTACH DATABASE ? AS s", (f"{store.resolve().as_uri()}?mode=ro",))
        self.last = 0
        self.scope = Scope(tables=False, since=None)

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _same_store(self, last: int) -> bool:
        """Whether the indexed games are still the store's (first and last indexed game ids unchanged)."""
        if self._meta("version") != INDEX_VERSION or self._meta("store") != str(self.store.resolve()):
            return False
        for key in ("first", "last"):
            value = self._meta(f"{key}_id")
            if value is None:
                return last == 0
            k, _, gid = value.partition(" ")
            row = self.conn.execute("SELECT game_id FROM s.games WHERE id = ?", (int(k),)).fetchone()
            if row is None or row[0] != gid:
                return False
        return True

    def refresh(self, progress=None) -> int:
        """Index the games stored since the last refresh; the store's newest key."""
        with self.lock:
            newest = self.conn.execute("SELECT coalesce(max(id), 0) FROM s.games").fetchone()[0]
            if newest == self.last:
                return newest
            indexed = int(self._meta("last_key") or 0)
            if not self._same_store(indexed) or indexed > newest:
                self.conn.executescript("BEGIN; DELETE FROM g; DELETE FROM a; DELETE FROM u; DELETE FROM vals; "
                                        "DELETE FROM meta; COMMIT;")
                indexed = 0
            self.scope = scope = scope_of(self.conn, "s.")
            uncounted = (f"INSERT INTO u (id, source) SELECT g.id, {scope.kind_sql('g.id', 's.')} FROM s.games g "
                         f"WHERE g.id > ? AND g.id <= ? AND {scope.uncounted_sql('g.id', 's.')}")
            said = repr((scope.tables, scope.since, scope.uncounted))
            if self._meta("scope") != said:  # u made again over the indexed games, under the scope now
                self.conn.execute("BEGIN")
                self.conn.execute("DELETE FROM u")
                self.conn.execute(uncounted, (0, indexed))
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('scope', ?)", (said,))
                self.conn.execute("COMMIT")
            start = indexed
            while indexed < newest:
                upto = min(newest, indexed + self.CHUNK)
                self.conn.execute("BEGIN")
                for statement in [*_FILL.strip().split(";\n"), uncounted]:
                    self.conn.execute(statement.rstrip(";"), (indexed, upto))
                first = self.conn.execute("SELECT id, game_id FROM s.games ORDER BY id LIMIT 1").fetchone()
                last = self.conn.execute("SELECT id, game_id FROM s.games WHERE id <= ? ORDER BY id DESC LIMIT 1",
                                         (upto,)).fetchone()
                for key, value in (("version", INDEX_VERSION), ("store", str(self.store.resolve())),
                                   ("first_id", f"{first[0]} {first[1]}"), ("last_id", f"{last[0]} {last[1]}"),
                                   ("last_key", str(upto))):
                    self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                self.conn.execute("COMMIT")
                indexed = upto
                if progress is not None:
                    progress(indexed - start, newest - start)
            self.last = newest
            return newest

    def uncounted(self) -> int | None:
        """The smallest key of an indexed game the store may not count (None: none; the readers leave ``u``'s
        keys out, looked up only for the games from it on)."""
        with self.lock:
            return self.conn.execute("SELECT min(id) FROM u").fetchone()[0]

    def query(self, sql: str, args: list) -> list[tuple]:
        with self.lock:
            return self.conn.execute(sql, args).fetchall()

    def close(self) -> None:
        with self.lock:
            self.conn.close()
