"""The event store's interface (`EventStore`, whose shared logic works on any backend) and its memory backend
(`MemoryStore`); `locm.store.eventstore` describes the whole store and gives `open_store`, `locm.store.sqlite` the
SQLite backend. A module of its own so that the SQLite backend, which builds on this interface, and the factory
that picks the backend do not import each other.

Over 450 lines for one reason: the interface's shared logic (reads, verification, the ledger, imports and each
game's provenance) and the memory backend, which implements each of its primitives and which the shared tests
run beside SQLite's; split, the memory backend would be a second module that imports every private helper of
this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Self

import msgspec

from locm.events.codec import DecodeError, json_array
from locm.errors import (
    ChainError,
    CorruptStoreError,
    DuplicateGameError,
    GameNotFoundError,
    InvalidRecordError,
    StoreError,
)
from locm.store.export import ImportSummary, export_store, game_block, parse_export
from locm.store.provenance import Provenance, Source, imported_source, new_run, played_source
from locm.store.records import (
    GENESIS,
    GameExtras,
    GameRecord,
    PreparedGame,
    _AccountRow,
    _KnownGame,
    _Prepared,
    _ScheduleRow,
    _first_bad_seq,
    _gaps,
    _ledger_link,
    _lines,
    _verify,
    log_hash,
    prepare_game,
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
    _run: str | None = None
    _run_source: Source | None = None

    @property
    def run(self) -> str:
        """This writer's run id: the games it stores without another `Source` are recorded as played by it."""
        if self._run is None:
            self._run = new_run()
        return self._run

    def name_run(self, command: str) -> str:
        """Say what this writer's run is (``locm tournament ...``), before it stores a game; its run id."""
        self._run_source = played_source(self.run, utc_timestamp(), command)
        return self.run

    def played(self) -> Source:
        """The `Source` of the games this writer plays (`locm.store.provenance`)."""
        if self._run_source is None:
            self._run_source = played_source(self.run, utc_timestamp())
        return self._run_source

    def append_game(self, game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Any], *,
                    source: Source | None = None) -> GameRecord:
        """Store one complete game of ``game`` (`engine.seam.GameDef`: its created event first, its end event last,
        seqs 0..n-1) atomically, checked and chained by `prepare_game`. ``source``: how it came in (default:
        played by this writer's run, `played`)."""
        return self.append_prepared(prepare_game(game, extras, events), source=source)

    def append_prepared(self, prepared: PreparedGame, *, source: Source | None = None) -> GameRecord:
        """Store a game checked and chained by `prepare_game` (possibly in another process) atomically."""
        self.append_games([prepared], source=source)
        return prepared.record

    def append_games(self, prepared: Sequence[PreparedGame], *, source: Source | None = None) -> None:
        """Store several games checked by `prepare_game` in one transaction: all of them or none."""
        if source is None:  # the backend's default: played by this writer's run
            self._write(list(prepared))
        else:
            self._write(list(prepared), source)

    def provenance(self, game_id: str) -> Provenance:
        """How a stored game came into this store (`locm.store.provenance.Provenance`; `GameNotFoundError`)."""
        found = self._provenances([game_id])
        if game_id not in found:
            raise GameNotFoundError(game_id)
        return found[game_id]

    def provenances(self, game_ids: Sequence[str] | None = None) -> dict[str, Provenance]:
        """The provenance of the given stored games (all when None), by id, in the order stored."""
        return self._provenances(None if game_ids is None else list(game_ids))

    def has_game(self, game_id: str) -> bool:
        return self._row(game_id) is not None

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
        """A stored game's record, whatever its game, or None."""
        return self._row(game_id)

    def game(self, game_id: str) -> GameRecord:
        """A stored game's record, whatever its game (`GameNotFoundError` if there is none)."""
        found = self._row(game_id)
        if found is None:
            raise GameNotFoundError(game_id)
        return found

    def games(self, ruleset: str | None = None, agent: str | None = None, winner: int | None = None,
              limit: int | None = None, *, game: str | None = None, seats: int | None = None,
              winner_agent: str | None = None, place: int | None = None,
              fields: Mapping[str, str] | None = None, counted: bool = False) -> list[GameRecord]:
        """The records of the stored games (of one game when ``game``, its registered name, is given), in the
        order stored; ``agent`` matches any seat; ``winner`` is a seat (-1: games without a winner); ``seats``
        the number of players; ``winner_agent`` the agent in the winner's seat; ``place`` (with ``agent``) the
        place that agent finished in, 0 for the first (alone or shared), in any of its seats; ``fields`` index
        fields' values (as text: ``{"map": "octagon-8p"}``); ``counted``: only the games a result may count
        (`locm.store.provenance.Provenance.counted`; `left_out` says how many others)."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise StoreError(f"limit: expected an integer >= 0 or None, got {limit!r}")
        if place is not None and agent is None:
            raise StoreError("place: a place is an agent's: give the agent too")
        if seats is None and winner_agent is None and place is None and not fields:
            return self._rows(game, ruleset, agent, winner, limit, counted)
        found = [m for m in self._rows(game, ruleset, agent or winner_agent, winner, None, counted)
                 if (seats is None or len(m.agents) == seats)
                 and (winner_agent is None or 0 <= m.winner < len(m.agents) and m.agents[m.winner] == winner_agent)
                 and (place is None or any(a == agent and p == place for a, p in zip(m.agents, m.places)))
                 and all(k in m.fields and _field_text(m.fields[k]) == v for k, v in (fields or {}).items())]
        return found if limit is None else found[:limit]

    def left_out(self, game: str | None = None, ruleset: str | None = None,
                 agent: str | None = None) -> dict[str, int]:
        """How many stored games (of ``game``, of ``ruleset``, with ``agent`` in a seat, when given) a result may not count
        (`games`' ``counted``), by why: ``imported`` (untrusted) or ``unrecorded`` (no provenance row); the words
        a reader prints are `locm.store.provenance.left_out_note`'s."""
        ids = {m.game_id for m in self._rows(game, ruleset, agent, None, None)}
        out: dict[str, int] = {}
        for came in self._provenances(list(ids)).values():
            if not came.counted:
                why = "imported" if came.kind == "imported" else "unrecorded"
                out[why] = out.get(why, 0) + 1
        return out

    def events(self, game_id: str) -> list[Any]:
        """A stored game's events, decoded by its own game's codec (`engine.registry`), in seq order."""
        game = self.game(game_id).game
        return self._decode_lines(game_id, game, _lines(self.path, game_id, self._log(game_id)))

    def iter_events(self, game_ids: Iterable[str] | None = None, *,
                    types: Iterable[str] | None = None, verify: bool = False) -> Iterator[tuple[str, Any]]:
        """Stream ``(game_id, event)`` for the given games (all, in stored order, when None), each in seq
        order and decoded by its game's codec, optionally only events whose tag is in ``types`` (the other lines
        are not decoded). With ``verify`` each game's hash chain is checked against its record first
        (`ChainError`)."""
        heads = None if types is None else tuple(b'{"type":"' + t.encode() + b'"' for t in types)
        for game_id, game, data in self._iter_logs(None if game_ids is None else list(game_ids)):
            lines = _lines(self.path, game_id, data)
            if verify:
                self._check_chain(self.game(game_id), lines)
            if heads is not None:
                lines = [line for line in lines if line.startswith(heads)]
            for event in self._decode_lines(game_id, game, lines):
                yield game_id, event

    def verify_chain(self, game_id: str) -> str:
        """Recompute a game's hash chain; return its head hash (hex) or raise `ChainError` (or
        `GameNotFoundError`)."""
        return self._verified(game_id)[0].head_hash

    def verified_events(self, game_id: str) -> list[Any]:
        """`verify_chain`, then the game's events (decoded by its game's codec), from the one read of its log
        that the check made."""
        return self.verified_log(game_id)[0]

    def verified_log(self, game_id: str) -> tuple[list[Any], list[bytes], bytes]:
        """`verified_events`, the JSON lines, as stored, that they were decoded from, and the last hash of their
        chain (checked: the record's)."""
        record, lines, hashes = self._verified(game_id)
        return self._decode_lines(game_id, record.game, lines), lines, hashes[-1]

    def export_jsonl(self, game_ids: Iterable[str] | None, out: BinaryIO, *,
                     on_bad: Callable[[str, StoreError], None] | None = None) -> int:
        """Write games (all when ``game_ids`` is None: every registered game's, in the order stored, with the
        store's tournament schedules first and its side logs, my-card-game's accounts, after) to ``out`` in the
        export format (`locm.store.export`); return how many games. Each game's and account's chain is verified
        before it is written (`ChainError`, `AccountStoreError`: the output then lacks its end line, so
        importing it is refused). With ``on_bad`` (salvage), a game that cannot be read or does not verify is
        passed to it and left out instead, and the file stays importable (salvage writes games only)."""
        return export_store(self, game_ids, out, on_bad)

    def export_game(self, game_id: str) -> tuple[bytes, int]:
        """One game in the export format (its record line and its event lines, the chain verified first) and
        its number of events; `ChainError` or another `StoreError` if it does not read or verify."""
        record, lines, hashes = self._verified(game_id)
        return game_block(record, lines, hashes), record.n_events

    def _account_lines(self, name: str) -> list[bytes] | None:
        """A stored account's log lines (its chain checked: a game's side logs, `locm.store.hooks.SideLogs`), or
        None when there is no such account (a memory store keeps none)."""
        from locm.store.hooks import side_logs_of

        logs = side_logs_of("account")
        return logs.lines(self, name) if logs is not None and name in logs.names(self) else None

    def readable_ids(self) -> list[str]:
        """The ids of the stored games, as far as they can still be read (for salvage): from the games table,
        or, where it is damaged, from whatever of it and of the events table still reads."""
        return [r.game_id for r in self._rows(None, None, None, None, None)]

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

    def provenance_ledger(self) -> tuple[int, str] | None:
        """The provenance chain's length and head (hex; `locm.store.provchain`), None when the store keeps none
        (a store in memory, whose rows nobody edits behind its back)."""
        return None

    def provenance_head_at(self, count: int) -> str | None:
        """The provenance chain's head over its first ``count`` entries, recomputed from the rows (None: fewer)."""
        return None

    def provenance_problems(self) -> list[str]:
        """What differs between the provenance rows and their chain, a line each ([] when nothing)."""
        return []

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
                     check: bool = True, source: Source | None = None) -> ImportSummary:
        """Read an export file; write all its games in one transaction or, on the first wrong line, none
        (`ImportFormatError` with the line number). With ``check`` (the default) each game is also checked as
        `locm verify` checks a stored game, by the store's ``checker`` (`locm.verify.checks.Checker`: its id is what
        its content gives, its fold, re-deciding its inputs gives its events), so a forged game with its chain
        recomputed is refused at the first event the rules would not produce (without a checker: `StoreError`);
        ``check=False`` is for logs that are not games of the rules (the store's own tests).

        ``source``: the import's `Source` (default: an untrusted import of ``<stream>``); its ``sha256`` is that
        of the bytes read, hashed as they are read, so that what is recorded is what was imported (a trusted
        source's ``sha256``, the signed file's, must be it: else nothing is stored)."""
        counts = [0, 0, 0]
        base = source or imported_source("<stream>", at=utc_timestamp())
        hashing = _Hashing(stream)

        def digest() -> str:
            found = hashing.hexdigest()
            if base.trusted and base.sha256 and found != base.sha256:
                raise StoreError(f"{base.file}: the bytes imported are not the bytes whose signature was checked "
                                 f"(sha256 {found[:16]}..., signed {base.sha256[:16]}...): the file changed; "
                                 "nothing was stored")
            return found

        self._write(parse_export(hashing.lines, self, skip_existing, counts, check, self.checker), base, digest)
        return ImportSummary(*counts)

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # primitives --------------------------------------------------------------------------------------------

    def _write(self, games: Iterable[Any], source: Source | None = None,
               digest: Callable[[], str] | None = None) -> None:
        """Store every game of ``games`` (and an import's schedule and account rows) or, if any error is raised
        while consuming it, none; each game's provenance is ``source``, its ``sha256`` what ``digest()`` gives
        once every game has been read (an import's file). A trusted ``source`` takes over the games an untrusted
        import stored that it holds identically (`_KnownGame`)."""
        raise NotImplementedError

    def _provenances(self, game_ids: list[str] | None) -> dict[str, Provenance]:
        raise NotImplementedError

    def count(self) -> int:
        """The number of games."""
        raise NotImplementedError

    def count_events(self) -> int:
        """The number of events of all games."""
        raise NotImplementedError

    def _row(self, game_id: str) -> GameRecord | None:
        raise NotImplementedError

    def _rows(self, game, ruleset, agent, winner, limit, counted: bool = False) -> list[GameRecord]:
        """``counted``: only the games `Provenance.counted` takes."""
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
            if row is not None and row[1] == version and row[0] == self.game(game_id).head_hash:
                found[game_id] = row[2]
        return found  # (the memory backend's logs cannot be edited behind its back)

    def _iter_logs(self, game_ids: list[str] | None) -> Iterator[tuple[str, str, bytes]]:
        """``(game_id, game, data)`` of the given games (all, in stored order, when None)."""
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

    def _decode_lines(self, game_id: str, game: str, lines: list[bytes]) -> list[Any]:
        """The events of JSON lines of a game of ``game`` (its registered name), decoded by its codec in one
        call (as one JSON array)."""
        from locm.engine.registry import get

        codec = get(game).codec
        try:
            return codec.from_json_array(json_array(b"\n".join(lines)))
        except DecodeError:
            for seq, line in enumerate(lines):  # find the line to name; the array decoder does not say
                try:
                    codec.from_json(line)
                except DecodeError as exc:
                    raise CorruptStoreError(self.path, f"game {game_id!r} event {seq}: {exc}") from None
            raise CorruptStoreError(self.path, f"game {game_id!r}: the log does not decode") from None


