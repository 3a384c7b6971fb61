"""The event buffer of one Skyport decision.

`decide` never changes the state it is given. A decision's later steps depend on its earlier facts (a robot a
mortar just destroyed loses its next turn; the turn ends after the third action), so `Out` applies each fact
it emits to a private copy of the state with the same `evolve` the fold uses: what `decide` reads is exactly
what the log will lead to, and the two can never disagree.
"""

from __future__ import annotations

from typing import Any, TypeVar

from locm.engine.skyport.evolve import evolve
from locm.engine.skyport.state import SkyportState
from locm.events.skyport.catalog import Event, GameEnded

E = TypeVar("E", bound=Event)


class Out:
    __slots__ = ("state", "events", "cause")

    def __init__(self, state: SkyportState, cause: int = -1) -> None:
        self.state = state.copy()
        self.events: list[Event] = []
        self.cause = cause

    def emit(self, cls: type[E], rule: str, **fields: Any) -> E:
        event = cls(seq=self.state.seq, cause=self.cause, rule=rule, **fields)
        evolve(self.state, event)
        self.events.append(event)
        return event

    def end_game(self, reason: str, rule: str, winner: int | None = None) -> None:
        """The game is over (R-END): scores, the ranking by score (R-RANK) and the server's winner: the first
        player (by slot) with the highest score, or -1 when another player of another name has it too."""
        robots = self.state.robots
        scores = tuple(r.score for r in robots)
        ranking = tuple(sorted(range(len(robots)), key=lambda i: (-scores[i], i)))
        if winner is None:
            best = max(scores)
            first = next(r for r in robots if r.score == best)
            tie = any(r.score == best and r.name != first.name for r in robots)
            winner = -1 if tie else first.slot
        self.emit(GameEnded, rule, turn=self.state.turn, reason=reason, scores=scores, ranking=ranking,
                  winner=winner)

    def crash(self, player: int) -> None:
        """The action stopped the 2013 server's game thread (R-MORTAR-CRASH): the game ends here, unfinished."""
        self.end_game("server-crash", "R-MORTAR-CRASH", winner=-1)


__all__ = ["Out"]
