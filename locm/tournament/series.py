"""Best-of-N series, a scheduled unit of `locm play --best-of N` and `locm tournament --best-of N`, for any
two-seat game.

A series is two sides (two agents, seated as its first match has them) playing matches until one side has won
a majority of ``N`` (odd), or all ``N`` are played (a game with draws may end a series even). Its matches are
played one after the other, in one worker, and stored together (`play_series`); each is an ordinary stored
game whose ``meta`` says ``series`` (the series' id), ``match`` (1 to N), ``best_of`` and ``sides`` (the
series' side in each seat). Match ``k`` (0-based) of a series whose first seed is ``s`` plays seed ``s + k``;
a tournament's series ``j`` of a pairing starts at seed ``seed + j * N`` (`series_schedule`).

Who sits where and starts is the game's series rule: its player's ``series_match(schedule, head, k,
previous)`` (match ``k``'s `Job` and sides, given a schedule of the game that computes ids, the series' first
job and the previous match's log), else `alternate`: the sides
swap seats every match (LOCM and Skyport, whose seat 0 moves first). my-card-game keeps its seats and gives
the starter as its text says (R-SERIES, `locm.games.mcg.tournament.series_match`).

Ids are deterministic: a series' id names its first match (`series_id`), and each match's id is its content's,
known before it is played; match ``k``'s depends on the matches before it only through the series rule, so a
series is resumed by walking its stored matches (`walk`, `resume`): a finished series is skipped,
a series cut short is played on from its first match not stored, with the wins so far. A series' new matches
are stored together, in one transaction, or not at all (a series that failed: the same command again plays
it). A series' schedule is not kept in the store (its matches' ids are known only as it is played, and `locm
verify` names a missing game of a kept schedule by id).
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

import msgspec

from locm.engine import registry
from locm.errors import TournamentError
from locm.tournament.schedule import Job

MAX_BEST_OF = 99
"""The longest series (a best-of-99 is already longer than any match format in use)."""


def check_best_of(n: int) -> int:
    """``n`` as a series' length: an odd number from 1 to `MAX_BEST_OF` (`TournamentError` otherwise)."""
    if not isinstance(n, int) or n < 1 or n % 2 == 0 or n > MAX_BEST_OF:
        raise TournamentError(f"--best-of {n}: expected an odd number from 1 to {MAX_BEST_OF} (a majority decides)")
    return n


class Series(NamedTuple):
    """One scheduled series: its id, its first match's job (``head``: the game, rules, first seed, the sides'
    agents in the first match's seats and their bots), its length, and, when resumed, where it stands: the
    matches stored (``start``), each side's wins, and the job and sides of the next match (``upcoming``)."""

    series_id: str
    head: Job
    best_of: int
    start: int = 0
    wins: tuple[int, int] = (0, 0)
    upcoming: tuple[Job, tuple[int, int]] | None = None

    @property
    def game_id(self) -> str:
        """The series' id, as the pool names a task by it (`locm.tournament.run`)."""
        return self.series_id

    @property
    def game(self) -> str:
        return self.head.game

    @property
    def agents(self) -> tuple[str, ...]:
        return self.head.agents

    @property
    def has_bot(self) -> bool:
        return self.head.has_bot


def series_id(head: Job, best_of: int) -> str:
    """A series' id: what its first match's id and its length give (``s`` and 31 hex digits), so the same
    series in another tournament, or played alone, has the same id."""
    return "s" + hashlib.sha256(f"series:{head.game_id}:{best_of}".encode()).hexdigest()[:31]


def alternate(schedule, head: Job, k: int, previous: Sequence | None) -> tuple[Job, tuple[int, int]]:
    """The generic series rule: match ``k`` on seed ``head.seed + k``, the sides' seats swapped every match;
    its id by the schedule's (`Schedule._game_id`)."""
    sides = (0, 1) if k % 2 == 0 else (1, 0)
    agents = tuple(head.agents[s] for s in sides)
    bots = tuple(head.bots[s] for s in sides) if head.bots else ()
    seed = head.seed + k
    return Job(schedule._game_id(seed, agents, bots), head.game, head.ruleset, seed, agents, bots), sides


