"""R-TIERS: "Mythical and legendary cards have unique effects that are very strong", measured. Every rare card
and a fixed sample of lower-tier cards are played against their same-cost lower-tier substitutes on the same
seeds (`locm.analysis.mcg.tiers`); the rare tiers' mean paired value must be above the lower tiers'.

The sample size. Over 40 seeds a card (`benchmarks/bench_tiers.py --seeds 40`) the rare tiers' mean paired value
was +0.070 (95% interval +-0.027, 600 pairs) and the lower tiers' +0.016 (+-0.013, 1880 pairs). A pair's value
is -1, 0 or 1 with a standard deviation of 0.29 to 0.34 (from those intervals), so the difference of two means
of n pairs each has a standard error near 0.32 * sqrt(2 / n): with the 15 rare cards and 15 lower ones (every
k-th, each lower tier in the sample) at 24 seeds, 360 pairs a side (1440 games, under a minute alone), 0.024,
and the expected gap (0.054) is about 2.3 of them: a fresh sample of this size would fail about once in 100. The
seeds are fixed, so the test is deterministic (on them: rare +0.083, lower +0.025); a small change to one card
moves a mean by at most 2 * 24 / 360 = 0.13, in practice far less. Fewer seeds would let one card's luck decide;
more cost a minute per 24 seeds."""

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
