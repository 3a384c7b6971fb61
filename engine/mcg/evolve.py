"""`evolve(state, event) -> state` for my-card-game: apply one fact. Rebuilding a match is folding it over
its log (`fold`).

`evolve` never looks anything up outside the state and the event, never draws a random number and never
raises on a valid log. It updates the state in place (the fold's private working copy, STYLE 2) and returns
it. Dispatch is `match` on the event's type; the last case raises, so an event nobody handles fails on the
first replay (STYLE 3). An event that does not fit the state (a card drawn that is not on top, an unknown
instance, a seq out of order) raises `InvalidLogError` naming its seq: a hostile log stops, it never folds
into a state the rules could not reach.
"""

from __future__ import annotations

from typing import Iterable

from locm.engine.errors import InvalidLogError
from locm.engine.mcg.behaviour import BEHAVIOUR
from locm.engine.seam import check_behaviour, fold_log
from locm.engine.mcg.state import ENDED, FIRST_INSTANCE, MAIN, MULLIGAN, McgState, Monster
from locm.events.mcg.catalog import (
    AT_END_PHASE, AT_TURN_START, ActionRejected, CardBurned, CardDrawn, CardPlayed, CardsReturned, CoinFlipped,
    CommandReceived, DeckShuffled, EffectDelayed, EffectFizzled, EffectTriggered, Event, FatigueTaken, GameCreated,
    GameEnded, HardError, MaxHealthRaised,
    MonsterAttacked, MonsterDamaged, MonsterDied, MonsterHealed, MonsterSummoned, MulliganChosen, PlayerDamaged,
    PlayerHealed, StarterChosen, StatsChanged, Surrendered, TurnEnded, TurnStarted,
)
from locm.events.mcg.rules import MONSTER


def initial_state(created: Event) -> McgState:
    """The state right after `game_created`: instance ids given to both decks as listed (R-SETUP)."""
    if type(created) is not GameCreated:
        raise InvalidLogError(f"a my-card-game log must start with mcg_game_created, not {type(created).__name__}")
    if created.seq != 0 or created.cause != -1:
        raise InvalidLogError("mcg_game_created must have seq 0 and cause -1", created.seq)
    cards = {c.id: c for c in created.cards}
    state = McgState(created.rules, created.seeds, created.agents, cards)
    state.behaviour = check_behaviour(created, BEHAVIOUR)
    next_id = FIRST_INSTANCE
    for seat, deck in enumerate(created.decks):
        for cid in deck:
            if cid not in cards:
                raise InvalidLogError(f"mcg_game_created: seat {seat}'s deck holds card {cid}, which it does not "
                                      "define", 0)
            state.card_of[next_id] = cid
            state.owner_of[next_id] = seat
            state.players[seat].deck.append(next_id)
            next_id += 1
    state.next_id = next_id
    state.seq = 1
    return state


def fold(events: Iterable[Event]) -> McgState:
    """The state a log leads to. Raises `InvalidLogError` for a log that is not a my-card-game match's."""
    return fold_log(initial_state, evolve, events)


def evolve(state: McgState, e: Event) -> McgState:
    if e.seq != state.seq:
        raise InvalidLogError(f"event {e.seq} ({type(e).__name__}) out of sequence: expected seq {state.seq}", e.seq)
    if not -1 <= e.cause < e.seq:
        raise InvalidLogError(f"event {e.seq}: its cause {e.cause} is not an earlier event", e.seq)
    if state.phase == ENDED:
        raise InvalidLogError(f"event {e.seq} ({type(e).__name__}) after the end of the game", e.seq)
    player = getattr(e, "player", 0)
    if player not in (0, 1) and not (type(e) is StarterChosen and player == -1):
        raise InvalidLogError(f"event {e.seq} ({type(e).__name__}) names seat {player!r}: expected 0 or 1", e.seq)
    try:
        _apply(state, e)
    except (KeyError, ValueError, IndexError) as exc:
        raise InvalidLogError(f"event {e.seq} ({type(e).__name__}) does not fit the game: {exc!r}", e.seq) from None
    state.seq += 1
    return state


