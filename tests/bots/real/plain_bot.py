"""A Python bot with the standard library only (for the system's or pyenv's interpreter): passes every turn."""

import sys

while sys.stdin.readline():
    sys.stdin.readline()
    _, n_actions = map(int, sys.stdin.readline().split())
    for _ in range(n_actions):
        sys.stdin.readline()
    for _ in range(int(sys.stdin.readline())):
        sys.stdin.readline()
    print("PASS", flush=True)
