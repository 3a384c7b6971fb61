"""`locm cardvalue` throughput: K cards (the K most held in the base games) valued against vanilla over N seeds
each, with W worker processes, every re-run stored.

The base games (N seeds, the agents given) are played once into --store (kept between invocations, so later
invocations skip that step; its time is printed). Each run works on a fresh copy of that store (the copy is
not timed), so every run re-plays and stores every re-run; a run's time covers reading the base games,
re-playing under each card's baseline (a seed whose draft never offers the card plays the same game and is
not re-played: `locm.games.locm.cardvalue`), storing and the statistics. Games/s counts the re-runs played.

    .venv/bin/python benchmarks/bench_cardvalue.py --cards 20 --seeds 2000 --workers 2 --runs 3
    .venv/bin/python benchmarks/bench_cardvalue.py --cards 4 --seeds 200 --runs 1 --json

Resolution (``--planted CARD``, issue 34 item 3): the smallest change `cardvalue` resolves. For each size k of
``--ks``, a variant of 1.2 gives card CARD k more attack; `cardvalue` values the card as it is against each
variant on ``--seeds`` re-run seeds, with base games on ``--base-seeds`` seeds (the control variate,
`analysis.varred`), in ``--repeats`` disjoint blocks of seeds. A size is resolved in a block when its 95%
interval excludes 0; the smallest resolved size is the smallest k resolved in most blocks, every larger k too
(`analysis.varred.smallest_resolved`). "before" is the paired value on the re-run seeds alone (what
`cardvalue --seeds N` gives), "after" the control-variate one; medians over the blocks of the interval's half
width and of the variance ratio are printed per k. ``--stratify``: in each block also the stratified value
(`locm.games.locm.cardvalue_strat`, `cardvalue --stratify`): the same base games, as many re-runs a card as
the paired value's, chosen among all the base seeds by stratum; its half widths and resolution beside.

    LOCM_CORE=native .venv/bin/python benchmarks/bench_cardvalue.py --planted 104 --ks 2,4,6,8 --seeds 2000 \
        --base-seeds 8000 --repeats 3 --workers 2
    LOCM_CORE=native .venv/bin/python benchmarks/bench_cardvalue.py --planted 104 --ks 3,6,9,12 --seeds 2000 \
        --base-seeds 8000 --repeats 3 --workers 2 --agents random random --stratify
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.games.locm.cardvalue import base_games, cardvalue, make_targets, most_held  # noqa: E402
from locm.games.locm.cardvalue_strat import cardvalue_stratified  # noqa: E402
from locm.engine.locm.rulesets import by_name  # noqa: E402


def one_run(store: Path, rules, agents, cards: list[str], seeds: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory(dir=store.parent) as tmp:
        copy = Path(tmp) / "copy.db"
        shutil.copyfile(store, copy)
        targets, variants = make_targets(rules, cards, "vanilla")
        t0 = time.perf_counter()
        run = cardvalue(copy, rules, agents, targets, variants, seeds, workers=workers)
        elapsed = time.perf_counter() - t0
    assert run.base_played == 0 and run.reused == 0 and not run.errors, run
    return {"seconds": elapsed, "played": run.played, "identical": run.identical,
            "games_per_s": run.played / elapsed, "pairs_per_s": (run.played + run.identical) / elapsed,
            "significant": sum(r["excludes_zero"] for r in run.ranked())}


def planted(args) -> dict:
    from locm.analysis.varred import smallest_resolved
    from locm.engine.locm.carddata import cardlist_12
    from locm.engine.locm.rulesets import RULES_12
    from locm.engine.locm.variants import variant_from_dict
    from locm.games.locm.cardvalue import Target

    card = cardlist_12()[args.planted]
    ks = [int(k) for k in args.ks.split(",")]
    variants = [variant_from_dict({"base": "1.2", "name": f"planted-{card.base_id}-atk+{k}",
                                   "cards": {str(card.base_id): {"attack": card.attack + k}}}, "planted.toml")
                for k in ks]
    targets = [Target(f"+{k} attack", i, variants[i].name, frozenset([card.base_id])) for i, k in enumerate(ks)]
    agents = tuple(args.agents)
    store = args.store or Path(tempfile.gettempdir()) / f"locm-bench-cardvalue-planted-{'-'.join(agents)}.db"
    blocks, strat_blocks = [], []
    t0 = time.perf_counter()
    for r in range(args.repeats):
        first = 1 + r * args.base_seeds
        run = cardvalue(store, RULES_12, agents, targets, variants, args.seeds, seed=first, workers=args.workers,
                        base_seeds=args.base_seeds)
        assert not run.errors, run.errors[:3]
        blocks.append({row["card"]: row for row in run.ranked()})
        if args.stratify:  # the same base games and as many re-runs a card, chosen by stratum
            st = cardvalue_stratified(store, RULES_12, agents, targets, variants, args.seeds, args.base_seeds,
                                      seed=first, workers=args.workers)
            assert not st.errors, st.errors[:3]
            strat_blocks.append({row["card"]: row for row in st.ranked()})
    seconds = time.perf_counter() - t0
    per_k = {}
    for k in ks:
        rows = [b[f"+{k} attack"] for b in blocks]
        half = [(r["high"] - r["low"]) / 2 for r in rows if r["low"] is not None]
        half_p = [(r["paired"]["high"] - r["paired"]["low"]) / 2 for r in rows if r["paired"]["low"] is not None]
        ratios = [r["control_variate"]["variance_ratio"] for r in rows
                  if r["control_variate"]["variance_ratio"] is not None]
        per_k[k] = {"value_median": statistics.median(r["value"] for r in rows),
                    "paired_median": statistics.median(r["paired"]["value"] for r in rows),
                    "half_width_median": statistics.median(half) if half else None,
                    "paired_half_width_median": statistics.median(half_p) if half_p else None,
                    "variance_ratio_median": statistics.median(ratios) if ratios else None,
                    "holders_median": statistics.median(r["units"] for r in rows),
                    "resolved": [r["excludes_zero"] for r in rows],
                    "paired_resolved": [r["paired"]["excludes_zero"] for r in rows]}
        if strat_blocks:
            srows = [b[f"+{k} attack"] for b in strat_blocks]
            sh = [(r["high"] - r["low"]) / 2 for r in srows if r["low"] is not None]
            per_k[k].update(strat_value_median=statistics.median(r["value"] for r in srows),
                            strat_half_width_median=statistics.median(sh) if sh else None,
                            strat_reruns_median=statistics.median(r["stratified"]["reruns"] for r in srows),
                            strat_units_median=statistics.median(r["units"] for r in srows),
                            strat_resolved=[r["excludes_zero"] for r in srows],
                            strat_strata=[r["stratified"]["strata"] for r in srows])
    return {"card": f"{card.base_id} {card.name} ({card.cost} mana {card.attack}/{card.defense})",
            "agents": list(agents), "seeds": args.seeds, "base_seeds": args.base_seeds, "repeats": args.repeats,
            "seconds": round(seconds, 1), "load": os.getloadavg()[0], "per_k": per_k,
            "smallest_resolved_before": smallest_resolved({k: v["paired_resolved"] for k, v in per_k.items()}),
            "smallest_resolved_after": smallest_resolved({k: v["resolved"] for k, v in per_k.items()}),
            "smallest_resolved_stratified": smallest_resolved({k: v["strat_resolved"] for k, v in per_k.items()})
            if strat_blocks else None}


def _print_planted(out: dict) -> None:
    print(f"planted +k attack on {out['card']}, {' vs '.join(out['agents'])}: {out['seeds']} re-run seeds, base games "
          f"on {out['base_seeds']}, {out['repeats']} blocks, {out['seconds']} s, load {out['load']:.2f}")
    print("   k  holders  value  paired  half-width  paired half-width  var. ratio  resolved  paired resolved")
    for k, v in out["per_k"].items():
        f = (lambda x: "n/a" if x is None else f"{100 * x:+.1f}")
        print(f"{k:>4}  {v['holders_median']:>7}  {f(v['value_median']):>5}  {f(v['paired_median']):>6}  "
              f"{f(v['half_width_median']):>10}  {f(v['paired_half_width_median']):>17}  "
              f"{v['variance_ratio_median'] or float('nan'):>10.2f}  {sum(v['resolved'])}/{len(v['resolved']):<6}  "
              f"{sum(v['paired_resolved'])}/{len(v['paired_resolved'])}")
    print(f"smallest change resolved in most blocks: before (paired) +{out['smallest_resolved_before']} attack, "
          f"after (control variate) +{out['smallest_resolved_after']} attack")
    if out["smallest_resolved_stratified"] is not None or "strat_resolved" in next(iter(out["per_k"].values())):
        print("   k  stratified: value  half-width  re-runs  holders re-run  resolved")
        for k, v in out["per_k"].items():
            print(f"{k:>4}  {100 * v['strat_value_median']:>+17.1f}  {100 * v['strat_half_width_median']:>10.1f}  "
                  f"{v['strat_reruns_median']:>7}  {v['strat_units_median']:>14}  "
                  f"{sum(v['strat_resolved'])}/{len(v['strat_resolved'])}")
        print(f"smallest change resolved in most blocks, stratified (--stratify): "
              f"+{out['smallest_resolved_stratified']} attack")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="1.2")
    ap.add_argument("--agents", nargs=2, default=("lookahead", "lookahead"))
    ap.add_argument("--cards", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--store", type=Path, default=None, help="where the base games are kept between invocations")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--planted", type=int, default=None, metavar="CARD", help="resolution of a planted change")
    ap.add_argument("--ks", default="2,4,6,8", help="--planted: the attack changes")
    ap.add_argument("--base-seeds", type=int, default=8000, help="--planted: seeds of base games per block")
    ap.add_argument("--repeats", type=int, default=3, help="--planted: disjoint blocks of seeds")
    ap.add_argument("--stratify", action="store_true",
                    help="--planted: also the stratified re-runs (cardvalue --stratify), the same re-run count")
    args = ap.parse_args()
    if args.planted is not None:
        out = planted(args)
        print(json.dumps(out)) if args.json else _print_planted(out)
        return
    rules, agents = by_name(args.ruleset), tuple(args.agents)
    store = args.store or Path(tempfile.gettempdir()) / f"locm-bench-cardvalue-{args.ruleset}-{'-'.join(agents)}.db"
    t0 = time.perf_counter()
    already, played = base_games(store, rules, agents, args.seeds, workers=args.workers)
    build_s = time.perf_counter() - t0
    cards = most_held(store, rules, agents, args.seeds, 1, args.cards)
    runs = [one_run(store, rules, agents, cards, args.seeds, args.workers) for _ in range(args.runs)]
    out = {
        "ruleset": args.ruleset, "agents": list(agents), "cards": cards, "seeds": args.seeds,
        "workers": args.workers, "runs": args.runs, "cpus": os.cpu_count(), "load": os.getloadavg()[0],
        "base_games_played_now": played, "base_games_already": already, "base_seconds": round(build_s, 2),
        "reruns_played": runs[0]["played"], "identical_not_played": runs[0]["identical"],
        "median_seconds": round(statistics.median(r["seconds"] for r in runs), 2),
        "median_games_per_s": round(statistics.median(r["games_per_s"] for r in runs), 1),
        "all_seconds": [round(r["seconds"], 2) for r in runs],
        "cards_with_an_interval_excluding_0": runs[0]["significant"],
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"cardvalue of {args.cards} cards ({args.ruleset}, {' vs '.join(agents)}) over {args.seeds} seeds each, "
          f"{args.workers} workers: median {out['median_seconds']} s over {args.runs} runs {out['all_seconds']}; "
          f"{out['reruns_played']} re-runs played ({out['median_games_per_s']} games/s), "
          f"{out['identical_not_played']} card-seed pairs identical (not played); "
          f"base games: {played} played now in {out['base_seconds']} s ({already} already stored); "
          f"{out['cards_with_an_interval_excluding_0']} cards with an interval excluding 0; load {out['load']:.2f}")


if __name__ == "__main__":
    main()
