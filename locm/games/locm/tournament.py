"""LOCM's tournaments at the edges: one game (`run_game`), LOCM's round robin (`RoundRobin`, `schedule`), the
player that plays a tournament's LOCM game in a worker (`play`, `ahead`, `init`, `close`: reached through
`engine.seam.GameDef.player`), and `run_tournament` (the schedule recorded, then the games the store lacks
played by the one run every game has, `locm.tournament.run`).

Game ids name their content (`locm.engine.locm.gameid`): ruleset, seed, agents with their bots' versions,
parameters. The same game asked for twice has the same id, so a store never holds it twice and an interrupted
tournament resumes by skipping the ids already stored; a game's id is computed before it is played and is what
its `game_created` gives.

Round robin (`schedule`): every pair of agents plays ``games`` games, half the seeds ``seed .. seed +
games/2 - 1`` with the first agent of the pair in seat 0 and the same seeds with the seats swapped (mirrored
seeds); every pair gets the same seeds. An odd ``games`` is refused: a seed played in one seat only would
give that pair a seat bias.

A worker plays each game with its bots speaking the referee's protocol and prepares it for the store with its
facts for the card report (`play`); the next game's bots' sandboxes are set up while a game is played
(`ahead`), and each bot's sandbox is kept for its next game in the worker where it can be (`init`, `close`).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from collections.abc import Callable, Sequence

import msgspec

from locm.engine.locm.agents import AGENT_NAMES, seat_seed
from locm.engine.locm.definition import GAME as LOCM_GAME
from locm.engine.locm.playing import play as play_seats
from locm.engine.locm.game import Game
from locm.engine.locm.gameid import created_id, game_id
from locm.engine.locm.rulesets import Rules, by_name, rules_hash
from locm.events.locm.catalog import HardError
from locm.errors import TournamentError
from locm.games.locm.bots import TimedAgent, is_builtin, make_agent
from locm.runner.bots import BotAgent, TimeLimits
from locm.runner.live import watching
from locm.runner.sandbox import kept as sandbox_kept
from locm.runner.sandbox.bwrap import Sandbox, require
from locm.store.eventstore import EventStore, GameExtras, GameRecord, PreparedGame, SeatExtras, prepare_game
from locm.tournament.pool import Supervision
from locm.tournament.run import TournamentRun, play_jobs, record_schedule, to_play
from locm.tournament.schedule import MAX_GAMES, Job, Schedule, bot_fingerprint

LOCM = "locm"

_INT64 = (-(1 << 63), (1 << 63) - 1)


# --- one game ---------------------------------------------------------------------------------------------


@dataclass
class PlayedGame:
    game: Game
    extras: GameExtras

    @property
    def game_id(self) -> str:
        return self.extras.game_id


def make_seats(seed: int, agents: Sequence[str], limits: TimeLimits, sandbox: Sandbox) -> list:
    """The two seats' agents of a game (not started): built-ins seeded by seat and timed, bots in `sandbox`
    (`SandboxUnavailableError` if a bot is to be sandboxed on a machine that cannot)."""
    if not all(is_builtin(a) for a in agents):
        require(sandbox)
    seats = [make_agent(agents[s], seat_seed(seed, s), limits, sandbox) for s in (0, 1)]
    return [a if isinstance(a, BotAgent) else TimedAgent(a) for a in seats]


def run_game(ruleset: str | Rules, seed: int, agents: Sequence[str], params: dict | None = None,
             limits: TimeLimits | None = None, versions: Sequence[str] | None = None,
             place: tuple[str, int] | None = None, sandbox: Sandbox | None = None,
             seats: list | None = None) -> PlayedGame:
    """Play one game between two agents (built-in names or command lines) and return it with the record's
    extras: each seat's stderr (bots), average think time per turn (ms), hard-error and timeout flags, and
    ``meta`` JSON with the turns answered, the slowest turn and, with a bot, the time limits and the sandbox
    (`Sandbox.meta`). Bots run in `sandbox` (by default the sandbox with its default limits:
    `SandboxUnavailableError` if this machine cannot make one), or are the given ``seats`` (`make_seats`,
    their sandboxes perhaps prepared already: `BotAgent.prepare`). Every bot process is killed before this
    returns or raises. ``versions``: the bots' versions to record (default: `bot_fingerprint` of each agent
    now); ``place``: the game's place in a recorded schedule, kept in its meta (``schedule``, ``place``)."""
    limits = limits or TimeLimits()
    sandbox = Sandbox() if sandbox is None else sandbox
    seats = seats or make_seats(seed, agents, limits, sandbox)
    if versions is None:  # a bot's identity: its command and its files (a tournament takes them once, at start)
        versions = tuple(bot_fingerprint(a.command) or "" if isinstance(a, BotAgent) else "" for a in seats)
    bots = [a for a in seats if isinstance(a, BotAgent)]
    try:
        game = Game.new(ruleset, seed, params, agents=tuple(agents), bots=(versions[0], versions[1]))
        for bot in bots:
            bot.start(game.rules)  # both at once, so that their start-up overlaps
        with watching(LOCM_GAME, created_id(game.created), agents, game.log):  # for spectators (locm arena)
            play_seats(game, seats)
    finally:
        for bot in bots:
            bot.kill()  # both at once, so that their sandboxes end together
        for bot in bots:
            bot.stop()
    return PlayedGame(game, _extras(created_id(game.created), game, seats, limits, sandbox if bots else None,
                                    place))


