"""Speed of Skyport through the server (a script, not a test): random vs random vs random vs random on a
4-player map (``--map``, default crossroads-4p), 200 turns (the 2013 rules), fast timing.

Each round measures, in wall-clock time:

- ``engine``: ``--games`` games played in this process by the rules core alone (the same-run baseline);
- ``tcp``: the same games through `locm.games.skyport.server` over TCP on 127.0.0.1, each seat a `random` agent as a
  network client (`locm.games.skyport.netclient`, in this process's event loop): every gamestate, re-broadcast and
  action is written, read and parsed; the games are the engine's (the test suite checks the logs are equal);
- ``processes`` (``--process-games``, 0 to skip): games with four client processes started from their command
  line (``python -m locm.games.skyport.netclient``), unconfined; and ``sandboxed``, the same in bubblewrap with the
  socat relay, shown this checkout read-only so that the clients can import locm (skipped when this machine
  cannot sandbox).

Reported: the median of each over ``--rounds`` rounds, in games/s, and the ratio of ``tcp`` to ``engine``.

    .venv/bin/python benchmarks/bench_skyport_serve.py --games 10 --rounds 5 --process-games 2 [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from locm.engine.skyport.agents import agent_seed, make_agent, play
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import spawn_tiles
from locm.engine.skyport.rules import RULES_2013, builtin_map
from locm.games.skyport.netbots import play_skyport
from locm.runner.sandbox.bwrap import Sandbox, probe
from locm.games.skyport.netclient import play as net_play
from locm.games.skyport.server import RESERVED, Fast, SeatSpec, SkyportServer

ROOT = str(Path(__file__).resolve().parent.parent)


def engine_round(games: int, map_name: str, seed: int) -> float:
    game_map = builtin_map(map_name)
    players = len(spawn_tiles(game_map))
    start = time.perf_counter()
    for g in range(seed, seed + games):
        game = SkyportGame.new([f"random-{i}" for i in range(players)], g, game_map, RULES_2013,
                               ("random",) * players)
        play(game, [make_agent("random", agent_seed(g, i)) for i in range(players)])
    return games / (time.perf_counter() - start)


async def _tcp_game(game_map, seed: int) -> int:
    players = len(spawn_tiles(game_map))
    server = SkyportServer(game_map, [SeatSpec(RESERVED, "random") for _ in range(players)], seed, RULES_2013,
                           Fast(3000))
    ports = [await server.listen_seat_tcp(slot) for slot in range(players)]
    clients = [asyncio.ensure_future(net_play(make_agent("random", agent_seed(seed, i)), f"random-{i}",
                                              port=ports[i])) for i in range(players)]
    try:
        game = await server.run()
    finally:
        await server.close()
    await asyncio.gather(*clients)
    return len(game.log)


def tcp_round(games: int, map_name: str, seed: int) -> float:
    game_map = builtin_map(map_name)
    start = time.perf_counter()
    for g in range(seed, seed + games):
        asyncio.run(_tcp_game(game_map, g))
    return games / (time.perf_counter() - start)


def process_round(games: int, map_name: str, seed: int, sandbox: Sandbox) -> float:
    game_map = builtin_map(map_name)
    players = len(spawn_tiles(game_map))
    spec = f"{sys.executable} -m locm.games.skyport.netclient --agent random --name random-{{slot}} --seed {{seed}} " \
           "{host} {port}"
    start = time.perf_counter()
    for g in range(seed, seed + games):
        play_skyport([spec] * players, game_map, g, timing=Fast(3000), sandbox=sandbox)
    return games / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--process-games", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--map", default="crossroads-4p")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    sandboxed = a.process_games > 0 and probe().ok and shutil.which("socat") is not None
    rows: dict[str, list[float]] = {"engine": [], "tcp": []}
    if a.process_games:
        rows["processes"] = []
    if sandboxed:
        rows["sandboxed"] = []
    for r in range(a.rounds):
        seed = a.seed + r * a.games
        rows["engine"].append(engine_round(a.games, a.map, seed))
        rows["tcp"].append(tcp_round(a.games, a.map, seed))
        if a.process_games:
            rows["processes"].append(process_round(a.process_games, a.map, seed, Sandbox(enabled=False)))
        if sandboxed:
            # the clients import locm: the sandbox is shown this checkout (read-only) besides the venv
            rows["sandboxed"].append(process_round(a.process_games, a.map, seed, Sandbox(binds=(ROOT,))))
    medians = {k: statistics.median(v) for k, v in rows.items()}
    if a.json:
        print(json.dumps({"map": a.map, "games": a.games, "process_games": a.process_games, "rounds": a.rounds,
                          "games_per_s": medians, "tcp_vs_engine": medians["tcp"] / medians["engine"]}))
        return
    print(f"skyport, random x4 on {a.map}, 200 turns, fast timing; median of {a.rounds} rounds (games/s, wall)")
    for k, v in medians.items():
        print(f"  {k:<10} {v:8.2f} games/s")
    print(f"  tcp / engine: {medians['tcp'] / medians['engine']:.2f}")


if __name__ == "__main__":
    main()
