"""Playing a tournament of any game: the jobs a store lacks (`to_play`), played by the one pool's worker
processes and stored as they come (`play_jobs`), with what one run did (`TournamentRun`).

Every game's id names its content and is known before it is played, so a store never holds a game twice and
an interrupted tournament resumes by skipping the ids already stored.

Processes: ``workers`` processes of the one pool (`locm.tournament.pool`) play the games and prepare each one
for the store (checked, encoded, chained and compressed there: `locm.store.eventstore.PreparedGame`, with
LOCM's card facts), each through its own pipe with at most `HANDOFF` games in hand (the schedule is read
lazily, and memory stays flat however slow the store is). A game is played by its game's player
(`players`: the module its definition names, `GameDef.player`: LOCM's, Skyport's, or the core's for any game). The main process is the
only writer of the store and stores the games as they arrive, whole games several to a transaction
(`EventStore.append_games`; `WRITE_BATCH` games, or what came in `WRITE_AFTER_S`), so that it needs a small
part of a core (`benchmarks/bench_tournament.py` reports its CPU time per game) and the workers have the
rest. The workers never open the store, and no bot's sandbox shows it (`locm.runner.sandbox.bwrap`).

Supervision (`Supervision`, the pool's): a worker sends a heartbeat with its progress (the bots' turns and the
decisions made) every half second; one that dies, goes silent (stopped, frozen) or makes no progress (stuck)
is killed and replaced, the game it was playing is played again once and then recorded as failed, so a
tournament always ends, with every game stored or named as failed, or stops with a one-line
`TournamentError`. Workers die with the main process, even killed with SIGKILL
(`locm.runner.processes.die_with_parent`), and their sandboxed bots die with them; the main process
terminates its workers when it is interrupted (Ctrl-C, SIGTERM) or fails.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from locm.engine import registry
from locm.errors import DuplicateGameError, GameNotFoundError, TournamentError
from locm.tournament.pool import HANDOFF as POOL_HANDOFF, Supervision, Work
from locm.tournament.players import players
from locm.tournament.schedule import Job, Schedule

HANDOFF = POOL_HANDOFF
"""Games handed to each worker ahead of the writer (the pool's `locm.tournament.pool.HANDOFF`): a worker starts a
game only when the writer has taken one, so games played but not stored stay below ``HANDOFF * workers +
WRITE_BATCH`` however slow the store is."""

WRITE_BATCH = 64
"""The most games the writer stores in one transaction: a transaction's commit costs more than a game's rows,
so batching raises the writer's ceiling (`benchmarks/bench_writer.py`). A batch holds whole games only."""

WRITE_AFTER_S = 0.25
"""The longest a played game waits for its batch to fill before it is stored anyway (slow games, bots)."""


@dataclasses.dataclass
class TournamentRun:
    """What one run of a tournament did."""

    scheduled: int = 0  # games in the whole tournament
    already: int = 0  # of those, stored before this run
    played: int = 0  # played and stored by this run
    duplicates: int = 0  # played but already stored meanwhile (another run on the same store)
    failed: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (game id, why): not stored
    seconds: float = 0.0
    incidents: list[str] = dataclasses.field(default_factory=list)  # workers lost and replaced, one line each
    ids: list[str] = dataclasses.field(default_factory=list)  # the ids of the games asked for (`run_matches`)



def record_schedule(store, jobs: Schedule) -> None:
    """Keep the schedule's manifest in the store (once), so that `locm verify` knows what it should hold."""
    store.record_schedule(jobs.key, jobs.manifest)


def pending(store, jobs: Iterable[Job]) -> list[Job]:
    """The jobs whose game is not stored yet (a list: for a short schedule; see `iter_pending`)."""
    return list(iter_pending(store, jobs))


def iter_pending(store, jobs: Iterable[Job]) -> Iterator[Job]:
    """The jobs whose game is not stored yet, one at a time (each looked up when it is reached)."""
    return (j for j in jobs if not _stored(store, j))


def count_stored(store, jobs: Iterable[Job]) -> int:
    """How many of the jobs' games are stored (one pass, nothing kept)."""
    return sum(1 for j in jobs if _stored(store, j))


def to_play(store, jobs: Schedule) -> tuple[Iterable[Job], int]:
    """The jobs of `jobs` whose game is not stored yet, as a lazy iterable, and how many they are. A new
    store holds none of them: then no look-up per game (a game that another run stores meanwhile is refused
    by the store and counted as a duplicate)."""
    if not store.count():
        return jobs, len(jobs)
    return iter_pending(store, jobs), len(jobs) - count_stored(store, jobs)


def _stored(store, job: Job) -> bool:
    """Whether the job's game is stored; a stored game under its id whose row is another game (another seed,
    ruleset or agents: put there behind the store's back), or that this store neither played nor imported from
    a trusted source (`locm.store.provenance.Provenance.counted`), is refused, never skipped as if played."""
    try:
        m = store.game(job.game_id)
    except GameNotFoundError:
        return False
    game = registry.get(job.game)
    name = game.rules_name(game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset)
    if (m.game, m.ruleset, m.seed, tuple(m.agents)) != (game.name, name, job.seed, job.agents):
        raise TournamentError(f"the store holds another game under the id of scheduled game {job.game_id} (ruleset "
                              f"{m.ruleset}, seed {m.seed}, {' vs '.join(m.agents)}): it was stored behind the "
                              f"store's back; see locm verify")
    came = store.provenance(job.game_id)
    if not came.counted:  # never skipped as if played here: its moves are the file's word, not its agents'
        raise TournamentError(f"the store holds scheduled game {job.game_id}, {came.text()}: a tournament counts "
                              "only the games its store played or imported under --trust: import the signed export "
                              "of the store that played it with --trust PUBKEY --skip-existing, or use a new --db")
    return True


def store_as_played(store, results: Iterable[tuple], run: TournamentRun, batch: int = WRITE_BATCH,
                    progress: Callable[[int], None] | None = None,
                    on_incident: Callable[[str], None] | None = None) -> int:
    """Store the games of `results` (the pool's ``(kind, game id, a, b)`` items) as they arrive, up to ``batch``
    whole games in one transaction, never later than `WRITE_AFTER_S` after the first of them came; a batch
    with a game another run stored meanwhile is stored game by game. ``run`` gets ``played`` counted,
    ``failed`` and ``incidents`` appended. Interrupted, the games played so far are stored before the
    exception goes on, and the pool (``results.close()``, if it has one) is stopped. The number of games found
    already stored is returned."""
    ready: list = []  # played games not stored yet (whole games)
    since = 0.0  # when the first of them came
    duplicates = 0
    units = 0  # the results in ``ready`` (a series is one, whatever its games)

    def flush() -> None:
        nonlocal duplicates, units
        games, done = ready[:], units
        ready.clear()  # taken once: a write that fails is not tried again on the way out
        units = 0
        try:
            store.append_games(games)
            run.played += len(games)
        except DuplicateGameError:  # another run stored one of them meanwhile: the others are stored
            for prepared in games:
                try:
                    store.append_prepared(prepared)
                    run.played += 1
                except DuplicateGameError:
                    duplicates += 1
        if progress:
            progress(done)

    try:
        for kind, gid, a, _ in results:
            if kind == "incident":
                run.incidents.append(a)
                if on_incident:
                    on_incident(a)
            elif kind == "game":  # a game, or a series' games (a list: stored in one transaction)
                if not ready:
                    since = time.monotonic()
                units += 1
                if isinstance(a, list):
                    ready.extend(a)
                else:
                    ready.append(a)
            elif kind == "failed":
                run.failed.append((gid, a))
                if progress:
                    progress(1)
            if ready and (len(ready) >= batch or time.monotonic() - since >= WRITE_AFTER_S):
                flush()
    finally:
        if ready:  # finished, interrupted or failed: the games played are stored
            flush()
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return duplicates


def play_jobs(store, jobs: Iterable[Job], *, workers: int = 1, limits=None,
              progress: Callable[[int], None] | None = None, scheduled: int | None = None,
              count: int | None = None, sandbox=None, supervision: Supervision | None = None,
              on_incident: Callable[[str], None] | None = None, batch: int = WRITE_BATCH,
              target: Callable | None = None, work: Work | None = None) -> TournamentRun:
    """Play `jobs` (of one game) in `workers` processes and store the games as they arrive, up to ``batch``
    whole games in one transaction (never later than `WRITE_AFTER_S` after the first of them came; a batch
    with a game another run stored meanwhile is stored game by game, that one counted as a duplicate);
    ``progress(k)`` after k games are stored. Interrupted, the games played so far are stored before the
    exception goes on. ``jobs`` may be a lazy iterable (then give ``count``, the number of jobs, for the
    summary); it is consumed as workers become free. Bots run in `sandbox` (default: the sandbox;
    `SandboxUnavailableError` at the first game with a bot if this machine has none). A lost worker
    (`Supervision`) is reported to ``on_incident`` (one line) and kept in ``TournamentRun.incidents``.
    ``target``: a worker's function of its own (tests give faulty ones; see `_pool`); ``work``: what the
    workers run instead of each job's game (`locm.tournament.series`: a whole series per job)."""
    from locm.runner.bots import TimeLimits
    from locm.runner.sandbox.bwrap import Sandbox

    if workers < 1:
        raise TournamentError(f"--workers must be at least 1, got {workers}")
    sandbox = Sandbox() if sandbox is None else sandbox
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    total = count if scheduled is None else scheduled
    run = TournamentRun(total, total - count)
    t0 = time.perf_counter()
    results = _pool(jobs, max(1, min(workers, count)), limits or TimeLimits(), sandbox, supervision or Supervision(),
                    target, work)
    run.duplicates += store_as_played(store, results, run, batch, progress, on_incident)
    run.seconds = time.perf_counter() - t0
    return run


def play_job(job: Job, limits, sandbox, seats: list | None = None) -> tuple:
    """A worker's result for one job, played by its game's player (`players`):
    ``("game", id, PreparedGame, None)`` or ``("failed", id, error, None)``."""
    try:
        prepared = players(job.game).play(job, limits, sandbox, seats)
        if prepared.record.game_id != job.game_id:  # pragma: no cover - a game's id is known before it is played
            raise TournamentError(f"the game played is {prepared.record.game_id}, not the scheduled {job.game_id}")
        return "game", job.game_id, prepared, None
    except Exception as exc:  # a bug in the engine or an agent: report it, go on with the next game
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return "failed", job.game_id, line, None


def _pool(jobs: Iterable[Job], workers: int, limits, sandbox=None, supervision: Supervision | None = None,
          target: Callable | None = None, work: Work | None = None):
    """Yield ``("game", id, PreparedGame, None)`` (prepared in the worker, so the one writing process only runs
    the SQL), ``("failed", id, message, None)`` for every job, ``("incident", id, message, None)`` when a
    worker is lost and replaced (`Supervision`), and ``("tick", None, None, None)`` after each wait (at most
    ``heartbeat_s`` apart). The games are played by `workers` processes of the one pool
    (`locm.tournament.pool.supervised`): each with at most `HANDOFF` jobs in hand, a job taken from ``jobs`` only
    when a result comes back, a worker's progress the bots' turns and the decisions made (a worker with a game
    in hand and no progress for the longest time limit plus the grace is stuck), the next game's seats made
    while a game is played where the game's player can (its ``ahead``). A job with a bot requires the sandbox
    (`locm.runner.sandbox.bwrap.require`) before it is handed out. ``target`` is the worker's function (tests
    give a faulty one: it is started as ``target(conn, parent, limits, sandbox, heartbeat_s)``)."""
    from locm.runner.sandbox.bwrap import Sandbox, require
    from locm.tournament.pool import supervised

    sandbox = Sandbox() if sandbox is None else sandbox
    sup = supervision or Supervision()
    stall_s = max(limits.as_dict().values()) / 1000.0 + sup.grace_s
    source = iter(jobs)
    first = next(source, None)
    if first is None:  # nothing to play: no worker to start
        return
    source = itertools.chain((first,), source)

    def checked(source: Iterable[Job]) -> Iterator[Job]:
        required = False
        for job in source:
            if not required and job.has_bot:
                require(sandbox)  # no sandbox, no untrusted run: refused before a bot starts
                required = True
            yield job

    common = dict(supervision=sup, stall_s=stall_s, label=_game_label, verbs=("played", "playing"),
                  stalled="played no turn", error=TournamentError)
    if target is None:
        run = supervised(checked(source), workers, job=work or game_work(first.game, limits, sandbox), **common)
    else:
        run = supervised(checked(source), workers, target=target, target_args=(limits, sandbox, sup.heartbeat_s),
                         **common)
    try:
        for kind, job, value in run:
            if kind == "done":
                yield value
            elif kind == "raised":  # `play_job` reports its errors: only a bug of the pool's own gets here
                yield "failed", job.game_id, f"{type(value).__name__}: {value}", None
            elif kind == "tick":
                yield "tick", None, None, None
            else:
                yield kind, None if job is None else job.game_id, value, None
    finally:
        run.close()


def _game_label(job) -> str:
    return f"game {job.game_id}"


class _Play(NamedTuple):
    """A worker's work: one job played and prepared (`play_job`), with its seats made ahead (`_Ahead`)."""

    limits: object
    sandbox: object

    def __call__(self, job: Job, seats: list | None = None) -> tuple:
        return play_job(job, self.limits, self.sandbox, seats)


class _Ahead(NamedTuple):
    """The seats of the next job made while a game is played (its game's player's ``ahead``)."""

    limits: object
    sandbox: object

    def __call__(self, job: Job) -> list | None:
        return players(job.game).ahead(job, self.limits, self.sandbox)


_DECISIONS = 0
"""Decisions made in this process by the core's runner (`locm.tournament.matchplay`): a worker's progress
with the bots' turns."""


def decided() -> None:
    """One decision made (a turn of the core's runner, a served game's turn)."""
    global _DECISIONS
    _DECISIONS += 1


def progress() -> int:
    """A worker's progress, said with its heartbeat: the bots' turns played and the decisions made."""
    from locm.runner.bots import turns_taken

    return turns_taken() + _DECISIONS


def game_work(game: str, limits, sandbox) -> Work:
    """What a tournament worker of `game` runs (`locm.tournament.pool.Work`): each job played and prepared
    (`play_job`), the next job's seats made while a game is played when the game's player makes them ahead,
    its ``init`` and ``close`` once per worker (LOCM's: each bot's sandbox kept for its next game in this
    worker, where it can be, `locm.runner.sandbox.kept`)."""
    player = players(game)
    ahead = getattr(player, "ahead", None)
    return Work(_Play(limits, sandbox), init=getattr(player, "init", None), beat=progress,
                ahead=None if ahead is None else _Ahead(limits, sandbox), close=getattr(player, "close", None))


class BotStderr(NamedTuple):
    """What a stored game keeps of one seat's standard error (bots only; built-in agents write none)."""

    seat: int
    agent: str
    text: str
    failed: bool  # the seat lost by a hard error or a timeout


def stored_stderr(store, game_id: str) -> list[BotStderr]:
    """Every seat's kept stderr of a stored game of any game (`GameNotFoundError` if there is none)."""
    m = store.game(game_id)
    return [BotStderr(seat, agent, x.stderr, x.error or x.timeout)
            for seat, (agent, x) in enumerate(zip(m.agents, m.seats))]


__all__ = ["TournamentRun", "record_schedule", "pending", "iter_pending", "count_stored", "to_play",
           "store_as_played", "play_jobs", "play_job", "game_work", "decided", "progress", "BotStderr", "stored_stderr",
           "Supervision", "HANDOFF", "WRITE_BATCH", "WRITE_AFTER_S"]
