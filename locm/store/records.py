"""The event store's mapper (eventsourcing's split: mapper, recorder, backends): what a stored game is and how
a game's events become one. The records (`GameRecord`, LOCM's; `MatchRecord`, any game's; the extras by seat),
the checks of a log before it is stored and its hash chain (`prepare_game`, `prepare_match`), the compressed
log (`pack_log`), the ledger's links, and the export format (its lines, `_parse_export`). Nothing here opens a
file or a database: `locm.store.eventstore` (the interface, the memory backend) and `locm.store.sqlite` (the SQLite
backend) do. The whole layout is described in `locm.store.eventstore`'s docstring.

The mapper names no game: a game's events are decoded and encoded by its definition's codec
(`engine.registry`), LOCM's record (`GameRecord`, the columns of schema 2) is read from the events its
definition's ``created`` and ``ended`` types give, and what a game keeps beside its games (LOCM's card facts,
my-card-game's accounts) comes from the module its definition names (`locm.store.hooks`). The checks of an
import are the caller's (`locm.store.hooks.Checker`, handed to `_parse_export`).
"""

from __future__ import annotations

import functools
import hashlib
import math
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from locm.events.base import Event
from locm.events.codec import DECODE_ERRORS, MAX_EVENTS, MAX_LINE, DecodeError, bounded_lines
from locm.errors import ChainError, CorruptStoreError, GameLogError, ImportFormatError, InvalidRecordError, StoreError

if TYPE_CHECKING:
    from locm.store.eventstore import EventStore
    from locm.store.hooks import Checker


STORE_FORMAT = "locm-event-store"

STORE_SCHEMA_VERSION = 3

OLD_SCHEMAS = (1, 2)
"""Store schemas that `locm migrate` converts to this one."""


EXPORT_VERSION = 1

EXPORT_STORE_SCHEMA = 2
"""The ``store_schema`` an export file's header says: the schema whose game lines it holds. Schema 3 changed how
a game is kept in the file (a game column, index fields as JSON), not a LOCM game's record or events, so its
export lines are those of schema 2, byte for byte, header included."""


EXPORT_STORE_SCHEMAS = (1, 2)
"""The ``store_schema`` values an export file's header may hold (the game lines are the same for both)."""


LOCM = "locm"
"""The name of LOCM in the ``game`` column (`engine.registry`)."""


LOG_LEVEL = 1
"""The zlib level of the stored logs (see the module docstring for the measurements behind it)."""


GENESIS = bytes(32)

STDERR_LIMIT = 8192

# Fields of GameCreated copied into the games table under the same name.
CREATED_FIELDS = (
    "ruleset", "ruleset_version", "seed", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
    "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
)


@functools.cache
def _locm():
    """LOCM's definition (`engine.registry`): its codec and the types that open and close its logs."""
    from locm.engine.registry import get

    return get(LOCM)


@functools.cache
def _locm_tags() -> dict[type, str]:
    """Each event class of LOCM's union, with its tag."""
    return {cls: cls.__struct_config__.tag for cls in _locm().codec.types}


def event_schema() -> int:
    """The schema of LOCM's events (its created event's ``schema_version``): what an export file's header says."""
    created = _locm().created
    fields = {f.name: f.default for f in msgspec.structs.fields(created)}
    return fields["schema_version"]


class GameExtras(msgspec.Struct, frozen=True, kw_only=True):
    """What the caller knows about a game beyond its events (the tournament runner fills the optional part).

    ``created``: an aware datetime or an ISO-8601 string with an offset; None means now.
    """

    game_id: str
    created: datetime | str | None = None
    stderr0: str = ""
    stderr1: str = ""
    think_ms0: float | None = None
    think_ms1: float | None = None
    error0: bool = False
    error1: bool = False
    timeout0: bool = False
    timeout1: bool = False
    meta: str = "{}"


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One row of the ``games`` table, field for column (``head_hash`` as hex here, a BLOB in SQLite)."""

    game_id: str
    ruleset: str
    ruleset_version: str
    seed: int | None
    shuffle_player0_seed: int
    shuffle_player1_seed: int
    draft_choices_seed: int | None
    predefined_draft_ids: str | None
    card_gen_seed: int | None
    constructed_choices_seed: int | None
    id_scheme: str
    event_schema_version: int
    agent0: str
    agent1: str
    winner: int
    reason: str
    turns: int
    n_events: int
    head_hash: str
    created: str
    stderr0: str
    stderr1: str
    think_ms0: float | None
    think_ms1: float | None
    error0: bool
    error1: bool
    timeout0: bool
    timeout1: bool
    meta: str

    def extras(self) -> GameExtras:
        """The caller-supplied part of this record."""
        return GameExtras(**{f: getattr(self, f) for f in GameExtras.__struct_fields__})


class SeatExtras(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the runner knows of one seat beyond the events: its bot's stderr (bounded), thinking time (ms,
    None when unknown), whether it lost by an error or a timeout."""

    stderr: str = ""
    think_ms: float | None = None
    error: bool = False
    timeout: bool = False


class MatchRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One row of the ``games`` table of schema 3, for any game (``game`` its registered name): what the core
    knows of every game, and the game's own index fields (``fields``, from its created event). A LOCM game's
    `GameRecord` is the same row read with LOCM's fields (`locm_record`)."""

    game_id: str
    game: str
    ruleset: str
    seed: int | None
    agents: tuple[str, ...]
    winner: int
    places: tuple[int, ...]
    scores: tuple[float, ...] | None
    reason: str
    turns: int
    n_events: int
    head_hash: str
    created: str
    seats: tuple[SeatExtras, ...]
    fields: dict[str, Any]
    meta: str


LOCM_FIELDS = ("ruleset_version", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
               "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
               "event_schema_version")
"""The fields of a LOCM game's `GameRecord` kept in ``fields`` (the columns of schema 2 that only LOCM has)."""


def match_of(record: GameRecord) -> MatchRecord:
    """A LOCM game's record as the row schema 3 keeps."""
    w = record.winner
    return MatchRecord(
        game_id=record.game_id, game=LOCM, ruleset=record.ruleset, seed=record.seed,
        agents=(record.agent0, record.agent1), winner=w, places=(0, 1) if w == 0 else (1, 0), scores=None,
        reason=record.reason, turns=record.turns, n_events=record.n_events, head_hash=record.head_hash,
        created=record.created,
        seats=(SeatExtras(stderr=record.stderr0, think_ms=record.think_ms0, error=record.error0,
                          timeout=record.timeout0),
               SeatExtras(stderr=record.stderr1, think_ms=record.think_ms1, error=record.error1,
                          timeout=record.timeout1)),
        fields={f: getattr(record, f) for f in LOCM_FIELDS}, meta=record.meta)


def locm_record(m: MatchRecord) -> GameRecord:
    """A LOCM game's row as its `GameRecord` (the inverse of `match_of`)."""
    s0, s1 = m.seats
    return GameRecord(
        game_id=m.game_id, ruleset=m.ruleset, seed=m.seed, **{f: m.fields[f] for f in LOCM_FIELDS},
        agent0=m.agents[0], agent1=m.agents[1], winner=m.winner, reason=m.reason, turns=m.turns,
        n_events=m.n_events, head_hash=m.head_hash, created=m.created, stderr0=s0.stderr, stderr1=s1.stderr,
        think_ms0=s0.think_ms, think_ms1=s1.think_ms, error0=s0.error, error1=s1.error, timeout0=s0.timeout,
        timeout1=s1.timeout, meta=m.meta)


def _as_match(record: GameRecord | MatchRecord) -> MatchRecord:
    return record if isinstance(record, MatchRecord) else match_of(record)


class ImportSummary(NamedTuple):
    """What `EventStore.import_jsonl` did: games and events written, identical games skipped; tournament
    schedules and my-card-game accounts (and their events) written."""

    games: int
    events: int
    skipped: int
    schedules: int = 0
    accounts: int = 0
    account_events: int = 0


class _Prepared(NamedTuple):
    """A validated game ready to write: its record and its log, the ``data`` of its ``logs`` row (the zlib
    stream of its events' canonical JSON lines), and, for a LOCM game, its facts as the card report reads
    them (``(version, blob, log hash)``: `game_facts`; None when they could not be computed, and for other
    games), kept in the ``game_facts`` table in the game's transaction. Cheap to pickle: what a tournament
    worker sends the writer."""

    record: GameRecord | MatchRecord
    data: bytes
    facts: tuple[str, bytes, bytes] | None = None


PreparedGame = _Prepared


class _ScheduleRow(NamedTuple):
    """A tournament schedule to keep (an import's: `EventStore._write` writes it with the games)."""

    key: str
    manifest: str


class _AccountRow(NamedTuple):
    """A my-card-game account's log to keep (an import's, checked: `EventStore._write` writes it with the
    games), as its events' canonical JSON lines."""

    account: str
    lines: list[bytes]

def chain_hash(prev: bytes, payload: bytes) -> bytes:
    """One link of the chain: ``sha256(prev + payload)``."""
    return hashlib.sha256(prev + payload).digest()


