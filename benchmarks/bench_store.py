"""Throughput of the event store on synthetic but realistic games (a script, not a test).

Each game is built from the real event classes with plausible values: a 1.2 draft (card pool of 60 cards,
30 rounds of offers and picks, two shuffled decks) and then turns of draws, summons, attacks, damage and
deaths until it has ``--events`` events, ending in ``GameEnded``; with ``--real``, the games are played
instead (1.2, greedy vs random, seeds 1..N: about 330 events and 40 KB of JSON each). It measures, as the
median of ``--runs`` runs, each on a fresh SQLite file (WAL, as `open_store` makes it):

- append: events per second through ``append_game``, from event objects in memory to committed rows: the
  checks, the JSON encoding, the hash chain, the compression and the SQL, one transaction per game;
- append_prepared: events per second through ``append_prepared`` of games already checked, encoded and
  compressed by ``prepare_game`` (what the tournament's writer process does: the SQL alone);
- read: events per second through ``events(game_id)`` (read+decode: the SELECT of the game's log row,
  inflating it and decoding every event into its msgspec Struct, game by game) and ``iter_events()``
  (the same as one stream over all games);
- verify: events per second through ``verify_chain`` (inflate and recompute the chain);
- export and import: events per second through ``export_jsonl`` / ``import_jsonl`` (in memory buffers);
- bytes_per_game: the size of the store file (checkpointed, so the -wal is empty) divided by the games.

``--codecs`` adds a per-event comparison of the JSON and MessagePack codecs (the choice of JSON payloads).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_store.py --games 200 --runs 5
    PYTHONPATH=. .venv/bin/python benchmarks/bench_store.py --real --games 500 --runs 5
    PYTHONPATH=. .venv/bin/python benchmarks/bench_store.py --json --codecs
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from locm.events.locm import catalog as ev
from locm.events.locm.cards import Card
from locm.events.locm.codec import from_json, from_msgpack, to_json, to_msgpack
from locm.store.eventstore import GameExtras, SeatExtras, open_store, prepare_game
from locm.engine.locm.definition import GAME as LOCM_GAME

SEATS = (SeatExtras(think_ms=12.5), SeatExtras(think_ms=30.0))


def make_game(rng: random.Random, n_events: int = 500) -> list[ev.Event]:
    """One plausible 1.2 game of exactly ``n_events`` events (at least 100)."""
    out: list[ev.Event] = []

    def add(cls, **kw):
        out.append(cls(seq=len(out), cause=max(len(out) - 1, -1) if out else -1, **kw))

    add(ev.GameCreated, rule="R-SEEDS", ruleset="1.2", ruleset_version="1.2", seed=rng.getrandbits(48),
        shuffle_player0_seed=rng.getrandbits(48), shuffle_player1_seed=rng.getrandbits(48),
        draft_choices_seed=rng.getrandbits(48), agents=("greedy", "random"))
    pool = tuple(Card(base_id=b, type=rng.choice((0, 0, 0, 1, 2, 3)), cost=rng.randint(0, 12),
                      attack=rng.randint(0, 8), defense=rng.randint(1, 9), keywords=rng.randrange(64),
                      my_health=rng.choice((0, 0, 2)), opp_health=rng.choice((0, 0, -2)), draw=rng.choice((0, 0, 1)))
                 for b in rng.sample(range(1, 161), 60))
    add(ev.CardPoolDefined, rule="R-DRAFT", cards=pool)
    ids = [c.base_id for c in pool]
    for rnd in range(30):
        offer = tuple(rng.sample(ids, 3))
        add(ev.DraftOffered, rule="R-DRAFT", round=rnd, base_ids=offer)
        for player in (0, 1):
            add(ev.CardPicked, rule="R-DRAFT", player=player, round=rnd, base_id=rng.choice(offer))
    for player in (0, 1):
        add(ev.DeckOrdered, rule="R-DECK", player=player, ids=tuple(range(1 + 30 * player, 31 + 30 * player)),
            base_ids=tuple(rng.choice(ids) for _ in range(30)))
    turn, next_id = 0, 1
    while len(out) < n_events - 1:
        player = turn % 2
        add(ev.TurnStarted, rule="R-TURN", player=player, turn=turn, max_mana=min(12, turn // 2 + 1),
            mana=min(12, turn // 2 + 1), bonus_spent=False, draws=1)
        add(ev.CardDrawn, rule="R-DRAW", player=player, id=next_id)
        add(ev.ActionReceived, rule="R-ACTIONS", player=player,
            text=f"SUMMON {next_id} {rng.randrange(2)};ATTACK {next_id - 2} -1;PASS")
        add(ev.CreatureSummoned, rule="R-SUMMON", player=player, id=next_id, base_id=rng.choice(ids),
            lane=rng.randrange(2), cost=rng.randint(0, 6))
        add(ev.CreatureAttacked, rule="R-ATTACK", player=player, attacker=next_id - 2, target=-1)
        if rng.random() < 0.5:
            add(ev.PlayerDamaged, rule="R-ATTACK", player=1 - player, amount=rng.randint(1, 6), source="attack")
        else:
            add(ev.CreatureDamaged, rule="R-ATTACK", id=next_id - 1, amount=rng.randint(1, 4))
            add(ev.CreatureDied, rule="R-ATTACK", id=next_id - 3)
        add(ev.TurnEnded, rule="R-TURN", player=player)
        turn, next_id = turn + 1, next_id + 1
    del out[n_events - 1:]
    add(ev.GameEnded, rule="R-WIN", winner=rng.randrange(2), reason="health", turn=turn)
    return out


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def run_once(games: list[list[ev.Event]], workdir: Path, run: int) -> dict[str, float]:
    n = sum(len(g) for g in games)
    ids = [f"bench-{run}-{i}" for i in range(len(games))]
    path = workdir / f"bench-{run}.db"
    rates: dict[str, float] = {}
    with open_store(path) as store:
        t = time.perf_counter()
        for game_id, events in zip(ids, games):
            store.append_game(LOCM_GAME, GameExtras(game_id=game_id, seats=SEATS), events)
        rates["append"] = _rate(n, time.perf_counter() - t)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rates["bytes_per_game"] = path.stat().st_size / len(games)
    prepared = [prepare_game(LOCM_GAME, GameExtras(game_id=f"p{game_id}", seats=SEATS), events)
                for game_id, events in zip(ids, games)]
    with open_store(workdir / f"prepared-{run}.db") as store:
        t = time.perf_counter()
        for p in prepared:
            store.append_prepared(p)
        rates["append_prepared"] = _rate(n, time.perf_counter() - t)
    with open_store(path, create=False) as store:
        t = time.perf_counter()
        got = sum(len(store.events(game_id)) for game_id in ids)
        rates["read_events"] = _rate(got, time.perf_counter() - t)
        t = time.perf_counter()
        got = sum(1 for _ in store.iter_events())
        rates["read_iter"] = _rate(got, time.perf_counter() - t)
        t = time.perf_counter()
        for game_id in ids:
            store.verify_chain(game_id)
        rates["verify"] = _rate(n, time.perf_counter() - t)
        buf = io.BytesIO()
        t = time.perf_counter()
        store.export_jsonl(None, buf)
        rates["export"] = _rate(n, time.perf_counter() - t)
    with open_store(workdir / f"import-{run}.db") as target:
        buf.seek(0)
        t = time.perf_counter()
        target.import_jsonl(buf, check=False)  # the format's part; re-deciding games: bench_verify.py
        rates["import"] = _rate(n, time.perf_counter() - t)
    return rates


def codec_rates(games: list[list[ev.Event]]) -> dict[str, float]:
    events = [e for g in games for e in g]
    js, mp = [to_json(e) for e in events], [to_msgpack(e) for e in events]
    rates = {}
    for name, fn, items in (("json_encode", to_json, events), ("msgpack_encode", to_msgpack, events),
                            ("json_decode", from_json, js), ("msgpack_decode", from_msgpack, mp)):
        t = time.perf_counter()
        for item in items:
            fn(item)
        rates[name] = _rate(len(items), time.perf_counter() - t)
    rates["json_bytes_per_event"] = sum(map(len, js)) / len(js)
    rates["msgpack_bytes_per_event"] = sum(map(len, mp)) / len(mp)
    return rates


def calibration() -> float:
    """Machine speed, to compare figures across machines: ``sum(range(1000))`` calls per second (median of 5).
    A recent desktop does about 100,000; a shared virtual machine may swing by 2x from minute to minute."""
    rates = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(2000):
            sum(range(1000))
        rates.append(_rate(2000, time.perf_counter() - t))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument("--events", type=int, default=500, help="events per game (default 500)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic games (default 1)")
    parser.add_argument("--real", action="store_true", help="played 1.2 games (greedy vs random) instead")
    parser.add_argument("--codecs", action="store_true", help="also compare the JSON and MessagePack codecs")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.real:
        from locm.games.locm.play import play_one

        games = [play_one("1.2", seed, ("greedy", "random")).log for seed in range(1, args.games + 1)]
        args.events = round(sum(map(len, games)) / len(games))
    else:
        games = [make_game(rng, args.events) for _ in range(args.games)]
    speed = [calibration()]
    with tempfile.TemporaryDirectory(prefix="locm-bench-") as tmp:
        runs = [run_once(games, Path(tmp), r) for r in range(args.runs)]
    speed.append(calibration())
    result = {
        "games": args.games, "events_per_game": args.events, "runs": args.runs, "python": sys.version.split()[0],
        "events_per_second": {k: round(statistics.median(r[k] for r in runs)) for k in runs[0]
                              if k != "bytes_per_game"},
        "bytes_per_game": round(statistics.median(r["bytes_per_game"] for r in runs)),
        "all_runs": {k: [round(r[k]) for r in runs] for k in runs[0]},
        "calibration_sum_range_1000_per_second": [round(x) for x in speed],
    }
    if args.codecs:
        result["codec_per_event"] = {k: round(v, 1) for k, v in codec_rates(games).items()}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.games} {'played 1.2' if args.real else 'synthetic'} games x {args.events} events, "
              f"median of {args.runs} runs (events/s):")
        for k, v in result["events_per_second"].items():
            print(f"  {k:12} {v:>12,}")
        print(f"  {'bytes/game':12} {result['bytes_per_game']:>12,}")
        for k, v in result.get("codec_per_event", {}).items():
            print(f"  codec {k:24} {v:>14,.1f}")
        print(f"  machine: sum(range(1000)) {speed[0]:,.0f}/s before, {speed[1]:,.0f}/s after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
