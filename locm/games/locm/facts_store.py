"""The card-facts projection kept in the event store's file, next to the events (a projection: derived,
versioned, rebuildable, never trusted over the events).

Where a game's facts come from: the store keeps each LOCM game's facts beside its events (``game_facts``,
written in the game's transaction by whoever had the events in memory: `locm.store.records.game_facts`, the
one fold packed by `analysis.locm.packedfacts`). A game whose stored facts are of this locm's `FACTS_VERSION`, of
its current head hash and of its log's bytes as they are (one SHA-256 of the compressed log: a log edited behind
the store's back is caught as the chain would catch it, without inflating or folding it) is counted from them.
Any other game (a store written before the facts were kept, facts of another version, a game or a log changed
since, a blob that does not decode) is projected from its events, its hash chain checked first (a game altered
since it was stored stops the report, naming ``locm verify``), and its facts are written back for the next time
(when the store can be written). ``rebuild`` projects every game from its events. `locm verify` recomputes the
stored facts of every game and names a game whose facts are not what its events give.

Tables (all prefixed ``cardfacts_``; the store's open check ignores them):

- ``cardfacts_meta``: ``definitions_version`` (`analysis.locm.cardfacts.DEFINITIONS_VERSION`) and ``layout``.
- ``cardfacts_games``: one row per projected game: ruleset, seed, agents, winner, length, damage by source
  (JSON), drain, whether its decks were built from a generated pool (``constructed``: its rows are feature
  buckets, whatever its ruleset's name),
  whether both decks held the same cards (``same_decks``: then no card's deck rate can differ from 50%), and
  whether its facts were the stored ones (``stored`` 1) or projected from its events (0).
- ``cardfacts_totals`` (drafted decks: per card), ``cardfacts_buckets`` (decks built from a generated pool:
  per feature bucket), ``cardfacts_turns``, ``cardfacts_offered``: running sums per ruleset, agent, opponent
  and seat (what reports read), so that every rate can be given per pairing of agents.
- ``cardfacts_clusters`` and ``cardfacts_cross`` (constructed feature buckets): per bucket and metric, the sums
  the bucket's interval clusters by: over player-games, the square of the bucket's count ``n`` and of ``n``
  when won, and how many player-games hold it; over games whose two seats have the same agent, the product of
  both seats' counts and how many games both seats hold it (`bucket_interval`).

The sums are `analysis.locm.cardtotals`'s (its docstring defines each); a game's card rows are in its stored facts
(`analysis.locm.packedfacts.card_rows`), never in a table of their own.

Which games: the store file's own projection holds the LOCM games a result may count (``scope`` ``counted`` in
``cardfacts_meta``: played here or imported from a trusted file, `locm.store.provenance.Scope`); a game that
becomes counted (its signed export imported under ``--trust``) is projected by the next refresh, a projected game
no longer counted rebuilds it. With ``include_untrusted`` (``--include-untrusted``) every LOCM game is projected,
in a temporary file of this process (scope ``all``), never into the store's own tables.

`refresh` projects the games stored since the last run (LOCM games that ``cardfacts_games`` lacks), in chunks
of `CHUNK` games: a chunk's games rows and the totals of its games are added in one transaction, so a crash
leaves whole chunks, and there is no serial tail. It rebuilds everything when the definitions version or the
layout differs or when a projected game is no longer in the store. The chunks are done by the one pool's
workers (`locm.tournament.pool.imap`: each reads its games' stored facts, or their events, and adds them up), on Ray with
``backend="ray"``; the writing process only inserts the sums.

Why one module of about 530 lines: the tables are one projection, written in one transaction per chunk and
read by the report's queries; its layout, its version check, its writer and its readers change together
(a layout change is a new `LAYOUT` and every reader's SQL with it).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec
import sqlite_utils

from locm.analysis.locm.cardfacts import CARD_COLUMNS, DEFINITIONS_VERSION, FEATURE_ORDER, TYPES, project
from locm.analysis.locm.cardtotals import SUM_NAMES as _SUM_NAMES, ChunkTotals, chunk_totals
from locm.analysis.locm.packedfacts import FACTS_VERSION, Packed, encode, game_row, packed, unpack
from locm.errors import ChainError, StoreError
from locm.store.eventstore import open_store

if TYPE_CHECKING:
    from locm.tournament.backends import Backend

PREFIX = "cardfacts_"
GAME_COLUMNS = ("game_id", "ruleset", "seed", "agent0", "agent1", "winner", "reason", "turns", "damage", "drain",
                "constructed", "same_decks")
ROW_COLUMNS = ("game_id", "ruleset", "agent", "opponent") + CARD_COLUMNS
CHUNK = 2000  # games per unit of work


DDL = f"""\
CREATE TABLE IF NOT EXISTS cardfacts_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cardfacts_games (
    game_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, seed INTEGER, agent0 TEXT NOT NULL, agent1 TEXT NOT NULL,
    winner INTEGER NOT NULL, reason TEXT NOT NULL, turns INTEGER NOT NULL, damage TEXT NOT NULL,
    drain INTEGER NOT NULL, constructed INTEGER NOT NULL, same_decks INTEGER NOT NULL,
    stored INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cardfacts_totals (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    card INTEGER NOT NULL, fkey INTEGER NOT NULL, {", ".join(f"{c} INTEGER NOT NULL" for c in _SUM_NAMES)},
    PRIMARY KEY (ruleset, agent, opponent, player, card, fkey)
);
CREATE TABLE IF NOT EXISTS cardfacts_buckets (
    ruleset TEXT NOT NULL, agent TEXT NOT NULL, opponent TEXT NOT NULL, player INTEGER NOT NULL,
    feature INTEGER NOT NULL, {", ".join(f"{c} INTEGER NOT NULL" for c in _SUM_NAMES)},
    PRIMARY KEY (ruleset, agent, opponent, player, feature)
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

LAYOUT = hashlib.sha256(DDL.encode() + FACTS_VERSION.encode()).hexdigest()[:16]
"""The tables' layout: a projection written with another layout is rebuilt, like one of another version."""

_TABLES = ("cardfacts_games", "cardfacts_meta", "cardfacts_totals", "cardfacts_turns", "cardfacts_offered",
           "cardfacts_clusters", "cardfacts_cross", "cardfacts_buckets",
           "cardfacts_cards")  # the last: the layout before stored facts


class ProjectionSummary(msgspec.Struct, frozen=True):
    """What `refresh` did: games projected now (of them, ``from_stored`` counted from the facts stored with
    them, the others from their events), games already projected, whether it started from scratch."""

    projected: int
    already: int
    rebuilt: bool
    version: str = DEFINITIONS_VERSION
    from_stored: int = 0


class ChunkResult(NamedTuple):
    """One chunk's projection (`project_chunk`): its ``cardfacts_games`` rows (with ``stored``), the totals of
    its games (`analysis.locm.cardtotals.chunk_totals`), and the facts of the games projected from their events now,
    ``(game_id, blob, log hash)``, to be stored for the next time."""

    games: list[tuple]
    totals: ChunkTotals
    fresh: list[tuple[str, bytes, bytes]]


# --- one chunk (in a worker) ---------------------------------------------------------------------------------

_STATE: dict = {}


def _open_chunks(path: str) -> None:
    """A worker's (or this process's) store, opened read-only once for all its chunks."""
    _STATE["store"] = open_store(path, create=False, readonly=True)
    _STATE["path"] = path


def project_chunk(task: tuple[Sequence[str], bool]) -> ChunkResult:
    """Project some games of the store `_open_chunks` opened, in the order given: from their stored facts when
    ``use_stored`` (those of `FACTS_VERSION`, of the game's head hash and of its log's bytes as they are now,
    that decode: `EventStore.current_facts`), else, and for the others, from their events (each game's hash chain checked: a game altered since it was stored stops the
    projection with a `StoreError` naming ``locm verify``)."""
    game_ids, use_stored = task
    store = _STATE["store"]
    facts: dict[str, Packed] = {}
    stored: set[str] = set()
    if use_stored:
        for gid, data in store.current_facts(game_ids, FACTS_VERSION).items():
            try:
                facts[gid] = unpack(data)
                stored.add(gid)
            except ValueError:  # damaged: projected from the events below
                pass
    fresh: list[tuple[str, bytes, bytes]] = []
    missing = [gid for gid in game_ids if gid not in facts]
    if missing:
        digests = store.log_hashes(missing)
        current, events = None, []

        def flush() -> None:
            g = facts[current] = packed(project(events))
            fresh.append((current, encode(g), digests[current]))

        try:
            for gid, e in store.iter_events(missing, types=TYPES, verify=True):  # trusted only if it chains
                if gid != current:
                    if current is not None:
                        flush()
                    current, events = gid, []
                events.append(e)
        except ChainError as exc:  # (re-raised as a plain StoreError: it crosses back from a worker process)
            raise StoreError(f"{_STATE['path']}: {exc}: the report is not made from a game altered since it was "
                             f"stored (locm verify --db {_STATE['path']} names every such game)") from None
        if current is not None:
            flush()
    packs = [facts[gid] for gid in game_ids]
    rows = [(*game_row(gid, p), int(gid in stored)) for gid, p in zip(game_ids, packs)]
    return ChunkResult(rows, chunk_totals(packs), fresh)


# --- the store file ------------------------------------------------------------------------------------------


def connect(path: str | os.PathLike, include_untrusted: bool = False) -> sqlite_utils.Database:
    """The store file through sqlite-utils, with the projection's tables created if missing. The file must
    already be an event store (opened once through `open_store`, which refuses anything else).

    A store that cannot be written (read-only media, a read-only file or directory) is never written: its own
    projection is used as it is when it is up to date (`_current`), else the projection is kept in a temporary
    file for this process, with the store attached read-only (`_scratch`); either way reports work. With
    ``include_untrusted`` the projection of every LOCM game, counted or not, is always such a temporary one."""
    path = str(path)
    if path == ":memory:" or not Path(path).is_file():
        raise StoreError(f"{path}: no such event store")
    if include_untrusted:
        open_store(path, create=False, readonly=True).close()  # refuses a file that is not a store
        return _scratch(path, _read_uri_of(path), ALL)
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


_SCRATCH: dict[tuple[str, str], str] = {}
"""Per read-only store (its resolved path) and scope, this process's temporary projection file."""

COUNTED, ALL = "counted", "all"
"""The projection's scopes: the games a result may count (`locm.store.provenance.Scope`), every LOCM game."""


def _scope_sql(conn, scope: str) -> str:
    """The SQL condition over ``games`` that keeps a game of the projection's ``scope`` (the store's own
    `locm.store.sqlite.scope_of`, read through ``conn``: its tables resolve to the store's, attached or not)."""
    from locm.store.sqlite import scope_of

    if scope == ALL:
        return "1"
    raw = conn.conn if isinstance(conn, sqlite_utils.Database) else conn
    return scope_of(raw).counted_sql("games.id")


def _scope(db) -> str:
    """The scope a projection connection holds (a temporary one says; the store's own is always counted)."""
    return getattr(db, "scope", COUNTED)


def _read_only(path: str) -> sqlite_utils.Database:
    from locm.store.eventstore import _read_uri

    uri = _read_uri(Path(path))
    conn = sqlite3.connect(uri, uri=True)
    if _current(conn):
        db = sqlite_utils.Database(conn)
        db.read_only = True  # type: ignore[attr-defined]  # `refresh` has nothing to do
        return db
    conn.close()
    return _scratch(path, uri)


def _read_uri_of(path: str | os.PathLike) -> str:
    from locm.store.eventstore import _read_uri

    return _read_uri(Path(path))


def _current(conn: sqlite3.Connection) -> bool:
    """Whether the file's own projection is complete and of this version and layout: every stored LOCM game,
    no other."""
    try:
        meta = dict(conn.execute("SELECT key, value FROM cardfacts_meta").fetchall())
        if (meta.get("definitions_version"), meta.get("layout"), meta.get("scope")) != \
                (DEFINITIONS_VERSION, LAYOUT, COUNTED):
            return False
        kept = _scope_sql(conn, COUNTED)
        missing, extra = conn.execute(
            f"SELECT (SELECT count(*) FROM games WHERE game = 'locm' AND {kept} AND game_id NOT IN (SELECT game_id "
            "FROM cardfacts_games)), (SELECT count(*) FROM cardfacts_games WHERE game_id NOT IN (SELECT game_id "
            f"FROM games WHERE {kept}))").fetchone()
    except sqlite3.Error:  # no projection tables
        return False
    return not missing and not extra


def _scratch(path: str, uri: str, scope: str = COUNTED) -> sqlite_utils.Database:
    """The projection of ``scope`` in a temporary file (made once per process, removed at exit), the store
    attached read-only: `games` resolves to the store's table, the ``cardfacts_`` tables to the temporary
    file's."""
    import atexit
    import tempfile

    key = (str(Path(path).resolve()), scope)
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
    db.scratch = True  # type: ignore[attr-defined]  # the store is not written: no facts are stored back
    db.scope = scope  # type: ignore[attr-defined]
    return db


def version(db: sqlite_utils.Database) -> str | None:
    rows = db.execute("SELECT value FROM cardfacts_meta WHERE key = 'definitions_version'").fetchall()
    return rows[0][0] if rows else None


def drop(db: sqlite_utils.Database) -> None:
    """Remove the projection's tables (the events, and the facts stored with them, are untouched)."""
    with db.conn:
        for table in _TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")


def refresh(path: str | os.PathLike, *, rebuild: bool = False, workers: int | None = None,
            progress: Callable[[int], None] | None = None,
            on_start: Callable[[int], None] | None = None, backend: Backend = "local",
            address: str | None = None, include_untrusted: bool = False) -> ProjectionSummary:
    """Bring the projection up to date with the events: project the games it lacks (all of them when
    ``rebuild``, when the definitions version or layout changed, or when a projected game left the store),
    from their stored facts where they hold (not with ``rebuild``: then from every game's events).
    ``on_start(n)`` is told how many games will be projected, ``progress(k)`` after each chunk of k. The chunks
    are projected by ``workers`` processes of the one pool (default: one per core; one: in this process), or
    with ``backend="ray"`` on the Ray cluster at ``address`` (the store's path readable on every node).
    ``include_untrusted``: the projection of every LOCM game (a temporary one, `connect`)."""
    db = connect(path, include_untrusted)
    if getattr(db, "read_only", False):  # a read-only store whose own projection is up to date
        if not rebuild:
            n = db.execute("SELECT count(*) FROM cardfacts_games").fetchone()[0]
            db.close()
            return ProjectionSummary(0, n, False)
        db.close()
        db = _scratch(str(path), _read_uri_of(path))
    try:
        return _refresh(db, str(path), rebuild, workers, progress, on_start, backend, address)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot update the card-facts tables: {exc}") from None
    finally:
        db.close()


def _refresh(db, path: str, rebuild: bool, workers, progress, on_start, backend="local",
             address=None) -> ProjectionSummary:
    """`refresh` on an open connection."""
    from locm.tournament.pool import imap

    meta = dict(db.execute("SELECT key, value FROM cardfacts_meta").fetchall())
    scope = _scope(db)
    kept = _scope_sql(db, scope)
    stale = (meta and (meta.get("definitions_version") != DEFINITIONS_VERSION
                       or meta.get("layout") != LAYOUT or meta.get("scope") != scope)) or db.execute(
        f"SELECT EXISTS (SELECT 1 FROM cardfacts_games c WHERE c.game_id NOT IN (SELECT game_id FROM games WHERE "
        f"{kept}))").fetchone()[0]
    rebuilt = bool(rebuild or stale)
    if rebuilt:
        drop(db)
        db.executescript(DDL)
    with db.conn:
        db.execute("INSERT OR REPLACE INTO cardfacts_meta (key, value) VALUES ('definitions_version', ?), "
                   "('layout', ?), ('scope', ?)", (DEFINITIONS_VERSION, LAYOUT, scope))
    todo = [r[0] for r in db.execute(
        f"SELECT game_id FROM games WHERE game = 'locm' AND {kept} AND game_id NOT IN (SELECT game_id FROM "
        "cardfacts_games) ORDER BY id")]
    already = db.execute("SELECT count(*) FROM cardfacts_games").fetchone()[0]
    if on_start:
        on_start(len(todo))
    tasks = [(todo[i:i + CHUNK], not rebuild) for i in range(0, len(todo), CHUNK)]
    workers = min(workers or os.cpu_count() or 1, len(tasks)) if backend == "local" else 1
    keep = not getattr(db, "scratch", False) and _facts_table(db)  # facts projected now are stored back
    from_stored = 0
    results = imap(project_chunk, tasks, workers, init=_open_chunks,
                   init_args=(os.path.abspath(path) if backend == "ray" else path,), backend=backend,
                   address=address, ray_batch=1, label=lambda task: f"the projection of games {task[0][0]}..")
    try:
        for result in results:
            _add_chunk(db, result, keep)
            from_stored += sum(r[-1] for r in result.games)
            if progress:
                progress(len(result.games))
    finally:
        results.close()  # its workers stop with it, whatever stopped the loop
        store = _STATE.pop("store", None)  # opened here when the chunks were projected in this process
        if store is not None:
            store.close()
    return ProjectionSummary(len(todo), already, rebuilt, from_stored=from_stored)


def _facts_table(db) -> bool:
    """Make the store's ``game_facts`` table if it is missing; whether it has this locm's layout (a table of
    another one is left alone: the facts projected now are then not stored back)."""
    from locm.store.eventstore import _FACTS_COLUMNS, FACTS_SQL

    with db.conn:
        db.execute(FACTS_SQL)
    return tuple(r[1] for r in db.execute("PRAGMA table_info(game_facts)")) == _FACTS_COLUMNS


def _upsert(table: str, key: Sequence[str], sums: Sequence[str]) -> str:
    """Add rows into ``table``: new keys inserted, the sums of known ones added."""
    cols = (*key, *sums)
    return (f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) ON CONFLICT "
            f"({', '.join(key)}) DO UPDATE SET " + ", ".join(f"{c} = {c} + excluded.{c}" for c in sums))


_GROUP = ("ruleset", "agent", "opponent", "player")
_UPSERTS = ChunkTotals(
    _upsert("cardfacts_totals", (*_GROUP, "card", "fkey"), _SUM_NAMES),
    _upsert("cardfacts_turns", (*_GROUP, "turn"), ("n", "wins")),
    _upsert("cardfacts_offered", (*_GROUP, "key"), ("n",)),
    _upsert("cardfacts_clusters", (*_GROUP, "feature", "metric"), ("s2", "s2w", "g")),
    _upsert("cardfacts_cross", ("ruleset", "agent", "feature", "metric"), ("x", "c")),
    _upsert("cardfacts_buckets", (*_GROUP, "feature"), _SUM_NAMES),
)
_GAME_SQL = (f"INSERT INTO cardfacts_games ({', '.join(GAME_COLUMNS)}, stored) "
             f"VALUES ({', '.join('?' * (len(GAME_COLUMNS) + 1))})")
_KEEP_FACTS_SQL = ("INSERT OR REPLACE INTO game_facts (game, head_hash, log_hash, version, data) SELECT id, "
                   "head_hash, ?, ?, ? FROM games WHERE game_id = ?")


def _add_chunk(db, result: ChunkResult, keep: bool) -> None:
    """One chunk's games rows and totals in one transaction (a crash leaves whole chunks), with the facts its
    games were projected to from their events (``keep``)."""
    conn = db.conn
    with conn:
        conn.executemany(_GAME_SQL, result.games)
        for sql, rows in zip(_UPSERTS, result.totals):
            conn.executemany(sql, rows)
        if keep and result.fresh:
            conn.executemany(_KEEP_FACTS_SQL, [(digest, FACTS_VERSION, blob, gid) for gid, blob, digest in result.fresh])


def dump(path: str | os.PathLike) -> tuple[list[tuple], ...]:
    """Every row of the projection in a canonical order (for comparing two projections): its games (without
    where their facts came from), then each totals table."""
    db = connect(path)
    try:
        games = db.execute(f"SELECT {', '.join(GAME_COLUMNS)} FROM cardfacts_games ORDER BY game_id").fetchall()
        totals = []
        for t in ("cardfacts_totals", "cardfacts_turns", "cardfacts_offered", "cardfacts_clusters",
                  "cardfacts_cross", "cardfacts_buckets"):
            n = len(db.execute(f"SELECT * FROM {t} LIMIT 0").description)
            totals.append(db.execute(f"SELECT * FROM {t} ORDER BY {', '.join(map(str, range(1, n + 1)))}").fetchall())
        return games, *totals
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
    and c (the two seats of one game, `analysis.locm.cardtotals`) only where both seats are kept: no seat filter and an
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
    row = db.execute("SELECT constructed FROM cardfacts_games WHERE ruleset = ? LIMIT 1", [ruleset]).fetchone()
    return row is not None and bool(row[0])


def card_groups(db: sqlite_utils.Database, ruleset: str, agent: str | None = None, seat: int | None = None,
                opponent: str | None = None) -> list[tuple[tuple[int, int], dict]]:
    """[((card, fkey), counts)] of a ruleset of drafted decks, summed over the player-games the filters keep,
    from ``cardfacts_totals``."""
    where, params = _where(ruleset, agent, seat, opponent)
    sql = (f"SELECT card, fkey, {', '.join(f'SUM({c})' for c in _SUM_NAMES)} FROM cardfacts_totals WHERE {where} "
           "GROUP BY card, fkey")
    return [((r[0], r[1]), dict(zip(_SUM_NAMES, r[2:]))) for r in db.execute(sql, params)]


def bucket_groups(db: sqlite_utils.Database, ruleset: str, agent: str | None = None, seat: int | None = None,
                  opponent: str | None = None) -> dict[str, dict]:
    """{feature bucket: counts} of a ruleset of decks built from a generated pool, summed over the player-games
    the filters keep, from ``cardfacts_buckets``, in `FEATURE_ORDER`."""
    where, params = _where(ruleset, agent, seat, opponent)
    sql = (f"SELECT feature, {', '.join(f'SUM({c})' for c in _SUM_NAMES)} FROM cardfacts_buckets WHERE {where} "
           "GROUP BY feature ORDER BY feature")
    return {FEATURE_ORDER[r[0]]: dict(zip(_SUM_NAMES, r[1:])) for r in db.execute(sql, params)}


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
    """The ``cardfacts_games`` rows (JSON columns decoded), optionally of one ruleset and/or agent, in the order
    the games were stored."""
    where, params = [], []
    if ruleset is not None:
        where.append("c.ruleset = ?"), params.append(ruleset)
    if agent is not None:
        where.append("(c.agent0 = ? OR c.agent1 = ?)"), params.extend((agent, agent))
    sql = (f"SELECT c.game_id, c.ruleset, c.seed, c.agent0, c.agent1, c.winner, c.reason, c.turns, c.damage, "
           f"c.drain, c.same_decks, c.stored FROM cardfacts_games c JOIN games g ON g.game_id = c.game_id"
           f"{' WHERE ' + ' AND '.join(where) if where else ''} ORDER BY g.id")
    dec = msgspec.json.decode
    out = []
    for r in db.execute(sql, params):
        out.append({"game_id": r[0], "ruleset": r[1], "seed": r[2], "agents": (r[3], r[4]), "winner": r[5],
                    "reason": r[6], "turns": r[7], "damage": dec(r[8]), "drain": r[9], "same_decks": r[10],
                    "stored": r[11]})
    return out
