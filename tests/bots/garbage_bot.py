"""At its turn AT (argv[2], default 3) writes garbage: argv[1] is 'bytes' (not UTF-8) or 'words' (a line the
protocol parser rejects)."""

import sys

from botlib import answer, good_answer, turns

kind = sys.argv[1] if len(sys.argv) > 1 else "bytes"
at = int(sys.argv[2]) if len(sys.argv) > 2 else 3
for n, turn in turns():
    if n == at:
        if kind == "bytes":
            sys.stdout.buffer.write(b"\xff\xfe PASS \xc3\x28\n")
            sys.stdout.flush()
        else:
            answer("HELLO WORLD")
        continue
    answer(good_answer(turn))
