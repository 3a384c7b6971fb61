"""Re-running one recorded game under another ruleset, and where it first diverges (`locm rerun`).

A re-run keeps everything but the rules: the game's seeds (its `game_created` values, passed as explicit
parameters, so that a game created with ``--param`` is re-created with the same values) and its agents (the
names in `GameCreated.agents`, seeded per seat as when it was played: `locm.engine.locm.agents.seat_seed`; a command line
is started again as a process). The first event whose JSON differs between the two logs, after
`game_created` (whose rules differ by design), is the divergence. `locm.games.locm.whatif` re-runs many games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from locm.engine.errors import LocmError
from locm.engine.locm.rulesets import Rules, rules_hash
from locm.engine.locm.setup import PARAM_FIELDS, derive_params
from locm.engine.locm.variants import diff_rows
from locm.engine.seam import Outcome
from locm.events.locm.catalog import CardPoolDefined, GameCreated, GameEnded, TurnStarted
from locm.events.locm.codec import to_json
from locm.runner.bots import TimeLimits
from locm.tournament.rerun import BotChange, changed_bots, divergence_lines  # noqa: F401


class RerunError(LocmError):
    """A game that cannot be re-run (no recorded agents, a seed the new rules cannot use, an unknown id)."""


# --- one re-run ---------------------------------------------------------------------------------------------


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


def first_divergence(a: Sequence, b: Sequence) -> int | None:
    """The seq of the first event (after game_created) whose JSON differs between two logs, or None. A
    `card_pool_defined` that holds the same cards in the same order, changed only in their values (a
    variant's ``[cards.ID]``), is the rules change itself, not a divergence of play: the comparison goes on."""
    n = min(len(a), len(b))
    for i in range(1, n):
        x, y = a[i], b[i]
        if to_json(x) != to_json(y) and not _same_pool(x, y):
            return i
    return None if len(a) == len(b) else n


def _same_pool(x, y) -> bool:
    return (type(x) is CardPoolDefined and type(y) is CardPoolDefined
            and [c.base_id for c in x.cards] == [c.base_id for c in y.cards])


def event_change(a: str, b: str, limit: int = 240) -> tuple[str, str]:
    """Two events' JSON for a reader: when both are of one type, only the fields that differ (and the type);
    long texts are cut."""
    if a and b:
        x, y = json.loads(a), json.loads(b)
        if x.get("type") == y.get("type"):
            keys = [k for k in x if x.get(k) != y.get(k) and k != "seq"]
            a = json.dumps({"type": x["type"], **{k: x[k] for k in keys}}, separators=(",", ":"))
            b = json.dumps({"type": y["type"], **{k: y.get(k) for k in keys}}, separators=(",", ":"))
    return tuple(t if len(t) <= limit else t[: limit - 3] + "..." for t in (a, b))


def outcome(events: Sequence) -> Outcome:
    """How a re-run (or the game it re-runs) ended: its winner (-1 and ``unfinished`` for a log that stops
    before the end) and its turns begun."""
    end = events[-1]
    turns = max((e.turn + 1 for e in events if type(e) is TurnStarted), default=0)
    if type(end) is GameEnded:
        return Outcome(end.winner, end.reason, turns)
    return Outcome(-1, "unfinished", turns)


def outcome_json(o: Outcome, agents: Sequence[str]) -> dict:
    """An outcome as `RerunReport.as_json` gives it: winner, reason, turns and the winner's agent."""
    return {"winner": o.winner, "reason": o.reason, "turns": o.turns,
            "agent": agents[o.winner] if o.winner in (0, 1) else ""}


def outcome_text(o: Outcome, agents: Sequence[str]) -> str:
    agent = agents[o.winner] if o.winner in (0, 1) else ""
    return f"player {o.winner} ({agent}) wins by {o.reason} after {o.turns} turns"


def bot_changes(created: GameCreated, recorded: Sequence | None = None) -> list[BotChange]:
    """The seats whose bot is not the version that played (`GameCreated.bot_sha256`, or for a game stored
    before logs carried it, the versions its record kept: ``recorded``, against the files now)."""
    return changed_bots(created.agents, created.bot_sha256 or tuple(v or "" for v in (recorded or ("", ""))))


@dataclass
class RerunReport:
    game: str
    rules_a: Rules
    rules_b: Rules
    seq: int | None
    event_a: str
    event_b: str
    changed: list  # DiffRow
    rule_a: str
    rule_b: str
    board_a: str
    board_b: str
    outcome_a: Outcome
    outcome_b: Outcome
    log_b: list = field(repr=False, default_factory=list)
    bots: list = field(default_factory=list)  # BotChange: the agents that are not the version that played
    warning: str = ""  # the source's warning (`replay.Replay.warning`): a log that does not follow the rules
    agents: tuple[str, ...] = ()  # the game's agents by seat (the re-run's are the same)

    @property
    def suspects(self) -> list[str]:
        """The changed settings whose rule is the rule of the diverging event (either side)."""
        rules = {self.rule_a, self.rule_b}
        return [r.field for r in self.changed if r.rule in rules]

    def as_json(self) -> dict:
        return {
            "game": self.game,
            "rules_a": rules_identity(self.rules_a), "rules_b": rules_identity(self.rules_b),
            "changed": [r._asdict() for r in self.changed],
            "divergence": None if self.seq is None else {
                "seq": self.seq, "event_a": _loads(self.event_a), "event_b": _loads(self.event_b),
                "rule_a": self.rule_a, "rule_b": self.rule_b, "changed_settings_of_that_rule": self.suspects,
                "board_a": self.board_a, "board_b": self.board_b},
            "outcome_a": outcome_json(self.outcome_a, self.agents), "outcome_b": outcome_json(self.outcome_b, self.agents),
            "winner_changed": self.outcome_a.winner != self.outcome_b.winner,
            "bots_changed": [b.__dict__ for b in self.bots], "warning": self.warning,
        }

    def lines(self) -> list[str]:
        a, b = self.rules_a.name, self.rules_b.name
        out = [self.warning] if self.warning else []
        out.append(f"game {self.game}: re-run under {_label(self.rules_b)} (played under {_label(self.rules_a)})")
        out += [b.text() for b in self.bots]
        if self.changed:
            out.append("changed settings: " + "; ".join(f"{r.field} {r.left} -> {r.right} ({r.rule})"
                                                          for r in self.changed[:12])
                       + (f"; ... {len(self.changed) - 12} more" if len(self.changed) > 12 else ""))
        else:
            out.append("changed settings: none (the same values)")
        if self.seq is None:
            out.append("no divergence: every event after game_created is the same under both rulesets")
        else:
            ea, eb = event_change(self.event_a, self.event_b)
            bots = ("the bot changed since the game was played, so its answers may differ without any rule "
                    "doing it: " + ", ".join(repr(b.agent) for b in self.bots)) if self.bots else ""
            out += divergence_lines(a, b, self.seq, ea, eb, self.rule_a, self.rule_b, self.suspects,
                                    [r.field for r in self.changed], bots, "; " if self.suspects else ": ",
                                    self.board_a, self.board_b)
        out.append(f"outcome under {a}: {outcome_text(self.outcome_a, self.agents)}")
        out.append(f"outcome under {b}: {outcome_text(self.outcome_b, self.agents)}"
                   + ("  (the winner changes)" if self.outcome_a.winner != self.outcome_b.winner else ""))
        return out


def _loads(text: str):
    return json.loads(text) if text else None


def rules_identity(r: Rules) -> dict:
    return {"name": r.name, "base": r.base_name, "rules_hash": rules_hash(r)}


def _label(r: Rules) -> str:
    return f"{r.name} (base {r.base_name}, #{rules_hash(r)[:12]})"


def rerun_report(game: str, events_a: Sequence, rules_b: Rules, limits: TimeLimits | None = None,
                 warning: str = "", recorded: Sequence | None = None) -> RerunReport:
    """Re-run the game of `events_a` under `rules_b` and describe the first divergence; a bot whose files
    changed since the game was played is named (`bot_changes`), so that a divergence it causes is not laid on
    the rules. ``warning``: the source's own (a log that does not follow the rules is still compared);
    ``recorded``: the bots' versions a stored record kept (`load_source`)."""
    from locm.engine.locm.folding import fold

    played = rerun_game(events_a, rules_b, limits)
    events_b = played.game.log
    rules_a = events_a[0].rules
    seq = first_divergence(events_a, events_b)
    ea = eb = ra = rb = board_a = board_b = ""
    if seq is not None:
        if seq < len(events_a):
            ea, ra = to_json(events_a[seq]).decode(), events_a[seq].rule
        if seq < len(events_b):
            eb, rb = to_json(events_b[seq]).decode(), events_b[seq].rule
        board_a, board_b = board_text(fold(events_a[:seq])), board_text(fold(events_b[:seq]))
    changed = diff_rows(rules_a, rules_b)
    return RerunReport(game, rules_a, rules_b, seq, ea, eb, changed, ra, rb, board_a, board_b,
                       outcome(events_a), outcome(events_b), events_b, bot_changes(events_a[0], recorded), warning,
                       tuple(events_a[0].agents))


# --- the board as text ---------------------------------------------------------------------------------------


def board_text(state) -> str:
    """A game state as `locm show` prints a board (`engine.locm.views`): the full view, both hands and lanes."""
    from locm.engine.locm.views import board_text as show_board, view

    return "\n".join(show_board(view(state)))


# --- reading a source ----------------------------------------------------------------------------------------


def load_source(source: str, db: Path | None) -> tuple[str, list, str, list | None]:
    """A game's id, events, warning and the bots' versions its record kept: from a store (`db`, `source` a
    game id or a unique prefix of one; its chain checked as it is read) or from a JSON-lines log written by
    ``locm play --log`` (re-decided; no record: None). The warning is "" for a log that follows the rules
    (`replay.Replay.warning`)."""
    from locm.replay import open_game
    from locm.replay.game import ReplaySourceError
    from locm.store.eventstore import open_store

    if db is not None:
        with open_store(db, create=False, readonly=True) as store:
            source = resolve_game_id(store, source)
    try:
        r = open_game(db=db, game_id=source) if db is not None else open_game(source)
    except ReplaySourceError as exc:
        raise RerunError(str(exc)) from None
    gid = r.meta.get("game_id") or Path(source).name
    if type(r.events[0]) is not GameCreated:  # pragma: no cover - a Replay starts with game_created
        raise RerunError(f"{source}: not an event log")
    from locm.engine.locm.upcast import upcast

    recorded = r.meta.get("bot_sha256") if db is not None else None
    return gid, upcast(r.events), r.warning, recorded  # a log of any schema (a stored one too), current schema


def resolve_game_id(store, prefix: str) -> str:
    found = store.ids_named(prefix)
    if len(found) == 1:
        return found[0]
    if not found:
        raise RerunError(f"no stored game id starts with {prefix!r}")
    raise RerunError(f"several stored games start with {prefix!r} (e.g. {found[0]}, {found[1]}): give more of "
                     "the id")


__all__ = ["RerunError", "rules_identity", "rerun_params", "rerun_game", "first_divergence", "event_change",
           "outcome", "outcome_json", "outcome_text",
           "RerunReport", "rerun_report", "board_text", "load_source", "resolve_game_id"]