def utc_timestamp(when: datetime | str | None = None, game_id: str = "") -> str:
    """``when`` (aware datetime, ISO-8601 string with offset, or None for now) as ISO-8601 UTC ending in Z."""
    if when is None:
        when = datetime.now(UTC)
    elif isinstance(when, str):
        try:
            when = datetime.fromisoformat(when)
        except ValueError:
            raise InvalidRecordError(game_id, "created", "an ISO-8601 timestamp", when) from None
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise InvalidRecordError(game_id, "created", "a timestamp with a time zone", when)
    return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def export_header() -> bytes:
    """The first line of an export file."""
    return msgspec.json.encode({"locm_export": EXPORT_VERSION, "store_schema": EXPORT_STORE_SCHEMA,
                                "event_schema": event_schema()}) + b"\n"


def export_end(games: int, events: int, schedules: int = 0, accounts: int = 0, account_events: int = 0) -> bytes:
    """The last line of an export file: what it holds (an import checks it). The counts of schedules and
    accounts are written only when there are any, so a file without them keeps its bytes."""
    totals: dict[str, int] = {"games": games, "events": events}
    if schedules:
        totals["schedules"] = schedules
    if accounts:
        totals["accounts"], totals["account_events"] = accounts, account_events
    return msgspec.json.encode({"end": totals}) + b"\n"


def schedule_block(key: str, manifest: str) -> bytes:
    """A tournament schedule's line of an export file."""
    return msgspec.json.encode({"schedule": {"key": key, "manifest": manifest}}) + b"\n"


def account_block(name: str, lines: Sequence[bytes], hashes: Sequence[bytes]) -> bytes:
    """A my-card-game account's lines of an export file: its header, then each event with its chained hash."""
    head = {"account": name, "n_events": len(lines), "head_hash": hashes[-1].hex() if hashes else ""}
    parts = [msgspec.json.encode({"account": head}) + b"\n"]
    parts += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(lines, hashes)]
    return b"".join(parts)


def prepare_game(extras: GameExtras | Mapping[str, Any], events: Sequence[Event]) -> PreparedGame:
    """Check a complete game's log, encode it and chain its hashes: everything an append does but the write.

    Tournament workers call this, so that the one process writing the store only runs the SQL.
    """
    return _prepare(_as_extras(extras), events)


def prepare_match(game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Any],
                  seats: Sequence[SeatExtras] | None = None) -> PreparedGame:
    """`prepare_game` for any registered game (`engine.seam.GameDef`): the core's checks of its log
    (`engine.logcheck`), its id what its content gives, its outcome from its end event, its events chained
    as its codec encodes them. ``seats``: each seat's extras (default: none known; for two seats, the
    per-seat fields of ``extras``)."""
    from locm.engine.errors import LocmError
    from locm.engine.logcheck import check_log

    if game.name == LOCM:
        if seats is not None:  # each seat's extras, flattened into LOCM's two seats' fields
            extras = msgspec.structs.replace(_as_extras(extras), **{
                f"{f}{i}": getattr(s, f) for i, s in enumerate(seats) for f in SeatExtras.__struct_fields__})
        return prepare_game(extras, events)
    x = _as_extras(extras)
    game_id = x.game_id
    if not isinstance(game_id, str) or not game_id:
        raise InvalidRecordError(str(game_id), "game_id", "a non-empty string", game_id)
    try:
        check_log(game, events)
    except LocmError as exc:
        raise GameLogError(game_id, getattr(exc, "seq", -1), f"a complete {game.title} log", str(exc)) from None
    created = events[0]
    expected = game.game_id(created)
    if game_id != expected:
        raise InvalidRecordError(game_id, "game_id", f"the id its content gives ({expected})", game_id)
    agents = tuple(game.agents(created))
    if seats is None:
        seats = ((SeatExtras(stderr=x.stderr0, think_ms=x.think_ms0, error=x.error0, timeout=x.timeout0),
                  SeatExtras(stderr=x.stderr1, think_ms=x.think_ms1, error=x.error1, timeout=x.timeout1))
                 if len(agents) == 2 else tuple(SeatExtras() for _ in agents))
    if len(seats) != len(agents):
        raise InvalidRecordError(game_id, "seats", f"{len(agents)} seats' extras", len(seats))
    seats = tuple(msgspec.structs.replace(s, stderr=_bound(s.stderr)) for s in seats)
    try:
        msgspec.json.decode(x.meta)
    except DECODE_ERRORS:
        raise InvalidRecordError(game_id, "meta", "JSON text", x.meta) from None
    lines = [game.codec.to_json(e) for e in events]
    head = GENESIS
    for line in lines:
        head = hashlib.sha256(head + line).digest()
    out = game.outcome(events)
    index = game.index(created)
    record = MatchRecord(
        game_id=game_id, game=game.name, ruleset=str(index.get("ruleset", "")), seed=index.get("seed"),
        agents=agents, winner=out.winner, places=out.places(len(agents)), scores=out.scores, reason=out.reason,
        turns=out.turns, n_events=len(events), head_hash=head.hex(), created=utc_timestamp(x.created, game_id),
        seats=seats, fields=index, meta=x.meta)
    return _Prepared(record, pack_log(lines))


