"""Battle legality (R-ACTIONS): one set of predicates for generating the legal actions and for explaining why
an action is not legal.

Each check is a small predicate that returns None when it passes and the one-line reason when it fails.
`legal_actions` builds its list by running the same predicates on every candidate, and `problem` runs them on
one action, so a rejected action's reason can never disagree with the list. Nothing here is cached in the
state: `legal_actions` returns a fresh tuple (an immutable value) computed from the state alone.
"""

from __future__ import annotations

from events.cards import BLUE, CREATURE, GREEN, GUARD, RED, TYPE_NAMES
from engine.commands import Attack, Summon, Use
from engine.state import BATTLE

LANES = (0, 1)
OPPONENT = -1


class _Side:
    """What the predicates read about the player to move and its opponent, computed once per call."""

    __slots__ = ("me", "op", "mana", "lane_size", "counts", "guards", "lane_ids")

    def __init__(self, state) -> None:
        p = state.current
        me, op = state.players[p], state.players[1 - p]
        self.me, self.op = me, op
        self.mana = me.mana
        self.lane_size = state.rules.lane_size
        counts = [0, 0]
        for u in me.board:
            counts[u.lane] += 1
        self.counts = counts
        guards: tuple[list[int], list[int]] = ([], [])
        lane_ids: tuple[list[int], list[int]] = ([], [])
        for v in op.board:
            lane_ids[v.lane].append(v.id)
            if v.keywords & GUARD:
                guards[v.lane].append(v.id)
        self.guards = guards
        self.lane_ids = lane_ids


# --- the predicates -----------------------------------------------------------------------------------------


def _playable(side: _Side, u, id: int) -> str | None:
    if u is None:
        return f"card {id} is not in your hand"
    if u.card.cost > side.mana:
        return f"card {id} costs {u.card.cost} mana, you have {side.mana}"
    return None


def _summonable(u) -> str | None:
    if u.card.type != CREATURE:
        return f"card {u.id} is an item ({TYPE_NAMES[u.card.type]}), not a creature"
    return None


def _lane_free(side: _Side, lane: int) -> str | None:
    if lane not in LANES:
        return f"lane must be 0 or 1, got {lane}"
    if side.counts[lane] >= side.lane_size:
        return f"lane {lane} already holds {side.counts[lane]} creatures"
    return None


def _usable(u) -> str | None:
    if u.card.type == CREATURE:
        return f"card {u.id} is a creature, not an item"
    return None


def _item_target(side: _Side, u, target: int) -> str | None:
    t = u.card.type
    if t == GREEN:
        if _find(side.me.board, target) is None:
            return f"green item {u.id} must target one of your creatures, not {target}"
        return None
    if target == OPPONENT and t == BLUE:
        return None
    if _find(side.op.board, target) is None:
        if t == RED:
            return f"red item {u.id} must target an enemy creature, not {target}"
        return f"blue item {u.id} must target an enemy creature or -1, not {target}"
    return None


def _ready(a, id: int) -> str | None:
    if a is None:
        return f"creature {id} is not one of your creatures on the board"
    if not a.can_attack:
        if a.has_attacked:
            return f"creature {id} has already attacked this turn"
        return f"creature {id} was summoned this turn and has no Charge"
    return None


def _attack_target(side: _Side, a, target: int) -> str | None:
    lane = a.lane
    guards = side.guards[lane]
    if guards and target not in guards:
        return f"creature {a.id} must attack a Guard in lane {lane} first: {', '.join(map(str, guards))}"
    if target != OPPONENT and target not in side.lane_ids[lane]:
        return f"target {target} is not the opponent (-1) or an enemy creature in lane {lane}"
    return None


# --- the two uses ---------------------------------------------------------------------------------------------


def problem(state, action) -> str | None:
    """Why `action` is not legal for the player to move now (one line), or None if it is legal."""
    if state.phase != BATTLE:
        return f"no battle actions during the {state.phase} phase"
    side = _Side(state)
    kind = type(action)
    if kind is Summon:
        u = _find(side.me.hand, action.id)
        return _playable(side, u, action.id) or _summonable(u) or _lane_free(side, action.lane)
    if kind is Attack:
        a = _find(side.me.board, action.id)
        return _ready(a, action.id) or _attack_target(side, a, action.target)
    if kind is Use:
        u = _find(side.me.hand, action.id)
        return _playable(side, u, action.id) or _usable(u) or _item_target(side, u, action.target)
    return f"{action.text()} is not a battle action"


def legal_actions(state) -> tuple:
    """Every legal SUMMON, ATTACK and USE of the player to move, in a fixed order: the hand's cards in hand
    order (summons by lane; items on own creatures, or on the opponent then its creatures), then each ready
    creature's attacks (the opponent first, then the lane's creatures). Empty outside the battle."""
    if state.phase != BATTLE:
        return ()
    side = _Side(state)
    acts: list = []
    append = acts.append
    me, op = side.me, side.op
    for u in me.hand:
        if _playable(side, u, u.id):
            continue
        i = u.id
        if _summonable(u) is None:
            for lane in LANES:
                if _lane_free(side, lane) is None:
                    append(Summon(i, lane))
            continue
        targets = me.board if u.card.type == GREEN else op.board
        if u.card.type == BLUE and _item_target(side, u, OPPONENT) is None:
            append(Use(i, OPPONENT))
        for v in targets:
            if _item_target(side, u, v.id) is None:
                append(Use(i, v.id))
    for a in me.board:
        if _ready(a, a.id):
            continue
        for target in (OPPONENT, *side.lane_ids[a.lane]):
            if _attack_target(side, a, target) is None:
                append(Attack(a.id, target))
    return tuple(acts)


def _find(units, id: int):
    for u in units:
        if u.id == id:
            return u
    return None


__all__ = ["legal_actions", "problem", "LANES", "OPPONENT"]
