"""`locm rerun` for every game, through the core (`engine.seam.GameDef`): a recorded game re-played under
ruleset B with the same seed and the same agents, and where it first diverges. Nothing here knows a game: the
seed and the players come from the game's index fields and created event, the boards from its
``view``/``board_text``, the rules' differences from its ``rules_diff``, the outcome from its ``outcome``.
What one game does its own way is a hook of its wing (`locm.games.registry.HOOKS`, each with the generic
version here as its default): ``rerun_play`` (how the game is played again: LOCM re-derives its seeds'
parameters), ``rerun_same_event`` (two events that differ only as the rules change does: LOCM's card pool),
``rerun_changed`` (the rows of the rules' differences: LOCM's per card), ``rerun_identity`` (the ruleset's
name, base and hash), ``rerun_bots`` (the bots' versions a created event or a stored record keeps) and
``rerun_outcome``. Many re-runs compared: `locm.tournament.whatif`.

Honesty: a divergence is laid on a changed setting only when the diverging event's rule is that setting's
rule; a command-line bot whose files changed since it played is named, and then a divergence may be the bot's
(a log from before bots' versions were recorded is said to be unrecorded); a log that does not follow its rules
is still compared, with its warning first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import msgspec

from locm.engine.errors import LocmError
from locm.engine.seam import GameDef, Outcome


class RerunError(LocmError):
    """A game that cannot be re-run (no seed or agents recorded, a ruleset of another game, an unknown id)."""


def game_hook(name: str, game: GameDef, default):
    """The hook ``name`` of `game`'s wing (`locm.games.registry.hook`), else ``default``."""
    from locm.games.registry import hook

    return hook(name, game.name, default)


def recorded_seed(game: GameDef, created: Any) -> int:
    """The seed a created event records (its game's index field ``seed``), to re-run the game with."""
    seed = game.index(created).get("seed")
    if not isinstance(seed, int):
        raise RerunError(f"{game.title}: the game records no seed to re-run it with")
    return seed


def recorded_bots(created: Any, meta: dict | None = None) -> tuple[str, ...] | None:
    """The bots' file hashes a created event records (None: a log from before they were recorded); the
    generic ``rerun_bots`` hook (``meta``: a stored record's, unused here)."""
    bots = getattr(created, "bots", None)
    return tuple(bots) if bots else None


@dataclass
class BotChange:
    """A command-line agent whose files differ from the version that played the game (``then`` None: the log
    predates recorded versions)."""

    seat: int
    agent: str
    then: str | None
    now: str

    def text(self) -> str:
        was = f"{self.then[:12]}..." if self.then else "not recorded (a log from before bot versions)"
        return (f"bot {self.agent!r} (player {self.seat}) changed since the game was played: its files hash to "
                f"{self.now[:12]}... now, then {was}")


def changed_bots(agents: Sequence[str], then: Sequence[str], builtin: Sequence[str] = ()) -> list[BotChange]:
    """The seats whose command-line bot hashes now to another value than `then` recorded (its files hashed
    now); built-in agents, empty seats and bots that no longer run here (re-running them will say so) are
    left out."""
    from locm.tournament.schedule import bot_fingerprint

    out = []
    for seat, agent in enumerate(agents):
        if not agent or agent in builtin:
            continue
        try:
            now = bot_fingerprint(agent)
        except LocmError:
            continue
        if now is not None and now != (then[seat] or None):
            out.append(BotChange(seat, agent, then[seat] or None, now))
    return out


def bot_changes(game: GameDef, created: Any, meta: dict | None = None) -> list[BotChange]:
    """The seats whose command-line bot is not the version that played (its files hashed now, against the
    hash the created event, or a stored record's ``meta``, recorded: the game's ``rerun_bots``)."""
    agents = game.agents(created)
    then = game_hook("rerun_bots", game, recorded_bots)(created, meta)
    return changed_bots(agents, then or ("",) * len(agents), game.agent_names)


def replay_under(game: GameDef, events_a: Sequence[Any], rules_b: Any, limits=None, sandbox=None) -> list[Any]:
    """The log of the game of `events_a` played again under `rules_b`: the same seed, the same agents (a
    command-line bot run again in the sandbox); the generic ``rerun_play`` hook."""
    from locm.tournament.matchplay import play_seated

    created = events_a[0]
    match, _ = play_seated(game, rules_b, recorded_seed(game, created), game.agents(created), limits, sandbox)
    return list(match.log)


