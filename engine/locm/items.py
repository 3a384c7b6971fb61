"""Using items (R-USE), with the 1.5 Area effect on a lane or a whole side."""

from __future__ import annotations

from locm.events.locm.cards import CHARGE, GREEN, WARD, Card
from locm.events.locm.catalog import CreatureDied, CreatureModified, DrawBonus, ItemUsed, WardLost
from locm.engine.locm.emit import Out, card_effects, change_health, win_check
from locm.engine.locm.state import GameState, Unit


def use(state: GameState, out: Out, p: int, item_id: int, target_id: int) -> None:
    item = state.units[item_id]
    c = item.card
    used = out.emit(
        ItemUsed(
            seq=out.seq,
            cause=out.cause,
            rule="R-USE",
            player=p,
            id=item_id,
            base_id=c.base_id,
            target=target_id,
            cost=c.cost,
        )
    )
    opp = 1 - p
    if target_id == -1:
        # A blue item on the opponent: its damage and oppHealthChange are one change.
        change_health(out, p, c.my_health, "item", "R-USE", used)
        change_health(out, opp, c.defense + c.opp_health, "item", "R-USE", used)
        if c.draw:
            out.emit(DrawBonus(seq=out.seq, cause=used, rule="R-USE", player=p, amount=c.draw, source="card"))
        win_check(out, p)
        return

    target = state.units[target_id]
    targets = [target]
    if state.rules.area and c.area:
        side = state.players[target.owner].board
        targets = side if c.area == 2 else [u for u in side if u.lane == target.lane]
    for u in targets:
        _apply_item(out, c, u, used)
    card_effects(out, p, c, len(targets), "item", "R-USE", used)


def _apply_item(out: Out, c: Card, u: Unit, used: int) -> None:
    kw = u.keywords
    can_attack = u.can_attack
    if c.type == GREEN:
        kw |= c.keywords
        if c.keywords & CHARGE and not u.has_attacked:
            can_attack = True
    else:
        kw &= ~c.keywords
    attack = max(0, u.attack + c.attack)
    defense = u.defense
    ward_lost = bool(kw & WARD) and c.defense < 0
    if not ward_lost:
        defense += c.defense
    modified = out.emit(
        CreatureModified(
            seq=out.seq,
            cause=used,
            rule="R-USE",
            id=u.id,
            attack=attack,
            defense=defense,
            keywords=kw,
            can_attack=can_attack,
        )
    )
    if ward_lost:
        out.emit(WardLost(seq=out.seq, cause=used, rule="R-USE", id=u.id))
    if defense <= 0:
        out.emit(CreatureDied(seq=out.seq, cause=modified, rule="R-USE", id=u.id))