def _extras(gid: str, game: Game, seats: list, limits: TimeLimits, sandbox: Sandbox | None,
            place: tuple[str, int] | None = None) -> GameExtras:
    errors = {e.player for e in game.log if type(e) is HardError}
    meta = {"turns": [a.turns for a in seats], "think_max_ms": [round(a.think_ms_max, 3) for a in seats]}
    if place is not None:
        meta["schedule"], meta["place"] = place
    if any(isinstance(a, BotAgent) for a in seats):  # a bot's think time turn by turn (the arena's bot pages)
        meta["think_turn_ms"] = [[round(ms, 2) for ms in a.turn_ms] if isinstance(a, BotAgent) else None
                                 for a in seats]
    if sandbox is not None:
        meta["limits_ms"] = limits.as_dict()
        meta["bot_sha256"] = [v or None for v in game.created.bot_sha256 or (None, None)]
        meta["sandbox"] = sandbox.meta()
        if sandbox_kept.keeping(sandbox):  # the bots ran in sandboxes kept across games, started afresh in each
            meta["sandbox"]["kept"] = True
    extras = tuple(SeatExtras(think_ms=round(a.think_ms_total / a.turns, 4) if a.turns else None, error=s in errors,
                              timeout=bool(getattr(a, "timed_out", False)),
                              stderr=a.stderr if isinstance(a, BotAgent) else "")
                   for s, a in enumerate(seats))
    return GameExtras(game_id=gid, seats=extras, meta=json.dumps(meta, separators=(",", ":")))


def changed_bots(store: EventStore, agents: Sequence[str]) -> list[tuple[str, int]]:
    """The command-line agents whose files differ from those of games already stored with them, each with
    how many stored games were played by another version (games stored without a fingerprint are not
    counted)."""
    found = []
    for agent in agents:
        now = bot_fingerprint(agent, AGENT_NAMES)
        if now is None:
            continue
        other = 0
        for r in store.games(agent=agent, game=LOCM):
            try:
                stored = json.loads(r.meta).get("bot_sha256") or [None, None]
            except (ValueError, AttributeError):
                continue
            for seat, name in enumerate(r.agents):
                if name == agent and stored[seat] is not None and stored[seat] != now:
                    other += 1
        if other:
            found.append((agent, other))
    return found


def stored_versions(record: GameRecord) -> tuple[str | None, str | None]:
    """The bots' versions a stored game was played with (its meta's ``bot_sha256``; None per seat when
    unknown or a built-in agent)."""
    try:
        stored = json.loads(record.meta).get("bot_sha256") or [None, None]
    except (ValueError, AttributeError):
        return None, None
    if not isinstance(stored, list) or len(stored) != 2:
        return None, None
    return tuple(v if isinstance(v, str) and v else None for v in stored)  # type: ignore[return-value]


