"""Games with stored results: one game (`run_game`), a round robin over worker processes (`run_tournament`),
and the standings of stored games (`standings`).

Game ids are deterministic: ``f"{ruleset}-{seed}-{h}"`` where ``h`` is the first 12 hex digits of the
SHA-256 of ``[ruleset, seed, agent0, agent1, sorted params]`` as compact JSON (`game_id`). The same game
asked for twice has the same id, so a store never holds it twice and an interrupted tournament resumes by
skipping the ids already stored.

Round robin (`schedule`): every pair of agents plays ``games`` games, half the seeds ``seed .. seed +
games/2 - 1`` with the first agent of the pair in seat 0 and the same seeds with the seats swapped (mirrored
seeds); every pair gets the same seeds. An odd ``games`` is refused: a seed played in one seat only would
give that pair a seat bias.

Processes: ``workers`` processes from the ``spawn`` context play the games, check, encode, chain and
compress each one (`locm.store.prepare_game`: its record and its log as the one zlib blob the store keeps,
about 9 KB for a 1.2 game, so a game crosses the pipe as one small pickle) and send it back, each through its
own pipe with at most `HANDOFF` games in hand (the schedule is read lazily, and memory stays flat however
slow the store is); the main process is the only writer of the store and stores each game in its own
transaction (`EventStore.append_prepared`: two INSERTs) as it arrives, so that it needs a small part of a
core (`benchmarks/bench_tournament.py` reports its CPU time per game) and the workers have the rest. The
workers do not import sqlite-utils (`locm.store` imports it only to open a store), so they start sooner. A worker notices that the main process died (its parent pid changes; checked every
`WATCHDOG_S`) or is sent SIGTERM, kills the process groups of the bots it is running and exits; the main
process terminates its workers when it is interrupted (Ctrl-C, SIGTERM) or fails.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple


from locm.analysis.stats import wilson
from locm.engine.agents import play
from locm.engine.errors import LocmError
from locm.engine.evolve import fold
from locm.engine.game import Game
from locm.engine.rulesets import RULESETS, Rules, rules_hash
from locm.engine.state import ENDED
from locm.events.catalog import GameEnded, HardError
from locm.bots import BotAgent, TimedAgent, TimeLimits, command_argv, is_builtin, kill_all, make_agent
from locm.errors import TournamentError
from locm.play import seat_seed
from locm.store import DuplicateGameError, EventStore, GameExtras, GameRecord, prepare_game

WATCHDOG_S = 0.2
"""How often a worker checks that the main process is still alive."""
_INT64 = (-(1 << 63), (1 << 63) - 1)


# --- one game ---------------------------------------------------------------------------------------------


def game_id(ruleset: str | Rules, seed: int, agents: Sequence[str], params: dict | None = None) -> str:
    """The deterministic id of a game: ruleset, seed and a short hash of everything that defines it. A
    variant's id also hashes its resolved values (`rules_hash`): two variant files of the same name but
    different values never share ids."""
    name, extra = _ruleset_key(ruleset)
    key = json.dumps([name, seed, agents[0], agents[1], sorted((params or {}).items())] + extra,
                     separators=(",", ":"), ensure_ascii=False)
    return f"{name}-{seed}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _ruleset_key(ruleset: str | Rules) -> tuple[str, list]:
    if isinstance(ruleset, str):
        return ruleset, []
    if RULESETS.get(ruleset.name) == ruleset:
        return ruleset.name, []
    return ruleset.name, [rules_hash(ruleset)]


@dataclass
class PlayedGame:
    game: Game
    extras: GameExtras

    @property
    def game_id(self) -> str:
        return self.extras.game_id


def run_game(ruleset: str | Rules, seed: int, agents: Sequence[str], params: dict | None = None,
             limits: TimeLimits | None = None) -> PlayedGame:
    """Play one game between two agents (built-in names or command lines) and return it with the record's
    extras: each seat's stderr (bots), average think time per turn (ms), hard-error and timeout flags, and
    ``meta`` JSON with the turns answered, the slowest turn and, with a bot, the time limits. Every bot
    process is killed before this returns or raises."""
    limits = limits or TimeLimits()
    game = Game.new(ruleset, seed, params, agents=tuple(agents))
    seats = [make_agent(agents[s], seat_seed(seed, s), limits) for s in (0, 1)]
    seats = [a if isinstance(a, BotAgent) else TimedAgent(a) for a in seats]
    bots = [a for a in seats if isinstance(a, BotAgent)]
    try:
        for bot in bots:
            bot.start(game.rules)  # both at once, so that their start-up overlaps
        play(game, seats)
    finally:
        for bot in bots:
            bot.stop()
    return PlayedGame(game, _extras(game_id(ruleset, seed, agents, params), game, seats, limits, bool(bots)))


def _extras(gid: str, game: Game, seats: list, limits: TimeLimits, with_bots: bool) -> GameExtras:
    errors = {e.player for e in game.log if type(e) is HardError}
    meta = {"turns": [a.turns for a in seats], "think_max_ms": [round(a.think_ms_max, 3) for a in seats]}
    if with_bots:
        meta["limits_ms"] = limits.as_dict()
        meta["bot_sha256"] = [bot_fingerprint(a.command) if isinstance(a, BotAgent) else None for a in seats]
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


# --- the schedule -----------------------------------------------------------------------------------------


class Job(NamedTuple):
    game_id: str
    ruleset: str | Rules
    seed: int
    agent0: str
    agent1: str


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

    def __init__(self, ruleset: str | Rules, agents: Sequence[str], seed: int, seeds: int) -> None:
        self.ruleset, self.agents, self.seed, self.seeds = ruleset, tuple(agents), seed, seeds
        distinct = list(dict.fromkeys(agents))
        self.selfplay = tuple(a for a in distinct if self.agents.count(a) > 1)
        self.pairs = [p for a, b in itertools.combinations(distinct, 2) for p in ((a, b), (b, a))]
        self._slots = [(a, b, 0) for a, b in self.pairs]
        self._slots += [(a, a, k * seeds) for a in self.selfplay for k in (0, 1)]
        self._pair_set = frozenset(self.pairs)

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
        return self._job(s, self._slots[k])

    def __iter__(self):
        for s in range(self.seeds):
            for slot in self._slots:
                yield self._job(s, slot)

    def holds(self, record: GameRecord) -> bool:
        """Whether a stored game is one of this schedule's (arithmetic: nothing is enumerated)."""
        name = self.ruleset if isinstance(self.ruleset, str) else self.ruleset.name
        pair = (record.agent0, record.agent1)
        if record.agent0 == record.agent1:
            ok, span = record.agent0 in self.selfplay, 2 * self.seeds
        else:
            ok, span = pair in self._pair_set, self.seeds
        return (ok and record.ruleset == name and self.seed <= (record.seed or 0) < self.seed + span
                and record.game_id == game_id(self.ruleset, record.seed, pair))

    def _job(self, step: int, slot: tuple[str, str, int]) -> Job:
        a, b, offset = slot
        seed = self.seed + step + offset
        return Job(game_id(self.ruleset, seed, (a, b)), self.ruleset, seed, a, b)


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
    failed: list[tuple[str, str]]  # (game id, error) of games whose worker raised
    seconds: float


