"""`locm cardvalue` throughput: K cards (the K most held in the base games) valued against vanilla over N seeds
each, with W worker processes, every re-run stored.

The base games (N seeds, the agents given) are played once into --store (kept between invocations, so later
invocations skip that step; its time is printed). Each run works on a fresh copy of that store (the copy is
not timed), so every run re-plays and stores every re-run; a run's time covers reading the base games,
re-playing under each card's baseline (a seed whose draft never offers the card plays the same game and is
not re-played: `locm.games.locm.cardvalue`), storing and the statistics. Games/s counts the re-runs played.

    .venv/bin/python benchmarks/bench_cardvalue.py --cards 20 --seeds 2000 --workers 2 --runs 3
    .venv/bin/python benchmarks/bench_cardvalue.py --cards 4 --seeds 200 --runs 1 --json
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
    args = ap.parse_args()
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
