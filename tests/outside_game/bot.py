"""A command-line bot for outside-nim, standalone (no imports beyond the standard library): each turn it reads
``SEAT PLAYERS PASS H0 H1 ...`` and answers ``HEAP COUNT``, the move to a nim-sum of 0 when there is one, else
one stone from the largest heap."""

import sys


def answer(heaps: list[int]) -> str:
    total = 0
    for h in heaps:
        total ^= h
    for i, h in enumerate(heaps):
        if h and total ^ h < h:
            return f"{i} {h - (total ^ h)}"
    big = max(range(len(heaps)), key=lambda i: heaps[i])
    return f"{big} 1"


for line in sys.stdin:
    words = [int(w) for w in line.split()]
    print(answer(words[3:]), flush=True)
