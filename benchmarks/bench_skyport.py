"""Speed of the Skyport rules core (a script, not a test): random vs random vs random vs random on a 4-player map.

Each round plays ``--games`` seeded games (built-in `random` agents, the built-in ``2013`` rules: 200 turns) on
``--map`` in this process, event log kept, then folds every log again (the rebuild a replay does). Reported: the
median over ``--rounds`` rounds of games/s and events/s (CPU time of this process, so that other work on a
shared machine counts less), and of the rebuild time per game. Skyport has no Python peer to compare with; as a
same-run reference each round also plays ``--locm-games`` LOCM 1.2 games (random vs random, `Game.new` and
`play`, log kept), so the ratio shows where Skyport stands against the project's other engine on this machine
at this moment.

    .venv/bin/python benchmarks/bench_skyport.py --games 50 --rounds 5 [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from locm.engine.skyport.agents import agent_seed, make_agent, play
from locm.engine.skyport.evolve import fold
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.rules import builtin_map


def skyport_round(games: int, map_name: str, seed: int) -> tuple[float, float, float]:
    """(games/s, events/s, ms to fold one game's log), CPU time."""
    game_map = builtin_map(map_name)
    players = sum(row.count("S") for row in game_map.rows)
    logs = []
    start = time.process_time()
    for g in range(seed, seed + games):
        game = SkyportGame.new([f"p{i}-random" for i in range(players)], g, game_map)
        play(game, [make_agent("random", agent_seed(g, i)) for i in range(players)])
        logs.append(game.log)
    played = time.process_time() - start
    start = time.process_time()
    for log in logs:
        fold(log)
    folded = time.process_time() - start
    events = sum(len(log) for log in logs)
    return games / played, events / played, 1000 * folded / games


def locm_round(games: int, seed: int) -> float:
    from locm.engine.locm.agents import make_agent as locm_agent
    from locm.engine.locm.playing import play as locm_play
    from locm.engine.locm.game import Game

    start = time.process_time()
    for g in range(seed, seed + games):
        game = Game.new("1.2", g)
        locm_play(game, [locm_agent("random", g), locm_agent("random", g + 1)])
    return games / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=50, help="Skyport games per round (default 50)")
    ap.add_argument("--locm-games", type=int, default=100, help="LOCM reference games per round (default 100)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--map", default="crossroads-4p")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    skyport_round(2, a.map, a.seed)  # warm-up: imports, map, first calls
    rows = []
    for r in range(a.rounds):
        gps, eps, fold_ms = skyport_round(a.games, a.map, a.seed + r * a.games)
        ref = locm_round(a.locm_games, a.seed + r * a.locm_games) if a.locm_games else 0.0
        rows.append((gps, eps, fold_ms, ref))
    med = [statistics.median(col) for col in zip(*rows)]
    out = {"map": a.map, "games_per_round": a.games, "rounds": a.rounds, "games_per_s": round(med[0], 1),
           "events_per_s": round(med[1]), "fold_ms_per_game": round(med[2], 2),
           "locm_12_games_per_s": round(med[3], 1),
           "skyport_over_locm": round(statistics.median(g / ref for g, _, _, ref in rows), 3) if a.locm_games else None}
    if a.json:
        print(json.dumps(out))
        return
    print(f"Skyport, random x4 on {a.map} (200 turns, built-in 2013 rules), median of {a.rounds} rounds "
          f"of {a.games} games (CPU time):")
    print(f"  {out['games_per_s']} games/s, {out['events_per_s']} events/s; rebuild (fold) "
          f"{out['fold_ms_per_game']} ms per game")
    if a.locm_games:
        print(f"  same-run reference: LOCM 1.2 random vs random {out['locm_12_games_per_s']} games/s "
              f"(Skyport/LOCM {out['skyport_over_locm']})")


if __name__ == "__main__":
    main()
