"""The store's export format (JSON lines, described in `locm.store.eventstore`'s docstring): its lines
(`export_header`, `game_block`, `schedule_block`, `account_block`, `export_end`), the writer of a whole store
(`export_store`) and the reader that checks a file before anything of it is kept (`parse_export`).

A game of any game is one record, `locm.store.records.GameRecord`; the file writes it as a ``match`` line, but for
LOCM's games, which it writes as they were written before the store kept other games: the flat row of store
schema 2 (`_FlatRecord`, LOCM's two seats as columns), so that an export stays byte for byte what it was (the
golden export tests). `_FlatRecord` is that line's private shape and `locm migrate`'s reading of a schema 1 or 2
row; nothing else sees it.

Over 450 lines because the reader is one generator whose nested steps share its line counter (every error
names its line): split, each step would take the counter, the store, the checker and the counts as arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

import msgspec

from locm.events.codec import DECODE_ERRORS, MAX_EVENTS, MAX_LINE, DecodeError, bounded_lines
from locm.errors import GameLogError, GameNotFoundError, ImportFormatError, InvalidRecordError, StoreError
from locm.store.records import (
    GameRecord,
    SeatExtras,
    _AccountRow,
    _KnownGame,
    _Prepared,
    _ScheduleRow,
    _verify,
    first_difference,
    prepare_game,
)

if TYPE_CHECKING:
    from locm.store.hooks import Checker
    from locm.store.interface import EventStore


EXPORT_VERSION = 1

EXPORT_STORE_SCHEMA = 2
"""The ``store_schema`` an export file's header says: the schema whose game lines it holds. Schema 3 changed how
a game is kept in the file (a game column, index fields as JSON), not a LOCM game's record or events, so its
export lines are those of schema 2, byte for byte, header included."""


EXPORT_STORE_SCHEMAS = (1, 2)
"""The ``store_schema`` values an export file's header may hold (the game lines are the same for both)."""


FLAT_GAME = "locm"
"""The game whose games an export file writes as ``game`` lines (`_FlatRecord`), its name in the ``game``
column (`engine.registry`): the format's first game, fixed by the files already written."""


class ImportSummary(NamedTuple):
    """What `EventStore.import_jsonl` did: games and events written, identical games skipped; tournament
    schedules and my-card-game accounts (and their events) written."""

    games: int
    events: int
    skipped: int
    schedules: int = 0
    accounts: int = 0
    account_events: int = 0


class _FlatRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A LOCM game's ``game`` line of an export file: the row of store schema 2, field for column (``head_hash``
    as hex), in its order. `_record_of` and `_flat_of` convert it to and from a `GameRecord`."""

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


_FLAT_FIELDS = ("ruleset_version", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
                "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
                "event_schema_version")
"""The columns of a `_FlatRecord` a `GameRecord` keeps in its ``fields``."""


def _record_of(flat: _FlatRecord) -> GameRecord:
    """A LOCM game's flat line as its record."""
    w = flat.winner
    return GameRecord(
        game_id=flat.game_id, game=FLAT_GAME, ruleset=flat.ruleset, seed=flat.seed, agents=(flat.agent0, flat.agent1),
        winner=w, places=(0, 1) if w == 0 else (1, 0), scores=None, reason=flat.reason, turns=flat.turns,
        n_events=flat.n_events, head_hash=flat.head_hash, created=flat.created,
        seats=(SeatExtras(stderr=flat.stderr0, think_ms=flat.think_ms0, error=flat.error0, timeout=flat.timeout0),
               SeatExtras(stderr=flat.stderr1, think_ms=flat.think_ms1, error=flat.error1, timeout=flat.timeout1)),
        fields={f: getattr(flat, f) for f in _FLAT_FIELDS}, meta=flat.meta)


