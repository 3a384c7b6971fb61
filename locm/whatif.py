"""What-if re-runs: a recorded game played again under another ruleset (`rerun`), and many of them with the
share of outcomes that change (`whatif`).

A re-run keeps everything but the rules: the game's seeds (its `game_created` values, passed as explicit
parameters, so that a game created with ``--param`` is re-created with the same values) and its agents (the
names in `GameCreated.agents`, seeded per seat as when it was played: `locm.play.seat_seed`; a command line
is started again as a process). The first event whose JSON differs between the two logs, after
`game_created` (whose rules differ by design), is the divergence.
"""

from __future__ import annotations

import json
import math
import multiprocessing
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from analysis.overview import DAMAGE_SOURCES
from analysis.stats import wilson
from engine.errors import LocmError
from engine.rulesets import Rules, rules_hash
from engine.setup import PARAM_FIELDS, derive_params
from engine.variants import diff_rows
from events.cards import AREA_NAMES, TYPE_NAMES, keywords_to_str
from events.catalog import (CardDrawn, CardPoolDefined, DeckOrdered, GameCreated, GameEnded, PlayerDamaged,
                            TurnStarted)
from events.codec import to_json
from locm.bots import TimeLimits, is_builtin


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
    """Play the game of `events` again under `rules`: a `locm.tournament.PlayedGame` (game and record
    extras; its id is the deterministic id of the re-run under `rules`)."""
    from engine.upcast import upcast
    from locm.tournament import run_game

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


@dataclass
class Outcome:
    winner: int
    reason: str
    turns: int
    agent: str

    def text(self) -> str:
        return f"player {self.winner} ({self.agent}) wins by {self.reason} after {self.turns} turns"


def outcome(events: Sequence) -> Outcome:
    end = events[-1]
    turns = max((e.turn + 1 for e in events if type(e) is TurnStarted), default=0)
    winner = end.winner if type(end) is GameEnded else -1
    return Outcome(winner, end.reason if type(end) is GameEnded else "unfinished", turns,
                   events[0].agents[winner] if winner in (0, 1) else "")


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

    @property
    def suspects(self) -> list[str]:
        """The changed settings whose rule is the rule of the diverging event (either side)."""
        rules = {self.rule_a, self.rule_b}
        return [r.field for r in self.changed if r.rule in rules]

    def as_json(self) -> dict:
        return {
            "game": self.game,
            "rules_a": _identity(self.rules_a), "rules_b": _identity(self.rules_b),
            "changed": [r._asdict() for r in self.changed],
            "divergence": None if self.seq is None else {
                "seq": self.seq, "event_a": _loads(self.event_a), "event_b": _loads(self.event_b),
                "rule_a": self.rule_a, "rule_b": self.rule_b, "changed_settings_of_that_rule": self.suspects,
                "board_a": self.board_a, "board_b": self.board_b},
            "outcome_a": self.outcome_a.__dict__, "outcome_b": self.outcome_b.__dict__,
            "winner_changed": self.outcome_a.winner != self.outcome_b.winner,
        }

    def lines(self) -> list[str]:
        a, b = self.rules_a.name, self.rules_b.name
        out = [f"game {self.game}: re-run under {_label(self.rules_b)} (played under {_label(self.rules_a)})"]
        if self.changed:
            out.append("changed settings: " + "; ".join(f"{r.field} {r.left} -> {r.right} ({r.rule})"
                                                          for r in self.changed[:12])
                       + (f"; ... {len(self.changed) - 12} more" if len(self.changed) > 12 else ""))
        else:
            out.append("changed settings: none (the same values)")
        if self.seq is None:
            out.append("no divergence: every event after game_created is the same under both rulesets")
        else:
            width = max(len(a), len(b)) + 7
            ea, eb = event_change(self.event_a, self.event_b)
            out.append(f"first divergence at seq {self.seq} (fields that differ):")
            out.append(f"  {('under ' + a + ':').ljust(width)} {ea or '(no event: the log ends)'}")
            out.append(f"  {('under ' + b + ':').ljust(width)} {eb or '(no event: the log ends)'}")
            rule = self.rule_a if self.rule_a == self.rule_b else f"{self.rule_a or '-'} / {self.rule_b or '-'}"
            sus = self.suspects
            out.append(f"  rule of the event: {rule}; changed setting(s) of that rule: "
                       + (", ".join(sus) if sus else "none (an earlier change led here: "
                          + ", ".join(r.field for r in self.changed[:6]) + ")"))
            out.append(f"board before seq {self.seq} under {a}:")
            out += ["  " + x for x in self.board_a.splitlines()]
            out.append(f"board before seq {self.seq} under {b}:")
            out += ["  " + x for x in self.board_b.splitlines()]
        out.append(f"outcome under {a}: {self.outcome_a.text()}")
        out.append(f"outcome under {b}: {self.outcome_b.text()}"
                   + ("  (the winner changes)" if self.outcome_a.winner != self.outcome_b.winner else ""))
        return out


