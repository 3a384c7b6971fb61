"""Games with stored results: one game (`run_game`), a round robin over worker processes (`run_tournament`),
and the standings of stored games (`standings`).

Game ids name their content (`locm.engine.locm.gameid`): ruleset, seed, agents with their bots' versions, parameters.
The same game asked for twice has the same id, so a store never holds it twice and an interrupted tournament
resumes by skipping the ids already stored; a game's id is computed before it is played and is what its
`game_created` gives.

Round robin (`schedule`): every pair of agents plays ``games`` games, half the seeds ``seed .. seed +
games/2 - 1`` with the first agent of the pair in seat 0 and the same seeds with the seats swapped (mirrored
seeds); every pair gets the same seeds. An odd ``games`` is refused: a seed played in one seat only would
give that pair a seat bias.

Processes: ``workers`` processes of the one pool (`locm.tournament.pool`) play the games, check, encode, chain and
compress each one and compute its facts for the card report (`locm.store.eventstore.prepare_game`: its record, its log as
the one zlib blob the store keeps, about 9 KB for a 1.2 game, and its packed facts, about 1 KB, so a game
crosses the pipe as one small pickle) and send it back, each through its own pipe with at most `HANDOFF`
games in hand (the schedule is read lazily, and memory stays flat however slow the store is); the main
process is the only writer of the store and stores the games as they arrive,
whole games several to a transaction (`EventStore.append_games`; `WRITE_BATCH` games, or what came in
`WRITE_AFTER_S`), so that it needs a small part of a core (`benchmarks/bench_tournament.py` reports its CPU time per game) and the workers have the rest. The
workers do not import sqlite-utils (`locm.store.eventstore` imports it only to open a store), so they start sooner, and
they never open the store: only the main process does, and no bot's sandbox shows it (`locm.runner.sandbox.bwrap`).

Supervision (`Supervision`, the pool's): a worker sends a heartbeat with its turn count every half second; one that dies,
goes silent (stopped, frozen) or stops playing turns (stuck) is killed and replaced, the game it was playing
is played again once and then recorded as failed, so a tournament always ends, with every game stored or
named as failed, or stops with a one-line `TournamentError`. Workers die with the main process, even killed
with SIGKILL (`locm.runner.processes.die_with_parent`), and their sandboxed bots die with them; the main process
terminates its workers when it is interrupted (Ctrl-C, SIGTERM) or fails.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import shutil
import time
import traceback
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import msgspec


from locm.analysis.stats import wilson
from locm.engine.locm.playing import play
from locm.engine.locm.game import Game
from locm.engine.locm.rulesets import Rules, by_name, rules_hash
from locm.events.locm.catalog import HardError
from locm.runner.bots import (BotAgent, TimedAgent, TimeLimits, command_argv, is_builtin, kill_all, make_agent,
                       turns_played)
from locm.errors import TournamentError
from locm.engine.locm.gameid import created_id, game_id
from locm.runner.sandbox import kept as sandbox_kept
from locm.tournament.pool import HANDOFF as POOL_HANDOFF, Supervision
from locm.runner.sandbox.bwrap import Sandbox, require
from locm.runner.play import seat_seed
from locm.store.eventstore import DuplicateGameError, EventStore, GameExtras, GameRecord, prepare_game

_INT64 = (-(1 << 63), (1 << 63) - 1)


# --- one game ---------------------------------------------------------------------------------------------


@dataclass
class PlayedGame:
    game: Game
    extras: GameExtras

    @property
    def game_id(self) -> str:
        return self.extras.game_id


def make_seats(seed: int, agents: Sequence[str], limits: TimeLimits, sandbox: Sandbox) -> list:
    """The two seats' agents of a game (not started): built-ins seeded by seat and timed, bots in `sandbox`
    (`SandboxUnavailableError` if a bot is to be sandboxed on a machine that cannot)."""
    if not all(is_builtin(a) for a in agents):
        require(sandbox)
    seats = [make_agent(agents[s], seat_seed(seed, s), limits, sandbox) for s in (0, 1)]
    return [a if isinstance(a, BotAgent) else TimedAgent(a) for a in seats]


def run_game(ruleset: str | Rules, seed: int, agents: Sequence[str], params: dict | None = None,
             limits: TimeLimits | None = None, versions: Sequence[str] | None = None,
             place: tuple[str, int] | None = None, sandbox: Sandbox | None = None,
             seats: list | None = None) -> PlayedGame:
    """Play one game between two agents (built-in names or command lines) and return it with the record's
    extras: each seat's stderr (bots), average think time per turn (ms), hard-error and timeout flags, and
    ``meta`` JSON with the turns answered, the slowest turn and, with a bot, the time limits and the sandbox
    (`Sandbox.meta`). Bots run in `sandbox` (by default the sandbox with its default limits:
    `SandboxUnavailableError` if this machine cannot make one), or are the given ``seats`` (`make_seats`,
    their sandboxes perhaps prepared already: `BotAgent.prepare`). Every bot process is killed before this
    returns or raises. ``versions``: the bots' versions to record (default: `bot_fingerprint` of each agent
    now); ``place``: the game's place in a recorded schedule, kept in its meta (``schedule``, ``place``)."""
    limits = limits or TimeLimits()
    sandbox = Sandbox() if sandbox is None else sandbox
    seats = seats or make_seats(seed, agents, limits, sandbox)
    if versions is None:  # a bot's identity: its command and its files (a tournament takes them once, at start)
        versions = tuple(bot_fingerprint(a.command) or "" if isinstance(a, BotAgent) else "" for a in seats)
    bots = [a for a in seats if isinstance(a, BotAgent)]
    try:
        game = Game.new(ruleset, seed, params, agents=tuple(agents), bots=(versions[0], versions[1]))
        for bot in bots:
            bot.start(game.rules)  # both at once, so that their start-up overlaps
        play(game, seats)
    finally:
        for bot in bots:
            bot.kill()  # both at once, so that their sandboxes end together
        for bot in bots:
            bot.stop()
    return PlayedGame(game, _extras(created_id(game.created), game, seats, limits, sandbox if bots else None,
                                    place))