def play_again(game: GameDef, events_a: Sequence[Any], rules_b: Any, limits=None, sandbox=None) -> list[Any]:
    """The game of `events_a` played again under `rules_b`, its wing's way (``rerun_play``) or `replay_under`."""
    return game_hook("rerun_play", game, lambda *a: replay_under(game, *a))(events_a, rules_b, limits, sandbox)


def outcome_of(game: GameDef, events: Sequence[Any]) -> Outcome:
    """How a game (or its re-run) ended (``rerun_outcome``): a log that stops before its end has no winner and
    the reason ``unfinished``."""
    own = game_hook("rerun_outcome", game, None)
    if own is not None:
        return own(events)
    if type(events[-1]) is not game.ended:
        return Outcome(-1, "unfinished", len(game.turn_starts(events)))
    return game.outcome(events)


def rules_identity(game: GameDef, rules: Any) -> dict:
    """A ruleset as a report names it: ``name``, and the keys its game's ``rerun_identity`` adds (``base``,
    ``rules_hash``)."""
    own = game_hook("rerun_identity", game, None)
    return {"name": game.rules_name(rules), **(own(rules) if own is not None else {})}


def rules_label(ident: dict) -> str:
    """A ruleset's identity as text: its name, with its base and hash when its game gives them."""
    if "rules_hash" in ident:
        return f"{ident['name']} (base {ident.get('base', '?')}, #{ident['rules_hash'][:12]})"
    return ident["name"]


def changed_rows(game: GameDef, rules_a: Any, rules_b: Any) -> list[dict]:
    """Every setting that differs between two rules, as ``{field, rule, left, right}`` (and ``doc``): the
    game's ``rerun_changed`` rows, else its ``rules_diff``."""
    own = game_hook("rerun_changed", game, None)
    if own is not None:
        return own(rules_a, rules_b)
    return [{"field": f, "rule": r, "left": msgspec.to_builtins(a), "right": msgspec.to_builtins(b)}
            for f, r, a, b in game.rules_diff(rules_a, rules_b)]


