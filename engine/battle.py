"""Battle actions: the legal set (R-ACTIONS), why an action is illegal, and summoning (R-SUMMON).

`legal_actions` is the one source of truth: bots choose from it and `decide` accepts exactly its members.
"""

from __future__ import annotations

from events.cards import BLUE, CHARGE, CREATURE, GREEN, GUARD, RED, TYPE_NAMES
from events.catalog import ActionRejected, CreatureSummoned
from engine.commands import Attack, Summon, Use
from engine.emit import Out, card_effects
from engine.rulesets import IDS_REVISED
from engine.state import BATTLE


def legal_actions(state) -> list:
    """Every legal SUMMON, ATTACK and USE of the player to move, in a fixed order. Cached per state version."""
    cache = state._legal
    if cache is not None and cache[0] == state.seq:
        return cache[1]
    acts: list = []
    if state.phase == BATTLE:
        _battle_actions(state, acts)
    state._legal = (state.seq, acts)
    return acts


def is_legal(state, action) -> bool:
    # A list scan: the legal set is small (tens of actions), and hashing all of it to build a set costs more.
    return action in legal_actions(state)


def _battle_actions(state, acts: list) -> None:
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    mana = me.mana
    lane_size = state.rules.lane_size
    append = acts.append
    my_board, op_board = me.board, op.board
    n0 = n1 = 0
    for u in my_board:
        if u.lane:
            n1 += 1
        else:
            n0 += 1
    free0, free1 = n0 < lane_size, n1 < lane_size
    for u in me.hand:
        c = u.card
        if c.cost > mana:
            continue
        t = c.type
        i = u.id
        if t == CREATURE:
            if free0:
                append(Summon(i, 0))
            if free1:
                append(Summon(i, 1))
        elif t == GREEN:
            for v in my_board:
                append(Use(i, v.id))
        else:
            if t == BLUE:
                append(Use(i, -1))
            for v in op_board:
                append(Use(i, v.id))
    if not my_board:
        return
    g0: list[int] = []
    g1: list[int] = []
    l0 = [-1]
    l1 = [-1]
    for v in op_board:
        if v.lane:
            l1.append(v.id)
            if v.keywords & GUARD:
                g1.append(v.id)
        else:
            l0.append(v.id)
            if v.keywords & GUARD:
                g0.append(v.id)
    t0 = g0 or l0
    t1 = g1 or l1
    for a in my_board:
        if a.can_attack:
            i = a.id
            for target in t1 if a.lane else t0:
                append(Attack(i, target))


def why_illegal(state, action) -> str:
    """A one-line explanation of why an action is not in the legal set, for players and disputes."""
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    if state.phase != BATTLE:
        return f"no battle actions during the {state.phase} phase"
    if isinstance(action, Summon):
        u = _in(me.hand, action.id)
        if u is None:
            return f"card {action.id} is not in your hand"
        if u.card.type != CREATURE:
            return f"card {action.id} is an item ({TYPE_NAMES[u.card.type]}), not a creature"
        if u.card.cost > me.mana:
            return f"card {action.id} costs {u.card.cost} mana, you have {me.mana}"
        if action.lane not in (0, 1):
            return f"lane must be 0 or 1, got {action.lane}"
        return f"lane {action.lane} already holds {state.rules.lane_size} creatures"
    if isinstance(action, Attack):
        a = _in(me.board, action.id)
        if a is None:
            return f"creature {action.id} is not one of your creatures on the board"
        if not a.can_attack:
            if a.has_attacked:
                return f"creature {action.id} has already attacked this turn"
            return f"creature {action.id} was summoned this turn and has no Charge"
        guards = [v.id for v in op.board if v.lane == a.lane and v.keywords & GUARD]
        if guards and action.target not in guards:
            return (
                f"creature {action.id} must attack a Guard in lane {a.lane} first: {', '.join(map(str, guards))}"
            )
        return f"target {action.target} is not the opponent (-1) or an enemy creature in lane {a.lane}"
    if isinstance(action, Use):
        u = _in(me.hand, action.id)
        if u is None:
            return f"card {action.id} is not in your hand"
        c = u.card
        if c.type == CREATURE:
            return f"card {action.id} is a creature, not an item"
        if c.cost > me.mana:
            return f"card {action.id} costs {c.cost} mana, you have {me.mana}"
        if c.type == GREEN:
            return f"green item {action.id} must target one of your creatures, not {action.target}"
        if c.type == RED:
            return f"red item {action.id} must target an enemy creature, not {action.target}"
        return f"blue item {action.id} must target an enemy creature or -1, not {action.target}"
    return f"{action.text()} is not a battle action"


def _in(units, id: int):
    for u in units:
        if u.id == id:
            return u
    return None


def reject(out: Out, p: int, action, reason: str) -> None:
    out.emit(
        ActionRejected(
            seq=out.seq, cause=out.cause, rule="R-ACTIONS", player=p, action=action.text(), reason=reason
        )
    )


def summon(state, out: Out, p: int, unit_id: int, lane: int) -> None:
    """R-SUMMON, with the 1.5 Area copy (lane1: same lane if room; lane2: the other lane if room)."""
    u = state.units[unit_id]
    c = u.card
    out.emit(
        CreatureSummoned(
            seq=out.seq,
            cause=out.cause,
            rule="R-SUMMON",
            player=p,
            id=unit_id,
            base_id=c.base_id,
            lane=lane,
            cost=c.cost,
        )
    )
    placed = 1
    if state.rules.area and c.area:
        counts = [0, 0]
        for v in state.players[p].board:
            counts[v.lane] += 1
        counts[lane] += 1
        copy_lane = lane if c.area == 1 else 1 - lane
        if counts[copy_lane] < state.rules.lane_size:
            copy_id = unit_id + 1 if state.rules.id_scheme == IDS_REVISED else state.next_id
            out.emit(
                CreatureSummoned(
                    seq=out.seq,
                    cause=out.cause,
                    rule="R-SUMMON",
                    player=p,
                    id=copy_id,
                    base_id=c.base_id,
                    lane=copy_lane,
                    cost=0,
                    copy_of=unit_id,
                )
            )
            placed = 2
    card_effects(out, state, p, c, placed, "summon", "R-SUMMON")


__all__ = ["legal_actions", "is_legal", "why_illegal", "summon", "reject", "CHARGE"]
