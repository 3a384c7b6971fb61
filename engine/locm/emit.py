"""Shared machinery of `decide`: an event buffer with a look-ahead, health changes with their rune and draw
consequences, and the win check.

`decide` never changes the state. Within one decision, later steps need some values as the events emitted so
far will leave them (a drain heal before the damage that breaks a rune, the decks just ordered before the
opening draws). `Out` keeps that look-ahead (`Ahead`): the few values a decision changes, made on first use
from the state and updated by the code that emits the events. It is the one look-ahead mechanism; nothing
folds a scratch copy of the state.
"""

from __future__ import annotations

from locm.events.locm.cards import Card
from locm.events.locm.catalog import DrawBonus, Event, GameEnded, PlayerDamaged, PlayerHealed, RuneBroken
from locm.engine.locm.rulesets import RUNES
from locm.engine.locm.state import GameState


class Ahead:
    """Health, runes, damage counters, decks (instance ids, top card last) and hand sizes of both players as
    they will be after the events emitted so far."""

    __slots__ = ("health", "runes", "counter", "decks", "drawn", "hands", "last_damage", "_state")

    def __init__(self, state: GameState) -> None:
        p0, p1 = state.players
        self.health = [p0.health, p1.health]
        self.runes = [p0.runes, p1.runes]  # replaced, never mutated
        self.counter = [p0.damage_counter, p1.damage_counter]
        self.decks: list[list[int] | None] = [None, None]  # decks ordered in this decision (top card last)
        self.drawn = [0, 0]  # cards drawn in this decision from the state's decks
        self.hands = [len(p0.hand), len(p1.hand)]
        self.last_damage = [p0.last_damage, p1.last_damage]  # seq of each player's latest health loss
        self._state = state

    def deck_size(self, p: int) -> int:
        d = self.decks[p]
        if d is not None:
            return len(d)
        return len(self._state.players[p].deck) - self.drawn[p]

    def draw(self, p: int) -> int:
        """The id of the top card of player `p`'s deck, taken (the deck must not be empty)."""
        d = self.decks[p]
        if d is not None:
            return d.pop()
        k = self.drawn[p]
        self.drawn[p] = k + 1
        return self._state.players[p].deck[-1 - k].id


class Out:
    """Collects the events of one decision, numbering them from the state's next ``seq``."""

    __slots__ = ("events", "seq", "cause", "state", "_ahead")

    def __init__(self, state: GameState, cause: int, seq: int | None = None) -> None:
        self.events: list[Event] = []
        self.state = state
        self.seq = state.seq if seq is None else seq
        self.cause = cause
        self._ahead: Ahead | None = None

    def emit(self, event: Event) -> int:
        """Append an event built with ``seq=out.seq`` and its nearest cause (``out.cause`` is the decision's
        record); returns its seq.

        Callers build the event themselves: passing the fields through ``**kwargs`` here cost six times as
        much as the construction itself, and this runs for every event of every game.
        """
        self.events.append(event)
        seq = self.seq
        self.seq = seq + 1
        return seq

    @property
    def ahead(self) -> Ahead:
        a = self._ahead
        if a is None:
            a = self._ahead = Ahead(self.state)
        return a


def lose_health(
    out: Out, player: int, amount: int, source: str, rule: str, cause: int, *, counts: bool = True,
    bonus: bool = True,
) -> None:
    """A health loss under `rule` (R-ATTACK, R-USE, R-SUMMON, R-DRAW) caused by event `cause`, then what it
    brings: the runes it breaks and the draw they give (R-RUNES), or the draws every 5 damage earn
    (R-DAMAGEDRAW), each caused by the fact before it."""
    if amount <= 0:
        return
    t = out.ahead
    rules = out.state.rules
    damage = out.emit(
        PlayerDamaged(
            seq=out.seq, cause=cause, rule=rule, player=player, amount=amount, source=source, counts=counts
        )
    )
    t.last_damage[player] = damage
    h = t.health[player] - amount
    t.health[player] = h
    if rules.draw_rule == RUNES:
        runes = t.runes[player]
        if runes and runes[0] >= h:
            kept = [r for r in runes if r < h]
            broken = damage
            for r in runes:
                if r >= h:
                    broken = out.emit(RuneBroken(seq=out.seq, cause=damage, rule="R-RUNES", player=player, rune=r))
            t.runes[player] = kept
            if bonus:
                out.emit(
                    DrawBonus(
                        seq=out.seq,
                        cause=broken,
                        rule="R-RUNES",
                        player=player,
                        amount=len(runes) - len(kept),
                        source="rune",
                    )
                )
    elif counts and rules.damage_draw_step:
        step = rules.damage_draw_step
        old = t.counter[player]
        new = old + amount
        t.counter[player] = new
        n = new // step - old // step
        if n:
            out.emit(
                DrawBonus(seq=out.seq, cause=damage, rule="R-DAMAGEDRAW", player=player, amount=n, source="damage")
            )


def heal(out: Out, player: int, amount: int, source: str, rule: str, cause: int) -> None:
    out.emit(PlayerHealed(seq=out.seq, cause=cause, rule=rule, player=player, amount=amount, source=source))
    out.ahead.health[player] += amount


def change_health(out: Out, player: int, delta: int, source: str, rule: str, cause: int) -> None:
    if delta > 0:
        heal(out, player, delta, source, rule, cause)
    elif delta < 0:
        lose_health(out, player, -delta, source, rule, cause)


def card_effects(out: Out, p: int, c: Card, times: int, source: str, rule: str, cause: int) -> None:
    """A played card's own health changes and draw (R-SUMMON, R-USE), multiplied by the creatures it reached
    (1.5 Area), each caused by the play (`cause`), then the win check. Without a health change the game cannot
    end here (a player already at 0 ends the game before any action, see `decide`), so no check is needed."""
    changed = c.my_health or c.opp_health
    if changed:
        change_health(out, p, c.my_health * times, source, rule, cause)
        change_health(out, 1 - p, c.opp_health * times, source, rule, cause)
    if c.draw:
        out.emit(DrawBonus(seq=out.seq, cause=cause, rule=rule, player=p, amount=c.draw * times, source="card"))
    if changed:
        win_check(out, p)


def win_check(out: Out, acting: int) -> bool:
    """R-WIN: the non-acting player's death is checked first, so a double death goes to the acting player. The
    end is caused by the health loss that killed (the dead player's latest), or by the decision's record."""
    t = out.ahead
    other = 1 - acting
    turn = out.state.turn
    if t.health[other] <= 0:
        dead, winner = other, acting
    elif t.health[acting] <= 0:
        dead, winner = acting, other
    else:
        return False
    cause = t.last_damage[dead]
    if cause < 0:
        cause = out.cause
    out.emit(GameEnded(seq=out.seq, cause=cause, rule="R-WIN", winner=winner, reason="health", turn=turn))
    return True