def pending(store: EventStore, jobs: Iterable[Job]) -> list[Job]:
    """The jobs whose game is not stored yet (a list: for a short schedule; see `iter_pending`)."""
    return list(iter_pending(store, jobs))


def iter_pending(store: EventStore, jobs: Iterable[Job]) -> Iterator[Job]:
    """The jobs whose game is not stored yet, one at a time (each looked up when it is reached)."""
    return (j for j in jobs if not store.has_game(j.game_id))


def count_stored(store: EventStore, jobs: Iterable[Job]) -> int:
    """How many of the jobs' games are stored (one pass, nothing kept)."""
    return sum(1 for j in jobs if store.has_game(j.game_id))


HANDOFF = 2
"""Games handed to each worker ahead of the writer: a worker starts a game only when the writer has taken
one, so games played but not stored stay below ``HANDOFF * workers`` however slow the store is."""


def play_jobs(store: EventStore, jobs: Iterable[Job], *, workers: int = 1, limits: TimeLimits | None = None,
              progress: Callable[[int], None] | None = None, scheduled: int | None = None,
              count: int | None = None) -> TournamentRun:
    """Play `jobs` in `workers` processes and store each game as it arrives (one transaction each);
    ``progress(1)`` after each game. ``jobs`` may be a lazy iterable (then give ``count``, the number of
    jobs, for the summary); it is consumed as workers become free."""
    if workers < 1:
        raise TournamentError(f"--workers must be at least 1, got {workers}")
    if count is None:
        jobs = list(jobs)
        count = len(jobs)
    total = count if scheduled is None else scheduled
    run = TournamentRun(total, total - count, 0, 0, [], 0.0)
    t0 = time.perf_counter()
    for kind, gid, a, b in _pool(jobs, max(1, min(workers, count)), limits or TimeLimits()):
        if kind == "game":
            try:
                store.append_prepared(a)
                run.played += 1
            except DuplicateGameError:
                run.duplicates += 1
        else:
            run.failed.append((gid, a))
        if progress:
            progress(1)
    run.seconds = time.perf_counter() - t0
    return run


