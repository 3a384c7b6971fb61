"""Checking a game before anyone trusts it: every door (import, import-referee, migrate, `locm verify`) asks the
same questions of a game's log (`content_problem`), and `locm verify` adds the stored game's chain
(`stored_problem`).

- Its id is what its content gives, so a game cannot sit under another game's id.
- The fold of its events ends the game, with the winner and reason its record says.
- Re-deciding its recorded inputs gives exactly its events: a log edited and re-chained fails at the first event
  the rules would not produce (the seq, the event it has, the event the rules give).
- Its built-in agents, re-run on its seed, make its decisions (`agents_problem`,
  `locm.provenance.agents.rerun_agents`): a game relabelled as another agent's fails at the first decision that
  is not that agent's. A seat played by a command-line bot cannot be re-run; an imported game that has one is
  kept as untrusted provenance (`locm.store.provenance`).
- A game of built-in agents only whose game plays it out whole at once (`GameDef.play_out`, LOCM's native core)
  and gets its log byte for byte is proven by that one run for both of the last two (`proven`); one that does
  not get it is re-decided and re-run decision by decision, so what is named is the same either way.

The checks know no game: what one game asks beyond the core's `engine.core.verify` (LOCM's fold, id and card
facts, my-card-game's accounts, the files only one game has) comes from the module its definition names
(``GameDef.edges``, `locm.store.hooks.edges`), and a tournament's schedules are read by the `Schedules` the
caller hands in (`locm.games.registry.SCHEDULES`). `Checker` is what the store is handed to check an import.

A problem is one line of text; an id that is sound but of an older form that cannot be recomputed is passed as
a note (`Verdict.note`).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import NamedTuple

from locm.engine.errors import LocmError
from locm.events.base import Event
from locm.store import provchain
from locm.store.hooks import edges


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
                    reason: str | None = None, redecide: bool = True, game=None, proven: bool = False) -> Verdict:
    """Check a whole log of ``game`` (default: the registered game whose created event opens it): its game's own
    checks when its definition's edges give them (``content_problem``: LOCM's re-decided inputs, fold, winner
    and id), else the core's (`engine.core.verify`, with ``redecide``; `engine.logcheck` without). ``winner``
    and ``reason``: a stored record's; ``game_id`` None: a log file, which names no id. ``proven``: the log is
    what its game plays out whole (`proven`), so it is not re-decided (its own checks are told so: a game's
    edges that check content and whose definition has ``play_out`` take ``proven``)."""
    game = game if game is not None else game_of(events)
    known = behaviour_verdict(game, events)
    if not known.ok:
        return known
    own = getattr(edges(game), "content_problem", None)
    if own is not None:
        more = {"proven": True} if proven else {}
        verdict = own(game_id, events, meta=meta, winner=winner, reason=reason, redecide=redecide and not proven,
                      **more)
    else:
        verdict = core_verdict(game, events, redecide and not proven)
        verdict = verdict if not verdict.ok else _id_problem(game, game_id, events)
    if not verdict.ok or not known.note:
        return verdict
    return verdict._replace(note="; ".join(n for n in (verdict.note, known.note) if n))


def behaviour_verdict(game, events: Sequence[Event]) -> Verdict:
    """A log decided under a behaviour of its game's rules this engine does not know is a problem ("decided
    under behaviour 7; this engine knows 1..2"); one decided under an earlier one than this engine's is sound
    with a note ("decided under behaviour 1 (this engine: 2)": it was re-decided under that one)."""
    from locm.engine.seam import behaviour_line, behaviour_of, check_behaviour

    if not events:
        return Verdict(None)
    try:
        check_behaviour(events[0], game.behaviour)
    except LocmError as exc:
        return Verdict(str(exc), 0)
    earlier = behaviour_of(events[0]) != game.behaviour
    return Verdict(None, note=behaviour_line(game, events[0]) if earlier else "")


def _id_problem(game, game_id: str | None, events: Sequence[Event]) -> Verdict:
    """A game's id is what its content gives (`engine.seam.GameDef.game_id`; None: a log file, which names none)."""
    from locm.engine.seam import game_id_of
    from locm.events.base import tag_of

    if game_id is None or not events:
        return Verdict(None)
    try:
        expected = game_id_of(game, events)
    except LocmError as exc:
        return Verdict(str(exc), 0)
    if expected == game_id:
        return Verdict(None)
    if game.continued_id is not None and game_id == game.continued_id(events):  # played on from a position
        return Verdict(None)
    return Verdict(f"the id is not what its content gives: its {tag_of(game.created)} gives {expected}", 0)