class _Hashing:
    """A binary stream (or an iterable of lines) whose bytes are hashed (SHA-256) as they are read: ``lines``
    is what the reader reads (`events.codec.bounded_lines` takes either)."""

    def __init__(self, stream: BinaryIO | Iterable[bytes]) -> None:
        import hashlib

        self._stream, self._sha = stream, hashlib.sha256()
        self.lines = self if getattr(stream, "readline", None) is not None else self._iterate()

    def readline(self, limit: int = -1) -> bytes:
        line = self._stream.readline(limit)
        self._sha.update(line)
        return line

    def _iterate(self) -> Iterator[bytes]:
        for line in self._stream:
            self._sha.update(line if isinstance(line, bytes) else line.encode())
            yield line

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


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
        self._sources: dict[str, Source] = {}

    def count(self) -> int:
        return len(self._games)

    def count_events(self) -> int:
        return sum(p.record.n_events for p in self._games.values())

    def _write(self, games: Iterable[_Prepared], source: Source | None = None,
               digest: Callable[[], str] | None = None) -> None:
        staged: dict[str, _Prepared] = {}
        schedules: dict[str, str] = {}
        known: list[str] = []
        for p in games:  # consume (and so validate) everything before changing anything
            if type(p) is _ScheduleRow:
                schedules.setdefault(p.key, p.manifest)
                continue
            if type(p) is _KnownGame:
                known.append(p.game_id)
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
        source = source or self.played()
        came = source if digest is None else msgspec.structs.replace(source, sha256=digest())
        self._games.update(staged)
        self._sources.update(dict.fromkeys(staged, came))
        self._sources.update(dict.fromkeys([g for g in known if came.trusted and self._sources[g].kind == "imported"
                                            and not self._sources[g].trusted], came))
        self._ledger_state = (count, head)
        for key, manifest in schedules.items():
            self._schedule_rows.setdefault(key, manifest)

    def _ledger(self) -> tuple[int, bytes]:
        return self._ledger_state

    def _provenances(self, game_ids: list[str] | None) -> dict[str, Provenance]:
        ids = self._games if game_ids is None else [g for g in game_ids if g in self._games]
        return {g: Provenance(kind=self._sources[g].kind, source=self._sources[g]) for g in ids}

    def _record_schedule(self, key: str, manifest: str, created: str) -> None:
        self._schedule_rows.setdefault(key, manifest)

    def _schedules(self) -> list[tuple[str, str]]:
        return list(self._schedule_rows.items())

    def _ledger_entries(self) -> list[tuple[int, str, bytes]]:
        return [(k, gid, bytes.fromhex(p.record.head_hash)) for k, (gid, p) in enumerate(self._games.items(), 1)]

    def _row(self, game_id: str) -> GameRecord | None:
        p = self._games.get(game_id)
        return None if p is None else p.record

    def _rows(self, game, ruleset, agent, winner, limit, counted: bool = False) -> list[GameRecord]:
        came = self._provenances(None) if counted else {}
        found = [m for m in (p.record for p in self._games.values())
                 if (game is None or m.game == game) and (ruleset is None or m.ruleset == ruleset)
                 and (agent is None or agent in m.agents) and (winner is None or m.winner == winner)
                 and (not counted or came[m.game_id].counted)]
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
        for game_id in self._games if game_ids is None else game_ids:
            yield game_id, self.game(game_id).game, self._log(game_id)
