"""`locm play`'s workflow for any registered game: one game played by its built-in agents or command-line bots
(in the sandbox), its summary said line by line, stored if asked (`EventStore.append_match`) and its log
written. A game that plays its own way (LOCM: the official referee's two seats) has its own version, the
hook ``play`` of its wing (`locm.games.registry`); a game whose bots do not speak one line each way plays
its bots through its hook ``play_seated`` (Skyport: its server's clients)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

STDERR_TAIL_LINES = 10
"""Lines of a failed bot's stderr that `locm play` shows (its traceback, usually)."""


@dataclass(frozen=True)
class PlayRequest:
    """What `locm play` was asked: the options as given (a ruleset's name or variant file, the agents)."""

    ruleset: str
    seed: int
    p0: str
    p1: str
    agents: str | None = None  # "A,B,...": one agent per seat, instead of p0/p1
    log_path: Path | None = None  # "-": standard output (the summary then goes to standard error)
    db: Path | None = None
    timeouts: str | None = None
    params: tuple[str, ...] = ()


Echo = Callable[..., None]
"""``echo(line, err=False)``: a line for the user (``err``: on standard error)."""
MakeSandbox = Callable[[Sequence[str], "Path | None", Sequence[str]], object]
"""``sandbox(bots, db, expected)``: the sandbox the user asked for (refused in one line where there is none)."""


def play(game, request: PlayRequest, echo: Echo, sandbox: MakeSandbox) -> None:
    """Play, say, store and write one game of ``game`` (`engine.seam.GameDef`) as ``request`` asks."""
    from locm.common.outputs import check_output, write_output
    from locm.common.rulesets import rules_or_usage
    from locm.engine import core
    from locm.games.registry import hook
    from locm.runner.bots import TimeLimits, command_argv
    from locm.runner.processes import sigterm_as_interrupt
    from locm.store.eventstore import DuplicateGameError, GameExtras, open_store
    from locm.tournament.matchplay import play_seated

    r = request
    agents = r.agents.split(",") if r.agents else [r.p0, r.p1]
    rules = rules_or_usage(game, r.ruleset)
    bots = [a for a in agents if a not in game.agent_names]
    for spec in bots:
        command_argv(spec)  # a command that cannot run: one line, before anything is played
    core.check_seats(game, [a if a in game.agent_names else game.agent_names[0] for a in agents])
    limits = TimeLimits.parse(r.timeouts)
    policy = sandbox(bots, r.db, game.agent_names) if bots else None
    to_stdout = r.log_path is not None and str(r.log_path) == "-"
    if r.log_path and not to_stdout:
        check_output(r.log_path)
    seated = hook("play_seated", game.name) if bots else None
    with sigterm_as_interrupt():
        if seated is not None:
            match, seats = seated(rules, r.seed, agents, policy)
        else:
            match, seats = play_seated(game, rules, r.seed, agents, limits, policy)
    say = functools.partial(echo, err=to_stdout)
    out = game.outcome(match.log)
    gid = game.game_id(match.log[0])
    places = out.places(len(agents))
    say(f"{game.title} {game.rules_name(rules)}, seed {r.seed}: "
        + (f"P{out.winner} ({agents[out.winner]}) wins" if out.winner >= 0 else "no winner")
        + f" ({out.reason}) after {out.turns} turns, {len(match.log)} events")
    for seat, agent in enumerate(agents):
        score = f", score {out.scores[seat]:g}" if out.scores is not None else ""
        failed = seats[seat].error or seats[seat].timeout
        say(f"  P{seat} {agent}: place {places[seat] + 1}{score}"
            + (f" (lost by {'a timeout' if seats[seat].timeout else 'an error'})" if failed else ""))
        if failed and seats[seat].stderr.strip():
            for line in seats[seat].stderr.rstrip().splitlines()[-STDERR_TAIL_LINES:]:
                say(f"  | {line}")
    if r.db:
        with open_store(r.db) as store:
            try:
                store.append_match(game, GameExtras(game_id=gid), match.log, seats)
                say(f"stored: {gid} in {r.db}")
            except DuplicateGameError:
                say(f"already stored: {gid} in {r.db}: stored nothing new")
    if r.log_path:
        write_output(r.log_path, game.codec.to_jsonl(match.log))
        if not to_stdout:
            say(f"log: {r.log_path}")


__all__ = ["PlayRequest", "STDERR_TAIL_LINES", "play"]