def match_job(player, schedule, head: Job, k: int, previous: Sequence | None) -> tuple[Job, tuple[int, int]]:
    """Match ``k``'s job and the sides by seat, by the game's series rule (its player's ``series_match``, else
    `alternate`); ``previous``: the log of match ``k - 1`` (None for the first)."""
    rule = getattr(player, "series_match", None)
    if rule is None:
        return alternate(schedule, head, k, previous)
    return rule(schedule, head, k, previous)


def decided(wins: Sequence[int], best_of: int) -> bool:
    """Whether a side has won a majority of the series."""
    return max(wins) > best_of // 2


def _meta(prepared, sid: str, k: int, best_of: int, sides: tuple[int, int]):
    """A match's prepared game with its series in its meta (the meta is not in the log's hash chain)."""
    try:
        meta = json.loads(prepared.record.meta)
    except ValueError:
        meta = {}
    meta.update(series=sid, match=k + 1, best_of=best_of, sides=list(sides))
    record = msgspec.structs.replace(prepared.record, meta=json.dumps(meta, separators=(",", ":")))
    return prepared._replace(record=record)


def play_series(series: Series, limits, sandbox) -> list:
    """Play a series from where it stands to its end (a majority, or all its matches) and return its new
    matches prepared for the store, each with its series in its meta. The matches are played by the game's
    player (its ``play``), the next one's job made by its series rule from the last one's log."""
    from locm.tournament.players import players

    player = players(series.game)
    schedule = _schedules.get(series.head.game, series.head.ruleset)
    game = registry.get(series.game)
    wins = list(series.wins)
    out = []
    job, sides = series.upcoming or match_job(player, schedule, series.head, series.start, None)
    for k in range(series.start, series.best_of):
        prepared = player.play(job, limits, sandbox)
        if prepared.record.game_id != job.game_id:
            raise TournamentError(f"series {series.series_id}: match {k + 1} is {prepared.record.game_id}, not the "
                                  f"scheduled {job.game_id}")
        out.append(_meta(prepared, series.series_id, k, series.best_of, sides))
        winner = prepared.record.winner
        if winner >= 0:
            wins[sides[winner]] += 1
        if decided(wins, series.best_of) or k + 1 == series.best_of:
            break
        events = game.codec.from_jsonl(zlib.decompress(prepared.data)) if _needs_log(player) else None
        job, sides = match_job(player, schedule, series.head, k + 1, events)
    return out


def _needs_log(player) -> bool:
    return hasattr(player, "series_match")


class _Schedules:
    """What computes a match's id for the series rule (`alternate`): a schedule of the game and rules
    (`SeatsRoundRobin._game_id`, which reads only the game, its rules and the match's seed, seats and bots),
    made once per game and rules in each process."""

    def __init__(self) -> None:
        self._made: dict = {}

    def get(self, game: str, ruleset):
        key = (game, msgspec.json.encode(ruleset) if not isinstance(ruleset, str) else ruleset)
        if key not in self._made:
            from locm.tournament.schedule import SeatsRoundRobin

            names = registry.get(game).agent_names
            self._made[key] = SeatsRoundRobin(game, ruleset, names[:2], 0, 2, 2, {a: "" for a in names[:2]})
        return self._made[key]


_schedules = _Schedules()


def series_schedule(game_name: str, ruleset, agents: Sequence[str], series: int, best_of: int,
                    seed: int = 1) -> list[Series]:
    """A tournament's series: every pair of agents plays ``series`` series (an even number: half of them with
    the pair's first agent in the first match's seat 0, half the other way), series ``j`` of a seating starting
    at seed ``seed + j * best_of``; an agent against itself plays ``series / 2`` (its two seatings are the same
    series). A game of more than two seats has no series (`TournamentError`)."""
    from locm.tournament.schedule import seats_schedule

    check_best_of(best_of)
    game = registry.get(game_name)
    if game.seats[0] != 2:
        raise TournamentError(f"--best-of: a series is two sides, and {game.title} is played by {game.seats[0]} "
                              "or more")
    heads = seats_schedule(game_name, ruleset, agents, series, seed, 2)
    out: dict[str, Series] = {}
    for j in heads:
        seed0 = seed + (j.seed - seed) * best_of
        head = j._replace(seed=seed0, game_id=heads._game_id(seed0, j.agents, j.bots), place=None)
        sid = series_id(head, best_of)
        out.setdefault(sid, Series(sid, head, best_of))  # an agent against itself: both seatings are one series
    return list(out.values())


