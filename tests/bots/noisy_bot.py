"""Plays well and writes a numbered line of stderr chatter at every turn (argv[1] lines, default 200)."""

import sys

from botlib import answer, good_answer, turns

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 200
for n, turn in turns():
    for k in range(lines):
        print(f"turn {n} line {k}: thinking hard about my next move", file=sys.stderr)
    sys.stderr.flush()
    answer(good_answer(turn))
