"""Plays well, then at its turn AT (argv[1], default 3) starts a grandchild and sleeps far past any limit."""

import subprocess
import sys
import time

from botlib import answer, good_answer, turns

at = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for n, turn in turns():
    if n == at:
        # a grandchild in the same process group, to check that the whole group is killed
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "locm-test-grandchild"])
        print(f"sleeping at turn {n}; grandchild pid {child.pid}", file=sys.stderr, flush=True)
        time.sleep(120)
    answer(good_answer(turn))
