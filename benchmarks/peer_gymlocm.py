"""Time whole random-vs-random games in the peer engine gym-locm 2.0.0b1.

Run with the PEER venv's python, never ours (see benchmarks/setup_peer.sh):

    /work/peer-venv/bin/python benchmarks/peer_gymlocm.py --ruleset 1.2 --games 300
    /work/peer-venv/bin/python benchmarks/peer_gymlocm.py --ruleset constructed --games 100

Prints one JSON object:
    {"engine": "gym-locm 2.0.0b1", "ruleset": ..., "games": N,
     "seconds": ..., "games_per_s": ..., ...}

This imports nothing from the locm repo.  The game loop is the one of
gym-locm's own runner (gym_locm/toolbox/runner.py, ``evaluate``) minus its
multiprocessing pool, lock and printing: ``engine.Game(seed=seed + i,
version=...)`` driven by the deck-building agent during the deck-building
phase and the battle agent afterwards, until ``game.winner`` is set.

* ruleset 1.2: version "1.2" -> DraftPhase (30 turns, pick 1 of 3 from a
  60-card pool drawn from the 160-card list) + Version12BattlePhase (runes).
  Agents: RandomDraftAgent + RandomBattleAgent.
* ruleset constructed: version "1.5" -> ConstructedPhase (120 procedurally
  generated cards, each player chooses 30, at most 2 copies) +
  Version15BattlePhase.  Agents: RandomConstructedAgent + RandomBattleAgent.

In gym-locm all three random agents are the same class: each call returns a
uniformly random element of ``state.available_actions``.  In battle that tuple
is ``(PASS,) + summons + uses + attacks``, so PASS (which ends the turn) is one
of the uniformly chosen options.  NB: the agent draws from the *module-global*
``random`` (its own seeded ``random.Random`` is unused), so we seed the global
``random`` with --seed to make runs reproducible.

Timed: game construction (incl. card-pool generation / draft pool), deck
building and battle, for all N games, in one process.  Not timed: imports and
the one-off loading of the card list / card-weights files (done up front).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

ENGINE = "gym-locm 2.0.0b1"
VERSIONS = {"1.2": "1.2", "constructed": "1.5", "1.5": "1.5"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", required=True, choices=["1.2", "constructed", "1.5"])
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    ruleset = "constructed" if args.ruleset == "1.5" else args.ruleset
    version = VERSIONS[args.ruleset]

    try:
        from gym_locm import engine
        from gym_locm.agents import (
            RandomBattleAgent,
            RandomConstructedAgent,
            RandomDraftAgent,
        )
        from gym_locm.engine.card import get_locm12_card_list
        from gym_locm.engine.card_generator import _get_card_weights
    except ImportError as e:  # pragma: no cover - environment problem
        print(
            f"cannot import gym_locm ({e}); run this with the peer venv's python "
            "(bash benchmarks/setup_peer.sh)",
            file=sys.stderr,
        )
        return 2

    # One-off resource loading, outside the timed region.
    get_locm12_card_list()
    if version == "1.5":
        _get_card_weights()

    random.seed(args.seed)  # RandomBattleAgent.act uses the global `random`
    deck_agent_cls = RandomDraftAgent if version == "1.2" else RandomConstructedAgent
    deck_agents = (deck_agent_cls(), deck_agent_cls())
    battle_agents = (RandomBattleAgent(), RandomBattleAgent())
    for a in deck_agents + battle_agents:
        a.seed(args.seed)

    DECK_BUILDING = engine.Phase.DECK_BUILDING
    PASS = engine.ActionType.PASS
    turns = battle_actions = passes = first_wins = 0

    c0 = time.process_time()
    t0 = time.perf_counter()
    for i in range(args.games):
        game = engine.Game(seed=args.seed + i, version=version)
        for a in deck_agents + battle_agents:
            a.reset()
        while game.winner is None:
            if game.phase == DECK_BUILDING:
                action = deck_agents[game.current_player.id].act(game)
            else:
                action = battle_agents[game.current_player.id].act(game)
                battle_actions += 1
                if action.type is PASS:
                    passes += 1
            game.act(action)
        turns += game.battle_phase.turn
        first_wins += game.winner == engine.PlayerOrder.FIRST
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - c0

    n = max(args.games, 1)
    print(
        json.dumps(
            {
                "engine": ENGINE,
                "ruleset": ruleset,
                "games": args.games,
                "seconds": round(seconds, 4),
                "games_per_s": round(args.games / seconds, 2) if seconds else None,
                # CPU time of this process over the same region: if it is much
                # below `seconds`, other processes were competing for the CPU.
                "cpu_seconds": round(cpu_seconds, 4),
                "seed": args.seed,
                # battle_phase.turn counts rounds (it increments after the
                # second player's PASS); the game's last round may be partial.
                "mean_turns": round(turns / n, 2),
                "mean_battle_actions": round(battle_actions / n, 2),
                "pass_share": round(passes / battle_actions, 4) if battle_actions else None,
                "first_player_win_rate": round(first_wins / n, 4),
                "python": sys.version.split()[0],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
