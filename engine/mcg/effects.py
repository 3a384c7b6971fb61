"""The effect language at work (R-EFFECTS) and the order of operations (R-ORDER).

Every effect goes through one queue, first in, first out: a spell's effects when it is played (or, for one
that waits, at its phase: R-FX-DELAY), a monster's summon effects once it is on the board, its death effects
once it has died, its turn effects in the end phase, its phase-start effects at the start of its player's
turn or main phase (R-FX-PHASE).
Each effect that resolves is an `effect_triggered` event (its cause: the play, the summon, the death or the end
of the turn), and its results are caused by that event, so an audit can walk any chain of triggers back to
the action that started it. After each effect, the monsters it left at 0 health or less die, in target order,
and queue their death effects. A player at 0 health ends the game at once.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from locm.engine.mcg.cards import rule_of
from locm.engine.mcg.emit import Out, derived_random, draw, lose_health
from locm.engine.mcg.state import McgState
from locm.events.mcg.catalog import (
    ON_DEATH, ON_DELAYED, ON_PLAY, ON_SUMMON, EffectDelayed, EffectFizzled, EffectTriggered, MaxHealthRaised,
    MonsterDamaged, MonsterDied, MonsterHealed, MonsterSummoned, PlayerHealed, StatsChanged,
)
from locm.events.mcg.rules import CardDef, Effect


class Trigger(NamedTuple):
    """An effect waiting in the queue: whose it is (``player``, the controller), its source instance (-1 for a
    variant's end-phase effect) and card, when it triggered, its index on the card (``number``), the event that
    caused it and the card's chosen target (-1: none)."""

    player: int
    source: int
    card: int
    on: str
    number: int
    effect: Effect
    cause: int
    target: int = -1
    rule: str = "R-ORDER"


class Dead(NamedTuple):
    id: int
    cause: int
    destroyed: bool


def triggers_of(card: CardDef, on: str, player: int, source: int, cause: int, target: int = -1,
                rule: str = "R-ORDER") -> list[Trigger]:
    """A card's effects that trigger `on` (``play``: a spell's that act at once, R-FX-DELAY), in the order
    written (R-ORDER 1)."""
    return [Trigger(player, source, card.id, on, i, e, cause, target, rule)
            for i, e in enumerate(card.effects) if e.on == on or (on == ON_PLAY and not e.on and not e.at)]


def delayed_trigger(d: EffectDelayed, card: CardDef, cause: int) -> Trigger:
    """A spell's effect that waited for this phase (R-FX-DELAY), caused by the phase's event."""
    return Trigger(d.player, d.source, d.card, ON_DELAYED, d.index, card.effects[d.index], cause, d.target,
                   "R-FX-DELAY")


def resolve(out: Out, first: list[Trigger]) -> None:
    """Resolve `first`, then every effect they trigger, until the queue is empty or the game has ended."""
    queue = deque(first)
    limit = out.state.rules.chain_limit
    while queue and not out.ended:
        t = queue.popleft()
        if out.state.chain >= limit:
            out.emit(EffectFizzled, "R-CAP", t.cause, source=t.source, card=t.card, index=t.number,
                     reason="chain limit")
            continue
        trig = out.emit(EffectTriggered, t.rule, t.cause, player=t.player, source=t.source, card=t.card,
                        on=t.on, index=t.number)
        dead = _apply(out, t, trig.seq, queue)
        if not out.ended:
            deaths(out, dead, queue)


def deaths(out: Out, dead: list[Dead], queue: deque[Trigger] | None = None) -> list[Trigger]:
    """The monsters of `dead` still on the board at 0 health or less (or destroyed) die, in this order, and
    their death effects join the queue (R-DEATH, R-ORDER 3). Returns those triggers."""
    s = out.state
    new: list[Trigger] = []
    for d in dead:
        m = s.monsters.get(d.id)
        if m is None or (m.health > 0 and not d.destroyed):
            continue
        died = out.emit(MonsterDied, "R-FX-DESTROY" if d.destroyed else "R-DEATH", d.cause, id=d.id, player=m.side,
                        destroyed=d.destroyed)
        new += triggers_of(m.card, ON_DEATH, m.side, d.id, died.seq)
    if queue is not None:
        queue.extend(new)
    return new


def targets(state: McgState, t: Trigger) -> list[int]:
    """The characters an effect acts on, in the order of R-ORDER 2 (the enemy side first; on a side the
    player, then the monsters in board order)."""
    p, e = t.player, 1 - t.player
    own, enemy = state.players[p].board, state.players[e].board
    match t.effect.to:
        case "target":
            return [t.target] if t.target in (0, 1) or t.target in state.monsters else []
        case "self":
            return [t.source] if t.source in state.monsters else []
        case "own_player":
            return [p]
        case "enemy_player":
            return [e]
        case "both_players":
            return [e, p]
        case "all_monsters":
            return [*enemy, *own]
        case "enemy_monsters":
            return list(enemy)
        case "own_monsters":
            return list(own)
        case "other_own_monsters":
            return [i for i in own if i != t.source]
        case "enemy_characters":
            return [e, *enemy]
        case "random_enemy_monster":
            return []  # drawn in `_apply`, where the trigger's seq is known
        case _:
            raise ValueError(f"unknown selector {t.effect.to!r}")  # card files are checked on load


def _apply(out: Out, t: Trigger, trig: int, queue: deque[Trigger]) -> list[Dead]:
    s = out.state
    effect = t.effect
    rule = rule_of(effect)
    if effect.to == "random_enemy_monster":
        enemy = s.players[1 - t.player].board
        chosen = [enemy[derived_random(s.seeds.play, trig).next_int(len(enemy))]] if enemy else []
    else:
        chosen = targets(s, t)
    if not chosen:
        out.emit(EffectFizzled, rule, trig, source=t.source, card=t.card, index=t.number, reason="no target")
        return []
    dead: list[Dead] = []
    for c in chosen:
        if out.ended:
            break
        player = c in (0, 1)
        if not player and c not in s.monsters:
            continue  # left the board during this effect (a summon's room is the only case)
        match effect.do:
            case "damage":
                if player:
                    lose_health(out, c, effect.amount, rule, trig)
                else:
                    hit = out.emit(MonsterDamaged, rule, trig, id=c, amount=effect.amount)
                    dead.append(Dead(c, hit.seq, False))
            case "heal":
                if player:
                    out.emit(PlayerHealed, rule, trig, player=c, amount=effect.amount)
                else:
                    m = s.monsters[c]
                    amount = min(effect.amount, m.max_health - m.health)
                    if amount > 0:
                        out.emit(MonsterHealed, rule, trig, id=c, amount=amount)
            case "raise_max_health":
                out.emit(MaxHealthRaised, rule, trig, id=c, amount=effect.amount)
            case "reduce_toughness":
                amount = min(effect.amount, s.monsters[c].toughness)
                if amount > 0:
                    out.emit(StatsChanged, rule, trig, id=c, power=0, toughness=-amount)
            case "buff":
                out.emit(StatsChanged, rule, trig, id=c, power=effect.power, toughness=effect.toughness)
            case "draw":
                for _ in range(effect.amount):
                    if out.ended:
                        break
                    draw(out, c, rule, trig)
            case "destroy":
                dead.append(Dead(c, trig, True))
            case "summon":
                summon_tokens(out, c, effect, t, trig, queue)
            case _:
                raise ValueError(f"unknown action {effect.do!r}")  # card files are checked on load
    return dead


def summon_tokens(out: Out, player: int, effect: Effect, t: Trigger, trig: int, queue: deque[Trigger]) -> None:
    """`count` tokens join `player`'s side while there is room (R-FX-SUMMON); each queues its summon effects."""
    s = out.state
    token = s.cards[effect.card]
    for _ in range(effect.count):
        if len(s.players[player].board) >= s.rules.board_size:
            out.emit(EffectFizzled, "R-FX-SUMMON", trig, source=t.source, card=t.card, index=t.number,
                     reason="board full")
            return
        new = out.emit(MonsterSummoned, "R-FX-SUMMON", trig, player=player, id=s.next_id, card=token.id,
                       power=token.power, toughness=token.toughness, health=token.health, token=True)
        queue.extend(triggers_of(token, ON_SUMMON, player, new.id, new.seq))


__all__ = ["Trigger", "Dead", "triggers_of", "delayed_trigger", "resolve", "deaths", "targets", "summon_tokens"]
