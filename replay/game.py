"""`Replay`: one game's log, of any registered game, ready to be stepped through and questioned (usable from a
notebook).

    >>> from replay import open_game
    >>> r = open_game("game.jsonl")                    # or open_game(db="locm.db", game_id="1.2-7-01ab")
    >>> r.view(r.turn_start(4), perspective=0)          # the board at the start of turn 4, as player 0 saw it
    >>> r.explain(212)["causes"]                        # why event 212 happened, back to the command

One class for every game: states come from the engine's fold (`engine.history.History`) over the game's
definition, and what only one game answers (LOCM's turns with their draws, its rich audit, its page) comes from
the game's wing (`replay.wing.Wing`, named by `GameDef.replay_wing`). Nothing here re-applies a rule or names a
game. Causes are walked generically through each event's ``cause`` (a smaller seq, or -1 at a root).
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec

from locm.engine.errors import LocmError, UnknownBehaviourError
from locm.engine.history import History
from locm.engine.seam import Divergence, GameDef, behaviour_line, behaviour_of
from locm.replay.wing import ReplayError, ReplaySourceError, Turn, wing_of


def game_of(events: Sequence[Any]) -> GameDef:
    """The registered game whose created event opens `events` (`engine.registry`)."""
    from locm.engine import registry

    if not events:
        raise ReplaySourceError("an empty log has no game")
    for name in registry.GAMES:
        game = registry.get(name)
        if type(events[0]) is game.created:
            return game
    raise ReplaySourceError(f"the log opens with {type(events[0]).__name__}, no registered game's created event")


class Replay:
    """``departures``: the events the rules would not produce (`replay.wing.Wing.departures`), as the source
    found them: a log read from a file is re-decided, a stored game is trusted when its chain holds, a referee
    game is the engine's own replay. ``untrusted``: why the source is not vouched for beyond that ("" when it
    is), e.g. a stored chain that does not hold. `warning` is the one line a reader shows first. ``game``: the
    game's definition (default: the registered game whose created event opens the log)."""

    def __init__(self, events: Sequence[Any], source: str = "", meta: dict | None = None,
                 departures: list[Divergence] | None = None, untrusted: str = "", *,
                 game: GameDef | None = None) -> None:
        events = list(events)
        self.game = game if game is not None else game_of(events)
        self.wing = wing_of(self.game)
        self.source = source
        self.meta = meta or {}
        self.departures = list(departures or [])
        self.untrusted = untrusted
        try:
            self.history = History(self.game, events)
            self.events = self.history.events  # as the fold reads them (older schemas upcast)
            self.final = self.history.final()
        except UnknownBehaviourError as exc:  # a later engine's game: not unreadable, not to be re-decided here
            raise ReplaySourceError(f"{source or 'log'}: {exc}") from None
        except LocmError as exc:
            raise ReplaySourceError(self.wing.unreadable(self.game, source, exc)) from None
        except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:  # a fold of a forged log
            raise ReplaySourceError(self.wing.unreadable(self.game, source, f"{type(exc).__name__} {exc}")) from None
        for i, e in enumerate(self.events):
            if e.seq != i:
                raise ReplaySourceError(f"{source or 'log'}: event {i} has seq {e.seq}")
        self.seats = len(self.game.agents(self.events[0]))
        self._turns: list[Turn] | None = None

    # --- trust --------------------------------------------------------------------------------------------

    @property
    def warning(self) -> str:
        """One line saying that this log does not follow the rules (the first seq where it departs, the event
        it has there, the event the rules give) or cannot be vouched for; "" for a sound log."""
        if not self.departures and not self.untrusted:
            return ""
        parts = [self.untrusted] if self.untrusted else []
        if self.departures:
            d = self.departures[0]
            n = self.wing.cut
            cut = lambda t: t if n is None or len(t) <= n else t[:n] + "..."  # noqa: E731
            text = f"this log does not follow the rules: it departs from them at seq {d.seq}: {d.message}"
            if d.stored or d.decided:
                text += f"; the log has {cut(d.stored) or 'no event'}, the rules give {cut(d.decided) or 'no event'}"
            more = len(self.departures) - 1
            if more:
                text += f" ({more} later event{'s' * (more != 1)} depart{'s' * (more == 1)} too)"
            parts.append(text)
        else:
            parts.append("re-decided from its inputs, it follows the rules")
        return f"WARNING: {self.source or 'log'}: " + "; ".join(parts)

    def behaviour(self) -> dict[str, Any]:
        """The behaviour of the rules that decided the game (its created event's, under which it was re-decided)
        and this engine's: ``{"decided": N, "engine": M, "text": "decided under behaviour N (this engine: M)"}``."""
        created = self.events[0]
        return {"decided": behaviour_of(created), "engine": self.game.behaviour,
                "text": behaviour_line(self.game, created)}

    def departs(self) -> dict[int, str]:
        """``{seq: what the rules give instead}`` for every event of `departures` (for marking them)."""
        out: dict[int, str] = {}
        for d in self.departures:
            text = d.message + (f"; the rules give {d.decided}" if d.decided else "")
            out.setdefault(d.seq, text)
        return out

    def trust(self) -> dict[str, Any]:
        """The JSON form of `warning`: a reader of --json output sees the same facts."""
        return {"warning": self.warning, "departures": [
            {"seq": d.seq, "message": d.message, "log_has": d.stored, "rules_give": d.decided}
            for d in self.departures]}

    # --- navigation ---------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.events)

    @property
    def last_seq(self) -> int:
        return len(self.events) - 1

    def check_seq(self, seq: int) -> int:
        if not isinstance(seq, int) or not 0 <= seq <= self.last_seq:
            raise ReplayError(f"seq must be in 0..{self.last_seq}, got {seq}")
        return seq

    def event(self, seq: int) -> Any:
        return self.events[self.check_seq(seq)]

    def state_at(self, seq: int) -> Any:
        """The state just after event ``seq`` (a copy the caller may keep)."""
        return self.history.state_at(self.check_seq(seq))

    def turns(self) -> list[Turn]:
        if self._turns is None:
            self._turns = self.wing.turns(self)
        return self._turns

    def turn(self, number: int) -> Turn:
        turns = self.turns()
        if not turns:
            raise ReplayError("the game has no battle turns")
        first = turns[0].number
        if not isinstance(number, int) or not first <= number <= turns[-1].number:
            raise ReplayError(f"turn must be in {first}..{turns[-1].number}, got {number}")
        return turns[number - first]

    def turn_start(self, number: int) -> int:
        """The seq of the start of game turn ``number`` (LOCM: just after its ``turn_started`` and draws)."""
        return self.wing.turn_start(self, number)

    def turn_of(self, seq: int) -> Turn | None:
        """The turn an event belongs to (None before the first)."""
        self.check_seq(seq)
        found = None
        for t in self.turns():
            if t.first_seq > seq:
                break
            found = t
        return found

    def action_seqs(self) -> list[int]:
        """The seqs of every recorded command, in order (the game's wing says which)."""
        return self.wing.action_seqs(self)

    # --- what a person sees --------------------------------------------------------------------------------

    def view(self, seq: int, perspective: int | None = None) -> dict:
        if perspective is not None and perspective not in range(self.seats):
            seats = ", ".join(map(str, range(self.seats)))
            raise ReplayError(f"perspective must be {seats} or None, got {perspective!r}")
        return self.wing.view(self, self.check_seq(seq), perspective)

    def board(self, seq: int, seat: int | None = None) -> str:
        """The board after ``seq`` as text, as ``seat`` saw it (None: everything)."""
        return self.wing.board(self, self.check_seq(seq), seat)

    def describe(self, seq: int, perspective: int | None = None) -> str:
        return self.wing.describe(self, self.check_seq(seq), perspective)

    def event_line(self, seq: int) -> str:
        return self.wing.event_line(self, self.check_seq(seq))

    def event_obj(self, seq: int) -> dict:
        """An event as JSON-ready fields (its ``type`` tag first) plus ``description``, its one line."""
        d = msgspec.to_builtins(self.event(seq))
        d["description"] = self.describe(seq)
        return d

    def diff(self, seq_a: int, seq_b: int) -> dict:
        """What changed from just after ``seq_a`` to just after ``seq_b`` (the game's wing says)."""
        return self.wing.diff(self, seq_a, seq_b)

    # --- why ------------------------------------------------------------------------------------------------

    def causes(self, seq: int) -> list:
        """The chain of causes of event ``seq``, nearest first, back to its command record or the root.
        Each step must go to a strictly smaller seq (`ReplayError` otherwise: the log is not well formed)."""
        e = self.event(seq)
        chain = []
        while e.cause != -1:
            c = e.cause
            if not 0 <= c < e.seq:
                raise ReplayError(f"event {e.seq}: cause {c} is not an earlier event")
            e = self.events[c]
            chain.append(e)
        return chain

    def explain(self, seq: int) -> dict:
        """Event ``seq``: its rule, its causes and what the game's wing adds (see `replay.wing.Wing.explain`)."""
        return self.wing.explain(self, self.check_seq(seq))

    def why(self, seq: int) -> list[str]:
        """The game's own answer to the question event ``seq`` raises (empty for a game without)."""
        return self.wing.why(self, self.check_seq(seq))

    def rejected(self) -> list[dict]:
        """Every refused input, with its reason and rule."""
        return self.wing.rejected(self)

    def card_life(self, card_id: int) -> list[dict]:
        """Every event about card instance ``card_id``, each with its cause."""
        return self.wing.card_life(self, card_id)


__all__ = ["Replay", "ReplayError", "ReplaySourceError", "Turn", "game_of"]
