"""Where a bot start's CPU goes, by program: ``perf record`` of --starts starts of ``true`` in each way -- a
sandbox of its own (bubblewrap, setpriv, prlimit), a game in a kept sandbox (`locm.runner.sandbox.kept`: the launcher
and the game's first process are the runner's Python), unconfined (setpriv --pdeathsig) -- and CPU
milliseconds per start of each program of the run's process tree (``perf report --sort comm``; "python" is this
script). Kernel threads are not in the tree: the network namespaces' teardown (``cleanup_net`` in a kworker)
is not counted; `perf record -a` shows it, with every other process of the machine.

Needs ``perf`` (linux-perf) and permission to use it (root, or kernel.perf_event_paranoid <= 1).

    .venv/bin/python benchmarks/profile_sandbox.py --starts 100
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WAYS = ("own", "kept", "free")


def child(way: str, starts: int) -> None:
    """The profiled process: ``starts`` starts of ``true`` in one way (bench_sandbox's)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_sandbox import start_true

    from locm.runner.sandbox.bwrap import Sandbox
    from locm.runner.sandbox.kept import KeptSandbox

    kept = KeptSandbox(["true"], Sandbox(), os.getcwd()) if way == "kept" else None
    try:
        for _ in range(starts):
            start_true(way, kept)
    finally:
        if kept is not None:
            kept.destroy()


def profile(way: str, starts: int) -> dict[str, float]:
    """CPU milliseconds per start of each program (comm) of the profiled tree."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-q", "-F", "4000", "-o", data, "--", sys.executable, __file__,
                        "--child", way, "--starts", str(starts)], check=True, stdout=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "--sort", "comm", "--stdio", "-F", "comm,period"],
                                capture_output=True, text=True, check=True).stdout
    out = {}
    for line in report.splitlines():
        m = re.match(r"\s*(\S.*?)\s+(\d+)\s*$", line)
        if m and not line.startswith("#"):
            out[m.group(1)] = int(m.group(2)) / 1e6 / starts  # cpu-clock periods are nanoseconds
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=100)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.starts)
        return
    if shutil.which("perf") is None:
        sys.exit("profile_sandbox: perf is not installed (apt-get install linux-perf)")
    print(f"load average before: {os.getloadavg()[0]:.2f}; CPU ms per start of `true`, by program "
          f"({args.starts} starts each way)")
    for way in WAYS:
        found = profile(way, args.starts)
        total = sum(found.values())
        parts = ", ".join(f"{comm} {ms:.2f}" for comm, ms in sorted(found.items(), key=lambda kv: -kv[1]) if ms >= 0.05)
        print(f"  {way:5s} total {total:.2f}: {parts}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
