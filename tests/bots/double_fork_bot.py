"""Plays well, but first double-forks a daemon: the middle process starts a new session, forks and exits, so
the grandchild is nobody's child and in no group of the bot's; it would sleep for five minutes. The middle
process and the grandchild each append ``BOT_PID PID`` to the file argv[1]; the bot plays only once both
lines are there, so that a test always has the pids to look for."""

import os
import sys
import time

from botlib import answer, good_answer, turns

path, me = sys.argv[1], os.getpid()


def mine() -> int:
    try:
        with open(path) as f:
            return sum(line.split()[0] == str(me) for line in f if line.strip())
    except OSError:
        return 0


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        with open(path, "a") as f:
            f.write(f"{me} {os.getpid()}\n")
        time.sleep(300)
        os._exit(0)
    with open(path, "a") as f:
        f.write(f"{me} {os.getpid()}\n")
    os._exit(0)
deadline = time.monotonic() + 30
while mine() < 2 and time.monotonic() < deadline:
    time.sleep(0.01)
for n, turn in turns():
    answer(good_answer(turn))
