"""Plays well, then at its second turn writes terminal escapes to stderr (clipboard write, window title,
screen clear) and exits with status 1: what it wrote must reach a terminal only escaped."""

import sys

from botlib import answer, good_answer, turns

for n, turn in turns():
    if n == 2:
        sys.stderr.write("\x1b]52;c;cm0gLXJmIH4K\x07\x1b]0;owned\x07\x1b[2J\x9b31m\r\u202egnirts\n")
        sys.stderr.flush()
        sys.exit(1)
    answer(good_answer(turn))