def _extras(gid: str, game: Game, seats: list, limits: TimeLimits, sandbox: Sandbox | None,
            place: tuple[str, int] | None = None) -> GameExtras:
    errors = {e.player for e in game.log if type(e) is HardError}
    meta = {"turns": [a.turns for a in seats], "think_max_ms": [round(a.think_ms_max, 3) for a in seats]}
    if place is not None:
        meta["schedule"], meta["place"] = place
    if sandbox is not None:
        meta["limits_ms"] = limits.as_dict()
        meta["bot_sha256"] = [v or None for v in game.created.bot_sha256 or (None, None)]
        meta["sandbox"] = sandbox.meta()
        if sandbox_kept.keeping(sandbox):  # the bots ran in sandboxes kept across games, started afresh in each
            meta["sandbox"]["kept"] = True
    fields = {"game_id": gid, "meta": json.dumps(meta, separators=(",", ":"))}
    for s, a in enumerate(seats):
        fields[f"think_ms{s}"] = round(a.think_ms_total / a.turns, 4) if a.turns else None
        fields[f"error{s}"] = s in errors
        fields[f"timeout{s}"] = bool(getattr(a, "timed_out", False))
        fields[f"stderr{s}"] = a.stderr if isinstance(a, BotAgent) else ""
    return GameExtras(**fields)


def bot_fingerprint(spec: str) -> str | None:
    """The SHA-256 (hex) of a command-line agent's files: its program and every argument that is a file,
    each as its path and content, so that an edited script or a rebuilt binary is a different bot. None for
    a built-in agent."""
    if is_builtin(spec):
        return None
    argv = command_argv(spec)
    h = hashlib.sha256()
    for i, arg in enumerate(argv):
        path = (shutil.which(arg) or arg) if i == 0 else arg
        if os.path.isfile(path):
            h.update(f"{i}\0{arg}\0".encode())
            with open(path, "rb") as f:
                h.update(hashlib.file_digest(f, "sha256").digest())
    return h.hexdigest()


def changed_bots(store: EventStore, agents: Sequence[str]) -> list[tuple[str, int]]:
    """The command-line agents whose files differ from those of games already stored with them, each with
    how many stored games were played by another version (games stored without a fingerprint are not
    counted)."""
    found = []
    for agent in agents:
        now = bot_fingerprint(agent)
        if now is None:
            continue
        other = 0
        for r in store.games(agent=agent):
            try:
                stored = json.loads(r.meta).get("bot_sha256") or [None, None]
            except (ValueError, AttributeError):
                continue
            for seat, name in enumerate((r.agent0, r.agent1)):
                if name == agent and stored[seat] is not None and stored[seat] != now:
                    other += 1
        if other:
            found.append((agent, other))
    return found


def stored_versions(record: GameRecord) -> tuple[str | None, str | None]:
    """The bots' versions a stored game was played with (its meta's ``bot_sha256``; None per seat when
    unknown or a built-in agent)."""
    try:
        stored = json.loads(record.meta).get("bot_sha256") or [None, None]
    except (ValueError, AttributeError):
        return None, None
    if not isinstance(stored, list) or len(stored) != 2:
        return None, None
    return tuple(v if isinstance(v, str) and v else None for v in stored)  # type: ignore[return-value]


