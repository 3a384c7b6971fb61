"""The arena's view of a store: read-only SQL over the ``games`` table (any game), fast over a million games.

The arena never writes: its connections open the file with SQLite's ``mode=ro`` (a write through them fails,
and they take no write lock, so tournaments keep storing beside it). A list page is one keyset query
(``id < ?  ORDER BY id DESC LIMIT n``), which reads only the rows it shows, however large the store; a page's
filters are plain columns or one JSON lookup per row read. Aggregates (standings, ratings) are cached by the
store's last game (``max(id)``), so they are computed again only when a game was stored since.

The filters (`Filters`) are the query parameters of ``/games``, ``/api/games`` and ``/api/standings``: ``game``,
``ruleset``, ``agent`` (any seat), ``seats`` (players in the game), ``winner`` (the agent in the winner's seat),
``map`` (Skyport's index field), ``tournament`` (a schedule's key, as ``meta.schedule``). A leaderboard is a
saved set of them (`locm arena --board NAME=QUERY`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, fields as dc_fields
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlencode

from locm.analysis.ratings import rate
from locm.analysis.stats import wilson
from locm.engine.errors import LocmError

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

    def sql(self) -> tuple[str, list[Any]]:
        """The WHERE clause (``""`` for none) and its parameters."""
        where, args = [], []
        for column in ("game", "ruleset"):
            value = getattr(self, column)
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        if self.agent is not None:
            where.append("EXISTS (SELECT 1 FROM json_each(games.agents) WHERE value = ?)")
            args.append(self.agent)
        if self.seats is not None:
            where.append("json_array_length(agents) = ?")
            args.append(self.seats)
        if self.winner is not None:
            where.append("winner >= 0 AND json_extract(agents, '$[' || winner || ']') = ?")
            args.append(self.winner)
        if self.map is not None:
            where.append("json_extract(fields, '$.map') = ?")
            args.append(self.map)
        if self.tournament is not None:
            where.append("json_extract(meta, '$.schedule') = ?")
            args.append(self.tournament)
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


def _json(text: str | None, default: Any) -> Any:
    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def _row(r: tuple) -> GameRow:
    meta = _json(r[15], {})
    return GameRow(r[0], r[1], r[2], r[3], r[4], _json(r[5], []), r[6], _json(r[7], []), _json(r[8], None), r[9],
                   r[10], r[11], r[12], _json(r[13], []), _json(r[14], {}), meta if isinstance(meta, dict) else {})


class ReadModel:
    """Read-only queries over one store file; safe to share between the server's threads (a connection each)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ArenaError(f"{self.path}: no such store (make one with 'locm tournament --db {self.path}')")
        self._local = threading.local()
        self._cache: dict[tuple, tuple[int, Any]] = {}
        self._lock = threading.Lock()
        try:
            tables = {r[0] for r in self._db().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise ArenaError(f"{self.path}: not a readable store ({exc})") from None
        if "games" not in tables:
            raise ArenaError(f"{self.path}: not a locm store (no games table)")
        self.has_schedules = "schedules" in tables

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

    def games(self, filters: Filters, before: int | None = None, limit: int = PAGE) -> list[GameRow]:
        """The newest games matching ``filters`` (with a key below ``before``: the next page)."""
        where, args = filters.sql()
        if before is not None:
            where = f"{where} AND id < ?" if where else "id < ?"
            args = [*args, before]
        sql = f"SELECT {_COLUMNS} FROM games {'WHERE ' + where if where else ''} ORDER BY id DESC LIMIT ?"
        return [_row(r) for r in self._db().execute(sql, [*args, limit])]

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
        return self._cached(("values", column), lambda: [r[0] for r in self._db().execute(
            f"SELECT DISTINCT {column} FROM games ORDER BY 1")])

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

    def standings(self, filters: Filters) -> dict:
        """Per agent: games, wins (place 0), win rate with its 95% Wilson interval, mean place; ratings
        (openskill) over the newest `RATED_GAMES` games of the filter. Cached until a game is stored."""
        return self._cached(("standings", filters), lambda: self._standings(filters))

    def _standings(self, filters: Filters) -> dict:
        where, args = filters.sql()
        sql = ("SELECT a.value, count(*), sum(p.value = 0), avg(p.value), sum(g.winner < 0) "
               "FROM games g, json_each(g.agents) a JOIN json_each(g.places) p ON p.key = a.key "
               f"{'WHERE ' + where.replace('games.', 'g.') if where else ''} GROUP BY a.value ORDER BY 3 DESC")
        rows = []
        for agent, games, wins, mean_place, _ in self._db().execute(sql, args):
            lo, hi = wilson(wins, games)
            rate_ = wins / games if games else 0.0
            rows.append({"agent": agent, "games": games, "wins": wins, "rate": rate_,  # the interval holds the
                         "low": min(lo, rate_), "high": max(hi, rate_),  # rate (not lost to rounding at 0 or 1)
                         "mean_place": (mean_place or 0.0) + 1.0})
        recent = self.games(filters, limit=RATED_GAMES)
        rankings = [list(zip(g.agents, g.places)) for g in reversed(recent)
                    if len(set(g.agents)) == len(g.agents) and len(g.places) == len(g.agents)]
        agents = sorted({a for r in rankings for a, _ in r})
        ratings = sorted((r.as_dict() for r in rate(rankings, agents)), key=lambda d: -d["mu"]) if agents else []
        return {"rows": rows, "ratings": ratings, "rated_games": len(rankings), "as_of": self.last_key()}

    def bot(self, agent: str, limit: int = 500) -> dict:
        """One agent's page: its versions (the ids it was stored under that share its name), its newest games'
        think times and errors, and stderr excerpts (as stored: the page escapes them)."""
        games = self.games(Filters(agent=agent), limit=limit)
        points, excerpts, errors = [], [], 0
        for g in reversed(games):
            for seat, name in enumerate(g.agents):
                if name != agent or seat >= len(g.seats):
                    continue
                s = g.seats[seat] if isinstance(g.seats[seat], dict) else {}
                think_max = g.meta.get("think_max_ms")
                peak = think_max[seat] if isinstance(think_max, list) and seat < len(think_max) else None
                points.append({"game_id": g.game_id, "mean_ms": s.get("think_ms"), "max_ms": peak})
                if s.get("error") or s.get("timeout"):
                    errors += 1
                if s.get("stderr") and len(excerpts) < 20:
                    excerpts.append({"game_id": g.game_id, "seat": seat, "stderr": str(s["stderr"])[-2000:]})
        return {"agent": agent, "games": len(games), "errors": errors, "think": points, "stderr": excerpts,
                "versions": sorted({a for g in games for a in g.agents if a.split("@")[0] == agent.split("@")[0]})}

    def _cached(self, key: tuple, compute):
        last = self.last_key()
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