def _loads(text: str):
    return json.loads(text) if text else None


def _identity(r: Rules) -> dict:
    return {"name": r.name, "base": r.base_name, "rules_hash": rules_hash(r)}


def _label(r: Rules) -> str:
    return f"{r.name} (base {r.base_name}, #{rules_hash(r)[:12]})"


def rerun_report(game: str, events_a: Sequence, rules_b: Rules, limits: TimeLimits | None = None) -> RerunReport:
    """Re-run the game of `events_a` under `rules_b` and describe the first divergence."""
    from engine.evolve import fold

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
                       outcome(events_a), outcome(events_b), events_b)


# --- the board as text ---------------------------------------------------------------------------------------


def board_text(state) -> str:
    """A game state in a few lines: phase and turn, then per player health, mana, deck, runes, hand and the
    creatures of each lane (``[id] name att/def keywords``)."""
    lines = [f"phase {state.phase}, turn {state.turn}, player {state.current} to move"
             + (f", draft round {state.round}" if state.phase == "draft" else "")]
    for p in state.players:
        runes = ",".join(map(str, p.runes)) or "-"
        lines.append(f"player {p.index}: health {p.health}, mana {p.mana}/{p.max_mana}"
                     + (" +bonus" if p.bonus else "")
                     + f", deck {len(p.deck)}, runes {runes}, hand {len(p.hand)}")
        if p.hand:
            lines.append("  hand: " + ", ".join(_unit(u, hand=True) for u in p.hand))
        lanes = sorted({u.lane for u in p.board} | {0, 1})
        for lane in lanes:
            units = [u for u in p.board if u.lane == lane]
            lines.append(f"  lane {lane}: " + (", ".join(_unit(u) for u in units) if units else "-"))
        if state.phase == "draft":
            lines.append(f"  picks: {len(p.picks)}")
    return "\n".join(lines)


def _unit(u, hand: bool = False) -> str:
    c = u.card
    name = c.name or f"#{c.base_id}"
    kw = keywords_to_str(u.keywords).replace("-", "")
    if hand:
        stats = f"{c.attack}/{c.defense}" if c.type == 0 else TYPE_NAMES[c.type]
        return f"[{u.id}] {name} ({c.cost}) {stats}" + (f" {kw}" if kw else "")
    flags = "" if u.can_attack and not u.has_attacked else " (cannot attack)"
    return f"[{u.id}] {name} {u.attack}/{u.defense}" + (f" {kw}" if kw else "") + flags


# --- reading a source ----------------------------------------------------------------------------------------


def load_source(source: str, db: Path | None) -> tuple[str, list]:
    """A game's id and events: from a store (`db`, `source` a game id or a unique prefix of one) or from a
    JSON-lines log written by ``locm play --log``."""
    from locm.store import open_store

    if db is not None:
        with open_store(db, create=False, readonly=True) as store:
            gid = resolve_game_id(store, source)
            return gid, store.events(gid)
    from events.codec import from_jsonl
    from locm.errors import InputFileError

    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputFileError(source, exc.strerror or exc) from None
    try:
        events = list(from_jsonl(data))
    except Exception as exc:  # msgspec's decode errors: a file that is not a log
        raise InputFileError(source, f"not a JSON-lines event log ({exc})") from None
    if not events or type(events[0]) is not GameCreated:
        raise InputFileError(source, "not an event log: the first line is not game_created")
    from engine.upcast import upcast

    return path.name, upcast(events)


