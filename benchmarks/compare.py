"""Side-by-side throughput: our engine vs the peer engine gym-locm 2.0.0b1.

Run with OUR venv's python from anywhere:

    .venv/bin/python benchmarks/compare.py                       # both rulesets
    .venv/bin/python benchmarks/compare.py --ruleset 1.2 --rounds 5 --json
    .venv/bin/python benchmarks/compare.py --peer-only           # peer half only
    .venv/bin/python benchmarks/compare.py --no-compiled         # without the compiled build

With the compiled build of `make fast` present (.venv-fast/, or --compiled-python), each round also runs
  (c) compiled: <that python> -m locm.cli.main bench --core this ... (PYTHONSAFEPATH=1, so that the checkout's
      locm/ folder does not shadow the installed build; the run checks it reports the compiled core)
and "ours" is the interpreted core of this python (`--core this`).

For each ruleset it runs K rounds (default 5); each round runs, one after the
other in separate processes,
  (a) ours:  <this python> -m locm.cli.main bench --ruleset R --games N --json
             (cwd = repo root; prints a JSON object with at least
             games_per_s, events_per_s, rebuild_ms)
  (b) peer:  <peer python> benchmarks/peer_gymlocm.py --ruleset R --games N --seed S
The order inside a round rotates (ours, compiled, peer; then compiled, peer,
ours; ...) so slow drifts of the machine hit every side alike.  Reported figures
are medians over the K rounds; the ratio ours/peer is computed from the two
medians of this same invocation (and, in --json, also as the median of the
per-round ratios).

If the peer python is missing, prints one line pointing to
benchmarks/setup_peer.sh and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PEER_SCRIPT = HERE / "peer_gymlocm.py"
DEFAULT_PEER_PYTHON = "/work/peer-venv/bin/python"
DEFAULT_COMPILED_PYTHON = str(REPO / ".venv-fast" / "bin" / "python")
DEFAULT_GAMES = {"1.2": 300, "constructed": 100}
RULESETS = ("1.2", "constructed")


class RunError(RuntimeError):
    pass


def _last_json_object(text: str) -> dict:
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return obj
    # Perhaps pretty-printed over several lines.
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        return obj
    raise RunError("no JSON object in output")


def run_json(cmd: list[str], label: str, timeout: float, env: dict | None = None) -> dict:
    try:
        proc = subprocess.run(
            cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        raise RunError(f"{label}: timed out after {timeout:.0f}s: {' '.join(cmd)}")
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise RunError(
            f"{label}: exit {proc.returncode}: {' '.join(cmd)}\n  " + "\n  ".join(tail)
        )
    try:
        return _last_json_object(proc.stdout)
    except RunError:
        raise RunError(f"{label}: no JSON object on stdout of {' '.join(cmd)}")


def ours_cmd(ruleset: str, games: int, python: str = sys.executable) -> list[str]:
    return [python, "-m", "locm.cli.main", "bench", "--core", "this",
            "--ruleset", ruleset, "--games", str(games), "--json"]


def peer_cmd(peer_python: str, ruleset: str, games: int, seed: int) -> list[str]:
    return [peer_python, str(PEER_SCRIPT),
            "--ruleset", ruleset, "--games", str(games), "--seed", str(seed)]


def _wall_over_cpu(runs):
    # Runs that report both `seconds` (wall) and `cpu_seconds`: a ratio well
    # above ~1.05 means other processes were competing for the CPU then.
    out = []
    for r in runs:
        w, c = r.get("seconds"), r.get("cpu_seconds")
        ok = isinstance(w, (int, float)) and isinstance(c, (int, float)) and c > 0
        out.append(round(w / c, 3) if ok else None)
    return out


def _median(values):
    values = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def _side(runs: list[dict]) -> dict:
    return {
        "games_per_s": _median(r.get("games_per_s") for r in runs),
        "events_per_s": _median(r.get("events_per_s") for r in runs),
        "rebuild_ms": _median(r.get("rebuild_ms") for r in runs),
        "core": runs[0].get("core") if runs else None,
        "games_per_s_runs": [r.get("games_per_s") for r in runs],
        "wall_over_cpu_runs": _wall_over_cpu(runs),
    }


def _per_round(a_runs: list[dict], b_runs: list[dict]):
    return _median(a["games_per_s"] / b["games_per_s"] for a, b in zip(a_runs, b_runs)
                   if isinstance(a.get("games_per_s"), (int, float))
                   and isinstance(b.get("games_per_s"), (int, float)) and b["games_per_s"] > 0)


def measure(ruleset: str, games: int, rounds: int, seed: int, peer_python: str,
            peer_only: bool, timeout: float, verbose: bool, compiled_python: str | None = None) -> dict:
    ours_runs: list[dict] = []
    compiled_runs: list[dict] = []
    peer_runs: list[dict] = []
    order = ["ours"] + (["compiled"] if compiled_python and not peer_only else []) + ["peer"]
    for k in range(rounds):
        sides = order[k % len(order):] + order[:k % len(order)]
        for side in sides:
            if side == "ours":
                if peer_only:
                    continue
                r = run_json(ours_cmd(ruleset, games), "ours", timeout)
                if "pure" not in str(r.get("core")):
                    raise RunError(f"ours: expected the interpreted core, the run reports {r.get('core')!r}")
                ours_runs.append(r)
            elif side == "compiled":
                assert compiled_python is not None
                r = run_json(ours_cmd(ruleset, games, compiled_python), "compiled", timeout,
                             env=dict(os.environ, PYTHONSAFEPATH="1"))
                if "compiled" not in str(r.get("core")):
                    raise RunError(f"compiled: {compiled_python} runs {r.get('core')!r}, not a compiled core")
                compiled_runs.append(r)
            else:
                r = run_json(peer_cmd(peer_python, ruleset, games, seed), "peer", timeout)
                peer_runs.append(r)
            if verbose:
                print(f"  [{ruleset} round {k + 1}/{rounds}] {side}: "
                      f"{r.get('games_per_s')} games/s", file=sys.stderr)

    peer_gps = _median(r.get("games_per_s") for r in peer_runs)
    result = {
        "ruleset": ruleset,
        "games": games,
        "rounds": rounds,
        "peer": {
            "engine": peer_runs[0].get("engine") if peer_runs else None,
            "games_per_s": peer_gps,
            "games_per_s_runs": [r.get("games_per_s") for r in peer_runs],
            "wall_over_cpu_runs": _wall_over_cpu(peer_runs),
            "mean_turns": peer_runs[0].get("mean_turns") if peer_runs else None,
        },
    }
    if not peer_only:
        result["ours"] = _side(ours_runs)
        ours_gps = result["ours"]["games_per_s"]
        result["ratio_ours_over_peer"] = (
            ours_gps / peer_gps if ours_gps is not None and peer_gps else None
        )
        result["ratio_median_per_round"] = _per_round(ours_runs, peer_runs)
    if compiled_runs:
        result["compiled"] = _side(compiled_runs)
        gps = result["compiled"]["games_per_s"]
        result["ratio_compiled_over_peer"] = gps / peer_gps if gps is not None and peer_gps else None
        result["ratio_compiled_over_peer_median_per_round"] = _per_round(compiled_runs, peer_runs)
        result["ratio_compiled_over_ours_median_per_round"] = _per_round(compiled_runs, ours_runs)
    return result


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def print_table(results: list[dict], peer_only: bool) -> None:
    if results:
        r0 = results[0]
        print(f"medians of {r0['rounds']} rounds; games = games per run")
    if peer_only:
        print(f"{'ruleset':<12} {'games':>6} {'peer games/s':>13} {'peer turns':>10}")
        for r in results:
            print(f"{r['ruleset']:<12} {r['games']:>6} "
                  f"{_fmt(r['peer']['games_per_s']):>13} "
                  f"{_fmt(r['peer']['mean_turns']):>10}")
        return
    print(f"{'ruleset':<12} {'games':>6} {'ours games/s':>13} {'peer games/s':>13} "
          f"{'ours/peer':>10} {'ours events/s':>14} {'rebuild ms':>11}")
    for r in results:
        o, p = r["ours"], r["peer"]
        print(f"{r['ruleset']:<12} {r['games']:>6} {_fmt(o['games_per_s']):>13} "
              f"{_fmt(p['games_per_s']):>13} "
              f"{_fmt(r['ratio_ours_over_peer'], '.2f') + 'x':>10} "
              f"{_fmt(o['events_per_s'], '.0f'):>14} {_fmt(o['rebuild_ms'], '.2f'):>11}")
    compiled = [r for r in results if "compiled" in r]
    if compiled:
        print(f"compiled core ({compiled[0]['compiled']['core']}), same rounds:")
        print(f"{'ruleset':<12} {'games/s':>13} {'compiled/peer':>14} {'per round':>10} {'compiled/ours':>14}")
        for r in compiled:
            print(f"{r['ruleset']:<12} {_fmt(r['compiled']['games_per_s']):>13} "
                  f"{_fmt(r['ratio_compiled_over_peer'], '.2f') + 'x':>14} "
                  f"{_fmt(r['ratio_compiled_over_peer_median_per_round'], '.2f') + 'x':>10} "
                  f"{_fmt(r['ratio_compiled_over_ours_median_per_round'], '.2f') + 'x':>14}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Compare locm and gym-locm 2.0.0b1 throughput (medians of K rounds)."
    )
    p.add_argument("--ruleset", choices=["1.2", "constructed", "all"], default="all")
    p.add_argument("--games", type=int, default=None,
                   help="games per run (default: 300 for 1.2, 100 for constructed)")
    p.add_argument("--rounds", "-k", type=int, default=5, help="rounds K (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed for the peer runs")
    p.add_argument("--peer-python", default=DEFAULT_PEER_PYTHON,
                   help=f"python of the peer venv (default {DEFAULT_PEER_PYTHON})")
    p.add_argument("--compiled-python", default=DEFAULT_COMPILED_PYTHON,
                   help="python of the compiled build (default: .venv-fast/bin/python, from `make fast`, "
                        "measured when present)")
    p.add_argument("--no-compiled", action="store_true", help="do not measure the compiled build")
    p.add_argument("--peer-only", action="store_true",
                   help="measure only the peer (skip `locm bench`)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds allowed per single run (default 600)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", "-q", action="store_true", help="no per-run progress")
    args = p.parse_args(argv)

    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    peer_python = args.peer_python
    if not (os.path.isfile(peer_python) and os.access(peer_python, os.X_OK)):
        print(f"peer python not found: {peer_python} "
              f"(run: bash benchmarks/setup_peer.sh, or pass --peer-python)")
        return 2

    compiled_python = None
    if not args.no_compiled and os.path.isfile(args.compiled_python):
        compiled_python = args.compiled_python
    elif not args.no_compiled and args.compiled_python != DEFAULT_COMPILED_PYTHON:
        print(f"compiled python not found: {args.compiled_python} (run: make fast)")
        return 2

    load_before = _loadavg()
    rulesets = RULESETS if args.ruleset == "all" else (args.ruleset,)
    results = []
    try:
        for ruleset in rulesets:
            games = args.games or DEFAULT_GAMES[ruleset]
            results.append(measure(ruleset, games, args.rounds, args.seed, peer_python,
                                   args.peer_only, args.timeout, not args.quiet, compiled_python))
    except RunError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps({
            "peer_python": peer_python,
            "ours_python": sys.executable,
            "compiled_python": compiled_python,
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "statistic": f"median of {args.rounds} rounds",
            "loadavg_before": load_before,
            "loadavg_after": _loadavg(),
            "results": results,
        }))
    else:
        print_table(results, args.peer_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
