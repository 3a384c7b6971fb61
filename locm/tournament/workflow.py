"""`locm play`'s and `locm tournament`'s workflows, one for every registered game, LOCM's included.

`play`: one game played by its built-in agents or command-line bots (in the sandbox), its summary said line by
line, stored if asked and its log written. `tournament`: the schedule, the games played and stored (resumed
where it stopped), then standings and ratings. The game's player (`locm.tournament.players`: the module its
definition names, else the core's `locm.tournament.matchplay`) plays each game and may give what only that
game has, each an optional function of the module:

=================  ==========================================================================================
``rules``          its reading of ``--ruleset`` (LOCM's aliases and variant files)
``parse_params``   its ``--param NAME=VALUE`` (LOCM's referee parameters); without it ``--param`` is refused
``play_one``       one game for `locm play`: ``(events, extras)``
``summary_lines``  what `locm play` says of a finished game (else `summary_lines` here)
``earlier_versions``  the stored games a changed bot played before
``schedule``       its tournament's schedule (LOCM's round robin of mirrored seed pairs, which ``--sprt``
                   needs); else every combination of agents in every seat (`seats_schedule`)
``changed_bots``   bots whose files changed since their stored games (refused unless allowed)
``standings_lines``  its tournament's tables (else the standings by places and the ratings)
``series_match``   its series rule, match by match (`locm.tournament.series`; else the seats swap every match)
``with_map``       its reading of ``--map`` (Skyport's maps), and ``map_schedule`` for a map the rules cannot name
=================  ==========================================================================================

A game whose command-line bots do not speak one line each way plays them through its hook ``play_seated``
and gives a tournament's time limits and sandbox check through ``served_limits`` (Skyport: its server's
clients, `locm.games.registry`)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ContextManager, Sequence

if TYPE_CHECKING:
    from locm.tournament.backends import Backend

STDERR_TAIL_LINES = 10
"""Lines of a failed bot's stderr that `locm play` shows (its traceback, usually)."""


@dataclass(frozen=True)
class PlayRequest:
    """What `locm play` was asked: the options as given (a ruleset's name or variant file, the agents)."""

    ruleset: str
    seed: int
    p0: str
    p1: str
    agents: str | None = None  # "A,B,...": one agent per seat, instead of p0/p1
    log_path: Path | None = None  # "-": standard output (the summary then goes to standard error)
    db: Path | None = None
    timeouts: str | None = None
    params: tuple[str, ...] = ()
    best_of: int | None = None  # a series of that many matches (odd), `locm.tournament.series`


Echo = Callable[..., None]
"""``echo(line, err=False)``: a line for the user (``err``: on standard error)."""
MakeSandbox = Callable[[Sequence[str], "Path | None", Sequence[str]], object]
"""``sandbox(bots, db, expected)``: the sandbox the user asked for (refused in one line where there is none)."""


