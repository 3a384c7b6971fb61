"""The provenance chain: a hash chain over every provenance row a store writes (issue 32), so that a row edited
behind the store's back is named by `locm verify` and a signed ledger covers how each game came in.

The games' ledger (`locm.store.records._ledger_link`) covers the games; the provenance rows beside them
(`locm.store.provenance`) are not games, and flipping one (an untrusted import's game now "played here", a
source row now ``trusted``) changed nothing the ledger or its signature read. So every write of provenance also
appends to a second chain, in the same transaction:

- an entry per provenance row written: a game's row when it is stored, and again when a trusted import takes
  over a game an untrusted one stored (``game``: its integer key, ``source``: the source row's key);
- an entry per source row, once its transaction has filled it in (``game`` NULL; an import's SHA-256 is known
  only at its end);
- first of all, the store's ``provenance_since`` (both NULL): the boundary between the games stored before
  provenance was recorded (counted) and those without a row written behind the store's back (never counted).

Each entry's digest is computed from the rows it names as they are (`game_digest`: the game's id and its
source's run; `source_digest`: every column of the source row; `since_digest`), and its link is
``sha256(previous link + digest)`` from `GENESIS`. The table ``provenance_log`` keeps each entry's
references and link in the order written; ``locm_meta``'s ``provenance_ledger`` its length and head
(``"{count} {head hex}"``). `problems` recomputes every link from the rows as they are now and names the entry
whose rows changed, then compares the chain's last word on each game and source with the tables: a row edited,
added or deleted behind the store's back is named. Like the games' ledger, it does not stop someone who
recomputes the chain too: that is the signed ledger's matter (`locm.provenance.signing`, which signs the chain's
``(count, head)`` with the games' ledger's and checks them against `head_at`, recomputed from the rows).

A store whose provenance tables were made by a locm before the chain gets one at its next write (`start`),
over its rows as they are then, in key order; until then `problems` says only that (`NOT_CHAINED`).
"""

from __future__ import annotations

import hashlib
import sqlite3

import msgspec

GENESIS = hashlib.sha256(b"locm provenance chain v1").digest()

LOG_SQL = """\
CREATE TABLE IF NOT EXISTS provenance_log (
    seq    INTEGER PRIMARY KEY,
    game   INTEGER,
    source INTEGER,
    link   BLOB NOT NULL
)"""
"""The chain's entries in the order written: a game's provenance row, a source row, or ``provenance_since``."""

META_KEY = "provenance_ledger"

NOT_CHAINED = ("its provenance rows are not chained yet (written by a locm before the provenance chain): the "
               "chain starts at the store's next write")

LISTED = 5
"""The entries `problems` names one by one; the rest are counted."""

_SOURCE_COLUMNS = "run, kind, command, file, sha256, at, trusted, signer"
_encode = msgspec.json.Encoder().encode


def since_digest(value: object) -> bytes:
    return hashlib.sha256(b"since\0" + _encode(value)).digest()


def source_digest(row: tuple[object, ...]) -> bytes:
    """A source row's digest: every column (`_SOURCE_COLUMNS`) as stored, types and all."""
    return hashlib.sha256(b"source\0" + _encode(list(row))).digest()


def game_digest(game_id: object, run: object) -> bytes:
    return hashlib.sha256(b"game\0" + _encode([game_id, run])).digest()


def link(prev: bytes, digest: bytes) -> bytes:
    return hashlib.sha256(prev + digest).digest()


def has_tables(conn: sqlite3.Connection) -> bool:
    found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
                                        "('provenance', 'provenance_sources')")}
    return len(found) == 2


