"""`evolve(state, event) -> state`: apply one fact. Rebuilding a game is folding `evolve` over its log.

`evolve` never looks anything up outside the state and the event, never draws a random number and never
raises on a valid log. It updates the state in place (the fold's private working copy, STYLE 2) and returns
it.

Dispatch is a table keyed by the event's exact type rather than a `match` statement (STYLE 3): the fold runs
for every event of every game, and a dictionary lookup costs the same for every type where a `match` tries
the cases one by one. The table is checked to cover the whole union (`_check_table`), and an event type
missing from it raises `InvalidLogError`, the same guarantee as a `case _:` that raises.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from locm.events.locm.cards import WARD
from locm.events.locm.catalog import (
    EVENT_TYPES, ActionReceived, Event, ActionRejected, CardDrawn, CardPicked, CardPoolDefined, CreatureAttacked,
    CreatureDamaged, CreatureDied, CreatureModified, CreatureSummoned, DeckChosen, DeckOrdered, DraftOffered,
    DrawBonus, DrawLost, GameCreated, GameEnded, HardError, ItemUsed, PlayerDamaged, PlayerHealed, RuneBroken,
    TurnEnded, TurnStarted, WardLost,
)
from locm.engine.errors import InvalidLogError
from locm.engine.locm import behaviour as _behaviour
from locm.engine.locm.rulesets import DRAFT
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT as DRAFT_PHASE, ENDED, GameState, Unit
from locm.engine.locm.variants import VariantError, check_rules
from locm.engine.seam import check_behaviour


def initial_state(created: Event) -> GameState:
    """The state right after `game_created`, with the rules the event carries (never looked up by name)."""
    if type(created) is not GameCreated:
        raise InvalidLogError(f"a game's log must start with a game_created event, not {type(created).__name__}")
    if created.rules is None:
        raise InvalidLogError("game_created carries no rules: a schema 1 log must be read through "
                              "locm.engine.locm.upcast.upcast")
    check_behaviour(created, _behaviour.BEHAVIOUR)  # a later engine's behaviour cannot be decided here
    try:
        check_rules(created.rules, "game_created.rules", from_log=True)
    except VariantError as exc:
        raise InvalidLogError(f"seq 0: the rules cannot be played: {exc}", 0) from None
    state = GameState(created.rules)
    return apply_all(state, (created,))


def evolve(state: GameState, e: Event) -> GameState:
    return apply_all(state, (e,))


def _nothing(state: GameState, e: Event) -> None:
    pass


def _card_drawn(state: GameState, e: CardDrawn) -> None:
    pl = state.players[e.player]
    u = pl.deck.pop()
    if u.id != e.id:
        raise InvalidLogError(f"card_drawn {e.seq}: expected the top card {u.id}, the event says {e.id}")
    pl.hand.append(u)


def _attacked(state: GameState, e: CreatureAttacked) -> None:
    units = state.units
    u = units[e.attacker]
    u.can_attack = False
    u.has_attacked = True
    u.touched = True
    t = e.target
    if t != -1:
        units[t].touched = True
    state.players[e.player].actions.append((u.card.base_id, "ATTACK", e.attacker, t))


def _damaged(state: GameState, e: CreatureDamaged) -> None:
    state.units[e.id].defense -= e.amount


def _died(state: GameState, e: CreatureDied) -> None:
    u = state.units[e.id]
    state.players[u.owner].board.remove(u)


def _player_damaged(state: GameState, e: PlayerDamaged) -> None:
    pl = state.players[e.player]
    pl.health -= e.amount
    pl.last_damage = e.seq
    if e.counts:
        pl.damage_counter += e.amount


def _player_healed(state: GameState, e: PlayerHealed) -> None:
    state.players[e.player].health += e.amount


def _summoned(state: GameState, e: CreatureSummoned) -> None:
    p = e.player
    pl = state.players[p]
    i = e.id
    if e.copy_of:
        u = Unit(i, state.units[e.copy_of].card, p)
        state.units[i] = u
        if i >= state.next_id:
            state.next_id = i + 1
    else:
        u = state.units[i]
        pl.hand.remove(u)
        pl.mana -= e.cost
        pl.actions.append((u.card.base_id, "SUMMON", i, e.lane))
    u.lane = e.lane
    u.can_attack = e.can_attack
    pl.board.append(u)


def _item_used(state: GameState, e: ItemUsed) -> None:
    pl = state.players[e.player]
    u = state.units[e.id]
    pl.hand.remove(u)
    pl.mana -= e.cost
    t = e.target
    if t != -1:
        state.units[t].touched = True
    pl.actions.append((u.card.base_id, "USE", e.id, t))


def _modified(state: GameState, e: CreatureModified) -> None:
    u = state.units[e.id]
    u.attack = e.attack
    u.defense = e.defense
    u.keywords = e.keywords
    u.can_attack = e.can_attack


def _ward_lost(state: GameState, e: WardLost) -> None:
    state.units[e.id].keywords &= ~WARD


def _draw_bonus(state: GameState, e: DrawBonus) -> None:
    state.players[e.player].next_draw += e.amount


def _rune_broken(state: GameState, e: RuneBroken) -> None:
    state.players[e.player].runes.remove(e.rune)


def _turn_started(state: GameState, e: TurnStarted) -> None:
    p = e.player
    units = state.units
    for i in e.cleared:
        u = units[i]
        u.can_attack = False
        u.has_attacked = False
    for i in e.ready:
        units[i].can_attack = True
    if e.turn > 0:
        ending = state.players[1 - p]
        ending.draw_shown = ending.next_draw
    state.phase = BATTLE
    state.current = p
    state.turn = e.turn
    pl = state.players[p]
    pl.max_mana = e.max_mana
    pl.mana = e.mana
    if e.bonus_spent:
        pl.bonus = False
    pl.actions = []
    pl.draw_shown = e.draws
    pl.turns += 1
    pl.next_draw = 1
    pl.damage_counter = 0


def _game_ended(state: GameState, e: GameEnded) -> None:
    state.phase = ENDED
    state.winner = e.winner
    state.end_reason = e.reason


def _card_picked(state: GameState, e: CardPicked) -> None:
    p = e.player
    state.players[p].picks.append(e.base_id)
    if p == 1:
        state.round += 1
        offers = state._offers
        state.offer = offers[state.round] if state.round < len(offers) and not e.ends_phase else ()
    state.current = 1 - p
    if e.ends_phase:
        state.phase = BATTLE


def _draft_offered(state: GameState, e: DraftOffered) -> None:
    state._offers.append(e.base_ids)
    if e.round == 0:
        state.offer = e.base_ids


def _deck_chosen(state: GameState, e: DeckChosen) -> None:
    state.players[e.player].picks = list(e.base_ids)
    state.current = 1 - e.player
    if e.ends_phase:
        state.phase = BATTLE


def _deck_ordered(state: GameState, e: DeckOrdered) -> None:
    cards = state.cards
    p = e.player
    deck = [Unit(i, cards[b], p) for i, b in zip(e.ids, e.base_ids)]
    state.units.update(zip(e.ids, deck))
    deck.reverse()  # the top card last, so that drawing is a pop()
    state.players[p].deck = deck


def _card_pool(state: GameState, e: CardPoolDefined) -> None:
    state.cards = {c.base_id: c for c in e.cards}


def _game_created(state: GameState, e: GameCreated) -> None:
    state.params = e
    state.phase = DRAFT_PHASE if state.rules.deck_building == DRAFT else CONSTRUCT
    state.current = 0


HANDLERS: dict[type[Event], Callable[[GameState, Any], None]] = {  # each handler takes its own type
    ActionReceived: _nothing,
    ActionRejected: _nothing,
    TurnEnded: _nothing,
    DrawLost: _nothing,
    HardError: _nothing,
    CardDrawn: _card_drawn,
    CreatureAttacked: _attacked,
    CreatureDamaged: _damaged,
    CreatureDied: _died,
    PlayerDamaged: _player_damaged,
    PlayerHealed: _player_healed,
    CreatureSummoned: _summoned,
    ItemUsed: _item_used,
    CreatureModified: _modified,
    WardLost: _ward_lost,
    DrawBonus: _draw_bonus,
    RuneBroken: _rune_broken,
    TurnStarted: _turn_started,
    GameEnded: _game_ended,
    CardPicked: _card_picked,
    DraftOffered: _draft_offered,
    DeckChosen: _deck_chosen,
    DeckOrdered: _deck_ordered,
    CardPoolDefined: _card_pool,
    GameCreated: _game_created,
}


def _check_table() -> None:
    missing = [t.__name__ for t in EVENT_TYPES if t not in HANDLERS]
    if missing:  # pragma: no cover - a programming error caught at import
        raise InvalidLogError(f"evolve has no handler for: {', '.join(missing)}")


_check_table()


def apply_all(state: GameState, events: Iterable[Event]) -> GameState:
    """`evolve` for each event in turn (the same dispatch, without a call per event).

    Fold checks what it folds: each event's ``seq`` must be the next one (0, 1, 2, ...: a log with an event
    dropped or two swapped is refused) and its ``cause`` must be an earlier event (or -1, for a record of
    input). Either failure raises `InvalidLogError` naming the seq.
    """
    handlers = HANDLERS
    for e in events:
        seq = e.seq
        if seq != state.seq:
            raise InvalidLogError(f"seq {seq}: expected seq {state.seq} here (an event is missing, repeated or out "
                                  "of order)", seq)
        if not -1 <= e.cause < seq:
            raise InvalidLogError(f"seq {seq}: its cause {e.cause} is not an earlier event", seq)
        try:
            handler = handlers[type(e)]
        except KeyError:
            raise InvalidLogError(f"evolve: unhandled event type {type(e).__name__}", seq) from None
        state.seq = seq + 1
        try:
            handler(state, e)
        except (LookupError, ValueError, TypeError, AttributeError, ArithmeticError) as exc:
            # a log read from outside whose event does not fit the state (an unknown id, a card not in hand)
            raise InvalidLogError(f"seq {seq}: a {_tag(e)} event that does not fit the game's state "
                                  f"({type(exc).__name__}: {exc})", seq) from None
    return state


def _tag(e: Event) -> str:
    return type(e).__struct_config__.tag  # type: ignore[return-value]  # every event names its tag


def apply_decided(state: GameState, events: list[Event]) -> GameState:
    """`evolve` for the events `engine.locm.decide` has just made from this very state (a live game's step).

    Their ``seq`` and ``cause`` are right by construction (`engine.locm.emit.Out` numbers them from ``state.seq``;
    the property tests check every live log), so the checks `apply_all` makes of a log read from outside
    are skipped: they were a sixth of applying a live game's events."""
    handlers = HANDLERS
    for e in events:
        handlers[type(e)](state, e)
    if events:
        state.seq = events[-1].seq + 1
    return state


__all__ = ["evolve", "apply_decided", "initial_state", "HANDLERS", "CONSTRUCT", "ENDED"]
