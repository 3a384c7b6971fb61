"""Tournaments of any registered game through the core (`engine.core`): a schedule of 2 to N seats, games
played by the game's built-in agents in worker processes, stored as they come (`EventStore.append_match`),
and standings by the game's outcome (places, so a game of points and a game won or lost rank alike).

Schedule (`match_schedule`): every combination of ``seats`` agents from the list plays ``games`` games: the
seeds ``seed .. seed + games/seats - 1``, each in every rotation of the combination's seats (with two seats: each
seed once in each seating, LOCM's mirrored seeds), so no agent keeps a seat's advantage. ``games`` must be a
multiple of ``seats``. Every game's id is what its content gives (`GameDef.game_id`), computed before it is
played, so a tournament interrupted is finished by running it again: stored games are skipped.

The schedule is recorded in the store as LOCM's is (`MatchSchedule.manifest`, in the ``schedules`` table: the
game, its rules' values, the agents and their bots' versions, the first seed, the games and the seats), and
each game it plays says its place in its ``meta`` (``"schedule": key, "place": k``), so `locm verify` rebuilds
the schedule and names a scheduled game missing from the store by its place (`locm.verify.checks.schedule_problems`).

Standings (`match_standings`): per agent, games, wins (place 0, alone or shared), the win rate with its 95%
Wilson interval, the mean place (1 = first), in a game of points the mean score with its 95% interval, and
the games it lost by an error (a bot that crashed or broke the protocol, a client that did not join).

Bots: a my-card-game agent may be a command line, run in the sandbox as LOCM's bots are (`locm.runner.bots.BotAgent`:
one line each way, time limits, stderr kept, a failure or timeout recorded by seat). LOCM's own tournament
(`locm.games.locm.tournament`: schedules recorded in the store) is the one `locm tournament` runs for LOCM.

Supervision (`run_matches`): games with a bot, or more than one worker, are played by the one pool's worker
processes (`locm.tournament.pool`, through `locm.games.locm.tournament._pool`, with this module's work): a worker that
dies, goes silent or makes no decision for too long is killed and replaced, and its game played again once,
then named as failed (not stored: running the tournament again retries it).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NamedTuple, Sequence

import msgspec

from locm.analysis.stats import mean_interval, wilson
from locm.engine import core, registry
from locm.errors import TournamentError


SERVED_GAMES = ("skyport",)
"""The games whose command-line clients play through the game's server (`locm.games.skyport.netbots`: Skyport's clients
speak its TCP protocol, each in the sandbox; a client that does not join in time forfeits, R-FORFEIT). Every other
game's command-line bots are played by the core's runner, one line each way (`locm.runner.bots.BotAgent`: the
game's `message`, its match's ``answer``), whatever package the game comes from."""


class MatchJob(NamedTuple):
    """One scheduled game: its seed and its agents by seat, and the id its content will have."""

    seed: int
    agents: tuple[str, ...]
    game_id: str
    bots: tuple[str, ...] = ()
    """Each seat's bot version (`bot_versions`), taken once when the schedule is made."""
    place: tuple[str, int] | None = None
    """(schedule key, index) in its recorded schedule (`MatchSchedule`), kept in the stored game's meta."""


