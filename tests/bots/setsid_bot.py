"""Plays well, but first starts a child in a new session (``setsid``), out of its process group, that would
sleep for five minutes; ``BOT_PID CHILD_PID`` is appended to the file argv[1]."""

import os
import subprocess
import sys

from botlib import answer, good_answer, turns

child = subprocess.Popen(["sleep", "300"], start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
for n, turn in turns():
    answer(good_answer(turn))