def play(game, request: PlayRequest, echo: Echo, sandbox: MakeSandbox) -> None:
    """Play, say, store and write one game of ``game`` (`engine.seam.GameDef`) as ``request`` asks, LOCM's as
    every other's: its player (`locm.tournament.players`, the module its definition names) plays it
    (``play_one``) and may give its rules' reading of ``--ruleset`` (``rules``), its parameters (``parse_params``),
    its summary (``summary_lines``) and the games a changed bot played before (``earlier_versions``); a game's
    clients that do not speak one line each way play through its hook ``play_seated`` (Skyport's server)."""
    from locm.common.outputs import check_output, write_output
    from locm.common.rulesets import rules_or_usage
    from locm.engine import core
    from locm.errors import UsageProblem
    from locm.games.registry import hook
    from locm.runner.bots import TimeLimits, command_argv
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import DuplicateGameError, GameExtras, open_store, prepare_game
    from locm.runner import live
    from locm.tournament import matchplay
    from locm.tournament.players import players

    player = players(game.name)
    r = request
    agents = r.agents.split(",") if r.agents else [r.p0, r.p1]
    rules = player.rules(r.ruleset) if hasattr(player, "rules") else rules_or_usage(game, r.ruleset)
    if r.params and not hasattr(player, "parse_params"):
        raise UsageProblem(f"--param: {game.title} has no parameters beside its rules (a variant file changes them)")
    params = player.parse_params(r.params) if r.params else None
    bots = [a for a in agents if a not in game.agent_names]
    for spec in bots:
        command_argv(spec, game.agent_names)  # a command that cannot run: one line, before anything is played
    core.check_seats(game, [a if a in game.agent_names else game.agent_names[0] for a in agents])
    limits = TimeLimits.parse(r.timeouts)
    policy = sandbox(bots, r.db, game.agent_names) if bots else None
    to_stdout = r.log_path is not None and str(r.log_path) == "-"
    if r.log_path and not to_stdout:
        check_output(r.log_path)
    if r.best_of is not None:
        if r.log_path:
            raise UsageProblem("--log writes one game: a series' matches are kept in --db (locm export writes them)")
        served = hook("served_limits", game.name)  # a served game's clients: a tournament's default times
        if served is not None and bots:
            limits = served(agents, policy, TournamentRequest.think_ms, TournamentRequest.join_timeout)
        with sigterm_as_interrupt():
            return _play_series(game, rules, r, agents, limits, policy, echo)
    seated = hook("play_seated", game.name) if bots else None
    live.enable(r.db)  # spectators of the store's live spool (locm arena) see the game while it is played
    with sigterm_as_interrupt():
        if seated is not None:
            match, seats = seated(rules, r.seed, agents, policy)
            events, extras = match.log, GameExtras(game_id=game.game_id(match.log[0]), seats=tuple(seats))
        else:
            events, extras = getattr(player, "play_one", matchplay.play_one)(game, rules, r.seed, agents, params,
                                                                             limits, policy)
    gid = extras.game_id
    say = functools.partial(echo, err=to_stdout)  # the log, if it goes to stdout, has it to itself
    for line in getattr(player, "summary_lines", summary_lines)(game, rules, r.seed, agents, events, extras):
        say(line)
    if r.db:
        prepared = prepare_game(game, extras, events)
        with open_store(r.db) as store:
            store.name_run(f"locm play --game {game.name} --ruleset {game.rules_name(rules)} --seed {r.seed} "
                           f"--agents {' '.join(map(repr, agents))}")
            earlier = player.earlier_versions(store, events[0], gid) if hasattr(player, "earlier_versions") else []
            try:
                store.append_prepared(prepared)
                stored, same = True, True
            except DuplicateGameError:
                stored, same = False, store.game(gid).head_hash == prepared.record.head_hash
        for line in earlier[:3]:
            say(line)
        if stored:
            say(f"stored: {gid} in {r.db}")
        else:
            say(f"already stored: {gid} in {r.db}: stored nothing new"
                + ("" if same else " (this play's log differs from the stored one: a bot answered or timed out "
                                   "differently)"))
    if r.log_path:
        write_output(r.log_path, game.codec.to_jsonl(events))  # after the summary: a full disk still shows the game
        if not to_stdout:
            say(f"log: {r.log_path}")


def summary_lines(game, rules, seed: int, agents: Sequence[str], events: Sequence, extras) -> list[str]:
    """What `locm play` says of a finished game of any game: who won, why and when, each seat's place (and
    score in a game of points), and the last lines of a bot that lost by an error or a timeout."""
    from locm.runner.bots import lost_by

    out = game.outcome(events)
    places = out.places(len(agents))
    lines = [f"{game.title} {game.rules_name(rules)}, seed {seed}: "
             + (f"P{out.winner} ({agents[out.winner]}) wins" if out.winner >= 0 else "no winner")
             + f" ({out.reason}) after {out.turns} turns, {len(events)} events"]
    seats = extras.seats or ()
    for seat, agent in enumerate(agents):
        x = seats[seat] if seat < len(seats) else None
        score = f", score {out.scores[seat]:g}" if out.scores is not None else ""
        failed = x is not None and (x.error or x.timeout)
        lines.append(f"  P{seat} {agent}: place {places[seat] + 1}{score}"
                     + (f" (lost by {lost_by(x.error, x.timeout)})" if failed else ""))
        if failed and x.stderr.strip():
            lines += [f"  | {line}" for line in x.stderr.rstrip().splitlines()[-STDERR_TAIL_LINES:]]
    return lines