class MatchSchedule(list):
    """The jobs of `match_schedule` (a list of `MatchJob`, in the order played), with what a store keeps of
    the schedule: ``manifest``, the canonical JSON of everything that decides its games (the game, its rules'
    values, the agents and their bots' versions, the first seed, the games and the seats: a few hundred bytes
    however many games), and ``key``, the first 16 hex digits of its SHA-256 (as LOCM's schedules).
    `from_manifest` rebuilds the jobs from a manifest, the bots' versions as recorded."""

    def __init__(self, jobs: Sequence[MatchJob], manifest: str, key: str) -> None:
        super().__init__(jobs)
        self.manifest = manifest
        self.key = key

    @classmethod
    def from_manifest(cls, manifest: str) -> "MatchSchedule":
        m = _manifest_dec.decode(manifest)
        if m.format != "locm-schedule" or m.version != 1 or m.kind != MATCH_KIND:
            raise TournamentError(f"not a schedule manifest this locm reads: {m.format} {m.version} {m.kind}")
        try:
            game = registry.get(m.game)
        except registry.UnknownGameError:
            raise TournamentError(f"a schedule of {m.game!r}, a game this locm does not know") from None
        if len(m.bots) != len(m.agents):
            raise TournamentError("a schedule manifest whose bots do not agree with its agents")
        rules = msgspec.json.decode(m.rules, type=_rules_type(game))
        return _scheduled(game, rules, m.agents, m.games, m.seed, m.seats, dict(zip(m.agents, m.bots)))

    def describe(self) -> str:
        m = _manifest_dec.decode(self.manifest)
        game = registry.get(m.game)
        rules = msgspec.json.decode(m.rules, type=_rules_type(game))
        return (f"{game.title} {game.rules_name(rules)}, {len(m.agents)} agents, {m.seats} seats, seeds "
                f"{m.seed}..{m.seed + m.games // m.seats - 1}, {len(self)} games")


MATCH_KIND = "seats_round_robin"
"""The ``kind`` of a schedule manifest of `match_schedule` (LOCM's own are ``round_robin``)."""


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    kind: str
    game: str
    rules: msgspec.Raw
    agents: list[str]
    bots: list[str]
    seed: int
    games: int
    seats: int
    scheduled: int


_manifest_dec = msgspec.json.Decoder(_Manifest)


def _rules_type(game) -> Any:
    """The type a game's rules values have (that of its first built-in ruleset): what a manifest decodes."""
    return type(game.rules(game.rulesets[0]))


def bot_versions(game, agents: Sequence[str]) -> tuple[str, ...]:
    """Each seat's command-line bot's version, the SHA-256 of its files (`locm.games.locm.tournament.bot_fingerprint`);
    "" for a built-in agent."""
    from locm.games.locm.tournament import bot_fingerprint

    return tuple("" if a in game.agent_names else (bot_fingerprint(a) or "") for a in agents)


def new_match(game, rules, seed: int, agents: Sequence[str], bots: Sequence[str] = ()):
    """A live match; a game that records its bots' versions (`GameDef.new_versioned`) records them, so
    its id names them."""
    if game.new_versioned is not None and any(bots):
        return game.new_versioned(rules, seed, tuple(agents), tuple(bots))
    return game.new(rules, seed, tuple(agents))


def match_schedule(game_name: str, ruleset, agents: Sequence[str], games: int, seed: int = 1,
                   seats: int | None = None) -> list[MatchJob]:
    """The games of a round robin of `agents` (see the module docstring), in the order played."""
    game = registry.get(game_name)
    n = seats or game.seats[0]
    lo, hi = game.seats
    if not lo <= n <= hi:
        raise TournamentError(f"{game.title} is played by {lo} to {hi} players, not {n}")
    if len(agents) < n:
        raise TournamentError(f"a tournament of {n}-player games needs {n} agents at least, got {len(agents)}")
    if games % n:
        raise TournamentError(f"--games {games}: expected a multiple of {n} (each seed played in every seat)")
    for name in agents:
        if name not in game.agent_names:  # a command line (one that cannot run: refused below, one line)
            if game.name in SERVED_GAMES:
                from locm.games.skyport.netbots import SANDBOX_HOST, SANDBOX_PORT, client_argv

                client_argv(name, 0, 0, SANDBOX_HOST, SANDBOX_PORT)  # its placeholders too
            from locm.runner.bots import command_argv

            command_argv(name)  # a command line that cannot run: one line, before anything is played
    rules = game.rules(ruleset) if isinstance(ruleset, str) else ruleset  # a name, or rules (a variant's)
    version = dict(zip(agents, bot_versions(game, agents)))  # each bot's files hashed once, at the start
    return _scheduled(game, rules, agents, games, seed, n, version)