def one_series(game_name: str, rules, agents: Sequence[str], seed: int, best_of: int) -> Series:
    """`locm play --best-of N`'s series: the agents as given in the first match's seats, from ``seed``."""
    from locm.tournament.schedule import bot_versions

    check_best_of(best_of)
    game = registry.get(game_name)
    if game.seats[0] != 2 or len(agents) != 2:
        raise TournamentError(f"--best-of: a series is two sides, got {len(agents)} agents")
    versions = dict(zip(agents, bot_versions(game, agents)))
    sched = _schedules.get(game.name, rules)
    bots = tuple(versions[a] for a in agents)
    head = Job(sched._game_id(seed, tuple(agents), bots), game.name, rules, seed, tuple(agents), bots)
    return Series(series_id(head, best_of), head, best_of)


@dataclass
class SeriesResult:
    """One series as stored: its sides' agents, each side's wins, its matches' ids, whether it is over."""

    series_id: str
    agents: tuple[str, str]
    best_of: int
    wins: list[int] = field(default_factory=lambda: [0, 0])
    games: list[str] = field(default_factory=list)
    over: bool = False

    @property
    def winner(self) -> int:
        """The side that won (-1: not over, or even)."""
        if not self.over or self.wins[0] == self.wins[1]:
            return -1
        return 0 if self.wins[0] > self.wins[1] else 1


def walk(store, series: Series) -> tuple[SeriesResult, tuple[Job, tuple[int, int]] | None]:
    """A series as ``store`` holds it, its matches found by the series rule one after the other, and the job
    and sides of its next match (None when it is over: a majority, or every match stored). A stored match that
    is another game under its id, or one this store neither played nor imported under --trust, is refused
    (`TournamentError`, `locm.tournament.run._stored`)."""
    from locm.tournament.players import players
    from locm.tournament.run import _stored

    player = players(series.game)
    schedule = _schedules.get(series.head.game, series.head.ruleset)
    res = SeriesResult(series.series_id, (series.head.agents[0], series.head.agents[1]), series.best_of)
    previous = None
    for k in range(series.best_of):
        job, sides = match_job(player, schedule, series.head, k, previous)
        if not _stored(store, job):  # refuses another game under its id, or one the store did not play (provenance)
            return res, (job, sides)
        record = store.game(job.game_id)
        res.games.append(job.game_id)
        if record.winner >= 0:
            res.wins[sides[record.winner]] += 1
        if decided(res.wins, series.best_of):
            break
        previous = store.events(job.game_id) if _needs_log(player) else None
    res.over = True
    return res, None


def resume(store, series: Series) -> Series | None:
    """Where a series stands in ``store`` (`walk`): None when it is over, else the series with its matches
    stored, the wins so far and its next match."""
    res, upcoming = walk(store, series)
    if upcoming is None:
        return None
    return series._replace(start=len(res.games), wins=(res.wins[0], res.wins[1]), upcoming=upcoming)


def results(store, schedule: Sequence[Series]) -> list[SeriesResult]:
    """Each scheduled series as the store holds it (`walk`)."""
    return [walk(store, series)[0] for series in schedule]


class SeriesPlaces:
    """The stored games of a series tournament in play order (series by series, match by match), as a
    player's ``standings_lines`` reads a schedule: `place_of` a record (ratings are sequential) and `holds`."""

    def __init__(self, done: Sequence[SeriesResult]) -> None:
        self._at = {gid: k for k, gid in enumerate(g for r in done for g in r.games)}

    def __len__(self) -> int:
        return len(self._at)

    def place_of(self, record: Any) -> int | None:
        return self._at.get(record.game_id)

    def holds(self, record: Any) -> bool:
        return record.game_id in self._at


@dataclass
class SeriesStanding:
    """One agent's series: played (over), won, lost, even, and the share won with its 95% Wilson interval."""

    agent: str
    series: int = 0
    won: int = 0
    lost: int = 0

    @property
    def even(self) -> int:
        return self.series - self.won - self.lost


