"""What each player may see (R-VIEW), and events in words.

- `view(state, player)`: the position as plain data, as `player` sees it: their hand, both boards and
  graveyards, health and mana of both, the number of cards in each hand and deck; never the opponent's hand
  nor the order of either deck.
- `redact(event, player)`: an event as `player` may see it (the per-player log): the opponent's drawn cards,
  mulligan and answers, and every deck order, hidden.
- `describe(event, state)`: one line of text for an event, naming cards (the state of the game it belongs
  to, for the names of instances: any state at or after the event).
"""

from __future__ import annotations

from typing import Any

import msgspec

from locm.engine.mcg.cards import card_text
from locm.engine.mcg.state import MAIN, McgState, Monster
from locm.events.mcg.catalog import (
    ActionRejected, CardBurned, CardDrawn, CardPlayed, CardsReturned, CoinFlipped, CommandReceived, DeckShuffled,
    EffectDelayed, EffectFizzled, EffectTriggered, Event, FatigueTaken, GameCreated, GameEnded, HardError,
    MaxHealthRaised,
    MonsterAttacked, MonsterDamaged, MonsterDied, MonsterHealed, MonsterSummoned, MulliganChosen, PlayerDamaged,
    PlayerHealed, StarterChosen, StatsChanged, Surrendered, TurnEnded, TurnStarted,
)
from locm.events.mcg.rules import CardDef

HIDDEN = -1


def card_view(card: CardDef) -> dict[str, Any]:
    """A card's definition as plain data (what a bot is told about a card it can see): its id as ``card``."""
    out: dict[str, Any] = {"card": card.id}
    out.update((k, v) for k, v in msgspec.to_builtins(card).items() if k != "id")
    out["text"] = card_text(card)
    return out


def monster_view(state: McgState, m: Monster) -> dict[str, Any]:
    can = state.phase == MAIN and m.side == state.current and not m.attacked and m.summoned_turn != state.turn
    return {"id": m.id, "card": m.card.id, "name": m.card.name, "power": m.power, "toughness": m.toughness,
            "health": m.health, "max_health": m.max_health, "can_attack": can, "text": card_text(m.card)}


def view(state: McgState, player: int) -> dict[str, Any]:
    """The position as `player` sees it (R-VIEW)."""
    me, op = state.players[player], state.players[1 - player]

    def side(p: Any) -> dict[str, Any]:
        return {"health": p.health, "mana": p.mana, "max_mana": p.max_mana, "deck": len(p.deck),
                "fatigue": p.fatigue, "mulliganed": p.mulliganed, "graveyard": [state.card_of[i] for i in p.graveyard]}

    mine = side(me)
    mine["hand"] = [{"id": i, **card_view(state.card(i))} for i in me.hand]
    theirs = side(op)
    theirs["hand"] = len(op.hand)
    return {
        "seat": player, "phase": state.phase, "turn": state.turn, "to_move": state.current, "first": state.first,
        "coin_winner": state.coin_winner, "you": mine, "enemy": theirs,
        "board": {"you": [monster_view(state, state.monsters[i]) for i in me.board],
                  "enemy": [monster_view(state, state.monsters[i]) for i in op.board]},
        "delayed": [{"player": d.player, "card": d.card, "index": d.index, "at": d.at, "turn": d.turn,
                     "target": d.target} for d in state.delayed],
    }


def redact(event: Event, player: int) -> Event:
    """`event` as `player` may see it (R-VIEW); the event itself when nothing in it is hidden."""
    replace = msgspec.structs.replace
    match event:
        case GameCreated():
            other = 1 - player
            own = set(event.decks[player])
            decks = (event.decks[0], ()) if other == 1 else ((), event.decks[1])
            cards = tuple(c for c in event.cards if c.id in own or c.token)
            return replace(event, decks=decks, cards=cards)
        case DeckShuffled():
            return replace(event, ids=())
        case CardDrawn() if event.player != player:
            return replace(event, id=HIDDEN, card=HIDDEN)
        case MulliganChosen() if event.player != player:
            return replace(event, returned=(HIDDEN,) * len(event.returned))
        case CardsReturned() if event.player != player:
            return replace(event, ids=(HIDDEN,) * len(event.ids))
        case CommandReceived() if event.player != player:
            return replace(event, text="")
        case ActionRejected() if event.player != player:
            return replace(event, action="", reason="")
    return event