def _b(payload: bytes | str) -> bytes:
    return payload if isinstance(payload, bytes) else payload.encode()


def _as_extras(extras: GameExtras | Mapping[str, Any]) -> GameExtras:
    if isinstance(extras, GameExtras):
        return extras
    try:
        return GameExtras(**extras)
    except TypeError as exc:  # an unknown or missing field; the values are checked by _make_record
        raise InvalidRecordError(str(extras.get("game_id", "")), "extras", "fields of GameExtras", str(exc)) \
            from None


def _prepare(extras: GameExtras, events: Sequence[Event], payloads: Sequence[bytes] | None = None,
             head: bytes | None = None) -> _Prepared:
    """Check a game's log and chain it; ``payloads`` are the events' JSON bytes (default: encode them), ``head``
    the last hash of their chain when the caller has already computed it (`_verify`)."""
    game_id = extras.game_id
    if not isinstance(game_id, str) or not game_id:
        raise InvalidRecordError(str(game_id), "game_id", "a non-empty string", game_id)
    n = len(events)
    if n < 2:
        raise GameLogError(game_id, n, "at least game_created and game_ended", f"{n} event(s)")
    types = list(map(type, events))
    game = _locm()
    created, ended = game.created, game.ended
    # the whole log's checks at once (this is the append's hot path); the loop below names the first fault
    if not (_locm_tags().keys() >= set(types) and types[0] is created and types[-1] is ended
            and types.count(created) == 1 and types.count(ended) == 1
            and [e.seq for e in events] == list(range(n))):
        _first_fault(game_id, events)
    lines = list(map(game.codec.to_json, events)) if payloads is None else list(payloads)
    prev = head
    if prev is None:
        prev, sha256 = GENESIS, hashlib.sha256
        for line in lines:
            prev = sha256(prev + line).digest()  # chain_hash, inlined
    data = pack_log(lines)
    return _Prepared(_make_record(extras, events[0], events[-1], n, prev), data, game_facts(game, events, data))


def game_facts(game: Any, events: Sequence[Event], data: bytes) -> tuple[str, bytes, bytes] | None:
    """The derived rows a game's definition keeps beside a checked log (``facts`` of its edges,
    `locm.store.hooks.facts_of`: LOCM's card facts, ``(version, blob, log hash)``), computed where the events are
    in memory (a tournament worker, a what-if re-run, an import); None for a game without them, and when they
    cannot be computed (derived data never keeps a game from being stored)."""
    from locm.store.hooks import facts_of

    facts = facts_of(game)
    return None if facts is None else facts(events, data)


def log_hash(data: bytes) -> bytes:
    """The SHA-256 of a stored log's bytes (the ``data`` of its ``logs`` row, compressed as stored): what a
    game's stored facts are bound to, checked without inflating or re-chaining the log."""
    return hashlib.sha256(data).digest()


def record_problem(record: GameRecord, events: Sequence[Event]) -> str | None:
    """None if the columns of a stored game's record that its events determine (its ``game_created`` fields,
    agents, winner, reason, turns, event count) are what its events say; otherwise the first that is not."""
    created, ended = events[0], events[-1]
    if type(created) is not _locm().created or type(ended) is not _locm().ended:
        return "the log does not begin with game_created and end with game_ended"
    given = {f: getattr(created, f) for f in CREATED_FIELDS}
    given.update(event_schema_version=created.schema_version, agent0=created.agents[0], agent1=created.agents[1],
                 winner=ended.winner, reason=ended.reason, turns=ended.turn, n_events=len(events))
    for field, value in given.items():
        if getattr(record, field) != value:
            return f"the record says {field} {getattr(record, field)!r:.60}, its events say {value!r:.60}"
    return None


def first_difference(a: Any, b: Any) -> str:
    """The name of the first field in which two different records (of one struct type) differ."""
    return next(f for f in type(b).__struct_fields__ if getattr(a, f) != getattr(b, f))


def _first_fault(game_id: str, events: Sequence[Event]) -> None:
    """Raise `GameLogError` at the first event of a log that is not a complete game's."""
    last = len(events) - 1
    for i, event in enumerate(events):
        tag = _locm_tags().get(type(event))
        if tag is None:
            raise GameLogError(game_id, i, "an event of events.locm.catalog", event)
        if event.seq != i:
            raise GameLogError(game_id, i, f"seq {i}", event.seq)
        if tag in _ENDS or i == 0 or i == last:
            _check_end(game_id, i, last, tag)
    raise AssertionError("_first_fault: the log has no fault")  # pragma: no cover


def _ledger_link(prev: bytes, game_id: str, head_hash: bytes) -> bytes:
    """One link of the store's ledger: a game's id and the head of its chain, after the previous link."""
    return hashlib.sha256(prev + game_id.encode() + b"\0" + head_hash).digest()


