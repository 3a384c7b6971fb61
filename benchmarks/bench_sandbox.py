"""What the bot sandbox costs (`locm.sandbox`): per bot start, and in tournament games per second.

1. Start cost: a program that exits at once (``true``) is started and waited for, sandboxed (bubblewrap,
   namespaces, the view, prlimit, and setpriv when run by root: exactly the command a bot gets) and
   unconfined (`--no-sandbox`: setpriv --pdeathsig), alternating, --starts times each; the medians and their
   difference, the sandbox's cost per bot start. ``examples/bot.py`` started until its first answer is timed
   the same way (the interpreter's start-up is most of it, the same in both).
2. Tournament: examples/bot.py against itself (this Python), --games games with --workers workers into a fresh
   store, sandboxed and unconfined alternating, --runs runs each; the median games per second of each and
   their ratio (the goal: the sandbox costs at most 15%), and the sandbox's cost per game (two bot starts).

The load average before the runs is printed: on a shared machine, compare only figures of the same run.

    .venv/bin/python benchmarks/bench_sandbox.py
    .venv/bin/python benchmarks/bench_sandbox.py --starts 100 --games 60 --runs 5 --workers 2 --json
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

from locm.bots import BotAgent, TimeLimits, _unconfined  # noqa: E402
from locm.engine.locm.game import Game  # noqa: E402
from locm.sandbox import UNCONFINED, Sandbox, build, probe  # noqa: E402
from locm.store import open_store  # noqa: E402
from locm.tournament import run_tournament  # noqa: E402

BOT = shlex.join([sys.executable, str(ROOT / "examples" / "bot.py")])


def start_true(sandboxed: bool) -> float:
    """Seconds to start ``true`` as a bot would be started, and see it exit."""
    if sandboxed:
        launch = build(["true"], Sandbox())
        t0 = time.perf_counter()
        subprocess.run(launch.argv, env=launch.env, pass_fds=launch.pass_fds, check=True, start_new_session=True)
        elapsed = time.perf_counter() - t0
        launch.close()
        return elapsed
    t0 = time.perf_counter()
    subprocess.run(_unconfined(["true"]), check=True, start_new_session=True)
    return time.perf_counter() - t0


def start_bot(sandboxed: bool) -> float:
    """Seconds from starting examples/bot.py to its first answer (a draft pick), then it is stopped."""
    game = Game.new("1.2", 1, None)
    bot = BotAgent(BOT, TimeLimits.parse("x50"), sandbox=Sandbox() if sandboxed else UNCONFINED)
    t0 = time.perf_counter()
    bot.play_turn(game, 0)
    elapsed = time.perf_counter() - t0
    bot.stop()
    assert bot.failure is None, bot.failure
    return elapsed


def tournament(sandboxed: bool, games: int, workers: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        with open_store(Path(tmp) / "bench.db") as store:
            t0 = time.perf_counter()
            run = run_tournament(store, "1.2", [BOT, BOT + " 1"], games, workers=workers, seed=seed,
                                 limits=TimeLimits.parse("x5"), sandbox=Sandbox() if sandboxed else UNCONFINED)
            elapsed = time.perf_counter() - t0
            assert run.played == games and not run.failed, run
    return games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=60, help="starts of each kind, each way")
    parser.add_argument("--games", type=int, default=40, help="games per tournament run (even)")
    parser.add_argument("--runs", type=int, default=5, help="tournament runs each way")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not probe().ok:
        sys.exit(f"bench_sandbox: no sandbox here: {probe().reason}")
    load = os.getloadavg()[0]
    times = {k: [] for k in ("true_box", "true_free", "bot_box", "bot_free")}
    start_true(True), start_true(False), start_bot(True), start_bot(False)  # warm: caches, first imports
    for _ in range(args.starts):
        times["true_box"].append(start_true(True))
        times["true_free"].append(start_true(False))
        times["bot_box"].append(start_bot(True))
        times["bot_free"].append(start_bot(False))
    rates = {"box": [], "free": []}
    for i in range(args.runs):
        for way in ("box", "free") if i % 2 == 0 else ("free", "box"):
            rates[way].append(tournament(way == "box", args.games, args.workers, seed=1 + i))
    ms = {k: 1000 * statistics.median(v) for k, v in times.items()}
    box, free = statistics.median(rates["box"]), statistics.median(rates["free"])
    result = {
        "load_before": round(load, 2), "root": os.geteuid() == 0, "starts": args.starts,
        "start_true_ms": {"sandboxed": round(ms["true_box"], 2), "unconfined": round(ms["true_free"], 2),
                          "sandbox_cost": round(ms["true_box"] - ms["true_free"], 2)},
        "start_bot_to_first_answer_ms": {"sandboxed": round(ms["bot_box"], 2), "unconfined": round(ms["bot_free"], 2),
                                         "sandbox_cost": round(ms["bot_box"] - ms["bot_free"], 2)},
        "tournament": {"games": args.games, "runs": args.runs, "workers": args.workers,
                       "games_per_s_sandboxed": round(box, 2), "games_per_s_unconfined": round(free, 2),
                       "sandboxed_over_unconfined": round(box / free, 3),
                       "sandbox_cost_ms_per_game": round(1000 / box - 1000 / free, 1)},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"load average before: {load:.2f}; run as {'root' if result['root'] else 'a user'}")
    t, b, g = result["start_true_ms"], result["start_bot_to_first_answer_ms"], result["tournament"]
    print(f"start of `true`, median of {args.starts}: sandboxed {t['sandboxed']} ms, unconfined {t['unconfined']} ms:"
          f" the sandbox costs {t['sandbox_cost']} ms per bot start")
    print(f"examples/bot.py to its first answer: sandboxed {b['sandboxed']} ms, unconfined {b['unconfined']} ms "
          f"(+{b['sandbox_cost']} ms)")
    print(f"tournament, examples/bot.py against itself, {g['games']} games x {g['runs']} runs, {g['workers']} "
          f"worker(s): sandboxed {g['games_per_s_sandboxed']} games/s, unconfined {g['games_per_s_unconfined']} "
          f"games/s: ratio {g['sandboxed_over_unconfined']} ({g['sandbox_cost_ms_per_game']} ms per game)")


if __name__ == "__main__":
    main()