def _flat_of(record: GameRecord) -> _FlatRecord:
    """A LOCM game's record as its flat line (the inverse of `_record_of`)."""
    s0, s1 = record.seats
    return _FlatRecord(
        game_id=record.game_id, ruleset=record.ruleset, seed=record.seed, **{f: record.fields[f] for f in _FLAT_FIELDS},
        agent0=record.agents[0], agent1=record.agents[1], winner=record.winner, reason=record.reason,
        turns=record.turns, n_events=record.n_events, head_hash=record.head_hash, created=record.created,
        stderr0=s0.stderr, stderr1=s1.stderr, think_ms0=s0.think_ms, think_ms1=s1.think_ms, error0=s0.error,
        error1=s1.error, timeout0=s0.timeout, timeout1=s1.timeout, meta=record.meta)


def event_schema() -> int:
    """The schema of LOCM's events (its created event's ``schema_version``): what an export file's header says."""
    from locm.engine.registry import get

    created = get(FLAT_GAME).created
    fields = {f.name: f.default for f in msgspec.structs.fields(created)}
    return fields["schema_version"]


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


def game_block(record: GameRecord, lines: Sequence[bytes], hashes: Sequence[bytes]) -> bytes:
    """A game's lines of an export file: its record's line (a ``game`` line for LOCM's, a ``match`` line for any
    other's), then each event with its chained hash."""
    enc = msgspec.json.encode
    head = b'{"game":' + enc(_flat_of(record)) if record.game == FLAT_GAME else b'{"match":' + enc(record)
    parts = [head + b"}\n"]
    parts += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(lines, hashes)]
    return b"".join(parts)


def export_store(store: EventStore, game_ids: Iterable[str] | None, out: BinaryIO,
                 on_bad: Callable[[str, StoreError], None] | None = None) -> int:
    """`EventStore.export_jsonl`: a store's games (all, with its schedules and side logs, when ``game_ids`` is
    None) written to ``out``; how many games."""
    out.write(export_header())
    games = events = schedules = accounts = account_events = 0
    whole = game_ids is None
    if game_ids is None:
        game_ids = store.readable_ids() if on_bad else [m.game_id for m in store.games()]
    if whole and on_bad is None:
        for key, manifest in store.schedules():
            out.write(schedule_block(key, manifest))
            schedules += 1
    for game_id in game_ids:
        try:
            block, n = store.export_game(game_id)
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
            for name in logs.names(store):
                lines = logs.lines(store, name)
                out.write(account_block(name, lines, logs.hashes(lines)))
                accounts, account_events = accounts + 1, account_events + len(lines)
    out.write(export_end(games, events, schedules, accounts, account_events))
    return games


def _b(payload: bytes | str) -> bytes:
    return payload if isinstance(payload, bytes) else payload.encode()


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
    game: _FlatRecord | None = None
    match: GameRecord | None = None
    schedule: _ScheduleLine | None = None
    account: _AccountLine | None = None
    end: _Totals | None = None


class _EventLine(msgspec.Struct, forbid_unknown_fields=True):
    hash: str
    event: msgspec.Raw


_header_dec = msgspec.json.Decoder(_FileHeader)

_control_dec = msgspec.json.Decoder(_Control)

_event_line_dec = msgspec.json.Decoder(_EventLine)


