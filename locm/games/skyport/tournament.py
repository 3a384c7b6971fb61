"""Skyport's player of a tournament's games (`locm.games.registry.PLAYERS`): a game with a client command line
is played through Skyport's TCP server (`locm.games.skyport.netbots.play_skyport_seated`: each client in the
sandbox, speaking Skyport's protocol; one that does not join in time forfeits, R-FORFEIT), with the
tournament's timing (``fast`` or ``faithful``) and wall-clock limit; a game of built-in agents only by the
core's runner (`locm.tournament.matchplay`), or, with a wall-clock limit, by the same loop with the limit
checked before each turn (R-WALL-CLOCK: the game then ends there, recorded). The organiser's map
(``--map``: a built-in map's name) is the rules' own (`with_map`), so it is recorded in every game and names
its id."""

from __future__ import annotations

import time

from locm.engine import registry
from locm.tournament import matchplay
from locm.tournament.schedule import Job, new_match


def play(job: Job, limits, sandbox, seats: list | None = None):
    """A tournament's Skyport game played and prepared for the store (its place in its schedule in its meta)."""
    wall_s = getattr(limits, "wall_s", None)
    if not job.has_bot:
        return matchplay.play(job, limits, sandbox) if wall_s is None else _play_timed(job, wall_s)
    from locm.games.skyport.netbots import play_skyport_seated

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match, extras = play_skyport_seated(rules, job.seed, job.agents, sandbox, job.bots, limits, forfeits=True,
                                        progress=matchplay.turn_played)
    return matchplay.prepared(game, match, extras, job.place)


def _play_timed(job: Job, wall_s: float):
    """A game of built-in agents only, with a wall-clock limit from its first turn: checked before each turn,
    as the server checks it; once run out, the game is stopped there (`Stop`, R-WALL-CLOCK)."""
    from locm.engine.skyport.commands import Stop
    from locm.engine.skyport.state import TURN
    from locm.store.eventstore import SeatExtras
    from locm.tournament.run import decided

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match = new_match(game, rules, job.seed, job.agents, job.bots)
    agents = [game.make_agent(a, job.seed, seat) for seat, a in enumerate(job.agents)]
    stop_at, turn = None, None
    while not match.ended:
        state = match.state
        if state.phase == TURN and state.turn != turn:  # a turn begins
            turn = state.turn
            stop_at = time.monotonic() + wall_s if stop_at is None else stop_at
            if time.monotonic() >= stop_at:
                match.submit(Stop(state.current, f"wall-clock limit {wall_s:g} s"))
                break
        seat = match.to_move
        agents[seat].play_turn(match, seat)
        decided()
    return matchplay.prepared(game, match, [SeatExtras() for _ in job.agents], job.place)


def with_map(rules, spec: str):
    """The rules with the organiser's map (``--map``): a built-in map's name (the rules' ``map``, R-MAP);
    `UsageProblem` in one line for another name (a map file is `locm serve`'s, not yet a tournament's)."""
    from locm.engine.skyport.rules import builtin_map_names
    from locm.errors import UsageProblem

    if spec not in builtin_map_names():
        raise UsageProblem(f"--map {spec!r}: expected a built-in map ({', '.join(builtin_map_names())})")
    return rules.replace(map=spec)


def check_client(spec: str) -> None:
    """A client's command line with its placeholders filled, refused in one line (`AgentSpecError`) when it
    cannot run."""
    from locm.games.skyport.netbots import SANDBOX_HOST, SANDBOX_PORT, client_argv

    client_argv(spec, 0, 0, SANDBOX_HOST, SANDBOX_PORT)


__all__ = ["play", "with_map", "check_client"]
