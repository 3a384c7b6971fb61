"""At its turn AT (argv[1], default 3) writes megabytes without a newline."""

import sys

from botlib import answer, good_answer, turns

at = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for n, turn in turns():
    if n == at:
        block = b"A" * 65536
        for _ in range(64):  # 4 MiB; the runner stops reading long before and kills us
            sys.stdout.buffer.write(block)
            sys.stdout.flush()
    answer(good_answer(turn))
