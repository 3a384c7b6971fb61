"""Decks for built-in agents: a random legal deck, and the greedy agent's deck of the cards with the most
value for their cost (`card_value`). Both are seeded and deterministic; both obey the ruleset's deck rules
(R-DECK, a variant's tighter ones included), which `setup.create` checks again for every deck."""

from __future__ import annotations

from typing import Mapping

from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.errors import DeckError
from locm.engine.mcg.rules import copies_allowed
from locm.events.mcg.rules import EQUIPMENT, MONSTER, CardDef, Effect, McgRules

# What one unit of an effect is worth, by action; a selector reaching several characters counts more.
_ACTION_VALUE = {"damage": 1.0, "heal": 0.5, "raise_max_health": 0.8, "reduce_toughness": 0.8, "buff": 1.0,
                 "draw": 1.5, "destroy": 5.0, "summon": 2.5}
_REACH = {"all_monsters": 1.5, "enemy_monsters": 2.0, "own_monsters": 1.5, "other_own_monsters": 1.2,
          "enemy_characters": 2.5, "both_players": 0.0}


def effect_value(e: Effect, player_side: bool = True) -> float:
    """A rough worth of one effect for the card's player (negative when it hurts them)."""
    size = e.amount or (e.power + e.toughness) or e.count or 1
    value = _ACTION_VALUE[e.do] * size * _REACH.get(e.to, 1.0)
    if e.to in ("own_player", "own_monsters", "other_own_monsters", "self") and e.do in ("damage", "destroy"):
        value = -value
    if e.to in ("enemy_player", "enemy_monsters", "random_enemy_monster") and e.do in ("heal", "buff", "draw",
                                                                                           "raise_max_health"):
        value = -value
    return value


def card_value(card: CardDef) -> float:
    """A rough worth of a card, to compare cards of one cost (greedy's deck and its plays)."""
    fx = sum(effect_value(e) for e in card.effects)
    if card.type == MONSTER:
        return card.power + 1.5 * card.toughness + card.health + fx
    if card.type == EQUIPMENT:
        return card.power + 1.5 * card.toughness
    return fx


def random_deck(cards: Mapping[int, CardDef], rules: McgRules, seed: int) -> tuple[int, ...]:
    """A legal deck drawn at random: each card drawn uniformly among those with copies left (R-DECK)."""
    rng = JavaRandom(seed)
    left = {c.id: copies_allowed(rules, c) for c in sorted(cards.values(), key=lambda c: c.id)}
    deck: list[int] = []
    while len(deck) < rules.deck_size:
        open_ids = [cid for cid, n in left.items() if n > 0]
        if not open_ids:
            raise DeckError(f"no legal deck: at most {len(deck)} cards fit a deck of this pool (R-DECK)")
        cid = open_ids[rng.next_int(len(open_ids))]
        left[cid] -= 1
        deck.append(cid)
    return tuple(sorted(deck))


def greedy_deck(cards: Mapping[int, CardDef], rules: McgRules, seed: int) -> tuple[int, ...]:
    """The greedy agent's deck: cards by value for their cost, at most 8 cards costing 6 or more (a curve a
    game can be played with), ties broken by a seeded draw."""
    rng = JavaRandom(seed)
    ranked = sorted(cards.values(), key=lambda c: (-card_value(c) / (c.cost + 1.0), rng.next_int(1 << 30)))
    deck: list[int] = []
    heavy = 0
    for c in ranked:
        n = copies_allowed(rules, c)
        if c.cost >= 6:
            n = min(n, 8 - heavy)
            heavy += max(n, 0)
        deck += [c.id] * max(0, min(n, rules.deck_size - len(deck)))
        if len(deck) == rules.deck_size:
            return tuple(sorted(deck))
    return random_deck(cards, rules, seed)  # a pool too small for the curve: any legal deck


__all__ = ["random_deck", "greedy_deck", "card_value", "effect_value"]
