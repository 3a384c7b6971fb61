"""The arena's view of a store: read-only SQL over the ``games`` table (any game), fast over a million games.

The arena never writes the store: its connections open the file with SQLite's ``mode=ro`` (a write through them
fails, and they take no write lock, so tournaments keep storing beside it). A list page is one keyset query
(``id < ?  ORDER BY id DESC LIMIT n``): unfiltered, over the store's own key; filtered, over the arena's index of
the store (`locm.arena.index`, a separate file), whose keys then fetch the rows, so a filter that matches few of
a million games costs an index range, not a scan. Aggregates (standings, ratings) are computed from the index and
cached by the store's last game (``max(id)``), so they are computed again only when a game was stored since.

What they count (issue 32, item 1): the standings, the ratings and the bot pages count only the games the store may
count (`locm.store.provenance.Provenance.counted`: played here, or imported from a trusted file), the others
left out by the index's table of their keys (``u``) and named in one line (``left_out``, `left_out_note`);
``include_untrusted`` (``locm arena --include-untrusted``) counts them too. The game list shows every game.

The filters (`Filters`) are the query parameters of ``/games``, ``/api/games`` and ``/api/standings``: ``game``,
``ruleset``, ``agent`` (any seat), ``seats`` (players in the game), ``winner`` (the agent in the winner's seat),
``map`` (Skyport's index field), ``tournament`` (a schedule's key, as ``meta.schedule``). A leaderboard is a
saved set of them (`locm arena --board NAME=QUERY`).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, fields as dc_fields
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlencode

import msgspec

from locm.analysis.ratings import rate
from locm.analysis.stats import wilson
from locm.arena.index import StoreIndex
from locm.engine.errors import LocmError
from locm.store.provenance import left_out_note

PAGE = 50
"""Games on one list page."""

RATED_GAMES = 20_000
"""The newest games (of a filter) the ratings are computed over: openskill rates about 20,000 games a second
here, so a page over a million games answers in about a second the first time, then from the cache."""


class ArenaError(LocmError):
    """A store the arena cannot read, or a filter it cannot apply: one line."""


@dataclass(frozen=True)
class Filters:
    game: str | None = None
    ruleset: str | None = None
    agent: str | None = None
    seats: int | None = None
    winner: str | None = None
    map: str | None = None
    tournament: str | None = None

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> "Filters":
        """The filters among a request's query parameters (others are ignored); a bad value is an `ArenaError`."""
        values: dict[str, Any] = {}
        for f in dc_fields(cls):
            raw = params.get(f.name)
            if raw is None or raw == "":
                continue
            if len(raw) > 400:
                raise ArenaError(f"{f.name}: at most 400 characters")
            if f.name == "seats":
                if not raw.isdigit() or not 1 <= int(raw) <= 64:
                    raise ArenaError(f"seats: expected a number of players from 1 to 64, got {raw!r}")
                values[f.name] = int(raw)
            else:
                values[f.name] = raw
        return cls(**values)

    @classmethod
    def from_query(cls, query: str) -> "Filters":
        return cls.parse(dict(parse_qsl(query, keep_blank_values=False)))

    def query(self, **extra: Any) -> str:
        """These filters as a query string (with ``extra`` parameters), for links."""
        pairs = [(f.name, getattr(self, f.name)) for f in dc_fields(self) if getattr(self, f.name) is not None]
        pairs += [(k, v) for k, v in extra.items() if v is not None]
        return urlencode(pairs)

    def empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in dc_fields(self))

    def sql(self) -> tuple[str, list[Any]]:
        """The WHERE clause over the index's ``g`` table (``""`` for none) and its parameters; an agent filter
        is a join on the index's ``a`` table (`ReadModel`)."""
        where, args = [], []
        for name, column in (("game", "game"), ("ruleset", "ruleset"), ("seats", "seats"),
                             ("winner", "winner_agent"), ("map", "map"), ("tournament", "tournament")):
            value = getattr(self, name)
            if value is not None:
                where.append(f"g.{column} = ?")
                args.append(value)
        return (" AND ".join(where), args)


@dataclass(frozen=True)
class GameRow:
    """One stored game as a list shows it."""

    key: int
    game_id: str
    game: str
    ruleset: str
    seed: int | None
    agents: list[str]
    winner: int
    places: list[int]
    scores: list[float] | None
    reason: str
    turns: int
    n_events: int
    created: str
    seats: list[dict]
    fields: dict
    meta: dict

    def as_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dc_fields(self)}
        d["winner_agent"] = self.agents[self.winner] if 0 <= self.winner < len(self.agents) else None
        return d


