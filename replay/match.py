"""`MatchReplay`: a game of any registered game (`engine.seam.GameDef`), ready to be stepped through and
questioned: the viewer shell of `locm show`, `locm audit` and `locm replay` for the games other than LOCM (LOCM's
own, richer `replay.game.Replay` stays its). Nothing here knows a game: states come from `engine.history`,
words from the game's ``describe``, boards from its ``view`` and ``board_text``, the trust from the core's
`verify` (a log that departs from its rules is shown with a warning naming where).
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence

from locm.engine import core
from locm.engine.errors import LocmError
from locm.engine.history import History
from locm.engine.logcheck import causes
from locm.engine.seam import Divergence, GameDef
from locm.events.base import tag_of


WHY_HOOKS: dict[str, str] = {"skyport": "locm.replay.skyport.audit"}
"""A game's own answers for `explain`, by game name: a module whose ``why(replay, seq)`` gives the lines that
answer the question an event raises (a shot that missed, a penalty), from the log and its map."""


class MatchReplayError(LocmError):
    """A log that cannot be read as a game of its game, or a seq it does not have."""


class MatchReplay:
    def __init__(self, game: GameDef, events: Sequence[Any], source: str = "", trusted: bool = False) -> None:
        self.game = game
        self.source = source
        try:
            self.departure: Divergence | None = None if trusted else core.verify(game, events)
            self.history = History(game, events)
            self.final = self.history.final()
        except LocmError as exc:
            raise MatchReplayError(f"{source or 'log'}: not a {game.title} game: {exc}") from None
        self.events = self.history.events

    @property
    def warning(self) -> str:
        d = self.departure
        if d is None:
            return ""
        cut = lambda t: t if len(t) <= 200 else t[:200] + "..."  # noqa: E731
        return (f"WARNING: {self.source or 'log'}: this log does not follow the rules: it departs from them at "
                f"seq {d.seq}: {d.message}" + (f"; the log has {cut(d.stored) or 'no event'}, the rules give "
                                                 f"{cut(d.decided) or 'no event'}" if d.stored or d.decided else ""))

    @property
    def last_seq(self) -> int:
        return len(self.events) - 1

    def check_seq(self, seq: int) -> int:
        if not 0 <= seq <= self.last_seq:
            raise MatchReplayError(f"seq must be in 0..{self.last_seq}, got {seq}")
        return seq

    def turn_start(self, turn: int) -> int:
        for seq, number, _ in self.game.turn_starts(self.events):
            if number == turn:
                return seq
        raise MatchReplayError(f"the game has no turn {turn}")

    def view(self, seq: int, seat: int | None = None) -> dict[str, Any]:
        return self.game.view(self.history.state_at(self.check_seq(seq)), seat)

    def board(self, seq: int, seat: int | None = None) -> str:
        return self.game.board_text(self.view(seq, seat))

    def describe(self, seq: int) -> str:
        return self.game.describe(self.final, self.events[self.check_seq(seq)])

    def event_line(self, seq: int) -> str:
        e = self.events[seq]
        return f"{seq:>5}  {e.rule:<14} {self.describe(seq)}"

    def explain(self, seq: int) -> dict[str, Any]:
        """Event `seq`: its type, rule, words, and the chain of its causes back to a root."""
        e = self.events[self.check_seq(seq)]
        return {"seq": seq, "type": tag_of(type(e)), "rule": e.rule, "description": self.describe(seq),
                "causes": [{"seq": c.seq, "type": tag_of(type(c)), "rule": c.rule, "description": self.describe(c.seq)}
                           for c in causes(self.events, seq)],
                "why": self.why(seq)}

    def why(self, seq: int) -> list[str]:
        hook = WHY_HOOKS.get(self.game.name)
        return importlib.import_module(hook).why(self, self.check_seq(seq)) if hook else []


__all__ = ["MatchReplay", "MatchReplayError"]
