"""The native core side by side with the Python cores and the peer engine gym-locm: full random-vs-random games,
deck building included, the full log kept; medians over rounds of one run, the order rotating within a round.

    .venv/bin/python benchmarks/bench_native.py                      # both rulesets, 5 rounds
    .venv/bin/python benchmarks/bench_native.py --ruleset 1.2 --rounds 3 --json

Sides (each a separate process per round):
  pure      .venv/bin/python -m locm.cli bench --core this, LOCM_CORE=pure (the editable install)
  compiled  .venv-fast/bin/python -m locm.cli bench --core this, LOCM_CORE=compiled (`make fast`)
  native    the same with LOCM_CORE=native: every game a `Game` with its log of msgspec events and its state
  jsonl     .venv-fast, the native core with the log kept as its JSON lines (`engine.locm.native.play_jsonl`):
            no event object past the opening, the bytes a store keeps and hashes
  peer      benchmarks/peer_gymlocm.py under /work/peer-venv (bash benchmarks/setup_peer.sh)
A side whose python is missing is left out, saying so. Ratios are of the medians of this run: of wall-clock
games/s, and of games a second of each process's own CPU time (every side reports it), which a machine shared
with other work disturbs less.

`--inner-jsonl` is the jsonl side's own process (it prints one JSON object, as `locm bench --json` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from compare import DEFAULT_PEER_PYTHON, RunError, _median, ours_cmd, peer_cmd, run_json  # noqa: E402

PURE = REPO / ".venv" / "bin" / "python"
FAST = REPO / ".venv-fast" / "bin" / "python"
GAMES = {"1.2": 1000, "constructed": 600}


def inner_jsonl(ruleset: str, games: int, seed: int) -> dict:
    from locm.engine.corebuild import core
    from locm.engine.locm import native
    from locm.engine.locm.rulesets import by_name
    from locm.engine.locm.setup import preload

    preload(by_name(ruleset))
    logs = []
    t0 = time.perf_counter()
    c0 = time.process_time()
    for k in range(games):
        logs.append(native.play_jsonl(ruleset, seed + k))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    events = sum(b.count(b"\n") for b in logs)
    return {"core": str(core()) + ", log as JSON lines", "ruleset": ruleset, "games": games,
            "seconds": round(elapsed, 4), "cpu_seconds": round(cpu, 4), "games_per_s": round(games / elapsed, 1),
            "events_per_s": round(events / elapsed, 1), "events_per_game": round(events / games, 1)}


def sides(peer_python: str) -> dict[str, tuple[list[str] | None, dict]]:
    """Each side's command maker and environment (None: not available here)."""
    env = dict(os.environ)
    out: dict = {}
    out["pure"] = (str(PURE) if PURE.is_file() else None, dict(env, LOCM_CORE="pure"))
    out["compiled"] = (str(FAST) if FAST.is_file() else None, dict(env, LOCM_CORE="compiled", PYTHONSAFEPATH="1"))
    out["native"] = (str(FAST) if FAST.is_file() else None, dict(env, LOCM_CORE="native", PYTHONSAFEPATH="1"))
    out["jsonl"] = (str(FAST) if FAST.is_file() else None, dict(env, LOCM_CORE="native", PYTHONSAFEPATH="1"))
    out["peer"] = (peer_python if Path(peer_python).is_file() else None, env)
    return out


def measure(ruleset: str, games: int, rounds: int, seed: int, peer_python: str, timeout: float,
            verbose: bool) -> dict:
    available = {k: v for k, v in sides(peer_python).items() if v[0] is not None}
    missing = sorted(set(sides(peer_python)) - set(available))
    order = list(available)
    runs: dict[str, list[dict]] = {k: [] for k in order}
    for r in range(rounds):
        for side in order[r % len(order):] + order[:r % len(order)]:
            python, env = available[side]
            if side == "peer":
                cmd = peer_cmd(python, ruleset, games, seed)
            elif side == "jsonl":
                cmd = [python, str(Path(__file__).resolve()), "--inner-jsonl", "--ruleset", ruleset,
                       "--games", str(games), "--seed", str(seed)]
            else:
                cmd = ours_cmd(ruleset, games, python)
            result = run_json(cmd, side, timeout, env=env)
            if side in ("pure", "compiled", "native") and side.replace("native", "native C++") not in str(
                    result.get("core")).replace("compiled by mypyc", "compiled").replace("pure Python", "pure"):
                raise RunError(f"{side}: the run reports {result.get('core')!r}")
            runs[side].append(result)
            if verbose:
                print(f"  [{ruleset} round {r + 1}/{rounds}] {side}: {result.get('games_per_s')} games/s",
                      file=sys.stderr)
    out: dict = {"ruleset": ruleset, "games": games, "rounds": rounds, "missing": missing}
    for side, rs in runs.items():
        out[side] = {"games_per_s": _median(x.get("games_per_s") for x in rs),
                     "games_per_s_runs": [x.get("games_per_s") for x in rs],
                     "core": rs[0].get("core", rs[0].get("engine"))}
        if all(x.get("cpu_seconds") for x in rs):  # games per second of the process's own CPU time
            out[side]["games_per_cpu_s"] = _median(round(x["games"] / x["cpu_seconds"], 1) for x in rs)
    gps = {side: out[side]["games_per_s"] for side in runs}
    out["ratios"] = _ratios(gps)
    cpu = {side: out[side]["games_per_cpu_s"] for side in runs if "games_per_cpu_s" in out[side]}
    if len(cpu) == len(runs):
        out["cpu_ratios"] = _ratios(cpu)
    return out


def _ratios(gps: dict) -> dict:
    return {f"{a}/{b}": round(gps[a] / gps[b], 2) for a in ("native", "jsonl", "compiled", "pure")
            for b in ("peer", "compiled", "pure") if a in gps and b in gps and a != b and gps[b]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", choices=["1.2", "constructed", "both"], default="both")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peer-python", default=DEFAULT_PEER_PYTHON)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--inner-jsonl", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner_jsonl:
        print(json.dumps(inner_jsonl(args.ruleset, args.games, args.seed)))
        return 0
    results = []
    for ruleset in (["1.2", "constructed"] if args.ruleset == "both" else [args.ruleset]):
        results.append(measure(ruleset, args.games or GAMES[ruleset], args.rounds, args.seed, args.peer_python,
                               args.timeout, not args.json))
    load = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps({"loadavg": load, "results": results}, indent=1))
        return 0
    for res in results:
        print(f"{res['ruleset']}: {res['games']} games x {res['rounds']} rounds (medians, games/s)")
        for side in ("peer", "pure", "compiled", "native", "jsonl"):
            if side in res:
                cpu = res[side].get("games_per_cpu_s")
                print(f"  {side:9} {res[side]['games_per_s']:>10,.1f}   runs {res[side]['games_per_s_runs']}"
                      + (f"   a CPU second: {cpu:,.1f}" if cpu else ""))
        print("  ratios   " + ", ".join(f"{k} {v}x" for k, v in res["ratios"].items()))
        if "cpu_ratios" in res:
            print("  of CPU time   " + ", ".join(f"{k} {v}x" for k, v in res["cpu_ratios"].items()))
        if res["missing"]:
            print(f"  not measured (not set up here): {', '.join(res['missing'])}")
    print(f"load average after: {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
