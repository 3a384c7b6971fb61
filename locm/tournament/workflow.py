"""`locm tournament`'s workflow for any registered game: the schedule (every combination of agents in every
seat, `locm.tournament.matchplay`), the games played and stored (resumed where it stopped), then standings
by places and ratings. A game that runs its tournaments its own way (LOCM: mirrored seed pairs, the
sequential test) has its own version, the hook ``tournament`` of its wing (`locm.games.registry`); a game
whose bots connect to its server gives its time limits and sandbox through its hook ``served_limits``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ContextManager

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
    backend: str = "local"
    address: str | None = None


def tournament(game, request: TournamentRequest, echo, sandbox, progress: Progress) -> int:
    """Play and store ``game``'s tournament as ``request`` asks, then say its standings and ratings; the exit
    status (0, 1 when a game failed, 130 when interrupted). ``echo(line, err=False)`` says a line,
    ``sandbox(bots, db, expected)`` makes the sandbox the user asked for."""
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.common.rulesets import rules_or_usage
    from locm.common.tables import plural as n, table
    from locm.errors import UsageProblem
    from locm.games.registry import hook
    from locm.runner.bots import TimeLimits
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import open_store
    from locm.tournament.backends import join
    from locm.tournament.matchplay import MATCH_HEADERS, match_rows, match_schedule, match_standings, run_matches
    from locm.tournament.sequential import match_ratings

    r = request
    if r.sprt is not None:
        raise UsageProblem(f"--sprt plays LOCM's mirrored seed pairs only for now, not {game.name}")
    join(r.backend, r.address)
    agents = list(r.agents)
    ruleset = rules_or_usage(game, r.ruleset)
    jobs = match_schedule(game.name, ruleset, agents, r.games, r.seed, r.seats)
    bots = [a for a in dict.fromkeys(agents) if a not in game.agent_names]
    policy = sandbox(bots, r.db, game.agent_names) if bots else None
    limits = TimeLimits.parse(r.timeouts)
    served = hook("served_limits", game.name)
    if served is not None:  # its clients connect to its server: their think and join times, their sandbox
        limits = served(agents, policy, r.think_ms, r.join_timeout)
    with open_store(r.db, busy_timeout=r.busy_timeout) as store:
        with sigterm_as_interrupt():
            todo = sum(1 for j in jobs if not store.has_game(j.game_id))
            echo(f"{n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, {todo} to play", err=True)
            try:
                with progress(todo) as update:
                    run = run_matches(store, game.name, ruleset, jobs, r.workers, update, limits, policy,
                                      on_incident=lambda line: echo(f"\nlocm: warning: {line}", err=True),
                                      backend=r.backend, address=r.address)
            except KeyboardInterrupt:
                echo("\nlocm: interrupted: run the same command again to play the rest", err=True)
                return 130
        ids = set(run.ids)
        records = [m for m in store.matches(game=game.name) if m.game_id in ids]
    echo(f"{n(run.played, 'game')} played, {run.already} stored before: {len(records)} of "
         f"{n(len(jobs), game.title + ' game')} in {r.db}")
    echo(table(MATCH_HEADERS, match_rows(match_standings(records, agents))))
    echo("")
    echo(table(RATING_HEADERS, rating_rows(match_ratings(records, agents))))
    for gid, why in run.failed:
        echo(f"locm: error: game {gid} failed (not stored; the same command again retries it): {why}", err=True)
    return 1 if run.failed else 0


__all__ = ["Progress", "TournamentRequest", "tournament"]