def other_versions(store: EventStore, created, gid: str) -> list[tuple[GameRecord, list[str]]]:
    """Stored games that are this game (same ruleset, seeds and agents: `created`, the new game's
    `game_created`) played by another version of a bot, each with the agents whose version differs."""
    found = []
    fields = ("ruleset", "seed", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
              "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed")
    now = created.bot_sha256 or ("", "")
    agents = tuple(created.agents)
    for r in store.games(agent=agents[0], game=LOCM):
        given = {"ruleset": r.ruleset, "seed": r.seed, **r.fields}
        if r.game_id == gid or r.agents != agents or any(given.get(f) != getattr(created, f) for f in fields):
            continue
        then = stored_versions(r)
        changed = [agents[s] for s in (0, 1) if now[s] and then[s] != now[s]]
        if changed:
            found.append((r, changed))
    return found


# --- the schedule -----------------------------------------------------------------------------------------


class RoundRobin(Schedule):
    """LOCM's round robin (kind ``round_robin``, `locm.tournament.schedule`): one group of slots, played seed by
    seed (so a partial run is balanced): for each seed each pair in the order given, the pair's first agent in
    seat 0, then the seats swapped. An agent given twice also plays itself (self-play): the same agent in both
    seats, so swapping the seats gives the same game (the same id); its two games of each step are two seeds,
    ``s`` and ``s + seeds``, and it plays as many games as any other pair, each of its seeds once. Ids by
    `locm.engine.locm.gameid.game_id` (computed without creating the game); its manifest keeps the ruleset's
    values with their hash, as LOCM's stores have it since their first schema."""

    kind = "round_robin"

    def __init__(self, ruleset: str | Rules, agents: Sequence[str], seed: int, seeds: int,
                 versions: dict[str, str] | None = None) -> None:
        if versions is None:  # the bots' files now: part of the ids
            versions = {a: bot_fingerprint(a, AGENT_NAMES) or "" for a in agents}
        distinct = list(dict.fromkeys(agents))
        self.selfplay = tuple(a for a in distinct if tuple(agents).count(a) > 1)
        self.pairs = [p for a, b in itertools.combinations(distinct, 2) for p in ((a, b), (b, a))]
        super().__init__(LOCM, ruleset, agents, seed, seeds, versions)

    def _groups(self) -> list[list]:
        return [[(pair, 0) for pair in self.pairs] + [((a, a), k * self.seeds) for a in self.selfplay for k in (0, 1)]]

    def _game_id(self, seed: int, agents: tuple[str, ...], bots: tuple[str, ...]) -> str:
        return game_id(self.ruleset, seed, agents, bots=bots)

    def _builtins(self) -> frozenset[str]:
        return frozenset(AGENT_NAMES)  # the runner's (its definition is not loaded to play its games)

    def _manifest(self) -> str:
        rules = by_name(self.ruleset) if isinstance(self.ruleset, str) else self.ruleset
        return msgspec.json.encode({
            "format": "locm-schedule", "version": 1, "kind": "round_robin", "ruleset": rules.name,
            "rules_hash": rules_hash(rules), "rules": rules, "agents": list(self.agents),
            "bots": [self.versions[a] for a in self.agents], "seed": self.seed, "seeds": self.seeds,
            "games": len(self)}).decode()

    @classmethod
    def _from_manifest(cls, manifest: str) -> "RoundRobin":
        m = _manifest_dec.decode(manifest)
        if m.format != "locm-schedule" or m.version != 1 or m.kind != "round_robin":
            raise TournamentError(f"not a schedule manifest this locm reads: {m.format} {m.version} {m.kind}")
        if len(m.bots) != len(m.agents) or rules_hash(m.rules) != m.rules_hash:
            raise TournamentError("a schedule manifest whose bots or rules do not agree with themselves")
        return cls(m.rules, m.agents, m.seed, m.seeds, dict(zip(m.agents, m.bots)))

    def describe(self) -> str:
        name = self.ruleset if isinstance(self.ruleset, str) else self.ruleset.name
        return (f"{name}, {len(self.agents)} agents, seeds {self.seed}..{self.seed + self.seeds - 1}, "
                f"{len(self)} games")


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    kind: str
    ruleset: str
    rules_hash: str
    rules: Rules
    agents: list[str]
    bots: list[str]
    seed: int
    seeds: int
    games: int


