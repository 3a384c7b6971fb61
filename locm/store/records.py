"""The event store's mapper (eventsourcing's split: mapper, recorder, backends): what a stored game is and how
a game's events become one. One record for a game of any game (`GameRecord`), the extras its caller hands the
store (`GameExtras`, `SeatExtras` by seat), the checks of a log before it is stored and its hash chain
(`prepare_game`), the compressed log (`pack_log`) and the ledger's links. Nothing here opens a file or a
database: `locm.store.eventstore` (the factory), `locm.store.interface` (the interface, the memory backend) and
`locm.store.sqlite` (the SQLite backend) do; `locm.store.export` is the export format. The whole layout is
described in `locm.store.eventstore`'s docstring.

The mapper names no game: a game's events are decoded and encoded by its definition's codec
(`engine.registry`), its record is read from the events its definition's ``created`` and ``ended`` types,
``agents``, ``outcome`` and ``index`` give, and what a game keeps beside its games (LOCM's card facts, the
fields its record keeps) comes from the module its definition names (`locm.store.hooks`).
"""

from __future__ import annotations

import hashlib
import math
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

import msgspec

from locm.events.base import Event, tag_of
from locm.events.codec import DECODE_ERRORS
from locm.errors import ChainError, CorruptStoreError, GameLogError, InvalidRecordError


STORE_FORMAT = "locm-event-store"

STORE_SCHEMA_VERSION = 3

OLD_SCHEMAS = (1, 2)
"""Store schemas that `locm migrate` converts to this one."""


LOG_LEVEL = 1
"""The zlib level of the stored logs (see the module docstring for the measurements behind it)."""


GENESIS = bytes(32)

STDERR_LIMIT = 8192


class SeatExtras(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the runner knows of one seat beyond the events: its bot's stderr (bounded), thinking time (ms,
    None when unknown), whether it lost by an error or a timeout."""

    stderr: str = ""
    think_ms: float | None = None
    error: bool = False
    timeout: bool = False


class GameExtras(msgspec.Struct, frozen=True, kw_only=True):
    """What the caller knows about a game beyond its events (the tournament runner fills the optional part).

    ``created``: an aware datetime or an ISO-8601 string with an offset; None means now. ``seats``: each seat's
    extras, in seat order (None: nothing known of any seat)."""

    game_id: str
    created: datetime | str | None = None
    seats: tuple[SeatExtras, ...] | None = None
    meta: str = "{}"


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One row of the ``games`` table, for any game (``game`` its registered name; ``head_hash`` as hex here, a
    BLOB in SQLite): what the core knows of every game, and the game's own index fields (``fields``: those its
    edges' ``record_fields`` give, else its definition's ``index``, from its created event)."""

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

    def extras(self) -> GameExtras:
        """The caller-supplied part of this record."""
        return GameExtras(game_id=self.game_id, created=self.created, seats=self.seats, meta=self.meta)


class _Prepared(NamedTuple):
    """A validated game ready to write: its record and its log, the ``data`` of its ``logs`` row (the zlib
    stream of its events' canonical JSON lines), and its facts as its game's edges compute them (LOCM's card
    facts as the card report reads them, ``(version, blob, log hash)``: `game_facts`; None when they could not
    be computed, and for a game without them), kept in the ``game_facts`` table in the game's transaction. Cheap
    to pickle: what a tournament worker sends the writer."""

    record: GameRecord
    data: bytes
    facts: tuple[str, bytes, bytes] | None = None


PreparedGame = _Prepared


class _ScheduleRow(NamedTuple):
    """A tournament schedule to keep (an import's: `EventStore._write` writes it with the games)."""

    key: str
    manifest: str


class _KnownGame(NamedTuple):
    """A game of an import already stored identically (``--skip-existing``): under a trusted source, an untrusted
    import of it is recorded as this one (`EventStore._write`)."""

    game_id: str


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


