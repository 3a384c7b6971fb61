"""What LOCM adds to `locm rerun` and `locm whatif` (`locm.tournament.rerun`, the one path of every game): its
hooks (`locm.games.registry.HOOKS`).

A re-run keeps everything but the rules: the game's seeds (its `game_created` values, passed as explicit
parameters, so that a game created with ``--param`` is re-created with the same values: `rerun_params`) and its
agents (the names in `GameCreated.agents`, seeded per seat as when it was played; a command line is started
again as a process). A `card_pool_defined` that holds the same cards in the same order, changed only in their
values (a variant's ``[cards.ID]``), is the rules change itself, not a divergence of play (`same_event`). The
rules' differences are `engine.locm.rulesdiff.diff_rows` (a card's changed values row by row); a ruleset is
named with its base and hash; a game's length is its turns begun.
"""

from __future__ import annotations

from typing import Sequence

from locm.engine.locm.rulesets import Rules, rules_hash
from locm.engine.locm.setup import PARAM_FIELDS, derive_params
from locm.engine.locm.rulesdiff import diff_rows
from locm.engine.seam import Outcome
from locm.events.locm.catalog import CardPoolDefined, GameCreated, GameEnded, TurnStarted
from locm.runner.bots import TimeLimits
from locm.tournament.rerun import RerunError


def rerun_params(created: GameCreated, rules: Rules) -> tuple[int | None, dict]:
    """The seed and the explicit parameters that re-create `created`'s game under `rules`: only the values
    that differ from what `rules` derives from the seed (none for a game played from its seed alone)."""
    if created.seed is None and any(getattr(created, PARAM_FIELDS[p]) is None for p in rules.seed_params):
        raise RerunError("the game has no seed and lacks a parameter the new rules need")
    derived = derive_params(rules, created.seed) if created.seed is not None else {}
    params = {}
    for name in rules.seed_params:
        value = getattr(created, PARAM_FIELDS[name])
        if value is not None and derived.get(name) != value:
            params[name] = value
    if created.predefined_draft_ids is not None and rules.deck_building == "draft":
        params["predefinedDraftIds"] = created.predefined_draft_ids
    return created.seed, params


def rerun_game(events: Sequence, rules: Rules, limits: TimeLimits | None = None):
    """Play the game of `events` again under `rules`: a `locm.games.locm.tournament.PlayedGame` (game and record
    extras; its id is the deterministic id of the re-run under `rules`)."""
    from locm.engine.locm.upcast import upcast
    from locm.games.locm.tournament import run_game

    events = upcast(list(events))
    created = events[0]
    if type(created) is not GameCreated:
        raise RerunError("the log does not start with game_created")
    agents = tuple(created.agents)
    if not all(agents):
        raise RerunError("the game does not record its agents (a referee log?): nothing can decide again")
    if rules.deck_building != created.rules.deck_building:
        raise RerunError(f"the game was played under {created.rules.name} ({created.rules.deck_building}); "
                         f"{rules.name} builds decks by {rules.deck_building}: re-run it under a ruleset of "
                         f"base {created.rules.base_name}")
    seed, params = rerun_params(created, rules)
    return run_game(rules, seed, agents, params, limits)


# --- the hooks of `locm.tournament.rerun` ----------------------------------------------------------------------


def play(events_a: Sequence, rules_b: Rules, limits: TimeLimits | None = None, sandbox=None) -> list:
    """``rerun_play``: B's log (`rerun_game`; LOCM's bots run in its referee's own runner, not a sandbox)."""
    return list(rerun_game(events_a, rules_b, limits).game.log)


def same_event(x, y) -> bool:
    """``rerun_same_event``: two card pools of the same cards in the same order (their values changed by the
    rules, not by play)."""
    return (type(x) is CardPoolDefined and type(y) is CardPoolDefined
            and [c.base_id for c in x.cards] == [c.base_id for c in y.cards])


def changed(a: Rules, b: Rules) -> list[dict]:
    """``rerun_changed``: every difference, a card's values and the generator's weights row by row, the values
    as text, with what each field means."""
    return [r._asdict() for r in diff_rows(a, b)]


def identity(r: Rules) -> dict:
    """``rerun_identity``: a ruleset's base and the hash of its values."""
    return {"base": r.base_name, "rules_hash": rules_hash(r)}


def bots(created: GameCreated, meta: dict | None = None) -> tuple[str, ...] | None:
    """``rerun_bots``: the bots' versions the created event records, or for a game stored before logs carried
    them, those its record kept (``meta``)."""
    kept = created.bot_sha256 or (meta or {}).get("bot_sha256")
    return tuple(v or "" for v in kept) if kept else None


def outcome(events: Sequence) -> Outcome:
    """``rerun_outcome``: the winner (-1 and ``unfinished`` for a log that stops before the end) and the turns
    begun."""
    end = events[-1]
    turns = max((e.turn + 1 for e in events if type(e) is TurnStarted), default=0)
    if type(end) is GameEnded:
        return Outcome(end.winner, end.reason, turns)
    return Outcome(-1, "unfinished", turns)


__all__ = ["rerun_params", "rerun_game", "play", "same_event", "changed", "identity", "bots", "outcome"]