def other_versions(store: EventStore, created, gid: str) -> list[tuple[GameRecord, list[str]]]:
    """Stored games that are this game (same ruleset, seeds and agents: `created`, the new game's
    `game_created`) played by another version of a bot, each with the agents whose version differs."""
    found = []
    fields = ("ruleset", "seed", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
              "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed")
    now = created.bot_sha256 or ("", "")
    agents = tuple(created.agents)
    for r in store.games(agent=agents[0]):
        if r.game_id == gid or (r.agent0, r.agent1) != agents or any(getattr(r, f) != getattr(created, f)
                                                                      for f in fields):
            continue
        then = stored_versions(r)
        changed = [agents[s] for s in (0, 1) if now[s] and then[s] != now[s]]
        if changed:
            found.append((r, changed))
    return found


# --- the schedule -----------------------------------------------------------------------------------------


class Job(NamedTuple):
    game_id: str
    ruleset: str | Rules
    seed: int
    agent0: str
    agent1: str
    bots: tuple[str, str] = ("", "")  # the bots' versions when the schedule was made ("" for a built-in agent)
    place: tuple[str, int] | None = None  # (schedule key, index) in a recorded schedule (`Schedule.manifest`)


MAX_GAMES = 10_000_000
"""The most games one tournament run may schedule (a store of that many games is hundreds of gigabytes);
more is refused up front. Play a bigger experiment as several runs with different ``--seed``."""