def _gaps(keys: Sequence[int]) -> str:
    """The integers missing between 1 and the last of ascending ``keys``, as ranges (``"3, 7-9"``), at most 5."""
    found, expected = [], 1
    for key in keys:
        if key > expected:
            found.append(str(expected) if key - 1 == expected else f"{expected}-{key - 1}")
        expected = key + 1
    return ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")


def pack_log(lines: Sequence[bytes]) -> bytes:
    """The ``logs.data`` of a game whose events' canonical JSON bytes are ``lines``."""
    return zlib.compress(b"\n".join(lines), LOG_LEVEL)


def _inflate(path: str, game_id: str, data: bytes) -> bytes:
    try:
        return zlib.decompress(data)
    except (zlib.error, TypeError) as exc:
        raise CorruptStoreError(path, f"game {game_id!r}: the log does not inflate: {exc}") from None


def _lines(path: str, game_id: str, data: bytes) -> list[bytes]:
    """A stored log's events as their JSON lines."""
    return _inflate(path, game_id, data).split(b"\n")


_ENDS = frozenset(("game_created", "game_ended"))

def _check_end(game_id: str, i: int, last: int, tag: str) -> None:
    if (i == 0) != (tag == "game_created"):
        raise GameLogError(game_id, i, "game_created first and only first", tag)
    if (i == last) != (tag == "game_ended"):
        raise GameLogError(game_id, i, "game_ended last and only last", tag)


def _make_record(x: GameExtras, created: Event, ended: Event, n: int, head: bytes) -> GameRecord:
    game_id = x.game_id
    think = []
    for field in ("think_ms0", "think_ms1"):
        value = getattr(x, field)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise InvalidRecordError(game_id, field, "milliseconds >= 0 or None", value)
            value = float(value)
        think.append(value)
    for field in ("stderr0", "stderr1", "meta"):
        if not isinstance(getattr(x, field), str):
            raise InvalidRecordError(game_id, field, "text", getattr(x, field))
    try:
        msgspec.json.decode(x.meta)
    except DECODE_ERRORS:
        raise InvalidRecordError(game_id, "meta", "JSON text", x.meta) from None
    if ended.winner not in (0, 1):
        raise GameLogError(game_id, n - 1, "a winner 0 or 1", ended.winner)
    for field in CREATED_FIELDS:
        value = getattr(created, field)
        if isinstance(value, int) and not -2**63 <= value < 2**63:
            raise InvalidRecordError(game_id, field, "a 64-bit integer", value)
    return GameRecord(
        game_id=game_id, **{f: getattr(created, f) for f in CREATED_FIELDS},
        event_schema_version=created.schema_version, agent0=created.agents[0], agent1=created.agents[1],
        winner=ended.winner, reason=ended.reason, turns=ended.turn, n_events=n, head_hash=head.hex(),
        created=utc_timestamp(x.created, game_id), stderr0=_bound(x.stderr0), stderr1=_bound(x.stderr1),
        think_ms0=think[0], think_ms1=think[1], error0=bool(x.error0), error1=bool(x.error1),
        timeout0=bool(x.timeout0), timeout1=bool(x.timeout1), meta=x.meta,
    )


def _bound(text: str) -> str:
    """At most `STDERR_LIMIT` characters: a longer text keeps its tail behind a note of how much was cut."""
    if len(text) <= STDERR_LIMIT:
        return text
    note = f"[... {len(text)} characters, start cut]\n"
    return note + text[len(text) - (STDERR_LIMIT - len(note)):]


def _verify(game_id: str, lines: Sequence[bytes]) -> list[bytes]:
    """The chained hashes of a log's lines."""
    prev, hashes, sha256 = GENESIS, [], hashlib.sha256
    for line in lines:
        prev = sha256(prev + line).digest()
        hashes.append(prev)
    return hashes


def _first_bad_seq(game_id: str, lines: Sequence[bytes]) -> None:
    """Raise `ChainError` (what ``seq``) at the first line whose event's seq is not its line number."""
    for i, line in enumerate(lines):
        seq = _seq(line)
        if seq != i:
            raise ChainError(game_id, i, i, seq, "seq")


def _seq(line: bytes) -> int | str:
    """The ``seq`` of an event's JSON line (its text, shortened, when it has none)."""
    try:
        seq = _seq_dec.decode(line).seq
    except DECODE_ERRORS:
        return repr(line[:40])
    return seq


class _Seq(msgspec.Struct):
    seq: int


_seq_dec = msgspec.json.Decoder(_Seq)

class _FileHeader(msgspec.Struct, forbid_unknown_fields=True):
    locm_export: int
    store_schema: int
    event_schema: int


