"""LOCM's own `locm play` and `locm tournament` (the hooks ``play`` and ``tournament`` of its wing,
`locm.games.registry`): two seats as the official referee has them, referee parameters, bots' versions
named when they changed, mirrored seed pairs and the sequential test (`locm.tournament.sequential`)."""

from __future__ import annotations

import functools

from locm.tournament.workflow import STDERR_TAIL_LINES, Echo, MakeSandbox, PlayRequest, Progress, TournamentRequest


def parse_params(items) -> dict:
    """``--param NAME=VALUE`` items as the referee's parameters (integers; ``predefinedDraftIds`` as text)."""
    from locm.engine.errors import GameParamError

    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise GameParamError(f"--param expects NAME=VALUE, got {item!r}", item)
        if name == "predefinedDraftIds":
            out[name] = value
            continue
        try:
            out[name] = int(value)
        except ValueError:
            raise GameParamError(f"--param {name}: expected an integer, got {value!r}", name, value) from None
    return out


def play(game, request: PlayRequest, echo: Echo, sandbox: MakeSandbox) -> None:
    """One LOCM game as `locm play` asks: played, said, stored (once: a game already stored is said so) and
    its log written after the summary (a full disk still shows the game)."""
    from locm.common.outputs import check_output, write_output
    from locm.engine.locm.game import Game
    from locm.errors import UsageProblem
    from locm.events.locm.catalog import HardError
    from locm.events.locm.codec import to_jsonl
    from locm.games.locm.tournament import other_versions, run_game
    from locm.games.locm.variants import resolve_ruleset
    from locm.games.locm.bots import check_agent
    from locm.runner.bots import TimeLimits
    from locm.games.locm.play import summarize
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import DuplicateGameError, open_store, prepare_game

    r = request
    if r.agents:
        raise UsageProblem("--agents is for another game's players: LOCM's are --p0 and --p1")
    ruleset = resolve_ruleset(r.ruleset)
    agents = (check_agent(r.p0), check_agent(r.p1))
    limits = TimeLimits.parse(r.timeouts)
    params = parse_params(r.params)
    Game.new(ruleset, r.seed, params)  # a bad seed or parameter is refused before a store is created
    policy = sandbox(agents, r.db, game.agent_names)
    to_stdout = r.log_path is not None and str(r.log_path) == "-"
    if r.log_path and not to_stdout:
        check_output(r.log_path)  # before playing, not after
    store = open_store(r.db) if r.db else None
    stored = same = None
    earlier = []
    try:
        with sigterm_as_interrupt():
            played = run_game(ruleset, r.seed, agents, params, limits, sandbox=policy)
            if store is not None:
                gid = played.game_id
                earlier = other_versions(store, played.game.created, gid)
                prepared = prepare_game(game, played.extras, played.game.log)
                try:
                    store.append_prepared(prepared)
                    stored = True
                except DuplicateGameError:
                    stored = False
                    same = store.game(gid).head_hash == prepared.record.head_hash
    finally:
        if store is not None:
            store.close()
    played_game = played.game
    say = functools.partial(echo, err=to_stdout)  # the log, if it goes to stdout, has it to itself
    for line in summarize(played_game).lines(agents):
        say(line)
    for e in played_game.log:
        if type(e) is HardError:
            say(f"hard error: player {e.player} ({agents[e.player]}): {e.reason}")
    for seat, x in enumerate(played.extras.seats):
        text, failed = x.stderr, x.error or x.timeout
        if failed and text.strip():  # a bot that lost by an error: its traceback, usually
            say(f"stderr of player {seat} ({agents[seat]}), last lines:")
            for line in text.rstrip().splitlines()[-STDERR_TAIL_LINES:]:
                say(f"  | {line}")
    for record, bots in earlier[:3]:
        say(f"bot {', '.join(repr(b) for b in bots)} changed since this game was played as {record.game_id} "
            f"(its files differ): this is a new game, under its own id")
    if stored:
        say(f"stored: {played.game_id} in {r.db}")
    elif stored is False:
        say(f"already stored: {played.game_id} in {r.db}: stored nothing new"
            + ("" if same else " (this play's log differs from the stored one: a bot answered or timed out "
                               "differently)"))
    if r.log_path:
        write_output(r.log_path, to_jsonl(played_game.log))  # after the summary: a full disk still shows the game
        if not to_stdout:
            say(f"log: {r.log_path}")


