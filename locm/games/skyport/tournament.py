"""Skyport's player of a tournament's games (`locm.games.registry.PLAYERS`): a game with a client command line
is played through Skyport's TCP server (`locm.games.skyport.netbots.play_skyport_seated`: each client in the
sandbox, speaking Skyport's protocol; one that does not join in time forfeits, R-FORFEIT), with the
tournament's timing (``fast`` or ``faithful``) and wall-clock limit; a game of built-in agents only by the
core's runner (`locm.tournament.matchplay`), or, with a wall-clock limit, by the same loop with the limit
checked before each turn (R-WALL-CLOCK: the game then ends there, recorded). The organiser's map
(``--map``, `with_map`) is recorded in every game and so names its id: a built-in map's name becomes the
rules' own (R-MAP); a ``.skyportmap`` file's map is the schedule's (`MapRoundRobin`, its map in its manifest,
each job's ``opening``)."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from locm.engine import registry
from locm.errors import TournamentError
from locm.tournament import matchplay
from locm.tournament.schedule import Job, SeatsManifest, SeatsRoundRobin, new_match

MAP_KIND = "skyport_map_round_robin"
"""The ``kind`` of a `MapRoundRobin` manifest (`locm.games.registry.SCHEDULE_KINDS`)."""


class MapRoundRobin(SeatsRoundRobin):
    """A `SeatsRoundRobin` of Skyport games on a map of the organiser's (a ``.skyportmap`` file): every game is
    created on it (each job's ``opening``), its ids by their content, the map kept in the manifest as the file's
    text, parsed again when the manifest is read (`locm verify`)."""

    kind = MAP_KIND

    def __init__(self, game: str, ruleset: Any, agents, seed: int, games: int, seats: int,
                 versions: dict[str, str], game_map) -> None:
        self.map = game_map
        super().__init__(game, ruleset, agents, seed, games, seats, versions)

    def _game_id(self, seed: int, agents: tuple[str, ...], bots: tuple[str, ...]) -> str:
        from locm.engine.skyport.definition import new_on

        key = (seed, agents)
        gid = self._ids.get(key)
        if gid is None:
            rules = self._def.rules(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
            gid = self._ids[key] = self._def.game_id(new_on(rules, seed, agents, bots, self.map).log[0])
        return gid

    def _job(self, index: int, step: int, k: int) -> Job:
        return super()._job(index, step, k)._replace(opening=self.map)

    def _manifest(self) -> str:
        from locm.engine.skyport.hexmap import format_map

        doc = msgspec.json.decode(super()._manifest())
        doc.update(kind=MAP_KIND, map_name=self.map.name, map=format_map(self.map))
        return msgspec.json.encode(doc).decode()

    @classmethod
    def _from_manifest(cls, manifest: str) -> "MapRoundRobin":
        from locm.engine.skyport.hexmap import parse_map

        m = _map_dec.decode(manifest)
        if m.format != "locm-schedule" or m.version != 1 or m.kind != MAP_KIND or len(m.bots) != len(m.agents):
            raise TournamentError(f"not a schedule manifest this locm reads: {m.format} {m.version} {m.kind}")
        game = registry.get(m.game)
        rules = msgspec.json.decode(m.rules, type=type(game.rules(game.rulesets[0])))
        return cls(game.name, rules, m.agents, m.seed, m.games, m.seats, dict(zip(m.agents, m.bots)),
                   parse_map(m.map, m.map_name, "a schedule manifest's map"))

    def describe(self) -> str:
        return super().describe().replace(", seeds", f", map {self.map.name}, seeds", 1)


class _MapManifest(SeatsManifest, forbid_unknown_fields=True):
    map_name: str
    map: str


_map_dec = msgspec.json.Decoder(_MapManifest)


def _match(job: Job):
    """The live game a job opens: on its map of the organiser's (``job.opening``), else as the definition's."""
    from locm.engine.skyport.definition import new_on

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    if job.opening is None:
        return new_match(game, rules, job.seed, job.agents, job.bots)
    return new_on(rules, job.seed, job.agents, job.bots, job.opening)


def play(job: Job, limits, sandbox, seats: list | None = None):
    """A tournament's Skyport game played and prepared for the store (its place in its schedule in its meta)."""
    wall_s = getattr(limits, "wall_s", None)
    if not job.has_bot:
        if wall_s is None:
            return matchplay.play(job, limits, sandbox, match=_match(job))
        return _play_timed(job, wall_s)
    from locm.games.skyport.netbots import play_skyport_seated

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match, extras = play_skyport_seated(rules, job.seed, job.agents, sandbox, job.bots, limits, forfeits=True,
                                        progress=matchplay.turn_played, game_map=job.opening)
    return matchplay.prepared(game, match, extras, job.place)


def _play_timed(job: Job, wall_s: float):
    """A game of built-in agents only, with a wall-clock limit from its first turn: checked before each turn,
    as the server checks it; once run out, the game is stopped there (`Stop`, R-WALL-CLOCK)."""
    from locm.engine.skyport.commands import Stop
    from locm.engine.skyport.state import TURN
    from locm.store.eventstore import SeatExtras
    from locm.tournament.run import decided

    game = registry.get(job.game)
    match = _match(job)
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
    """The organiser's map (``--map``): ``(rules, None)`` for a built-in map's name (the rules' ``map``, R-MAP),
    ``(rules, map)`` for a ``.skyportmap`` file's (`map_schedule` then plays every game on it); one line for
    anything else (`locm.games.skyport.cli.load_map`)."""
    from locm.engine.skyport.rules import builtin_map_names
    from locm.games.skyport.cli import load_map

    if spec in builtin_map_names():
        return rules.replace(map=spec), None
    return rules, load_map(spec)


def map_schedule(jobs: SeatsRoundRobin, game_map) -> MapRoundRobin:
    """The schedule's games, each on ``game_map`` (a map file's: `MapRoundRobin`)."""
    return MapRoundRobin(jobs.game, jobs.ruleset, jobs.agents, jobs.seed, jobs.games, jobs.seats, jobs.versions,
                         game_map)


def check_client(spec: str) -> None:
    """A client's command line with its placeholders filled, refused in one line (`AgentSpecError`) when it
    cannot run."""
    from locm.games.skyport.netbots import SANDBOX_HOST, SANDBOX_PORT, client_argv

    client_argv(spec, 0, 0, SANDBOX_HOST, SANDBOX_PORT)


__all__ = ["MAP_KIND", "MapRoundRobin", "play", "with_map", "map_schedule", "check_client"]