def _play_series(game, rules, r: PlayRequest, agents: Sequence[str], limits, policy, echo: Echo) -> None:
    """`locm play --best-of N`: one series played (`locm.tournament.series.play_series`), each match said in a
    line, then the series; with ``--db`` its matches stored (a match already stored is said so)."""
    from locm.store.eventstore import DuplicateGameError, open_store
    from locm.tournament.series import one_series, play_series

    series = one_series(game.name, rules, agents, r.seed, r.best_of)
    played = play_series(series, limits, policy)
    wins = [0, 0]
    a, b = agents if agents[0] != agents[1] else [f"{agents[0]} (side {k})" for k in (0, 1)]
    echo(f"{game.title} {game.rules_name(rules)}, series {series.series_id}: {agents[0]} against {agents[1]}, "
         f"best of {r.best_of}")
    for prepared in played:
        m, meta = prepared.record, json.loads(prepared.record.meta)
        sides = meta["sides"]
        if m.winner >= 0:
            wins[sides[m.winner]] += 1
        starter = f", P{meta['starter']} started" if "starter" in meta else ""
        echo(f"  match {meta['match']}: seed {m.seed}, {m.agents[0]} (P0) vs {m.agents[1]} (P1){starter}: "
             + (f"P{m.winner} ({m.agents[m.winner]}) wins" if m.winner >= 0 else "no winner")
             + f" ({m.reason}) after {m.turns} turns; {a} {wins[0]}-{wins[1]} {b}")
    lead = 0 if wins[0] > wins[1] else 1 if wins[1] > wins[0] else -1
    echo(f"series: {a} {wins[0]}-{wins[1]} {b}: " + (f"{(a, b)[lead]} wins the series" if lead >= 0 else "even")
         + f" after {len(played)} of {r.best_of}")
    if r.db:
        stored = 0
        with open_store(r.db) as store:
            for prepared in played:
                try:
                    store.append_prepared(prepared)
                    stored += 1
                except DuplicateGameError:
                    pass
        echo(f"stored: {stored} of {len(played)} matches in {r.db}"
             + ("" if stored == len(played) else f" ({len(played) - stored} already stored)"))


def match_tables(records: Sequence, agents: Sequence[str]) -> list[str]:
    """The standings of any game's tournament (by places, `locm.tournament.standings.match_standings`) and its
    ratings: what `tournament` says of a game whose player gives no tables of its own."""
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.common.tables import table
    from locm.tournament.sequential import match_ratings
    from locm.tournament.standings import MATCH_HEADERS, match_rows, match_standings

    return [table(MATCH_HEADERS, match_rows(match_standings(records, agents))), "",
            table(RATING_HEADERS, rating_rows(match_ratings(records, agents)))]


Progress = Callable[[int], ContextManager[Callable[[int], None]]]
"""``progress(length)``: a context whose value is told each game played (a progress bar's ``update``)."""


@dataclass(frozen=True)
class TournamentRequest:
    """What `locm tournament` was asked, the options as given."""

    ruleset: str
    agents: tuple[str, ...]
    games: int
    db: Path
    seats: int | None = None
    workers: int = 1
    seed: int = 1
    timeouts: str | None = None
    busy_timeout: float | None = None
    allow_changed_bots: bool = False
    think_ms: int = 3000
    join_timeout: float = 60.0
    sprt: str | None = None
    backend: Backend = "local"
    address: str | None = None
    best_of: int | None = None  # each scheduled unit a series of that many matches (`locm.tournament.series`)
    map: str | None = None  # a game's map: a built-in map's name or a map file (the player's ``with_map``)
    timing: str = "fast"  # a served game's timing (its server's, `served_limits`)
    wall_clock: float | None = None  # a served game's wall-clock limit in seconds (`served_limits`)