def _js(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(msgspec.to_builtins(value))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _change(a: str, b: str, limit: int = 240) -> tuple[str, str]:
    """The fields that differ between two events' JSON (whole events when their types differ)."""
    if not a or not b:
        return a[:limit], b[:limit]
    da, db = json.loads(a), json.loads(b)
    if da.get("type") != db.get("type"):
        return a[:limit], b[:limit]
    keys = [k for k in da if k not in ("seq", "rule") and da.get(k) != db.get(k)]  # the rule: its own line
    show = lambda d: ", ".join(f"{k}={json.dumps(d.get(k))}" for k in keys)  # noqa: E731
    return f"{da['type']}: {show(da)}"[:limit], f"{db['type']}: {show(db)}"[:limit]


def _outcome_json(o: Outcome, agents: Sequence[str]) -> dict:
    return {**o._asdict(), "agent": agents[o.winner] if 0 <= o.winner < len(agents) else ""}


def _outcome_text(o: Outcome, agents: Sequence[str]) -> str:
    if o.winner < 0:
        return f"no winner ({o.reason}) after {o.turns} turns"
    return f"player {o.winner} ({agents[o.winner]}) wins by {o.reason} after {o.turns} turns"


@dataclass
class Rerun:
    """One game re-run under ruleset B: the changed settings, its first divergence (``seq`` None: none), the
    boards just before it, both outcomes, the bots that changed since it was played."""

    game: GameDef
    game_id: str
    rules_a: Any
    rules_b: Any
    changed: list  # {field, rule, left, right[, doc]}
    seq: int | None
    event_a: str
    event_b: str
    rule_a: str
    rule_b: str
    board_a: str
    board_b: str
    outcome_a: Outcome
    outcome_b: Outcome
    created: Any
    bots: list = field(default_factory=list)  # BotChange
    unrecorded: bool = False  # a log whose created event records no bot hashes, with a bot in it
    warning: str = ""  # the source's warning (`replay.Replay.warning`): a log that does not follow the rules
    setup: list = field(default_factory=list)  # the index fields (besides the ruleset) B's creation changes
    log_b: list = field(repr=False, default_factory=list)

    @property
    def suspects(self) -> list[str]:
        """The changed settings whose rule is the rule of the diverging event (either side)."""
        rules = {self.rule_a, self.rule_b}
        return [c["field"] for c in self.changed if c["rule"] in rules]

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.game.agents(self.created))

    def as_json(self) -> dict:
        return {
            "game": self.game_id, "kind": self.game.name, "rules_a": rules_identity(self.game, self.rules_a),
            "rules_b": rules_identity(self.game, self.rules_b), "changed": self.changed,
            "divergence": None if self.seq is None else {
                "seq": self.seq, "event_a": json.loads(self.event_a) if self.event_a else None,
                "event_b": json.loads(self.event_b) if self.event_b else None, "rule_a": self.rule_a,
                "rule_b": self.rule_b, "changed_settings_of_that_rule": self.suspects,
                "board_a": self.board_a, "board_b": self.board_b},
            "outcome_a": _outcome_json(self.outcome_a, self.agents),
            "outcome_b": _outcome_json(self.outcome_b, self.agents),
            "winner_changed": self.outcome_a.winner != self.outcome_b.winner,
            "setup_changed": self.setup, "bots_changed": [b.__dict__ for b in self.bots],
            "bot_versions_recorded": not self.unrecorded, "warning": self.warning,
        }

    def lines(self) -> list[str]:
        ia, ib = rules_identity(self.game, self.rules_a), rules_identity(self.game, self.rules_b)
        a, b = ia["name"], ib["name"]
        if a == b:
            a, b = f"{a} (A)", f"{b} (B)"
        out = [self.warning] if self.warning else []
        out.append(f"{self.game.title} game {self.game_id}: re-run under {rules_label(ib)} (played under "
                   f"{rules_label(ia)})")
        out += [x.text() for x in self.bots]
        if self.unrecorded:
            out.append("the log records no bot versions (played before they were recorded): a bot's answers may "
                       "differ without any rule doing it")
        if self.changed:
            out.append("changed settings: " + "; ".join(
                f"{c['field']} {_short(_js(c['left']))} -> {_short(_js(c['right']))} ({c['rule']})"
                for c in self.changed[:12]) + (f"; ... {len(self.changed) - 12} more" if len(self.changed) > 12 else ""))
        else:
            out.append("changed settings: none (the same values)")
        if self.setup:
            out.append("the game as created under B differs in: " + ", ".join(self.setup)
                       + " (the same seed, set up under B's rules: a divergence after it may come from this)")
        if self.seq is None:
            out.append("no divergence: every event after the game's creation is the same under both rulesets")
        else:
            ea, eb = _change(self.event_a, self.event_b)
            if self.bots:
                bots = ("the bot changed since the game was played, so its answers may differ without any rule "
                        "doing it: " + ", ".join(repr(x.agent) for x in self.bots))
            elif self.unrecorded:
                bots = "a bot may not be the version that played, so its answers may differ without any rule"
            else:
                bots = ""
            out += divergence_lines(a, b, self.seq, ea, eb, self.rule_a, self.rule_b, self.suspects,
                                    [c["field"] for c in self.changed], bots, "; " if self.suspects else ": ",
                                    self.board_a, self.board_b)
        out.append(f"outcome under {a}: {_outcome_text(self.outcome_a, self.agents)}")
        out.append(f"outcome under {b}: {_outcome_text(self.outcome_b, self.agents)}"
                   + ("  (the winner changes)" if self.outcome_a.winner != self.outcome_b.winner else ""))
        return out


