"""The card-facts projection kept in the event store's file, next to the events (a projection: derived,
versioned, rebuildable, never trusted over the events).

Tables (all prefixed ``cardfacts_``; the store's open check ignores them):

- ``cardfacts_meta``: ``definitions_version`` (`analysis.cardfacts.DEFINITIONS_VERSION`).
- ``cardfacts_games``: one row per projected game: ruleset, seed, agents, winner, length, damage by source
  (JSON), drain, draft offers (1.2, JSON base id -> rounds), pool cards per feature bucket (constructed, JSON)
  and whether both decks held the same cards (``same_decks``: then no card's deck rate can differ from 50%).
- ``cardfacts_cards``: one row per player-game and card (`analysis.cardfacts.CARD_COLUMNS`), with the
  game's ruleset, the player's agent and its opponent's (card definitions stay in the events; ``fkey`` packs
  the card's feature buckets, `analysis.cardfacts.feature_key`).
- ``cardfacts_totals``, ``cardfacts_turns``, ``cardfacts_offered``: running sums per ruleset, agent,
  opponent and seat (what reports read), so that every rate can be given per pairing of agents.
- ``cardfacts_clusters`` and ``cardfacts_cross`` (constructed feature buckets): per bucket and metric, the sums
  the bucket's interval clusters by: over player-games, the square of the bucket's count ``n`` and of ``n``
  when won, and how many player-games hold it; over games whose two seats have the same agent, the product of
  both seats' counts and how many games both seats hold it (`bucket_interval`).

`refresh` projects the games stored since the last run (games of ``games`` that ``cardfacts_games`` lacks);
it rebuilds everything when the definitions version differs or when a projected game is no longer in the
store. `rebuild` drops the tables and projects every game. Events are read through the store API
(`locm.store.open_store(...).iter_events`), in worker processes when there are many games.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import msgspec
import sqlite_utils

from locm.analysis.cardfacts import CARD_COLUMNS, DEFINITIONS_VERSION, TYPES, project, unpack_counts
from locm.errors import ChainError, StoreError
from locm.processes import die_with_parent
from locm.store import open_store

PREFIX = "cardfacts_"
GAME_COLUMNS = ("game_id", "ruleset", "seed", "agent0", "agent1", "winner", "reason", "turns", "damage", "drain",
                "offered", "pool", "same_decks")
ROW_COLUMNS = ("game_id", "ruleset", "agent", "opponent") + CARD_COLUMNS
CHUNK = 2000  # games per unit of work

_CONDITIONS = {
    "deck": "copies > 0",
    "opening_hand": "opening > 0",
    "drawn": "drawn > 0",
    "in_hand": "opening + drawn > 0",
    "not_seen": "copies > 0 AND opening + drawn = 0",
    "played": "plays > 0",
}
_SUMS = ", ".join(f"SUM({c}), SUM(({c}) AND won)" for c in _CONDITIONS.values()) + (
    ", SUM(picked), SUM(pick_sum), SUM(picked > 0), SUM(COALESCE(pick_first, 0)), SUM(plays), "
    "SUM(play_turn_sum), SUM(held_sum)")
_SUM_NAMES = tuple(f"{m}_{k}" for m in _CONDITIONS for k in ("n", "wins")) + (
    "picked", "pick_sum", "pick_games", "pick_first_sum", "plays", "play_turn_sum", "held_sum")


DDL = f"""\
CREATE TABLE IF NOT EXISTS cardfacts_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cardfacts_games (
    game_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, seed INTEGER, agent0 TEXT NOT NULL, agent1 TEXT NOT NULL,
    winner INTEGER NOT NULL, reason TEXT NOT NULL, turns INTEGER NOT NULL, damage TEXT NOT NULL,
    drain INTEGER NOT NULL, offered TEXT NOT NULL, pool TEXT NOT NULL, same_decks INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cardfacts_cards (
    game_id TEXT NOT NULL, ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL,
    {", ".join(f"{c} INTEGER" + (" NOT NULL" if c not in ("pick_first", "first_play_turn") else "")
               for c in CARD_COLUMNS)}
);
CREATE TABLE IF NOT EXISTS cardfacts_totals (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    card INTEGER NOT NULL, fkey INTEGER NOT NULL, {", ".join(f"{c} INTEGER NOT NULL" for c in _SUM_NAMES)},
    PRIMARY KEY (ruleset, agent, opponent, player, card, fkey)
);
CREATE TABLE IF NOT EXISTS cardfacts_turns (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    turn INTEGER NOT NULL, n INTEGER NOT NULL, wins INTEGER NOT NULL,
    PRIMARY KEY (ruleset, agent, opponent, player, turn)
);
CREATE TABLE IF NOT EXISTS cardfacts_offered (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (ruleset, agent, opponent, player, key)
);
CREATE TABLE IF NOT EXISTS cardfacts_clusters (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    feature INTEGER NOT NULL, metric INTEGER NOT NULL, s2 INTEGER NOT NULL, s2w INTEGER NOT NULL,
    g INTEGER NOT NULL, PRIMARY KEY (ruleset, agent, opponent, player, feature, metric)
);
CREATE TABLE IF NOT EXISTS cardfacts_cross (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, feature INTEGER NOT NULL, metric INTEGER NOT NULL,
    x INTEGER NOT NULL, c INTEGER NOT NULL, PRIMARY KEY (ruleset, agent, feature, metric)
);
"""

LAYOUT = hashlib.sha256(DDL.encode() + b"totals caught up after the chunks").hexdigest()[:16]
"""The tables' layout: a projection written with another layout is rebuilt, like one of another version."""
_enc = msgspec.json.Encoder()


class ProjectionSummary(msgspec.Struct, frozen=True):
    """What `refresh` did: games projected now, games already projected, whether it started from scratch."""

    projected: int
    already: int
    rebuilt: bool
    version: str = DEFINITIONS_VERSION


def game_rows(game_id: str, events, clusters: dict | None = None, cross: dict | None = None
              ) -> tuple[tuple, list[tuple]]:
    """The ``cardfacts_games`` row and the ``cardfacts_cards`` rows of one game's events; a constructed game's
    bucket sums are added into `clusters` and `cross` (`add_clusters`) when given."""
    g = project(events)
    a0, a1 = g.agents
    game = (game_id, g.ruleset, g.seed, a0, a1, g.winner, g.reason, g.turns, _enc.encode(dict(g.damage)).decode(),
            g.drain, _enc.encode({str(k): v for k, v in g.offered.items()}).decode(),
            _enc.encode({str(k): v for k, v in g.pool.items()}).decode(), int(g.same_decks))
    agents = (a0, a1)
    rs = g.ruleset
    cards = [(game_id, rs, agents[f.player], agents[1 - f.player], *f.row()) for f in g.cards]
    if clusters is not None and (g.buckets[0] or g.buckets[1]):
        add_clusters(clusters, cross, rs, agents, g.winner, g.buckets)
    return game, cards


_WIDE = 48  # bits per metric in the packed sums: a chunk's sums of squares stay far below 2**48
_WIDE_MASK = (1 << _WIDE) - 1
_squares_cache: dict[int, tuple[int, int]] = {}
_products_cache: dict[tuple[int, int], tuple[int, int]] = {}


def _squares(packed: int) -> tuple[int, int]:
    """A player-game's bucket counts (`analysis.cardfacts.unpack_counts` layout) as (the six squares, six 0/1
    "holds the bucket" flags), each in a `_WIDE`-bit field, so that sums of many are one integer addition;
    remembered (the same counts recur in almost every game)."""
    r = _squares_cache.get(packed)
    if r is None:
        sq = g = 0
        for m, n in enumerate(unpack_counts(packed)):
            sq |= n * n << (_WIDE * m)
            g |= (n > 0) << (_WIDE * m)
        r = _squares_cache[packed] = (sq, g)
    return r


def _products(a: int, b: int) -> tuple[int, int]:
    """Two seats' bucket counts multiplied metric by metric, and "both hold it" flags, packed as `_squares`."""
    r = _products_cache.get((a, b))
    if r is None:
        x = c = 0
        for m, (n0, n1) in enumerate(zip(unpack_counts(a), unpack_counts(b))):
            x |= n0 * n1 << (_WIDE * m)
            c |= (n0 > 0 and n1 > 0) << (_WIDE * m)
        r = _products_cache[(a, b)] = (x, c)
    return r


def _wide(packed: int, m: int) -> int:
    return packed >> (_WIDE * m) & _WIDE_MASK


def add_clusters(clusters: dict, cross: dict, rs: str, agents: tuple[str, str], winner: int,
                 buckets: tuple[dict, dict]) -> None:
    """One constructed game's bucket counts into the running sums: per (ruleset, agent, opponent, player,
    bucket) ``[s2, s2w, g]`` in ``clusters``, each packing its six metrics (`_squares`); per (ruleset, agent,
    bucket) ``[x, c]`` in ``cross`` when both seats have the same agent (`_products`). `cluster_rows` unpacks."""
    for p in (0, 1):
        won = winner == p
        head = (rs, agents[p], agents[1 - p], p)
        for code, v in buckets[p].items():
            sq, g = _squares(v)
            acc = clusters.get(head + (code,))
            if acc is None:
                clusters[head + (code,)] = [sq, sq if won else 0, g]
            else:
                acc[0] += sq
                if won:
                    acc[1] += sq
                acc[2] += g
    if agents[0] == agents[1]:
        other = buckets[1]
        for code, v in buckets[0].items():
            w = other.get(code)
            if w is None:
                continue
            x, c = _products(v, w)
            acc = cross.get((rs, agents[0], code))
            if acc is None:
                cross[(rs, agents[0], code)] = [x, c]
            else:
                acc[0] += x
                acc[1] += c


def cluster_rows(clusters: dict, cross: dict) -> tuple[list[tuple], list[tuple]]:
    """The ``cardfacts_clusters`` and ``cardfacts_cross`` rows of the packed sums (a row per metric held)."""
    rows = [(*k, m, _wide(s2, m), _wide(s2w, m), _wide(g, m))
            for k, (s2, s2w, g) in clusters.items() for m in range(6) if _wide(g, m)]
    cross_rows = [(*k, m, _wide(x, m), _wide(c, m)) for k, (x, c) in cross.items() for m in range(6) if _wide(c, m)]
    return rows, cross_rows


def project_chunk(path: str, game_ids: Sequence[str]) -> tuple[list[tuple], list[tuple], list[tuple], list, list]:
    """Project some games of the store at ``path`` (read-only), in the order given: their game rows, card rows,
    offered totals ``(ruleset, agent, opponent, player, key, n)`` and the buckets' cluster and cross sums as
    rows of ``cardfacts_clusters`` and ``cardfacts_cross``."""
    store = open_store(path, readonly=True)
    try:
        return _project_from(store, game_ids)
    finally:
        store.close()


def project_chunk_file(path: str, game_ids: Sequence[str], out: str) -> int:
    """`project_chunk` written into a new SQLite file ``out`` (the projection's tables, no journal: a scratch
    file), with the chunk's own running totals (``cardfacts_totals`` and ``cardfacts_turns`` over its card
    rows, by the same SQL as the store's); the number of games. The writing process then adds the whole file
    with a few ``INSERT ... SELECT`` (`_store_chunk_files`): no rows cross the pipe, none is bound one by one
    in the one writing process, and no ``GROUP BY`` over every card is left for the end."""
    games, cards, offered, clusters, cross = project_chunk(path, game_ids)
    conn = sqlite3.connect(out, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(DDL)
        conn.execute("BEGIN")
        conn.executemany(_GAME_SQL, games)
        conn.executemany(_CARD_SQL, cards)
        conn.executemany(_OFFERED_SQL, offered)
        conn.executemany(_CLUSTERS_SQL, clusters)
        conn.executemany(_CROSS_SQL, cross)
        conn.execute(_TOTALS_SQL, (0,))
        conn.execute(_TURNS_SQL, (0,))
        conn.execute("COMMIT")
    finally:
        conn.close()
    return len(games)


def chunk_bytes(task: tuple[str, Sequence[str]]) -> tuple[bytes, int]:
    """`project_chunk_file` on another machine: the chunk file's bytes (a few MB) and its number of games."""
    path, game_ids = task
    with tempfile.TemporaryDirectory(prefix="locm-cardfacts-") as tmp:
        out = os.path.join(tmp, "chunk.db")
        n = project_chunk_file(path, game_ids, out)
        return Path(out).read_bytes(), n


def _project_from(store, game_ids) -> tuple[list[tuple], list[tuple], list[tuple], list, list]:
    games, cards = [], []
    offered: Counter = Counter()
    clusters: dict = {}
    cross: dict = {}
    current, events = None, []

    def flush():
        g, c = game_rows(current, events, clusters, cross)
        games.append(g), cards.extend(c)
        rs, agents = g[1], (g[3], g[4])
        counts = msgspec.json.decode(g[11] if g[11] != "{}" else g[10])  # a constructed game has a pool
        for p in (0, 1):
            for key, n in counts.items():
                offered[(rs, agents[p], agents[1 - p], p, key)] += n

    try:
        for gid, e in store.iter_events(game_ids, types=TYPES, verify=True):  # a game is trusted if it chains
            if gid != current:
                if current is not None:
                    flush()
                current, events = gid, []
            events.append(e)
    except ChainError as exc:  # (re-raised as a plain StoreError: it crosses back from a worker process)
        raise StoreError(f"{store.path}: {exc}: the report is not made from a game altered since it was stored "
                         f"(locm verify --db {store.path} names every such game)") from None
    if current is not None:
        flush()
    rows, cross_rows = cluster_rows(clusters, cross)
    return games, cards, [(*k, n) for k, n in offered.items()], rows, cross_rows


def connect(path: str | os.PathLike) -> sqlite_utils.Database:
    """The store file through sqlite-utils, with the projection's tables created if missing. The file must
    already be an event store (opened once through `open_store`, which refuses anything else).

    A store that cannot be written (read-only media, a read-only file or directory) is never written: its own
    projection is used as it is when it is up to date (`_current`), else the projection is kept in a temporary
    file for this process, with the store attached read-only (`_scratch`); either way reports work."""
    path = str(path)
    if path == ":memory:" or not Path(path).is_file():
        raise StoreError(f"{path}: no such event store")
    if not writable(path):
        open_store(path, create=False, readonly=True).close()  # refuses a file that is not a store
        return _read_only(path)
    open_store(path, create=False).close()
    db = sqlite_utils.Database(path)
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        db.executescript(DDL)
    except sqlite3.Error as exc:
        db.close()
        raise StoreError(f"{path}: cannot keep the card-facts tables in this file: {exc}") from None
    return db


def writable(path: str | os.PathLike) -> bool:
    """Whether the store file and its directory (where SQLite keeps its journal) can be written."""
    return os.access(path, os.W_OK) and os.access(Path(path).resolve().parent, os.W_OK)


_SCRATCH: dict[str, str] = {}
"""Per read-only store (its resolved path), this process's temporary projection file."""


def _read_only(path: str) -> sqlite_utils.Database:
    from locm.store import _read_uri

    uri = _read_uri(Path(path))
    conn = sqlite3.connect(uri, uri=True)
    if _current(conn):
        db = sqlite_utils.Database(conn)
        db.read_only = True  # type: ignore[attr-defined]  # `refresh` has nothing to do
        return db
    conn.close()
    return _scratch(path, uri)


def _read_uri_of(path: str | os.PathLike) -> str:
    from locm.store import _read_uri

    return _read_uri(Path(path))


def _current(conn: sqlite3.Connection) -> bool:
    """Whether the file's own projection is complete and of this version and layout: every stored game, no
    other, and the totals caught up."""
    try:
        meta = dict(conn.execute("SELECT key, value FROM cardfacts_meta").fetchall())
        if (meta.get("definitions_version"), meta.get("layout")) != (DEFINITIONS_VERSION, LAYOUT):
            return False
        missing, extra = conn.execute(
            "SELECT (SELECT count(*) FROM games WHERE game_id NOT IN (SELECT game_id FROM cardfacts_games)), "
            "(SELECT count(*) FROM cardfacts_games WHERE game_id NOT IN (SELECT game_id FROM games))").fetchone()
        last = conn.execute("SELECT COALESCE(max(rowid), 0) FROM cardfacts_cards").fetchone()[0]
    except sqlite3.Error:  # no projection tables
        return False
    return not missing and not extra and str(last) == meta.get("totals_rowid", "0")


def _scratch(path: str, uri: str) -> sqlite_utils.Database:
    """The projection in a temporary file (made once per process, removed at exit), the store attached
    read-only: `games` resolves to the store's table, the ``cardfacts_`` tables to the temporary file's."""
    import atexit
    import tempfile

    key = str(Path(path).resolve())
    tmp = _SCRATCH.get(key)
    if tmp is None:
        fd, tmp = tempfile.mkstemp(prefix="locm-cardfacts-", suffix=".db")
        os.close(fd)
        _SCRATCH[key] = tmp
        atexit.register(lambda: Path(tmp).unlink(missing_ok=True))
    conn = sqlite3.connect(Path(tmp).as_uri(), uri=True)
    conn.execute("ATTACH DATABASE ? AS store", (uri,))
    db = sqlite_utils.Database(conn)
    db.executescript(DDL)
    return db


def version(db: sqlite_utils.Database) -> str | None:
    rows = db.execute("SELECT value FROM cardfacts_meta WHERE key = 'definitions_version'").fetchall()
    return rows[0][0] if rows else None


def drop(db: sqlite_utils.Database) -> None:
    """Remove the projection's tables (the events are untouched)."""
    with db.conn:
        for table in ("cardfacts_cards", "cardfacts_games", "cardfacts_meta", "cardfacts_totals",
                      "cardfacts_turns", "cardfacts_offered", "cardfacts_clusters", "cardfacts_cross"):
            db.execute(f"DROP TABLE IF EXISTS {table}")


def refresh(path: str | os.PathLike, *, rebuild: bool = False, workers: int | None = None,
            progress: Callable[[int], None] | None = None,
            on_start: Callable[[int], None] | None = None, backend: str = "local",
            address: str | None = None) -> ProjectionSummary:
    """Bring the projection up to date with the events: project the games it lacks (all of them when
    ``rebuild``, when the definitions version changed, or when a projected game left the store).
    ``on_start(n)`` is told how many games will be projected, ``progress(k)`` after each chunk of k.
    ``backend="ray"``: the chunks are projected on the Ray cluster at ``address`` (the store's path readable on
    every node), each node sending its chunk file back."""
    db = connect(path)
    if getattr(db, "read_only", False):  # a read-only store whose own projection is up to date
        if not rebuild:
            n = db.execute("SELECT count(*) FROM cardfacts_games").fetchone()[0]
            db.close()
            return ProjectionSummary(0, n, False)
        db.close()
        db = _scratch(str(path), _read_uri_of(path))
    try:
        return _refresh(db, path, rebuild, workers, progress, on_start, backend, address)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot update the card-facts tables: {exc}") from None
    finally:
        db.close()


def _refresh(db, path, rebuild, workers, progress, on_start, backend="local", address=None) -> ProjectionSummary:
    """`refresh` on an open connection."""
    meta = dict(db.execute("SELECT key, value FROM cardfacts_meta").fetchall())
    stale = (meta and (meta.get("definitions_version") != DEFINITIONS_VERSION
                       or meta.get("layout") != LAYOUT)) or db.execute(
        "SELECT EXISTS (SELECT 1 FROM cardfacts_games c WHERE c.game_id NOT IN (SELECT game_id FROM games))"
    ).fetchone()[0]
    rebuilt = bool(rebuild or stale)
    if rebuilt:
        drop(db)
        db.executescript(DDL)
    with db.conn:
        db.execute("INSERT OR REPLACE INTO cardfacts_meta (key, value) VALUES ('definitions_version', ?), "
                   "('layout', ?)", (DEFINITIONS_VERSION, LAYOUT))
    todo = [r[0] for r in db.execute(
        "SELECT game_id FROM games WHERE game_id NOT IN (SELECT game_id FROM cardfacts_games) ORDER BY rowid")]
    already = db.execute("SELECT count(*) FROM cardfacts_games").fetchone()[0]
    _catch_up_totals(db)  # after a crash between the last chunk and its totals
    if on_start:
        on_start(len(todo))
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    workers = min(workers or os.cpu_count() or 1, len(chunks))
    with tempfile.TemporaryDirectory(prefix="locm-cardfacts-") as tmp:
        outs = [os.path.join(tmp, f"chunk{k}.db") for k in range(len(chunks))]
        if backend == "ray":
            from locm.ray_backend import map_ordered

            def fetched():
                tasks = [(os.path.abspath(str(path)), c) for c in chunks]
                for out, (data, n) in zip(outs, map_ordered(chunk_bytes, tasks, address=address, per_task=1)):
                    Path(out).write_bytes(data)
                    yield out, n

            _store_chunk_files(db, fetched(), progress)
        elif workers <= 1:
            done = ((out, project_chunk_file(str(path), c, out)) for c, out in zip(chunks, outs))
            _store_chunk_files(db, done, progress)
        else:
            # the workers die with this process, even killed with SIGKILL, and so does the resource tracker
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=die_with_parent, initargs=(os.getpid(),))
            try:
                counts = pool.map(project_chunk_file, [str(path)] * len(chunks), chunks, outs)
                _store_chunk_files(db, zip(outs, counts), progress)
            except BaseException:  # interrupted: the chunks stored so far stay, the rest is not started
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown()
    return ProjectionSummary(len(todo), already, rebuilt)


_TOTALS_SQL = (
    f"INSERT INTO cardfacts_totals (ruleset, agent, opponent, player, card, fkey, {', '.join(_SUM_NAMES)}) "
    f"SELECT ruleset, agent, opponent, player, CASE WHEN ruleset = 'constructed' THEN -1 ELSE card END, fkey, "
    f"{_SUMS} FROM cardfacts_cards WHERE rowid > ? GROUP BY 1, 2, 3, 4, 5, 6 "
    "ON CONFLICT (ruleset, agent, opponent, player, card, fkey) DO UPDATE SET "
    + ", ".join(f"{c} = {c} + excluded.{c}" for c in _SUM_NAMES))
_TURNS_SQL = (
    "INSERT INTO cardfacts_turns (ruleset, agent, opponent, player, turn, n, wins) "
    "SELECT ruleset, agent, opponent, player, first_play_turn, count(*), SUM(won) FROM cardfacts_cards "
    "WHERE rowid > ? AND plays > 0 GROUP BY 1, 2, 3, 4, 5 "
    "ON CONFLICT (ruleset, agent, opponent, player, turn) DO UPDATE SET n = n + excluded.n, "
    "wins = wins + excluded.wins")
_OFFERED_SQL = (
    "INSERT INTO cardfacts_offered (ruleset, agent, opponent, player, key, n) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (ruleset, agent, opponent, player, key) DO UPDATE SET n = n + excluded.n")
_CLUSTERS_SQL = (
    "INSERT INTO cardfacts_clusters (ruleset, agent, opponent, player, feature, metric, s2, s2w, g) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ruleset, agent, opponent, player, feature, metric) "
    "DO UPDATE SET s2 = s2 + excluded.s2, s2w = s2w + excluded.s2w, g = g + excluded.g")
_CROSS_SQL = (
    "INSERT INTO cardfacts_cross (ruleset, agent, feature, metric, x, c) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (ruleset, agent, feature, metric) DO UPDATE SET x = x + excluded.x, c = c + excluded.c")


_GAME_SQL = f"INSERT INTO cardfacts_games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * len(GAME_COLUMNS))})"
_CARD_SQL = f"INSERT INTO cardfacts_cards ({', '.join(ROW_COLUMNS)}) VALUES ({', '.join('?' * len(ROW_COLUMNS))})"


def _add_from(table: str, key: Sequence[str], sums: Sequence[str]) -> str:
    """Add a chunk file's rows of ``table`` into the store's: new keys inserted, the sums of known ones added."""
    cols = ", ".join((*key, *sums))
    return (f"INSERT INTO {table} ({cols}) SELECT {cols} FROM chunk.{table} WHERE true ON CONFLICT "
            f"({', '.join(key)}) DO UPDATE SET " + ", ".join(f"{c} = {c} + excluded.{c}" for c in sums))


_GROUP = ("ruleset", "agent", "opponent", "player")
_ADD_CHUNK = (
    f"INSERT INTO cardfacts_games ({', '.join(GAME_COLUMNS)}) SELECT {', '.join(GAME_COLUMNS)} FROM "
    "chunk.cardfacts_games ORDER BY rowid",
    f"INSERT INTO cardfacts_cards ({', '.join(ROW_COLUMNS)}) SELECT {', '.join(ROW_COLUMNS)} FROM "
    "chunk.cardfacts_cards ORDER BY rowid",
    _add_from("cardfacts_totals", (*_GROUP, "card", "fkey"), _SUM_NAMES),
    _add_from("cardfacts_turns", (*_GROUP, "turn"), ("n", "wins")),
    _add_from("cardfacts_offered", (*_GROUP, "key"), ("n",)),
    _add_from("cardfacts_clusters", (*_GROUP, "feature", "metric"), ("s2", "s2w", "g")),
    _add_from("cardfacts_cross", ("ruleset", "agent", "feature", "metric"), ("x", "c")),
)


def _store_chunk_files(db, done, progress) -> None:
    """Add each chunk file (`project_chunk_file`) as it comes: its rows and its totals, and the mark of how far
    the totals go (``totals_rowid``), in one transaction per chunk; then delete the file."""
    conn = db.conn
    for out, n in done:
        conn.execute("ATTACH DATABASE ? AS chunk", (out,))
        try:
            with conn:  # a crash leaves whole chunks with their totals, never half of one
                for sql in _ADD_CHUNK:
                    conn.execute(sql)
                last = conn.execute("SELECT COALESCE(max(rowid), 0) FROM cardfacts_cards").fetchone()[0]
                conn.execute("INSERT OR REPLACE INTO cardfacts_meta (key, value) VALUES ('totals_rowid', ?)",
                             (str(last),))
        finally:
            conn.execute("DETACH DATABASE chunk")
        os.unlink(out)
        if progress:
            progress(n)


def _catch_up_totals(db) -> None:
    """Add the card rows written since the last call into ``cardfacts_totals`` and ``cardfacts_turns`` (one
    GROUP BY over all of them, cheaper than one per chunk). ``totals_rowid`` in the meta table says how far
    the totals go, and moves in the same transaction, so a crash in between is caught up by the next run."""
    conn = db.conn
    with conn:
        row = conn.execute("SELECT value FROM cardfacts_meta WHERE key = 'totals_rowid'").fetchone()
        done = int(row[0]) if row else 0
        last = conn.execute("SELECT COALESCE(max(rowid), 0) FROM cardfacts_cards").fetchone()[0]
        if last > done:
            conn.execute(_TOTALS_SQL, (done,))
            conn.execute(_TURNS_SQL, (done,))
        conn.execute("INSERT OR REPLACE INTO cardfacts_meta (key, value) VALUES ('totals_rowid', ?)", (str(last),))


def dump(path: str | os.PathLike) -> tuple[list[tuple], list[tuple]]:
    """Every row of the projection in a canonical order (for comparing two projections)."""
    db = connect(path)
    try:
        games = db.execute(f"SELECT {', '.join(GAME_COLUMNS)} FROM cardfacts_games ORDER BY game_id").fetchall()
        cards = db.execute(f"SELECT {', '.join(ROW_COLUMNS)} FROM cardfacts_cards "
                           "ORDER BY game_id, player, card").fetchall()
        totals = [db.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3, 4, 5").fetchall()
                  for t in ("cardfacts_totals", "cardfacts_turns", "cardfacts_offered", "cardfacts_clusters",
                            "cardfacts_cross")]
        return games, cards, *totals
    finally:
        db.close()





# --- aggregation for reports ------------------------------------------------------------------------------

def _where(ruleset: str, agent: str | None, seat: int | None, opponent: str | None = None) -> tuple[str, list]:
    where, params = ["ruleset = ?"], [ruleset]
    if agent is not None:
        where.append("agent = ?"), params.append(agent)
    if opponent is not None:
        where.append("opponent = ?"), params.append(opponent)
    if seat is not None:
        where.append("player = ?"), params.append(seat)
    return " AND ".join(where), params


def pairings(db: sqlite_utils.Database, ruleset: str) -> list[tuple[str, str, int]]:
    """Every (agent, opponent) of a ruleset's player-games, with its number of player-games."""
    sql = ("SELECT agent0, agent1, count(*) FROM cardfacts_games WHERE ruleset = ? GROUP BY 1, 2")
    counts: Counter = Counter()
    for a0, a1, n in db.execute(sql, [ruleset]):
        counts[(a0, a1)] += n
        counts[(a1, a0)] += n
    return [(a, b, n) for (a, b), n in sorted(counts.items())]


def bucket_clusters(db: sqlite_utils.Database, ruleset: str, agent: str | None = None, seat: int | None = None,
                    opponent: str | None = None) -> dict[tuple[int, int], list[int]]:
    """(bucket index, metric index) -> [s2, s2w, g, x, c] summed over the player-games the filters keep; x
    and c (the two seats of one game, `add_clusters`) only where both seats are kept: no seat filter and an
    agent against itself."""
    where, params = _where(ruleset, agent, seat, opponent)
    out: dict[tuple[int, int], list[int]] = {}
    sql = f"SELECT feature, metric, SUM(s2), SUM(s2w), SUM(g) FROM cardfacts_clusters WHERE {where} GROUP BY 1, 2"
    for f, m, s2, s2w, g in db.execute(sql, params):
        out[(f, m)] = [s2, s2w, g, 0, 0]
    if seat is None and agent is not None and agent == opponent:
        sql = "SELECT feature, metric, x, c FROM cardfacts_cross WHERE ruleset = ? AND agent = ?"
        for f, m, x, c in db.execute(sql, [ruleset, agent]):
            if (f, m) in out:
                out[(f, m)][3:] = [x, c]
    return out


def is_constructed(db: sqlite_utils.Database, ruleset: str) -> bool:
    """Whether a ruleset's games build decks from a generated pool (constructed, or a variant of it): its rows
    are then feature buckets. Told by the projected games themselves, never by the ruleset's name."""
    row = db.execute("SELECT pool FROM cardfacts_games WHERE ruleset = ? LIMIT 1", [ruleset]).fetchone()
    return row is not None and row[0] != "{}"


def card_groups(db: sqlite_utils.Database, ruleset: str, agent: str | None = None, seat: int | None = None,
                by_card: bool = True, opponent: str | None = None) -> list[tuple[tuple[int, int], dict]]:
    """[((card, fkey), counts)] summed over the player-games the filters keep: per base id (``by_card``) or
    per feature key (card -1), from ``cardfacts_totals``."""
    where, params = _where(ruleset, agent, seat, opponent)
    key = "card, fkey" if by_card else "-1, fkey"
    sql = (f"SELECT {key}, {', '.join(f'SUM({c})' for c in _SUM_NAMES)} FROM cardfacts_totals WHERE {where} "
           f"GROUP BY {'card, fkey' if by_card else 'fkey'}")
    return [((r[0], r[1]), dict(zip(_SUM_NAMES, r[2:]))) for r in db.execute(sql, params)]


def turn_groups(db: sqlite_utils.Database, ruleset: str, agent: str | None = None, seat: int | None = None,
                opponent: str | None = None) -> list[tuple[int, int, int]]:
    """[(own turn of first play, player-game-cards first played then, of which won)]."""
    where, params = _where(ruleset, agent, seat, opponent)
    sql = f"SELECT turn, SUM(n), SUM(wins) FROM cardfacts_turns WHERE {where} GROUP BY turn ORDER BY turn"
    return [tuple(r) for r in db.execute(sql, params)]


def offered_counts(db: sqlite_utils.Database, ruleset: str, agent: str | None = None,
                   seat: int | None = None, opponent: str | None = None) -> dict[str, int]:
    """Times offered per key (1.2: base id as text; constructed: feature bucket of a pool card), summed over
    the player-games the filters keep."""
    where, params = _where(ruleset, agent, seat, opponent)
    sql = f"SELECT key, SUM(n) FROM cardfacts_offered WHERE {where} GROUP BY key"
    return {k: v for k, v in db.execute(sql, params) if v}


def game_facts(db: sqlite_utils.Database, ruleset: str | None = None, agent: str | None = None) -> list[dict]:
    """The ``cardfacts_games`` rows (JSON columns decoded), optionally of one ruleset and/or agent."""
    where, params = [], []
    if ruleset is not None:
        where.append("ruleset = ?"), params.append(ruleset)
    if agent is not None:
        where.append("(agent0 = ? OR agent1 = ?)"), params.extend((agent, agent))
    sql = (f"SELECT game_id, ruleset, seed, agent0, agent1, winner, reason, turns, damage, drain, same_decks "
           f"FROM cardfacts_games{' WHERE ' + ' AND '.join(where) if where else ''} ORDER BY rowid")
    dec = msgspec.json.decode
    out = []
    for r in db.execute(sql, params):
        out.append({"game_id": r[0], "ruleset": r[1], "seed": r[2], "agents": (r[3], r[4]), "winner": r[5],
                    "reason": r[6], "turns": r[7], "damage": dec(r[8]), "drain": r[9], "same_decks": r[10]})
    return out
