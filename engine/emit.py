"""Shared machinery of `decide`: an event buffer, health changes with their rune and draw consequences, and the
win check. `decide` never changes the state; `Tally` projects the few values an action changes as it goes.
"""

from __future__ import annotations

from events.catalog import DrawBonus, GameEnded, PlayerDamaged, PlayerHealed, RuneBroken
from engine.rulesets import RUNES


class Out:
    """Collects the events of one decision, numbering them from the state's next ``seq``."""

    __slots__ = ("events", "seq", "cause")

    def __init__(self, seq: int, cause: int) -> None:
        self.events: list = []
        self.seq = seq
        self.cause = cause

    def emit(self, event) -> int:
        """Append an event built with ``seq=out.seq, cause=out.cause``; returns its seq.

        Callers build the event themselves: passing the fields through ``**kwargs`` here cost six times as
        much as the construction itself, and this runs for every event of every game.
        """
        self.events.append(event)
        seq = self.seq
        self.seq = seq + 1
        return seq


class Tally:
    """Health, runes and damage counters as they will be after the events emitted so far."""

    __slots__ = ("health", "runes", "counter", "rules", "ended")

    def __init__(self, state) -> None:
        p0, p1 = state.players
        self.health = [p0.health, p1.health]
        self.runes = [p0.runes, p1.runes]  # replaced, never mutated
        self.counter = [p0.damage_counter, p1.damage_counter]
        self.rules = state.rules
        self.ended = False


def lose_health(
    out: Out, t: Tally, player: int, amount: int, source: str, *, counts: bool = True, bonus: bool = True
) -> None:
    """R-RUNES / R-DAMAGEDRAW: a health loss, the runes it breaks, the extra draws it earns."""
    if amount <= 0:
        return
    out.emit(
        PlayerDamaged(
            seq=out.seq,
            cause=out.cause,
            rule="R-RUNES" if t.rules.runes else "R-DAMAGEDRAW",
            player=player,
            amount=amount,
            source=source,
            counts=counts,
        )
    )
    h = t.health[player] - amount
    t.health[player] = h
    rules = t.rules
    if rules.draw_rule == RUNES:
        runes = t.runes[player]
        if runes and runes[0] >= h:
            kept = [r for r in runes if r < h]
            for r in runes:
                if r >= h:
                    out.emit(RuneBroken(seq=out.seq, cause=out.cause, rule="R-RUNES", player=player, rune=r))
            t.runes[player] = kept
            if bonus:
                out.emit(
                    DrawBonus(
                        seq=out.seq,
                        cause=out.cause,
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
                DrawBonus(
                    seq=out.seq, cause=out.cause, rule="R-DAMAGEDRAW", player=player, amount=n, source="damage"
                )
            )


def change_health(out: Out, t: Tally, player: int, delta: int, source: str, rule: str) -> None:
    if delta > 0:
        out.emit(PlayerHealed(seq=out.seq, cause=out.cause, rule=rule, player=player, amount=delta, source=source))
        t.health[player] += delta
    elif delta < 0:
        lose_health(out, t, player, -delta, source)


def card_effects(out: Out, state, p: int, c, times: int, source: str, rule: str) -> None:
    """A played card's own health changes and draw (R-SUMMON, R-USE), multiplied by the creatures it reached
    (1.5 Area), then the win check. Without a health change the game cannot end here (a player already at 0
    ends the game before any action, see `decide`), so neither the tally nor the check is needed."""
    if c.my_health or c.opp_health:
        t = Tally(state)
        change_health(out, t, p, c.my_health * times, source, rule)
        change_health(out, t, 1 - p, c.opp_health * times, source, rule)
    else:
        t = None
    if c.draw:
        out.emit(DrawBonus(seq=out.seq, cause=out.cause, rule=rule, player=p, amount=c.draw * times, source="card"))
    if t is not None:
        win_check(out, t, p, state.turn)


def win_check(out: Out, t: Tally, acting: int, turn: int) -> bool:
    """R-WIN: the non-acting player's death is checked first, so a double death goes to the acting player."""
    other = 1 - acting
    if t.health[other] <= 0:
        out.emit(GameEnded(seq=out.seq, cause=out.cause, rule="R-WIN", winner=acting, reason="health", turn=turn))
    elif t.health[acting] <= 0:
        out.emit(GameEnded(seq=out.seq, cause=out.cause, rule="R-WIN", winner=other, reason="health", turn=turn))
    else:
        return False
    t.ended = True
    return True
