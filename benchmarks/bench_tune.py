"""`locm tune` on a planted card (issue 34): the games it needs to find a 1.2 card made far too strong, a median
over runs on different seeds, and what it changed.

Card 1 (Slimer, 1 mana 2/1) is planted at 1 mana ``--attack``/``--defense`` with ``--keywords``; random agents
(they draft without looking at values, so holders exist). Each run is a fresh store with first seed ``1 +
1000 * k``; "found" is the games used (base games and re-runs) when the card's interval first lay wholly above
the band.

    .venv/bin/python benchmarks/bench_tune.py --budget 3000 --runs 3 --workers 1

``--strengths 2 4 8``: the games to find the same card made stronger by that much attack only (Slimer 2/1 as a
4/1, 6/1, 10/1, its keyword and health effect as they are), ``--runs`` runs each, the median per strength
("found" None: the run ended before the card's interval lay wholly above the band):

    .venv/bin/python benchmarks/bench_tune.py --strengths 2 4 8 --budget 3000 --runs 3 --workers 2

``--seat mcg``: the wall time of `locm tune --game mcg --agents greedy` (the seat search) at ``--budget`` on
``--workers`` workers, a fresh store a run, with the games used, their rate and the first player's rate
before and after; and the wall time of a second run on the same store (every game read back):

    .venv/bin/python benchmarks/bench_tune.py --seat mcg --budget 4000 --runs 1 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from locm.analysis.tune import Objectives
from locm.engine.locm.variants import variant_from_dict
from locm.games.locm.tune import tune


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--attack", type=int, default=12)
    ap.add_argument("--defense", type=int, default=12)
    ap.add_argument("--keywords", default="BCDGLW")
    ap.add_argument("--strengths", type=int, nargs="*", default=None,
                    help="Attack added to Slimer's 2, one plant a strength (nothing else of the card changed).")
    ap.add_argument("--seat", choices=["mcg"], default=None,
                    help="Time the seat search of my-card-game instead of finding a planted card.")
    args = ap.parse_args()
    if args.seat:
        seat(args)
        return
    if args.strengths:
        summary = []
        for plus in args.strengths:
            planted = variant_from_dict({"base": "1.2", "name": f"planted-plus{plus}",
                                         "cards": {"1": {"attack": 2 + plus}}})
            rows = plant_runs(args, planted)
            found = [r["found_at_games"] for r in rows if r["found_at_games"] is not None]
            summary.append({"attack_plus": plus, "runs": len(rows), "found": len(found),
                            "median_games_to_find": statistics.median(found) if found else None,
                            "changed": sum(bool(r["changes"]) for r in rows),
                            "median_seconds": statistics.median(r["seconds"] for r in rows)})
            print(json.dumps(summary[-1]), flush=True)
        print(json.dumps({"budget": args.budget, "workers": args.workers, "strengths": summary,
                          "load_average": os.getloadavg()}))
        return
    planted = variant_from_dict({"base": "1.2", "name": "planted", "cards": {"1": {
        "attack": args.attack, "defense": args.defense, "keywords": args.keywords}}})
    rows = plant_runs(args, planted)
    found = [r["found_at_games"] for r in rows if r["found_at_games"] is not None]
    print(json.dumps({"runs": len(rows), "found": len(found),
                      "median_games_to_find": statistics.median(found) if found else None,
                      "median_seconds": statistics.median(r["seconds"] for r in rows),
                      "load_average": os.getloadavg()}))


def plant_runs(args, planted) -> list[dict]:
    """``args.runs`` tunes of `planted`, each a fresh store with first seed ``1 + 1000 * k``: a row each."""
    rows = []
    for k in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            r = tune(Path(d) / "t.db", planted, ("random", "random"), args.budget, Objectives(), seed=1 + 1000 * k,
                     workers=args.workers, target="cards")
            seconds = time.perf_counter() - t0
        card = next((c for c in r["cards"] if c["card"] == 1), None)
        rows.append({"seed": 1 + 1000 * k, "found_at_games": card and card["found_at_games"],
                     "measured": card is not None, "games_used": r["games_used"], "seconds": round(seconds, 1),
                     "changes": [{"card": c["card"], **c["change"]} for c in r["changes"]],
                     "value_before": card and card["before"]["value"], "value_after": card and card["after"]["value"]})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def seat(args) -> None:
    """The wall time of my-card-game's seat search (see the module note)."""
    from locm.games.mcg.tune import tune as mcg_tune

    rows = []
    for k in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            times = []
            for _ in range(2):  # a fresh store, then the same store again (every game read back)
                t0 = time.perf_counter()
                _, ev = mcg_tune(Path(d) / "t.db", "standard", ("greedy",), args.budget, Objectives(),
                                 seed=1 + 1000 * k, workers=args.workers)
                times.append(time.perf_counter() - t0)
                if len(times) == 1:
                    first = ev
        s = first["seat"]
        rows.append({"seed": 1 + 1000 * k, "seconds": round(times[0], 1), "resumed_seconds": round(times[1], 1),
                     "games_used": first["games_used"], "games_per_s": round(first["games_used"] / times[0], 1),
                     "before": round(s["before"]["value"], 3), "after": round(s["after"]["value"], 3),
                     "changes": [c["change"]["label"] for c in s["changes"]]})
        print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"runs": len(rows), "budget": args.budget, "workers": args.workers,
                      "median_seconds": statistics.median(r["seconds"] for r in rows),
                      "median_games_per_s": statistics.median(r["games_per_s"] for r in rows),
                      "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