_COLUMNS = ("id, game_id, game, ruleset, seed, agents, winner, places, scores, reason, turns, n_events, created, "
            "seats, fields, meta")


_decode = msgspec.json.Decoder()


def _json(text: str | None, default: Any) -> Any:
    if text is None:
        return default
    try:
        return _decode.decode(text)
    except (msgspec.DecodeError, TypeError):
        return default


_LIST_COLUMNS = "id, game_id, game, ruleset, agents, winner, reason, turns, created"
"""What a list page shows of a game (`ListRow`): not its seats (their stderr), fields or meta."""


@dataclass(frozen=True)
class ListRow:
    """One stored game as the list page shows it (fewer columns than `GameRow`: a page reads only these)."""

    key: int
    game_id: str
    game: str
    ruleset: str
    agents: list[str]
    winner: int
    reason: str
    turns: int
    created: str


def _list_row(r: tuple) -> ListRow:
    return ListRow(r[0], r[1], r[2], r[3], _json(r[4], []), r[5], r[6], r[7], r[8])


def _row(r: tuple) -> GameRow:
    meta = _json(r[15], {})
    return GameRow(r[0], r[1], r[2], r[3], r[4], _json(r[5], []), r[6], _json(r[7], []), _json(r[8], None), r[9],
                   r[10], r[11], r[12], _json(r[13], []), _json(r[14], {}), meta if isinstance(meta, dict) else {})