def tournament(game, request: TournamentRequest, echo, sandbox, progress: Progress) -> int:
    """Play and store ``game``'s tournament as ``request`` asks, then say its standings and ratings; the exit
    status (0, 1 when a game failed, 130 when interrupted). ``echo(line, err=False)`` says a line,
    ``sandbox(bots, db, expected)`` makes the sandbox the user asked for. LOCM's goes this way too: its player
    (`locm.tournament.players`) gives what only it has, its schedule (``schedule``: the round robin of mirrored
    seed pairs, which the sequential test ``--sprt`` plays pair by pair), the bots whose files changed since
    their stored games (``changed_bots``) and its tables (``standings_lines``: per seat, head to head); every
    other game's schedule puts every combination of agents in every seat (`seats_schedule`)."""
    from locm.common.rulesets import rules_or_usage
    from locm.common.tables import plural as n
    from locm.errors import UsageProblem
    from locm.runner import live
    from locm.runner.bots import command_argv
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import open_store
    from locm.tournament.backends import join
    from locm.tournament.matchplay import run_matches
    from locm.tournament.players import players
    from locm.tournament.run import count_stored
    from locm.tournament.schedule import seats_schedule

    player = players(game.name)
    r = request
    agents = list(r.agents)
    ruleset = player.rules(r.ruleset) if hasattr(player, "rules") else rules_or_usage(game, r.ruleset)
    on_map = None  # a map of the organiser's that the rules cannot name (a map file): the schedule's
    if r.map is not None:
        if not hasattr(player, "with_map"):
            raise UsageProblem(f"--map: {game.title} has no maps")
        ruleset, on_map = player.with_map(ruleset, r.map)
    bots = [a for a in dict.fromkeys(agents) if a not in game.agent_names]
    for spec in bots:
        command_argv(spec, game.agent_names)  # a command that cannot run: one line, before anything is played
    if r.best_of is not None:
        if r.sprt is not None or r.backend == "ray":
            raise UsageProblem(f"--best-of plays series on local workers, without {'--sprt' if r.sprt else 'Ray'}")
        if r.seats not in (None, 2):
            raise UsageProblem(f"--best-of with --seats {r.seats}: a series is two sides")
        if on_map is not None:
            raise UsageProblem("--best-of plays on the rules' map or a built-in one (--map NAME), not yet a map file")
        policy = sandbox(bots, r.db, game.agent_names) if bots else None
        limits = _limits(game, r, agents, policy)
        return _series_tournament(game, r, ruleset, agents, limits, policy, echo, progress)
    if hasattr(player, "schedule"):
        lo, hi = game.seats
        if r.seats is not None and not lo <= r.seats <= hi:
            raise UsageProblem(f"--seats {r.seats}: {game.title} is played by {lo if lo == hi else f'{lo} to {hi}'}")
        jobs = player.schedule(ruleset, agents, r.games, r.seed)
    else:
        jobs = seats_schedule(game.name, ruleset, agents, r.games, r.seed, r.seats)
        if on_map is not None:
            jobs = player.map_schedule(jobs, on_map)
    test = None
    if r.sprt is not None:
        if not hasattr(player, "schedule"):
            raise UsageProblem(f"--sprt plays mirrored seed pairs, which {game.title}'s schedule has not (yet)")
        if r.backend == "ray":
            raise UsageProblem("--sprt runs on local workers only (a sequential test plays pair by pair)")
        from locm.analysis.sprt import Sprt
        from locm.tournament.sequential import check_pairs

        test = Sprt.parse(r.sprt)
        check_pairs(jobs)
    policy = sandbox(bots, r.db, game.agent_names) if bots else None
    limits = _limits(game, r, agents, policy)
    join(r.backend, r.address)  # before the store is touched: no Ray, or no cluster there, is one line
    verdict = None
    live.enable(r.db)  # spectators of the store's live spool (locm arena): its games being played, the test
    with open_store(r.db, busy_timeout=r.busy_timeout) as store:
        store.name_run(f"locm tournament --game {game.name} --ruleset {game.rules_name(ruleset)} --agents "
                       f"{' '.join(map(repr, agents))} --games {r.games} --seed {r.seed}"
                       + (f" --sprt {r.sprt}" if r.sprt else ""))
        with sigterm_as_interrupt():
            _refuse_changed_bots(player, store, agents, r.allow_changed_bots)
            todo = len(jobs) - count_stored(store, jobs)  # refuses another game under a scheduled id
            used = min(r.workers, max(todo, 1))
            echo(f"{n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, "
                 f"{'at most ' if test else ''}{todo} to play "
                 + ("on Ray" if r.backend == "ray" else f"with {n(used, 'worker')}"), err=True)
            incident = lambda line: echo(f"\nlocm: warning: {line}", err=True)  # noqa: E731
            try:
                with progress(todo) as update:
                    if test is None:
                        run = run_matches(store, jobs, r.workers, update, limits, policy, on_incident=incident,
                                          backend=r.backend, address=r.address)
                    else:
                        from locm.tournament.run import record_schedule
                        from locm.tournament.sequential import play_sequential

                        record_schedule(store, jobs)  # the store knows what it should hold: locm verify checks it
                        run, state = play_sequential(store, jobs, test, workers=r.workers, limits=limits,
                                                     progress=update, scheduled=len(jobs), count=todo,
                                                     sandbox=policy, on_incident=incident)
                        verdict = state.summary()
            except KeyboardInterrupt:
                echo(f"\nlocm: interrupted: {count_stored(store, jobs)} of {n(len(jobs), 'game')} stored in {r.db}; "
                     "run the same command again to play the rest", err=True)
                return 130
        counted = {gid for gid, came in store.provenances().items() if came.counted}
        records = [m for m in store.games(game=game.name) if jobs.holds(m) and m.game_id in counted]
    echo(f"{n(run.played, 'game')} played, {run.already} stored before"
         + (f", {run.duplicates} stored meanwhile by another run" if run.duplicates else "")
         + f": {len(records)} of {n(len(jobs), game.title + ' game')} in {r.db} ({run.seconds:.1f} s)")
    for line in (player.standings_lines(records, agents, jobs) if hasattr(player, "standings_lines")
                 else match_tables(records, agents)):
        echo(line)
    if verdict is not None:
        from locm.tournament.sequential import sprt_text

        echo("")
        echo(sprt_text(verdict, agents))
    for gid, why in run.failed:
        echo(f"locm: error: game {gid} failed (not stored; the same command again retries it): {why}", err=True)
    return 1 if run.failed else 0


