#!/usr/bin/env python3
"""A small example bot for locm (and the official referee): random-ish but always legal play, both rulesets.

Run it in a game:    .venv/bin/locm play --seed 7 --p0 "python3 examples/bot.py" --p1 greedy
or a tournament:     .venv/bin/locm tournament --agents "python3 examples/bot.py" greedy random --games 20 --db t.db

The protocol (data/LOCM-RULES.md, R-INPUT and R-ACTIONS): every turn the referee writes the game state on our
stdin and waits for ONE line on stdout. We must flush after writing it, and answer within the time limit
(100 ms a draft pick, 200 ms a battle turn by default). Anything we print on stderr is kept with the game
(`locm games --stderr GAME_ID`), so use stderr for debugging, never stdout.

A turn's input, line by line:
  my player line        health mana deckSize [nextRune] draw     (1.2 has the rune field, constructed not)
  opponent player line  the same fields
  oppHandSize oppActionCount
  oppActionCount lines  what the opponent did last turn
  cardCount
  cardCount card lines  baseId id location type cost attack defense keywords myHp oppHp draw [area] lane
      location: 0 my hand, 1 my board, -1 the opponent's board; type: 0 creature, 1 green, 2 red, 3 blue item
      keywords: six letters BCDGLW or '-' (Breakthrough, Charge, Drain, Guard, Lethal, Ward)
Deck building turns show the offered cards with id -1: three in the 1.2 draft (answer PICK 0..2), all 120 in
constructed (answer CHOOSE baseId items, 30 cards, at most 2 copies of each).

The protocol never says the game's sizes; under a ruleset variant they may differ (`locm play --ruleset
examples/variants/guard-heavy.toml`: 2 creatures a lane). locm gives every bot the game's rules as JSON in the
environment variable LOCM_RULES; under the official referee it is unset and the official values hold.
"""

import json
import os
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)  # a seed makes its games repeatable
RULES = {"lane_size": 3, "deck_size": 30, "max_copies": 2, **json.loads(os.environ.get("LOCM_RULES", "{}"))}


def read_turn():
    """One turn's input as (me, cards); None when the referee closed our stdin (the game is over)."""
    line = sys.stdin.readline()
    if not line:
        return None
    me = [int(x) for x in line.split()]
    sys.stdin.readline()  # the opponent's player line: this bot does not look at it
    _, n_actions = map(int, sys.stdin.readline().split())
    for _ in range(n_actions):
        sys.stdin.readline()
    cards = []
    for _ in range(int(sys.stdin.readline())):
        f = sys.stdin.readline().split()
        cards.append({"base": int(f[0]), "id": int(f[1]), "location": int(f[2]), "type": int(f[3]),
                      "cost": int(f[4]), "attack": int(f[5]), "defense": int(f[6]), "keywords": f[7],
                      "lane": int(f[-1])})
    return {"health": me[0], "mana": me[1]}, cards


def build_deck(cards):
    """Constructed: the deck's size in cards chosen at random among the 120 offered, each as often as allowed
    (always legal)."""
    slots = [c["base"] for c in cards for _ in range(RULES["max_copies"])]
    chosen = rng.sample(slots, RULES["deck_size"])
    return ";".join(f"CHOOSE {b}" for b in chosen)


def battle(me, cards):
    """Summon what the mana allows, use items on fitting targets, then attack: guards first, else the face."""
    hand = [c for c in cards if c["location"] == 0]
    mine = [c for c in cards if c["location"] == 1]
    theirs = [c for c in cards if c["location"] == -1]
    mana, actions, summoned = me["mana"], [], set()
    per_lane = [sum(c["lane"] == lane for c in mine) for lane in (0, 1)]
    rng.shuffle(hand)
    for card in hand:
        if card["cost"] > mana:
            continue
        if card["type"] == 0:  # a creature: to a lane with room (at most lane_size of ours in a lane)
            lanes = [lane for lane in (0, 1) if per_lane[lane] < RULES["lane_size"]]
            if not lanes:
                continue
            lane = rng.choice(lanes)
            per_lane[lane] += 1
            actions.append(f"SUMMON {card['id']} {lane}")
            summoned.add(card["id"])
            mine.append({**card, "lane": lane})
        elif card["type"] == 1 and mine:  # green: on one of our creatures
            actions.append(f"USE {card['id']} {rng.choice(mine)['id']}")
        elif card["type"] == 2 and (plain := [c for c in theirs if "G" not in c["keywords"]]):
            # red: on one of theirs, never a guard (it could lose Guard or die: our attacks aim at guards)
            actions.append(f"USE {card['id']} {rng.choice(plain)['id']}")
        elif card["type"] == 3:  # blue: at the opponent
            actions.append(f"USE {card['id']} -1")
        else:
            continue
        mana -= card["cost"]
    for card in mine:
        if card["id"] in summoned and "C" not in card["keywords"]:
            continue  # summoned this turn without Charge: cannot attack yet
        guards = [c for c in theirs if c["lane"] == card["lane"] and "G" in c["keywords"]]
        if not guards:
            actions.append(f"ATTACK {card['id']} -1")
            continue
        guard = guards[0]  # a guard must be attacked first; keep track of it, it may die (R-ATTACK)
        actions.append(f"ATTACK {card['id']} {guard['id']}")
        if "W" in guard["keywords"]:
            if card["attack"] > 0:
                guard["keywords"] = guard["keywords"].replace("W", "-")  # the ward takes the hit
        elif card["attack"] >= guard["defense"] or ("L" in card["keywords"] and card["attack"] > 0):
            theirs.remove(guard)
        else:
            guard["defense"] -= card["attack"]
    return ";".join(actions) or "PASS"


def main():
    while (turn := read_turn()) is not None:
        me, cards = turn
        if cards and all(c["id"] == -1 for c in cards):  # deck building
            answer = f"PICK {rng.randrange(3)}" if len(cards) == 3 else build_deck(cards)
        else:
            answer = battle(me, cards)
        print(answer, flush=True)  # one line per turn, flushed, or the referee waits until the time limit


if __name__ == "__main__":
    main()
