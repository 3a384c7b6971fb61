"""Tournaments of any registered game through the core (`engine.core`): a schedule of 2 to N seats, games
played by the game's built-in agents in worker processes, stored as they come (`EventStore.append_match`),
and standings by the game's outcome (places, so a game of points and a game won or lost rank alike).

Schedule (`match_schedule`): every combination of ``seats`` agents from the list plays ``games`` games: the
seeds ``seed .. seed + games/seats - 1``, each in every rotation of the combination's seats (with two seats: each
seed once in each seating, LOCM's mirrored seeds), so no agent keeps a seat's advantage. ``games`` must be a
multiple of ``seats``. Every game's id is what its content gives (`GameDef.game_id`), computed before it is
played, so a tournament interrupted is finished by running it again: stored games are skipped.

Standings (`match_standings`): per agent, games, wins (place 0, alone or shared), the win rate with its 95%
Wilson interval, the mean place (1 = first) and, in a game of points, the mean score.

Bots: a my-card-game agent may be a command line, run in the sandbox as LOCM's bots are (`locm.bots.BotAgent`:
one line each way, time limits, stderr kept, a failure or timeout recorded by seat). LOCM's own tournament
(`locm.tournament`: supervision of stuck workers, schedules recorded in the store) is the one `locm
tournament` runs for LOCM; bringing that supervision here is a next step.
"""

from __future__ import annotations

import itertools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple, Sequence

from locm.analysis.stats import wilson
from locm.engine import core, registry
from locm.errors import TournamentError


BOT_GAMES = ("mcg",)
"""The games whose command-line bots the core's runner plays (one line each way: `locm.bots.BotAgent`); a
Skyport bot speaks its server's protocol (`locm serve`, the next issue)."""


