"""Attacks (R-ATTACK): creature against creature, or against the opponent."""

from __future__ import annotations

from locm.events.locm.cards import BREAKTHROUGH, DRAIN, LETHAL, WARD
from locm.events.locm.catalog import CreatureAttacked, CreatureDamaged, CreatureDied, WardLost
from locm.engine.locm.emit import Out, heal, lose_health, win_check
from locm.engine.locm.state import GameState


def attack(state: GameState, out: Out, p: int, attacker_id: int, target_id: int) -> None:
    a = state.units[attacker_id]
    att = out.emit(
        CreatureAttacked(
            seq=out.seq, cause=out.cause, rule="R-ATTACK", player=p, attacker=attacker_id, target=target_id
        )
    )
    opp = 1 - p
    if target_id == -1:
        if a.attack > 0:
            if a.keywords & DRAIN:
                heal(out, p, a.attack, "drain", "R-ATTACK", att)
            lose_health(out, opp, a.attack, "attack", "R-ATTACK", att)
        win_check(out, p)
        return

    d = state.units[target_id]
    a_kw, d_kw = a.keywords, d.keywords
    given = 0 if d_kw & WARD else a.attack
    taken = 0 if a_kw & WARD else d.attack
    # The defender's side first.
    d_dies = given >= d.defense or (given > 0 and a_kw & LETHAL)
    excess = given - d.defense if (a_kw & BREAKTHROUGH and given >= d.defense) else 0
    if d_kw & WARD and a.attack > 0:
        out.emit(WardLost(seq=out.seq, cause=att, rule="R-ATTACK", id=target_id))
    if d_dies:
        out.emit(CreatureDied(seq=out.seq, cause=att, rule="R-ATTACK", id=target_id))
    elif given > 0:
        out.emit(CreatureDamaged(seq=out.seq, cause=att, rule="R-ATTACK", id=target_id, amount=given))
    if a_kw & WARD and d.attack > 0:
        out.emit(WardLost(seq=out.seq, cause=att, rule="R-ATTACK", id=attacker_id))
    if taken >= a.defense or (taken > 0 and d_kw & LETHAL):
        out.emit(CreatureDied(seq=out.seq, cause=att, rule="R-ATTACK", id=attacker_id))
    elif taken > 0:
        out.emit(CreatureDamaged(seq=out.seq, cause=att, rule="R-ATTACK", id=attacker_id, amount=taken))
    drain = given > 0 and a_kw & DRAIN
    if not drain and excess <= 0:
        return  # no player's health changed: the game cannot end here
    if drain:
        heal(out, p, a.attack, "drain", "R-ATTACK", att)
    if excess > 0:
        lose_health(out, opp, excess, "breakthrough", "R-ATTACK", att)
    win_check(out, p)