class ReadModel:
    """Read-only queries over one store file; safe to share between the server's threads (a connection each)."""

    def __init__(self, path: str | Path, index: str | Path | None = None, *, include_untrusted: bool = False) -> None:
        self.path = Path(path)
        self.include_untrusted = include_untrusted
        if not self.path.is_file():
            raise ArenaError(f"{self.path}: no such store (make one with 'locm tournament --db {self.path}')")
        self._local = threading.local()
        self._cache: dict[tuple, tuple[int, Any]] = {}
        self._lock = threading.Lock()
        self._computing = threading.Lock()
        try:
            tables = {r[0] for r in self._db().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise ArenaError(f"{self.path}: not a readable store ({exc})") from None
        if "games" not in tables:
            raise ArenaError(f"{self.path}: not a locm store (no games table)")
        self.has_schedules = "schedules" in tables
        self.index = StoreIndex(self.path, Path(index) if index else None)

    def _db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0,
                                   check_same_thread=False)
            conn.execute("PRAGMA query_only = 1")
            self._local.conn = conn
        return conn

    def last_key(self) -> int:
        """The integer key of the newest stored game (0: none): what the caches and the live feed follow."""
        return self._db().execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]

    def games(self, filters: Filters, before: int | None = None, limit: int = PAGE, *,
              listed: bool = False, counted: bool = False) -> list[GameRow]:
        """The newest games matching ``filters`` (with a key below ``before``: the next page): their keys from
        the index (one index range, however rare the match), their rows from the store. ``listed``: only what
        a list page shows (`ListRow`); ``counted``: only the games counted (`_leave_out`)."""
        columns, make = (_LIST_COLUMNS, _list_row) if listed else (_COLUMNS, _row)
        if filters.empty() and not counted:
            sql = f"SELECT {columns} FROM games {'WHERE id < ?' if before is not None else ''} ORDER BY id DESC LIMIT ?"
            return [make(r) for r in self._db().execute(sql, [*([before] if before is not None else []), limit])]
        keys = [k for (k,) in self.index.query(*self._keys(filters, before, limit, counted))]
        if not keys:
            return []
        found = {}
        for i in range(0, len(keys), 900):
            part = keys[i:i + 900]
            sql = f"SELECT {columns} FROM games WHERE id IN ({','.join('?' * len(part))})"
            found.update((r[0], make(r)) for r in self._db().execute(sql, part))
        return [found[k] for k in keys if k in found]

    def _keys(self, filters: Filters, before: int | None, limit: int, counted: bool = False) -> tuple[str, list]:
        self.index.refresh()
        where, args = filters.sql()
        leave_out = self._leave_out() if counted else None
        if leave_out is not None:
            where = f"{where} AND {leave_out}" if where else leave_out
        if before is not None:
            where = f"{where} AND g.id < ?" if where else "g.id < ?"
            args = [*args, before]
        if filters.agent is not None:
            where = f"a.agent = ? AND {where}" if where else "a.agent = ?"
            return (f"SELECT a.id FROM a JOIN g ON g.id = a.id WHERE {where} GROUP BY a.id ORDER BY a.id DESC "
                    f"LIMIT ?", [filters.agent, *args, limit])
        return f"SELECT g.id FROM g {'WHERE ' + where if where else ''} ORDER BY g.id DESC LIMIT ?", [*args, limit]

    def since(self, key: int, limit: int = 200) -> list[GameRow]:
        """Games stored after key ``key``, oldest first (the live feed)."""
        sql = f"SELECT {_COLUMNS} FROM games WHERE id > ? ORDER BY id LIMIT ?"
        return [_row(r) for r in self._db().execute(sql, (key, limit))]

    def game(self, game_id: str) -> GameRow | None:
        r = self._db().execute(f"SELECT {_COLUMNS} FROM games WHERE game_id = ?", (game_id,)).fetchone()
        return None if r is None else _row(r)

    def values(self, column: str) -> list[str]:
        """The distinct values of ``game`` or ``ruleset`` (for the filter form), cached."""
        if column not in ("game", "ruleset"):
            raise ArenaError(f"no filter values for {column!r}")
        self.index.refresh()
        return [r[0] for r in self.index.query("SELECT value FROM vals WHERE kind = ? ORDER BY value", [column])]

    def tournaments(self) -> list[dict]:
        """The schedules the store keeps (one per tournament), newest first, with what each names."""
        if not self.has_schedules:
            return []
        out = []
        for key, manifest, created in self._db().execute(
                "SELECT key, manifest, created FROM schedules ORDER BY created DESC"):
            m = _json(manifest, {})
            m = m if isinstance(m, dict) else {}
            out.append({"key": key, "created": created, "game": m.get("game", "locm"),
                        "agents": [str(a) for a in m.get("agents", [])][:64], "games": m.get("games")})
        return out

    def schedules(self) -> list[tuple[str, str]]:
        """The store's schedules: (key, manifest)."""
        if not self.has_schedules:
            return []
        return list(self._db().execute("SELECT key, manifest FROM schedules"))

    def cached(self, key: tuple, compute):
        """``compute()``, kept until a game is stored (`_cached`)."""
        return self._cached(key, compute)

    def standings(self, filters: Filters) -> dict:
        """Per agent: games, wins (place 0), win rate with its 95% Wilson interval, mean place; ratings
        (openskill) over the newest `RATED_GAMES` games of the filter. Cached until a game is stored."""
        return self._cached(("standings", filters), lambda: self._standings(filters))

    def _leave_out(self) -> str | None:
        """The condition over the index's ``g`` of a game counted when the counting readers must leave games
        out (some indexed game is not counted, and ``include_untrusted`` is not given); None when they need not
        (the index refreshed). ``u`` is looked up only from its smallest key on (the games not counted are
        mostly the newest: imported after the store's own)."""
        self.index.refresh()
        first = None if self.include_untrusted else self.index.uncounted()
        return None if first is None else f"(g.id < {int(first)} OR g.id NOT IN (SELECT id FROM u))"

    def left_out(self, filters: Filters) -> dict[str, int]:
        """How many of the games matching ``filters`` the store may not count, by why (as
        `locm.store.interface.EventStore.left_out`): from the index's ``u``, the few keys it holds."""
        self.index.refresh()
        where, args = filters.sql()
        if filters.agent is not None:  # a seek of a's key (agent, id) per key of u
            where = f"{where + ' AND ' if where else ''}EXISTS (SELECT 1 FROM a AS mine WHERE mine.agent = ? AND " \
                    "mine.id = g.id)"
            args = [*args, filters.agent]
        out: dict[str, int] = {}
        for source, n in self.index.query(f"SELECT u.source, count(*) FROM u CROSS JOIN g ON g.id = u.id "
                                          f"{'WHERE ' + where if where else ''} GROUP BY u.source", args):
            why = self.index.scope.kind_of(source)
            out[why] = out.get(why, 0) + n
        return out

    def left_out_note(self, filters: Filters) -> str | None:
        """The one line about the games matching ``filters`` not counted (or counted though untrusted)."""
        return left_out_note(self.left_out(filters), self.include_untrusted)

    def _standings(self, filters: Filters) -> dict:
        leave_out = self._leave_out()
        where, args = filters.sql()
        if leave_out is not None:
            where = f"{where} AND {leave_out}" if where else leave_out
        if filters.agent is not None:
            where = f"{where + ' AND ' if where else ''}g.id IN (SELECT id FROM a AS mine WHERE mine.agent = ?)"
            args = [*args, filters.agent]
        sql = ("SELECT a.agent, count(*), sum(a.place = 0), avg(a.place) FROM a JOIN g ON g.id = a.id "
               f"{'WHERE ' + where if where else ''} GROUP BY a.agent ORDER BY 3 DESC, 1")
        rows = []
        for agent, games, wins, mean_place in self.index.query(sql, args):
            lo, hi = wilson(wins, games)
            rate_ = wins / games if games else 0.0
            rows.append({"agent": agent, "games": games, "wins": wins, "rate": rate_,  # the interval holds the
                         "low": min(lo, rate_), "high": max(hi, rate_),  # rate (not lost to rounding at 0 or 1)
                         "mean_place": (mean_place or 0.0) + 1.0})
        keys_sql, keys_args = self._keys(filters, None, RATED_GAMES, counted=True)
        # a outer, top looked up by its automatic index: with an agent filter SQLite otherwise chose top outer and
        # scanned a for each of its games (on a million games, 0.4 s a rated game: hours; one scan of a now, 1.4 s)
        seats = self.index.query(f"WITH top(id) AS ({keys_sql}) SELECT a.id, a.agent, a.place FROM a CROSS JOIN top "
                                 "ON top.id = a.id ORDER BY a.id, a.seat", keys_args)
        games: dict[int, list[tuple[str, int]]] = {}
        for key, agent, place in seats:
            games.setdefault(key, []).append((agent, place))
        rankings = [g for g in games.values() if len({a for a, _ in g}) == len(g) and all(p is not None for _, p in g)]
        agents = sorted({a for r in rankings for a, _ in r})
        ratings = sorted((r.as_dict() for r in rate(rankings, agents)), key=lambda d: -d["mu"]) if agents else []
        return {"rows": rows, "ratings": ratings, "rated_games": len(rankings), "as_of": self.last_key(),
                "left_out": self.left_out(filters), "left_out_note": self.left_out_note(filters),
                "counted_only": not self.include_untrusted}

    def bot(self, agent: str, limit: int = 500) -> dict:
        """One agent's page: its versions (the ids it was stored under that share its name), its newest counted
        games' think times and errors, and stderr excerpts (as stored: the page escapes them); the line about
        its games not counted."""
        games = self.games(Filters(agent=agent), limit=limit, counted=True)
        points, excerpts, errors = [], [], 0
        by_turn: list[list[float]] = []  # each turn number's think times over the games (meta think_turn_ms)
        for g in reversed(games):
            for seat, name in enumerate(g.agents):
                if name != agent or seat >= len(g.seats):
                    continue
                s = g.seats[seat] if isinstance(g.seats[seat], dict) else {}
                think_max = g.meta.get("think_max_ms")
                peak = think_max[seat] if isinstance(think_max, list) and seat < len(think_max) else None
                points.append({"game_id": g.game_id, "mean_ms": s.get("think_ms"), "max_ms": peak})
                turns = g.meta.get("think_turn_ms")
                turns = turns[seat] if isinstance(turns, list) and seat < len(turns) else None
                for k, ms in enumerate(turns[:500] if isinstance(turns, list) else ()):
                    if isinstance(ms, (int, float)) and not isinstance(ms, bool) and 0 <= ms < 1e9:
                        while len(by_turn) <= k:
                            by_turn.append([])
                        by_turn[k].append(float(ms))
                if s.get("error") or s.get("timeout"):
                    errors += 1
                if s.get("stderr") and len(excerpts) < 20:
                    excerpts.append({"game_id": g.game_id, "seat": seat, "stderr": str(s["stderr"])[-2000:]})
        turn_points = [{"turn": k + 1, "games": len(v), "mean_ms": round(sum(v) / len(v), 3), "max_ms": max(v)}
                       for k, v in enumerate(by_turn) if v]
        return {"agent": agent, "games": len(games), "errors": errors, "think": points, "by_turn": turn_points,
                "stderr": excerpts, "counted_only": not self.include_untrusted, "left_out_note": self.cached(("left out", agent),
                                                                 lambda: self.left_out_note(Filters(agent=agent))),
                "versions": sorted({a for g in games for a in g.agents if a.split("@")[0] == agent.split("@")[0]})}

    def _cached(self, key: tuple, compute):
        """``compute()``, kept until a game is stored; one computation at a time (fifty clients asking for the
        same standings at once wait for the first one's answer instead of each computing it)."""
        last = self.last_key()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and hit[0] == last:
                return hit[1]
        with self._computing:
            with self._lock:
                hit = self._cache.get(key)
                if hit is not None and hit[0] == last:
                    return hit[1]
            value = compute()
        with self._lock:
            if len(self._cache) > 256:
                self._cache.clear()
            self._cache[key] = (last, value)
        return value


def wait_for_new(model: ReadModel, key: int, timeout: float, poll: float = 0.5) -> int:
    """Block until a game with a key above ``key`` is stored or ``timeout`` passes; the newest key then."""
    deadline = time.monotonic() + timeout
    while True:
        last = model.last_key()
        if last > key or time.monotonic() >= deadline:
            return last
        time.sleep(poll)
