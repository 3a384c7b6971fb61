"""LOCM's round robin on a Ray cluster (`play_jobs_ray`, ``--backend ray``): batches of jobs, each one Ray task
that plays its games with the function a local worker runs (`locm.games.locm.tournament._play`), stored by this
process as they come back (see `locm.tournament.ray_backend` for the cluster and the generic `map_ordered`)."""

from __future__ import annotations

import itertools
import time
from typing import Callable, Iterable

from locm.errors import DuplicateGameError, TournamentError
from locm.games.locm.tournament import Job, TournamentRun, _play
from locm.runner.bots import TimeLimits, is_builtin
from locm.runner.sandbox.bwrap import Sandbox, require
from locm.store.eventstore import EventStore
from locm.tournament.ray_backend import BATCH_GAMES, MAX_RETRIES, connect


def play_batch(jobs: list[Job], limits: TimeLimits, sandbox: Sandbox) -> list[tuple]:
    """One Ray task's work: each job's result as a local worker gives it (`locm.games.locm.tournament._play`)."""
    if not all(is_builtin(j.agent0) and is_builtin(j.agent1) for j in jobs):
        require(sandbox)  # no sandbox on this node: refused before a bot starts
    return [_play(job, limits, sandbox) for job in jobs]


def play_jobs_ray(store: EventStore, jobs: Iterable[Job], *, address: str | None = None,
                  limits: TimeLimits | None = None, progress: Callable[[int], None] | None = None,
                  scheduled: int | None = None, count: int | None = None, sandbox: Sandbox | None = None,
                  batch_games: int = BATCH_GAMES, in_flight: int | None = None) -> TournamentRun:
    """`locm.games.locm.tournament.play_jobs` on Ray: the same arguments and result (``in_flight``: tasks
    submitted ahead, by default twice the cluster's CPUs)."""
    ray = connect(address)
    if batch_games < 1:
        raise TournamentError(f"batch_games must be at least 1, got {batch_games}")
    sandbox = Sandbox() if sandbox is None else sandbox
    limits = limits or TimeLimits()
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    total = count if scheduled is None else scheduled
    run = TournamentRun(total, total - count, 0, 0, [], 0.0)
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


__all__ = ["play_jobs_ray", "play_batch"]
