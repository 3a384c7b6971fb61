"""A Python bot that needs numpy: picks the draft card with the best attack + defense per mana (an array
computation), passes in battle. It runs with any interpreter that has numpy (a venv, pyenv, the system's)."""

import sys

import numpy as np

while line := sys.stdin.readline():
    sys.stdin.readline()
    _, n_actions = map(int, sys.stdin.readline().split())
    for _ in range(n_actions):
        sys.stdin.readline()
    cards = [sys.stdin.readline().split() for _ in range(int(sys.stdin.readline()))]
    if cards and all(c[1] == "-1" for c in cards):  # a draft pick: three offered cards
        stats = np.array([[int(c[4]), int(c[5]), int(c[6])] for c in cards], dtype=float)
        print(f"PICK {int(np.argmax((stats[:, 1] + stats[:, 2]) / (stats[:, 0] + 1)))}", flush=True)
    else:
        print("PASS", flush=True)
