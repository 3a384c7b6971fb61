"""The main phase's actions once found legal (`engine.mcg.legal`): playing a card (R-PLAY: a monster's summon,
a spell, with the effects that wait for a phase, R-FX-DELAY; equipment) and an attack (R-ATTACK), each with
the chain of effects it sets off (R-ORDER)."""

from __future__ import annotations

from locm.engine.mcg.effects import Dead, deaths, resolve, triggers_of
from locm.engine.mcg.emit import Out, lose_health
from locm.events.mcg.catalog import (
    AT_END_PHASE, ON_PLAY, ON_SUMMON, CardPlayed, EffectDelayed, MonsterAttacked, MonsterDamaged, MonsterSummoned,
    StatsChanged,
)
from locm.events.mcg.rules import EQUIPMENT, MONSTER


def play(out: Out, player: int, instance: int, target: int) -> None:
    """Play a hand card (R-PLAY): pay it, then summon the monster and queue its summon effects (R-SUMMON),
    queue the spell's effects on its target (R-SPELL), or boost the equipped monster (R-EQUIP)."""
    s = out.state
    card = s.card(instance)
    played = out.emit(CardPlayed, "R-PLAY", player=player, id=instance, card=card.id, cost=card.cost, target=target)
    if card.type == MONSTER:
        new = out.emit(MonsterSummoned, "R-SUMMON", played.seq, player=player, id=instance, card=card.id,
                       power=card.power, toughness=card.toughness, health=card.health)
        resolve(out, triggers_of(card, ON_SUMMON, player, instance, new.seq))
    elif card.type == EQUIPMENT:
        out.emit(StatsChanged, "R-EQUIP", played.seq, id=target, power=card.power, toughness=card.toughness)
    else:
        resolve(out, triggers_of(card, ON_PLAY, player, instance, played.seq, target))
        for i, e in enumerate(card.effects):  # the effects that wait for a phase (R-FX-DELAY)
            if e.at and not out.ended:
                turn = s.turn if e.at == AT_END_PHASE else s.turn + 2
                out.emit(EffectDelayed, "R-FX-DELAY", played.seq, player=player, source=instance, card=card.id,
                         index=i, at=e.at, turn=turn, target=target)


def attack(out: Out, player: int, attacker: int, target: int) -> None:
    """An attack (R-ATTACK): a player takes the attacker's power; a monster takes power − toughness, and a
    negative result hurts the attacker instead (no counter-attack). Then the deaths and their effects."""
    s = out.state
    a = s.monsters[attacker]
    hit = out.emit(MonsterAttacked, "R-ATTACK", player=player, attacker=attacker, target=target)
    if target in (0, 1):
        lose_health(out, target, a.power, "R-ATTACK", hit.seq)
        return
    damage = a.power - s.monsters[target].toughness
    if damage == 0:
        return
    hurt = target if damage > 0 else attacker
    done = out.emit(MonsterDamaged, "R-ATTACK", hit.seq, id=hurt, amount=abs(damage), reflected=damage < 0)
    resolve(out, deaths(out, [Dead(hurt, done.seq, False)]))


__all__ = ["play", "attack"]
