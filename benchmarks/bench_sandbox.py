"""What the bot sandbox (`locm.runner.sandbox.bwrap`) costs: per bot start, and in tournament games per second.

1. Start cost, median of --starts, the ways alternating: a program that exits at once (``true``) started and
   waited for (a) in a sandbox of its own (bubblewrap, namespaces, the view, prlimit, setpriv when run by
   root: what `locm play` and `locm serve` give each bot), (b) as a game in a sandbox kept across games (what
   a tournament's workers do, `locm.runner.sandbox.kept`; run by a user, each game in a user namespace of its own;
   from the request to the launcher's word that nothing of the game is left; with its cgroup,
   `locm.runner.sandbox.cgroup`, and in a second kept sandbox that never had one, and the cgroup's making and
   removal alone), (c) unconfined (`--no-sandbox`: setpriv
   --pdeathsig); each sandbox's cost is its difference with (c). ``examples/bot.py`` started until its first
   answer is timed the same three ways (the interpreter's start-up is most of it, the same in all).
2. Tournament: examples/bot.py against itself (this Python), --games games with --workers workers into a fresh
   store, sandboxed (as `locm tournament` does: kept sandboxes) and unconfined alternating,
   --runs runs each: the median games per second of each and their ratio (the goal: the sandbox costs at most
   15%), the median of each round's ratio (a round is one run each way, back to back: steadier when the
   machine's other load drifts), and the sandbox's cost per game. (CPU time is not measured here: a process killed with its PID
   namespace is counted in no parent's ``RUSAGE_CHILDREN``; ``perf stat -e task-clock`` counts every process
   of a run, see benchmarks/README.md.)

--user NAME (run by root) runs the whole benchmark as that user (`locm.runner.sandbox.user`: the runner is not root,
bots get user namespaces), to compare with a run as root.

The load average before and after is printed: on a shared machine, compare only figures of the same run.

    .venv/bin/python benchmarks/bench_sandbox.py
    .venv/bin/python benchmarks/bench_sandbox.py --starts 60 --games 40 --runs 5 --workers 1 --json
    .venv/bin/python benchmarks/bench_sandbox.py --starts 60 --games 40 --runs 5 --user nobody
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from locm.runner.sandbox import cgroup as sandbox_cgroup  # noqa: E402
from locm.runner.sandbox import kept as sandbox_kept  # noqa: E402
from locm.runner.bots import BotAgent, TimeLimits  # noqa: E402
from locm.runner.processes import unconfined  # noqa: E402
from locm.engine.locm.game import Game  # noqa: E402
from locm.runner.sandbox.bwrap import UNCONFINED, Sandbox, bot_environment, build, probe  # noqa: E402
from locm.runner.sandbox.user import RunAsError, as_user  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402
from locm.games.locm.tournament import run_tournament  # noqa: E402

BOT = shlex.join([sys.executable, str(ROOT / "examples" / "bot.py")])
WAYS = ("own", "kept", "free")


def start_true(way: str, kept: sandbox_kept.KeptSandbox | None) -> float:
    """Seconds to start ``true`` as a bot would be started, and see it end (a kept sandbox: and clean)."""
    if way == "own":
        launch = build(["true"], Sandbox())
        t0 = time.perf_counter()
        subprocess.run(launch.argv, env=launch.env, pass_fds=launch.pass_fds, check=True, start_new_session=True)
        elapsed = time.perf_counter() - t0
        launch.close()
        return elapsed
    if way in ("kept", "kept-no-cgroup"):
        made = sandbox_cgroup.make
        if way == "kept-no-cgroup":
            sandbox_cgroup.make = lambda memory, procs: None
        t0 = time.perf_counter()
        stdin, stdout, stderr = kept.start(bot_environment(Sandbox().limits))
        os.close(stdin)
        while os.read(stdout, 4096):
            pass
        status = kept.exit_status(time.monotonic() + 10)
        clean = kept.finish()
        elapsed = time.perf_counter() - t0
        os.close(stdout)
        os.close(stderr)
        sandbox_cgroup.make = made
        assert status == 0 and clean, (status, clean)
        return elapsed
    if way == "cgroup":  # a bot's cgroup made, its limits written, and removed: what a start adds
        t0 = time.perf_counter()
        group = sandbox_cgroup.make(Sandbox().limits.mem, Sandbox().limits.procs)
        group.remove()
        return time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run(unconfined(["true"]), check=True, start_new_session=True)
    return time.perf_counter() - t0


def start_bot(way: str) -> float:
    """Seconds from starting examples/bot.py to its first answer (a draft pick), then it is stopped."""
    sandbox_kept.keep(way == "kept")
    try:
        game = Game.new("1.2", 1, None)
        bot = BotAgent(BOT, TimeLimits.parse("x50"), sandbox=UNCONFINED if way == "free" else Sandbox())
        t0 = time.perf_counter()
        bot.play_turn(game, 0)
        elapsed = time.perf_counter() - t0
        bot.stop()
        assert bot.failure is None, bot.failure
    finally:
        sandbox_kept.keep(False)
    return elapsed


def tournament(sandboxed: bool, games: int, workers: int, seed: int) -> float:
    """Games per second of one tournament."""
    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "bench.db") as store:
            t0 = time.perf_counter()
            run = run_tournament(store, "1.2", [BOT, BOT + " 1"], games, workers=workers, seed=seed,
                                 limits=TimeLimits.parse("x5"), sandbox=Sandbox() if sandboxed else UNCONFINED)
            elapsed = time.perf_counter() - t0
            assert run.played == games and not run.failed, run
    return games / elapsed


def as_another_user(user: str, args: argparse.Namespace) -> None:
    """Run this benchmark again as ``user`` (with the other arguments given) and exit with its status."""
    argv = [f"--starts={args.starts}", f"--games={args.games}", f"--runs={args.runs}", f"--workers={args.workers}",
            *(["--json"] if args.json else [])]
    try:
        command = as_user([sys.executable, str(Path(__file__).resolve()), *argv], user, extra=(str(ROOT),))
    except RunAsError as exc:
        sys.exit(f"bench_sandbox: {exc}")
    with tempfile.TemporaryDirectory(prefix="locm-bench-") as home:
        os.chmod(home, 0o777)  # its stores and the bots' folder are made there
        sys.exit(subprocess.run(command, cwd=home, env={**os.environ, "HOME": home, "TMPDIR": home}).returncode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=60, help="starts of each kind, each way")
    parser.add_argument("--games", type=int, default=40, help="games per tournament run (even)")
    parser.add_argument("--runs", type=int, default=5, help="tournament runs each way")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--user", metavar="NAME", help="run as this user (run by root): a runner that is not root")
    args = parser.parse_args()
    if args.user:
        as_another_user(args.user, args)
    if not probe().ok:
        sys.exit(f"bench_sandbox: no sandbox here: {probe().reason}")
    load = os.getloadavg()[0]
    keeps = sandbox_kept.can_keep(Sandbox())
    ways = WAYS if keeps else ("own", "free")
    kept = sandbox_kept.KeptSandbox(["true"], Sandbox(), os.getcwd()) if keeps else None
    plain = sandbox_kept.KeptSandbox(["true"], Sandbox(), os.getcwd()) if keeps else None  # never gets a cgroup
    true_ways = ways + (("kept-no-cgroup",) if keeps else ()) + (("cgroup",) if sandbox_cgroup.available() else ())
    times = {(kind, way): [] for kind in ("true", "bot") for way in (true_ways if kind == "true" else ways)}
    try:
        for way in ways:  # warm: caches, first imports, the kept sandbox's launcher
            start_true(way, kept), start_bot(way)
        if plain is not None:
            start_true("kept-no-cgroup", plain)
        for i in range(args.starts):
            for way in true_ways if i % 2 == 0 else true_ways[::-1]:
                times["true", way].append(start_true(way, plain if way == "kept-no-cgroup" else kept))
            for way in ways if i % 2 == 0 else ways[::-1]:
                times["bot", way].append(start_bot(way))
    finally:
        if kept is not None:
            kept.destroy()
            plain.destroy()
        sandbox_kept.close_all()
    rates = {"box": [], "free": []}
    for i in range(args.runs):
        for way in ("box", "free") if i % 2 == 0 else ("free", "box"):
            rates[way].append(tournament(way == "box", args.games, args.workers, seed=1 + i))
    ms = {k: 1000 * statistics.median(v) for k, v in times.items()}
    box, free = statistics.median(rates["box"]), statistics.median(rates["free"])
    result = {
        "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2), "root": os.geteuid() == 0,
        "starts": args.starts,
        "start_true_ms": {w: round(ms["true", w], 2) for w in true_ways},
        "start_bot_to_first_answer_ms": {w: round(ms["bot", w], 2) for w in ways},
        "sandbox_cost_per_start_ms": {w: round(ms["true", w] - ms["true", "free"], 2) for w in ways if w != "free"},
        "tournament": {"games": args.games, "runs": args.runs, "workers": args.workers,
                       "sandbox": "kept per bot across games" if keeps else "one per bot and game",
                       "games_per_s_sandboxed": round(box, 2), "games_per_s_unconfined": round(free, 2),
                       "runs_sandboxed": [round(r, 2) for r in rates["box"]],
                       "runs_unconfined": [round(r, 2) for r in rates["free"]],
                       "sandboxed_over_unconfined": round(box / free, 3),
                       "median_round_ratio": round(statistics.median(b / f for b, f in zip(rates["box"],
                                                                                       rates["free"])), 3),
                       "sandbox_cost_ms_per_game": round(1000 / box - 1000 / free, 1)},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"load average before: {load:.2f}, after: {result['load_after']:.2f}; run as "
          f"{'root' if result['root'] else 'a user'}")
    name = {"own": "a sandbox of its own", "kept": "a kept sandbox", "free": "unconfined",
            "kept-no-cgroup": "a kept sandbox without the cgroup", "cgroup": "the cgroup alone (made, removed)"}
    t, b, g = result["start_true_ms"], result["start_bot_to_first_answer_ms"], result["tournament"]
    print(f"start of `true`, median of {args.starts}: " + ", ".join(f"{name[w]} {t[w]} ms" for w in true_ways))
    for w, cost in result["sandbox_cost_per_start_ms"].items():
        print(f"  the sandbox costs {cost} ms per bot start in {name[w]}")
    print("examples/bot.py to its first answer: " + ", ".join(f"{name[w]} {b[w]} ms" for w in ways))
    print(f"tournament, examples/bot.py against itself ({g['sandbox']}), {g['games']} games x {g['runs']} runs, "
          f"{g['workers']} worker(s): sandboxed {g['games_per_s_sandboxed']} games/s {g['runs_sandboxed']}, "
          f"unconfined {g['games_per_s_unconfined']} games/s {g['runs_unconfined']}: ratio "
          f"{g['sandboxed_over_unconfined']} ({g['sandbox_cost_ms_per_game']} ms per game); median of the rounds' "
          f"ratios (each round one run each way, back to back) {g['median_round_ratio']}")


if __name__ == "__main__":
    main()