def parse_export(stream: Iterable[bytes], store: EventStore, skip_existing: bool, counts: list[int],
                 check: bool = True, checker: Checker | None = None) -> Iterator[_Prepared | _ScheduleRow |
                                                                                  _AccountRow]:
    """Yield the games of an export file (LOCM's ``game`` blocks, the other registered games' ``match``
    blocks), its tournament schedules and its side logs (my-card-game's accounts: `locm.store.hooks.SideLogs`),
    each checked; raise `ImportFormatError` at the first wrong line. With ``check``, each game's content is
    checked by ``checker`` (`locm.store.hooks.Checker`, the caller's: the store knows no game's rules), which
    also reads each schedule's manifest (without a checker a schedule's key is not checked against it).
    ``counts`` receives [games, events, skipped, schedules, accounts, account events]; a game skipped (stored
    identically already, ``skip_existing``) is yielded as a `_KnownGame`."""
    if check and checker is None:
        raise StoreError(f"{store.path}: an import is checked by the checker its caller hands the store "
                         "(open_store(..., checker=...)): none was given (check=False reads without the checks)")
    counts.extend([0] * (6 - len(counts)))
    from locm.store.hooks import side_logs_of

    side, in_file = side_logs_of("account"), {}  # the file's games' credits, for the side logs after them
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

    def game_lines(record: GameRecord, game: Any, header_line: int, flat: _FlatRecord | None) -> _Prepared | None:
        """A game's block, of any game: its events decoded by its game's codec, its chain and hashes checked, its
        log checked as the store checks one (`prepare_game`), its line what its events give (``flat``: LOCM's
        flat line, compared as it is written), and with ``check`` its content as `locm verify` checks it (the
        store's checker)."""
        from locm.engine.errors import LocmError

        game_id = record.game_id
        if not 2 <= record.n_events <= MAX_EVENTS:
            raise ImportFormatError(lineno, f"game {game_id!r}: expected n_events in 2..{MAX_EVENTS}, got "
                                            f"{record.n_events}")
        parsed, payloads, hashes = event_lines(record.n_events, f"game {game_id!r}", game.codec.from_json, game_id)
        chain = _verify(game_id, payloads)
        try:
            prepared = prepare_game(game, record.extras(), parsed, payloads=payloads, head=chain[-1])
        except GameLogError as exc:
            raise ImportFormatError(header_line + 1 + max(exc.index, 0), str(exc)) from None
        except InvalidRecordError as exc:
            raise ImportFormatError(header_line, str(exc) if flat is not None else f"game {game_id!r}: {exc}") \
                from None
        except LocmError as exc:
            raise ImportFormatError(header_line, f"game {game_id!r}: {exc}") from None
        _check_hashes(f"game {game_id!r}", header_line, chain, hashes)
        given = prepared.record if flat is None else _flat_of(prepared.record)
        if not new_game(record if flat is None else flat, given, store.find(game_id), header_line):
            return None
        if check:
            try:
                verdict = checker.game_problem(game, game_id, parsed, meta=record.meta)
            except LocmError as exc:
                raise ImportFormatError(header_line, f"game {game_id!r}: {exc}") from None
            if not verdict.ok:
                at = header_line + 1 + verdict.seq if 0 <= verdict.seq < record.n_events else header_line
                raise ImportFormatError(at, f"game {game_id!r}: {verdict.problem}")
        if side is not None and (credits := side.credits(parsed)) is not None:
            in_file[game_id] = credits  # what the file's side logs may say of it (a reward for this match)
        return prepared

    def line_game(record: GameRecord, flat: bool) -> Any:
        """The registered game of a game line (a ``game`` line is LOCM's; a ``match`` line names its game)."""
        from locm.engine import registry
        from locm.engine.errors import LocmError

        try:
            game = registry.get(record.game)
        except LocmError as exc:
            raise ImportFormatError(lineno, f"game {record.game_id!r}: {exc}") from None
        if not flat and record.game == FLAT_GAME:
            raise ImportFormatError(lineno, f"game {record.game_id!r}: a LOCM game is written as a game line")
        return game

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
        problem, seq = logs.problem(parsed, store, in_file)
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
        flat = control.game
        record = _record_of(flat) if flat is not None else control.match
        game_id = record.game_id
        if game_id in seen:
            raise ImportFormatError(lineno, f"game {game_id!r} appears twice in the file")
        seen.add(game_id)
        prepared = game_lines(record, line_game(record, flat is not None), header_line, flat)
        games, events = games + 1, events + record.n_events
        if prepared is not None:
            counts[0], counts[1] = counts[0] + 1, counts[1] + record.n_events
            yield prepared
        else:  # stored identically already: its provenance may be this file's (`EventStore._write`)
            yield _KnownGame(game_id)


def _check_hashes(label: str, header_line: int, chain: Sequence[bytes], hashes: Sequence[bytes]) -> None:
    """Each event line's hash is the chain's at its place (the first that is not is named)."""
    for i, (got, stored) in enumerate(zip(chain, hashes)):
        if got != stored:
            raise ImportFormatError(header_line + 1 + i, f"{label} event {i}: expected hash {got.hex()}, the file "
                                                         f"has {stored.hex()}")