def resolve_game_id(store, prefix: str) -> str:
    if store.has_game(prefix):
        return prefix
    found = [r.game_id for r in store.games() if r.game_id.startswith(prefix)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise RerunError(f"no stored game id starts with {prefix!r}")
    raise RerunError(f"{len(found)} stored games start with {prefix!r} (e.g. {found[0]}, {found[1]}): give "
                     "more of the id")


# --- many re-runs ----------------------------------------------------------------------------------------------


@dataclass
class Facts:
    """What `whatif` keeps of one game: outcome, length, damage by source, the cards each player held."""

    winner: int
    turns: int
    damage: dict
    held: tuple  # (cards of player 0, cards of player 1): card keys ever in hand


def facts(events: Sequence) -> Facts:
    cards: dict = {}
    ids: dict = {}
    held = (set(), set())
    damage: Counter = Counter()
    winner, turns = -1, 0
    named = False
    for e in events:
        t = type(e)
        if t is CardDrawn:
            key = ids.get(e.id)
            if key is not None:
                held[e.player].add(key)
        elif t is PlayerDamaged:
            damage[e.source] += e.amount
        elif t is TurnStarted:
            turns = e.turn + 1
        elif t is DeckOrdered:
            for i, b in zip(e.ids, e.base_ids):
                ids[i] = cards[b]
        elif t is CardPoolDefined:
            named = any(c.name for c in e.cards)
            for c in e.cards:
                cards[c.base_id] = _card_key(c, named)
        elif t is GameEnded:
            winner = e.winner
    return Facts(winner, turns, dict(damage), (tuple(sorted(held[0])), tuple(sorted(held[1]))))


def _card_key(c, named: bool) -> str:
    """1.2: the base id and name (the card list's, so a variant's changed card keeps its key); constructed:
    the generated card's values (the same seed and weights give the same card)."""
    if named:
        return f"{c.base_id} {c.name}"
    kind = "C" if c.type == 0 else TYPE_NAMES[c.type]
    return (f"{kind} {c.cost}: {c.attack}/{c.defense} {keywords_to_str(c.keywords)} "
            f"{c.my_health}/{c.opp_health}/{c.draw} {AREA_NAMES[c.area]}")


_STATE: dict = {}


def _init_worker(db: str, rules_a_hash: str | None, rules_b: Rules) -> None:
    from locm.store import open_store

    _STATE.update(store=open_store(db, create=False, readonly=True), hash_a=rules_a_hash, rules_b=rules_b)


def _work(gid: str):
    """Re-run one stored game: ``(gid, facts A, facts B, prepared B or None, B's id, winner changed, skip)``."""
    from locm.store import prepare_game
    from locm.tournament import game_id

    store, rules_b = _STATE["store"], _STATE["rules_b"]
    try:
        events_a = store.events(gid)
        created = events_a[0]
        if _STATE["hash_a"] is not None and created.rules_hash != _STATE["hash_a"]:
            return gid, None, None, None, "", "its rules differ from --ruleset-a"
        seed, params = rerun_params(created, rules_b)
        gid_b = game_id(rules_b, seed, tuple(created.agents), params)
        prepared = None
        if store.has_game(gid_b):
            events_b = store.events(gid_b)
        else:
            played = rerun_game(events_a, rules_b)
            events_b = played.game.log
            prepared = prepare_game(played.extras, events_b)
        return gid, facts(events_a), facts(events_b), prepared, gid_b, ""
    except LocmError as exc:
        return gid, None, None, None, "", str(exc)


@dataclass
class Side:
    games: int = 0
    seat0_wins: int = 0
    turns: list = field(default_factory=list)
    damage: dict = field(default_factory=dict)  # source -> per-game amounts
    cards: dict = field(default_factory=dict)  # card -> [held, won]

    def add(self, f: Facts) -> None:
        self.games += 1
        self.seat0_wins += f.winner == 0
        self.turns.append(f.turns)
        for s in set(self.damage) | set(f.damage):
            self.damage.setdefault(s, [0] * (self.games - 1)).append(f.damage.get(s, 0))
        for p in (0, 1):
            for key in f.held[p]:
                c = self.cards.setdefault(key, [0, 0])
                c[0] += 1
                c[1] += f.winner == p


@dataclass
class WhatifResult:
    rules_a: str
    rules_b: Rules
    selected: int = 0
    rerun: int = 0
    stored: int = 0
    reused: int = 0
    changed: int = 0
    skipped: list = field(default_factory=list)
    changed_games: list = field(default_factory=list)  # the first few games (under A) whose winner changes
    a: Side = field(default_factory=Side)
    b: Side = field(default_factory=Side)
    seconds: float = 0.0

    def summary(self, top: int = 10, min_n: int = 20) -> dict:
        n = self.a.games
        out = {
            "ruleset_a": self.rules_a, "ruleset_b": _identity(self.rules_b),
            "games": n, "rerun_now": self.stored, "reused_from_store": self.reused,
            "skipped": len(self.skipped), "seconds": round(self.seconds, 3),
            "winner_changed": _rate(self.changed, n),
            "winner_changed_games": list(self.changed_games),
            "first_player_win_rate": {"a": _rate(self.a.seat0_wins, n), "b": _rate(self.b.seat0_wins, self.b.games)},
            "game_length_turns": {"a": _mean(self.a.turns), "b": _mean(self.b.turns)},
            "damage_per_game_by_source": {
                s: {"a": _mean(self.a.damage.get(s, [0] * n)), "b": _mean(self.b.damage.get(s, [0] * n))}
                for s in DAMAGE_SOURCES + tuple(sorted((set(self.a.damage) | set(self.b.damage))
                                                      - set(DAMAGE_SOURCES)))
                if s in self.a.damage or s in self.b.damage},
            "cards_in_hand_win_rate_moves": self.card_moves(top, min_n),
        }
        return out

    def card_moves(self, top: int, min_n: int) -> list[dict]:
        rows = []
        for key in set(self.a.cards) & set(self.b.cards):
            (na, wa), (nb, wb) = self.a.cards[key], self.b.cards[key]
            if na < min_n or nb < min_n:
                continue
            rows.append({"card": key, "a": _rate(wa, na), "b": _rate(wb, nb), "move": wb / nb - wa / na})
        rows.sort(key=lambda r: (-abs(r["move"]), r["card"]))
        return rows[:top]


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n) if n else (0.0, 0.0)
    return {"k": k, "n": n, "rate": k / n if n else 0.0, "low": lo, "high": hi}


