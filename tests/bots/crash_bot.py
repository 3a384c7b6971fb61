"""Plays well, then at its turn AT (argv[1], default 3) writes a message to stderr and exits with status 1."""

import sys

from botlib import answer, good_answer, turns

at = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for n, turn in turns():
    if n == at:
        print(f"crash_bot: giving up at turn {n}", file=sys.stderr, flush=True)
        sys.exit(1)
    answer(good_answer(turn))