def first_divergence(game: GameDef, a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """The first seq after the created event where two logs differ (None: they never do); two events the
    game's ``rerun_same_event`` calls the same (the rules change itself, not play) are not a divergence."""
    to_json = game.codec.to_json
    same = game_hook("rerun_same_event", game, None)
    for i in range(1, min(len(a), len(b))):
        if to_json(a[i]) != to_json(b[i]) and not (same is not None and same(a[i], b[i])):
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _board(game: GameDef, events: Sequence[Any]) -> str:
    return game.board_text(game.view(game.fold(list(events)), None))


def rerun_match(game: GameDef, game_id: str, events_a: Sequence[Any], rules_b: Any, warning: str = "",
               limits=None, sandbox=None, meta: dict | None = None) -> Rerun:
    """Re-run the game of `events_a` under `rules_b` and describe its first divergence (`Rerun`); ``warning``:
    the source's own; ``meta``: a stored record's (the bots' versions it kept, for a game stored before its
    log carried them)."""
    events_a = game.upcast(list(events_a))
    created = events_a[0]
    rules_a = created.rules
    if type(rules_b) is not type(rules_a):
        raise RerunError(f"the ruleset is not a {game.title} ruleset")
    events_b = play_again(game, events_a, rules_b, limits, sandbox)
    seq = first_divergence(game, events_a, events_b)
    ea = eb = ra = rb = ba = bb = ""
    if seq is not None:
        if seq < len(events_a):
            ea, ra = game.codec.to_json(events_a[seq]).decode(), events_a[seq].rule
        if seq < len(events_b):
            eb, rb = game.codec.to_json(events_b[seq]).decode(), events_b[seq].rule
        ba, bb = _board(game, events_a[:seq]), _board(game, events_b[:seq])
    has_bot = any(a not in game.agent_names for a in game.agents(created))
    ia, ib = game.index(created), game.index(events_b[0])
    setup = [k for k in ia if k not in ("ruleset", "rules_hash") and ia.get(k) != ib.get(k)]
    recorded = game_hook("rerun_bots", game, recorded_bots)(created, meta)
    return Rerun(game, game_id, rules_a, rules_b, changed_rows(game, rules_a, rules_b), seq, ea, eb, ra, rb,
                 ba, bb, outcome_of(game, events_a), outcome_of(game, events_b), created,
                 bot_changes(game, created, meta), has_bot and recorded is None, warning, setup, events_b)


def resolve_game_id(store, prefix: str) -> str:
    """The stored id that ``prefix`` names exactly or as a unique prefix (`RerunError` if none or several)."""
    found = store.ids_named(prefix)
    if len(found) == 1:
        return found[0]
    if not found:
        raise RerunError(f"no stored game id starts with {prefix!r}")
    raise RerunError(f"several stored games start with {prefix!r} (e.g. {found[0]}, {found[1]}): give more of "
                     "the id")


def rerun_source(source: str, db: Path | None, ruleset: str) -> Rerun:
    """`locm rerun`: the game of ``source`` (a stored game's id or a unique prefix of one in ``db``, else a
    JSON-lines log; its game told by its stored row or its log) re-run under ``ruleset`` (its game's built-in
    name or a variant file of that game)."""
    from locm.common.rulesets import game_rules
    from locm.engine import registry
    from locm.replay import open_game
    from locm.replay.game import ReplaySourceError
    from locm.replay.sources import game_of_line, sniff

    if db is not None:
        from locm.store.eventstore import open_store

        with open_store(db, create=False, readonly=True) as store:
            source = resolve_game_id(store, source)
            game = registry.get(store.game(source).game)
    else:
        kind, data = sniff(source)
        first = next((line for line in data.splitlines() if line.strip()), b"")
        game = game_of_line(first) if kind == "match" else None
        game = game or registry.get(registry.DEFAULT)
    rules_b = game_rules(game, ruleset)
    try:
        r = open_game(db=db, game_id=source) if db is not None else open_game(source)
    except ReplaySourceError as exc:
        raise RerunError(str(exc)) from None
    gid = r.meta.get("game_id") or Path(source).name
    return rerun_match(game, gid, r.events, rules_b, warning=r.warning, meta=r.meta if db is not None else None)


def divergence_lines(a: str, b: str, seq: int, ea: str | None, eb: str | None, rule_a: str | None,
                     rule_b: str | None, suspects: Sequence[str], changed: Sequence[str], bots: str, bots_sep: str,
                     board_a: str, board_b: str) -> list[str]:
    """What a rerun says of its first divergence, for any game: the two events (the fields that differ) under
    rulesets `a` and `b`, the rule of the event and which changed settings have that rule (else the earlier
    changes that led there), ``bots`` (a note that a bot may not be the version that played, after
    ``bots_sep``; empty: none), and the board before the divergence under each ruleset."""
    width = max(len(a), len(b)) + 7
    out = [f"first divergence at seq {seq} (fields that differ):",
           f"  {('under ' + a + ':').ljust(width)} {ea or '(no event: the log ends)'}",
           f"  {('under ' + b + ':').ljust(width)} {eb or '(no event: the log ends)'}"]
    rule = rule_a if rule_a == rule_b else f"{rule_a or '-'} / {rule_b or '-'}"
    if suspects:
        why = "changed setting(s) of that rule: " + ", ".join(suspects)
    elif changed:
        why = "changed setting(s) of that rule: none (an earlier change led here: " + ", ".join(changed[:6]) + ")"
    else:
        why = "no setting changed"
    if bots:
        why += bots_sep + bots
    out.append(f"  rule of the event: {rule}; {why}")
    for name, board in ((a, board_a), (b, board_b)):
        out.append(f"board before seq {seq} under {name}:")
        out += ["  " + x for x in board.splitlines()]
    return out


__all__ = ["RerunError", "Rerun", "rerun_match", "rerun_source", "game_hook", "recorded_seed", "replay_under", "play_again", "first_divergence",
           "bot_changes", "changed_bots", "BotChange", "recorded_bots", "outcome_of", "rules_identity",
           "rules_label", "changed_rows", "resolve_game_id", "divergence_lines"]
