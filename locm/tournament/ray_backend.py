"""Tournaments on a Ray cluster (the optional extra ``locm[ray]``): the same schedule, the same games, one
store, written by this process only.

The jobs are cut into batches of consecutive jobs (`BATCH_GAMES`: a Ray task costs about as much as half a
game here, so a task plays many); each batch is one Ray task, which plays its games on whatever node Ray
gives it with the same function a local worker runs (`locm.tournament.run.play_job`: the game, checked, encoded,
chained and compressed there) and returns them. This process keeps a bounded number of tasks in flight,
takes each batch as it comes back and stores its games in one transaction (whole games only; a game another
run stored meanwhile is skipped as a duplicate). A node lost mid-run loses no game: Ray runs the tasks it held
again elsewhere (``max_retries``), and only a task's returned result is ever stored, so nothing is stored
twice. The games are deterministic, so their logs are byte-identical to a local run of the same schedule;
resume works as locally (the caller passes only the jobs the store lacks).

External bots run in the sandbox on whichever node plays them: bubblewrap must be installed on every node,
and a bot's files must be at the same path on every node (a shared file system, or the same checkout). The
sandbox is checked on the node before a bot starts (`locm.runner.sandbox.bwrap.require`).
"""

from __future__ import annotations

import itertools
import time
from typing import Callable, Iterable

from locm.runner.bots import TimeLimits
from locm.errors import DuplicateGameError, TournamentError
from locm.runner.sandbox.bwrap import Sandbox, require
from locm.store.eventstore import EventStore
from locm.tournament.run import TournamentRun, play_job
from locm.tournament.schedule import Job
from locm.tournament.ray_cluster import MAX_RETRIES, RayUnavailableError, _ray, connect, map_ordered  # noqa: F401

BATCH_GAMES = 32
"""Games per Ray task."""


def play_batch(jobs: list[Job], limits: TimeLimits, sandbox: Sandbox) -> list[tuple]:
    """One Ray task's work: each job's result as a local worker gives it (`locm.tournament.run.play_job`)."""
    if any(j.has_bot for j in jobs):
        require(sandbox)  # no sandbox on this node: refused before a bot starts
    return [play_job(job, limits, sandbox) for job in jobs]


def play_jobs_ray(store: EventStore, jobs: Iterable[Job], *, address: str | None = None,
                  limits: TimeLimits | None = None, progress: Callable[[int], None] | None = None,
                  scheduled: int | None = None, count: int | None = None, sandbox: Sandbox | None = None,
                  batch_games: int = BATCH_GAMES, in_flight: int | None = None) -> TournamentRun:
    """`locm.tournament.run.play_jobs` on Ray: the same arguments and result (``in_flight``: tasks submitted ahead,
    by default twice the cluster's CPUs)."""
    ray = connect(address)
    if batch_games < 1:
        raise TournamentError(f"batch_games must be at least 1, got {batch_games}")
    sandbox = Sandbox() if sandbox is None else sandbox
    limits = limits or TimeLimits()
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    total = count if scheduled is None else scheduled
    run = TournamentRun(total, total - count)
    if in_flight is None:
        in_flight = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(max_retries=MAX_RETRIES, num_cpus=1)(play_batch)
    limits_ref, sandbox_ref = ray.put(limits), ray.put(sandbox)
    source = iter(jobs)
    pending: dict = {}  # object ref -> its batch's game ids
    t0 = time.perf_counter()

    def submit() -> bool:
        batch = list(itertools.islice(source, batch_games))
        if batch:
            pending[task.remote(batch, limits_ref, sandbox_ref)] = [j.game_id for j in batch]
        return bool(batch)

    try:
        while len(pending) < in_flight and submit():
            pass
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                ids = pending.pop(ref)
                try:
                    results = ray.get(ref)
                except ray.exceptions.RayError as exc:  # retried MAX_RETRIES times and lost each time
                    why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    results = [("failed", gid, f"its Ray task was lost: {why}", None) for gid in ids]
                _store(store, results, run)
                if progress:
                    progress(len(results))
                submit()
    finally:
        for ref in pending:  # interrupted: the tasks not taken are cancelled
            ray.cancel(ref, force=True)
    run.seconds = time.perf_counter() - t0
    return run




def _store(store: EventStore, results: list[tuple], run: TournamentRun) -> None:
    """A batch's games in one transaction (game by game when one is stored already); its failures noted."""
    games = [r[2] for r in results if r[0] == "game"]
    run.failed.extend((r[1], r[2]) for r in results if r[0] != "game")
    try:
        store.append_games(games)
        run.played += len(games)
    except DuplicateGameError:
        for prepared in games:
            try:
                store.append_prepared(prepared)
                run.played += 1
            except DuplicateGameError:
                run.duplicates += 1


__all__ = ["play_jobs_ray", "map_ordered", "play_batch", "connect", "RayUnavailableError", "BATCH_GAMES", "MAX_RETRIES"]
