"""What holding a card is worth, by rarity tier (R-TIERS in ``data/mcg/RULES.md``): the text says "Mythical and
legendary cards have unique effects that are very strong", so this measures it.

A card's *paired value* on one seed is the difference in its holder's result (1 a win, 0 a loss) between two
games that differ only in that card: the game with the card, and the same game with the card replaced by its
*substitute*, a collectible card of a lower tier and the same cost (the highest such tier, then the nearest
rarity below, then the lowest id); for a Mythical or Legendary card, of a tier below Mythical: the rare tiers
are measured against the lower tiers, never against each other. Everything else is the same: the seed (so
the coin, the shuffles and the agents' draws), both decks, and the card's place in its deck. Instance ids
follow the deck as listed and a shuffle's permutation depends only on the deck's length (R-SETUP,
R-SHUFFLE), so the card and its substitute lie at the same depth of the shuffled deck.

The games of one seed: both decks are random legal decks (`engine.mcg.decks.random_deck`) of the *field*,
the collectible cards below Mythical other than the card and its substitute, so that the card measured is the
only rare card in play; the holder (seat ``seed % 2``, so both seats hold equally often) gets the card in
place of the deck card that the shuffle puts ninth from the top (``DEPTH``): below the opening hand and the
mulligan's three replacements, so that it is drawn by the holder's fourth turn and kept (the greedy agent puts
expensive cards back in its mulligan). Its value is therefore the value of *holding* it from then on.

Pure: games are played in process by the built-in agents (`engine.mcg.game.play_match`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.cards import TIERS, collectible, tier
from locm.engine.mcg.decks import random_deck
from locm.engine.mcg.emit import derived_random
from locm.engine.mcg.game import play_match
from locm.engine.mcg.rules import STANDARD, pool
from locm.engine.mcg.setup import derive_seeds
from locm.events.mcg.rules import CardDef, McgRules

MYTHICAL = TIERS.index("Mythical")
DEPTH = 8  # 0-based: the ninth card from the top of the shuffled deck


def substitute(card: CardDef, cards: Mapping[int, CardDef]) -> CardDef | None:
    """The lower-tier card of the same cost that `card` is measured against, or None (a Basic card, or a cost
    no lower tier has)."""
    own = min(tier(card.rarity), MYTHICAL)
    lower = [c for c in collectible(cards.values()) if c.cost == card.cost and tier(c.rarity) < own]
    if not lower:
        return None
    return max(lower, key=lambda c: (tier(c.rarity), c.rarity, -c.id))


def paired_value(card: CardDef, seed: int, rules: McgRules = STANDARD, agents: Sequence[str] = ("greedy", "greedy"),
                 cards: Mapping[int, CardDef] | None = None) -> float:
    """The holder's result with `card` minus its result with the substitute, on `seed` (-1, 0 or 1)."""
    cards = pool(rules) if cards is None else cards
    sub = substitute(card, cards)
    if sub is None:
        raise ValueError(f"card {card.id} ({card.name}) has no lower-tier card of cost {card.cost}")
    field_cards = {c.id: c for c in collectible(cards.values())
                   if tier(c.rarity) < MYTHICAL and c.id not in (card.id, sub.id)}
    deck_seeds = derived_random(seed, "tiers").next_long(), derived_random(seed, "tiers1").next_long()
    decks = [list(random_deck(field_cards, rules, s)) for s in deck_seeds]
    holder = seed % 2
    order = list(range(rules.deck_size))
    JavaRandom(derive_seeds(seed).shuffle[holder]).shuffle(order)
    place = order[DEPTH]
    results = []
    for cid in (card.id, sub.id):
        decks[holder][place] = cid
        game = play_match(rules, seeds=seed, agents=agents, decks=[tuple(d) for d in decks], cards=cards)
        results.append(1.0 if game.state.winner == holder else 0.0)
    return results[0] - results[1]


@dataclass
class TierFigures:
    """Paired values by card and by tier; ``rare``/``lower``: the mean over every pair of the Mythical and
    Legendary cards, and of the Common to Epic cards (Basic has no lower tier)."""

    seeds: int
    by_card: dict[int, list[float]] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)

    def mean(self, ids: Iterable[int]) -> float:
        values = [v for i in ids for v in self.by_card.get(i, [])]
        return statistics.fmean(values) if values else 0.0

    def tier_means(self, cards: Mapping[int, CardDef]) -> dict[str, float]:
        return {name: self.mean(i for i in self.by_card if tier(cards[i].rarity) == t) for t, name in enumerate(TIERS)
                if any(tier(cards[i].rarity) == t for i in self.by_card)}

    def rare(self, cards: Mapping[int, CardDef]) -> float:
        return self.mean(i for i in self.by_card if tier(cards[i].rarity) >= MYTHICAL)

    def lower(self, cards: Mapping[int, CardDef]) -> float:
        return self.mean(i for i in self.by_card if tier(cards[i].rarity) < MYTHICAL)


def measure(seeds: Iterable[int], rules: McgRules = STANDARD, agents: Sequence[str] = ("greedy", "greedy"),
            cards: Mapping[int, CardDef] | None = None, which: Iterable[int] | None = None) -> TierFigures:
    """Every card's paired values over `seeds` (the cards `which`, else every collectible card above Basic)."""
    cards = pool(rules) if cards is None else cards
    seeds = list(seeds)
    ids = sorted(which) if which is not None else [c.id for c in collectible(cards.values()) if tier(c.rarity) > 0]
    figures = TierFigures(len(seeds))
    for cid in ids:
        card = cards[cid]
        if substitute(card, cards) is None:
            figures.skipped.append(cid)
            continue
        figures.by_card[cid] = [paired_value(card, s, rules, agents, cards) for s in seeds]
    return figures


__all__ = ["substitute", "paired_value", "measure", "TierFigures", "DEPTH", "MYTHICAL"]
