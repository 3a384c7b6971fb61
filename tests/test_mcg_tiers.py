"""R-TIERS: "Mythical and legendary cards have unique effects that are very strong", measured. Every rare card
and a fixed sample of lower-tier cards are played against their same-cost lower-tier substitutes on the same
seeds (`locm.analysis.mcg.tiers`); the rare tiers' mean paired value must be above the lower tiers'.

The sample size. Over 40 seeds a card (`benchmarks/bench_tiers.py --seeds 40`) the rare tiers' mean paired
value was about +0.07 (95% interval +-0.03, 600 pairs) and the lower tiers' about 0 (+-0.012, 1880 pairs): a
pair's value is -1, 0 or 1 with a standard deviation near 0.3, so the difference of two means of n pairs each
has a standard error near 0.3 * sqrt(2 / n). With the 15 rare cards and 15 lower ones at 24 seeds (360 pairs
a side, 1440 games, about a minute) that is 0.022: the expected gap (0.07) is over three standard errors, and
the seeds are fixed, so the test is deterministic and a small change to a card moves it by far less than the
gap. Fewer seeds would let one card's luck decide; more would only cost time."""

from __future__ import annotations

from locm.analysis.mcg.tiers import MYTHICAL, measure, substitute
from locm.engine.mcg.cards import collectible, tier
from locm.engine.mcg.rules import STANDARD, pool

SEEDS = range(24)


def test_every_rare_card_has_a_lower_tier_card_of_its_cost():
    cards = pool(STANDARD)
    for card in collectible(cards.values()):
        if tier(card.rarity) >= MYTHICAL:
            sub = substitute(card, cards)
            assert sub is not None and sub.cost == card.cost and tier(sub.rarity) < MYTHICAL, card.name


def test_the_rare_tiers_mean_paired_value_is_above_the_lower_tiers():
    cards = pool(STANDARD)
    rare = [c.id for c in collectible(cards.values()) if tier(c.rarity) >= MYTHICAL]
    lower = [c.id for c in collectible(cards.values())
             if 0 < tier(c.rarity) < MYTHICAL and substitute(c, cards) is not None]
    sample = lower[::max(1, len(lower) // len(rare))][:len(rare)]  # every k-th: each lower tier in the sample
    figures = measure(SEEDS, STANDARD, ("greedy", "greedy"), cards, rare + sample)
    assert {tier(cards[i].rarity) for i in sample} == set(range(1, MYTHICAL))
    assert len(figures.by_card) == len(rare) + len(sample) and not figures.skipped
    print(f"rare {figures.rare(cards):+.3f}, lower {figures.lower(cards):+.3f} over {len(SEEDS)} seeds")
    assert figures.rare(cards) > figures.lower(cards)
