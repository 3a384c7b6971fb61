"""Environment steps per second beside gym-locm 2.0.0b1, in one run: medians of alternating rounds, ratios.

    .venv/bin/python benchmarks/bench_rl.py                      # every case, 5 rounds of 4 s each side
    .venv/bin/python benchmarks/bench_rl.py --cases battle-1.2 --rounds 9 --json

Each round runs every case once per engine, each in its own process (`benchmarks/rl_steps.py`), the order of
the two engines alternating from round to round so that a slow spell of the machine hits both. A case is an
environment (``battle``, ``game`` the whole game, ``draft``, ``constructed``), a ruleset, and 0 (a single
environment) or N games vectorised in one process. gym-locm has no environment of the whole game and no
vectorised environment of its own (its games go through Gymnasium's `SyncVectorEnv`): its column says so.
The peer is set up once with ``bash benchmarks/setup_peer.sh``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = HERE / "rl_steps.py"
DEFAULT_PEER = "/work/peer-venv/bin/python"

CASES = {  # name: (env, ruleset, num_envs)
    "battle-1.2": ("battle", "1.2", 0),
    "battle-constructed": ("battle", "constructed", 0),
    "game-1.2": ("game", "1.2", 0),
    "game-constructed": ("game", "constructed", 0),
    "draft-1.2": ("draft", "1.2", 0),
    "constructed": ("constructed", "constructed", 0),
    "battle-1.2-x16": ("battle", "1.2", 16),
    "battle-constructed-x16": ("battle", "constructed", 16),
    "game-1.2-x16": ("game", "1.2", 16),
}
NO_PEER = {"game"}  # gym-locm has no such environment


def run(python: str, engine: str, case: str, seconds: float, seed: int) -> float:
    env, ruleset, n = CASES[case]
    cmd = [python, str(STEPS), "--engine", engine, "--env", env, "--ruleset", ruleset, "--num-envs", str(n),
           "--seconds", str(seconds), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60 + 10 * seconds)
    if proc.returncode != 0:
        raise SystemExit(f"bench_rl: {engine} {case} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["steps_per_s"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--peer-python", default=os.environ.get("PEER_PYTHON", DEFAULT_PEER))
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not Path(args.peer_python).exists():
        print(f"bench_rl: no peer python at {args.peer_python}: run bash benchmarks/setup_peer.sh", file=sys.stderr)
        return 2
    ours = {c: [] for c in args.cases}
    peer = {c: [] for c in args.cases}
    for r in range(args.rounds):
        for case in args.cases:
            order = [("locm", sys.executable, ours), ("gym-locm", args.peer_python, peer)]
            for engine, python, into in (order if r % 2 == 0 else order[::-1]):
                if engine == "gym-locm" and CASES[case][0] in NO_PEER:
                    continue
                into[case].append(run(python, engine, case, args.seconds, seed=1 + r))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    rows = []
    for case in args.cases:
        o = statistics.median(ours[case])
        q = statistics.median(peer[case]) if peer[case] else None
        rows.append({"case": case, "locm_steps_per_s": round(o), "gym_locm_steps_per_s": q and round(q),
                     "ratio": q and round(o / q, 2), "locm_runs": [round(x) for x in ours[case]],
                     "gym_locm_runs": [round(x) for x in peer[case]]})
    if args.json:
        print(json.dumps({"rounds": args.rounds, "seconds": args.seconds, "loadavg": os.getloadavg(),
                          "results": rows}))
        return 0
    print(f"medians of {args.rounds} rounds, {args.seconds:g} s each; load average {os.getloadavg()[0]:.2f}")
    print("| case | locm steps/s | gym-locm steps/s | ratio |")
    print("| --- | --- | --- | --- |")
    for row in rows:
        q = row["gym_locm_steps_per_s"]
        env, _, n = CASES[row["case"]]
        peer_text = "no such environment" if q is None else (f"{q:,}" + (" (SyncVectorEnv)" if n else ""))
        ratio = "" if q is None else f"{row['ratio']:.2f}x"
        print(f"| {row['case']} | {row['locm_steps_per_s']:,} | {peer_text} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