def prepare_game(game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Event], *,
                 payloads: Sequence[bytes] | None = None, head: bytes | None = None) -> PreparedGame:
    """Check a complete game's log of ``game`` (`engine.seam.GameDef`), encode it and chain its hashes:
    everything an append does but the write. Tournament workers call this, so that the one process writing
    the store only runs the SQL.

    The checks are the store's, the same for every game: its created event first and only first, its end
    event last and only last, every event one of its codec's, seqs 0..n-1, one seat's extras per agent and the
    extras' types. What its content means (its causes, its id what its content gives, its events what the
    rules give) is `locm verify`'s (`engine.logcheck`, `engine.core.verify`), and an import's checker's: a
    forged game may be stored, for `locm verify` to name what is wrong with it. ``payloads``: the events'
    JSON bytes when the caller has them (default: its codec encodes them); ``head``: the last hash of their
    chain when the caller has already computed it."""
    x = _as_extras(extras)
    lines, prev = _checked_chain(game, x, events, payloads, head)
    data = pack_log(lines)
    return _Prepared(_make_record(game, x, events, prev), data, game_facts(game, events, data))


def record_of(game: Any, extras: GameExtras | Mapping[str, Any], events: Sequence[Event], *,
              payloads: Sequence[bytes] | None = None, head: bytes | None = None) -> GameRecord:
    """The record `prepare_game` would make of a log, and only that (no compressed log, no derived facts): the
    same checks, the same chain (``payloads`` and ``head`` as `prepare_game` takes them)."""
    x = _as_extras(extras)
    return _make_record(game, x, events, _checked_chain(game, x, events, payloads, head)[1])


def _checked_chain(game: Any, x: GameExtras, events: Sequence[Event], payloads: Sequence[bytes] | None,
                   head: bytes | None) -> tuple[list[bytes], bytes]:
    """`prepare_game`'s checks of a log, then its events' JSON lines (``payloads`` when given) and the last hash
    of their chain (``head`` when given)."""
    game_id = x.game_id
    if not isinstance(game_id, str) or not game_id:
        raise InvalidRecordError(str(game_id), "game_id", "a non-empty string", game_id)
    n = len(events)
    created_type, ended_type = game.created, game.ended
    if n < 2:
        raise GameLogError(game_id, n, f"at least {tag_of(created_type)} and {tag_of(ended_type)}", f"{n} event(s)")
    types = list(map(type, events))
    # the whole log's checks at once (this is the append's hot path); _first_fault names the first fault
    if not (_tags(game).keys() >= set(types) and types[0] is created_type and types[-1] is ended_type
            and types.count(created_type) == 1 and types.count(ended_type) == 1
            and [e.seq for e in events] == list(range(n))):
        _first_fault(game, game_id, events)
    lines = list(map(game.codec.to_json, events)) if payloads is None else list(payloads)
    prev = head
    if prev is None:
        prev, sha256 = GENESIS, hashlib.sha256
        for line in lines:
            prev = sha256(prev + line).digest()  # chain_hash, inlined
    return lines, prev


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


def record_problem(game: Any, record: GameRecord, events: Sequence[Event],
                   chained: tuple[Sequence[bytes], bytes] | None = None) -> str | None:
    """None if every column of a stored game's record is what its events and its extras give (what
    `prepare_game` would write, `record_of`); otherwise the first that is not, in one line. ``chained``: the
    events' own JSON lines and the last hash of their chain, when the caller knows the stored lines they were
    decoded from are exactly their encoding (a log proven byte for byte, `locm.verify.checks.proven`) and has
    chained them (`EventStore.verified_log`): not encoded and chained again."""
    lines, head = chained if chained is not None else (None, None)
    try:
        again = record_of(game, record.extras(), events, payloads=lines, head=head)
    except (GameLogError, InvalidRecordError) as exc:
        return str(exc)
    if again == record:
        return None
    field = first_difference(again, record)
    return f"the record says {field} {getattr(record, field)!r:.60}, its events say {getattr(again, field)!r:.60}"


def first_difference(a: Any, b: Any) -> str:
    """The name of the first field in which two different records (of one struct type) differ."""
    return next(f for f in type(b).__struct_fields__ if getattr(a, f) != getattr(b, f))