def _mean(values: list) -> dict:
    """Mean with n and a 95% normal interval (mean +- 1.96 standard errors), clipped to the values' range."""
    n = len(values)
    if not n:
        return {"n": 0, "mean": 0.0, "low": 0.0, "high": 0.0}
    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return {"n": n, "mean": m, "low": max(m - half, min(values)), "high": min(m + half, max(values))}


def select_games(store, rules_a: Rules | None, base: str, agents: Sequence[str] | None,
                 limit: int | None) -> list[str]:
    """The stored games to re-run: of ruleset A (its name; by default B's base), both seats built-in agents
    (of `agents` when given), at most `limit`, in stored order."""
    name = rules_a.name if rules_a is not None else base
    wanted = set(agents) if agents else None
    out = []
    for r in store.games(ruleset=name):
        pair = (r.agent0, r.agent1)
        if not all(is_builtin(a) for a in pair) or (wanted is not None and not set(pair) <= wanted):
            continue
        out.append(r.game_id)
        if limit is not None and len(out) >= limit:
            break
    return out


def whatif(db: Path, rules_b: Rules, rules_a: Rules | None = None, agents: Sequence[str] | None = None,
           games: int | None = None, workers: int = 1,
           progress: Callable[[int], None] | None = None, announce: Callable[[int], None] | None = None
           ) -> WhatifResult:
    """Re-run stored built-in-agent games under `rules_b`, store the re-runs (as games of B; those already
    stored are read back, so a second call resumes), and compare both sides."""
    import time

    from locm.store import DuplicateGameError, open_store

    t0 = time.perf_counter()
    with open_store(db, create=False, readonly=False) as store:
        ids = select_games(store, rules_a, rules_b.base_name, agents, games)
        if announce:
            announce(len(ids))
        result = WhatifResult(rules_a.name if rules_a else rules_b.base_name, rules_b, selected=len(ids))
        hash_a = rules_hash(rules_a) if rules_a is not None else None
        for gid, fa, fb, prepared, gid_b, skip in _results(str(db), hash_a, rules_b, ids, workers):
            if skip:
                result.skipped.append((gid, skip))
            else:
                if prepared is not None:
                    try:
                        store.append_prepared(prepared)
                        result.stored += 1
                    except DuplicateGameError:
                        result.reused += 1
                else:
                    result.reused += 1
                result.a.add(fa)
                result.b.add(fb)
                if fa.winner != fb.winner:
                    result.changed += 1
                    if len(result.changed_games) < 10:
                        result.changed_games.append(gid)
            if progress:
                progress(1)
    result.seconds = time.perf_counter() - t0
    return result


