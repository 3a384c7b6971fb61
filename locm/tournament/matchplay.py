"""The core's player of a tournament's games, for any registered game (`locm.games.registry.players` when
the game's wing has none of its own), and `run_matches` (a list of any game's jobs played and stored).

A game is played through the core (`engine.core`): its built-in agents, and command-line bots run in the
sandbox (`locm.runner.bots.BotAgent`: one line each way, time limits, stderr kept, a failure or timeout
recorded by seat), for the games whose bots are lines (`GameDef.bots`). The schedule is any game's
(`locm.tournament.schedule`), the run the one every game's tournament has (`locm.tournament.run`); each game
says its place in its schedule in its ``meta`` (``"schedule": key, "place": k``), so `locm verify` rebuilds
the schedule and names a scheduled game missing from the store by its place
(`locm.verify.checks.schedule_problems`). The standings are `locm.tournament.standings`'.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Sequence

from locm.engine import registry
from locm.tournament.run import TournamentRun, decided, record_schedule
from locm.tournament.schedule import Job, Schedule, bot_versions, new_match

if TYPE_CHECKING:
    from locm.tournament.backends import Backend


def play_seated(game, rules, seed: int, agents: Sequence[str], limits=None, sandbox=None,
                bots: Sequence[str] | None = None, match=None):
    """One game of `game` between built-in agents and command-line bots (run in `sandbox`, answering within
    `limits`); returns the match and each seat's extras (`locm.store.eventstore.SeatExtras`). Bots are stopped at the
    end, whatever happens. ``bots``: each seat's bot version to record (default: their files hashed now);
    ``match``: the live match to play, made by the caller (a series' match that opens as its rule says), else
    the game's ``new``."""
    from locm.runner.bots import BotAgent, TimeLimits
    from locm.store.eventstore import SeatExtras

    if match is None:
        match = new_match(game, rules, seed, agents, bot_versions(game, agents) if bots is None else bots)
    players = [game.make_agent(a, seed, seat) if a in game.agent_names
               else BotAgent(a, limits or TimeLimits(), sandbox=sandbox) for seat, a in enumerate(agents)]
    from locm.runner.live import watching

    try:
        with watching(game, game.game_id(match.log[0]), agents, match.log):  # for spectators (locm arena)
            while not match.ended:
                seat = match.to_move
                players[seat].play_turn(match, seat)
                decided()
    finally:
        for p in players:
            if isinstance(p, BotAgent):
                p.stop()
    seats = [SeatExtras(stderr=p.stderr, think_ms=round(p.think_ms_total / p.turns, 4) if p.turns else None,
                        error=p.failure is not None and not p.timed_out, timeout=p.timed_out)
             if isinstance(p, BotAgent) else SeatExtras() for p in players]
    return match, seats


def play(job: Job, limits, sandbox, seats: list | None = None, match=None):
    """A tournament's game played by the core's runner (`play_seated`) and prepared for the store: its record
    and compressed log, its place in its schedule, if any, in its meta. ``match``: as `play_seated`'s."""
    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match, extras = play_seated(game, rules, job.seed, job.agents, limits, sandbox, job.bots, match)
    return prepared(game, match, extras, job.place)


def play_one(game, rules, seed: int, agents: Sequence[str], params=None, limits=None, sandbox=None):
    """`locm play`'s game of a game whose definition names no player of its own: `play_seated`, as
    ``(events, extras)`` (`locm.store.eventstore.GameExtras`: its id, each seat's extras). ``params``: a game
    of the core has none (`locm.tournament.workflow.play` refuses ``--param`` for it first)."""
    from locm.store.eventstore import GameExtras

    match, seats = play_seated(game, rules, seed, agents, limits, sandbox)
    return match.log, GameExtras(game_id=game.game_id(match.log[0]), seats=tuple(seats))


def prepared(game, match, seats: Sequence, place: tuple[str, int] | None):
    """A played match prepared for the store (`locm.store.eventstore.prepare_game`), its place in its
    schedule, if any, in its meta."""
    from locm.store.eventstore import GameExtras, prepare_game

    meta = "{}" if place is None else json.dumps({"schedule": place[0], "place": place[1]}, separators=(",", ":"))
    extras = GameExtras(game_id=game.game_id(match.log[0]), seats=None if seats is None else tuple(seats), meta=meta)
    return prepare_game(game, extras, match.log)


def turn_played(turn: int, limit: int) -> None:
    """A served game's turn is over: a decision, for the heartbeat."""
    decided()


def run_matches(store, jobs: Sequence[Job], workers: int = 1,
                progress: Callable[[int], None] | None = None, limits=None, sandbox=None, supervision=None,
                on_incident: Callable[[str], None] | None = None, target: Callable | None = None,
                backend: Backend = "local", address: str | None = None) -> TournamentRun:
    """Play the jobs (of one game) not stored yet and store them as they come (`locm.tournament.run`); a
    schedule's manifest is recorded first (`locm verify` checks it). With ``backend="ray"`` on the Ray cluster
    at ``address`` (`locm.tournament.ray_backend.play_jobs_ray`); else games with a bot, or more than one
    worker, by the supervised worker processes (`locm.tournament.run.play_jobs`: a worker lost is replaced, its
    game played again once, then recorded in ``TournamentRun.failed``, not stored: running the tournament
    again retries it); built-in agents with one worker play in this process. ``target``: the supervised
    worker's function (tests give faulty ones)."""
    from locm.tournament.run import WRITE_BATCH, play_jobs, store_as_played

    if isinstance(jobs, Schedule):  # the store knows what it should hold: locm verify checks it
        record_schedule(store, jobs)
    from locm.tournament.run import pending

    ids = [j.game_id for j in jobs]
    todo = pending(store, jobs)  # a game stored behind the store's back under a scheduled id is refused
    options = dict(limits=limits, progress=progress, scheduled=len(ids), count=len(todo), sandbox=sandbox)
    if backend == "ray":
        from locm.tournament.ray_backend import play_jobs_ray

        run = play_jobs_ray(store, todo, address=address, **options)
    elif todo and (workers > 1 or target is not None or any(j.has_bot for j in todo)):
        run = play_jobs(store, todo, workers=workers, supervision=supervision, on_incident=on_incident,
                        target=target, **options)
    else:
        import time

        from locm.tournament.players import players

        run, t0 = TournamentRun(len(ids), len(ids) - len(todo)), time.perf_counter()
        results = (("game", j.game_id, players(j.game).play(j, limits, sandbox), None) for j in todo)
        store_as_played(store, results, run, WRITE_BATCH, progress, on_incident)
        run.seconds = time.perf_counter() - t0
    run.ids = ids
    return run


__all__ = ["play", "play_one", "play_seated", "prepared", "turn_played", "run_matches"]
