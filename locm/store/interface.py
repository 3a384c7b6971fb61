"""The event store's interface (`EventStore`, whose shared logic works on any backend) and its memory backend
(`MemoryStore`); `locm.store.eventstore` describes the whole store and gives `open_store`, `locm.store.sqlite` the
SQLite backend. A module of its own so that the SQLite backend, which builds on this interface, and the factory
that picks the backend do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Self

import msgspec

from locm.events.base import Event
from locm.events.codec import DecodeError, json_array
from locm.errors import (
    ChainError,
    CorruptStoreError,
    DuplicateGameError,
    GameNotFoundError,
    InvalidRecordError,
    StoreError,
)
from locm.store.records import (
    GENESIS,
    GameExtras,
    GameRecord,
    ImportSummary,
    LOCM,
    MatchRecord,
    PreparedGame,
    SeatExtras,
    _Prepared,
    _AccountRow,
    _ScheduleRow,
    _as_match,
    _first_bad_seq,
    _gaps,
    _inflate,
    _ledger_link,
    _lines,
    _locm,
    _parse_export,
    _verify,
    account_block,
    export_end,
    export_header,
    schedule_block,
    locm_record,
    log_hash,
    prepare_game,
    prepare_match,
    utc_timestamp,
)

if TYPE_CHECKING:
    from locm.store.hooks import Checker

DEFAULT_PATH = "locm.db"


class EventStore:
    """The store's interface. Subclasses provide the private primitives at the end of this class.

    ``checker``: what checks an import's games (`locm.store.hooks.Checker`), handed in by whoever opened the
    store (None: an import must be asked for with ``check=False``)."""

    path: str
    checker: Checker | None = None

    def append_game(self, extras: GameExtras | Mapping[str, Any], events: Sequence[Event]) -> GameRecord:
        """Store one complete game (``GameCreated`` first, ``GameEnded`` last, seqs 0..n-1) atomically."""
        return self.append_prepared(prepare_game(extras, events))

    def append_prepared(self, prepared: PreparedGame) -> GameRecord:
        """Store a game checked and chained by `prepare_game` (possibly in another process) atomically."""
        self._write([prepared])
        return prepared.record

    def append_games(self, prepared: Sequence[PreparedGame]) -> None:
        """Store several games checked by `prepare_game` in one transaction: all of them or none."""
        self._write(list(prepared))

    def append_match(self, game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Any],
                     seats: Sequence[SeatExtras] | None = None) -> MatchRecord:
        """Store one complete game of any registered game (`engine.seam.GameDef`) atomically, with each seat's
        extras (`prepare_match`); a LOCM game is stored as `append_game` stores it."""
        prepared = prepare_match(game, extras, events, seats)
        self._write([prepared])
        return _as_match(prepared.record)

    def has_game(self, game_id: str) -> bool:
        return self._match(game_id) is not None

    def stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        """A game's facts as stored with it (`locm.store.records.game_facts`; its definition's edges compute them:
        LOCM's card facts, `locm.games.locm.edges.facts`): the head hash (hex) of the game they were computed
        from, their version and their blob (`analysis.locm.packedfacts`); None if the store keeps none for it. Derived
        data: `locm.verify.checks.facts_problem` recomputes them from the events."""
        return self._stored_facts(game_id)

    def current_facts(self, game_ids: Sequence[str], version: str) -> dict[str, bytes]:
        """The stored facts' blobs of those of ``game_ids`` whose facts are of ``version`` and were computed from
        the game as it is now: its head hash, and its log's very bytes (their SHA-256, `log_hash`: a log edited
        behind the store's back is caught without inflating it). What the card report may count instead of
        folding the logs."""
        return self._current_facts(list(game_ids), version)

    def log_hashes(self, game_ids: Sequence[str]) -> dict[str, bytes]:
        """`log_hash` of each stored game's log bytes (what its facts are bound to)."""
        return {game_id: log_hash(self._log(game_id)) for game_id in game_ids}

    def match(self, game_id: str) -> MatchRecord:
        """A stored game's row, whatever its game (`GameNotFoundError` if there is none)."""
        found = self._match(game_id)
        if found is None:
            raise GameNotFoundError(game_id)
        return found

    def matches(self, game: str | None = None, ruleset: str | None = None, agent: str | None = None,
                winner: int | None = None, limit: int | None = None, *, seats: int | None = None,
                winner_agent: str | None = None, place: int | None = None,
                fields: Mapping[str, str] | None = None) -> list[MatchRecord]:
        """The rows of the stored games (of one game when ``game`` is given), in the order stored; ``agent``
        matches any seat; ``winner`` is a seat (-1: games without a winner); ``seats`` the number of players;
        ``winner_agent`` the agent in the winner's seat; ``place`` (with ``agent``) the place that agent
        finished in, 0 for the first (alone or shared), in any of its seats; ``fields`` index fields' values
        (as text: ``{"map": "octagon-8p"}``)."""
        if place is not None and agent is None:
            raise StoreError("place: a place is an agent's: give the agent too")
        if seats is None and winner_agent is None and place is None and not fields:
            return self._matches(game, ruleset, agent, winner, limit)
        found = [m for m in self._matches(game, ruleset, agent or winner_agent, winner, None)
                 if (seats is None or len(m.agents) == seats)
                 and (winner_agent is None or 0 <= m.winner < len(m.agents) and m.agents[m.winner] == winner_agent)
                 and (place is None or any(a == agent and p == place for a, p in zip(m.agents, m.places)))
                 and all(k in m.fields and _field_text(m.fields[k]) == v for k, v in (fields or {}).items())]
        return found if limit is None else found[:limit]

    def match_events(self, game_id: str) -> list[Any]:
        """A stored game's events, decoded by its own game's codec (`engine.registry`)."""
        from locm.engine.registry import get

        m = self.match(game_id)
        if m.game == LOCM:
            return self.events(game_id)
        codec = get(m.game).codec
        raw = _inflate(self.path, game_id, self._log(game_id))
        try:
            return codec.from_json_array(json_array(raw))
        except DecodeError as exc:
            raise CorruptStoreError(self.path, f"game {game_id!r}: {exc}") from None

    def _record(self, game_id: str) -> GameRecord | None:
        """A LOCM game's record (None: no such game); another game's is refused in one line."""
        m = self._match(game_id)
        if m is None:
            return None
        if m.game != LOCM:
            raise StoreError(f"{self.path}: game {game_id!r} is a {m.game} game: this reads LOCM games")
        return locm_record(m)

    def _records(self, ruleset, agent, winner, limit) -> list[GameRecord]:
        return [locm_record(m) for m in self._matches(LOCM, ruleset, agent, winner, limit)]

    def game_ids_with_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` stored game ids that start with ``prefix`` (to resolve an abbreviated id)."""
        return self._ids_with_prefix(prefix, limit)

    def ids_named(self, name: str) -> list[str]:
        """The stored game ids a user's ``name`` may mean: ``[name]`` when it is a stored id, else up to two ids
        that start with it (one: the abbreviation is unique; none or two: the caller says why not)."""
        if self.has_game(name):
            return [name]
        return self._ids_with_prefix(name, 2) if name else []

    def find(self, game_id: str) -> GameRecord | None:
        """A stored game's record, or None."""
        return self._record(game_id)

    def game(self, game_id: str) -> GameRecord:
        record = self._record(game_id)
        if record is None:
            raise GameNotFoundError(game_id)
        return record

    def games(self, ruleset: str | None = None, agent: str | None = None, winner: int | None = None,
              limit: int | None = None, *, winner_agent: str | None = None) -> list[GameRecord]:
        """Records in the order stored. ``agent`` matches either seat; ``winner`` is the seat 0 or 1;
        ``winner_agent`` the agent that won (in either seat)."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise StoreError(f"limit: expected an integer >= 0 or None, got {limit!r}")
        if winner_agent is None:
            return self._records(ruleset, agent, winner, limit)
        found = [r for r in self._records(ruleset, agent or winner_agent, winner, None)
                 if (r.agent0, r.agent1)[r.winner] == winner_agent]
        return found if limit is None else found[:limit]

    def events(self, game_id: str) -> list[Event]:
        """A game's events, decoded, in seq order."""
        raw = _inflate(self.path, game_id, self._log(game_id))
        try:
            return _locm().codec.from_json_array(json_array(raw))
        except DecodeError:
            return self._decode_lines(game_id, raw.split(b"\n"))  # names the line that does not decode

    def iter_events(self, game_ids: Iterable[str] | None = None, *,
                    types: Iterable[str] | None = None, verify: bool = False) -> Iterator[tuple[str, Event]]:
        """Stream ``(game_id, event)`` for the given games (all, in stored order, when None), each in seq
        order, optionally only events whose tag is in ``types`` (the other lines are not decoded). With
        ``verify`` each game's hash chain is checked against its record first (`ChainError`)."""
        heads = None if types is None else tuple(b'{"type":"' + t.encode() + b'"' for t in types)
        for game_id, data in self._iter_logs(None if game_ids is None else list(game_ids)):
            lines = _lines(self.path, game_id, data)
            if verify:
                self._check_chain(self.game(game_id), lines)
            if heads is not None:
                lines = [line for line in lines if line.startswith(heads)]
            for event in self._decode_lines(game_id, lines):
                yield game_id, event

    def verify_chain(self, game_id: str) -> str:
        """Recompute a game's hash chain; return its head hash (hex) or raise `ChainError` (or
        `GameNotFoundError`)."""
        return self._verified(game_id)[0].head_hash

    def verified_events(self, game_id: str) -> list[Event]:
        """`verify_chain`, then the game's events, from the one read of its log that the check made."""
        return self._decode_lines(game_id, self._verified(game_id)[1])

    def verified_match_events(self, game_id: str) -> list[Any]:
        """A stored game of any game: its chain checked against its row (`ChainError`), then its events
        decoded by its game's codec."""
        from locm.engine.registry import get

        m = self.match(game_id)
        try:
            lines = _lines(self.path, game_id, self._log(game_id))
        except CorruptStoreError as exc:
            raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
        self._check_chain(m, lines)
        try:
            return get(m.game).codec.from_json_array(json_array(b"\n".join(lines)))
        except DecodeError as exc:
            raise CorruptStoreError(self.path, f"game {game_id!r}: {exc}") from None

    def export_jsonl(self, game_ids: Iterable[str] | None, out: BinaryIO, *,
                     on_bad: Callable[[str, StoreError], None] | None = None) -> int:
        """Write games (all when ``game_ids`` is None: every registered game's, in the order stored, with the
        store's tournament schedules first and its my-card-game accounts after) to ``out`` in the export
        format; return how many games. Each game's and account's chain is verified before it is written
        (`ChainError`, `AccountStoreError`: the output then lacks its end line, so importing it is refused).
        With ``on_bad`` (salvage), a game that cannot be read or does not verify is passed to it and left out
        instead, and the file stays importable (salvage writes games only)."""
        out.write(export_header())
        games = events = schedules = accounts = account_events = 0
        whole = game_ids is None
        if game_ids is None:
            game_ids = self.readable_ids() if on_bad else [m.game_id for m in self._matches(None, None, None, None,
                                                                                            None)]
        if whole and on_bad is None:
            for key, manifest in self.schedules():
                out.write(schedule_block(key, manifest))
                schedules += 1
        for game_id in game_ids:
            try:
                block, n = self.export_game(game_id)
            except StoreError as exc:
                if on_bad is None or isinstance(exc, GameNotFoundError):
                    raise
                on_bad(game_id, exc)
                continue
            out.write(block)
            games, events = games + 1, events + n
        if whole and on_bad is None:
            from locm.store.hooks import side_logs

            for logs in side_logs():
                for name in logs.names(self):
                    lines = logs.lines(self, name)
                    out.write(account_block(name, lines, logs.hashes(lines)))
                    accounts, account_events = accounts + 1, account_events + len(lines)
        out.write(export_end(games, events, schedules, accounts, account_events))
        return games

    def export_game(self, game_id: str) -> tuple[bytes, int]:
        """One game in the export format (its record line, ``game`` for LOCM's and ``match`` for another
        game's, and its event lines, the chain verified first) and its number of events; `ChainError` or
        another `StoreError` if it does not read or verify."""
        enc = msgspec.json.encode
        m = self._match(game_id)
        if m is not None and m.game != LOCM:
            try:
                lines = _lines(self.path, game_id, self._log(game_id))
            except CorruptStoreError as exc:
                raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
            hashes = self._check_chain(m, lines)
            parts = [b'{"match":' + enc(m) + b"}\n"]
        else:
            record, lines, hashes = self._verified(game_id)
            m = record
            parts = [b'{"game":' + enc(record) + b"}\n"]
        parts += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(lines, hashes)]
        return b"".join(parts), m.n_events

    def _account_lines(self, name: str) -> list[bytes] | None:
        """A stored account's log lines (its chain checked: a game's side logs, `locm.store.hooks.SideLogs`), or
        None when there is no such account (a memory store keeps none)."""
        from locm.store.hooks import side_logs_of

        logs = side_logs_of("account")
        return logs.lines(self, name) if logs is not None and name in logs.names(self) else None

    def readable_ids(self) -> list[str]:
        """The ids of the stored games, as far as they can still be read (for salvage): from the games table,
        or, where it is damaged, from whatever of it and of the events table still reads."""
        return [r.game_id for r in self._records(None, None, None, None)]

    def integrity(self, full: bool = False) -> list[str]:
        """What SQLite finds wrong with the file (``PRAGMA quick_check``, or with ``full`` the slower
        ``integrity_check``, which also compares every index with its table): [] when nothing."""
        return []

    def ledger(self) -> tuple[int, str]:
        """The store's ledger: how many games it has recorded and its head (hex; `GENESIS` for none)."""
        count, head = self._ledger()
        return count, head.hex()

    def ledger_head_at(self, count: int) -> str | None:
        """The ledger's head (hex) over the first ``count`` games stored, None if the store holds fewer (what
        a ledger signed at ``count`` games must still read: `locm.provenance.signing.ledger_check`)."""
        entries = self._ledger_entries()
        if count > len(entries):
            return None
        prev = GENESIS
        for _, game_id, head_hash in entries[:count]:
            prev = _ledger_link(prev, game_id, head_hash)
        return prev.hex()

    def ledger_problem(self) -> str | None:
        """None if the ledger matches the stored games (in the order stored); else what differs, in one line."""
        count, head = self._ledger()
        entries = self._ledger_entries()
        prev = GENESIS
        for _, game_id, head_hash in entries[:count]:
            prev = _ledger_link(prev, game_id, head_hash)
        keys = [key for key, _, _ in entries]
        gaps = _gaps(keys)
        gap_text = f"; keys missing from the games table: {gaps}" if gaps else ""
        if len(entries) < count:
            return (f"the ledger records {count} games stored, the store holds {len(entries)}: "
                    f"{count - len(entries)} deleted{gap_text}")
        if prev != head:
            return (f"the ledger's {count} games are not the first {count} stored: a game deleted, replaced or "
                    f"edited behind the store's back{gap_text}")
        if len(entries) > count:
            extra = [game_id for _, game_id, _ in entries[count:]]
            return (f"{len(extra)} game(s) stored outside the ledger (written behind the store's back, or by a "
                    f"locm before the ledger): {', '.join(extra[:5])}{', ...' if len(extra) > 5 else ''}")
        return None

    def record_schedule(self, key: str, manifest: str) -> None:
        """Keep a tournament's schedule (its manifest: JSON text, `locm.games.locm.tournament.Schedule.manifest`) under
        ``key``; a schedule already kept is left as it is."""
        try:
            msgspec.json.decode(manifest)
        except msgspec.DecodeError:
            raise InvalidRecordError(key, "manifest", "JSON text", manifest) from None
        self._record_schedule(key, manifest, utc_timestamp())

    def schedules(self) -> list[tuple[str, str]]:
        """``(key, manifest)`` of every schedule kept, in the order recorded."""
        return self._schedules()

    def import_jsonl(self, stream: BinaryIO | Iterable[bytes], *, skip_existing: bool = False,
                     check: bool = True) -> ImportSummary:
        """Read an export file; write all its games in one transaction or, on the first wrong line, none
        (`ImportFormatError` with the line number). With ``check`` (the default) each game is also checked as
        `locm verify` checks a stored game, by the store's ``checker`` (`locm.verify.checks.Checker`: its id is what
        its content gives, its fold, re-deciding its inputs gives its events), so a forged game with its chain
        recomputed is refused at the first event the rules would not produce (without a checker: `StoreError`);
        ``check=False`` is for logs that are not games of the rules (the store's own tests)."""
        counts = [0, 0, 0]
        self._write(_parse_export(stream, self, skip_existing, counts, check, self.checker))
        return ImportSummary(*counts)

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # primitives --------------------------------------------------------------------------------------------

    def count(self) -> int:
        """The number of games."""
        raise NotImplementedError

    def count_events(self) -> int:
        """The number of events of all games."""
        raise NotImplementedError

    def _write(self, games: Iterable[_Prepared]) -> None:
        """Store every game of ``games`` or, if any error is raised while consuming it, none."""
        raise NotImplementedError

    def _match(self, game_id: str) -> MatchRecord | None:
        raise NotImplementedError

    def _matches(self, game, ruleset, agent, winner, limit) -> list[MatchRecord]:
        raise NotImplementedError

    def _ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        raise NotImplementedError

    def _log(self, game_id: str) -> bytes:
        """A game's ``logs.data``; `GameNotFoundError` if there is no such game, `CorruptStoreError` if its
        log is missing."""
        raise NotImplementedError

    def _stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        raise NotImplementedError

    def _current_facts(self, game_ids: list[str], version: str) -> dict[str, bytes]:
        found = {}
        for game_id in game_ids:
            row = self._stored_facts(game_id)
            if row is not None and row[1] == version and row[0] == self.match(game_id).head_hash:
                found[game_id] = row[2]
        return found  # (the memory backend's logs cannot be edited behind its back)

    def _iter_logs(self, game_ids: list[str] | None) -> Iterator[tuple[str, bytes]]:
        """``(game_id, data)`` of the given games (all LOCM games, in stored order, when None)."""
        raise NotImplementedError

    def _ledger(self) -> tuple[int, bytes]:
        """The ledger's length and head as stored (for a store without one: over its games)."""
        raise NotImplementedError

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        raise NotImplementedError

    def _schedules(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        """``(key, game_id, head_hash)`` of every stored game, in the order stored."""
        raise NotImplementedError

    def _verified(self, game_id: str) -> tuple[GameRecord, list[bytes], list[bytes]]:
        """A game's record, its events' JSON lines and their chained hashes, the chain checked against the
        record (`ChainError`: the log was altered, cut, lost or does not inflate)."""
        record = self.game(game_id)
        try:
            lines = _lines(self.path, game_id, self._log(game_id))
        except CorruptStoreError as exc:
            raise ChainError(game_id, -1, "a readable log", exc.reason, "log") from None
        return record, lines, self._check_chain(record, lines)

    def _check_chain(self, record: GameRecord, lines: list[bytes]) -> list[bytes]:
        """The chained hashes of a game's log lines, checked against its record (`ChainError`)."""
        game_id = record.game_id
        hashes = _verify(game_id, lines)
        if hashes[-1].hex() != record.head_hash:
            _first_bad_seq(game_id, lines)  # a line lost or moved is named; else the count or the head hash
        if len(lines) != record.n_events:
            raise ChainError(game_id, -1, record.n_events, len(lines), "event count")
        if hashes[-1].hex() != record.head_hash:
            raise ChainError(game_id, -1, record.head_hash, hashes[-1].hex())
        return hashes

    def _decode_lines(self, game_id: str, lines: list[bytes]) -> list[Event]:
        """The events of JSON lines, decoded in one call (as one JSON array)."""
        codec = _locm().codec
        try:
            return codec.from_json_array(json_array(b"\n".join(lines)))
        except DecodeError:
            for seq, line in enumerate(lines):  # find the line to name; the array decoder does not say
                try:
                    codec.from_json(line)
                except DecodeError as exc:
                    raise CorruptStoreError(self.path, f"game {game_id!r} event {seq}: {exc}") from None
            raise CorruptStoreError(self.path, f"game {game_id!r}: the log does not decode") from None


def _field_text(value: Any) -> str:
    """An index field's value as a filter compares it: text as it is, anything else as its JSON."""
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


class MemoryStore(EventStore):
    """The store in plain dicts, for tests and throw-away runs. Same behaviour as `SqliteStore`."""

    def __init__(self, checker: Checker | None = None) -> None:
        self.path = ":memory:"
        self.checker = checker
        self._games: dict[str, _Prepared] = {}
        self._ledger_state = (0, GENESIS)
        self._schedule_rows: dict[str, str] = {}

    def count(self) -> int:
        return len(self._games)

    def count_events(self) -> int:
        return sum(p.record.n_events for p in self._games.values())

    def _write(self, games: Iterable[_Prepared]) -> None:
        staged: dict[str, _Prepared] = {}
        schedules: dict[str, str] = {}
        for p in games:  # consume (and so validate) everything before changing anything
            if type(p) is _ScheduleRow:
                schedules.setdefault(p.key, p.manifest)
                continue
            if type(p) is _AccountRow:
                raise StoreError(f"{self.path}: accounts are kept in a store file (SQLite), not in memory")
            game_id = p.record.game_id
            if game_id in self._games or game_id in staged:
                raise DuplicateGameError(game_id)
            staged[game_id] = p
        count, head = self._ledger_state
        for p in staged.values():
            count, head = count + 1, _ledger_link(head, p.record.game_id, bytes.fromhex(p.record.head_hash))
        self._games.update(staged)
        self._ledger_state = (count, head)
        for key, manifest in schedules.items():
            self._schedule_rows.setdefault(key, manifest)

    def _ledger(self) -> tuple[int, bytes]:
        return self._ledger_state

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        self._schedule_rows.setdefault(key, manifest)

    def _schedules(self) -> list[tuple[str, str]]:
        return list(self._schedule_rows.items())

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        return [(k, gid, bytes.fromhex(p.record.head_hash)) for k, (gid, p) in enumerate(self._games.items(), 1)]

    def _match(self, game_id: str) -> MatchRecord | None:
        p = self._games.get(game_id)
        return None if p is None else _as_match(p.record)

    def _matches(self, game, ruleset, agent, winner, limit) -> list[MatchRecord]:
        found = [m for m in map(_as_match, (p.record for p in self._games.values()))
                 if (game is None or m.game == game) and (ruleset is None or m.ruleset == ruleset)
                 and (agent is None or agent in m.agents) and (winner is None or m.winner == winner)]
        return found if limit is None else found[:limit]

    def _ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        return [g for g in self._games if g.startswith(prefix)][:limit]

    def _log(self, game_id: str) -> bytes:
        p = self._games.get(game_id)
        if p is None:
            raise GameNotFoundError(game_id)
        return p.data

    def _stored_facts(self, game_id: str) -> tuple[str, str, bytes] | None:
        p = self._games.get(game_id)
        if p is None or p.facts is None:
            return None
        return p.record.head_hash, p.facts[0], p.facts[1]

    def _iter_logs(self, game_ids):
        if game_ids is None:
            game_ids = [g for g, p in self._games.items() if isinstance(p.record, GameRecord)]
        for game_id in game_ids:
            yield game_id, self._log(game_id)
