"""What the test bots share: read one turn of the referee protocol (R-INPUT) from stdin, answer one line.

A turn is: two player lines, ``oppHandSize oppActionCount``, that many opponent action lines, the card count,
that many card lines (``baseId id location type cost attack defense keywords ...``). Draft and construct
turns offer cards with id -1.
"""

import os
import sys

# Every test bot says who it is, so that a test can check from the kept stderr that the process is gone: its
# pid and process group unconfined, its PID namespace in the sandbox (where pids are the namespace's own).
print(f"botlib: pid {os.getpid()} pgid {os.getpgrp()} pidns {os.readlink('/proc/self/ns/pid')}", file=sys.stderr,
      flush=True)


def read_turn():
    """The turn's lines as a dict, or None at the end of the input (the runner closed the pipe)."""
    me = sys.stdin.readline()
    if not me:
        return None
    op = sys.stdin.readline()
    _, n_actions = map(int, sys.stdin.readline().split())
    actions = [sys.stdin.readline().strip() for _ in range(n_actions)]
    n_cards = int(sys.stdin.readline())
    cards = []
    for _ in range(n_cards):
        f = sys.stdin.readline().split()
        cards.append({"id": int(f[1]), "location": int(f[2]), "type": int(f[3]), "cost": int(f[4]),
                      "attack": int(f[5])})
    me, op = me.split(), op.split()
    return {"health": int(me[0]), "mana": int(me[1]), "opp_health": int(op[0]), "actions": actions,
            "cards": cards, "deck_building": all(c["id"] == -1 for c in cards)}


def good_answer(turn):
    """PASS while building the deck; in battle summon what the mana allows (lane 0) and attack the face."""
    if turn["deck_building"]:
        return "PASS"
    out, mana = [], turn["mana"]
    for c in turn["cards"]:
        if c["location"] == 0 and c["type"] == 0 and c["cost"] <= mana:
            out.append(f"SUMMON {c['id']} 0")
            mana -= c["cost"]
        elif c["location"] == 1 and c["attack"] > 0:
            out.append(f"ATTACK {c['id']} -1")
    return ";".join(out) or "PASS"


def answer(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def turns():
    """Every turn until the end of the input, numbered from 0."""
    n = 0
    while (turn := read_turn()) is not None:
        yield n, turn
        n += 1