class Schedule(Sequence):
    """Every game of a round robin, computed on demand (never held in memory): seed by seed (so a partial
    run is balanced), for each seed each pair in the order given, the pair's first agent in seat 0, then the
    seats swapped. An agent given twice also plays itself (self-play): the same agent in both seats, so
    swapping the seats gives the same game (the same id); its two games of each step are two seeds, ``s``
    and ``s + seeds``, and it plays as many games as any other pair, each of its seeds once. Indexing and
    `len` are arithmetic."""

    def __init__(self, ruleset: str | Rules, agents: Sequence[str], seed: int, seeds: int,
                 versions: dict[str, str] | None = None) -> None:
        self.ruleset, self.agents, self.seed, self.seeds = ruleset, tuple(agents), seed, seeds
        if versions is None:  # the bots' files now: part of the ids
            versions = {a: bot_fingerprint(a) or "" for a in agents}
        self.versions = versions
        distinct = list(dict.fromkeys(agents))
        self.selfplay = tuple(a for a in distinct if self.agents.count(a) > 1)
        self.pairs = [p for a, b in itertools.combinations(distinct, 2) for p in ((a, b), (b, a))]
        self._slots = [(a, b, 0) for a, b in self.pairs]
        self._slots += [(a, a, k * seeds) for a in self.selfplay for k in (0, 1)]
        self._pair_set = frozenset(self.pairs)
        self.key = _manifest_key(self.manifest())

    def __len__(self) -> int:
        return self.seeds * len(self._slots)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        s, k = divmod(index, len(self._slots))
        return self._job(s, k)

    def __iter__(self):
        for s in range(self.seeds):
            for k in range(len(self._slots)):
                yield self._job(s, k)

    def holds(self, record: GameRecord) -> bool:
        """Whether a stored game is one of this schedule's (arithmetic: nothing is enumerated)."""
        name = self.ruleset if isinstance(self.ruleset, str) else self.ruleset.name
        place = self.place_of(record)
        return record.ruleset == name and place is not None and record.game_id == self[place].game_id

    def manifest(self) -> str:
        """What a store keeps of this schedule (`EventStore.record_schedule`): everything that decides its games
        (the ruleset's values, the agents and their bots' versions, the seeds), as canonical JSON. A few hundred
        bytes however many games; `from_manifest` rebuilds the schedule from it."""
        rules = by_name(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
        return msgspec.json.encode({
            "format": "locm-schedule", "version": 1, "kind": "round_robin", "ruleset": rules.name,
            "rules_hash": rules_hash(rules), "rules": rules, "agents": list(self.agents),
            "bots": [self.versions[a] for a in self.agents], "seed": self.seed, "seeds": self.seeds,
            "games": len(self)}).decode()

    @classmethod
    def from_manifest(cls, manifest: str) -> Schedule:
        """The schedule a manifest describes, its bots' versions as recorded (the files are not read)."""
        m = _manifest_dec.decode(manifest)
        if m.format != "locm-schedule" or m.version != 1 or m.kind != "round_robin":
            raise TournamentError(f"not a schedule manifest this locm reads: {m.format} {m.version} {m.kind}")
        if len(m.bots) != len(m.agents) or rules_hash(m.rules) != m.rules_hash:
            raise TournamentError("a schedule manifest whose bots or rules do not agree with themselves")
        return cls(m.rules, m.agents, m.seed, m.seeds, dict(zip(m.agents, m.bots)))

    def place_of(self, record: GameRecord) -> int | None:
        """The index of a stored game's place in this schedule, by its record (None: not one of its games)."""
        a, b = record.agent0, record.agent1
        if record.seed is None:
            return None
        step = record.seed - self.seed
        if a == b:  # self-play: slot offset 0 for the first `seeds` seeds, `seeds` for the next
            if a not in self.selfplay or not 0 <= step < 2 * self.seeds:
                return None
            offset, step = (0, step) if step < self.seeds else (self.seeds, step - self.seeds)
            k = self._slots.index((a, a, offset))
        else:
            if (a, b) not in self._pair_set or not 0 <= step < self.seeds:
                return None
            k = self._slots.index((a, b, 0))
        return step * len(self._slots) + k

    def _job(self, step: int, k: int) -> Job:
        a, b, offset = self._slots[k]
        seed = self.seed + step + offset
        bots = (self.versions[a], self.versions[b])
        place = (self.key, step * len(self._slots) + k)
        return Job(game_id(self.ruleset, seed, (a, b), bots=bots), self.ruleset, seed, a, b, bots, place)


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    kind: str
    ruleset: str
    rules_hash: str
    rules: Rules
    agents: list[str]
    bots: list[str]
    seed: int
    seeds: int
    games: int


_manifest_dec = msgspec.json.Decoder(_Manifest)


def _manifest_key(manifest: str) -> str:
    """A schedule's key in a store: the first 16 hex digits of the SHA-256 of its manifest."""
    return hashlib.sha256(manifest.encode()).hexdigest()[:16]


def record_schedule(store: EventStore, jobs: Schedule) -> None:
    """Keep the schedule's manifest in the store (once), so that `locm verify` knows what it should hold."""
    store.record_schedule(jobs.key, jobs.manifest())


def schedule(ruleset: str | Rules, agents: Sequence[str], games: int, seed: int = 1) -> Schedule:
    """Every game of the round robin as a lazy `Schedule`; refused up front if malformed or larger than
    `MAX_GAMES`. An agent given twice also plays itself (see `Schedule`)."""
    agents = list(agents)
    if len(agents) < 2:
        raise TournamentError(f"a tournament needs at least 2 agents, got {len(agents)}")
    thrice = sorted({a for a in agents if agents.count(a) > 2})
    if thrice:
        raise TournamentError(f"an agent may be given at most twice (twice: it also plays itself), got "
                              f"{thrice[0]!r} {agents.count(thrice[0])} times")
    if games < 2 or games % 2:
        raise TournamentError(f"--games must be even and at least 2 (each seed is played in both seats), "
                              f"got {games}")
    distinct = len(set(agents))
    selfplay = len(agents) - distinct
    pairs = distinct * (distinct - 1) // 2 + selfplay
    if games * pairs > MAX_GAMES:
        raise TournamentError(f"--games {games} with {pairs} pair{'s' * (pairs != 1)} of agents is {games * pairs} "
                              f"games, more than one run plays (at most {MAX_GAMES}); split it into runs with "
                              f"different --seed")
    last = seed + (games if selfplay else games // 2) - 1
    if not (_INT64[0] <= seed and last <= _INT64[1]):
        raise TournamentError(f"seeds {seed}..{last} do not fit a 64-bit signed integer")
    return Schedule(ruleset, agents, seed, games // 2)


# --- the tournament ---------------------------------------------------------------------------------------


@dataclass
class TournamentRun:
    """What one call of `run_tournament` did."""

    scheduled: int  # games in the whole tournament
    already: int  # of those, stored before this run
    played: int  # played and stored by this run
    duplicates: int  # played but already stored meanwhile (another run on the same store)
    failed: list[tuple[str, str]]  # (game id, error) of games whose worker raised or was lost too often
    seconds: float
    incidents: list[str] = dataclasses.field(default_factory=list)  # workers lost and replaced, one line each


def pending(store: EventStore, jobs: Iterable[Job]) -> list[Job]:
    """The jobs whose game is not stored yet (a list: for a short schedule; see `iter_pending`)."""
    return list(iter_pending(store, jobs))


def iter_pending(store: EventStore, jobs: Iterable[Job]) -> Iterator[Job]:
    """The jobs whose game is not stored yet, one at a time (each looked up when it is reached)."""
    return (j for j in jobs if not _stored(store, j))


def count_stored(store: EventStore, jobs: Iterable[Job]) -> int:
    """How many of the jobs' games are stored (one pass, nothing kept)."""
    return sum(1 for j in jobs if _stored(store, j))


def _stored(store: EventStore, job: Job) -> bool:
    """Whether the job's game is stored; a stored game under its id whose record is another game (another seed,
    ruleset or agents: put there behind the store's back) is refused, never skipped as if played."""
    record = store.find(job.game_id)
    if record is None:
        return False
    name = job.ruleset if isinstance(job.ruleset, str) else job.ruleset.name
    if (record.ruleset, record.seed, record.agent0, record.agent1) != (name, job.seed, job.agent0, job.agent1):
        raise TournamentError(f"the store holds another game under the id of scheduled game {job.game_id} (ruleset "
                              f"{record.ruleset}, seed {record.seed}, {record.agent0} vs {record.agent1}): it was "
                              f"stored behind the store's back; see locm verify")
    return True


HANDOFF = POOL_HANDOFF
"""Games handed to each worker ahead of the writer (the pool's `locm.tournament.pool.HANDOFF`): a worker starts a game only
when the writer has taken one, so games played but not stored stay below ``HANDOFF * workers + WRITE_BATCH``
however slow the store is."""

WRITE_BATCH = 64
"""The most games the writer stores in one transaction: a transaction's commit costs more than a game's rows,
so batching raises the writer's ceiling (`benchmarks/bench_writer.py`). A batch holds whole games only."""

WRITE_AFTER_S = 0.25
"""The longest a played game waits for its batch to fill before it is stored anyway (slow games, bots)."""


def store_as_played(store: EventStore, results: Iterable[tuple], run, batch: int = WRITE_BATCH,
                    progress: Callable[[int], None] | None = None,
                    on_incident: Callable[[str], None] | None = None) -> int:
    """Store the games of `results` (the pool's ``(kind, game id, a, b)`` items) as they arrive, up to ``batch``
    whole games in one transaction, never later than `WRITE_AFTER_S` after the first of them came; a batch
    with a game another run stored meanwhile is stored game by game. ``run`` (any game's run record) gets
    ``played`` counted, ``failed`` and ``incidents`` appended. Interrupted, the games played so far are stored
    before the exception goes on, and the pool (``results.close()``, if it has one) is stopped. The number of
    games found already stored is returned."""
    ready: list = []  # played games not stored yet (whole games)
    since = 0.0  # when the first of them came
    duplicates = 0

    def flush() -> None:
        nonlocal duplicates
        games = ready[:]
        ready.clear()  # taken once: a write that fails is not tried again on the way out
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
            progress(len(games))

    try:
        for kind, gid, a, _ in results:
            if kind == "incident":
                run.incidents.append(a)
                if on_incident:
                    on_incident(a)
            elif kind == "game":
                if not ready:
                    since = time.monotonic()
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

def play_jobs(store: EventStore, jobs: Iterable[Job], *, workers: int = 1, limits: TimeLimits | None = None,
              progress: Callable[[int], None] | None = None, scheduled: int | None = None,
              count: int | None = None, sandbox: Sandbox | None = None,
              supervision: Supervision | None = None, on_incident: Callable[[str], None] | None = None,
              batch: int = WRITE_BATCH) -> TournamentRun:
    """Play `jobs` in `workers` processes and store the games as they arrive, up to ``batch`` whole games in
    one transaction (never later than `WRITE_AFTER_S` after the first of them came; a batch with a game
    another run stored meanwhile is stored game by game, that one counted as a duplicate); ``progress(k)``
    after k games are stored. Interrupted, the games played so far are stored before the exception goes on. ``jobs`` may be a lazy iterable (then give ``count``, the number of
    jobs, for the summary); it is consumed as workers become free. Bots run in `sandbox` (default: the
    sandbox; `SandboxUnavailableError` at the first game with a bot if this machine has none). A lost worker
    (`Supervision`) is reported to ``on_incident`` (one line) and kept in ``TournamentRun.incidents``."""
    if workers < 1:
        raise TournamentError(f"--workers must be at least 1, got {workers}")
    sandbox = Sandbox() if sandbox is None else sandbox
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    total = count if scheduled is None else scheduled
    run = TournamentRun(total, total - count, 0, 0, [], 0.0)
    t0 = time.perf_counter()
    results = _pool(jobs, max(1, min(workers, count)), limits or TimeLimits(), sandbox, supervision or Supervision())
    run.duplicates += store_as_played(store, results, run, batch, progress, on_incident)
    run.seconds = time.perf_counter() - t0
    return run


def run_tournament(store: EventStore, ruleset: str, agents: Sequence[str], games: int, *, workers: int = 1,
                   seed: int = 1, limits: TimeLimits | None = None,
                   progress: Callable[[int], None] | None = None, sandbox: Sandbox | None = None,
                   supervision: Supervision | None = None) -> TournamentRun:
    """`schedule` (recorded in the store: `record_schedule`), then play the games `store` lacks (`iter_pending`,
    `play_jobs`)."""
    jobs = schedule(ruleset, agents, games, seed)
    record_schedule(store, jobs)
    todo, count = to_play(store, jobs)
    return play_jobs(store, todo, workers=workers, limits=limits, progress=progress, scheduled=len(jobs),
                     count=count, sandbox=sandbox, supervision=supervision)


def to_play(store: EventStore, jobs: Schedule) -> tuple[Iterable[Job], int]:
    """The jobs of `jobs` whose game is not stored yet, as a lazy iterable, and how many they are. A new
    store holds none of them: then no look-up per game (a game that another run stores meanwhile is refused
    by the store and counted as a duplicate)."""
    if not store.count():
        return jobs, len(jobs)
    return iter_pending(store, jobs), len(jobs) - count_stored(store, jobs)


def _pool(jobs: Iterable[Job], workers: int, limits: TimeLimits, sandbox: Sandbox | None = None,
          supervision: Supervision | None = None, target: Callable | None = None, work=None):
    """Yield ``("game", id, PreparedGame, None)`` (checked, encoded, chained and compressed in the worker, so
    the one writing process only runs the SQL), ``("failed", id, message, None)`` for every job,
    ``("incident", id, message, None)`` when a worker is lost and replaced (`Supervision`), and
    ``("tick", None, None, None)`` after each wait (at most ``heartbeat_s`` apart). The games are played by
    `workers` processes of the one pool (`locm.tournament.pool.supervised`): each with at most `HANDOFF` jobs in hand, a
    job taken from ``jobs`` only when a result comes back, a worker's progress the bots' turns played (a worker
    with a game in hand and no turn for the longest time limit plus the grace is stuck), the next game's bot
    sandboxes made while a game is played. A job with a bot requires the sandbox (`locm.runner.sandbox.bwrap.require`)
    before it is handed out. ``work``: what the workers run instead of LOCM's games (a `locm.tournament.pool.Job` whose
    results are these tuples: `locm.tournament.matchplay`'s games); ``target`` is the worker's function (tests give a
    faulty one: it is started as ``target(conn, parent, limits, sandbox, heartbeat_s)``)."""
    from locm.tournament.pool import supervised

    sandbox = Sandbox() if sandbox is None else sandbox
    sup = supervision or Supervision()
    stall_s = max(limits.as_dict().values()) / 1000.0 + sup.grace_s

    def checked(source: Iterable[Job]) -> Iterator[Job]:
        required = False
        for job in source:
            if not required and not (is_builtin(job.agent0) and is_builtin(job.agent1)):
                require(sandbox)  # no sandbox, no untrusted run: refused before a bot starts
                required = True
            yield job

    if target is None:
        work = work or _game_job(limits, sandbox)
        run = supervised(checked(jobs), workers, supervision=sup, stall_s=stall_s, label=_game_label,
                         verbs=("played", "playing"), stalled="played no turn", error=TournamentError, job=work)
    else:
        run = supervised(checked(jobs), workers, supervision=sup, stall_s=stall_s, label=_game_label,
                         verbs=("played", "playing"), stalled="played no turn", error=TournamentError,
                         target=target, target_args=(limits, sandbox, sup.heartbeat_s))
    try:
        for kind, job, value in run:
            if kind == "done":
                yield value
            elif kind == "raised":  # `_play` reports its errors: only a bug of the pool's own gets here
                yield "failed", job.game_id, f"{type(value).__name__}: {value}", None
            elif kind == "tick":
                yield "tick", None, None, None
            else:
                yield kind, None if job is None else job.game_id, value, None
    finally:
        run.close()


def _game_label(job) -> str:
    return f"game {job.game_id}"


class _GameWork:
    """A worker's work: one job played and prepared (`_play`), with its seats made ahead (`_Ahead`)."""

    def __init__(self, limits: TimeLimits, sandbox: Sandbox) -> None:
        self.limits, self.sandbox = limits, sandbox

    def __call__(self, job: Job, seats: list | None) -> tuple:
        return _play(job, self.limits, self.sandbox, seats)


class _Ahead:
    """The seats of the next job with their bots' sandboxes set up while a game is played (`_prepared`)."""

    def __init__(self, limits: TimeLimits, sandbox: Sandbox) -> None:
        self.limits, self.sandbox = limits, sandbox

    def __call__(self, job: Job) -> list | None:
        return _prepared(job, self.limits, self.sandbox)


def _worker(conn, parent: int, limits: TimeLimits, sandbox: Sandbox, heartbeat_s: float = 0.5) -> None:
    """A tournament worker process (`locm.tournament.pool.serve` with the games' work): play the jobs received until None
    or the end of the pipe; say it is alive every ``heartbeat_s`` with the turns played; die, killing its bots,
    when the parent dies."""
    from locm.tournament.pool import serve

    serve(conn, parent, _game_job(limits, sandbox), heartbeat_s)


def _game_job(limits: TimeLimits, sandbox: Sandbox):
    """What a tournament worker runs (`locm.tournament.pool.Job`): each job played and prepared (`_play`), the next job's
    bots' sandboxes, when not kept, prepared while a game is played (`_prepared`), the bots' turns as its
    progress; each bot's sandbox kept for its next game in this worker, where it can be (`locm.runner.sandbox.kept`),
    all closed when the worker ends."""
    from locm.tournament.pool import Job as PoolJob

    return PoolJob(_GameWork(limits, sandbox), init=sandbox_kept.keep, beat=turns_played,
                   ahead=_Ahead(limits, sandbox), close=sandbox_kept.close_all)


def _prepared(job: Job | None, limits: TimeLimits, sandbox: Sandbox) -> list | None:
    """The seats of a job with their bots' sandboxes set up (`BotAgent.prepare`), or None."""
    if job is None:
        return None
    try:
        seats = make_seats(job.seed, (job.agent0, job.agent1), limits, sandbox)
    except Exception:  # `_play` meets the same error and reports it
        return None
    rules = by_name(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset  # as `Game.new` resolves it
    for agent in seats:
        if isinstance(agent, BotAgent):
            agent.prepare(rules)
    return seats


def _play(job: Job, limits: TimeLimits, sandbox: Sandbox, seats: list | None = None) -> tuple:
    """A worker's result for one job: ``("game", id, PreparedGame, None)`` or ``("failed", id, error, None)``."""
    try:
        played = run_game(job.ruleset, job.seed, (job.agent0, job.agent1), limits=limits, versions=job.bots,
                          place=job.place, sandbox=sandbox, seats=seats)
        if played.game_id != job.game_id:  # pragma: no cover - the id of a game is known before it is played
            raise TournamentError(f"the game played is {played.game_id}, not the scheduled {job.game_id}")
        return "game", job.game_id, prepare_game(played.extras, played.game.log), None
    except Exception as exc:  # a bug in the engine or an agent: report it, go on with the next game
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return "failed", job.game_id, line, None


# --- checking stored games -------------------------------------------------------------------------------


def check_stored_game(store: EventStore, record: GameRecord, redecide: bool = True) -> str | None:
    """None if a stored game is sound (`locm.verify.checks.stored_problem`: its chain, its fold, re-deciding it with
    `redecide`, its id); otherwise what is wrong, in one line."""
    from locm.verify.checks import stored_problem

    return stored_problem(store, record, redecide).problem


class BotStderr(NamedTuple):
    """What a stored game keeps of one seat's standard error (bots only; built-in agents write none)."""

    seat: int
    agent: str
    text: str
    failed: bool  # the seat lost by a hard error or a timeout


def stored_stderr(store: EventStore, game_id: str) -> list[BotStderr]:
    """Every seat's kept stderr of a stored game of any game (`GameNotFoundError` if there is none)."""
    m = store.match(game_id)
    return [BotStderr(seat, agent, x.stderr, x.error or x.timeout)
            for seat, (agent, x) in enumerate(zip(m.agents, m.seats))]


# --- standings --------------------------------------------------------------------------------------------


@dataclass
class Standing:
    agent: str
    games: int = 0
    wins: int = 0
    errors: int = 0
    timeouts: int = 0
    think_ms: float = 0.0  # total over the turns counted
    think_turns: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def avg_think_ms(self) -> float | None:
        return self.think_ms / self.think_turns if self.think_turns else None


def seat_entry(agent: str, seat: int) -> str:
    """The name of one seat of an agent playing itself, in the standings: ``greedy (seat 0)``."""
    return f"{agent} (seat {seat})"


def _entries(agents: Sequence[str]) -> tuple[list[str], tuple[str, ...]]:
    """The standings' rows: each agent once (its games against the others), and for an agent given twice
    (playing itself) one row per seat of those games, so that no game counts twice in a row."""
    distinct = list(dict.fromkeys(agents))
    selfplay = tuple(a for a in distinct if list(agents).count(a) > 1)
    rows = distinct if len(distinct) > 1 else []
    return rows + [seat_entry(a, s) for a in distinct if a in selfplay for s in (0, 1)], selfplay


def standings(records: Sequence[GameRecord], agents: Sequence[str]) -> list[Standing]:
    """Per agent (in the order given): games, wins, hard errors, timeouts and think time per turn,
    from stored records. An agent's row counts its games against the other agents; an agent given twice has
    its games against itself in two more rows, one per seat (`seat_entry`)."""
    names, selfplay = _entries(agents)
    table = {a: Standing(a) for a in names}
    for r in records:
        try:
            turns = json.loads(r.meta).get("turns", [1, 1])
        except (ValueError, AttributeError):
            turns = [1, 1]
        if r.agent0 == r.agent1:
            if r.agent0 not in selfplay:
                continue
            seats = (seat_entry(r.agent0, 0), seat_entry(r.agent1, 1))
        else:
            seats = (r.agent0, r.agent1)
        for s, name in enumerate(seats):
            st = table.get(name)
            if st is None:
                continue
            st.games += 1
            st.wins += r.winner == s
            st.errors += getattr(r, f"error{s}")
            st.timeouts += getattr(r, f"timeout{s}")
            ms = getattr(r, f"think_ms{s}")
            if ms is not None and turns[s]:
                st.think_ms += ms * turns[s]
                st.think_turns += turns[s]
    return list(table.values())


def standings_rows(table: list[Standing]) -> list[tuple]:
    rows = []
    for st in table:
        lo, hi = st.interval
        think = "-" if st.avg_think_ms is None else f"{st.avg_think_ms:.2f}"
        rows.append((st.agent, st.games, st.wins, f"{100 * st.win_rate:.1f}%",
                     f"[{100 * lo:.1f}%, {100 * hi:.1f}%]", st.errors, st.timeouts, think))
    return rows


STANDINGS_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "errors", "timeouts", "think ms")


def pair_rows(records: Sequence[GameRecord], agents: Sequence[str]) -> list[tuple]:
    """Head to head, one row per pair in schedule order: games, each side's wins; an agent playing itself
    is one row of its two seats (`seat_entry`)."""
    rows = []
    distinct = list(dict.fromkeys(agents))
    for a, b in itertools.combinations(distinct, 2):
        both = [r for r in records if {r.agent0, r.agent1} == {a, b} and a != b]
        wins_a = sum((r.agent0, r.agent1)[r.winner] == a for r in both)
        rows.append((a, b, len(both), wins_a, len(both) - wins_a))
    for a in _entries(agents)[1]:
        mirror = [r for r in records if r.agent0 == r.agent1 == a]
        wins_0 = sum(r.winner == 0 for r in mirror)
        rows.append((seat_entry(a, 0), seat_entry(a, 1), len(mirror), wins_0, len(mirror) - wins_0))
    return rows


PAIR_HEADERS = ("agent A", "agent B", "games", "A wins", "B wins")


def sandbox_lines(records: Sequence[GameRecord]) -> list[str]:
    """How the bots of these games were confined, from each game's ``meta.sandbox``: one line per way, with
    its number of games (games without a bot have none). Unsandboxed games and games with the network are
    said in capitals, so that standings never hide them."""
    ways: dict[str, int] = {}
    for r in records:
        try:
            box = json.loads(r.meta).get("sandbox")
        except (ValueError, AttributeError):
            continue
        if isinstance(box, dict):
            key = json.dumps(box, sort_keys=True)
            ways[key] = ways.get(key, 0) + 1
    lines = []
    for key, n in ways.items():
        box = json.loads(key)
        if box.get("tool") == "none":
            how = "UNSANDBOXED (--no-sandbox)"
        else:
            how = f"sandboxed ({box.get('tool')}; limits {box.get('limits')}"
            how += "; NETWORK ON" if box.get("network") else "; no network"
            how += "; kept per bot across games" if box.get("kept") else ""
            how += f"; also shown: {', '.join(map(str, box.get('binds') or []))})" if box.get("binds") else ")"
        lines.append(f"bots: {n} game{'s' * (n != 1)} {how}")
    return lines


__all__ = ["game_id", "run_game", "make_seats", "PlayedGame", "Job", "Schedule", "schedule", "record_schedule",
           "MAX_GAMES", "pending", "iter_pending", "count_stored", "play_jobs", "run_tournament", "TournamentRun",
           "check_stored_game", "bot_fingerprint", "changed_bots", "stored_stderr", "BotStderr", "Standing",
           "seat_entry", "standings", "standings_rows", "sandbox_lines", "pair_rows", "STANDINGS_HEADERS",
           "PAIR_HEADERS", "Supervision", "HANDOFF", "WRITE_BATCH", "WRITE_AFTER_S", "stored_versions",
           "other_versions"]
