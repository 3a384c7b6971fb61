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
from locm.engine.logcheck import causes, consequences
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
        except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:  # a fold of a forged log
            raise MatchReplayError(f"{source or 'log'}: not a {game.title} game: {type(exc).__name__} {exc}") from None
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

    def _brief(self, seq: int) -> dict[str, Any]:
        e = self.events[seq]
        return {"seq": seq, "type": tag_of(type(e)), "rule": e.rule, "description": self.describe(seq)}

    def explain(self, seq: int) -> dict[str, Any]:
        """Event `seq`: its type, rule, words, the chain of its causes back to a root, and what it set off
        (``consequences``: every event whose causes pass through it, each with its depth: a chain of
        triggers)."""
        self.check_seq(seq)
        return {**self._brief(seq), "causes": [self._brief(c.seq) for c in causes(self.events, seq)],
                "consequences": [{**self._brief(e.seq), "depth": d} for d, e in consequences(self.events, seq)],
                "why": self.why(seq)}

    def why(self, seq: int) -> list[str]:
        """The game's own answer to the question event `seq` raises (`WHY_HOOKS`; empty for a game without)."""
        hook = WHY_HOOKS.get(self.game.name)
        return importlib.import_module(hook).why(self, self.check_seq(seq)) if hook else []

    def rejected(self) -> list[dict[str, Any]]:
        """Every refused input (the game's ``rejections``), with its rule, words and the input it refused
        (its nearest cause)."""
        if self.game.rejections is None:
            raise MatchReplayError(f"{self.game.title} does not list its refused inputs")
        out = []
        for seq in self.game.rejections(self.events):
            c = self.events[seq].cause
            out.append({**self._brief(seq), "input": self._brief(c) if 0 <= c < seq else None})
        return out

    def card_life(self, cid: int) -> list[dict[str, Any]]:
        """Every event about card instance `cid` (the game's ``instance_events``), each with its cause."""
        if self.game.instance_events is None:
            raise MatchReplayError(f"{self.game.title} does not follow card instances")
        seqs = self.game.instance_events(self.events, cid)
        if not seqs:
            raise MatchReplayError(f"no card instance {cid} in this game")
        out = []
        for seq in seqs:
            c = self.events[seq].cause
            out.append({**self._brief(seq), "cause": self._brief(c) if 0 <= c < seq else None})
        return out


__all__ = ["MatchReplay", "MatchReplayError"]