def core_verdict(game, events: Sequence[Event], redecide: bool = True) -> Verdict:
    """What the core says of a game's log (`engine.seam.GameDef`): its order and causes (`engine.logcheck`), and
    with ``redecide`` every event re-decided from its recorded inputs (`engine.core.verify`)."""
    from locm.engine import core
    from locm.engine.logcheck import check_log

    try:
        if not redecide:
            check_log(game, events)
            return Verdict(None)
        found = core.verify(game, events)
    except LocmError as exc:
        return Verdict(str(exc), getattr(exc, "seq", -1))
    return Verdict(None) if found is None else Verdict(_departure(found), found.seq)


def game_of(events: Sequence[Event]):
    """The registered game whose created event opens ``events`` (the default game for an empty log)."""
    from locm.engine import registry

    if events:
        for name in registry.GAMES:
            game = registry.get(name)
            if type(events[0]) is game.created:
                return game
    return registry.get(registry.DEFAULT)


class Checker:
    """What the store is handed to check an import or a migration (`locm.store.hooks.Checker`): a game's content
    as `locm verify` checks it, and the schedules ``schedules`` reads (`locm.games.registry.SCHEDULES`)."""

    def __init__(self, schedules) -> None:
        self.schedules = schedules

    def game_problem(self, game, game_id: str | None, events: Sequence[Event], *, meta: str = "{}") -> Verdict:
        whole = proven(game, events, meta)
        verdict = content_problem(game_id, events, meta=meta, game=game, proven=whole)
        if not verdict.ok:
            return verdict
        return Verdict(None) if whole else agents_problem(game, events, meta)

    def schedule_of(self, manifest: str):
        return self.schedules.of(manifest)


def proven(game, events: Sequence[Event], meta: str = "{}", lines: Sequence[bytes] | None = None) -> bool:
    """Whether a game's log is what its game plays out whole at once from its created event
    (`locm.provenance.agents.played_out`): its inputs then re-decide to its events and its built-in agents make
    its decisions, so neither is checked decision by decision. A game played on from a position (its ``meta``'s
    ``continued_from``) never is. ``lines``: the JSON lines, as stored, the events were decoded from (those are
    compared)."""
    from locm.provenance.agents import played_out

    return played_out(game, events, _continued(meta), lines)


def agents_problem(game, events: Sequence[Event], meta: str = "{}") -> Verdict:
    """A sound game's built-in agents re-run on its seed (`locm.provenance.agents.rerun_agents`): the first
    decision that is not theirs, as a problem; a game whose agents cannot be re-run (a command-line bot,
    parameters given by hand) is not one. A game played on from a position (its ``meta``'s ``continued_from``)
    is re-run with the agents that played up to it, then its own."""
    from locm.provenance.agents import rerun_agents

    found = rerun_agents(game, events, _continued(meta))
    return Verdict(found.why, found.seq) if found.status == "differs" else Verdict(None)


def _continued(meta: str) -> tuple[int, list[str]] | None:
    """A record meta's ``continued_from`` as (seq, agents), or None (none, or not of that shape)."""
    try:
        made = json.loads(meta).get("continued_from") if meta else None
    except (ValueError, AttributeError):
        return None
    if not isinstance(made, dict):
        return None
    seq, agents = made.get("seq"), made.get("agents")
    if type(seq) is not int or not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        return None
    return seq, agents


