"""What holding a card of each rarity tier is worth in my-card-game (R-TIERS): every collectible card above
Basic against its same-cost lower-tier substitute, paired by seed (`locm.analysis.mcg.tiers`), and the mean
paired value of the rare tiers (Mythical, Legendary) against the lower ones (Common to Epic).

    .venv/bin/python benchmarks/bench_tiers.py --seeds 40
    .venv/bin/python benchmarks/bench_tiers.py --seeds 200 --rare-only --agents greedy,greedy
    .venv/bin/python benchmarks/bench_tiers.py --seeds 0 --holders 3000

``--holders N`` adds the issue's observational figure: N games of random decks from the whole pool, and the
win rate of the seats whose deck holds a card of each tier (not causal: a deck holds many tiers at once).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.analysis.mcg.tiers import MYTHICAL, measure, substitute  # noqa: E402
from locm.engine.mcg.decks import random_deck  # noqa: E402
from locm.engine.mcg.game import play_match  # noqa: E402
from locm.engine.mcg.cards import TIERS, collectible, tier  # noqa: E402
from locm.engine.mcg.rules import STANDARD, pool  # noqa: E402


def _ci(values: list[float]) -> str:
    if len(values) < 2:
        return ""
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"+- {half:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=40, help="seeds per card (two games each)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--agents", default="greedy,greedy")
    ap.add_argument("--rare-only", action="store_true", help="only the Mythical and Legendary cards")
    ap.add_argument("--holders", type=int, default=0, help="also N random-deck games: win rate of holders by tier")
    args = ap.parse_args()
    if args.holders:
        holders(args.holders, tuple(args.agents.split(",")))
    if not args.seeds:
        return
    cards = pool(STANDARD)
    agents = tuple(args.agents.split(","))
    which = [c.id for c in collectible(cards.values()) if tier(c.rarity) >= (MYTHICAL if args.rare_only else 1)]
    t0 = time.perf_counter()
    figures = measure(range(args.first_seed, args.first_seed + args.seeds), STANDARD, agents, cards, which)
    elapsed = time.perf_counter() - t0
    games = 2 * args.seeds * len(figures.by_card)
    print(f"{games} games ({args.seeds} seeds x {len(figures.by_card)} cards, agents {','.join(agents)}) "
          f"in {elapsed:.1f} s")
    print(f"{'card':>5} {'tier':<10} {'cost':>4} {'name':<22} {'substitute':<22} {'value':>7}")
    for cid, values in sorted(figures.by_card.items(), key=lambda kv: (tier(cards[kv[0]].rarity), kv[0])):
        c = cards[cid]
        sub = substitute(c, cards)
        print(f"{cid:>5} {TIERS[tier(c.rarity)]:<10} {c.cost:>4} {c.name:<22} {sub.name if sub else '':<22} "
              f"{statistics.fmean(values):>+7.3f}")
    if figures.skipped:
        print("no lower-tier card of the same cost:", ", ".join(cards[i].name for i in figures.skipped))
    print("mean paired value by tier:")
    for name, mean in figures.tier_means(cards).items():
        t = TIERS.index(name)
        values = [v for i, vs in figures.by_card.items() if tier(cards[i].rarity) == t for v in vs]
        print(f"  {name:<10} {mean:+.3f} {_ci(values)}  ({len(values)} pairs)")
    rare = [v for i, vs in figures.by_card.items() if tier(cards[i].rarity) >= MYTHICAL for v in vs]
    lower = [v for i, vs in figures.by_card.items() if tier(cards[i].rarity) < MYTHICAL for v in vs]
    print(f"rare tiers (Mythical, Legendary): {figures.rare(cards):+.3f} {_ci(rare)}  ({len(rare)} pairs)")
    if lower:
        print(f"lower tiers (Common to Epic):     {figures.lower(cards):+.3f} {_ci(lower)}  ({len(lower)} pairs)")


def holders(n: int, agents: tuple[str, ...]) -> None:
    cards = pool(STANDARD)
    wins = {t: [] for t in range(len(TIERS))}
    t0 = time.perf_counter()
    for seed in range(n):
        decks = [random_deck(cards, STANDARD, seed * 2 + seat) for seat in (0, 1)]
        winner = play_match(STANDARD, seeds=seed, agents=agents, decks=decks).state.winner
        for seat, deck in enumerate(decks):
            for t in {tier(cards[c].rarity) for c in deck}:
                wins[t].append(1.0 if winner == seat else 0.0)
    print(f"{n} games of random decks ({','.join(agents)}) in {time.perf_counter() - t0:.1f} s; holders' win rate:")
    for t, values in wins.items():
        if values:
            print(f"  {TIERS[t]:<10} {statistics.fmean(values):.3f} {_ci(values)}  ({len(values)} seats)")


if __name__ == "__main__":
    main()
