"""The one pool of worker processes behind every parallel job of locm: tournaments of every game
(`locm.tournament.run`), the re-runs of `locm whatif` and `locm cardvalue` (LOCM's and, through the
seam, `locm.tournament.rerun`) and the card report's projection (`locm.games.locm.facts_store`). Ray is the other backend of
`imap` (`locm.tournament.ray_backend`, ``--backend ray``).

How it runs (`supervised`):

- ``workers`` processes from the ``spawn`` context, each with its own duplex pipe and at most `HANDOFF` tasks
  in hand; a task is taken from the (lazy) source only when a result comes back, so memory stays flat. Pipes,
  not queues: no named semaphores, nothing for the resource tracker to warn about when the main process dies.
- A worker (`serve`) first asks the kernel for SIGKILL when its parent dies (`locm.runner.processes.die_with_parent`,
  ``PR_SET_PDEATHSIG``), even a SIGKILL of the parent, then runs ``init`` once and the tasks it receives. A
  thread sends a heartbeat every ``heartbeat_s`` with its progress (``beat()``: a count that moves while a task
  is done, e.g. the turns played; by default the tasks done), and makes it exit if its parent is gone. SIGTERM
  kills its bots and ends it; Ctrl-C is left to the main process.
- The main process notices a lost worker (`Supervision`): its pipe ended (it died), nothing from it for
  ``grace_s`` (stopped or frozen), no first sign of life in ``start_s``, or a task in hand and no progress for
  ``stall_s`` (stuck). The worker is killed and replaced; the task it was on is started again until it has
  started ``attempts`` times, then given up (``failed``); its other tasks go back to the queue. After
  ``max(5, 3 * workers)`` workers in a row lost before they started, the pool stops with one line (this
  machine cannot run them). The workers are told to stop, then terminated and killed, when the pool is
  closed, fails or is interrupted, and die with the main process anyway.
- ``(kind, task, value)`` is yielded: ``done`` (the task's result), ``raised`` (the exception the task raised,
  or that ``init`` raised), ``failed`` (why it was given up), ``incident`` (a worker lost and replaced, one
  line), and ``tick`` after each wait (at most ``heartbeat_s`` apart), for callers that flush on time.

`imap` is the pool as most jobs want it: the results in the order of the tasks, in this process for one
worker, on Ray for ``backend="ray"``; a task given up or that raised stops it with that error.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from locm.errors import LocmError, WorkerPoolError
from locm.runner.processes import die_with_parent, parent_alive

if TYPE_CHECKING:
    from locm.tournament.backends import Backend

HANDOFF = 2
"""Tasks handed to each worker ahead of the results: a worker starts a task only when the main process has
taken a result, so tasks done but not consumed stay below ``HANDOFF * workers`` however slow the consumer."""

STALL_S = 600.0
"""`imap`'s default ``stall_s``: a worker with a task in hand and no progress for this long is stuck (a report
chunk takes a few seconds, a what-if task a few games)."""


@dataclass(frozen=True)
class Supervision:
    """How the main process watches its workers. A worker says it is alive every ``heartbeat_s`` with its
    progress. It is lost when its pipe ends (it died), when nothing came from it for ``grace_s`` (stopped or
    frozen), or when it has a task in hand and made no progress for the pool's ``stall_s`` (stuck); a new worker
    has ``start_s`` to say it is alive first (its imports, on a busy machine). A lost worker is killed and
    replaced. The task it was on is started again by another worker, up to ``attempts`` starts in all; after
    that it is given up (``failed``), the others go on. Its tasks not started go back to the queue. If ``max(5,
    3 * workers)`` workers in a row are lost before they start (no heartbeat: this machine cannot run them),
    the pool stops with one line."""

    heartbeat_s: float = 0.5
    grace_s: float = 20.0
    attempts: int = 2
    start_s: float = 60.0


@dataclass(frozen=True)
class Work:
    """What every worker of a pool runs: ``init(*init_args)`` once, then ``work(task)`` for each task (``work(task,
    prepared)`` with ``ahead``: ``prepared = ahead(task)`` is made while the task before it runs, when it is
    already in the pipe, e.g. a bot's sandbox; None for a task that was not), then ``close()`` when the worker
    ends. ``beat()`` is the progress a heartbeat reports (default: the tasks done). Everything must be picklable
    by name (module-level functions)."""

    work: Callable
    init: Callable | None = None
    init_args: tuple = ()
    beat: Callable[[], int] | None = None
    ahead: Callable | None = None
    close: Callable[[], object] | None = None


# --- the worker ---------------------------------------------------------------------------------------------


def serve(conn, parent: int, job: Work, heartbeat_s: float = 0.5) -> None:
    """A worker process: die with ``parent``; ``job.init``; run the tasks received until None or the end of the
    pipe, sending ``("done", result)`` or ``("raised", exception)`` for each; a heartbeat ``("beat", progress)``
    every ``heartbeat_s``."""
    from locm.runner.botprocess import kill_all

    die_with_parent(parent)
    sending = threading.Lock()
    done = 0

    def die(*_):
        kill_all()
        os._exit(1)

    def send(item) -> None:
        try:
            with sending:
                conn.send(item)
        except (OSError, ValueError):  # the pipe is gone (the parent closed it): nobody waits for this
            die()

    def progress() -> int:
        return job.beat() + done if job.beat is not None else done

    def heartbeat():
        while True:
            if not parent_alive(parent):
                die()
            send(("beat", progress()))
            time.sleep(heartbeat_s)

    signal.signal(signal.SIGTERM, die)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the main process decides
    threading.Thread(target=heartbeat, daemon=True, name="locm-heartbeat").start()
    try:
        if job.init is not None:
            job.init(*job.init_args)
    except Exception as exc:  # said with the first task's result: the caller sees why
        failed_init: BaseException | None = exc
    else:
        failed_init = None
    try:
        ahead = None  # the next task, prepared while this one ran
        while True:
            if ahead is not None:
                (task, prepared), ahead = ahead, None
            else:
                try:
                    task = conn.recv()
                except (EOFError, OSError):
                    return
                prepared = None
            if task is None:
                return
            if failed_init is not None:
                send(("raised", _picklable(failed_init)))
                continue
            if job.ahead is not None and conn.poll():  # the next task is here: prepare it, off this task's clock
                try:
                    nxt = conn.recv()
                except (EOFError, OSError):
                    nxt = None
                ahead = (nxt, None if nxt is None else _prepare(job, nxt))
            try:
                result = job.work(task, prepared) if job.ahead is not None else job.work(task)
                message = ("done", result)
            except Exception as exc:
                message = ("raised", _picklable(exc))
            done += 1
            send(message)
    finally:
        if job.close is not None:
            job.close()


def _prepare(job: Work, task) -> Any:
    try:
        return job.ahead(task)
    except Exception:  # `work` meets the same problem and reports it
        return None


def _picklable(exc: BaseException) -> BaseException:
    """The exception itself when it crosses the pipe whole, else a `WorkerPoolError` with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return WorkerPoolError(f"{type(exc).__name__}: {exc}")


# --- the main process ---------------------------------------------------------------------------------------


class _Hand:
    """One worker as the main process sees it: its process, its pipe, the tasks it holds (the first one is
    being run) and when it last gave a sign of life and of progress."""

    def __init__(self, proc, conn, now: float) -> None:
        self.proc, self.conn = proc, conn
        self.tasks: collections.deque = collections.deque()
        self.seen = self.moved = now
        self.progress = -1  # no heartbeat yet: the worker is starting


def supervised(tasks: Iterable, workers: int, *, job: Work | None = None, supervision: Supervision | None = None,
               stall_s: float | None = None, target: Callable | None = None, target_args: tuple | None = None,
               label: Callable[[Any], str] = lambda task: "its task", verbs: tuple[str, str] = ("run", "running"),
               stalled: str = "made no progress", error: type[LocmError] = WorkerPoolError,
               name: str = "locm-worker") -> Iterator[tuple]:
    """Run ``tasks`` in ``workers`` supervised processes (see the module note), yielding ``(kind, task, value)``.

    ``job``: what the workers run (`serve`); or ``target``, a worker function of its own, started as
    ``target(conn, parent_pid, *target_args)`` and speaking the same pipe protocol (tests give faulty ones; a
    message that is not ``beat``/``done``/``raised`` is taken as a task's result as it is). ``stall_s``: a task
    in hand with no progress for this long is stuck (None: never). ``label(task)`` names a task in the
    incident lines, ``verbs`` says what is done to one (``("played", "playing")`` for games) and ``stalled`` what a
    stuck worker did not do; ``error`` is the exception raised when workers cannot start."""
    sup = supervision or Supervision()
    if target is None:
        if job is None:
            raise ValueError("supervised: give a job or a target")
        target, target_args = serve, (job, sup.heartbeat_s)
    args = tuple(target_args or ())
    source = iter(tasks)
    first = list(itertools.islice(source, HANDOFF * workers))
    if not first:
        return
    again: collections.deque = collections.deque(first)  # tasks to hand out before the source's
    exhausted = False
    starts: dict[int, int] = {}  # by id() of the task: how many times it was started by a worker lost on it
    ctx = multiprocessing.get_context("spawn")
    hands: dict = {}
    dead: list = []
    unstarted, names = 0, itertools.count()  # workers lost in a row before their first heartbeat
    verb, verbing = verbs

    def spawn() -> None:
        mine, theirs = ctx.Pipe(duplex=True)
        p = ctx.Process(target=target, args=(theirs, os.getpid(), *args), daemon=True, name=f"{name}-{next(names)}")
        p.start()
        theirs.close()
        hands[mine] = _Hand(p, mine, time.monotonic())

    def next_task():
        nonlocal exhausted
        if again:
            return again.popleft(), True
        if not exhausted:
            for task in source:
                return task, True
            exhausted = True
        return None, False

    def hand_out(hand: _Hand) -> None:
        while len(hand.tasks) < HANDOFF:
            task, found = next_task()
            if not found:
                return
            try:
                hand.conn.send(task)
            except OSError:  # it died: the wait below sees its pipe end, and it is replaced
                again.appendleft(task)
                return
            if not hand.tasks:
                hand.moved = time.monotonic()  # an idle worker's clock starts with its task
            hand.tasks.append(task)

    def lose(hand: _Hand, why: str):
        """Kill and forget a lost worker; put its tasks back or give up the one it was on; replace it."""
        nonlocal unstarted
        del hands[hand.conn]
        with contextlib.suppress(OSError):
            hand.proc.kill()
        hand.proc.join(timeout=5)
        hand.conn.close()
        dead.append(hand.proc)
        if hand.progress < 0:
            unstarted += 1
            if unstarted >= max(5, 3 * workers):
                raise error(f"stopped: {unstarted} workers in a row were lost before they started (the last one "
                            f"{why})")
        if hand.tasks:
            on = hand.tasks.popleft()
            key = id(on)
            starts[key] = starts.get(key, 0) + 1
            again.extendleft(reversed(hand.tasks))
            if starts[key] < sup.attempts:
                again.appendleft(on)
                yield "incident", on, f"{hand.proc.name} {why}: replaced; {label(on)} will be {verb} again"
            else:
                starts.pop(key)
                yield "incident", on, f"{hand.proc.name} {why}: replaced"
                yield "failed", on, f"its worker was lost {sup.attempts} times while {verbing} it (last: {why})"
        else:
            yield "incident", None, f"{hand.proc.name} {why}: replaced"
        if again or not exhausted:
            spawn()
            hand_out(list(hands.values())[-1])

    try:
        for _ in range(min(workers, len(first))):
            spawn()
        for hand in list(hands.values()):
            hand_out(hand)
        while any(h.tasks for h in hands.values()) or again:
            if not hands:  # every worker was lost and not replaced: start one for what is left
                spawn()
            for hand in list(hands.values()):
                if not hand.tasks:
                    hand_out(hand)
            for conn in multiprocessing.connection.wait(list(hands), timeout=sup.heartbeat_s):
                hand = hands[conn]
                try:
                    item = conn.recv()
                except (EOFError, OSError):  # the worker died (a reset pipe when it died starting)
                    hand.proc.join(timeout=1)
                    yield from lose(hand, f"ended (exit {hand.proc.exitcode})")
                    continue
                now = time.monotonic()
                hand.seen = now
                unstarted = 0
                kind = item[0] if isinstance(item, tuple) and item else None
                if kind == "beat":
                    if item[1] != hand.progress:
                        hand.progress, hand.moved = item[1], now
                    continue
                hand.moved = now
                hand.progress = max(hand.progress, 0)
                task = hand.tasks.popleft()
                starts.pop(id(task), None)
                hand_out(hand)
                if kind == "done":
                    yield "done", task, item[1]
                elif kind == "raised":
                    yield "raised", task, item[1]
                else:
                    yield "done", task, item
            yield "tick", None, None  # at least every heartbeat: a consumer's batch does not wait
            now = time.monotonic()
            for hand in list(hands.values()):
                if hand.progress < 0:
                    if now - hand.seen > sup.start_s:
                        yield from lose(hand, f"did not start in {sup.start_s:.0f} s")
                elif now - hand.seen > sup.grace_s:
                    yield from lose(hand, f"gave no sign of life for {now - hand.seen:.0f} s (stopped or frozen)")
                elif stall_s is not None and hand.tasks and now - hand.moved > stall_s:
                    yield from lose(hand, f"{stalled} for {now - hand.moved:.0f} s (stuck)")
    finally:
        for conn in hands:
            with contextlib.suppress(OSError):
                conn.send(None)  # done: the worker exits
            conn.close()
        procs = [h.proc for h in hands.values()] + dead
        for p in procs:
            p.join(timeout=0.5)
            if p.is_alive():
                p.terminate()  # SIGTERM: the worker kills its bots and exits
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():  # a stopped worker, or one stuck beyond SIGTERM
                p.kill()
                p.join()


def imap(work: Callable, tasks: Iterable, workers: int = 1, *, init: Callable | None = None, init_args: tuple = (),
         backend: Backend = "local", address: str | None = None, batch: int = 1, ray_batch: int | None = None,
         stall_s: float | None = STALL_S,
         supervision: Supervision | None = None, label: Callable[[Any], str] = lambda task: "a task",
         on_incident: Callable[[str], None] | None = None) -> Iterator:
    """``work(task)`` for every task, yielded in the order of the tasks (as `multiprocessing.Pool.imap`), after
    ``init(*init_args)`` once per process: in this process when ``workers`` <= 1, in ``workers`` supervised
    processes (`supervised`), or with ``backend="ray"`` on the Ray cluster at ``address``
    (`locm.tournament.ray_backend.map_ordered`). Tasks travel ``batch`` to a message (to a Ray task: ``ray_batch``, by default
    ``batch`` and at least 4, a Ray task costing about half a millisecond), so that short tasks do not wait. A task that raises raises here (as it was raised); a task given up (its
    worker lost ``attempts`` times) raises `WorkerPoolError`; a worker lost and replaced is told to
    ``on_incident``. Closing the iterator stops the workers; use it in a ``with contextlib.closing(...)`` where
    an error of the caller's own may stop the loop."""
    if backend == "ray":
        from locm.tournament.ray_cluster import map_ordered

        yield from map_ordered(work, list(tasks), init=init, init_args=init_args, address=address,
                               per_task=ray_batch or max(4, batch))
        return
    if workers <= 1:
        if init is not None:
            init(*init_args)
        for task in tasks:
            yield work(task)
        return
    source = iter(tasks)
    batches = enumerate(iter(lambda: list(itertools.islice(source, batch)), []))
    ready: dict[int, Any] = {}
    nxt = 0
    runs = supervised(batches, workers, job=Work(_Batch(work), init, init_args), supervision=supervision,
                      stall_s=stall_s, label=lambda kb: label(kb[1][0]))
    try:
        for kind, task, value in runs:
            if kind == "done":
                ready[task[0]] = value
                while nxt in ready:
                    yield from ready.pop(nxt)
                    nxt += 1
            elif kind == "raised":
                raise value
            elif kind == "failed":
                raise WorkerPoolError(f"{label(task[1][0])}: {value}")
            elif kind == "incident" and on_incident is not None:
                on_incident(value)
    finally:
        runs.close()


class _Batch:
    """``work`` over a numbered batch of tasks ``(k, [task, ...])``: their results, in order (`imap` puts the
    batches back in order by ``k``)."""

    def __init__(self, work: Callable) -> None:
        self.work = work

    def __call__(self, numbered: tuple[int, list]) -> list:
        return [self.work(task) for task in numbered[1]]


__all__ = ["supervised", "imap", "serve", "Work", "Supervision", "HANDOFF", "STALL_S"]
