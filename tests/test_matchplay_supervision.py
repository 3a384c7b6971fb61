"""Tournaments of other games (`locm.tournament.matchplay.run_matches`) under LOCM's supervision: a worker that is stuck
or killed is noticed, killed and replaced; its game is played again once, then named as failed (not stored);
the others are stored."""

from __future__ import annotations

import os
import sys
import time

from locm.tournament.matchplay import run_matches
from locm.tournament.run import play_job
from locm.tournament.schedule import seats_schedule
from locm.runner.sandbox.bwrap import UNCONFINED
from locm.store.eventstore import open_store
from locm.tournament.pool import Supervision
from tests.test_supervision import BOTS, gone, marked

QUICK = Supervision(heartbeat_s=0.1, grace_s=1.0, start_s=60)


def stuck_on_seed_1(conn, parent, limits, sandbox, heartbeat_s):
    """A faulty worker: alive (its heartbeat goes on) but making no decision on any game of seed 1."""
    from locm.runner.processes import die_with_parent

    die_with_parent(parent)
    conn.send(("beat", 0))
    while (job := conn.recv()) is not None:
        while job.seed == 1:
            conn.send(("beat", 0))
            time.sleep(heartbeat_s)
        conn.send(play_job(job, limits, sandbox))


def test_a_stuck_mcg_worker_is_replaced_and_its_games_failed_after_two_starts(tmp_path):
    from locm.runner.bots import TimeLimits

    jobs = [j for j in seats_schedule("mcg", "standard", ["greedy", "random"], 4)  # seeds 1 and 2
            if j.seed == 2 or j.agents[0] == "greedy"]
    lines = []
    with open_store(tmp_path / "m.db") as store:
        run = run_matches(store, jobs, 1, limits=TimeLimits.parse("x0.01"), sandbox=UNCONFINED,
                          supervision=QUICK, on_incident=lines.append, target=stuck_on_seed_1)
        stored = {m.game_id for m in store.games(game="mcg")}
    assert stored == {j.game_id for j in jobs if j.seed == 2} and run.played == 2
    assert {g for g, _ in run.failed} == {j.game_id for j in jobs if j.seed == 1}
    assert all("(stuck)" in why for _, why in run.failed)
    assert run.incidents == lines and len(lines) == 2 and "will be played again" in lines[0]


def test_an_mcg_bot_that_kills_its_worker_loses_the_worker_not_the_tournament(tmp_path):
    marker = f"marker-{os.getpid()}-{time.monotonic_ns()}"
    bad = f"{sys.executable} {BOTS / 'hostile_bot.py'} worker SIGKILL {marker}"
    jobs = seats_schedule("mcg", "standard", [bad, "greedy"], 2)
    with open_store(tmp_path / "m.db") as store:
        run = run_matches(store, jobs, 1, sandbox=UNCONFINED, supervision=QUICK)
        assert store.games(game="mcg") == []
    assert {g for g, _ in run.failed} == {j.game_id for j in jobs}
    assert all(why.startswith("its worker was lost 2 times") and "exit -9" in why for _, why in run.failed)
    assert len(run.incidents) == 4
    assert gone(marker), f"left: {marked(marker)}"
