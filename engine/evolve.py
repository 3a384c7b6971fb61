"""`evolve(state, event) -> state`: apply one fact. Rebuilding a game is folding `evolve` over its log.

`evolve` never looks anything up outside the state and the event, never draws a random number and never
raises on a valid log. It updates the state in place (the fold's private working copy, STYLE 2) and returns
it. Cases are ordered by how often they occur; the last case raises, so an unhandled event type fails on the
first replay.
"""

from __future__ import annotations

from events.cards import CHARGE, WARD
from events.catalog import (
    ActionReceived, ActionRejected, CardDrawn, CardPicked, CardPoolDefined, CreatureAttacked,
    CreatureDamaged, CreatureDied, CreatureModified, CreatureSummoned, DeckChosen, DeckOrdered, DraftOffered,
    DrawBonus, DrawLost, GameCreated, GameEnded, HardError, ItemUsed, PlayerDamaged, PlayerHealed, RuneBroken,
    TurnEnded, TurnStarted, WardLost,
)
from engine.errors import InvalidLogError
from engine.rulesets import DRAFT, by_name
from engine.state import BATTLE, CONSTRUCT, DRAFT as DRAFT_PHASE, ENDED, GameState, Unit



def initial_state(created: GameCreated) -> GameState:
    state = GameState(by_name(created.ruleset))
    return evolve(state, created)


def evolve(state: GameState, e) -> GameState:
    state.seq = e.seq + 1
    match e:
        case ActionReceived() | ActionRejected() | TurnEnded() | DrawLost() | HardError():
            pass
        case CardDrawn(player=p, id=i):
            pl = state.players[p]
            u = pl.deck.pop()
            pl.hand.append(u)
        case CreatureAttacked(player=p, attacker=a, target=t):
            u = state.units[a]
            u.can_attack = False
            u.has_attacked = True
            u.touched = True
            if t != -1:
                state.units[t].touched = True
            state.players[p].actions.append(f"{u.card.base_id} ATTACK {a} {t}")
        case CreatureDamaged(id=i, amount=n):
            state.units[i].defense -= n
        case CreatureDied(id=i):
            u = state.units[i]
            state.players[u.owner].board.remove(u)
        case PlayerDamaged(player=p, amount=n, counts=counts):
            pl = state.players[p]
            pl.health -= n
            if counts:
                pl.damage_counter += n
        case PlayerHealed(player=p, amount=n):
            state.players[p].health += n
        case CreatureSummoned(player=p, id=i, lane=lane, cost=cost, copy_of=copy_of):
            pl = state.players[p]
            if copy_of:
                u = Unit(i, state.units[copy_of].card, p)
                state.units[i] = u
                if i >= state.next_id:
                    state.next_id = i + 1
            else:
                u = state.units[i]
                pl.hand.remove(u)
                pl.mana -= cost
                pl.actions.append(f"{u.card.base_id} SUMMON {i} {lane}")
            u.lane = lane
            u.can_attack = bool(u.keywords & CHARGE)
            pl.board.append(u)
        case ItemUsed(player=p, id=i, target=t, cost=cost):
            pl = state.players[p]
            u = state.units[i]
            pl.hand.remove(u)
            pl.mana -= cost
            if t != -1:
                state.units[t].touched = True
            pl.actions.append(f"{u.card.base_id} USE {i} {t}")
        case CreatureModified(id=i):
            u = state.units[i]
            u.attack = e.attack
            u.defense = e.defense
            u.keywords = e.keywords
            u.can_attack = e.can_attack
        case WardLost(id=i):
            state.units[i].keywords &= ~WARD
        case DrawBonus(player=p, amount=n):
            state.players[p].next_draw += n
        case RuneBroken(player=p, rune=r):
            state.players[p].runes.remove(r)
        case TurnStarted():
            _turn_started(state, e)
        case GameEnded(winner=w, reason=reason):
            state.phase = ENDED
            state.winner = w
            state.end_reason = reason
        case CardPicked(player=p, base_id=b):
            state.players[p].picks.append(b)
            if p == 1:
                state.round += 1
                state.offer = state._offers[state.round] if state.round < len(state._offers) else ()
            state.current = 1 - p
        case DraftOffered(round=r, base_ids=ids):
            state._offers.append(ids)
            if r == 0:
                state.offer = ids
        case DeckChosen(player=p, base_ids=ids):
            state.players[p].picks = list(ids)
            state.current = 1 - p
        case DeckOrdered(player=p, ids=ids, base_ids=base_ids):
            cards = state.cards
            deck = [Unit(i, cards[b], p) for i, b in zip(ids, base_ids)]
            for u in deck:
                state.units[u.id] = u
            deck.reverse()  # the top card last, so that drawing is a pop()
            state.players[p].deck = deck
        case CardPoolDefined(cards=cards):
            state.cards = {c.base_id: c for c in cards}
        case GameCreated():
            state.params = e
            state.phase = DRAFT_PHASE if state.rules.deck_building == DRAFT else CONSTRUCT
            state.current = 0
        case _:
            raise InvalidLogError(f"evolve: unhandled event type {type(e).__name__}")
    return state


def _turn_started(state: GameState, e: TurnStarted) -> None:
    p = e.player
    if state.phase == BATTLE:
        ending = state.players[1 - p]
        for u in ending.board:
            u.can_attack = False
            u.has_attacked = False
        ending.draw_shown = ending.next_draw
    state.phase = BATTLE
    state.current = p
    state.turn = e.turn
    pl = state.players[p]
    pl.max_mana = e.max_mana
    pl.mana = e.mana
    if e.bonus_spent:
        pl.bonus = False
    for u in pl.board:
        u.can_attack = True
    pl.actions = []
    pl.draw_shown = e.draws
    pl.turns += 1
    pl.next_draw = 1
    pl.damage_counter = 0


def fold(events, state: GameState | None = None) -> GameState:
    """Rebuild a state from a log (or continue folding onto `state`)."""
    it = iter(events)
    if state is None:
        first = next(it, None)
        if not isinstance(first, GameCreated):
            raise InvalidLogError("a game's log must start with a game_created event")
        state = initial_state(first)
    for e in it:
        evolve(state, e)
    return state