def describe(event: Event, state: McgState) -> str:
    """One line of text for an event of `state`'s game."""

    def n(i: int) -> str:
        if i in (0, 1):
            return f"player {i}"
        return f"{state.name(i)} #{i}" if i in state.card_of else f"#{i}"

    def c(cid: int) -> str:
        return state.cards[cid].name if cid in state.cards else f"card {cid}"

    match event:
        case GameCreated():
            return f"match created: rules {event.rules.name}, seed {event.seeds.seed}, agents {', '.join(event.agents)}"
        case CoinFlipped():
            return f"player {event.winner} wins the coin flip"
        case StarterChosen():
            who = "the series" if event.player == -1 else f"player {event.player}"
            return f"{who} gives the first turn to player {event.first}"
        case DeckShuffled():
            return f"player {event.player}'s deck is shuffled"
        case CardDrawn():
            return f"player {event.player} draws {n(event.id) if event.id != HIDDEN else 'a card'}"
        case CardBurned():
            return f"player {event.player}'s hand is full: {n(event.id)} goes to the graveyard"
        case FatigueTaken():
            return f"player {event.player}'s deck is empty: {event.amount} fatigue damage"
        case MulliganChosen():
            back = ", ".join(n(i) if i != HIDDEN else "a card" for i in event.returned) or "nothing"
            return f"player {event.player} mulligans: puts back {back}"
        case CardsReturned():
            return f"player {event.player} shuffles {len(event.ids)} card(s) back into the deck"
        case CommandReceived():
            return f"player {event.player} sends {event.text or '(' + event.kind + ')'}"
        case ActionRejected():
            return f"player {event.player}'s action {event.action} is rejected: {event.reason}"
        case HardError():
            return f"player {event.player}'s answer is not an answer: {event.reason}"
        case TurnStarted():
            return f"turn {event.turn}: player {event.player}, {event.max_mana} mana"
        case TurnEnded():
            return f"player {event.player} ends turn {event.turn}"
        case CardPlayed():
            on = f" on {n(event.target)}" if event.target != -1 else ""
            return f"player {event.player} plays {c(event.card)} #{event.id} for {event.cost} mana{on}"
        case MonsterSummoned():
            how = "a token " if event.token else ""
            return (f"{how}{c(event.card)} #{event.id} joins player {event.player}'s side "
                    f"({event.power}/{event.toughness}/{event.health})")
        case MonsterAttacked():
            return f"{n(event.attacker)} attacks {n(event.target)}"
        case MonsterDamaged():
            why = " (its own attack, reflected)" if event.reflected else ""
            return f"{n(event.id)} takes {event.amount} damage{why}"
        case PlayerDamaged():
            return f"player {event.player} takes {event.amount} damage"
        case MonsterHealed():
            return f"{n(event.id)} heals {event.amount}"
        case PlayerHealed():
            return f"player {event.player} heals {event.amount}"
        case MaxHealthRaised():
            return f"{n(event.id)} gains {event.amount} maximum health"
        case StatsChanged():
            return f"{n(event.id)} gets {event.power:+d} power, {event.toughness:+d} toughness"
        case MonsterDied():
            how = "is destroyed" if event.destroyed else "dies"
            return f"{n(event.id)} {how}"
        case EffectTriggered():
            src = "the variant's end phase" if event.source == -1 else n(event.source)
            return f"{event.on} effect {event.index} of {src} triggers for player {event.player}"
        case EffectDelayed():
            at = event.at.replace("_", " ")
            return f"effect {event.index} of {n(event.source)} waits for the {at} of turn {event.turn}"
        case EffectFizzled():
            src = "the variant's end phase" if event.source == -1 else n(event.source)
            return f"effect {event.index} of {src} fizzles: {event.reason}"
        case Surrendered():
            return f"player {event.player} {'is inactive and ' if event.inactive else ''}surrenders"
        case GameEnded():
            return f"player {event.winner} wins ({event.reason}, turn {event.turn})"
        case _:
            return type(event).__name__


__all__ = ["view", "redact", "describe", "card_view", "monster_view", "HIDDEN"]
