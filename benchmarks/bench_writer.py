"""The store writer's ceiling: games per second the one writing process can store when the games come ready
(checked, encoded, chained and compressed, as tournament workers hand them over), with no game to play.

Synthetic prepared games: ``--distinct`` real games are played and prepared once (1.2, greedy vs random),
then copied under new ids (the record's ``game_id`` changed; the log's bytes as they are), so that the
figure is the writer's alone: the SQL, the ledger and the commit. Each run writes ``--games`` games into a
fresh SQLite store (WAL, as `open_store` makes it) in transactions of ``--batch`` games (1: one transaction
per game, as the tournament wrote before batching), and the whole is timed, the final commit included. The
batch sizes given are run alternately, ``--runs`` times each; the medians are printed.

Every LOCM game a worker prepares carries its facts for the card report (`locm.store.records.game_facts`,
about 1 KB, one more row in the game's transaction). ``--facts both`` runs every batch size with and without
them, alternating, so that their cost to the writer is a same-run ratio (without: as the writer was before
they were stored).

    .venv/bin/python benchmarks/bench_writer.py --games 20000 --batch 1 64 --runs 3
    .venv/bin/python benchmarks/bench_writer.py --games 20000 --batch 64 --runs 5 --facts both
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import schedule  # noqa: E402
from locm.tournament.run import play_jobs  # noqa: E402
from locm.store.eventstore import MemoryStore  # noqa: E402


def prepared_games(distinct: int) -> list:
    """``distinct`` real games as the workers hand them over (`PreparedGame`)."""
    captured = []

    class Capture(MemoryStore):
        def _write(self, games):
            games = list(games)
            captured.extend(games)
            return super()._write(games)

    play_jobs(Capture(), schedule("1.2", ("greedy", "random"), distinct, seed=1), workers=1)
    return captured


def synthetic(base: list, games: int) -> list:
    out = []
    for i in range(games):
        p = base[i % len(base)]
        out.append(type(p)(msgspec.structs.replace(p.record, game_id=f"synthetic-{i:08d}"), p.data, p.facts))
    return out


def one_run(games: list, batch: int) -> tuple[float, float]:
    """Games per second, by the clock and by this process's CPU time (the disk's share left out)."""
    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "w.db") as store:
            t0, c0 = time.perf_counter(), time.process_time()
            if batch == 1:
                for p in games:
                    store.append_prepared(p)
            else:
                for i in range(0, len(games), batch):
                    store.append_games(games[i:i + batch])
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
            assert store.count() == len(games)
    return len(games) / elapsed, len(games) / cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--distinct", type=int, default=200, help="Real games played once and copied.")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 64], help="Games per transaction.")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--facts", choices=("with", "without", "both"), default="with",
                    help="Store the games' facts (as tournaments do), not, or both, alternating.")
    args = ap.parse_args()
    games = synthetic(prepared_games(args.distinct), args.games)
    bare = [type(p)(p.record, p.data, None) for p in games]
    kb = sum(len(p.data) for p in games[:args.distinct]) / min(args.distinct, len(games)) / 1024
    fkb = sum(len(p.facts[1]) for p in games[:args.distinct]) / min(args.distinct, len(games)) / 1024
    sides = {"with": ("with facts",), "without": ("without facts",), "both": ("with facts", "without facts")}
    keys = [(b, side) for b in args.batch for side in sides[args.facts]]
    results: dict[tuple, list[float]] = {k: [] for k in keys}
    cpu: dict[tuple, list[float]] = {k: [] for k in keys}
    for r in range(args.runs):
        for b, side in keys:
            wall, by_cpu = one_run(games if side == "with facts" else bare, b)
            results[(b, side)].append(wall)
            cpu[(b, side)].append(by_cpu)
            if not args.json:
                print(f"run {r + 1}, {b} game(s) per transaction, {side}: {wall:,.0f} games/s ({by_cpu:,.0f} by "
                      f"CPU time)", flush=True)
    med = {k: statistics.median(v) for k, v in results.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    if args.json:
        print(json.dumps({"games": args.games, "kb_per_game": kb, "facts_kb_per_game": fkb,
                          "games_per_s": {f"{b} {side}": v for (b, side), v in med.items()},
                          "games_per_cpu_s": {f"{b} {side}": v for (b, side), v in med_cpu.items()}}))
        return
    for (b, side), v in med.items():
        print(f"median of {args.runs}: {b:>4} game(s) per transaction, {side}: {v:,.0f} games/s "
              f"({1000 / v:.3f} ms a game; CPU alone {med_cpu[(b, side)]:,.0f} games/s; {kb:.1f} KB of compressed "
              f"log and {fkb:.1f} KB of facts a game)")
    for side in sides[args.facts]:
        first = args.batch[0]
        for b in args.batch[1:]:
            print(f"  {side}: {b} per transaction / {first}: {med[(b, side)] / med[(first, side)]:.2f}x")
    if args.facts == "both":
        for b in args.batch:
            print(f"  {b} per transaction: with facts / without: {med[(b, 'with facts')] / med[(b, 'without facts')]:.2f}x "
                  f"(CPU alone {med_cpu[(b, 'with facts')] / med_cpu[(b, 'without facts')]:.2f}x)")


if __name__ == "__main__":
    main()
