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


# Where an item's target is, for `_item_target`.
MINE, THEIRS, FACE, NOWHERE = "mine", "theirs", "face", "nowhere"


# --- the predicates (each: None when the check passes, else the one-line reason) --------------------------


def _playable(u, id: int, mana: int) -> str | None:
    if u is None:
        return f"card {id} is not in your hand"
    if u.card.cost > mana:
        return f"card {id} costs {u.card.cost} mana, you have {mana}"
    return None


def _summonable(u) -> str | None:
    if u.card.type != CREATURE:
        return f"card {u.id} is an item ({TYPE_NAMES[u.card.type]}), not a creature"
    return None


def _lane_free(lane: int, count: int, lane_size: int) -> str | None:
    if lane not in LANES:
        return f"lane must be 0 or 1, got {lane}"
    if count >= lane_size:
        return f"lane {lane} already holds {count} creatures"
    return None


def _usable(u) -> str | None:
    if u.card.type == CREATURE:
        return f"card {u.id} is a creature, not an item"
    return None


def _item_target(u, target: int, where: str) -> str | None:
    t = u.card.type
    if t == GREEN:
        if where != MINE:
            return f"green item {u.id} must target one of your creatures, not {target}"
    elif t == RED:
        if where != THEIRS:
            return f"red item {u.id} must target an enemy creature, not {target}"
    elif where not in (THEIRS, FACE):
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


def _attack_target(a, target: int, in_lane: bool, guards: list[int]) -> str | None:
    if guards and target not in guards:
        return f"creature {a.id} must attack a Guard in lane {a.lane} first: {', '.join(map(str, guards))}"
    if target != OPPONENT and not in_lane:
        return f"target {target} is not the opponent (-1) or an enemy creature in lane {a.lane}"
    return None


# --- the two uses ---------------------------------------------------------------------------------------------


def problem(state, action) -> str | None:
    """Why `action` is not legal for the player to move now (one line), or None if it is legal."""
    if state.phase != BATTLE:
        return f"no battle actions during the {state.phase} phase"
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    kind = type(action)
    if kind is Summon:
        u = _find(me.hand, action.id)
        lane = action.lane
        return (_playable(u, action.id, me.mana) or _summonable(u)
                or _lane_free(lane, sum(1 for v in me.board if v.lane == lane), state.rules.lane_size))
    if kind is Attack:
        a = _find(me.board, action.id)
        reason = _ready(a, action.id)
        if reason is not None:
            return reason
        target = action.target
        lane = a.lane
        guards = [v.id for v in op.board if v.lane == lane and v.keywords & GUARD]
        in_lane = any(v.id == target and v.lane == lane for v in op.board)
        return _attack_target(a, target, in_lane, guards)
    if kind is Use:
        u = _find(me.hand, action.id)
        reason = _playable(u, action.id, me.mana) or _usable(u)
        if reason is not None:
            return reason
        target = action.target
        where = (FACE if target == OPPONENT else MINE if _find(me.board, target) else
                 THEIRS if _find(op.board, target) else NOWHERE)
        return _item_target(u, target, where)
    return f"{action.text()} is not a battle action"


def legal_actions(state) -> tuple:
    """Every legal SUMMON, ATTACK and USE of the player to move, in a fixed order: the hand's cards in hand
    order (summons by lane; items on own creatures, or on the opponent then its creatures), then each ready
    creature's attacks (the opponent first, then the lane's creatures). Empty outside the battle.

    The list runs the predicates `problem` runs. A predicate whose answer cannot depend on a candidate's
    particulars is run once for all of them (a lane's room, an item's kind of target)."""
    if state.phase != BATTLE:
        return ()
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    mana = me.mana
    acts: list = []
    append = acts.append
    my_board, op_board = me.board, op.board
    counts = [0, 0]
    for v in my_board:
        counts[v.lane] += 1
    lane_size = state.rules.lane_size
    free = [lane for lane in LANES if _lane_free(lane, counts[lane], lane_size) is None]
    for u in me.hand:
        if _playable(u, u.id, mana) is not None:
            continue
        i = u.id
        if _summonable(u) is None:
            for lane in free:
                append(Summon(i, lane))
            continue
        if _item_target(u, OPPONENT, FACE) is None:
            append(Use(i, OPPONENT))
        if my_board and _item_target(u, 0, MINE) is None:
            for v in my_board:
                append(Use(i, v.id))
        if op_board and _item_target(u, 0, THEIRS) is None:
            for v in op_board:
                append(Use(i, v.id))
    if not my_board:
        return tuple(acts)
    ids: tuple[list[int], list[int]] = ([], [])
    guards: tuple[list[int], list[int]] = ([], [])
    for v in op_board:
        ids[v.lane].append(v.id)
        if v.keywords & GUARD:
            guards[v.lane].append(v.id)
    for a in my_board:
        if _ready(a, a.id) is not None:
            continue
        lane = a.lane
        g = guards[lane]
        if _attack_target(a, OPPONENT, False, g) is None:
            append(Attack(a.id, OPPONENT))
        for target in ids[lane]:
            if _attack_target(a, target, True, g) is None:
                append(Attack(a.id, target))
    return tuple(acts)


def _find(units, id: int):
    for u in units:
        if u.id == id:
            return u
    return None


__all__ = ["legal_actions", "problem", "LANES", "OPPONENT", "BLUE"]
