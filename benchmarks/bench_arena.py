"""The arena under load on loopback (issue 35): list and filter pages over a store of 1,000,000 games, 50
concurrent clients, the 50th/95th percentile latency per page, while a writer keeps storing (it must never wait
on the arena: the arena takes no write lock).

The store: a real tournament (LOCM greedy/random, and Skyport) is played into a file, then its ``games`` rows are
copied with new keys and ids until the table holds ``--games`` rows (the list pages read only ``games``; the
copies have no log rows, so only the real games' replays open; each copy's provenance row names its original's
source, so the copies count as played here). ``--untrusted N``: N of the copies are made an untrusted import's
(the standings leave them out, issue 32). Before the load: the arena's index built, and the standings and
ratings over every game and over one agent's computed (uncached, the median of three), in this process. Bounded: ``--requests`` in
all, and the run stops after ``--seconds`` whatever is left.

    .venv/bin/python benchmarks/bench_arena.py --games 1000000 --clients 50 --requests 3000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PAGES = {
    "list": "/games",
    "game=locm": "/games?game=locm",
    "agent=greedy": "/games?agent=greedy",
    "winner=random": "/games?winner=random",
    "seats=2, ruleset=1.2": "/games?seats=2&ruleset=1.2",
    "page deep (before)": "/games?before={mid}",
    "api agent=hunter": "/api/games?agent=hunter",
}


def build(db: Path, games: int) -> None:
    locm = [sys.executable, "-m", "locm.cli.main"]
    subprocess.run([*locm, "tournament", "--agents", "greedy", "random", "--games", "200", "--db", str(db)],
                   check=True, capture_output=True)
    subprocess.run([*locm, "tournament", "--game", "skyport", "--seats", "2", "--agents", "hunter", "random",
                    "--games", "8", "--db", str(db)], check=True, capture_output=True)
    with sqlite3.connect(db) as conn:
        n = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        cols = [r[1] for r in conn.execute("PRAGMA table_info(games)")]
        rest = ", ".join(c for c in cols if c not in ("id", "game_id"))
        copy = 0
        while conn.execute("SELECT count(*) FROM games").fetchone()[0] < games:
            copy += 1
            left = games - conn.execute("SELECT count(*) FROM games").fetchone()[0]
            top = conn.execute("SELECT max(id) FROM games").fetchone()[0]
            conn.execute(f"INSERT INTO games (game_id, {rest}) SELECT game_id || '-c{copy}', {rest} FROM games "
                         f"ORDER BY id LIMIT ?", (left,))
            conn.execute("INSERT INTO provenance (game, source) SELECT g.id, p.source FROM games g JOIN provenance p "
                         "ON p.game = g.id - ? WHERE g.id > ?", (top, top))  # keys dense: the copy of k is top + k
            conn.commit()
    print(f"store: {games:,} game rows ({n} real games), {db.stat().st_size / 1e6:.0f} MB", flush=True)


def make_untrusted(db: Path, n: int) -> None:
    """The newest ``n`` games made an untrusted import's (a source row as `locm import` without --trust makes)."""
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT OR IGNORE INTO provenance_sources (run, kind, command, file, sha256, at, trusted, "
                     "signer) VALUES ('bench-untrusted', 'imported', '', 'bench.jsonl', '', '', 0, '')")
        sid = conn.execute("SELECT id FROM provenance_sources WHERE run = 'bench-untrusted'").fetchone()[0]
        conn.execute("UPDATE provenance SET source = ? WHERE game > (SELECT max(id) FROM games) - ?", (sid, n))


def measure_standings(db: Path, index: Path | None) -> None:
    from locm.arena.readmodel import Filters, ReadModel

    t0 = time.perf_counter()
    model = ReadModel(db, index)
    model.index.refresh()
    built = time.perf_counter() - t0
    print(f"index ready in {built:.1f} s", flush=True)
    for what, f in (("every game", Filters()), ("agent=greedy", Filters(agent="greedy"))):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            table = model._standings(f)
            times.append(time.perf_counter() - t0)
        print(f"standings and ratings, {what}: {statistics.median(times) * 1e3:.0f} ms (median of 3); "
              f"{table.get('left_out_note') or 'every game counted'}", flush=True)
    model.index.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def load(url: str, paths: list[tuple[str, str]], clients: int, seconds: float) -> dict[str, list[float]]:
    import httpx2 as httpx

    times: dict[str, list[float]] = {name: [] for name, _ in paths}
    queue: asyncio.Queue = asyncio.Queue()
    for item in paths:
        queue.put_nowait(item)
    deadline = time.monotonic() + seconds

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as c:
            while not queue.empty() and time.monotonic() < deadline:
                name, path = queue.get_nowait()
                t0 = time.perf_counter()
                r = await c.get(path)
                times[name].append(time.perf_counter() - t0)
                if r.status_code != 200:
                    raise RuntimeError(f"{path}: {r.status_code}")

    await asyncio.gather(*(client() for _ in range(clients)))
    return times


def writer(db: Path, stop: threading.Event, waits: list[float]) -> None:
    """Store a row every 50 ms in a transaction of its own, timing how long each waited for the lock."""
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)
    i = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        waits.append(time.perf_counter() - t0)
        conn.execute("UPDATE locm_meta SET value = value WHERE key = 'format'")
        conn.execute("COMMIT")
        i += 1
        time.sleep(0.05)
    conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--db", type=Path, help="reuse a store built by an earlier run")
    ap.add_argument("--workers", type=int, default=2, help="the arena's server processes")
    ap.add_argument("--index", type=Path, help="the arena's index file (kept between runs; default: its cache)")
    ap.add_argument("--untrusted", type=int, default=0, help="copies made an untrusted import's (on a new store)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-arena-"))
    db = args.db or tmp / "arena.db"
    if not db.exists():
        build(db, args.games)
        if args.untrusted:
            make_untrusted(db, args.untrusted)
    measure_standings(db, args.index)
    with sqlite3.connect(db) as conn:
        mid = conn.execute("SELECT max(id) / 2 FROM games").fetchone()[0]
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "arena", "--db", str(db), "--port", str(port),
                               "--workers", str(args.workers), "--no-spectate",
                               *(["--index", str(args.index)] if args.index else [])],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        time.sleep(1.0)
        names = list(PAGES)
        paths = [(names[i % len(names)], PAGES[names[i % len(names)]].format(mid=mid)) for i in range(args.requests)]
        stop, waits = threading.Event(), []
        w = threading.Thread(target=writer, args=(db, stop, waits))
        w.start()
        t0 = time.perf_counter()
        times = asyncio.run(load(url, paths, args.clients, args.seconds))
        wall = time.perf_counter() - t0
        stop.set()
        w.join()
        done = sum(len(v) for v in times.values())
        print(f"{done} requests from {args.clients} clients to {args.workers} server processes in {wall:.1f} s ({done / wall:.0f}/s), load "
              f"{os.getloadavg()[0]:.2f}")
        print(f"{'page':24} {'n':>5} {'p50 ms':>8} {'p95 ms':>8}")
        every = []
        for name, ts in times.items():
            every += ts
            if ts:
                q = statistics.quantiles(ts, n=20)
                print(f"{name:24} {len(ts):5} {statistics.median(ts) * 1e3:8.1f} {q[18] * 1e3:8.1f}")
        q = statistics.quantiles(every, n=20)
        print(f"{'all':24} {len(every):5} {statistics.median(every) * 1e3:8.1f} {q[18] * 1e3:8.1f}")
        print(f"writer beside it: {len(waits)} transactions, longest wait for the lock {max(waits) * 1e3:.1f} ms")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
