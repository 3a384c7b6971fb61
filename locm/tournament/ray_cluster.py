"""A Ray cluster as locm uses it (the optional extra ``locm[ray]``): connecting (`connect`, a one-line
`RayUnavailableError` where Ray or the cluster is missing) and `map_ordered`, the one pool's tasks run as Ray
tasks in order (`locm.tournament.pool.map_ordered` with ``backend="ray"``). It knows no tournament:
`locm.tournament.ray_backend` plays tournaments' jobs through it."""

from __future__ import annotations

import collections
from typing import Callable

from locm.errors import LocmError

MAX_RETRIES = 5
"""How many times Ray runs a task again whose node was lost."""

_READY: dict = {}  # per Ray worker process: the (init, args) it has run


class RayUnavailableError(LocmError):
    """Raised when ``--backend ray`` is asked for and Ray is not installed (or cannot be reached at
    ``address``); says how to get it."""

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__(why)


def _ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailableError("--backend ray needs Ray: pip install 'locm[ray]' (or pip install ray)") \
            from None
    return ray


def connect(address: str | None = None, **init_options):
    """Join the Ray cluster at ``address`` (None: start a local one on this machine, or join the one this
    process already joined); the `ray` module."""
    ray = _ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                     **init_options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailableError(f"cannot join the Ray cluster at {address}: {exc}") from None
    return ray


def _run_tasks(init: Callable | None, init_args: tuple, work: Callable, tasks: list) -> list:
    """One Ray task: ``work`` over several tasks, after ``init(*init_args)`` once per worker process (e.g. the
    store opened read-only, `locm.games.locm.whatif._init_worker`)."""
    if init is not None and _READY.get("key") != (init, init_args):
        init(*init_args)
        _READY["key"] = (init, init_args)
    return [work(t) for t in tasks]


def map_ordered(work: Callable, tasks: list, *, init: Callable | None = None, init_args: tuple = (),
                address: str | None = None, per_task: int = 4, in_flight: int | None = None):
    """``work(task)`` for every task, yielded in order (as `multiprocessing.Pool.imap` does), run on Ray
    ``per_task`` tasks to a Ray task; a lost node's Ray tasks run again elsewhere. ``work`` and ``init`` must
    be importable functions; what ``init`` opens (a store's path) must be reachable at the same path on every
    node."""
    ray = connect(address)
    remote = ray.remote(max_retries=MAX_RETRIES, num_cpus=1)(_run_tasks)
    if in_flight is None:
        in_flight = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    batches = [tasks[i:i + per_task] for i in range(0, len(tasks), per_task)]
    refs: collections.deque = collections.deque()
    args_ref = ray.put(init_args)
    nxt = 0
    try:
        while nxt < len(batches) or refs:
            while nxt < len(batches) and len(refs) < in_flight:
                refs.append(remote.remote(init, args_ref, work, batches[nxt]))
                nxt += 1
            yield from ray.get(refs.popleft())
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)


__all__ = ["RayUnavailableError", "connect", "map_ordered", "MAX_RETRIES"]