def _results(db: str, hash_a, rules_b: Rules, ids: list[str], workers: int):
    if workers <= 1 or len(ids) < 2:
        _init_worker(db, hash_a, rules_b)
        try:
            for gid in ids:
                yield _work(gid)
        finally:
            _STATE.pop("store").close()
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(db, hash_a, rules_b)) as pool:
        try:
            yield from pool.imap(_work, ids, chunksize=8)
        except BaseException:
            pool.terminate()
            raise


# --- text ---------------------------------------------------------------------------------------------------------


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}%, {100 * r['high']:.1f}%] (n={r['n']})"


def _avg(m: dict) -> str:
    return f"{m['mean']:.2f} [{m['low']:.2f}, {m['high']:.2f}] (n={m['n']})"


def whatif_lines(s: dict) -> list[str]:
    from locm.tables import table

    b = s["ruleset_b"]["name"]
    a = s["ruleset_a"]
    out = [f"{s['games']} games of {a} re-run under {b} ({s['rerun_now']} played now, {s['reused_from_store']} "
           f"already stored, {s['skipped']} skipped) in {s['seconds']:.1f} s",
           f"winner changes: {_pct(s['winner_changed'])}"]
    if s["winner_changed_games"]:
        out.append("  e.g. " + ", ".join(s["winner_changed_games"][:3]) + " (see 'locm rerun GAME_ID --db DB "
                   "--ruleset B')")
    out.append("")
    rows = [("first player wins", _pct(s["first_player_win_rate"]["a"]), _pct(s["first_player_win_rate"]["b"])),
            ("game length (turns)", _avg(s["game_length_turns"]["a"]), _avg(s["game_length_turns"]["b"]))]
    for src, m in s["damage_per_game_by_source"].items():
        rows.append((f"damage per game: {src}", _avg(m["a"]), _avg(m["b"])))
    out.append(table(("95% intervals", f"under {a}", f"under {b}"), rows))
    moves = s["cards_in_hand_win_rate_moves"]
    if moves:
        out += ["", "cards whose in-hand win rate moves most:"]
        out.append(table(("card", f"in-hand WR under {a}", f"under {b}", "move"),
                         [(m["card"], _pct(m["a"]), _pct(m["b"]), f"{100 * m['move']:+.1f} pts") for m in moves]))
    return out


__all__ = ["rerun_game", "rerun_report", "rerun_params", "first_divergence", "board_text", "load_source",
           "whatif", "whatif_lines", "WhatifResult", "facts", "RerunError"]