def run_tournament(store: EventStore, ruleset: str, agents: Sequence[str], games: int, *, workers: int = 1,
                   seed: int = 1, limits: TimeLimits | None = None,
                   progress: Callable[[int], None] | None = None) -> TournamentRun:
    """`schedule`, then play the games `store` lacks (`iter_pending`, `play_jobs`)."""
    jobs = schedule(ruleset, agents, games, seed)
    todo, count = to_play(store, jobs)
    return play_jobs(store, todo, workers=workers, limits=limits, progress=progress, scheduled=len(jobs),
                     count=count)


def to_play(store: EventStore, jobs: Schedule) -> tuple[Iterable[Job], int]:
    """The jobs of `jobs` whose game is not stored yet, as a lazy iterable, and how many they are. A new
    store holds none of them: then no look-up per game (a game that another run stores meanwhile is refused
    by the store and counted as a duplicate)."""
    if not store.count():
        return jobs, len(jobs)
    return iter_pending(store, jobs), len(jobs) - count_stored(store, jobs)


def _pool(jobs: Iterable[Job], workers: int, limits: TimeLimits):
    """Yield ``("game", id, PreparedGame, None)`` (checked, encoded, chained and compressed in the worker, so
    the one writing process only runs the SQL) or ``("failed", id, message, None)`` for every job, played by
    `workers` spawned processes. Each worker has its own pipe and at most `HANDOFF` jobs in hand; a job is
    taken from ``jobs`` only when a result comes back. Pipes, not queues: no named semaphores, so nothing
    for the resource tracker to warn about when the main process is killed. The workers are terminated when
    this generator is closed or fails."""
    source = iter(jobs)
    first = list(itertools.islice(source, HANDOFF * workers))
    if not first:
        return
    source = itertools.chain(first, source)
    ctx = multiprocessing.get_context("spawn")
    procs, hands = [], {}
    try:
        for i in range(min(workers, len(first))):
            mine, theirs = ctx.Pipe(duplex=True)
            p = ctx.Process(target=_worker, args=(theirs, os.getpid(), limits), daemon=True, name=f"locm-worker-{i}")
            p.start()
            theirs.close()
            procs.append(p)
            hands[mine] = [p, 0]
        exhausted = False

        def hand_out(conn) -> None:
            nonlocal exhausted
            hand = hands[conn]
            while not exhausted and hand[1] < HANDOFF:
                job = next(source, None)
                if job is None:
                    exhausted = True
                    return
                conn.send(job)
                hand[1] += 1

        for conn in hands:
            hand_out(conn)
        while busy := [c for c, (_, n) in hands.items() if n]:
            for conn in multiprocessing.connection.wait(busy, timeout=0.5):
                try:
                    item = conn.recv()
                except (EOFError, OSError):  # the worker died (a reset pipe when it died starting)
                    p, n = hands[conn]
                    p.join(timeout=1)
                    raise TournamentError(f"{p.name} ended (exit {p.exitcode}) with {n} games in hand") from None
                hands[conn][1] -= 1
                hand_out(conn)
                yield item
    finally:
        for conn in hands:
            with contextlib.suppress(OSError):
                conn.send(None)  # done: the worker exits
            conn.close()
        for p in procs:
            p.join(timeout=0.5)
            if p.is_alive():
                p.terminate()  # SIGTERM: the worker kills its bots and exits
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():  # pragma: no cover - a worker stuck beyond SIGTERM
                p.kill()
                p.join()


