"""The one pool (`locm.tournament.pool`) as the jobs that are not tournaments use it (`imap`: whatif, cardvalue, the report's
projection): results in the order of the tasks whatever happens to the workers, a killed or stuck worker
noticed and its task started again once, then given up with one line; a task's own error raised as it was.
(Tournaments over the same pool: tests/test_supervision.py.)"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from locm.errors import StoreError, WorkerPoolError
from locm.tournament.pool import Supervision, imap

QUICK = Supervision(heartbeat_s=0.1, grace_s=2.0, start_s=60)


def square(task: tuple[int, str]) -> int:
    return task[0] * task[0]


def killed_once(task: tuple[int, str]) -> int:
    """Kills its own worker the first time it meets task 3 (a marker file says it did)."""
    n, marker = task
    if n == 3 and not Path(marker).exists():
        Path(marker).write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def always_killed(task: tuple[int, str]) -> int:
    if task[0] == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return task[0]


def stuck(task: tuple[int, str]) -> int:
    while task[0] == 1:  # alive (its heartbeat goes on), never done
        time.sleep(0.05)
    return task[0]


def refuses(task: tuple[int, str]) -> int:
    if task[0] == 4:
        raise StoreError(f"task {task[0]}: a store error")
    return task[0]


def test_results_come_in_the_order_of_the_tasks_from_one_or_many_workers(tmp_path):
    tasks = [(n, "") for n in range(40)]
    assert list(imap(square, tasks, 1)) == list(imap(square, tasks, 2, batch=3, supervision=QUICK)) == \
        [n * n for n in range(40)]


def test_a_killed_worker_is_replaced_and_its_task_run_again(tmp_path):
    marker = str(tmp_path / "marker")
    incidents = []
    out = list(imap(killed_once, [(n, marker) for n in range(8)], 2, supervision=QUICK,
                    on_incident=incidents.append, label=lambda t: f"task {t[0]}"))
    assert out == [n * n for n in range(8)]
    assert len(incidents) == 1 and "ended (exit -9): replaced; task 3 will be run again" in incidents[0]


def test_a_task_that_kills_every_worker_is_given_up_with_one_line():
    with pytest.raises(WorkerPoolError) as info:
        list(imap(always_killed, [(n, "") for n in range(5)], 2, supervision=QUICK, label=lambda t: f"task {t[0]}"))
    assert str(info.value) == "task 2: its worker was lost 2 times while running it (last: ended (exit -9))"


def test_a_stuck_worker_is_noticed():
    t0 = time.monotonic()
    with pytest.raises(WorkerPoolError) as info:
        list(imap(stuck, [(n, "") for n in range(3)], 2, supervision=QUICK, stall_s=1.0,
                  label=lambda t: f"task {t[0]}"))
    assert str(info.value).startswith("task 1: its worker was lost 2 times while running it (last: made no "
                                      "progress for ") and str(info.value).endswith(" s (stuck))")
    assert time.monotonic() - t0 < 30


def test_a_tasks_own_error_is_raised_as_it_was():
    with pytest.raises(StoreError, match=r"^task 4: a store error$"):
        list(imap(refuses, [(n, "") for n in range(8)], 2, supervision=QUICK))
