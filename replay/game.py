"""`Replay`: one game's log, ready to be stepped through and questioned (usable from a notebook).

    >>> from replay import open_game
    >>> r = open_game("game.jsonl")                    # or open_game(db="locm.db", game_id="1.2-7-01ab")
    >>> r.view(r.turn_start(4), perspective=0)          # the board at the start of turn 4, as player 0 saw it
    >>> r.explain(212)["causes"]                        # why event 212 happened, back to the command

States come from the engine's fold (`engine.history.History`); nothing here re-applies a rule. Causes are
walked generically through each event's ``cause`` (a smaller seq, or -1 at a root), so finer causes in the log
give finer chains without a change here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from locm.events.locm.cards import GUARD
from locm.events.locm.catalog import ActionReceived, ActionRejected, HardError, TurnStarted
from locm.engine.locm.rulesets import CONSTRUCTED  # the deck-building policy tells a ruleset family, not its name
from locm.engine.errors import LocmError
from locm.engine.history import History
from locm.engine.locm.definition import GAME as LOCM
from locm.engine.locm.state import GameState
from locm.engine.locm.describe import describe, unit_ids
from locm.engine.locm.views import card_obj, diff as state_diff, view as state_view


class ReplayError(LocmError):
    """A replay question that cannot be answered: a seq, turn or card the game does not have."""


class ReplaySourceError(LocmError):
    """A source that is not a game: an unreadable or malformed file, an unknown or ambiguous game id."""


@dataclass
class Turn:
    """One battle turn: ``first_seq`` is its ``turn_started``, ``start_seq`` the last event of its start
    (draws included), ``last_seq`` its last event. ``commands`` are the player's recorded answers and hard
    errors; ``events`` every event of the turn."""

    number: int
    player: int
    first_seq: int
    start_seq: int
    last_seq: int
    commands: list = field(default_factory=list)
    events: list = field(default_factory=list)


class Replay:
    """``departures``: the events the rules would not produce (`engine.locm.redecide.departures`), as the source
    found them: a log read from a file is re-decided, a stored game is trusted when its chain holds, a referee
    game is the engine's own replay. ``untrusted``: why the source is not vouched for beyond that ("" when it
    is), e.g. a stored chain that does not hold. `warning` is the one line a reader shows first."""

    def __init__(self, events, source: str = "", meta: dict | None = None, departures: list | None = None,
                 untrusted: str = "") -> None:
        self.events = list(events)
        self.source = source
        self.meta = meta or {}
        self.departures = list(departures or [])
        self.untrusted = untrusted
        try:
            self.history = History(LOCM, self.events)
            self.events = self.history.events  # as the fold reads them (older schemas upcast, if History does)
            self.final = self.history.final()
        except LocmError as exc:
            raise ReplaySourceError(f"{source or 'log'}: does not fold: {exc}") from None
        except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:
            raise ReplaySourceError(f"{source or 'log'}: does not fold: {type(exc).__name__} {exc}") from None
        for i, e in enumerate(self.events):
            if e.seq != i:
                raise ReplaySourceError(f"{source or 'log'}: event {i} has seq {e.seq}")
        self.units = self.final.units
        self.constructed = self.final.rules.deck_building == CONSTRUCTED
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
            text = f"this log does not follow the rules: it departs from them at seq {d.seq}: {d.message}"
            if d.stored or d.decided:
                text += f"; the log has {d.stored or 'no event'}, the rules give {d.decided or 'no event'}"
            more = len(self.departures) - 1
            if more:
                text += f" ({more} later event{'s' * (more != 1)} depart{'s' * (more == 1)} too)"
            parts.append(text)
        else:
            parts.append("re-decided from its inputs, it follows the rules")
        return f"WARNING: {self.source or 'log'}: " + "; ".join(parts)

    def departs(self) -> dict[int, str]:
        """``{seq: what the rules give instead}`` for every event of `departures` (for marking them)."""
        out = {}
        for d in self.departures:
            text = d.message + (f"; the rules give {d.decided}" if d.decided else "")
            out.setdefault(d.seq, text)
        return out

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

    def event(self, seq: int):
        return self.events[self.check_seq(seq)]

    def state_at(self, seq: int) -> GameState:
        """The state just after event ``seq`` (a copy the caller may keep)."""
        return self.history.state_at(self.check_seq(seq))

    def turns(self) -> list[Turn]:
        if self._turns is None:
            self._turns = _split_turns(self.events)
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
        """The seq of the start of game turn ``number``: just after its ``turn_started`` and draws."""
        return self.turn(number).start_seq

    def turn_of(self, seq: int) -> Turn | None:
        """The battle turn an event belongs to (None before the battle)."""
        self.check_seq(seq)
        found = None
        for t in self.turns():
            if t.first_seq > seq:
                break
            found = t
        return found

    def action_seqs(self) -> list[int]:
        """The seqs of every recorded command (answers, actions, hard errors), in order."""
        return [e.seq for e in self.events if type(e) in (ActionReceived, HardError)]

    # --- what a person sees --------------------------------------------------------------------------------

    def view(self, seq: int, perspective: int | None = None) -> dict:
        if perspective not in (None, 0, 1):
            raise ReplayError(f"perspective must be 0, 1 or None, got {perspective!r}")
        return state_view(self.state_at(seq), perspective)

    def describe(self, seq: int, perspective: int | None = None) -> str:
        return describe(self.event(seq), self.units, perspective)

    def event_obj(self, seq: int) -> dict:
        """An event as JSON-ready fields (its ``type`` tag first) plus ``description``, its one line."""
        e = self.event(seq)
        d = msgspec.to_builtins(e)
        d["description"] = describe(e, self.units)
        return d

    def diff(self, seq_a: int, seq_b: int) -> dict:
        """What changed from just after ``seq_a`` to just after ``seq_b`` (see `engine.locm.views.diff`)."""
        return state_diff(self.state_at(seq_a), self.state_at(seq_b))

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
        """The event, its rule (id, section, text), its causes (nearest first), the diff it made, the cards
        it and its causes name as they were just before it, and both players just before it."""
        from locm.replay.rules import rule

        e = self.event(seq)
        before = self.state_at(seq - 1) if seq > 0 else None
        involved = []
        if before is not None:
            seen = set()
            for ev in [e, *self.causes(seq)]:
                for i in unit_ids(ev):
                    u = before.units.get(i)
                    if u is not None and i not in seen:
                        seen.add(i)
                        where = ("board" if u in before.players[u.owner].board else
                                 "hand" if u in before.players[u.owner].hand else
                                 "deck" if u in before.players[u.owner].deck else "gone")
                        involved.append({"owner": u.owner, "zone": where,
                                         **card_obj(u, self.constructed, where == "board")})
        players = []
        if before is not None:
            for pl in before.players:
                p = {"player": pl.index, "health": pl.health, "mana": pl.mana, "max_mana": pl.max_mana,
                     "deck": len(pl.deck), "hand_size": len(pl.hand), "next_draw": pl.next_draw}
                if self.constructed:
                    p["damage_counter"] = pl.damage_counter
                else:
                    p["runes"] = list(pl.runes)
                players.append(p)
        return {
            "event": self.event_obj(seq),
            "blocking": self.blocking(seq),
            "rule": rule(e.rule).as_dict(),
            "causes": [self.event_obj(c.seq) | {"rule_section": rule(c.rule).heading} for c in self.causes(seq)],
            "diff": self.diff(seq - 1, seq) if seq > 0 else {},
            "involved": involved,
            "players_before": players,
        }

    def blocking(self, seq: int) -> list[dict]:
        """For an attack skipped because of enemy Guards (R-ACTIONS), those Guards as they were just before
        (the cards that blocked it); [] for any other event."""
        e = self.event(seq)
        if type(e) is not ActionRejected or not e.action.startswith("ATTACK ") or "Guard" not in e.reason:
            return []
        before = self.state_at(seq - 1)
        try:
            attacker = before.units[int(e.action.split()[1])]
        except (KeyError, ValueError, IndexError):
            return []
        enemy = before.players[1 - attacker.owner]
        return [card_obj(u, self.constructed, True) for u in enemy.board
                if u.lane == attacker.lane and u.keywords & GUARD]

    def rejected(self) -> list[dict]:
        """Every skipped action and hard error: who, the answer line it came from, the reason, the rule."""
        from locm.replay.rules import rule

        out = []
        for e in self.events:
            if type(e) not in (ActionRejected, HardError):
                continue
            line = ""
            for c in self.causes(e.seq):
                if type(c) is ActionReceived:
                    line = c.text
            if type(e) is HardError and not line:
                line = e.text
            turn = self.turn_of(e.seq)
            out.append({"seq": e.seq, "type": "hard_error" if type(e) is HardError else "action_rejected",
                        "player": e.player, "turn": turn.number if turn else None, "line": line,
                        "action": getattr(e, "action", e.text if type(e) is HardError else ""),
                        "reason": e.reason, "rule": e.rule, "rule_section": rule(e.rule).heading,
                        "blocking": self.blocking(e.seq)})
        return out

    def card_life(self, card_id: int) -> list[dict]:
        """Every event that names card instance ``card_id`` (dealt, drawn, played, attacked, modified,
        damaged, died), each with its nearest cause and its command."""
        if card_id not in self.units:
            raise ReplayError(f"no card instance {card_id} in this game")
        out = []
        for e in self.events:
            named = card_id in unit_ids(e) or (hasattr(e, "ids") and card_id in e.ids)
            if not named or type(e) is ActionReceived:
                continue
            chain = self.causes(e.seq)
            d = self.event_obj(e.seq)
            d["nearest_cause"] = ({"seq": chain[0].seq, "type": _tag(chain[0]),
                                   "description": describe(chain[0], self.units)} if chain else None)
            d["command"] = ({"seq": chain[-1].seq, "description": describe(chain[-1], self.units)}
                            if chain and type(chain[-1]) is ActionReceived else None)
            out.append(d)
        return out


def _tag(e) -> str:
    return type(e).__struct_config__.tag


def _split_turns(events) -> list[Turn]:
    turns: list[Turn] = []
    cur: Turn | None = None
    started = False
    for e in events:
        t = type(e)
        if t is TurnStarted:
            if cur is not None:
                cur.last_seq = e.seq - 1
            cur = Turn(e.turn, e.player, e.seq, e.seq, e.seq)
            turns.append(cur)
            started = True
        elif cur is not None and t in (ActionReceived, HardError):
            started = False
            cur.commands.append(e)
        if cur is not None:
            cur.events.append(e)
            if started:
                cur.start_seq = e.seq
    if cur is not None:
        cur.last_seq = events[-1].seq
    return turns