def _refuse_changed_bots(player, store, agents: Sequence[str], allowed: bool) -> None:
    """`TournamentError` for a bot whose files changed since its stored games (the game's player's
    ``changed_bots``), unless ``--allow-changed-bots``."""
    from locm.common.tables import plural as n
    from locm.errors import TournamentError

    changed = player.changed_bots(store, agents) if hasattr(player, "changed_bots") else []
    for bot, k in [] if allowed else changed[:1]:
        raise TournamentError(f"bot {bot!r} changed since {n(k, 'stored game')} with it (its files differ): pass "
                              "--allow-changed-bots to mix its versions, or use a new --db")


def _limits(game, r: TournamentRequest, agents: Sequence[str], policy):
    """A tournament's time limits: ``--timeouts``, or for a game whose clients connect to its server (its hook
    ``served_limits``: Skyport) their think and join times, its timing and wall-clock limit, their sandbox
    checked; ``--timing`` and ``--wall-clock`` are refused for another game."""
    from locm.errors import UsageProblem
    from locm.games.registry import hook
    from locm.runner.bots import TimeLimits

    served = hook("served_limits", game.name)
    if served is None:
        if r.timing != "fast" or r.wall_clock is not None:
            raise UsageProblem(f"--timing and --wall-clock time a served game's turns: {game.title}'s games are not "
                               "served (Skyport's are)")
        return TimeLimits.parse(r.timeouts)
    return served(agents, policy, r.think_ms, r.join_timeout, timing=r.timing, wall_s=r.wall_clock)


def _series_tournament(game, r: TournamentRequest, ruleset, agents: Sequence[str], limits, policy, echo: Echo,
                       progress: Progress) -> int:
    """`locm tournament --best-of N`: ``--games`` series per pair of agents (`locm.tournament.series`), those not
    over played and stored, then the standings of their games and by series."""
    from locm.common.tables import plural as n
    from locm.store.eventstore import open_store
    from locm.tournament.players import players
    from locm.tournament.series import SeriesPlaces, results, run_series, series_lines, series_schedule

    player = players(game.name)
    schedule = series_schedule(game.name, ruleset, agents, r.games, r.best_of, r.seed)
    with open_store(r.db, busy_timeout=r.busy_timeout) as store:
        from locm.runner.processes import sigterm_as_interrupt
        from locm.tournament.series import resume

        with sigterm_as_interrupt():
            _refuse_changed_bots(player, store, agents, r.allow_changed_bots)
            todo = sum(resume(store, s) is not None for s in schedule)
            echo(f"{len(schedule)} series of best of {r.best_of} scheduled, "
                 f"{len(schedule) - todo} over before, {todo} to play with {n(min(r.workers, max(todo, 1)), 'worker')}",
                 err=True)
            incident = lambda line: echo(f"\nlocm: warning: {line}", err=True)  # noqa: E731
            try:
                with progress(todo) as update:
                    run = run_series(store, schedule, r.workers, update, limits, policy, on_incident=incident)
            except KeyboardInterrupt:
                echo(f"\nlocm: interrupted: the series stored so far are in {r.db}; run the same command again to "
                     "play the rest", err=True)
                return 130
        done = results(store, schedule)
        played = SeriesPlaces(done)
        records = [m for m in store.games(game=game.name) if played.holds(m)]
    echo(f"{n(run.played, 'game')} played in {todo - len(run.failed)} series "
         f"({run.seconds:.1f} s): {sum(s.over for s in done)} of {len(schedule)} series over, "
         f"{len(records)} games in {r.db}")
    for line in (player.standings_lines(records, agents, played) if hasattr(player, "standings_lines")
                 else match_tables(records, agents)):
        echo(line)
    echo("")
    for line in series_lines(done, agents):
        echo(line)
    for sid, why in run.failed:
        echo(f"locm: error: series {sid} failed (not stored; the same command again retries it): {why}", err=True)
    return 1 if run.failed else 0


__all__ = ["Echo", "MakeSandbox", "PlayRequest", "Progress", "STDERR_TAIL_LINES", "TournamentRequest", "match_tables",
           "play", "tournament"]
