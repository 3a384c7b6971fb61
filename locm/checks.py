"""Checking a game before anyone trusts it: every door (import, import-referee, migrate, `locm verify`) asks the
same questions of a game's log (`content_problem`), and `locm verify` adds the stored game's chain
(`stored_problem`).

- Its id is what its content gives (`locm.gameid.check_id`), so a game cannot sit under another game's id.
- The fold of its events ends the game, with the winner and reason its record says.
- Re-deciding its recorded inputs (`engine.redecide`) gives exactly its events: a log edited and re-chained
  fails at the first event the rules would not produce (the seq, the event it has, the event the rules give).

A problem is one line of text; an id that is sound but of an older form that cannot be recomputed is passed as
a note (`Verdict.note`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from locm.engine.errors import LocmError
from locm.events.catalog import Event, GameEnded, HardError


class Verdict(NamedTuple):
    """``problem`` (one line) or None when the game is sound; ``seq`` where the log departs (-1 when the
    problem is not one event's); ``note``: something a reader should know about a sound game."""

    problem: str | None
    seq: int = -1
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.problem is None


def content_problem(game_id: str, events: Sequence[Event], *, meta: str = "{}", winner: int | None = None,
                    reason: str | None = None, redecide: bool = True) -> Verdict:
    """Check a whole log: re-deciding its inputs gives its events (``redecide``), the fold ends the game (with
    ``winner`` and ``reason`` when given: a stored record's), and ``game_id`` is what its content gives."""
    from locm.engine.evolve import fold
    from locm.engine.state import ENDED
    from locm.gameid import check_id

    if not events or type(events[-1]) is not GameEnded:
        return Verdict(f"the last event is {type(events[-1]).__name__ if events else 'missing'}, not game_ended",
                       len(events) - 1)
    if redecide:  # first: it names the first event the rules would not produce (and implies the fold's checks)
        from locm.engine.redecide import redecide as redecide_log

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
    found = check_id(game_id, events, meta)
    if not found.ok:
        return Verdict(found.message, 0)
    return Verdict(None, note=found.message)


def stored_problem(store, record, redecide: bool = True) -> Verdict:
    """`content_problem` of a stored game, after its hash chain (read once, checked against its record)."""
    try:
        events = store.verified_events(record.game_id)
    except LocmError as exc:
        return Verdict(str(exc))
    return content_problem(record.game_id, events, meta=record.meta, winner=record.winner, reason=record.reason,
                           redecide=redecide)


__all__ = ["Verdict", "content_problem", "stored_problem"]
