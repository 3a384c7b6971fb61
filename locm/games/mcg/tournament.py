"""my-card-game's player of a tournament's games (`engine.seam.GameDef.player`, `locm.tournament.workflow`): each
game played by the core's runner (`locm.tournament.matchplay`), its starter kept in its meta (``starter``: the
seat that started, R-COIN or R-SERIES), its series rule (`series_match`, R-SERIES) and its standings, which say
the starter's win rate with its interval beside the core's tables (`standings_lines`).

The text's series rule: the coin decides only a series' first match; afterwards the player who did not start
the previous match starts. The seats stay as the first match has them (each side keeps its seat and its deck's
seed), the starter alternates (`locm.engine.mcg.game.next_first`), and each match plays the series' next seed.
"""

from __future__ import annotations

import json
from typing import Sequence

import msgspec

from locm.engine import registry
from locm.tournament import matchplay
from locm.tournament.schedule import Job


def play(job: Job, limits, sandbox, seats: list | None = None):
    """A tournament's my-card-game match played by the core's runner and prepared for the store: a series'
    match after its first opens with the starter its rule gives (``job.opening``); the seat that started is in
    the stored game's meta (``starter``)."""
    from locm.engine.mcg.game import McgGame

    game = registry.get(job.game)
    rules = game.rules(job.ruleset) if isinstance(job.ruleset, str) else job.ruleset
    match = None
    if job.opening is not None:
        match = McgGame.new(rules, job.seed, job.agents, first=job.opening, bots=job.bots or None)
    match, extras = matchplay.play_seated(game, rules, job.seed, job.agents, limits, sandbox, job.bots, match)
    prepared = matchplay.prepared(game, match, extras, job.place)
    meta = json.loads(prepared.record.meta)
    meta["starter"] = match.state.first
    return prepared._replace(record=msgspec.structs.replace(prepared.record, meta=json.dumps(
        meta, separators=(",", ":"))))


def series_match(schedule, head: Job, k: int, previous: Sequence | None) -> tuple[Job, tuple[int, int]]:
    """Match ``k`` of a series (R-SERIES): the first as scheduled (its coin decides who starts), each later one
    on seed ``head.seed + k`` in the same seats, started by the seat that did not start ``previous`` (the log
    of match ``k - 1``); its id its content's."""
    from locm.engine.mcg.evolve import fold
    from locm.engine.mcg.game import McgGame, next_first

    if k == 0:
        return head, (0, 1)
    if previous is None:
        raise ValueError("a series' later match needs the previous match's log")
    game = registry.get(head.game)
    rules = game.rules(head.ruleset) if isinstance(head.ruleset, str) else head.ruleset
    first = next_first(fold(previous))
    seed = head.seed + k
    created = McgGame.new(rules, seed, head.agents, first=first, bots=head.bots or None).log[0]
    return Job(game.game_id(created), head.game, head.ruleset, seed, head.agents, head.bots, opening=first), (0, 1)


def starter_counts(records: Sequence) -> tuple[int, int]:
    """The games whose starter is known (their meta's ``starter``) and how many of them the starter won."""
    games = wins = 0
    for r in records:
        try:
            starter = json.loads(r.meta).get("starter")
        except (ValueError, AttributeError):
            continue
        if starter in (0, 1):
            games += 1
            wins += r.winner == starter
    return games, wins


def standings_lines(records: Sequence, agents: Sequence[str], jobs) -> list[str]:
    """The core's standings and ratings (`locm.tournament.workflow.match_tables`), then the starter's win rate."""
    from locm.games.mcg.report import starter_line
    from locm.tournament.workflow import match_tables

    return [*match_tables(records, agents), "", starter_line(*starter_counts(records))]


__all__ = ["play", "series_match", "standings_lines", "starter_counts"]