def series_standings(done: Sequence[SeriesResult], agents: Sequence[str]) -> list[SeriesStanding]:
    """Per agent, its finished series, most won first; an agent's series against itself are in two rows of
    their own, one per side (``greedy (side 0)``: the side in seat 0 of the first match)."""
    distinct = list(dict.fromkeys(agents))
    table = {a: SeriesStanding(a) for a in (distinct if len(distinct) > 1 else [])}
    for r in done:
        if not r.over:
            continue
        same = r.agents[0] == r.agents[1]
        for side, agent in enumerate(r.agents):
            name = f"{agent} (side {side})" if same else agent
            st = table.setdefault(name, SeriesStanding(name)) if same else table.get(name)
            if st is None:
                continue
            st.series += 1
            st.won += r.winner == side
            st.lost += r.winner == 1 - side
    return sorted(table.values(), key=lambda s: (-(s.won / s.series if s.series else 0), s.agent))


SERIES_HEADERS = ("agent", "series", "won", "lost", "even", "won share", "95% interval")


def series_lines(done: Sequence[SeriesResult], agents: Sequence[str]) -> list[str]:
    """The standings by series, as a table, and a line on the series not over."""
    from locm.analysis.stats import wilson
    from locm.common.tables import table

    rows = []
    for s in series_standings(done, agents):
        lo, hi = wilson(s.won, s.series) if s.series else (0.0, 0.0)
        rows.append((s.agent, s.series, s.won, s.lost, s.even, f"{s.won / s.series:.1%}" if s.series else "-",
                     f"{lo:.1%}-{hi:.1%}"))
    best_of = done[0].best_of if done else 0
    lines = [f"by series (best of {best_of}):", table(SERIES_HEADERS, rows)]
    open_ = sum(not r.over for r in done)
    if open_:
        lines.append(f"{open_} series not over (the same command again plays them on)")
    return lines


def run_series(store, schedule: Sequence[Series], workers: int = 1, progress: Callable[[int], None] | None = None,
               limits=None, sandbox=None, on_incident: Callable[[str], None] | None = None):
    """Play the series of ``schedule`` not over in ``store`` and store their matches as they come, each series'
    new matches in one transaction (`locm.tournament.run.store_as_played`); with more than one worker, or a bot,
    by the supervised worker processes (a series, like a game, is played again once when its worker is lost);
    else in this process. ``progress(k)`` after k series are stored. Returns the run
    (`locm.tournament.run.TournamentRun`: its ``scheduled`` and ``already`` count series, ``played`` games)."""
    from locm.runner.bots import TimeLimits
    from locm.tournament.run import TournamentRun, WRITE_BATCH, play_jobs, store_as_played

    todo = [s for s in (resume(store, s) for s in schedule) if s is not None]
    limits = limits or TimeLimits()
    if todo and (workers > 1 or any(s.has_bot for s in todo)):
        from locm.tournament.pool import Work
        from locm.tournament.run import progress as beat

        work = Work(_PlaySeries(limits, sandbox), beat=beat)
        run = play_jobs(store, todo, workers=workers, limits=limits, progress=progress, scheduled=len(schedule),
                        count=len(todo), sandbox=sandbox, on_incident=on_incident, work=work)
    else:
        run, t0 = TournamentRun(len(schedule), len(schedule) - len(todo)), time.perf_counter()
        items = (series_result(s, limits, sandbox) for s in todo)
        run.duplicates += store_as_played(store, items, run, WRITE_BATCH, progress, on_incident)
        run.seconds = time.perf_counter() - t0
    return run


def series_result(series: Series, limits, sandbox, seats: list | None = None) -> tuple:
    """A worker's result for one series, as the pool's for a game (`locm.tournament.run.play_job`):
    ``("game", id, [PreparedGame, ...], None)`` or ``("failed", id, error, None)``."""
    import traceback

    try:
        return "game", series.series_id, play_series(series, limits, sandbox), None
    except Exception as exc:  # a bug in the engine or an agent: report it, go on with the next series
        return "failed", series.series_id, traceback.format_exception_only(type(exc), exc)[-1].strip(), None


class _PlaySeries(NamedTuple):
    """A worker's work: one series played (`series_result`)."""

    limits: object
    sandbox: object

    def __call__(self, series: Series, seats: list | None = None) -> tuple:
        return series_result(series, self.limits, self.sandbox)


__all__ = ["MAX_BEST_OF", "Series", "SeriesResult", "SeriesPlaces", "SeriesStanding", "SERIES_HEADERS", "alternate",
           "check_best_of", "decided", "match_job", "one_series", "play_series", "results", "resume", "run_series",
           "series_id", "series_lines", "series_result", "series_schedule", "series_standings", "walk"]