def stored_problem(store, record, redecide: bool = True) -> Verdict:
    """A stored game of any game, as `locm verify` checks it: its hash chain (read once, checked against its
    record), its record (every column what its events and extras give: `locm.store.records.record_problem`),
    `content_problem` (its game's own checks, or the core's re-decision and its id), with ``redecide`` its
    built-in agents re-run (`agents_problem`), and the derived rows the store keeps with it (`facts_problem`)."""
    from locm.engine import registry
    from locm.errors import GameNotFoundError
    from locm.store.records import record_problem

    try:
        game = registry.get(record.game)
        events, lines, head = store.verified_log(record.game_id)
    except GameNotFoundError:  # its row was just read from the table: the look-up by id went wrong
        return Verdict("its row is in the games table, but looking its id up does not find it: an index of the "
                       "store is damaged (see locm verify --full)")
    except LocmError as exc:
        return Verdict(str(exc))
    # one run proves both re-decisions below, and that the stored lines are the events' own encoding
    whole = redecide and proven(game, events, record.meta, lines)
    # a column edited behind the store's back (the chain covers the log)
    problem = record_problem(game, record, events, (lines, head) if whole else None)
    if problem:
        return Verdict(problem, 0)
    verdict = content_problem(record.game_id, events, meta=record.meta, winner=record.winner, reason=record.reason,
                              redecide=redecide, game=game, proven=whole)
    if verdict.ok and redecide and not whole:
        again = agents_problem(game, events, record.meta)
        if not again.ok:
            return Verdict(again.problem, again.seq, verdict.note)
    if verdict.ok:
        problem = facts_problem(store, record, events)
        if problem:
            return Verdict(problem, -1, verdict.note)
    return verdict


def facts_problem(store, record, events: Sequence[Event]) -> str | None:
    """None if the derived rows the store keeps with a sound game are what its events give (or its game keeps
    none: its definition's edges give no ``facts_problem``); else what differs, in one line."""
    own = getattr(edges(game_of(events)), "facts_problem", None)
    return None if own is None else own(store, record, events)


def schedule_problems(store, records, ledger_ok: bool = True, matches: Sequence = (), *,
                      schedules) -> tuple[list[str], list[str], int]:
    """What a store's recorded tournament schedules say it should hold and it does not: each schedule's games
    missing from the store (by place and id), games that claim a place whose game is another, games that name a
    schedule the store does not keep. ``records``: the stored LOCM games, ``matches``: the stored games of the
    other registered games (`GameRecord`; their meta says their place, as LOCM's records' does). ``schedules``
    reads the kept manifests (``of``), ties a place to its record (``not_the_job``) and names a schedule
    (``describe``): `locm.games.registry.SCHEDULES`, every kind of schedule alike.

    A scheduled game is missing either because it was never played (a tournament not finished: a note) or
    because it was deleted: the ledger tells which (``ledger_ok`` False: the missing games are problems).
    Returns the problems, the notes (one line each) and how many schedules are complete."""
    import json

    problems, notes, kept, complete = [], [], {}, 0
    by_id = {r.game_id: r for r in [*records, *matches]}
    for key, manifest in store.schedules():
        try:
            jobs = schedules.of(manifest)
        except (LocmError, ValueError) as exc:
            problems.append(f"schedule {key}: its manifest does not read: {exc}")
            continue
        if jobs.key != key:
            problems.append(f"schedule {key}: its manifest is not the one its key names (edited after it was kept)")
            continue
        kept[key] = listed = list(jobs)  # each job made once (a job's id is computed from its seeds)
        missing = []
        for k, job in enumerate(listed):
            record = by_id.get(job.game_id)
            if record is None:
                missing.append((k, job.game_id))
                continue
            other = schedules.not_the_job(jobs, job, record)
            if other:
                problems.append(f"schedule {key}: place {k} is game {job.game_id}, whose record is another game: "
                                f"{other}")
        shown = ", ".join(f"place {k} {gid}" for k, gid in missing[:5]) + (", ..." if len(missing) > 5 else "")
        if missing and ledger_ok:
            notes.append(f"schedule {key} ({schedules.describe(jobs)}): not finished: {len(jobs) - len(missing)} "
                         f"played, {len(missing)} to play ({shown}); the ledger shows none deleted")
        elif missing:
            problems.append(f"schedule {key} ({schedules.describe(jobs)}): {len(missing)} of its {len(jobs)} games "
                            f"missing (never played, or among the games the ledger says were deleted): {shown}")
        else:
            complete += 1
    for record in by_id.values():
        try:
            meta = json.loads(record.meta)
        except ValueError:
            continue
        key = meta.get("schedule") if isinstance(meta, dict) else None
        if key is None:
            continue
        jobs = kept.get(key)  # the schedule's jobs, as listed above
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


