"""Speed of the replay commands on a big store (a script, not a test).

Builds (once) a store of ``--games`` games with ``locm tournament`` (greedy vs random, 1.2), then times, as a
user runs them (a new process each, Python start-up included), with the median of ``--runs`` runs:

- ``locm show --db DB GAME_ID --turn N``: games at the start, middle and end of the store, turns at the start,
  middle and end of each game (goal: under 200 ms);
- ``locm show ... --json`` with an id prefix;
- ``locm html --db DB GAME_ID -o FILE`` (goal: under 1 s);
- ``locm show FILE --turn N`` of the longest of the first 2,000 games written as a log file (``locm play --log``
  form, at least 400 events where the store has one), which re-decides the whole log first (goal: under
  200 ms), and the re-decide alone in process.

    .venv/bin/python benchmarks/bench_replay.py --games 10000 --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCM = [sys.executable, "-m", "locm.cli.main"]


def build_store(db: Path, games: int, workers: int) -> None:
    from locm.store.eventstore import open_store

    if db.exists():
        with open_store(db, readonly=True) as store:
            if store.count() >= games:
                return
    print(f"building {db} with {games} games (locm tournament)...", file=sys.stderr)
    subprocess.run([*LOCM, "tournament", "--agents", "greedy", "random", "--games", str(games), "--db", str(db),
                    "--workers", str(workers)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def timed(args: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([*LOCM, *args], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "locm-bench-replay.db")
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from locm.store.eventstore import open_store

    build_store(args.db, args.games, args.workers)
    with open_store(args.db, readonly=True) as store:
        n = store.count()
        records = store.games()
    picks = [records[0], records[n // 2], records[-1]]
    show, rows = [], []
    for rec in picks:
        for turn in (0, rec.turns // 2, rec.turns - 1):
            ms = timed(["show", "--db", str(args.db), rec.game_id, "--turn", str(turn)], args.runs)
            show.append(ms)
            rows.append({"game": rec.game_id, "turn": turn, "show_ms": round(ms, 1)})
    prefix = picks[1].game_id[:-4]
    show_json = timed(["show", "--db", str(args.db), prefix, "--turn", "5", "--json"], args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        html = [timed(["html", "--db", str(args.db), rec.game_id, "-o", f"{tmp}/g.html"], args.runs) for rec in picks]
        size = Path(f"{tmp}/g.html").stat().st_size
    from locm.engine.locm.redecide import departures
    from locm.events.locm.codec import to_jsonl

    with open_store(args.db, readonly=True) as store:
        longest = max(records[:2000], key=lambda r: r.n_events)
        events = store.events(longest.game_id)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "game.jsonl"
        log.write_bytes(to_jsonl(events))
        show_file = timed(["show", str(log), "--turn", str(longest.turns // 2)], args.runs)
    redecide_ms = []
    for _ in range(args.runs):
        t = time.perf_counter()
        assert departures(events) == []
        redecide_ms.append((time.perf_counter() - t) * 1000)
    startup = timed(["--version"], args.runs)
    from locm.replay import open_game
    from locm.replay.locm.render import show_text

    inproc = []
    for rec in picks:
        for _ in range(args.runs):
            t = time.perf_counter()
            r = open_game(db=args.db, game_id=rec.game_id)
            show_text(r, r.turn_start(rec.turns // 2))
            inproc.append((time.perf_counter() - t) * 1000)
    result = {"games_in_store": n, "runs": args.runs, "show_ms_median": round(statistics.median(show), 1),
              "show_ms_max": round(max(show), 1), "show_json_prefix_ms": round(show_json, 1),
              "html_ms_median": round(statistics.median(html), 1), "html_ms_max": round(max(html), 1),
              "html_bytes_last": size, "python_startup_ms": round(startup, 1),
              "show_in_process_ms": round(statistics.median(inproc), 1),
              "show_file_ms": round(show_file, 1), "show_file_events": len(events),
              "redecide_in_process_ms": round(statistics.median(redecide_ms), 2), "cases": rows}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"store: {n} games; medians of {args.runs} runs, each a new process")
    for r in rows:
        print(f"  show {r['game']} --turn {r['turn']}: {r['show_ms']} ms")
    print(f"locm show --turn N: median {result['show_ms_median']} ms, worst {result['show_ms_max']} ms (goal < 200)")
    print(f"locm show PREFIX --json: {result['show_json_prefix_ms']} ms")
    print(f"locm html: median {result['html_ms_median']} ms, worst {result['html_ms_max']} ms (goal < 1000), "
          f"{size // 1024} KB")
    print(f"locm show FILE --turn N of a {len(events)}-event log, re-decided first: {result['show_file_ms']} ms "
          f"(goal < 200; the re-decide alone in process: {result['redecide_in_process_ms']} ms)")
    print(f"(locm --version alone: {result['python_startup_ms']} ms; open the game and draw a turn in process: "
          f"{result['show_in_process_ms']} ms)")


if __name__ == "__main__":
    main()
