"""Plays well, then at its turn AT (argv[1], default 3) exits cleanly (status 0) without answering."""

import sys

from botlib import answer, good_answer, turns

at = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for n, turn in turns():
    if n == at:
        sys.exit(0)
    answer(good_answer(turn))