def _apply(s: McgState, e: Event) -> None:
    match e:
        case CommandReceived():
            s.chain = 0
        case ActionRejected():
            s.players[e.player].rejections += 1
        case CardDrawn():
            pl = s.players[e.player]
            _take_top(s, pl.deck, e.id, e.card)
            pl.hand.append(e.id)
        case CardBurned():
            pl = s.players[e.player]
            _take_top(s, pl.deck, e.id, e.card)
            pl.graveyard.append(e.id)
        case FatigueTaken():
            pl = s.players[e.player]
            pl.health -= e.amount
            pl.fatigue += 1
        case TurnStarted():
            pl = s.players[e.player]
            s.phase, s.current, s.turn = MAIN, e.player, e.turn
            pl.max_mana = pl.mana = e.max_mana
            for p in s.players:
                p.rejections = 0
            for i in pl.board:
                s.monsters[i].attacked = False
            # the delayed effects due before this turn, and those due at its start, leave the list (R-FX-DELAY)
            if s.delayed:  # rare: most turns have no spell waiting
                s.delayed = [d for d in s.delayed if d.turn > e.turn or (d.turn == e.turn and d.at != AT_TURN_START)]
        case TurnEnded():
            if s.delayed:
                s.delayed = [d for d in s.delayed if d.turn > e.turn or (d.turn == e.turn and d.at != AT_END_PHASE)]
        case EffectDelayed():
            effects = s.cards[e.card].effects
            if not 0 <= e.index < len(effects) or not effects[e.index].at or effects[e.index].at != e.at:
                raise ValueError(f"effect {e.index} of card {e.card} does not wait for {e.at!r}")
            s.delayed.append(e)
        case CardPlayed():
            pl = s.players[e.player]
            if s.card_of[e.id] != e.card:
                raise ValueError(f"instance {e.id} is card {s.card_of[e.id]}, not {e.card}")
            pl.hand.remove(e.id)
            pl.mana -= e.cost
            if s.cards[e.card].type != MONSTER:
                pl.graveyard.append(e.id)
        case MonsterSummoned():
            if e.token:
                if e.id != s.next_id:
                    raise ValueError(f"a new token takes id {s.next_id}, not {e.id}")
                s.card_of[e.id] = e.card
                s.owner_of[e.id] = e.player
                s.next_id = e.id + 1
            elif s.card_of[e.id] != e.card or e.id in s.monsters:
                raise ValueError(f"instance {e.id} cannot be summoned as card {e.card}")
            s.monsters[e.id] = Monster(e.id, s.cards[e.card], s.owner_of[e.id], e.player, e.power, e.toughness,
                                       e.health, s.turn)
            s.players[e.player].board.append(e.id)
        case MonsterAttacked():
            s.monsters[e.attacker].attacked = True
        case MonsterDamaged():
            s.monsters[e.id].health -= e.amount
        case PlayerDamaged():
            s.players[e.player].health -= e.amount
        case MonsterHealed():
            s.monsters[e.id].health += e.amount
        case PlayerHealed():
            s.players[e.player].health += e.amount
        case MaxHealthRaised():
            m = s.monsters[e.id]
            m.max_health += e.amount
            m.health += e.amount
        case StatsChanged():
            m = s.monsters[e.id]
            m.power += e.power
            m.toughness += e.toughness
        case MonsterDied():
            m = s.monsters.pop(e.id)
            s.players[m.side].board.remove(e.id)
            s.players[m.owner].graveyard.append(e.id)
        case EffectTriggered():
            s.chain += 1
        case CoinFlipped():
            s.coin_winner = s.current = e.winner
        case StarterChosen():
            s.first = s.current = e.first
            s.phase = MULLIGAN
        case DeckShuffled():
            deck = s.players[e.player].deck
            if sorted(deck) != sorted(e.ids):
                raise ValueError(f"the order is not one of seat {e.player}'s deck")
            deck[:] = e.ids
        case MulliganChosen():
            s.players[e.player].mulliganed = True
            other = s.players[1 - e.player]
            if not other.mulliganed:
                s.current = other.seat
        case CardsReturned():
            pl = s.players[e.player]
            for i in e.ids:
                pl.hand.remove(i)
                pl.deck.append(i)
        case GameEnded():
            s.phase, s.winner, s.end_reason, s.current = ENDED, e.winner, e.reason, -1
        case EffectFizzled() | HardError() | Surrendered():
            pass
        case _:
            raise InvalidLogError(f"event {e.seq}: {type(e).__name__} is not a my-card-game event", e.seq)


def _take_top(s: McgState, deck: list[int], instance: int, card: int) -> None:
    if not deck or deck[0] != instance:
        raise ValueError(f"instance {instance} is not the top card of the deck")
    if s.card_of[instance] != card:
        raise ValueError(f"instance {instance} is card {s.card_of[instance]}, not {card}")
    deck.pop(0)


__all__ = ["evolve", "fold", "initial_state"]