def tournament(game, request: TournamentRequest, echo: Echo, sandbox: MakeSandbox, progress: Progress) -> int:
    """A LOCM round robin as `locm tournament` asks (mirrored seeds, resumed where it stopped, optionally a
    sequential test), then its standings, ratings and head-to-head results; the exit status (0, 1 when a
    game failed, 130 when interrupted)."""
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.common.tables import table
    from locm.errors import TournamentError, UsageProblem
    from locm.games.locm.tournament import changed_bots, schedule
    from locm.tournament.run import count_stored, play_jobs, record_schedule, to_play
    from locm.tournament.standings import (PAIR_HEADERS, STANDINGS_HEADERS, pair_rows, sandbox_lines, standings,
                                           standings_rows)
    from locm.games.locm.variants import resolve_ruleset
    from locm.games.locm.bots import check_agent
    from locm.runner.bots import TimeLimits
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import open_store
    from locm.tournament.backends import join
    from locm.tournament.sequential import ratings, schedule_order, sprt_text
    from locm.common.tables import plural as n

    r = request
    ruleset = resolve_ruleset(r.ruleset)
    agents = [check_agent(a) for a in r.agents]
    limits = TimeLimits.parse(r.timeouts)
    jobs = schedule(ruleset, agents, r.games, r.seed)
    if r.backend == "ray" and r.sprt is not None:
        raise UsageProblem("--sprt runs on local workers only (a sequential test plays pair by pair)")
    test = None
    if r.sprt is not None:
        from locm.analysis.sprt import Sprt
        from locm.tournament.sequential import check_pairs
        test = Sprt.parse(r.sprt)
        check_pairs(jobs)
    policy = sandbox(agents, r.db, game.agent_names)
    join(r.backend, r.address)  # before the store is touched: no Ray, or no cluster there, is one line
    store = open_store(r.db, busy_timeout=r.busy_timeout)
    try:
        with sigterm_as_interrupt():
            for bot, k in [] if r.allow_changed_bots else changed_bots(store, agents)[:1]:
                raise TournamentError(f"bot {bot!r} changed since {n(k, 'stored game')} with it (its files "
                                      "differ): pass --allow-changed-bots to mix its versions, or use a new --db")
            record_schedule(store, jobs)  # the store knows what it should hold: locm verify checks it
            pending, todo = to_play(store, jobs)
            used = min(r.workers, max(todo, 1))
            echo(f"{n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, "
                 f"{'at most ' if test else ''}{todo} to play "
                 + ("on Ray" if r.backend == "ray" else f"with {n(used, 'worker')}"), err=True)
            with progress(todo) as update:
                options = dict(workers=r.workers, limits=limits, progress=update, scheduled=len(jobs), count=todo,
                               sandbox=policy, on_incident=lambda line: echo(f"\nlocm: warning: {line}", err=True))
                if r.backend == "ray":
                    from locm.tournament.ray_backend import play_jobs_ray
                    options.pop("workers"), options.pop("on_incident")
                    run, verdict = play_jobs_ray(store, pending, address=r.address, **options), None
                elif test is None:
                    run, verdict = play_jobs(store, pending, **options), None
                else:
                    from locm.tournament.sequential import play_sequential
                    run, state = play_sequential(store, jobs, test, **options)
                    verdict = state.summary()
        records = [rec for rec in store.games(ruleset=ruleset.name, game=game.name) if jobs.holds(rec)]
    except KeyboardInterrupt:
        done = count_stored(store, jobs)
        echo(f"\nlocm: interrupted: {done} of {n(len(jobs), 'game')} stored in {r.db}; run the same "
             "command again to play the rest", err=True)
        return 130
    finally:
        store.close()
    echo(f"{n(run.played, 'game')} played in {run.seconds:.1f} s, {run.already} stored before"
         + (f", {run.duplicates} stored meanwhile by another run" if run.duplicates else "")
         + f": {len(records)} of {n(len(jobs), 'game')} in {r.db}")
    echo(table(STANDINGS_HEADERS, standings_rows(standings(records, agents))))
    for line in sandbox_lines(records):
        echo(line)
    echo("")
    echo(table(RATING_HEADERS, rating_rows(ratings(sorted(records, key=schedule_order(jobs)), agents))))
    echo("")
    echo(table(PAIR_HEADERS, pair_rows(records, agents)))
    if verdict is not None:
        echo("")
        echo(sprt_text(verdict, agents))
    for gid, message in run.failed:
        echo(f"locm: error: game {gid} failed: {message}", err=True)
    return 1 if run.failed else 0


__all__ = ["parse_params", "play", "tournament"]