class MatchJob(NamedTuple):
    """One scheduled game: its seed and its agents by seat, and the id its content will have."""

    seed: int
    agents: tuple[str, ...]
    game_id: str


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
        if name not in game.agent_names:
            if game.name not in BOT_GAMES:
                raise TournamentError(f"{game.title} has no agent {name!r}: expected one of "
                                      f"{', '.join(game.agent_names)}")
            from locm.bots import command_argv

            command_argv(name)  # a command line that cannot run: one line, before anything is played
    rules = game.rules(ruleset) if isinstance(ruleset, str) else ruleset  # a name, or rules (a variant's)
    jobs = []
    for combo in itertools.combinations(agents, n):
        for s in range(seed, seed + games // n):
            for r in range(n):
                seated = combo[r:] + combo[:r]
                created = game.new(rules, s, seated).log[0]
                jobs.append(MatchJob(s, tuple(seated), game.game_id(created)))
    return jobs


def play_seated(game, rules, seed: int, agents: Sequence[str], limits=None, sandbox=None):
    """One game of `game` between built-in agents and command-line bots (run in `sandbox`, answering within
    `limits`); returns the match and each seat's extras (`locm.store.SeatExtras`). Bots are stopped at the
    end, whatever happens."""
    from locm.bots import BotAgent, TimeLimits
    from locm.store import SeatExtras

    match = game.new(rules, seed, tuple(agents))
    players = [game.make_agent(a, seed, seat) if a in game.agent_names
               else BotAgent(a, limits or TimeLimits(), sandbox=sandbox) for seat, a in enumerate(agents)]
    try:
        while not match.ended:
            seat = match.to_move
            players[seat].play_turn(match, seat)
    finally:
        for p in players:
            if isinstance(p, BotAgent):
                p.stop()
    seats = [SeatExtras(stderr=p.stderr, think_ms=round(p.think_ms_total / p.turns, 4) if p.turns else None,
                        error=p.failure is not None and not p.timed_out, timeout=p.timed_out)
             if isinstance(p, BotAgent) else SeatExtras() for p in players]
    return match, seats


def _play(args: tuple):
    """A worker's job: one game played and prepared for the store (its record and compressed log)."""
    from locm.store import GameExtras, prepare_match

    name, ruleset, seed, agents, limits, sandbox = args
    game = registry.get(name)
    rules = game.rules(ruleset) if isinstance(ruleset, str) else ruleset
    match, seats = play_seated(game, rules, seed, agents, limits, sandbox)
    return prepare_match(game, GameExtras(game_id=game.game_id(match.log[0])), match.log, seats)


@dataclass
class MatchRun:
    played: int = 0
    already: int = 0
    ids: list[str] = field(default_factory=list)


def run_matches(store, game_name: str, ruleset, jobs: Sequence[MatchJob], workers: int = 1,
                progress: Callable[[int], None] | None = None, limits=None, sandbox=None,
                backend: str = "local", address: str | None = None) -> MatchRun:
    """Play the jobs not stored yet (``workers`` processes, 1: in this process; or with ``backend="ray"`` on the
    Ray cluster at ``address``, `locm.ray_backend.map_ordered`) and store them as they come, whole games several
    to a transaction (`locm.tournament.WRITE_BATCH`, or what came in `locm.tournament.WRITE_AFTER_S`);
    command-line bots run in `sandbox` and answer within `limits`."""
    import time

    from locm.tournament import WRITE_AFTER_S, WRITE_BATCH

    run = MatchRun(ids=[j.game_id for j in jobs])
    todo = [j for j in jobs if not store.has_game(j.game_id)]
    run.already = len(jobs) - len(todo)
    args = [(game_name, ruleset, j.seed, j.agents, limits, sandbox) for j in todo]
    results: Iterator
    pool = None
    if backend == "ray":
        from locm.ray_backend import map_ordered

        results = map_ordered(_play, args, address=address, per_task=8)
    elif workers > 1 and len(args) > 1:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        results = pool.map(_play, args, chunksize=4)
    else:
        results = map(_play, args)
    ready: list = []
    since = 0.0

    def flush() -> None:
        batch = ready[:]
        ready.clear()
        store.append_games(batch)
        run.played += len(batch)
        if progress:
            progress(len(batch))

    try:
        for prepared in results:
            if not ready:
                since = time.monotonic()
            ready.append(prepared)
            if len(ready) >= WRITE_BATCH or time.monotonic() - since >= WRITE_AFTER_S:
                flush()
    finally:
        if ready:  # finished or interrupted: the games played are stored
            flush()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
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


def match_standings(records: Sequence, agents: Sequence[str]) -> list[MatchStanding]:
    """Each agent's results over stored rows (`MatchRecord`), best win rate first. A win is place 0; a
    shared first place counts as a share of a win (1/k of it among k)."""
    out = []
    for agent in dict.fromkeys(agents):
        n = wins = 0
        places: list[int] = []
        scores: list[float] = []
        for m in records:
            for seat, name in enumerate(m.agents):
                if name != agent:
                    continue
                n += 1
                place = m.places[seat]
                places.append(place)
                if place == 0:
                    wins += 1 / sum(1 for p in m.places if p == 0)
                if m.scores is not None:
                    scores.append(m.scores[seat])
        low, high = wilson(round(wins), n) if n else (0.0, 0.0)
        out.append(MatchStanding(agent, n, wins, wins / n if n else 0.0, low, high,
                                 1 + sum(places) / n if n else 0.0, sum(scores) / len(scores) if scores else None))
    return sorted(out, key=lambda s: (-s.rate, s.place, s.agent))


MATCH_HEADERS = ("agent", "games", "wins", "win rate", "95% interval", "mean place", "mean score")


def match_rows(table: Sequence[MatchStanding]) -> list[tuple]:
    return [(s.agent, s.games, f"{s.wins:g}", f"{s.rate:.1%}", f"{s.low:.1%}-{s.high:.1%}", f"{s.place:.2f}",
             "-" if s.score is None else f"{s.score:.1f}") for s in table]


__all__ = ["BOT_GAMES", "play_seated", "MatchJob", "match_schedule", "run_matches", "MatchRun", "MatchStanding", "match_standings",
           "match_rows", "MATCH_HEADERS"]
