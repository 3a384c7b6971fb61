"""Checking a game before anyone trusts it: every door (import, import-referee, migrate, `locm verify`) asks the
same questions of a game's log (`content_problem`), and `locm verify` adds the stored game's chain
(`stored_problem`).

- Its id is what its content gives (`locm.engine.locm.gameid.check_id`), so a game cannot sit under another game's id.
- The fold of its events ends the game, with the winner and reason its record says.
- Re-deciding its recorded inputs (`engine.locm.redecide`) gives exactly its events: a log edited and re-chained
  fails at the first event the rules would not produce (the seq, the event it has, the event the rules give).

A problem is one line of text; an id that is sound but of an older form that cannot be recomputed is passed as
a note (`Verdict.note`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import NamedTuple

from locm.engine.errors import LocmError
from locm.events.locm.catalog import Event, GameEnded, HardError


class Verdict(NamedTuple):
    """``problem`` (one line) or None when the game is sound; ``seq`` where the log departs (-1 when the
    problem is not one event's); ``note``: something a reader should know about a sound game."""

    problem: str | None
    seq: int = -1
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.problem is None


def content_problem(game_id: str | None, events: Sequence[Event], *, meta: str = "{}", winner: int | None = None,
                    reason: str | None = None, redecide: bool = True) -> Verdict:
    """Check a whole log: re-deciding its inputs gives its events (``redecide``), the fold ends the game (with
    ``winner`` and ``reason`` when given: a stored record's), and ``game_id`` is what its content gives (None:
    a log file, which names no id)."""
    from locm.engine.locm.evolve import fold
    from locm.engine.locm.state import ENDED
    from locm.engine.locm.gameid import check_id

    if not events or type(events[-1]) is not GameEnded:
        return Verdict(f"the last event is {type(events[-1]).__name__ if events else 'missing'}, not game_ended",
                       len(events) - 1)
    if redecide:  # first: it names the first event the rules would not produce (and implies the fold's checks)
        from locm.engine.locm.redecide import redecide as redecide_log

        result = redecide_log(events)
        if not result.ok:
            return Verdict(f"re-decided from its inputs, {result.divergence}", result.divergence.seq)
    try:
        state = fold(events)
    except Exception as exc:  # a log that does not fit the rules may break evolve anywhere: report, go on
        return Verdict(f"the events do not fold: {type(exc).__name__}: {exc}", getattr(exc, "seq", -1))
    if state.phase != ENDED:
        return Verdict(f"the fold ends in the {state.phase} phase, not ended", len(events) - 1)
    if winner is not None and (state.winner, state.end_reason) != (winner, reason):
        return Verdict(f"the fold gives winner {state.winner} by {state.end_reason}, the record says winner "
                       f"{winner} by {reason}", len(events) - 1)
    loser = 1 - state.winner
    if state.end_reason == "health" and state.players[loser].health > 0:  # R-WIN
        return Verdict(f"won on health, but the loser (player {loser}) has {state.players[loser].health} health",
                       len(events) - 1)
    if state.end_reason == "hard_error" and not (type(events[-2]) is HardError and events[-2].player == loser):
        return Verdict(f"won by a hard error, but the event before the end is not a hard error of player {loser}",
                       len(events) - 1)
    if game_id is None:
        return Verdict(None)
    found = check_id(game_id, events, meta)
    if not found.ok:
        return Verdict(found.message, 0)
    return Verdict(None, note=found.message)


def stored_problem(store, record, redecide: bool = True) -> Verdict:
    """`content_problem` of a stored game, after its hash chain (read once, checked against its record)."""
    from locm.errors import GameNotFoundError

    try:
        events = store.verified_events(record.game_id)
    except GameNotFoundError:  # its row was just read from the table: the look-up by id went wrong
        return Verdict("its row is in the games table, but looking its id up does not find it: an index of the "
                       "store is damaged (see locm verify --full)")
    except LocmError as exc:
        return Verdict(str(exc))
    from locm.store.eventstore import record_problem

    problem = record_problem(record, events)  # a column edited behind the store's back (the chain covers the log)
    if problem:
        return Verdict(problem, 0)
    verdict = content_problem(record.game_id, events, meta=record.meta, winner=record.winner, reason=record.reason,
                              redecide=redecide)
    if verdict.ok:
        problem = facts_problem(store, record, events)
        if problem:
            return Verdict(problem, -1, verdict.note)
    return verdict


def facts_problem(store, record, events: Sequence[Event]) -> str | None:
    """None if the facts the store keeps with a sound game (`EventStore.stored_facts`: what the card report
    counts instead of reading the log) are what its events give, or are not the report's to use (of another
    version, or of another head: the report projects that game from its events); else what differs, in one
    line. Stored facts are derived data anyone who can write the file can edit: this recomputes them."""
    from locm.analysis.cardfacts import project
    from locm.analysis.packedfacts import FACTS_VERSION, difference, packed, unpack

    row = store.stored_facts(record.game_id)
    if row is None or row[0] != record.head_hash or row[1] != FACTS_VERSION:
        return None
    try:
        stored = unpack(row[2])
    except ValueError as exc:
        found = str(exc)
    else:
        found = difference(stored, packed(project(events)))
    if found is None:
        return None
    return (f"its stored card facts are not what its events give ({found}): locm report counts them; locm report "
            "--rebuild recomputes them from the events")


def schedule_problems(store, records, ledger_ok: bool = True,
                      matches: Sequence = ()) -> tuple[list[str], list[str], int]:
    """What a store's recorded tournament schedules say it should hold and it does not: each schedule's games
    missing from the store (by place and id), games that claim a place whose game is another, games that name a
    schedule the store does not keep. ``records``: the stored LOCM games, ``matches``: the stored games of the
    other registered games (`MatchRecord`; their meta says their place, as LOCM's records' does). LOCM's
    schedules (`locm.games.locm.tournament.Schedule`) and the other games' (`locm.tournament.matchplay.MatchSchedule`) are checked
    alike.

    A scheduled game is missing either because it was never played (a tournament not finished: a note) or
    because it was deleted: the ledger tells which (``ledger_ok`` False: the missing games are problems).
    Returns the problems, the notes (one line each) and how many schedules are complete."""
    import json

    problems, notes, kept, complete = [], [], {}, 0
    by_id = {r.game_id: r for r in records}
    others = [m for m in matches if m.game != "locm"]
    by_id.update((m.game_id, m) for m in others)
    for key, manifest in store.schedules():
        try:
            jobs = _schedule_of(manifest)
        except (LocmError, ValueError) as exc:
            problems.append(f"schedule {key}: its manifest does not read: {exc}")
            continue
        if jobs.key != key:
            problems.append(f"schedule {key}: its manifest is not the one its key names (edited after it was kept)")
            continue
        kept[key] = jobs
        missing = []
        for k, job in enumerate(jobs):
            record = by_id.get(job.game_id)
            if record is None:
                missing.append((k, job.game_id))
                continue
            other = _not_the_job(jobs, job, record)
            if other:
                problems.append(f"schedule {key}: place {k} is game {job.game_id}, whose record is another game: "
                                f"{other}")
        shown = ", ".join(f"place {k} {gid}" for k, gid in missing[:5]) + (", ..." if len(missing) > 5 else "")
        if missing and ledger_ok:
            notes.append(f"schedule {key} ({_describe(jobs)}): not finished: {len(jobs) - len(missing)} played, "
                         f"{len(missing)} to play ({shown}); the ledger shows none deleted")
        elif missing:
            problems.append(f"schedule {key} ({_describe(jobs)}): {len(missing)} of its {len(jobs)} games missing "
                            f"(never played, or among the games the ledger says were deleted): {shown}")
        else:
            complete += 1
    for record in [*records, *others]:
        try:
            meta = json.loads(record.meta)
        except ValueError:
            continue
        key = meta.get("schedule") if isinstance(meta, dict) else None
        if key is None:
            continue
        jobs = kept.get(key)
        place = meta.get("place")
        if jobs is None:
            problems.append(f"game {record.game_id} says it is place {place} of schedule {key}, which the store "
                            "does not keep")
        elif not (type(place) is int and 0 <= place < len(jobs)) or jobs[place].game_id != record.game_id:
            expected = jobs[place].game_id if type(place) is int and 0 <= place < len(jobs) else "none"
            problems.append(f"game {record.game_id} says it is place {place} of schedule {key}, whose game there is "
                            f"{expected}")
    return problems, notes, complete


class StoreChecks(NamedTuple):
    """What `store_checks` found of the store as a whole (its games are checked one by one after it): lines
    for the user, each a problem or a note, and the figures of a sound store."""

    problems: list[str]
    notes: list[str]
    records: list
    ledger_games: int
    complete_schedules: int
    check: str  # which SQLite check ran: quick_check or integrity_check

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """The one line of a sound store."""
        n = self.complete_schedules
        return (f"{self.check} ok; ledger ok ({self.ledger_games} game{'s' * (self.ledger_games != 1)})"
                + (f"; {n} tournament schedule{'s' * (n != 1)} complete" if n else ""))


def store_checks(store, full: bool = False) -> StoreChecks:
    """A store as a whole: SQLite's quick_check (``full``: integrity_check), its ledger
    (`EventStore.ledger_problem`), its tournament schedules (`schedule_problems`); and its game records, for
    the caller to check each game (`stored_problem`)."""
    check = "integrity_check" if full else "quick_check"
    problems = [f"{check}: {line}" for line in store.integrity(full)]
    ledger = store.ledger_problem() if not problems else None
    if ledger:
        problems.append(f"ledger: {ledger}")
    try:
        matches = store.matches()  # every game's row, read once: LOCM's as their GameRecord too
    except LocmError as exc:
        problems.append(f"the games table does not read: {exc}")
        matches = []
    from locm.store.eventstore import LOCM, locm_record

    records = [locm_record(m) for m in matches if m.game == LOCM]
    scheduled, notes, complete = schedule_problems(store, records, ledger_ok=not problems, matches=matches)
    return StoreChecks(problems + scheduled, notes, records, store.ledger()[0], complete, check)


def _schedule_of(manifest: str):
    """The schedule a kept manifest describes: LOCM's round robin or another game's (by its ``kind``)."""
    import json

    from locm.tournament.schedule import MATCH_KIND, SeatsRoundRobin as MatchSchedule
    from locm.games.locm.tournament import RoundRobin as Schedule

    doc = json.loads(manifest)
    if isinstance(doc, dict) and doc.get("kind") == MATCH_KIND:
        return MatchSchedule.from_manifest(manifest)
    return Schedule.from_manifest(manifest)


def _not_the_job(jobs, job, record) -> str:
    """"" if a stored record is the scheduled job's game (its ruleset, seed, agents, and the seeds that seed
    derives: a scheduled game gives no parameter); else what differs. With the id check (`content_problem`),
    this ties every scheduled place to its game's content, not only to an id."""
    from locm.engine.locm.rulesets import by_name
    from locm.engine.locm.setup import PARAM_FIELDS, derive_params
    from locm.tournament.schedule import SeatsRoundRobin as MatchSchedule

    if isinstance(jobs, MatchSchedule):  # another game's: its id names its created event (`match_problem`)
        want_match = {"seed": job.seed, "agents": tuple(job.agents)}
        for field, value in want_match.items():
            if getattr(record, field, None) != value:
                return f"its {field} is {getattr(record, field, None)!r:.40}, the schedule's {value!r:.40}"
        return ""
    if not hasattr(record, "agent0"):
        return f"it is a {record.game} game, the schedule's are LOCM's"
    rules = by_name(jobs.ruleset) if isinstance(jobs.ruleset, str) else jobs.ruleset
    want = {"ruleset": rules.name, "seed": job.seed, "agent0": job.agent0, "agent1": job.agent1}
    want.update({PARAM_FIELDS[k]: v for k, v in derive_params(rules, job.seed).items() if k != "seed"})
    for field, value in want.items():
        if getattr(record, field) != value:
            return f"its {field} is {getattr(record, field)!r:.40}, the schedule's {value!r:.40}"
    return ""


def _describe(jobs) -> str:
    if hasattr(jobs, "describe"):
        return jobs.describe()
    name = jobs.ruleset if isinstance(jobs.ruleset, str) else jobs.ruleset.name
    return (f"{name}, {len(jobs.agents)} agents, seeds {jobs.seed}..{jobs.seed + jobs.seeds - 1}, "
            f"{len(jobs)} games")


class Checked(NamedTuple):
    """One game of a file `check_file` read: a label for it (the file, ``FILE game K`` or ``FILE GAME_ID``)
    and its `Verdict`."""

    label: str
    verdict: Verdict


def check_file(path: str, redecide: bool = True) -> list[Checked]:
    """Check every game of a file a user has (``-``: standard input): an event log (``locm play --log``), an
    official referee log (each game replayed as ``locm conformance`` does: every input the referee sent and
    the winner) or a store export (each game as an import checks it, the format first). A file that is none
    of these is one bad entry."""
    from locm.replay.game import ReplaySourceError
    from locm.replay.sources import read_source

    try:
        kind, data = read_source(path)
    except ReplaySourceError as exc:
        return [Checked(path, Verdict(str(exc).removeprefix(f"{path}: ")))]
    if kind == "events":
        return [Checked(path, _event_file(data, redecide))]
    if kind == "match":
        return [Checked(path, _match_file(data, redecide))]
    if kind == "account":
        return [Checked(path, _account_file(data))]
    if kind == "export":
        return _export_file(path, data, redecide)
    return _referee_file(path, data)


def _account_file(data: bytes) -> Verdict:
    """A my-card-game account's log (its collection economy, R-ACCOUNT): its seqs 0..n-1 and causes, every
    event re-decided from its command on the state before it (no negative balance, no card not owned), and
    every card owned at the end traced to a pack or a craft."""
    from locm.events.codec import DecodeError
    from locm.events.mcg.codec import ACCOUNT_CODEC
    from locm.games.mcg.accounts import account_problem

    try:
        events = ACCOUNT_CODEC.from_jsonl(data)
    except DecodeError as exc:
        return Verdict(f"not a my-card-game account log: {exc}")
    problem, seq = account_problem(events)
    return Verdict(problem, seq)


def _match_file(data: bytes, redecide: bool) -> Verdict:
    """A log of another registered game: the core's checks (`engine.core.verify`: its order and causes, its
    end, and re-deciding its inputs gives its events)."""
    from locm.engine import core
    from locm.events.codec import DecodeError
    from locm.replay.sources import game_of_line

    game = game_of_line(next(line for line in data.splitlines() if line.strip()))
    try:
        events = game.codec.from_jsonl(data)
        if not redecide:
            from locm.engine.logcheck import check_log

            check_log(game, events)
            return Verdict(None)
        found = core.verify(game, events)
    except DecodeError as exc:
        return Verdict(f"not a {game.title} log: {exc}")
    except LocmError as exc:
        return Verdict(str(exc), getattr(exc, "seq", -1))
    return Verdict(None) if found is None else Verdict(_departure(found), found.seq)


def _departure(d, limit: int = 240) -> str:
    """A `Divergence` in one line, each event's JSON cut to `limit` characters (a created event holds a
    whole card list)."""
    cut = lambda text: text if len(text) <= limit else text[:limit] + "..."  # noqa: E731
    text = f"it departs from the rules at seq {d.seq}: {d.message}"
    if d.stored or d.decided:
        text += f"; the log has {cut(d.stored) or 'no event'}, the rules give {cut(d.decided) or 'no event'}"
    return text


def match_problem(store, m, redecide: bool = True) -> Verdict:
    """A stored game of another registered game: its chain, its record (every column what its events and
    extras give, its id what its content gives) and, with ``redecide``, the core's `verify` of its log."""
    from locm.engine import core, registry
    from locm.store.eventstore import GameExtras, prepare_match

    try:
        game = registry.get(m.game)
        events = store.verified_match_events(m.game_id)
        again = prepare_match(game, GameExtras(game_id=m.game_id, created=m.created, meta=m.meta), events,
                              m.seats).record
    except LocmError as exc:
        return Verdict(str(exc))
    if again != m:
        field = next(f for f in m.__struct_fields__ if getattr(again, f) != getattr(m, f))
        return Verdict(f"the record says {field} {getattr(m, field)!r:.60}, its events say "
                       f"{getattr(again, field)!r:.60}", 0)
    if redecide:
        found = core.verify(game, events)
        if found is not None:
            return Verdict(_departure(found), found.seq)
    return Verdict(None)


def _event_file(data: bytes, redecide: bool) -> Verdict:
    from locm.events.locm.codec import DecodeError, from_jsonl

    try:
        events = from_jsonl(data)
    except DecodeError as exc:
        return Verdict(f"not an event log: {exc}")
    for i, e in enumerate(events):
        if e.seq != i:
            return Verdict(f"line {i + 1} has seq {e.seq}, expected {i}", i)
    return content_problem(None, events, redecide=redecide)


def _export_file(path: str, data: bytes, redecide: bool) -> list[Checked]:
    from locm.errors import ImportFormatError
    from locm.events.locm.codec import from_json_array, json_array
    from locm.store.eventstore import MemoryStore, _parse_export

    from locm.store.records import MatchRecord, _Prepared

    out = []
    try:  # a schedule's key and an account's log (re-decided) are checked as the file is read
        for prepared in _parse_export(data.splitlines(), MemoryStore(), False, [0, 0, 0], check=False):
            if type(prepared) is not _Prepared:
                continue
            record = prepared.record
            if isinstance(record, MatchRecord):  # another game's: the core's checks, as a stored one's
                out.append(Checked(f"{path} {record.game_id}", _other_game_log(record.game, prepared.data,
                                                                               redecide)))
                continue
            events = from_json_array(json_array(zlib.decompress(prepared.data)))
            out.append(Checked(f"{path} {record.game_id}", content_problem(
                record.game_id, events, meta=record.meta, winner=record.winner, reason=record.reason,
                redecide=redecide)))
    except ImportFormatError as exc:  # the format itself: the rest of the file cannot be read as games
        out.append(Checked(path, Verdict(str(exc))))
    return out


def _other_game_log(name: str, data: bytes, redecide: bool) -> Verdict:
    """A stored log (zlib of JSON lines) of another registered game: `engine.core.verify` (re-decided) or, without
    ``redecide``, its order and causes."""
    from locm.engine import core, registry
    from locm.engine.logcheck import check_log
    from locm.events.locm.codec import json_array

    game = registry.get(name)
    try:
        events = game.codec.from_json_array(json_array(zlib.decompress(data)))
        if not redecide:
            check_log(game, events)
            return Verdict(None)
        found = core.verify(game, events)
    except LocmError as exc:
        return Verdict(str(exc), getattr(exc, "seq", -1))
    return Verdict(None) if found is None else Verdict(_departure(found), found.seq)


def _referee_file(path: str, data: bytes) -> list[Checked]:
    from locm.replay.locm.conformance import ConformanceFileError, check_game, check_generated_cards, parse_log_line

    out = []
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    for k, line in enumerate(lines):
        label = f"{path} game {k}"
        try:
            logged = parse_log_line(line, k, path, k + 1)
        except ConformanceFileError as exc:
            out.append(Checked(label, Verdict(str(exc).removeprefix(f"{path}:"))))
            continue
        result = check_game(logged)
        problem = None if result.identical else result.summary().partition(": ")[2].replace("\n    ", "; ")
        problem = problem or check_generated_cards(logged)
        out.append(Checked(label, Verdict(problem)))
    return out


__all__ = ["Verdict", "Checked", "StoreChecks", "content_problem", "stored_problem", "check_file",
           "schedule_problems", "store_checks"]