def _tags(game: Any) -> dict[type, str]:
    """Each event class of a game's codec, with its tag (computed once a game)."""
    found = _TAGS.get(id(game))
    if found is None or found[0] is not game:
        found = _TAGS[id(game)] = (game, {cls: tag_of(cls) for cls in game.codec.types})
    return found[1]


_TAGS: dict[int, tuple[Any, dict[type, str]]] = {}


def _first_fault(game: Any, game_id: str, events: Sequence[Event]) -> None:
    """Raise `GameLogError` at the first event of a log that is not a complete game's."""
    last = len(events) - 1
    created, ended = tag_of(game.created), tag_of(game.ended)
    for i, event in enumerate(events):
        tag = _tags(game).get(type(event))
        if tag is None:
            raise GameLogError(game_id, i, f"an event of {game.title}", event)
        if event.seq != i:
            raise GameLogError(game_id, i, f"seq {i}", event.seq)
        if (i == 0) != (tag == created):
            raise GameLogError(game_id, i, f"{created} first and only first", tag)
        if (i == last) != (tag == ended):
            raise GameLogError(game_id, i, f"{ended} last and only last", tag)
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


def _as_extras(extras: GameExtras | Mapping[str, Any]) -> GameExtras:
    if isinstance(extras, GameExtras):
        return extras
    try:
        found = dict(extras)
        if found.get("seats") is not None:
            found["seats"] = tuple(s if isinstance(s, SeatExtras) else SeatExtras(**s) for s in found["seats"])
        return GameExtras(**found)
    except TypeError as exc:  # an unknown or missing field; the values are checked by _make_record
        raise InvalidRecordError(str(extras.get("game_id", "")), "extras", "fields of GameExtras", str(exc)) \
            from None


def _make_record(game: Any, x: GameExtras, events: Sequence[Event], head: bytes) -> GameRecord:
    """A checked log's record: what its events give, and the extras' values checked."""
    from locm.store.hooks import record_fields_of

    game_id = x.game_id
    created = events[0]
    agents = tuple(game.agents(created))
    seats = tuple(SeatExtras() for _ in agents) if x.seats is None else tuple(x.seats)
    if len(seats) != len(agents):
        raise InvalidRecordError(game_id, "seats", f"{len(agents)} seats' extras", len(seats))
    checked = []
    for i, s in enumerate(seats):
        think = s.think_ms
        if think is not None:
            if isinstance(think, bool) or not isinstance(think, (int, float)) or not math.isfinite(think) \
                    or think < 0:
                raise InvalidRecordError(game_id, f"think_ms{i}", "milliseconds >= 0 or None", think)
            think = float(think)
        if not isinstance(s.stderr, str):
            raise InvalidRecordError(game_id, f"stderr{i}", "text", s.stderr)
        checked.append(SeatExtras(stderr=_bound(s.stderr), think_ms=think, error=bool(s.error),
                                  timeout=bool(s.timeout)))
    if not isinstance(x.meta, str):
        raise InvalidRecordError(game_id, "meta", "text", x.meta)
    try:
        msgspec.json.decode(x.meta)
    except DECODE_ERRORS:
        raise InvalidRecordError(game_id, "meta", "JSON text", x.meta) from None
    out = game.outcome(events)
    if not -1 <= out.winner < len(agents):
        raise GameLogError(game_id, len(events) - 1, f"a winner in -1..{len(agents) - 1}", out.winner)
    index = game.index(created)
    own = record_fields_of(game)
    fields = index if own is None else own(created)
    for field, value in (("seed", index.get("seed")), *fields.items()):
        if isinstance(value, int) and not -2**63 <= value < 2**63:
            raise InvalidRecordError(game_id, field, "a 64-bit integer", value)
    return GameRecord(
        game_id=game_id, game=game.name, ruleset=str(index.get("ruleset", "")), seed=index.get("seed"),
        agents=agents, winner=out.winner, places=out.places(len(agents)), scores=out.scores, reason=out.reason,
        turns=out.turns, n_events=len(events), head_hash=head.hex(), created=utc_timestamp(x.created, game_id),
        seats=tuple(checked), fields=fields, meta=x.meta)


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
