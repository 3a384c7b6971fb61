"""Skyport's player of a tournament's games (`locm.games.registry.PLAYERS`): a game with a client command line
is played through Skyport's TCP server (`locm.games.skyport.netbots.play_skyport_seated`: each client in the
sandbox, speaking Skyport's protocol; one that does not join in time forfeits, R-FORFEIT); a game of built-in
agents only by the core's runner (`locm.tournament.matchplay`)."""

from __future__ import annotations

from locm.engine import registry
from locm.tournament import matchplay
from locm.tournament.schedule import Job


def play(job: Job, limits, sandbox, seats: list | None = None):
    """A tournament's Skyport game played and prepared for the store (its place in its schedule in its meta)."""
    if not job.has_bot:
        return matchplay.play(job, limits, sandbox)
    from locm.games.skyport.netbots import play_skyport_seated

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match, extras = play_skyport_seated(rules, job.seed, job.agents, sandbox, job.bots, limits, forfeits=True,
                                        progress=matchplay.turn_played)
    return matchplay.prepared(game, match, extras, job.place)


def check_client(spec: str) -> None:
    """A client's command line with its placeholders filled, refused in one line (`AgentSpecError`) when it
    cannot run."""
    from locm.games.skyport.netbots import SANDBOX_HOST, SANDBOX_PORT, client_argv

    client_argv(spec, 0, 0, SANDBOX_HOST, SANDBOX_PORT)


__all__ = ["play", "check_client"]
