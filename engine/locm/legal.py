"""Battle legality (R-ACTIONS): one set of predicates for generating the legal actions and for explaining why
an action is not legal.

Each check is a small predicate that returns None when it passes and, when it fails, the reason: a template
and its values, formatted into the one-line text only when a refusal is explained (`problem`), so building
the legal list never formats a string. `legal_actions` builds its list by running the same predicates on the
candidates, and `problem` runs them on one action, so a rejected action's reason can never disagree with the
list. A predicate whose answer cannot depend on a candidate's particulars is run once for all of them (a
lane's room, once per count: `_free_lanes`), or once for every kind of candidate at import (`_AFFORDABLE`,
`_SUMMONABLE`, `_ITEM_WHERE`, `_READY`, `_ATTACK_OK`: whether a card is affordable, whether a card type
summons, where an item of a type may go, whether a creature may attack and at what are functions of its cost
and the mana, its type, its two attack flags, and whether its lane holds Guards; ids, lanes and targets only
go into the reason's text).

Why the list is kept, in two parts, and where: a random or search bot asks for the list after every action, and
rebuilding it was a fifth of a game's time. The list is the hand's actions (summons and uses) followed by the
attacks, and most actions change only one of the two: an attack that kills nothing leaves the hand's actions as
they were; a summon without Charge leaves the attacks. The kept parts are not the position's: a `LegalCache`
(here, beside the predicates) holds them for one live game (`engine.locm.game.Game` owns one), as a chess
library's move generator keeps what it keeps out of the board. `engine.locm.evolve` only applies facts; the
game applies a battle's events through the cache (`LegalCache.apply`: `evolve`'s handlers, then a look at the
state by the event's kind in `KEEP`), and the cache drops a part when an event changes what that part reads,
or, where the change can only remove entries, drops those entries in place (an attack drops the attacker's
attacks; a death drops the entries naming the dead creature, unless it frees a full lane of the player to move
or was an enemy Guard):

- the hand's actions read the hand (ids, cost, type), the mana, and the ids and lanes of both boards;
- the attacks read both boards: ids, lanes, ``can_attack``/``has_attacked`` and Guard.

Health, defense, Ward and the decks are read by neither. The parts are immutable tuples. A summon or a use
rebuilds the hand's part: trimming it in place instead (the played card's entries, those no longer affordable, a
filled lane's summons) must walk the hand all the same, and measured about 5% slower a game than the rebuild
(1.2, random agents, in-process A/B). The cache is keyed by the state's ``seq``: asked about a state it has not
seen every event of, it builds the list again. `legal_actions(state)` builds the list from the state alone (for
any state: a copy, a fold, a test); the property tests compare it with the cache's after every step.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Final, cast

from locm.events.locm.cards import BLUE, CREATURE, GREEN, GUARD, RED, TYPE_NAMES
from locm.events.locm.catalog import (
    CardDrawn, CreatureAttacked, CreatureDied, CreatureModified, CreatureSummoned, Event, GameEnded, ItemUsed,
    TurnStarted,
)
from locm.engine.locm.commands import Attack, BattleAction, Command, Summon, Use
from locm.engine.locm.evolve import HANDLERS
from locm.engine.locm.state import BATTLE, GameState, Player, Unit

LANES = (0, 1)
OPPONENT = -1

# Where an item's target is, for `_item_target`.
MINE, THEIRS, FACE, NOWHERE = "mine", "theirs", "face", "nowhere"

Reason = tuple[Any, ...]  # (template, *values): `_text` makes the one-line reason


def _text(reason: Reason) -> str:
    """The one-line text of a reason; a list value (the Guards of a lane) is written as ids joined by ", "."""
    template: str = reason[0]
    return template.format(*(", ".join(map(str, v)) if type(v) is list else v for v in reason[1:]))


# --- the predicates (each: None when the check passes, else the reason) -------------------------------------


def _in_hand(u: Unit | None, id: int) -> Reason | None:
    if u is None:
        return ("card {} is not in your hand", id)
    return None


def _affordable(cost: int, mana: int, id: int) -> Reason | None:
    if cost > mana:
        return ("card {} costs {} mana, you have {}", id, cost, mana)
    return None


def _summonable(type: int, id: int) -> Reason | None:
    if type != CREATURE:
        return ("card {} is an item ({}), not a creature", id, TYPE_NAMES[type])
    return None


def lane_free(lane: int, count: int, lane_size: int) -> Reason | None:
    if lane not in LANES:
        return ("lane must be 0 or 1, got {}", lane)
    if count >= lane_size:
        return ("lane {} already holds {} creatures", lane, count)
    return None


def _usable(type: int, id: int) -> Reason | None:
    if type == CREATURE:
        return ("card {} is a creature, not an item", id)
    return None


def _item_target(type: int, id: int, target: int, where: str) -> Reason | None:
    if type == GREEN:
        if where != MINE:
            return ("green item {} must target one of your creatures, not {}", id, target)
    elif type == RED:
        if where != THEIRS:
            return ("red item {} must target an enemy creature, not {}", id, target)
    elif where not in (THEIRS, FACE):
        return ("blue item {} must target an enemy creature or -1, not {}", id, target)
    return None


def _on_board(a: Unit | None, id: int) -> Reason | None:
    if a is None:
        return ("creature {} is not one of your creatures on the board", id)
    return None


def _ready(can_attack: bool, has_attacked: bool, id: int) -> Reason | None:
    if not can_attack:
        if has_attacked:
            return ("creature {} has already attacked this turn", id)
        return ("creature {} was summoned this turn and has no Charge", id)
    return None


def _attack_target(id: int, lane: int, target: int, in_lane: bool, guard: bool, guards: list[int]) -> Reason | None:
    """An attack by creature `id` of `lane`. ``in_lane``: the target is an enemy creature in that lane;
    ``guard``: it has Guard; ``guards``: the Guards of that lane."""
    if guards and not guard:
        return ("creature {} must attack a Guard in lane {} first: {}", id, lane, guards)
    if target != OPPONENT and not in_lane:
        return ("target {} is not the opponent (-1) or an enemy creature in lane {}", target, lane)
    return None


# --- the two uses ---------------------------------------------------------------------------------------------


def problem(state: GameState, action: Command) -> str | None:
    """Why `action` is not legal for the player to move now (one line), or None if it is legal."""
    if state.phase != BATTLE:
        return f"no battle actions during the {state.phase} phase"
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    if type(action) is Summon:
        u = _find(me.hand, action.id)
        lane = action.lane
        reason = (_in_hand(u, action.id) or _affordable(cast(Unit, u).card.cost, me.mana, action.id)
                  or _summonable(cast(Unit, u).card.type, action.id))  # _in_hand refused None
        if reason is None:
            reason = lane_free(lane, me.lane_count(lane), state.rules.lane_size)
    elif type(action) is Attack:
        a = _find(me.board, action.id)
        reason = _on_board(a, action.id) or _ready(cast(Unit, a).can_attack, cast(Unit, a).has_attacked, action.id)
        if reason is None:
            a = cast(Unit, a)  # _on_board refused None
            target, lane = action.target, a.lane
            guards = [v.id for v in op.board if v.lane == lane and v.keywords & GUARD]
            d = _find(op.board, target)
            in_lane = d is not None and d.lane == lane
            guard = in_lane and bool(cast(Unit, d).keywords & GUARD)  # in_lane: d is not None
            reason = _attack_target(a.id, lane, target, in_lane, guard, guards)
    elif type(action) is Use:
        u = _find(me.hand, action.id)
        reason = (_in_hand(u, action.id) or _affordable(cast(Unit, u).card.cost, me.mana, action.id)
                  or _usable(cast(Unit, u).card.type, action.id))  # _in_hand refused None
        if reason is None:
            u = cast(Unit, u)
            target = action.target
            where = (FACE if target == OPPONENT else MINE if _find(me.board, target) else
                     THEIRS if _find(op.board, target) else NOWHERE)
            reason = _item_target(u.card.type, action.id, target, where)
    else:
        return f"{action.text()} is not a battle action"
    return None if reason is None else _text(reason)


def legal_actions(state: GameState) -> tuple[BattleAction, ...]:
    """Every legal SUMMON, ATTACK and USE of the player to move, in a fixed order: the hand's cards in hand
    order (summons by lane; items on own creatures, or on the opponent then its creatures), then each ready
    creature's attacks (the opponent first, then the lane's creatures). Empty outside the battle.

    Built from the state alone; a live game keeps the list between its events (`LegalCache`)."""
    if state.phase != BATTLE:
        return ()
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    return _hand_actions(me, op, state.rules.lane_size) + _attacks(me, op)


class LegalCache:
    """The legal list of one live game, kept between its events (see the module's note): `actions(state)` is
    `legal_actions(state)`, built again only in the parts the events since the last call changed.

    Its owner applies every batch of events through it (`apply`) while it keeps a part (``hand`` or
    ``attacks``: else `evolve.apply_decided` does, and the next `actions` builds both). It is keyed by the
    state's ``seq``: a state it has not seen reach that seq is answered from scratch."""

    __slots__ = ("hand", "attacks", "whole", "seq")

    def __init__(self) -> None:
        self.hand: tuple[BattleAction, ...] | None = None  # None: to be built again
        self.attacks: tuple[BattleAction, ...] | None = None
        self.whole: tuple[BattleAction, ...] | None = None  # hand + attacks
        self.seq = -1  # the state's seq the parts were kept up to

    def actions(self, state: GameState) -> tuple[BattleAction, ...]:
        """`legal_actions(state)`, from the parts kept since the last event that changed them."""
        acts = self.whole
        if acts is not None and self.seq == state.seq:  # built in this very battle state (any event changes seq)
            return acts
        if state.phase != BATTLE:
            return ()
        if self.seq != state.seq:  # a state the cache did not see reach this seq: nothing kept holds
            self.hand = self.attacks = None
            self.seq = state.seq
        hand = self.hand
        attacks = self.attacks
        if hand is None or attacks is None:
            p = state.current
            me, op = state.players[p], state.players[1 - p]
            if hand is None:
                hand = self.hand = _hand_actions(me, op, state.rules.lane_size)
            if attacks is None:
                attacks = self.attacks = _attacks(me, op)
        acts = self.whole = hand + attacks
        return acts

    def known(self, state: GameState) -> tuple[BattleAction, ...] | None:
        """The whole list if it is built for `state` as it is now (what `decide` may trust), else None."""
        return self.whole if self.seq == state.seq else None

    def apply(self, state: GameState, events: list[Event]) -> None:
        """Apply `events` to `state` as `engine.locm.evolve.apply_decided` does (`evolve`'s own handlers, one
        event at a time), and keep the parts true after each event: the cache never changes the state, it
        only looks at it once an event is applied (by the event's kind, `KEEP`)."""
        if not events:
            return
        if events[0].seq != self.seq:  # the state moved without this cache seeing it: nothing kept holds
            self.hand = self.attacks = self.whole = None
        steps = _STEPS
        for e in events:
            handler, what = steps[type(e)]
            handler(state, e)
            if not what:  # an event that changes nothing either part reads
                continue
            # the kinds of `KEEP` as literals, the most frequent first: this runs for every event of a battle
            self.whole = None
            if what == 1:  # _DROP_HAND: a card drawn or an item used: the hand's part reads the hand and mana
                self.hand = None
            elif what == 2:  # _ATTACKED
                _after_attack(self, state, e)  # type: ignore[arg-type]  # KEEP says which type it is
            elif what == 3:  # _DROP_BOTH: a turn's start (another player to move, creatures readied), the end
                self.hand = self.attacks = None
            elif what == 4:  # _SUMMONED: the hand, the mana and a board: the hand's part is built again; the
                self.hand = None  # attacks change by a creature that may attack now (Charge) or a new target
                if e.can_attack or e.player != state.current:  # type: ignore[attr-defined]
                    self.attacks = None
            elif what == 5:  # _DIED
                _after_death(self, state, e)  # type: ignore[arg-type]
            else:  # _MODIFIED: a creature's keywords (Guard) or its readiness: what the attacks read
                self.attacks = None
        state.seq = self.seq = events[-1].seq + 1


def _after_attack(cache: LegalCache, state: GameState, e: CreatureAttacked) -> None:
    """Of what the parts read, only the attacker changed, and it can attack no more: its own attacks are
    dropped and the rest kept in order, cheaper than a rebuild (a death or a changed creature is its own
    event)."""
    attacks = cache.attacks
    if attacks is not None and e.player == state.current:
        attacker = e.attacker
        cache.attacks = tuple([x for x in attacks if x.id != attacker])


def _after_death(cache: LegalCache, state: GameState, e: CreatureDied) -> None:
    """The parts lose the entries that name the dead creature, in order, instead of a rebuild (deaths are
    frequent), unless the death opens something: a full lane of the player to move (`lane_free` before the
    death: new summons) or an enemy Guard (the lane's other creatures may become targets); then that part is
    built again."""
    dead = state.units[e.id]
    id = dead.id
    mine = dead.owner == state.current
    hand = cache.hand
    if hand is not None:
        # the lane's count before the death, counted only where it can matter: the player to move's lane
        opened = mine and lane_free(dead.lane, 1 + state.players[dead.owner].lane_count(dead.lane),
                                    state.rules.lane_size) is not None
        cache.hand = None if opened else tuple([a for a in hand if isinstance(a, Summon) or a.target != id])
    attacks = cache.attacks
    if attacks is not None:
        if mine:
            cache.attacks = tuple([a for a in attacks if a.id != id])
        elif dead.keywords & GUARD:
            cache.attacks = None
        else:
            cache.attacks = tuple([a for a in cast("tuple[Attack, ...]", attacks) if a.target != id])


# What each event that changes what a part reads does to the kept parts (`LegalCache.apply`); any other event
# changes neither.
_DROP_HAND: Final = 1
_ATTACKED: Final = 2
_DROP_BOTH: Final = 3
_SUMMONED: Final = 4
_DIED: Final = 5
_MODIFIED: Final = 6
KEEP: dict[type[Event], int] = {
    CardDrawn: _DROP_HAND,
    ItemUsed: _DROP_HAND,
    CreatureAttacked: _ATTACKED,
    CreatureDied: _DIED,
    CreatureSummoned: _SUMMONED,
    CreatureModified: _MODIFIED,
    TurnStarted: _DROP_BOTH,
    GameEnded: _DROP_BOTH,
}
if (_DROP_HAND, _ATTACKED, _DROP_BOTH, _SUMMONED, _DIED, _MODIFIED) != (1, 2, 3, 4, 5, 6):  # pragma: no cover
    raise ImportError("engine.locm.legal: LegalCache.apply spells the kinds of KEEP as 1..6")  # a programming error
_STEPS: dict[type[Event], tuple[Callable[[GameState, Any], None], int]] = {
    t: (handler, KEEP.get(t, 0)) for t, handler in HANDLERS.items()}
"""Each event type's `evolve` handler and its kind in `KEEP` (0: none): one look-up for both."""


def _hand_actions(me: Player, op: Player, lane_size: int) -> tuple[BattleAction, ...]:
    """The summons and uses of the hand's cards, in hand order."""
    mana = me.mana
    acts: list[BattleAction] = []
    append = acts.append
    my_board, op_board = me.board, op.board
    n0 = n1 = 0
    for v in my_board:
        if v.lane:
            n1 += 1
        else:
            n0 += 1
    free = _free_lanes(n0, n1, lane_size)
    kinds = _KINDS
    affordable = _AFFORDABLE[mana] if 0 <= mana < _COSTS else None
    for u in me.hand:
        c = u.card
        cost = c.cost
        if affordable is not None and 0 <= cost < _COSTS:
            if not affordable[cost]:
                continue
        elif _affordable(cost, mana, u.id) is not None:
            continue
        i = u.id
        summons, face, mine, theirs = kinds[c.type]
        if summons:
            for lane in free:
                append(Summon(i, lane))
            continue
        if face:
            append(Use(i, OPPONENT))
        if mine:
            for v in my_board:
                append(Use(i, v.id))
        if theirs:
            for v in op_board:
                append(Use(i, v.id))
    return tuple(acts)


def _attacks(me: Player, op: Player) -> tuple[BattleAction, ...]:
    """Each ready creature's attacks, in board order: the opponent first, then the lane's creatures."""
    my_board = me.board
    if not my_board:
        return ()
    acts: list[BattleAction] = []
    append = acts.append
    lanes: tuple[list[tuple[int, bool]], list[tuple[int, bool]]] = ([], [])
    guarded = [False, False]
    for v in op.board:
        guard = bool(v.keywords & GUARD)
        lanes[v.lane].append((v.id, guard))
        if guard:
            guarded[v.lane] = True
    ok_by_lane = (_ATTACK_OK[guarded[0]], _ATTACK_OK[guarded[1]])
    ready = _READY
    for a in my_board:
        if not ready[a.can_attack][a.has_attacked]:
            continue
        lane = a.lane
        ok = ok_by_lane[lane]
        i = a.id
        if ok[0]:
            append(Attack(i, OPPONENT))
        for target, guard in lanes[lane]:
            if ok[1 + guard]:
                append(Attack(i, target))
    return tuple(acts)


@functools.cache
def _free_lanes(n0: int, n1: int, lane_size: int) -> tuple[int, ...]:
    """The lanes with room, given the creatures in each (the room predicate, once per count)."""
    return tuple(lane for lane, n in ((0, n0), (1, n1)) if lane_free(lane, n, lane_size) is None)


# The predicates of one kind of candidate, run once for every kind at import: whether a card type summons,
# where an item of a type may go (the opponent, one of your creatures, an enemy creature), whether a creature
# with these `can_attack` and `has_attacked` may attack (indexed [can_attack][has_attacked]), and at what.
_TYPES = range(len(TYPE_NAMES))
_SUMMONABLE = tuple(_summonable(t, 0) is None for t in _TYPES)
_ITEM_WHERE = tuple(tuple(_item_target(t, 0, 0, where) is None for where in (FACE, MINE, THEIRS)) for t in _TYPES)
_KINDS = tuple((s,) + w for s, w in zip(_SUMMONABLE, _ITEM_WHERE))  # both, one lookup per card of the hand
_COSTS = 16  # costs and mana 0..15 are looked up: [mana][cost]; others (a variant's cards) ask the predicate
_AFFORDABLE = tuple(tuple(_affordable(cost, mana, 0) is None for cost in range(_COSTS)) for mana in range(_COSTS))
_READY = tuple(tuple(_ready(can, did, 0) is None for did in (False, True)) for can in (False, True))
# The attack predicate for each kind of target (the opponent, a creature of the lane without Guard, a Guard of
# the lane), in a lane without Guards and in a lane with Guards: [guarded] -> (opponent, creature, guard).
_ATTACK_OK = tuple(tuple(_attack_target(0, 0, target, in_lane, guard, [0] if guarded else []) is None
                         for target, in_lane, guard in ((OPPONENT, False, False), (0, True, False), (0, True, True)))
                   for guarded in (False, True))


def _find(units: list[Unit], id: int) -> Unit | None:
    for u in units:
        if u.id == id:
            return u
    return None


__all__ = ["legal_actions", "LegalCache", "problem", "LANES", "OPPONENT", "BLUE"]
