"""What provenance costs (issue 32, item 1; a script, not a test): per game, in one run.

- **Writing it**: ``--games`` LOCM 1.2 games (the built-in agents against random, played once in memory) stored
  into a fresh SQLite store by 64 a transaction, as a tournament's writer stores them (µs a game, all of the
  store's work); then, on that store, the provenance statements alone as `SqliteStore._write` runs them (the
  source's row and each game's provenance row, in a transaction rolled back): their share of a write.
- **Chaining it** (`locm.store.provchain`): the chain's entries of those games alone (a digest and a link a
  game, their rows and the head written, in a transaction rolled back); `locm verify`'s check of the chain
  against every provenance row (`provenance_problems`), µs a game.
- **Signing it** (`locm.provenance.signing`): `sign_ledger` (the store's chains checked, then the games' ledger
  and the provenance chain signed, as each signed export does) and `ledger_check` (verify's: the signature, the
  ledger's prefix and the chain's prefix recomputed from the rows), ms a call over the whole store and µs a
  game of it.
- **Reading it**: `EventStore.provenances()` over the whole store (what a tournament and `locm verify` read),
  µs a game.
- **Re-running the built-in agents in verify**: for each stored game, `locm verify`'s check of it without the
  re-run (`stored_problem` with the agents' check taken out: chain, record, id, fold, re-decided inputs) and
  the re-run alone (`agents_problem`), ms a game, by agent.

Medians of ``--rounds`` rounds (each round every figure once, in turn).

    .venv/bin/python benchmarks/bench_provenance.py --games 200 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def games(n: int):
    from locm.engine import core
    from locm.engine.locm.definition import GAME
    from locm.store.eventstore import GameExtras, prepare_game

    agents = [a for a in GAME.agent_names]
    out = []
    for k in range(n):
        match = core.play(GAME, "1.2", 1000 + k, [agents[k % len(agents)], "random"])
        out.append(prepare_game(GAME, GameExtras(game_id=GAME.game_id(match.log[0])), match.log))
    return GAME, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    from locm.provenance import signing
    from locm.store import provchain
    from locm.store import sqlite as backend
    from locm.store.eventstore import open_store
    from locm.verify import checks

    game, prepared = games(args.games)
    n = len(prepared)
    figures: dict[str, list[float]] = {}
    by_agent: dict[str, list[float]] = {}
    plain: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            db = Path(tmp) / f"r{r}.db"
            with open_store(db) as store:
                t = time.perf_counter()
                for i in range(0, n, 64):
                    store.append_games(prepared[i:i + 64])
                figures.setdefault("store a game (all of the write), us", []).append(
                    (time.perf_counter() - t) / n * 1e6)
                conn = store._conn
                t = time.perf_counter()
                conn.execute("BEGIN IMMEDIATE")
                sid, _ = store._source_id(store.played(), n)
                conn.executemany(backend._INSERT_PROVENANCE, [(k, sid) for k in range(1, n + 1)])
                conn.execute("ROLLBACK")
                figures.setdefault("of which provenance rows, us", []).append((time.perf_counter() - t) / n * 1e6)
                run = store.played().run
                conn.execute("BEGIN IMMEDIATE")
                t = time.perf_counter()
                chain = provchain.Writer(conn)
                for k, p in enumerate(prepared, 1):
                    chain.game(k, p.record.game_id, sid, run)
                chain.close()
                figures.setdefault("of which provenance chain entries, us", []).append(
                    (time.perf_counter() - t) / n * 1e6)
                conn.execute("ROLLBACK")
                t = time.perf_counter()
                assert store.provenance_problems() == []
                figures.setdefault("verify: check the provenance chain, us", []).append(
                    (time.perf_counter() - t) / n * 1e6)
            signing.new_key(db)
            t = time.perf_counter()
            signing.sign_ledger(db)
            signed = time.perf_counter() - t
            with open_store(db, create=False, readonly=True) as store:
                t = time.perf_counter()
                verdict = signing.ledger_check(store, db)
                checked = time.perf_counter() - t
                assert verdict.signed and verdict.problem is None and verdict.pcount == n + 2, verdict
            figures.setdefault(f"sign the ledger, ms (once, {n} games)", []).append(signed * 1e3)
            figures.setdefault("sign the ledger, us a game", []).append(signed / n * 1e6)
            figures.setdefault(f"verify: its signature, ms (once, {n} games)", []).append(checked * 1e3)
            figures.setdefault("verify: its signature, us a game", []).append(checked / n * 1e6)
            with open_store(db) as store:
                t = time.perf_counter()
                found = store.provenances()
                figures.setdefault("read every game's provenance, us", []).append(
                    (time.perf_counter() - t) / n * 1e6)
                assert len(found) == n and all(c.counted for c in found.values())
                for record in store.games():
                    agent = record.agents[0]
                    events = store.verified_events(record.game_id)
                    t = time.perf_counter()
                    checks.content_problem(record.game_id, events, meta=record.meta, winner=record.winner,
                                           reason=record.reason, game=game)
                    plain.setdefault(agent, []).append((time.perf_counter() - t) * 1e3)
                    t = time.perf_counter()
                    verdict = checks.agents_problem(game, events)
                    by_agent.setdefault(agent, []).append((time.perf_counter() - t) * 1e3)
                    assert verdict.ok, verdict
    print(f"{n} LOCM 1.2 games, {args.rounds} rounds, medians")
    for name, values in figures.items():
        print(f"  {name:<42} {statistics.median(values):8.1f}")
    print("  verify per game, ms:        re-decide etc. | re-run agents | share")
    for agent in by_agent:
        a, b = statistics.median(plain[agent]), statistics.median(by_agent[agent])
        print(f"    {agent + ' vs random':<26} {a:14.2f} | {b:13.2f} | {b / (a + b):5.0%}")


if __name__ == "__main__":
    main()
