"""LOCM's own `locm play` and `locm tournament` (the hooks ``play`` and ``tournament`` of its wing,
`locm.games.registry`): two seats as the official referee has them, referee parameters, bots' versions
named when they changed, mirrored seed pairs and the sequential test (`locm.tournament.sequential`)."""

from __future__ import annotations


from locm.tournament.workflow import Echo, MakeSandbox, Progress, TournamentRequest


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


__all__ = ["tournament"]