def store_checks(store, full: bool = False, *, schedules) -> StoreChecks:
    """A store as a whole: SQLite's quick_check (``full``: integrity_check), its ledger
    (`EventStore.ledger_problem`), its tournament schedules (`schedule_problems`, read by ``schedules``:
    `locm.games.registry.SCHEDULES`); and its game records, for the caller to check each game
    (`stored_problem`)."""
    check = "integrity_check" if full else "quick_check"
    problems = [f"{check}: {line}" for line in store.integrity(full)]
    ledger = store.ledger_problem() if not problems else None
    if ledger:
        problems.append(f"ledger: {ledger}")
    try:
        matches = store.games()  # every game's row, read once
    except LocmError as exc:
        problems.append(f"the games table does not read: {exc}")
        matches = []
    records = [m for m in matches if _own_checks(m.game)]
    scheduled, notes, complete = schedule_problems(store, records, ledger_ok=not problems, matches=matches,
                                                   schedules=schedules)
    chained = []  # the provenance rows against their chain (`locm.store.provchain`)
    for line in store.provenance_problems() if not problems else []:
        (notes if line == provchain.NOT_CHAINED else chained).append(f"provenance chain: {line}")
    return StoreChecks(problems + chained + scheduled, notes, matches, store.ledger()[0], complete, check)


LISTED = 20
"""The games `provenance_lines` names one by one under each heading; the rest are counted."""


def provenance_lines(store) -> list[str]:
    """`locm verify`'s listing of the games that did not come in as played here, apart from those that did
    (`locm.store.provenance`): imported from a trusted (signed, ``--trust``) file, imported untrusted (kept,
    never counted), without provenance (written behind the store's back), each game with where it came from
    (at most `LISTED` a heading); and a line for the games stored before the store recorded provenance.
    [] when every game was played here."""
    try:
        found = store.provenances()
    except LocmError as exc:  # a damaged page: the rest of the check still says what it found
        return [f"provenance: does not read: {exc}"]
    groups: dict[str, list[tuple[str, str]]] = {"trusted": [], "untrusted": [], "unrecorded": []}
    before = 0
    for gid, came in found.items():
        if came.kind == "imported":
            groups["trusted" if came.counted else "untrusted"].append((gid, came.text()))
        elif came.kind == "unrecorded":
            groups["unrecorded"].append((gid, came.text()))
        elif came.kind == "before":
            before += 1
    heads = {"trusted": "imported from trusted files (counted)",
             "untrusted": "imported, not trusted (kept; never counted by a tournament or its standings)",
             "unrecorded": "without provenance (not counted)"}
    lines = []
    for kind, games in groups.items():
        if not games:
            continue
        lines.append(f"provenance: {len(games)} game{'s' * (len(games) != 1)} {heads[kind]}:")
        lines += [f"  {gid}: {text}" for gid, text in games[:LISTED]]
        if len(games) > LISTED:
            lines.append(f"  ... and {len(games) - LISTED} more")
    if before:
        lines.append(f"provenance: {before} game{'s' * (before != 1)} stored before this store recorded provenance "
                     "(counted as played here, run unknown)")
    return lines


class Checked(NamedTuple):
    """One game of a file `check_file` read: a label for it (the file, ``FILE game K`` or ``FILE GAME_ID``)
    and its `Verdict`."""

    label: str
    verdict: Verdict


def check_file(path: str, redecide: bool = True, *, schedules=None) -> list[Checked]:
    """Check every game of a file a user has (``-``: standard input): an event log (``locm play --log``), an
    official referee log (each game replayed as ``locm conformance`` does: every input the referee sent and
    the winner) or a store export (each game as an import checks it, the format first). A file that is none
    of these is one bad entry. ``schedules`` (`locm.games.registry.SCHEDULES`) reads an export's schedules, to
    check each one's key (None: not checked)."""
    from locm.replay.game import ReplaySourceError
    from locm.replay.sources import read_source

    try:
        kind, data = read_source(path)
    except ReplaySourceError as exc:
        return [Checked(path, Verdict(str(exc).removeprefix(f"{path}: ")))]
    if kind == "match":
        return [Checked(path, _match_file(data, redecide))]
    if kind == "export":
        return _export_file(path, data, redecide, schedules)
    from locm.engine import registry

    for name in registry.GAMES:  # a kind of file only one game has: its definition's edges check it
        own = getattr(edges(registry.get(name)), "FILE_CHECKS", {}).get(kind)
        if own is not None:
            return own(path, data, redecide)
    return [Checked(path, Verdict(f"no registered game reads a file of kind {kind!r}"))]


