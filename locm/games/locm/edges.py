"""LOCM's parts at the edges, as its definition names them (``GameDef.edges``): what the store keeps beside a
LOCM game (its card facts, `facts`) and what `locm verify` asks of a LOCM log beyond the core's checks
(`content_problem`, `facts_problem`, and the files only LOCM has: its event logs and the official referee's).
The store and verify reach these through the definition (`locm.store.hooks.edges`), never by the game's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def facts(events: Sequence[Any], data: bytes) -> tuple[str, bytes, bytes] | None:
    """A checked LOCM log's facts as the store keeps them beside it: ``(FACTS_VERSION, blob, log hash)``, the
    blob from the one fold (`analysis.locm.cardfacts.project`, packed by `analysis.locm.packedfacts.pack`) and the SHA-256
    of the stored log's bytes ``data`` (`locm.store.records.log_hash`), computed where the events are in memory
    (a tournament worker, a what-if re-run, an import), so that the card report need not fold the log again
    and can tell that the log is still the one they came from. None if they cannot be computed: derived data
    never keeps a game from being stored (the report then projects that game from its events, and says what
    is wrong with it there)."""
    from locm.analysis.locm.cardfacts import project
    from locm.analysis.locm.packedfacts import FACTS_VERSION, pack
    from locm.store.records import log_hash

    try:
        return FACTS_VERSION, pack(project(events)), log_hash(data)
    except Exception:  # a log the fold cannot read: the events stay the truth, the facts are left out
        return None


RECORD_FIELDS = ("ruleset_version", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
                 "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme")
"""The fields of `game_created` a LOCM game's record keeps in its ``fields`` (beside its ruleset and seed)."""


def record_fields(created: Any) -> dict[str, Any]:
    """What a LOCM game's record keeps in its ``fields`` (`locm.store.hooks.record_fields_of`): the columns of
    store schema 2 that only LOCM has, its ``game_created`` fields and its event schema."""
    found = {f: getattr(created, f) for f in RECORD_FIELDS}
    found["event_schema_version"] = created.schema_version
    return found


def seat_extras(events: Sequence[Any]) -> tuple[Any, ...]:
    """Each seat's extras as a LOCM log gives them (`locm.store.hooks.seat_extras_of`): ``error`` when the
    seat made a hard error, ``timeout`` when the error was a timeout (what the runner would have recorded)."""
    from locm.events.locm.catalog import HardError
    from locm.store.records import SeatExtras

    errors = [e for e in events if type(e) is HardError]
    return tuple(SeatExtras(error=any(e.player == p for e in errors),
                            timeout=any(e.player == p and e.reason.startswith("timeout") for e in errors))
                 for p in (0, 1))


def content_problem(game_id: str | None, events: Sequence[Any], *, meta: str = "{}", winner: int | None = None,
                    reason: str | None = None, redecide: bool = True, proven: bool = False):
    """Check a whole LOCM log: re-deciding its inputs gives its events (``redecide``), the fold ends the game
    (with ``winner`` and ``reason`` when given: a stored record's), and ``game_id`` is what its content gives
    (None: a log file, which names no id; `engine.locm.gameid.check_id`, whose note an id of an older form
    that cannot be recomputed gets). ``proven``: the log is byte for byte a game the rules played out whole
    (`locm.verify.checks.proven`): neither re-decided nor folded, as the rules' own events end the game by its
    rules, and the winner and reason given are compared with its end event's (the fold's)."""
    from locm.engine.locm.folding import fold
    from locm.engine.locm.state import ENDED
    from locm.events.locm.catalog import GameEnded, HardError
    from locm.verify.checks import Verdict

    if not events or type(events[-1]) is not GameEnded:
        return Verdict(f"the last event is {type(events[-1]).__name__ if events else 'missing'}, not game_ended",
                       len(events) - 1)
    if proven:
        end = events[-1]
        if winner is not None and (end.winner, end.reason) != (winner, reason):
            return Verdict(f"the fold gives winner {end.winner} by {end.reason}, the record says winner "
                           f"{winner} by {reason}", len(events) - 1)
        return _id_verdict(game_id, events, meta)
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
    return _id_verdict(game_id, events, meta)


def _id_verdict(game_id: str | None, events: Sequence[Any], meta: str):
    """``game_id`` is what the log's content gives (None: a log file, which names no id)."""
    from locm.engine.locm.gameid import check_id
    from locm.verify.checks import Verdict

    if game_id is None:
        return Verdict(None)
    found = check_id(game_id, events, meta)
    if not found.ok:
        return Verdict(found.message, 0)
    return Verdict(None, note=found.message)


def facts_problem(store: Any, record: Any, events: Sequence[Any]) -> str | None:
    """None if the facts the store keeps with a sound game (`EventStore.stored_facts`: what the card report
    counts instead of reading the log) are what its events give, or are not the report's to use (of another
    version, or of another head: the report projects that game from its events); else what differs, in one
    line. Stored facts are derived data anyone who can write the file can edit: this recomputes them."""
    from locm.analysis.locm.cardfacts import project
    from locm.analysis.locm.packedfacts import FACTS_VERSION, difference, packed, unpack

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


def _event_file(path: str, data: bytes, redecide: bool) -> list:
    """A LOCM event log (``locm play --log``): its seqs, then `content_problem`."""
    from locm.events.locm.codec import DecodeError, from_jsonl
    from locm.verify.checks import Checked, Verdict, content_problem as checked

    try:
        events = from_jsonl(data)
    except DecodeError as exc:
        return [Checked(path, Verdict(f"not an event log: {exc}"))]
    for i, e in enumerate(events):
        if e.seq != i:
            return [Checked(path, Verdict(f"line {i + 1} has seq {e.seq}, expected {i}", i))]
    return [Checked(path, checked(None, events, redecide=redecide))]  # its behaviour, then this module's


def _referee_file(path: str, data: bytes, redecide: bool) -> list:
    """An official referee log: each game replayed as ``locm conformance`` does (every input the referee sent
    and the winner)."""
    from locm.replay.locm.conformance import ConformanceFileError, check_game, check_generated_cards, parse_log_line
    from locm.verify.checks import Checked, Verdict

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


FILE_CHECKS = {"events": _event_file, "official": _referee_file}
"""`locm verify FILE` of the kinds of file only LOCM has (`locm.replay.sources.read_source`'s kinds)."""



def listing_ruleset(store, spec: str) -> str:
    """`locm games --ruleset` of LOCM: the stored ruleset name it means (an alias, a variant file's name, or the
    name of a variant with games in the store: `locm.games.locm.variants.ruleset_name`)."""
    from locm.games.locm.variants import ruleset_name

    return ruleset_name(spec, store)


def turns_shown(turns: int) -> int:
    """A LOCM game's length as `locm games` shows it: the battle turns begun (`locm.games.locm.play.turns_played`)."""
    from locm.games.locm.play import turns_played

    return turns_played(turns)


def listing_columns(store, records) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """`locm games`' column of LOCM: the rules each game ran under, as its ``game_created`` records them."""
    from locm.games.locm.variants import rules_identities

    found = rules_identities(store, [r.game_id for r in records])
    return ("rules (base #hash)",), {gid: (text,) for gid, text in found.items()}


__all__ = ["facts", "record_fields", "seat_extras", "content_problem", "facts_problem", "FILE_CHECKS",
           "listing_ruleset", "turns_shown", "listing_columns"]
