"""The tournament outlives its workers (`locm.tournament.pool.Supervision`): a worker that dies, is stopped or is stuck
is noticed, killed and replaced; the game it was playing is played again once, then recorded as failed; the
tournament always ends, or stops with one line. The attacks on the worker come from an unconfined bot
(tests/bots/hostile_bot.py ``worker``, run with the sandbox off: sandboxed, it cannot reach its worker, see
tests/test_hostile.py) or from a faulty worker function given to `_pool`.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from locm.runner.bots import TimeLimits
from locm.errors import TournamentError
from locm.runner.sandbox.bwrap import UNCONFINED
from locm.store.eventstore import open_store
from locm.games.locm.tournament import check_stored_game, schedule
from locm.tournament.pool import Supervision
from locm.tournament.run import _pool, play_job, play_jobs

BOTS = Path(__file__).resolve().parent / "bots"
QUICK = Supervision(heartbeat_s=0.1, grace_s=1.0, start_s=60)


def hostile(sig: str, marker: str) -> str:
    return shlex.join([sys.executable, str(BOTS / "hostile_bot.py"), "worker", sig, marker])


def marked(marker: str) -> list[int]:
    """Live processes with ``marker`` in their command line."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state not in "ZX":
            found.append(int(entry))
    return found


def gone(marker: str, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while marked(marker) and time.monotonic() < end:
        time.sleep(0.05)
    return not marked(marker)


@pytest.mark.parametrize("sig, why", [("SIGKILL", "ended (exit -9)"), ("SIGTERM", "ended (exit 1)"),
                                      ("SIGSTOP", "gave no sign of life for")])
def test_a_bot_that_kills_or_stops_its_worker_loses_the_worker_not_the_tournament(tmp_path, sig, why):
    marker = f"marker-{os.getpid()}-{time.monotonic_ns()}"
    bad = hostile(sig, marker)
    jobs = schedule("1.2", [bad, "greedy", "random"], 2, 1)  # 6 games, 4 of them with the bad bot
    incidents = []
    with open_store(tmp_path / "t.db") as store:
        run = play_jobs(store, jobs, workers=2, limits=TimeLimits.parse("x5"), sandbox=UNCONFINED,
                        supervision=QUICK, on_incident=incidents.append)
        records = list(store.games())
        assert all(check_stored_game(store, r) is None for r in records)
    bad_games = {j.game_id for j in jobs if bad in (j.agent0, j.agent1)}
    assert {r.game_id for r in records} == {j.game_id for j in jobs} - bad_games  # the others all stored
    assert {gid for gid, _ in run.failed} == bad_games and run.played == 2
    for _, message in run.failed:
        assert message.startswith("its worker was lost 2 times while playing it (last: ") and why in message
    assert len(incidents) == 2 * len(bad_games) == len(run.incidents)
    assert sum("will be played again" in line for line in incidents) == len(bad_games)
    assert gone(marker), f"left: {marked(marker)}"


def stuck_on_seed_1(conn, parent, limits, sandbox, heartbeat_s):
    """A faulty worker: alive (its heartbeat goes on) but stuck on any game of seed 1; plays the others."""
    from locm.runner.processes import die_with_parent

    die_with_parent(parent)
    conn.send(("beat", 0))
    while (job := conn.recv()) is not None:
        while job.seed == 1:
            conn.send(("beat", 0))  # no turn played, ever
            time.sleep(heartbeat_s)
        conn.send(play_job(job, limits, sandbox))


def dies_at_once(conn, parent, limits, sandbox, heartbeat_s):
    os._exit(3)


def test_a_stuck_worker_is_replaced_and_its_game_failed_after_two_starts():
    jobs = [j for j in schedule("1.2", ["greedy", "random"], 4, 1) if j.seed == 2 or j.agent0 == "greedy"]
    t0 = time.monotonic()
    out = list(_pool(iter(jobs), 1, TimeLimits.parse("x0.01"), UNCONFINED, QUICK, target=stuck_on_seed_1))
    games = [gid for kind, gid, _, _ in out if kind == "game"]
    failed = {gid: msg for kind, gid, msg, _ in out if kind == "failed"}
    incidents = [msg for kind, _, msg, _ in out if kind == "incident"]
    assert sorted(games) == sorted(j.game_id for j in jobs if j.seed == 2)
    assert sorted(failed) == sorted(j.game_id for j in jobs if j.seed == 1)
    assert all("played no turn for" in m and "(stuck)" in m for m in failed.values())
    assert len(incidents) == 2 and "will be played again" in incidents[0]
    assert time.monotonic() - t0 < 60


def test_workers_that_keep_dying_stop_the_tournament_with_one_line(tmp_path):
    jobs = schedule("1.2", ["greedy", "random"], 4, 1)
    with pytest.raises(TournamentError) as info:
        list(_pool(iter(jobs), 1, TimeLimits(), UNCONFINED, QUICK, target=dies_at_once))
    assert str(info.value) == "stopped: 5 workers in a row were lost before they started (the last one ended (exit 3))"


def test_a_worker_dies_with_its_parent_even_when_stopped(tmp_path):
    """`die_with_parent`: SIGKILL of the parent kills a stopped child at once (no watchdog can run in it)."""
    import signal
    import subprocess

    marker = f"orphan-{os.getpid()}-{time.monotonic_ns()}"
    code = ("import os, signal, subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import os, sys, time\\n"
            "from locm.runner.processes import die_with_parent\\n"
            "die_with_parent(int(sys.argv[1]))\\nprint(flush=True)\\ntime.sleep(60)', str(os.getpid()), sys.argv[1]],"
            " stdout=subprocess.PIPE)\n"
            "child.stdout.readline()\nos.kill(child.pid, signal.SIGSTOP)\nprint(child.pid, flush=True)\n"
            "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code, marker], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert child in marked(marker)
    parent.kill()
    parent.wait()
    parent.stdout.close()
    assert gone(marker), f"the stopped child outlived its parent: {marked(marker)}"


def test_kill_9_of_a_report_takes_its_projection_workers_and_the_resource_tracker(tmp_path):
    """The card-facts projection's pool, killed mid-work: no worker and no resource tracker left."""
    import subprocess
    import uuid

    db = tmp_path / "r.db"
    with open_store(db) as store:
        play_jobs(store, schedule("1.2", ["greedy", "random"], 60, 1), workers=2)
    marker = uuid.uuid4().hex
    code = ("import sys, locm.games.locm.facts_store as c\nc.CHUNK = 2\n"
            "c.refresh(sys.argv[1], rebuild=True, workers=2, progress=lambda k: print(k, flush=True))\n")
    env = {**os.environ, "LOCM_TEST_MARKER": marker}
    proc = subprocess.Popen([sys.executable, "-c", code, str(db)], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip()  # a chunk came back: the workers are up and working
    helpers = with_env(marker)
    assert len(helpers) >= 3, helpers  # the report, its workers, the resource tracker
    proc.kill()
    proc.wait()
    proc.stdout.close()
    end = time.monotonic() + 5
    while with_env(marker) and time.monotonic() < end:
        time.sleep(0.05)
    assert with_env(marker) == []


def with_env(marker: str) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                if Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX":
                    found.append(int(entry))
        except OSError:
            continue
    return found