def _match_file(data: bytes, redecide: bool) -> Verdict:
    """A log of another registered game: the core's checks (`engine.core.verify`: its order and causes, its
    end, and re-deciding its inputs gives its events), then its built-in agents re-run (`agents_problem`)."""
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
    if found is not None:
        return Verdict(_departure(found), found.seq)
    noted = behaviour_verdict(game, events)
    again = agents_problem(game, events) if noted.ok else noted
    return noted if again.ok else Verdict(again.problem, again.seq, noted.note)


def _departure(d, limit: int = 240) -> str:
    """A `Divergence` in one line, each event's JSON cut to `limit` characters (a created event holds a
    whole card list)."""
    cut = lambda text: text if len(text) <= limit else text[:limit] + "..."  # noqa: E731
    text = f"it departs from the rules at seq {d.seq}: {d.message}"
    if d.stored or d.decided:
        text += f"; the log has {cut(d.stored) or 'no event'}, the rules give {cut(d.decided) or 'no event'}"
    return text


def _export_file(path: str, data: bytes, redecide: bool, schedules=None) -> list[Checked]:
    from locm.engine import registry
    from locm.errors import ImportFormatError
    from locm.events.codec import json_array
    from locm.store.eventstore import MemoryStore
    from locm.store.export import parse_export
    from locm.store.records import _Prepared

    out = []
    try:  # a schedule's key and an account's log (re-decided) are checked as the file is read
        checker = None if schedules is None else Checker(schedules)
        for prepared in parse_export(data.splitlines(), MemoryStore(), False, [0, 0, 0], False, checker):
            if type(prepared) is not _Prepared:
                continue
            record = prepared.record
            if not _own_checks(record.game):  # a game without checks of its own: the core's, as a stored one's
                out.append(Checked(f"{path} {record.game_id}", _other_game_log(record.game, prepared.data,
                                                                               redecide)))
                continue
            game = registry.get(record.game)
            events = game.codec.from_json_array(json_array(zlib.decompress(prepared.data)))
            whole = redecide and proven(game, events)  # as its agents are re-run below: from its opening
            verdict = content_problem(record.game_id, events, meta=record.meta, winner=record.winner,
                                      reason=record.reason, redecide=redecide, game=game, proven=whole)
            if verdict.ok and redecide and not whole:  # its built-in agents re-run, as an import does
                verdict = agents_problem(game, events)._replace(note=verdict.note)
            out.append(Checked(f"{path} {record.game_id}", verdict))
    except ImportFormatError as exc:  # the format itself: the rest of the file cannot be read as games
        out.append(Checked(path, Verdict(str(exc))))
    return out


def _own_checks(name: str) -> bool:
    """Whether a registered game's definition's edges give checks of its own (``content_problem``: LOCM's)."""
    from locm.engine import registry

    try:
        game = registry.get(name)
    except LocmError:  # a game this locm does not know: the core's checks say so, one line
        return False
    return getattr(edges(game), "content_problem", None) is not None


def _other_game_log(name: str, data: bytes, redecide: bool) -> Verdict:
    """A stored log (zlib of JSON lines) of another registered game: `engine.core.verify` (re-decided) or, without
    ``redecide``, its order and causes."""
    from locm.engine import registry
    from locm.events.codec import json_array

    game = registry.get(name)
    try:
        events = game.codec.from_json_array(json_array(zlib.decompress(data)))
    except LocmError as exc:
        return Verdict(str(exc), getattr(exc, "seq", -1))
    return core_verdict(game, events, redecide)


__all__ = ["Verdict", "Checked", "Checker", "StoreChecks", "agents_problem", "content_problem", "provenance_lines",
           "stored_problem", "facts_problem",
           "check_file", "game_of", "schedule_problems", "store_checks"]