def _worker(conn, parent: int, limits: TimeLimits) -> None:
    """A worker process: play the jobs received until None or the end of the pipe; die (killing its bots)
    when the parent dies."""
    def die(*_):
        kill_all()
        os._exit(1)

    def watchdog():
        while True:
            if os.getppid() != parent:
                die()
            time.sleep(WATCHDOG_S)

    signal.signal(signal.SIGTERM, die)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the main process decides
    threading.Thread(target=watchdog, daemon=True, name="locm-watchdog").start()
    if os.getppid() != parent:
        die()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            played = run_game(job.ruleset, job.seed, (job.agent0, job.agent1), limits=limits)
            result = ("game", job.game_id, prepare_game(played.extras, played.game.log), None)
        except Exception as exc:  # a bug in the engine or an agent: report it, go on with the next game
            line = traceback.format_exception_only(type(exc), exc)[-1].strip()
            result = ("failed", job.game_id, line, None)
        try:
            conn.send(result)
        except (BrokenPipeError, OSError):
            die()


# --- checking stored games -------------------------------------------------------------------------------


def check_stored_game(store: EventStore, record: GameRecord, redecide: bool = True) -> str | None:
    """None if a stored game is sound: its hash chain is intact, the fold of its events ends the game with
    the recorded winner and reason, and (with `redecide`) every event is what the rules make of the recorded
    inputs (`engine.redecide`); otherwise what is wrong, in one line."""
    gid = record.game_id
    try:
        events = store.verified_events(gid)
    except LocmError as exc:
        return str(exc)
    if not events or type(events[-1]) is not GameEnded:
        return f"the last event is {type(events[-1]).__name__ if events else 'missing'}, not game_ended"
    try:
        state = fold(events)
    except Exception as exc:  # a log that does not fit the rules may break evolve anywhere: report, go on
        return f"the events do not fold: {type(exc).__name__}: {exc}"
    if state.phase != ENDED:
        return f"the fold ends in the {state.phase} phase, not ended"
    if (state.winner, state.end_reason) != (record.winner, record.reason):
        return (f"the fold gives winner {state.winner} by {state.end_reason}, the record says winner "
                f"{record.winner} by {record.reason}")
    loser = 1 - state.winner
    if state.end_reason == "health" and state.players[loser].health > 0:  # R-WIN
        return f"won on health, but the loser (player {loser}) has {state.players[loser].health} health"
    if state.end_reason == "hard_error" and not (type(events[-2]) is HardError and events[-2].player == loser):
        return f"won by a hard error, but the event before the end is not a hard error of player {loser}"
    if redecide:
        from locm.engine.redecide import redecide as redecide_log

        result = redecide_log(events)
        if not result.ok:
            return f"re-decided from its inputs, {result.divergence}"
    return None


class BotStderr(NamedTuple):
    """What a stored game keeps of one seat's standard error (bots only; built-in agents write none)."""

    seat: int
    agent: str
    text: str
    failed: bool  # the seat lost by a hard error or a timeout


def stored_stderr(store: EventStore, game_id: str) -> list[BotStderr]:
    """Both seats' kept stderr of a stored game (`GameNotFoundError` if there is none)."""
    r = store.game(game_id)
    return [BotStderr(0, r.agent0, r.stderr0, r.error0 or r.timeout0),
            BotStderr(1, r.agent1, r.stderr1, r.error1 or r.timeout1)]


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


__all__ = ["game_id", "run_game", "PlayedGame", "Job", "Schedule", "schedule", "MAX_GAMES", "pending", "iter_pending",
           "count_stored", "play_jobs", "run_tournament",
           "TournamentRun", "check_stored_game", "bot_fingerprint", "changed_bots", "stored_stderr", "BotStderr",
           "Standing", "seat_entry", "standings", "standings_rows", "pair_rows", "STANDINGS_HEADERS", "PAIR_HEADERS",
           "WATCHDOG_S"]
