"""Says on stderr how many inputs it has received (``inputs: N``, once per input), and plays like good_bot."""

import sys

from botlib import answer, good_answer, turns

for n, turn in turns():
    print(f"inputs: {n + 1}", file=sys.stderr, flush=True)
    answer(good_answer(turn))