def _scheduled(game, rules, agents: Sequence[str], games: int, seed: int, n: int,
               version: dict[str, str]) -> MatchSchedule:
    """The jobs of a checked schedule, each with its place, and its manifest (`MatchSchedule`)."""
    manifest = msgspec.json.encode({
        "format": "locm-schedule", "version": 1, "kind": MATCH_KIND, "game": game.name,
        "rules": msgspec.Raw(msgspec.json.encode(rules)), "agents": list(agents),
        "bots": [version[a] for a in agents], "seed": seed, "games": games, "seats": n,
        "scheduled": len(list(itertools.combinations(agents, n))) * games}).decode()
    key = hashlib.sha256(manifest.encode()).hexdigest()[:16]
    jobs = []
    for combo in itertools.combinations(agents, n):
        for s in range(seed, seed + games // n):
            for r in range(n):
                seated = combo[r:] + combo[:r]
                bots = tuple(version[a] for a in seated)
                created = new_match(game, rules, s, seated, bots).log[0]
                jobs.append(MatchJob(s, tuple(seated), game.game_id(created), bots, (key, len(jobs))))
    return MatchSchedule(jobs, manifest, key)


def play_seated(game, rules, seed: int, agents: Sequence[str], limits=None, sandbox=None,
                bots: Sequence[str] | None = None):
    """One game of `game` between built-in agents and command-line bots (run in `sandbox`, answering within
    `limits`); returns the match and each seat's extras (`locm.store.eventstore.SeatExtras`). Bots are stopped at the
    end, whatever happens. ``bots``: each seat's bot version to record (default: their files hashed now)."""
    from locm.runner.bots import BotAgent, TimeLimits
    from locm.store.eventstore import SeatExtras

    global _DECISIONS
    match = new_match(game, rules, seed, agents, bot_versions(game, agents) if bots is None else bots)
    players = [game.make_agent(a, seed, seat) if a in game.agent_names
               else BotAgent(a, limits or TimeLimits(), sandbox=sandbox) for seat, a in enumerate(agents)]
    try:
        while not match.ended:
            seat = match.to_move
            players[seat].play_turn(match, seat)
            _DECISIONS += 1
    finally:
        for p in players:
            if isinstance(p, BotAgent):
                p.stop()
    seats = [SeatExtras(stderr=p.stderr, think_ms=round(p.think_ms_total / p.turns, 4) if p.turns else None,
                        error=p.failure is not None and not p.timed_out, timeout=p.timed_out)
             if isinstance(p, BotAgent) else SeatExtras() for p in players]
    return match, seats


def _play(args: tuple):
    """A worker's job: one game played and prepared for the store (its record and compressed log; its place in
    its schedule, if any, in its meta)."""
    from locm.store.eventstore import GameExtras, prepare_match

    name, ruleset, seed, agents, limits, sandbox, bots, place = args
    game = registry.get(name)
    rules = game.rules(ruleset) if isinstance(ruleset, str) else ruleset
    if name in SERVED_GAMES and any(a not in game.agent_names for a in agents):
        from locm.games.skyport.netbots import play_skyport_seated

        match, seats = play_skyport_seated(rules, seed, agents, sandbox, bots, limits, forfeits=True,
                                           progress=_turn_played)
    else:
        match, seats = play_seated(game, rules, seed, agents, limits, sandbox, bots)
    meta = "{}" if place is None else json.dumps({"schedule": place[0], "place": place[1]}, separators=(",", ":"))
    return prepare_match(game, GameExtras(game_id=game.game_id(match.log[0]), meta=meta), match.log, seats)


@dataclass
class MatchRun:
    played: int = 0
    already: int = 0
    ids: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (game id, why): not stored, a rerun retries
    incidents: list[str] = field(default_factory=list)  # workers lost and replaced, one line each


_DECISIONS = 0
"""Decisions made in this process (a supervised worker's heartbeat reports them with the bots' turns)."""


def _turn_played(turn: int, limit: int) -> None:
    """A served game's turn is over: a decision, for the heartbeat."""
    global _DECISIONS
    _DECISIONS += 1


class SupervisedJob(NamedTuple):
    """One game for a supervised worker (`locm.games.locm.tournament._pool`, the runner LOCM's tournaments use)."""

    game: str
    ruleset: object
    seed: int
    agents: tuple[str, ...]
    game_id: str
    bots: tuple[str, ...]
    place: tuple[str, int] | None = None

    @property
    def agent0(self) -> str:
        """What the pool looks at to require a sandbox before a bot starts: a bot of the game if any seat has
        one, else a built-in's name (the pool reads two seats: `agent0` and `agent1`)."""
        names = registry.get(self.game).agent_names
        return next((a for a in self.agents if a not in names), "random")

    @property
    def agent1(self) -> str:
        return "random"


def _supervised_play(job: SupervisedJob, limits, sandbox) -> tuple:
    """A worker's result: ``("game", id, PreparedGame, None)`` or ``("failed", id, error, None)``."""
    import traceback

    try:
        prepared = _play((job.game, job.ruleset, job.seed, job.agents, limits, sandbox, job.bots, job.place))
        if prepared.record.game_id != job.game_id:  # pragma: no cover - an id is known before the game
            raise TournamentError(f"the game played is {prepared.record.game_id}, not the scheduled {job.game_id}")
        return "game", job.game_id, prepared, None
    except Exception as exc:  # a bug in the engine or an agent: report it, go on with the next game
        return "failed", job.game_id, traceback.format_exception_only(type(exc), exc)[-1].strip(), None


def _progress() -> int:
    """A supervised worker's progress, said with its heartbeat: decisions made and bot turns played."""
    from locm.runner.bots import turns_played

    return turns_played() + _DECISIONS


class _MatchWork:
    """A supervised worker's work (`locm.tournament.pool.Job`): one game played and prepared (`_supervised_play`)."""

    def __init__(self, limits, sandbox) -> None:
        self.limits, self.sandbox = limits, sandbox

    def __call__(self, job: SupervisedJob) -> tuple:
        return _supervised_play(job, self.limits, self.sandbox)


def _match_worker(conn, parent: int, limits, sandbox, heartbeat_s: float = 0.5) -> None:
    """A supervised worker process (`locm.tournament.pool.serve` with this module's work): play the jobs received until
    None or the end of the pipe; every ``heartbeat_s`` say it is alive with its progress (decisions made and bot
    turns); die, killing its bots, when the parent dies or on SIGTERM."""
    from locm.tournament.pool import Job, serve

    serve(conn, parent, Job(_MatchWork(limits, sandbox), beat=_progress), heartbeat_s)


def run_matches(store, game_name: str, ruleset, jobs: Sequence[MatchJob], workers: int = 1,
                progress: Callable[[int], None] | None = None, limits=None, sandbox=None, supervision=None,
                on_incident: Callable[[str], None] | None = None, target: Callable | None = None,
                backend: str = "local", address: str | None = None) -> MatchRun:
    """Play the jobs not stored yet and store them as they come, whole games several to a transaction
    (`locm.games.locm.tournament.WRITE_BATCH`, or what came in `locm.games.locm.tournament.WRITE_AFTER_S`; interrupted, the games
    played are stored); command-line bots run in `sandbox` and answer within `limits`.

    Where they are played: with ``backend="ray"`` on the Ray cluster at ``address``
    (`locm.tournament.ray_backend.map_ordered`); else games with a bot, or more than one worker, by supervised worker
    processes, LOCM's (`locm.games.locm.tournament._pool`, `Supervision`): a worker that dies, goes silent or makes no
    decision for the longest time limit plus the grace is killed and replaced, its game played again once,
    then recorded in ``MatchRun.failed`` (not stored: running the tournament again retries it), each
    incident sent to ``on_incident`` and kept in ``MatchRun.incidents``; built-in agents with one worker
    play in this process. ``target``: the supervised worker's function (`_match_worker`; tests give a faulty
    one)."""
    from locm.games.locm.tournament import WRITE_BATCH, store_as_played

    if isinstance(jobs, MatchSchedule):  # the store knows what it should hold: locm verify checks it
        store.record_schedule(jobs.key, jobs.manifest)
    run = MatchRun(ids=[j.game_id for j in jobs])
    todo = [j for j in jobs if not store.has_game(j.game_id)]
    run.already = len(jobs) - len(todo)
    game = registry.get(game_name)
    args = [(game_name, ruleset, j.seed, j.agents, limits, sandbox, j.bots, j.place) for j in todo]
    results: Iterator
    if backend == "ray":
        from locm.tournament.ray_backend import map_ordered

        results = (("game", None, p, None) for p in map_ordered(_play, args, address=address, per_task=8))
    elif todo and (workers > 1 or target is not None or
                   any(a not in game.agent_names for j in todo for a in j.agents)):
        from locm.runner.bots import TimeLimits
        from locm.tournament.pool import Job, Supervision
        from locm.runner.sandbox.bwrap import Sandbox
        from locm.games.locm.tournament import _pool

        supervised = [SupervisedJob(game_name, ruleset, j.seed, tuple(j.agents), j.game_id, tuple(j.bots), j.place)
                      for j in todo]
        limits = limits or TimeLimits()
        sandbox = Sandbox() if sandbox is None else sandbox
        results = _pool(supervised, max(1, min(workers, len(todo))), limits, sandbox, supervision or Supervision(),
                        target, Job(_MatchWork(limits, sandbox), beat=_progress))
    else:
        results = (("game", None, _play(a), None) for a in args)
    store_as_played(store, results, run, WRITE_BATCH, progress, on_incident)
    return run


class MatchStanding(NamedTuple):
    agent: str
    games: int
    wins: float
    rate: float
    low: float
    high: float
    place: float
    score: float | None
    score_low: float | None = None
    score_high: float | None = None
    errors: int = 0


def match_standings(records: Sequence, agents: Sequence[str]) -> list[MatchStanding]:
    """Each agent's results over stored rows (`MatchRecord`), best win rate first. A win is place 0; a
    shared first place counts as a share of a win (1/k of it among k)."""
    out = []
    for agent in dict.fromkeys(agents):
        n = wins = 0
        places: list[int] = []
        scores: list[float] = []
        errors = 0
        for m in records:
            for seat, name in enumerate(m.agents):
                if name != agent:
                    continue
                n += 1
                errors += bool(seat < len(m.seats) and (m.seats[seat].error or m.seats[seat].timeout))
                place = m.places[seat]
                places.append(place)
                if place == 0:
                    wins += 1 / sum(1 for p in m.places if p == 0)
                if m.scores is not None:
                    scores.append(m.scores[seat])
        low, high = wilson(round(wins), n) if n else (0.0, 0.0)
        score, score_low, score_high = mean_interval(scores) if scores else (None, None, None)
        out.append(MatchStanding(agent, n, wins, wins / n if n else 0.0, low, high,
                                 1 + sum(places) / n if n else 0.0, score, score_low, score_high, errors))
    return sorted(out, key=lambda s: (-s.rate, s.place, s.agent))


MATCH_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "mean place", "mean score [95%]", "errors")


def match_rows(table: Sequence[MatchStanding]) -> list[tuple]:
    def score(s: MatchStanding) -> str:
        if s.score is None:
            return "-"
        if s.score_low is None or s.score_high is None or not math.isfinite(s.score_low):
            return f"{s.score:.1f}"
        return f"{s.score:.1f} [{s.score_low:.1f}, {s.score_high:.1f}]"

    return [(s.agent, s.games, f"{s.wins:g}", f"{s.rate:.1%}", f"{s.low:.1%}-{s.high:.1%}", f"{s.place:.2f}",
             score(s), s.errors) for s in table]


__all__ = ["SERVED_GAMES", "play_seated", "MatchJob", "MatchSchedule", "match_schedule", "run_matches",
           "MatchRun", "MatchStanding", "match_standings",
           "match_rows", "MATCH_HEADERS"]