class _Totals(msgspec.Struct, forbid_unknown_fields=True):
    games: int
    events: int
    schedules: int = 0
    accounts: int = 0
    account_events: int = 0


class _ScheduleLine(msgspec.Struct, forbid_unknown_fields=True):
    key: str
    manifest: str


class _AccountLine(msgspec.Struct, forbid_unknown_fields=True):
    account: str
    n_events: int
    head_hash: str


class _Control(msgspec.Struct, forbid_unknown_fields=True):
    game: GameRecord | None = None
    match: MatchRecord | None = None
    schedule: _ScheduleLine | None = None
    account: _AccountLine | None = None
    end: _Totals | None = None


class _EventLine(msgspec.Struct, forbid_unknown_fields=True):
    hash: str
    event: msgspec.Raw


_header_dec = msgspec.json.Decoder(_FileHeader)

_control_dec = msgspec.json.Decoder(_Control)

_event_line_dec = msgspec.json.Decoder(_EventLine)

def _parse_export(stream: Iterable[bytes], store: EventStore, skip_existing: bool, counts: list[int],
                  check: bool = True, checker: Checker | None = None) -> Iterator[_Prepared | _ScheduleRow |
                                                                                   _AccountRow]:
    """Yield the games of an export file (LOCM's ``game`` blocks, the other registered games' ``match``
    blocks), its tournament schedules and its side logs (my-card-game's accounts: `locm.store.hooks.SideLogs`),
    each checked; raise `ImportFormatError` at the first wrong line. With ``check``, each game's content is
    checked by ``checker`` (`locm.store.hooks.Checker`, the caller's: the store knows no game's rules), which
    also reads each schedule's manifest (without a checker a schedule's key is not checked against it).
    ``counts`` receives [games, events, skipped, schedules, accounts, account events]."""
    if check and checker is None:
        raise StoreError(f"{store.path}: an import is checked by the checker its caller hands the store "
                         "(open_store(..., checker=...)): none was given (check=False reads without the checks)")
    counts.extend([0] * (6 - len(counts)))
    lines = enumerate(bounded_lines(stream, MAX_LINE), 1)
    lineno = 0

    def next_line(what: str) -> bytes:
        nonlocal lineno
        for lineno, line in lines:
            if line is None:
                raise ImportFormatError(lineno, f"expected {what}: the line is longer than {MAX_LINE} bytes")
            return _b(line)
        lineno += 1
        raise ImportFormatError(lineno, f"the file ends where {what} was expected (truncated?)")

    def decode(dec: msgspec.json.Decoder, line: bytes, what: str):
        try:
            return dec.decode(line)
        except DECODE_ERRORS as exc:
            raise ImportFormatError(lineno, f"expected {what}: {exc}") from None

    def event_lines(n: int, label: str, decode_event, game_id: str | None = None) -> tuple[list, list[bytes],
                                                                                            list[bytes]]:
        """The ``n`` event lines of a block: each event decoded, its payload's bytes, the hash beside it."""
        parsed, payloads, hashes = [], [], []
        for i in range(n):
            line = next_line(f"event {i} of {label} ({n} events)")
            item = decode(_event_line_dec, line, f"event {i} of {label}")
            try:
                event = decode_event(item.event)
                hashes.append(bytes.fromhex(item.hash))
                raw = bytes(item.event)
                raw.decode()  # the payload column is UTF-8 text
                payloads.append(raw)
            except (DecodeError, ValueError) as exc:
                raise ImportFormatError(lineno, f"{label} event {i}: {exc}") from None
            if event.seq != i:  # caught here, not later, so that a lost line is reported where it is missed
                raise ImportFormatError(lineno, str(GameLogError(game_id, i, f"seq {i}", event.seq))
                                        if game_id is not None else f"{label} event {i}: expected seq {i}, got "
                                                                    f"{event.seq}")
            parsed.append(event)
        return parsed, payloads, hashes

    def new_game(record: Any, given: Any, existing: Any, header_line: int) -> bool:
        """Whether a game line's block is a game to add: its line says what its events `given` say, and no
        game of its id is stored (`existing`), or, with --skip-existing, the same one is (counted, False)."""
        if given != record:
            field = first_difference(given, record)
            raise ImportFormatError(header_line, f"game {record.game_id!r}: field {field!r}: the events give "
                                                 f"{getattr(given, field)!r:.60}, the line has "
                                                 f"{getattr(record, field)!r:.60}")
        if existing is None:
            return True
        if skip_existing and existing.head_hash == record.head_hash:
            counts[2] += 1
            return False
        raise ImportFormatError(header_line, f"game {record.game_id!r} is already in the store"
                                + ("" if skip_existing else " (--skip-existing skips identical games)"))

    def game_block(record: GameRecord, header_line: int) -> _Prepared | None:
        game_id = record.game_id
        if not 2 <= record.n_events <= MAX_EVENTS:
            raise ImportFormatError(lineno, f"game {game_id!r}: expected n_events in 2..{MAX_EVENTS}, got "
                                            f"{record.n_events}")
        parsed, payloads, hashes = event_lines(record.n_events, f"game {game_id!r}", _locm().codec.from_json,
                                               game_id)
        chain = _verify(game_id, payloads)
        try:
            prepared = _prepare(record.extras(), parsed, payloads, chain[-1])
        except GameLogError as exc:
            raise ImportFormatError(header_line + 1 + max(exc.index, 0), str(exc)) from None
        except InvalidRecordError as exc:
            raise ImportFormatError(header_line, str(exc)) from None
        _check_hashes(f"game {game_id!r}", header_line, chain, hashes)
        if not new_game(record, prepared.record, store._record(game_id), header_line):
            return None
        if check:
            verdict = checker.game_problem(_locm(), game_id, parsed, meta=record.meta)
            if not verdict.ok:
                at = header_line + 1 + verdict.seq if 0 <= verdict.seq < record.n_events else header_line
                raise ImportFormatError(at, f"game {game_id!r}: {verdict.problem}")
        return prepared

    def match_block(record: MatchRecord, header_line: int) -> _Prepared | None:
        """A game of another registered game: its log checked by the core and re-decided, as `locm verify`
        checks it (`locm.verify.checks.match_problem`), its record what its events give."""
        from locm.engine import registry
        from locm.engine.errors import LocmError

        game_id = record.game_id
        try:
            game = registry.get(record.game)
        except LocmError as exc:
            raise ImportFormatError(lineno, f"game {game_id!r}: {exc}") from None
        if record.game == LOCM:
            raise ImportFormatError(lineno, f"game {game_id!r}: a LOCM game is written as a game line")
        if not 2 <= record.n_events <= MAX_EVENTS:
            raise ImportFormatError(lineno, f"game {game_id!r}: expected n_events in 2..{MAX_EVENTS}, got "
                                            f"{record.n_events}")
        parsed, payloads, hashes = event_lines(record.n_events, f"game {game_id!r}", game.codec.from_json, game_id)
        chain = _verify(game_id, payloads)
        _check_hashes(f"game {game_id!r}", header_line, chain, hashes)
        try:
            prepared = prepare_match(game, GameExtras(game_id=game_id, created=record.created, meta=record.meta),
                                     parsed, record.seats)
        except GameLogError as exc:
            raise ImportFormatError(header_line + 1 + max(exc.index, 0), str(exc)) from None
        except (InvalidRecordError, LocmError) as exc:
            raise ImportFormatError(header_line, f"game {game_id!r}: {exc}") from None
        if not new_game(record, prepared.record, store._match(game_id), header_line):
            return None
        if check:
            try:
                verdict = checker.game_problem(game, game_id, parsed, meta=record.meta)
            except LocmError as exc:
                raise ImportFormatError(header_line, f"game {game_id!r}: {exc}") from None
            if not verdict.ok:
                at = header_line + 1 + verdict.seq if 0 <= verdict.seq < record.n_events else header_line
                raise ImportFormatError(at, f"game {game_id!r}: {verdict.problem}")
        return prepared

    def schedule_line(line: _ScheduleLine) -> _ScheduleRow:
        """A tournament schedule: its key is what its manifest gives, and the manifest is one this locm reads."""
        from locm.engine.errors import LocmError

        if checker is None:
            return _ScheduleRow(line.key, line.manifest)
        try:
            jobs = checker.schedule_of(line.manifest)
        except (LocmError, ValueError) as exc:
            raise ImportFormatError(lineno, f"schedule {line.key}: its manifest does not read: {exc}") from None
        if jobs.key != line.key:
            raise ImportFormatError(lineno, f"schedule {line.key}: its manifest gives the key {jobs.key}")
        return _ScheduleRow(line.key, line.manifest)

    def account_block(head: _AccountLine, header_line: int) -> _AccountRow | None:
        """A side log's block (a my-card-game account's log, `locm.store.hooks.SideLogs`): re-decided as `locm
        verify` checks one (its ``problem``), its hashes its chain's; stored again, it must equal or extend the
        stored log."""
        from locm.store.hooks import side_logs_of

        name = head.account
        logs = side_logs_of("account")
        if logs is None:
            raise ImportFormatError(header_line, f"account {name!r}: no registered game keeps accounts")
        codec = logs.codec
        if not 1 <= head.n_events <= MAX_EVENTS:
            raise ImportFormatError(lineno, f"account {name!r}: expected n_events in 1..{MAX_EVENTS}, got "
                                            f"{head.n_events}")
        parsed, payloads, hashes = event_lines(head.n_events, f"account {name!r}", codec.from_json)
        chain = logs.hashes(payloads)
        _check_hashes(f"account {name!r}", header_line, chain, hashes)
        if chain[-1].hex() != head.head_hash:
            raise ImportFormatError(header_line, f"account {name!r}: expected head_hash {chain[-1].hex()}, the "
                                                 f"line has {head.head_hash}")
        if [codec.to_json(e) for e in parsed] != payloads:
            k = next(i for i, (e, p) in enumerate(zip(parsed, payloads)) if codec.to_json(e) != p)
            raise ImportFormatError(header_line + 1 + k, f"account {name!r} event {k}: not its canonical JSON")
        if getattr(parsed[0], "account", name) != name:
            raise ImportFormatError(header_line + 1, f"account {name!r}: its log opens the account "
                                                     f"{getattr(parsed[0], 'account', '')!r}")
        problem, seq = logs.problem(parsed)
        if problem:
            at = header_line + 1 + seq if 0 <= seq < head.n_events else header_line
            raise ImportFormatError(at, f"account {name!r}: {problem}")
        try:
            stored = store._account_lines(name)
        except logs.error as exc:
            raise ImportFormatError(header_line, f"account {name!r}: {exc}") from None
        if stored is not None:
            if payloads[:len(stored)] != stored:
                raise ImportFormatError(header_line, f"account {name!r}: the file's log does not extend the "
                                                     f"stored one (its first {len(stored)} events differ): an "
                                                     "account's history is never rewritten")
            if len(payloads) == len(stored):
                return None
        return _AccountRow(name, payloads)

    head = decode(_header_dec, next_line("the file header"), "the file header line")
    if head.locm_export != EXPORT_VERSION:
        raise ImportFormatError(lineno, f"expected export format {EXPORT_VERSION}, got {head.locm_export}")
    if head.store_schema not in EXPORT_STORE_SCHEMAS:
        raise ImportFormatError(lineno, f"expected store schema {' or '.join(map(str, EXPORT_STORE_SCHEMAS))}, "
                                        f"got {head.store_schema}")
    if head.event_schema > event_schema():
        raise ImportFormatError(lineno, f"expected event schema <= {event_schema()}, got {head.event_schema}")
    seen: set[str] = set()
    seen_accounts: set[str] = set()
    games = events = schedules = accounts = account_events = 0
    while True:
        control = decode(_control_dec, next_line("a game line or the end line"), "a game line or the end line")
        kinds = [k for k in _Control.__struct_fields__ if getattr(control, k) is not None]
        if len(kinds) != 1:
            raise ImportFormatError(lineno, "expected a game line or the end line, got neither or both")
        if control.end is not None:
            end = control.end
            if (end.games, end.events) != (games, events):
                raise ImportFormatError(lineno, f"end line says {end.games} games, {end.events} "
                                                f"events; the file has {games} games, {events} events")
            if (end.schedules, end.accounts, end.account_events) != (schedules, accounts, account_events):
                raise ImportFormatError(lineno, f"end line says {end.schedules} schedules, {end.accounts} accounts "
                                                f"({end.account_events} events); the file has {schedules} "
                                                f"schedules, {accounts} accounts ({account_events} events)")
            for extra, _ in lines:
                raise ImportFormatError(extra, "expected nothing after the end line")
            return
        header_line = lineno
        if control.schedule is not None:
            schedules += 1
            counts[3] += 1
            yield schedule_line(control.schedule)
            continue
        if control.account is not None:
            name = control.account.account
            if name in seen_accounts:
                raise ImportFormatError(lineno, f"account {name!r} appears twice in the file")
            seen_accounts.add(name)
            row = account_block(control.account, header_line)
            accounts, account_events = accounts + 1, account_events + control.account.n_events
            if row is not None:
                counts[4], counts[5] = counts[4] + 1, counts[5] + len(row.lines)
                yield row
            continue
        record = control.game if control.game is not None else control.match
        game_id = record.game_id
        if game_id in seen:
            raise ImportFormatError(lineno, f"game {game_id!r} appears twice in the file")
        seen.add(game_id)
        prepared = game_block(record, header_line) if control.game is not None else match_block(record, header_line)
        games, events = games + 1, events + record.n_events
        if prepared is not None:
            counts[0], counts[1] = counts[0] + 1, counts[1] + record.n_events
            yield prepared


def _check_hashes(label: str, header_line: int, chain: Sequence[bytes], hashes: Sequence[bytes]) -> None:
    """Each event line's hash is the chain's at its place (the first that is not is named)."""
    for i, (got, stored) in enumerate(zip(chain, hashes)):
        if got != stored:
            raise ImportFormatError(header_line + 1 + i, f"{label} event {i}: expected hash {got.hex()}, the file "
                                                         f"has {stored.hex()}")