_manifest_dec = msgspec.json.Decoder(_Manifest)


def schedule(ruleset: str | Rules, agents: Sequence[str], games: int, seed: int = 1) -> RoundRobin:
    """Every game of LOCM's round robin as a lazy `RoundRobin`; refused up front if malformed or larger than
    `MAX_GAMES`. An agent given twice also plays itself (see `RoundRobin`)."""
    agents = list(agents)
    if len(agents) < 2:
        raise TournamentError(f"a tournament needs at least 2 agents, got {len(agents)}")
    thrice = sorted({a for a in agents if agents.count(a) > 2})
    if thrice:
        raise TournamentError(f"an agent may be given at most twice (twice: it also plays itself), got "
                              f"{thrice[0]!r} {agents.count(thrice[0])} times")
    if games < 2 or games % 2:
        raise TournamentError(f"--games must be even and at least 2 (each seed is played in both seats), "
                              f"got {games}")
    distinct = len(set(agents))
    selfplay = len(agents) - distinct
    pairs = distinct * (distinct - 1) // 2 + selfplay
    if games * pairs > MAX_GAMES:
        raise TournamentError(f"--games {games} with {pairs} pair{'s' * (pairs != 1)} of agents is {games * pairs} "
                              f"games, more than one run plays (at most {MAX_GAMES}); split it into runs with "
                              f"different --seed")
    last = seed + (games if selfplay else games // 2) - 1
    if not (_INT64[0] <= seed and last <= _INT64[1]):
        raise TournamentError(f"seeds {seed}..{last} do not fit a 64-bit signed integer")
    return RoundRobin(ruleset, agents, seed, games // 2)


# --- the tournament ---------------------------------------------------------------------------------------


def run_tournament(store: EventStore, ruleset: str, agents: Sequence[str], games: int, *, workers: int = 1,
                   seed: int = 1, limits: TimeLimits | None = None,
                   progress: Callable[[int], None] | None = None, sandbox: Sandbox | None = None,
                   supervision: Supervision | None = None) -> TournamentRun:
    """`schedule` (recorded in the store: `record_schedule`), then play the games `store` lacks (`iter_pending`,
    `play_jobs`)."""
    jobs = schedule(ruleset, agents, games, seed)
    record_schedule(store, jobs)
    todo, count = to_play(store, jobs)
    return play_jobs(store, todo, workers=workers, limits=limits, progress=progress, scheduled=len(jobs),
                     count=count, sandbox=sandbox, supervision=supervision)


# --- the player (`engine.seam.GameDef.player`) -------------------------------------------------------------


def play(job: Job, limits: TimeLimits, sandbox: Sandbox, seats: list | None = None) -> PreparedGame:
    """A tournament's LOCM game (`run_game`, its bots speaking the referee's protocol) prepared for the store
    in the worker: checked, encoded, chained and compressed, with its facts for the card report
    (`locm.store.eventstore.prepare_game`: its record, its log as the one zlib blob the store keeps, about 9 KB
    for a 1.2 game, and its packed facts, about 1 KB, so a game crosses the pipe as one small pickle)."""
    played = run_game(job.ruleset, job.seed, job.agents, limits=limits, versions=job.bots, place=job.place,
                      sandbox=sandbox, seats=seats)
    return prepare_game(LOCM_GAME, played.extras, played.game.log)


def rules(spec: str) -> Rules:
    """`locm play`'s ``--ruleset`` as LOCM reads it: a built-in name or alias, or a variant file
    (`locm.games.locm.variants.resolve_ruleset`)."""
    from locm.games.locm.variants import resolve_ruleset

    return resolve_ruleset(spec)


def parse_params(items: Sequence[str]) -> dict:
    """``--param NAME=VALUE`` items as the referee's parameters (integers; ``predefinedDraftIds`` as text)."""
    from locm.engine.errors import GameParamError

    out: dict = {}
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


def play_one(game, rules: Rules, seed: int, agents: Sequence[str], params: dict | None = None,
             limits: TimeLimits | None = None, sandbox: Sandbox | None = None) -> tuple[list, GameExtras]:
    """`locm play`'s LOCM game: `run_game` (two seats as the official referee has them, the referee's
    parameters, bots speaking its protocol), as ``(events, extras)``."""
    Game.new(rules, seed, params)  # a bad seed or parameter is refused before any bot is started
    played = run_game(rules, seed, agents, params, limits, sandbox=sandbox)
    return played.game.log, played.extras


def summary_lines(game, rules: Rules, seed: int, agents: Sequence[str], events: Sequence, extras: GameExtras
                  ) -> list[str]:
    """What `locm play` says of a finished LOCM game: the winner, health, cards played and damage taken
    (`locm.games.locm.play.summarize`), each hard error, and the last lines of a bot that lost by one."""
    from locm.games.locm.play import summarize
    from locm.tournament.workflow import STDERR_TAIL_LINES

    lines = summarize(Game.from_log(list(events))).lines(tuple(agents))
    lines += [f"hard error: player {e.player} ({agents[e.player]}): {e.reason}" for e in events
              if type(e) is HardError]
    for seat, x in enumerate(extras.seats or ()):
        if (x.error or x.timeout) and x.stderr.strip():  # a bot that lost by an error: its traceback, usually
            lines.append(f"stderr of player {seat} ({agents[seat]}), last lines:")
            lines += [f"  | {line}" for line in x.stderr.rstrip().splitlines()[-STDERR_TAIL_LINES:]]
    return lines


def standings_lines(records: Sequence[GameRecord], agents: Sequence[str], jobs: Schedule) -> list[str]:
    """`locm tournament`'s tables of a LOCM round robin: the standings with hard errors, timeouts and think
    time (an agent playing itself has a row per seat), how the bots were confined, the ratings (the games in
    schedule order) and head to head."""
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.common.tables import table
    from locm.tournament.sequential import ratings, schedule_order
    from locm.tournament.standings import (PAIR_HEADERS, STANDINGS_HEADERS, pair_rows, sandbox_lines, standings,
                                           standings_rows)

    lines = [table(STANDINGS_HEADERS, standings_rows(standings(records, agents))), *sandbox_lines(records), ""]
    lines.append(table(RATING_HEADERS, rating_rows(ratings(sorted(records, key=schedule_order(jobs)), agents))))
    lines += ["", table(PAIR_HEADERS, pair_rows(records, agents))]
    return lines


def earlier_versions(store: EventStore, created, gid: str) -> list[str]:
    """`locm play --db`'s note on each stored game that is this one played by another version of a bot
    (`other_versions`)."""
    return [f"bot {', '.join(repr(b) for b in bots)} changed since this game was played as {record.game_id} "
            f"(its files differ): this is a new game, under its own id" for record, bots in
            other_versions(store, created, gid)]


def ahead(job: Job, limits: TimeLimits, sandbox: Sandbox) -> list | None:
    """The seats of the next job with their bots' sandboxes set up (`BotAgent.prepare`) while a game is
    played, or None."""
    try:
        seats = make_seats(job.seed, job.agents, limits, sandbox)
    except Exception:  # `play` meets the same error and reports it
        return None
    rules = by_name(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset  # as `Game.new` resolves it
    for agent in seats:
        if isinstance(agent, BotAgent):
            agent.prepare(rules)
    return seats


def init() -> None:
    """A worker's start: each bot's sandbox kept for its next game in this worker, where it can be
    (`locm.runner.sandbox.kept`)."""
    sandbox_kept.keep()


def close() -> None:
    """A worker's end: the sandboxes it kept closed."""
    sandbox_kept.close_all()


# --- checking stored games -------------------------------------------------------------------------------


def check_stored_game(store: EventStore, record: GameRecord, redecide: bool = True) -> str | None:
    """None if a stored game is sound (`locm.verify.checks.stored_problem`: its chain, its fold, re-deciding it with
    `redecide`, its id); otherwise what is wrong, in one line."""
    from locm.verify.checks import stored_problem

    return stored_problem(store, record, redecide).problem


__all__ = ["rules", "parse_params", "play_one", "summary_lines", "earlier_versions", "standings_lines", "game_id", "run_game", "make_seats", "PlayedGame", "RoundRobin", "schedule", "run_tournament", "play",
           "ahead", "init", "close", "check_stored_game", "changed_bots", "stored_versions", "other_versions"]