def read_head(conn: sqlite3.Connection) -> tuple[int, bytes] | None:
    """The chain's ``(count, head)`` as ``locm_meta`` keeps it; None when the store has no chain."""
    row = conn.execute("SELECT value FROM locm_meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is None:
        return None
    try:
        count, head = str(row[0]).split(" ")
        return int(count), bytes.fromhex(head)
    except ValueError:
        return -1, b""  # not a value locm wrote: `problems` says so


class Writer:
    """Appends to the chain in a write transaction already begun (`start` first): `game`, `source`, then
    `close` writes the head."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.count, self.head = read_head(conn) or (0, GENESIS)
        self._rows: list[tuple[int | None, int | None, bytes]] = []

    def _add(self, game: int | None, source: int | None, digest: bytes) -> None:
        self.head = link(self.head, digest)
        self.count += 1
        self._rows.append((game, source, self.head))

    def game(self, key: int, game_id: str, source: int, run: str) -> None:
        self._add(key, source, game_digest(game_id, run))

    def source(self, key: int) -> None:
        row = self.conn.execute(f"SELECT {_SOURCE_COLUMNS} FROM provenance_sources WHERE id = ?", (key,)).fetchone()
        self._add(None, key, source_digest(row))

    def since(self) -> None:
        row = self.conn.execute("SELECT value FROM locm_meta WHERE key = 'provenance_since'").fetchone()
        self._add(None, None, since_digest(None if row is None else row[0]))

    def close(self) -> None:
        self.conn.executemany("INSERT INTO provenance_log (game, source, link) VALUES (?, ?, ?)", self._rows)
        self._rows = []
        self.conn.execute("INSERT OR REPLACE INTO locm_meta (key, value) VALUES (?, ?)",
                          (META_KEY, f"{self.count} {self.head.hex()}"))


def start(conn: sqlite3.Connection) -> None:
    """Make the chain, in the open write transaction, if the store has none: over ``provenance_since``, every
    source row by key and every game's provenance row by key, as they are (the provenance tables must be
    there)."""
    conn.execute(LOG_SQL)
    if read_head(conn) is not None:
        return
    writer = Writer(conn)
    writer.since()
    for (key,) in conn.execute("SELECT id FROM provenance_sources ORDER BY id").fetchall():
        writer.source(key)
    for key, game_id, source, run in conn.execute(
            "SELECT p.game, g.game_id, p.source, s.run FROM provenance p LEFT JOIN games g ON g.id = p.game "
            "LEFT JOIN provenance_sources s ON s.id = p.source ORDER BY p.game").fetchall():
        writer.game(key, game_id, source, run)
    writer.close()


def _entries(conn: sqlite3.Connection) -> list[tuple[int, int | None, int | None, bytes, bytes, str]]:
    """Every entry as ``(seq, game, source, stored link, digest of its rows now, what it names)``."""
    games = dict(conn.execute("SELECT id, game_id FROM games").fetchall())
    sources = {r[0]: r[1:] for r in conn.execute(f"SELECT id, {_SOURCE_COLUMNS} FROM provenance_sources")}
    since = conn.execute("SELECT value FROM locm_meta WHERE key = 'provenance_since'").fetchone()
    out = []
    for seq, game, source, stored in conn.execute("SELECT seq, game, source, link FROM provenance_log ORDER BY seq"):
        if game is None and source is None:
            digest, what = since_digest(None if since is None else since[0]), "provenance_since"
        elif game is None:
            row = sources.get(source)
            digest = source_digest(row) if row is not None else b""
            what = f"source row {source}" + (f" (run {row[0]})" if row is not None else " (deleted)")
        else:
            row = sources.get(source)
            digest = game_digest(games.get(game), row[0] if row is not None else None)
            what = f"game {games.get(game, f'key {game} (deleted)')}'s provenance"
        out.append((seq, game, source, bytes(stored) if isinstance(stored, bytes) else b"", digest, what))
    return out


def head_at(conn: sqlite3.Connection, count: int) -> bytes | None:
    """The chain's head over its first ``count`` entries, recomputed from the rows they name as they are now;
    None when it has fewer (what a signed ledger's chain must still read)."""
    if count == 0:
        return GENESIS
    try:
        entries = _entries(conn)
    except sqlite3.OperationalError:  # no chain (or no provenance tables)
        return None
    if len(entries) < count:
        return None
    head = GENESIS
    for entry in entries[:count]:
        head = link(head, entry[4])
    return head


def problems(conn: sqlite3.Connection) -> list[str]:
    """What differs between the chain and the provenance rows, one line each ([] when they agree; `NOT_CHAINED`
    alone for a store whose rows were written before the chain; [] for a store without provenance tables)."""
    if not has_tables(conn):
        return []
    try:
        head = read_head(conn)
        entries = _entries(conn) if head is not None else []
    except sqlite3.OperationalError:
        return ["the provenance chain's table does not read (dropped behind the store's back?)"]
    if head is None:
        logged = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'provenance_log'") \
            .fetchone() and conn.execute("SELECT count(*) FROM provenance_log").fetchone()[0]
        if logged:  # a chain whose head was taken out of locm_meta: not a store written before the chain
            return [f"the provenance chain's head is missing from locm_meta ({logged} entries in its table): "
                    "removed behind the store's back"]
        return [NOT_CHAINED]
    found: list[str] = []
    edited, prev = [], GENESIS
    for seq, _, _, stored, digest, what in entries:
        if link(prev, digest) != stored:
            edited.append(f"{what} (entry {seq})")
        prev = stored
    if edited:
        found.append(f"{len(edited)} provenance chain entr{'y' if len(edited) == 1 else 'ies'} no longer "
                     f"match{'es' if len(edited) == 1 else ''} the rows named (edited behind the store's back): "
                     + _names(edited))
    count, last = head
    if count != len(entries) or (entries and last != entries[-1][3]) or (not entries and last != GENESIS):
        found.append(f"the provenance chain records {count} entries with head {last.hex()[:16]}..., its table "
                     f"holds {len(entries)}: entries removed, added or rewritten behind the store's back")
    latest: dict[int, int | None] = {}
    chained_sources = set()
    for _, game, source, _, _, _ in entries:
        if game is not None:
            latest[game] = source
        elif source is not None:
            chained_sources.add(source)
    games = dict(conn.execute("SELECT id, game_id FROM games").fetchall())
    rows = dict(conn.execute("SELECT game, source FROM provenance").fetchall())
    kinds = dict(conn.execute("SELECT id, kind FROM provenance_sources").fetchall())

    def named(source: int | None) -> str:
        return f"source row {source}" + (f" ({kinds[source]})" if source in kinds else "")

    wrong = []
    for game, source in rows.items():
        if game not in latest:
            wrong.append(f"game {games.get(game, f'key {game}')}: a provenance row the chain never recorded "
                         f"({named(source)})")
        elif latest[game] != source:
            wrong.append(f"game {games.get(game, f'key {game}')}: its provenance row names {named(source)}, "
                         f"the chain {named(latest[game])}")
    for game in sorted(latest.keys() - rows.keys()):
        if game in games:
            wrong.append(f"game {games[game]}: its provenance row was deleted (the chain names "
                         f"{named(latest[game])})")
    for (key,) in conn.execute("SELECT id FROM provenance_sources ORDER BY id"):
        if key not in chained_sources:
            wrong.append(f"source row {key}: not in the chain (written behind the store's back)")
    if wrong:
        found.append(f"{len(wrong)} provenance row{'s' * (len(wrong) != 1)} not as the chain recorded "
                     f"{'them' if len(wrong) != 1 else 'it'}: " + _names(wrong))
    return found


def _names(items: list[str]) -> str:
    more = len(items) - LISTED
    return "; ".join(items[:LISTED]) + (f"; and {more} more" if more > 0 else "")


__all__ = ["GENESIS", "LOG_SQL", "META_KEY", "NOT_CHAINED", "Writer", "head_at", "problems", "start"]
