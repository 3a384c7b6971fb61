"""`locm rerun` and `locm whatif` for the games other than LOCM, through the core (`engine.seam.GameDef`): a
stored game re-played under a variant with the same seed and the same agents, and many of them compared
paired by game. Nothing here knows a game: the seed and the players come from the game's index fields and
created event, the boards from its ``view``/``board_text``, the rules' differences from its ``rules_diff``,
the outcome from its ``outcome``. LOCM's own (richer) commands stay in `locm.games.locm.rerun` and `locm.games.locm.whatif`.

Honesty, as LOCM's: a divergence is laid on a changed setting only when the diverging event's rule is that
setting's rule; a command-line bot whose files changed since it played is named, and then a divergence may
be the bot's (the created event records each bot's file hash, ``bots``: a log from before that is said to
be unrecorded); a log that does not follow its rules is still compared, with its warning first. `whatif`
re-runs only built-in agents' games (a bot's re-run is not the same player: those games are skipped and
counted), stores its re-runs as games of B (so a second run reads them back), and gives every figure with
its n and a 95% interval: Wilson for rates; mean +- 1.96 standard errors for lengths; paired deltas (the
same game under A and B) with the standard error of the per-game differences. Below ``min_n`` games a
figure is printed as not enough data rather than as a rate.
"""

from __future__ import annotations

import json
import math

import msgspec
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

from locm.analysis.paired import Paired, PairedMean
from locm.analysis.stats import wilson
from locm.engine.errors import LocmError
from locm.engine.seam import GameDef, Outcome


class MatchRerunError(LocmError):
    """A game that cannot be re-run (no seed recorded, a ruleset of another game)."""


def _seed(game: GameDef, created: Any) -> int:
    seed = game.index(created).get("seed")
    if not isinstance(seed, int):
        raise MatchRerunError(f"{game.title}: the game records no seed to re-run it with")
    return seed


def recorded_bots(created: Any) -> tuple[str, ...] | None:
    """The bots' file hashes a created event records (None: a log from before they were recorded)."""
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


def bot_changes(game: GameDef, created: Any) -> list[BotChange]:
    """The seats whose command-line bot is not the version that played (its files hashed now, against the
    hash the created event recorded)."""
    agents = game.agents(created)
    return changed_bots(agents, recorded_bots(created) or ("",) * len(agents), game.agent_names)


def replay_under(game: GameDef, events_a: Sequence[Any], rules_b: Any, limits=None, sandbox=None) -> list[Any]:
    """The log of the game of `events_a` played again under `rules_b`: the same seed, the same agents (a
    command-line bot run again in the sandbox)."""
    from locm.tournament.matchplay import play_seated

    created = events_a[0]
    match, _ = play_seated(game, rules_b, _seed(game, created), game.agents(created), limits, sandbox)
    return list(match.log)


def _outcome_text(game: GameDef, created: Any, o: Outcome) -> str:
    agents = game.agents(created)
    if o.winner < 0:
        return f"no winner ({o.reason}) after {o.turns} turns"
    return f"player {o.winner} ({agents[o.winner]}) wins by {o.reason} after {o.turns} turns"


def _js(value: Any) -> str:
    return json.dumps(msgspec.to_builtins(value))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _change(a: str, b: str, limit: int = 240) -> tuple[str, str]:
    """The fields that differ between two events' JSON (whole events when their types differ)."""
    if not a or not b:
        return a[:limit], b[:limit]
    da, db = json.loads(a), json.loads(b)
    if da.get("type") != db.get("type"):
        return a[:limit], b[:limit]
    keys = [k for k in da if k not in ("seq", "cause", "rule") and da.get(k) != db.get(k)]
    show = lambda d: ", ".join(f"{k}={json.dumps(d.get(k))}" for k in keys)  # noqa: E731
    return f"{da['type']}: {show(da)}"[:limit], f"{db['type']}: {show(db)}"[:limit]


@dataclass
class MatchRerun:
    game: GameDef
    game_id: str
    rules_a: Any
    rules_b: Any
    changed: list  # (field, rule id, A, B)
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
    bots: list = field(default_factory=list)
    unrecorded: bool = False  # a log whose created event records no bot hashes, with a bot in it
    warning: str = ""
    setup: list = field(default_factory=list)  # the index fields (besides the ruleset) B's creation changes

    @property
    def suspects(self) -> list[str]:
        rules = {self.rule_a, self.rule_b}
        return [f for f, rule, _, _ in self.changed if rule in rules]

    def as_json(self) -> dict:
        def ident(r):
            return {"name": self.game.rules_name(r)}

        return {
            "game": self.game_id, "kind": self.game.name, "rules_a": ident(self.rules_a),
            "rules_b": ident(self.rules_b),
            "changed": [{"field": f, "rule": r, "left": msgspec.to_builtins(a), "right": msgspec.to_builtins(b)}
                        for f, r, a, b in self.changed],
            "divergence": None if self.seq is None else {
                "seq": self.seq, "event_a": json.loads(self.event_a) if self.event_a else None,
                "event_b": json.loads(self.event_b) if self.event_b else None, "rule_a": self.rule_a,
                "rule_b": self.rule_b, "changed_settings_of_that_rule": self.suspects,
                "board_a": self.board_a, "board_b": self.board_b},
            "outcome_a": self.outcome_a._asdict(), "outcome_b": self.outcome_b._asdict(),
            "winner_changed": self.outcome_a.winner != self.outcome_b.winner,
            "setup_changed": self.setup, "bots_changed": [b.__dict__ for b in self.bots], "bot_versions_recorded": not self.unrecorded,
            "warning": self.warning,
        }

    def lines(self) -> list[str]:
        a, b = self.game.rules_name(self.rules_a), self.game.rules_name(self.rules_b)
        if a == b:
            a, b = f"{a} (A)", f"{b} (B)"
        out = [self.warning] if self.warning else []
        out.append(f"{self.game.title} game {self.game_id}: re-run under {b} (played under {a})")
        out += [x.text() for x in self.bots]
        if self.unrecorded:
            out.append("the log records no bot versions (played before they were recorded): a bot's answers may "
                       "differ without any rule doing it")
        if self.changed:
            out.append("changed settings: " + "; ".join(f"{f} {_short(_js(x))} -> {_short(_js(y))} ({r})"
                                                          for f, r, x, y in self.changed[:12])
                       + (f"; ... {len(self.changed) - 12} more" if len(self.changed) > 12 else ""))
        else:
            out.append("changed settings: none (the same values)")
        if self.setup:
            out.append("the game as created under B differs in: " + ", ".join(self.setup)
                       + " (the same seed, set up under B's rules: a divergence after it may come from this)")
        if self.seq is None:
            out.append("no divergence: every event after the game's creation is the same under both rulesets")
        else:
            ea, eb = _change(self.event_a, self.event_b)
            bots = ("a bot may not be the version that played, so its answers may differ without any rule"
                    if self.bots or self.unrecorded else "")
            out += divergence_lines(a, b, self.seq, ea, eb, self.rule_a, self.rule_b, self.suspects,
                                    [f for f, *_ in self.changed], bots, "; ", self.board_a, self.board_b)
        out.append(f"outcome under {a}: {_outcome_text(self.game, self.created, self.outcome_a)}")
        out.append(f"outcome under {b}: {_outcome_text(self.game, self.created, self.outcome_b)}"
                   + ("  (the winner changes)" if self.outcome_a.winner != self.outcome_b.winner else ""))
        return out


def first_divergence(game: GameDef, a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """The first seq after the created event where two logs differ (None: they never do)."""
    to_json = game.codec.to_json
    for i in range(1, min(len(a), len(b))):
        if to_json(a[i]) != to_json(b[i]):
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _board(game: GameDef, events: Sequence[Any]) -> str:
    return game.board_text(game.view(game.fold(list(events)), None))


def rerun_match(game: GameDef, game_id: str, events_a: Sequence[Any], rules_b: Any, warning: str = "",
                limits=None, sandbox=None) -> MatchRerun:
    """Re-run the game of `events_a` under `rules_b` and describe its first divergence (`MatchRerun`)."""
    created = events_a[0]
    rules_a = created.rules
    if type(rules_b) is not type(rules_a):
        raise MatchRerunError(f"the ruleset is not a {game.title} ruleset")
    events_b = replay_under(game, events_a, rules_b, limits, sandbox)
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
    return MatchRerun(game, game_id, rules_a, rules_b, game.rules_diff(rules_a, rules_b), seq, ea, eb, ra, rb,
                      ba, bb, game.outcome(events_a), game.outcome(events_b), created, bot_changes(game, created),
                      has_bot and recorded_bots(created) is None, warning, setup)


# --- whatif ----------------------------------------------------------------------------------------------------


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n) if n else (0.0, 1.0)
    return {"k": k, "n": n, "rate": k / n if n else None, "lo": lo, "hi": hi}


def _mean(xs: Sequence[float]) -> dict:
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "lo": None, "hi": None}
    m = sum(xs) / n
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n) if n > 1 else float("inf")
    return {"n": n, "mean": m, "lo": m - 1.96 * se, "hi": m + 1.96 * se}


class Pair(NamedTuple):
    """One stored game and its re-run: the agents by seat, the seed (the cluster of the paired intervals:
    both seatings of a seed), the outcomes under A and B, each seat's holdings under A (the game's
    ``holdings``; () when it has none), and each seat's figures under A and under B (the game's
    ``seat_stats``: ``(per seat under A, per seat under B)``; () when it has none)."""

    agents: tuple[str, ...]
    seed: int
    a: Outcome
    b: Outcome
    holdings: tuple = ()
    stats: tuple = ()


@dataclass
class MatchWhatif:
    game: GameDef
    rules_a: str
    rules_b: str
    pairs: list = field(default_factory=list)  # `Pair`
    skipped: list = field(default_factory=list)  # (game id, why)
    stored: int = 0  # re-runs read back from the store
    played: int = 0

    def _by_seed(self) -> dict[int, list[Pair]]:
        out: dict[int, list[Pair]] = {}
        for p in self.pairs:
            out.setdefault(p.seed, []).append(p)
        return out

    def summary(self, min_n: int = 20, top: int = 10) -> dict:
        """Every figure with its n and 95% interval; the paired changes (`analysis.paired`: B - A of the same
        seats, clustered by seed, Agresti-Min adjusted) of each agent and of each card's holders (the seat
        whose deck held more copies of it under A), a card listed once held in ``min_n`` units."""
        pairs = self.pairs
        n = len(pairs)
        changed = sum(1 for p in pairs if p.a.winner != p.b.winner)
        agents = sorted({x for p in pairs for x in p.agents})
        by_seed = self._by_seed()
        per_agent = {}
        for name in agents:
            paired = Paired()
            for group in by_seed.values():
                paired.add_cluster((int(p.a.winner == s), int(p.b.winner == s), True, True)
                                   for p in group for s, x in enumerate(p.agents) if x == name)
            row = paired.as_dict()
            row["enough"] = paired.units >= min_n
            per_agent[name] = row
        cards: dict[str, Paired] = {}
        for group in by_seed.values():
            units: dict[str, list] = {}
            for p in group:
                if len(p.holdings) != 2:
                    continue
                for key in set(p.holdings[0]) | set(p.holdings[1]):
                    c0, c1 = p.holdings[0].get(key, 0), p.holdings[1].get(key, 0)
                    if c0 != c1:
                        s = 0 if c0 > c1 else 1
                        units.setdefault(key, []).append((int(p.a.winner == s), int(p.b.winner == s), True, True))
            for key, us in units.items():
                cards.setdefault(key, Paired()).add_cluster(us)
        rows = [{"card": k, **v.as_dict()} for k, v in cards.items() if v.units >= min_n]
        rows.sort(key=lambda r: (-r["delta"], r["card"]))
        for name in agents:
            per_agent[name]["figures"] = self._figures(name, by_seed, min_n)
        return {"game": self.game.name, "rules_a": self.rules_a, "rules_b": self.rules_b, "games": n,
                "figures": list(next(iter(per_agent.values()), {}).get("figures", {})),
                "min_n": min_n, "enough": n >= min_n,
                "winner_changed": _rate(changed, n),
                "seat0_wins": {"a": _rate(sum(p.a.winner == 0 for p in pairs), n),
                               "b": _rate(sum(p.b.winner == 0 for p in pairs), n)},
                "turns": {"a": _mean([p.a.turns for p in pairs]), "b": _mean([p.b.turns for p in pairs]),
                          "paired_delta": _mean([p.b.turns - p.a.turns for p in pairs])},
                "agents": per_agent, "cards_paired_by_seed": rows, "cards_considered": len(cards),
                "played": self.played, "read_back": self.stored, "skipped": len(self.skipped)}


    def _figures(self, name: str, by_seed: dict[int, list[Pair]], min_n: int) -> dict[str, dict]:
        """Agent `name`'s seats' figures under A and B, paired by seat and clustered by seed
        (`analysis.paired.PairedMean`): in a game of points its points and place (1 = first), then the
        game's ``seat_stats`` (Skyport's kills, deaths, damage, penalties, upgrades)."""
        pairs = [p for group in by_seed.values() for p in group]
        keys = (["points", "place"] if pairs and all(p.a.scores is not None and p.b.scores is not None
                                                     for p in pairs) else [])
        if pairs and all(p.stats for p in pairs):
            keys += [k for k in pairs[0].stats[0][0] if all(k in seat for p in pairs for side in p.stats
                                                            for seat in side)]
        out: dict[str, PairedMean] = {k: PairedMean() for k in keys}
        seen: dict[str, set[float]] = {k: set() for k in keys}
        for group in by_seed.values():
            units: dict[str, list[tuple[float, float]]] = {k: [] for k in keys}
            for p in group:
                places = (p.a.places(len(p.agents)), p.b.places(len(p.agents)))
                for s, x in enumerate(p.agents):
                    if x != name:
                        continue
                    for k in keys:
                        if k == "points":
                            units[k].append((p.a.scores[s], p.b.scores[s]))
                        elif k == "place":
                            units[k].append((places[0][s] + 1, places[1][s] + 1))
                        else:
                            units[k].append((p.stats[0][s][k], p.stats[1][s][k]))
            for k in keys:
                out[k].add_cluster(units[k])
                seen[k].update(x for pair in units[k] for x in pair)
        return {k: {**v.as_dict(), "enough": v.d.units >= min_n,
                    "constant": next(iter(seen[k])) if len(seen[k]) == 1 else None} for k, v in out.items()}


def _pct(r: dict) -> str:
    if r["n"] == 0:
        return "n=0"
    return f"{100 * r['rate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}] (n={r['n']})"


def _avg(m: dict, scale: float = 1.0, unit: str = "", sign: str = "+") -> str:
    if m["n"] == 0:
        return "n=0"
    f = f"{sign}.2f"
    if m["n"] < 2:
        return f"{scale * m['mean']:{f}}{unit} (n=1, no interval)"
    return f"{scale * m['mean']:{f}}{unit} [{scale * m['lo']:{f}}, {scale * m['hi']:{f}}] (n={m['n']})"


def whatif_lines(s: dict, top: int = 10) -> list[str]:
    out = [f"{s['game']}: {s['games']} stored games of {s['rules_a']} re-run under {s['rules_b']} (same seeds, "
           f"same agents; {s['played']} played now, {s['read_back']} read back from the store, {s['skipped']} "
           "skipped)"]
    if not s["enough"]:
        out.append(f"not enough data: {s['games']} games < --min-n {s['min_n']}; the figures below are "
                   "shown with their intervals but say little")
    out.append(f"winner changes:        {_pct(s['winner_changed'])}")
    out.append(f"player 0 wins under A: {_pct(s['seat0_wins']['a'])}")
    out.append(f"player 0 wins under B: {_pct(s['seat0_wins']['b'])}")
    t = s["turns"]
    out.append(f"turns under A: {_avg(t['a'], sign='')}; under B: {_avg(t['b'], sign='')}; paired B - A: "
               f"{_avg(t['paired_delta'])}")
    out.append("win rate by agent under A; under B; paired B - A (the same seats, clustered by seed, 95%):")
    for name, r in s["agents"].items():
        delta = _paired(r) if r["enough"] else f"not enough data (n={r['units']} < {s['min_n']})"
        out.append(f"  {name}: {_wr(r['win_rate_a'])}; {_wr(r['win_rate_b'])}; {delta}")
    if s.get("figures"):
        out.append("per agent and game, under A; under B; paired B - A (the same seats, clustered by seed, 95%; "
                   "* : the interval excludes 0):")
        width = max(len(k) for k in s["figures"])
        for name, r in s["agents"].items():
            out.append(f"  {name}:")
            for key, f in r["figures"].items():
                digits = 1 if key == "points" else 2
                if f["constant"] is not None:
                    out.append(f"    {key:<{width}}  {f['constant']:.{digits}f} in every game under A and B "
                               f"(n={f['units']})")
                    continue
                delta = (_diff(f, digits) + (" *" if f["excludes_zero"] else "")) if f["enough"] else \
                    f"not enough data (n={f['units']} < {s['min_n']})"
                out.append(f"    {key:<{width}}  {_ci(f['a'], digits)}; {_ci(f['b'], digits)}; {delta}")
    rows = s["cards_paired_by_seed"]
    if s["cards_considered"]:
        out.append(f"cards whose holders gain or lose most (a holder: the seat whose deck held more copies under A; "
                   f"paired B - A clustered by seed; {len(rows)} of {s['cards_considered']} cards held in "
                   f"{s['min_n']} units at least; * : the interval excludes 0):")
        gain = [r for r in rows if r["delta"] > 0][:top]
        lose = [r for r in reversed(rows) if r["delta"] < 0][:top]
        for title, part in (("gain most", gain), ("lose most", lose)):
            for r in part:
                out.append(f"  {title}: {r['card']}: {_paired(r)}" + (" *" if r["excludes_zero"] else ""))
        if not gain and not lose:
            out.append("  none moves (or none held in enough units)")
    return out


def _ci(m: dict, digits: int) -> str:
    """A mean with its interval."""
    if m["mean"] is None:
        return "n=0"
    if m["low"] is None:
        return f"{m['mean']:.{digits}f}"
    return f"{m['mean']:.{digits}f} [{m['low']:.{digits}f}, {m['high']:.{digits}f}]"


def _diff(r: dict, digits: int) -> str:
    """A paired difference B - A with its interval, n and seeds."""
    if r["delta"] is None:
        return "n=0"
    if r["low"] is None:
        return f"{r['delta']:+.{digits}f} (n={r['units']}, too few seeds for an interval)"
    return (f"{r['delta']:+.{digits}f} [{r['low']:+.{digits}f}, {r['high']:+.{digits}f}] (n={r['units']} in "
            f"{r['clusters']} seeds)")


def _wr(r: dict) -> str:
    if not r["n"]:
        return "n=0"
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}] (n={r['n']})"


def _paired(r: dict) -> str:
    if r["delta"] is None:
        return "n=0"
    if r["low"] is None:
        return f"{100 * r['delta']:+.1f} pts (n={r['units']}, too few seeds for an interval)"
    return (f"{100 * r['delta']:+.1f} pts [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}] (n={r['units']} in "
            f"{r['clusters']} seeds)")


def match_whatif(store, game: GameDef, rules_b: Any, rules_a: str | None = None, games: int | None = None,
                 progress: Callable[[int], None] | None = None,
                 announce: Callable[[int], None] | None = None, workers: int = 1) -> MatchWhatif:
    """Re-run the stored games of `game` under ruleset A (its name; default B's base, else B's name) between
    built-in agents under `rules_b`; each re-run is stored as a game of B (its id is its content's, so a
    second run finds it and reads it back instead of playing it). ``workers`` > 1: the re-runs are played by
    the one pool's workers (`locm.tournament.pool.imap`, the store read-only in each), in order: the same result as one."""
    from locm.errors import DuplicateGameError
    from locm.tournament.pool import imap

    name_b = game.rules_name(rules_b)
    base = getattr(rules_b, "base", None) or name_b
    name_a = rules_a or base
    result = MatchWhatif(game, name_a, name_b)
    rows = [m for m in store.games(game=game.name) if m.ruleset == name_a]
    todo = []
    for m in rows:
        if any(a not in game.agent_names for a in m.agents):
            result.skipped.append((m.game_id, "a command-line bot played: its re-run would not be the same player"))
            continue
        todo.append(m)
        if games is not None and len(todo) >= games:
            break
    if announce:
        announce(len(todo))
    tasks = [m.game_id for m in todo]
    if workers > 1 and len(tasks) > 1 and store.path != ":memory:":
        results = imap(_rerun_task, tasks, workers, init=_init_rerun, init_args=(store.path, game.name, rules_b),
                       batch=max(1, min(8, len(tasks) // (4 * workers))), label=lambda gid: f"the re-run of {gid}")
    else:
        _RERUN.update(store=store, game=game, rules_b=rules_b)
        results = imap(_rerun_task, tasks)
    try:
        for prepared, pair in results:
            if prepared is None:
                result.stored += 1
            else:
                try:
                    store.append_prepared(prepared)
                    result.played += 1
                except DuplicateGameError:  # the same game of B came from another game of A: stored once
                    result.stored += 1
            result.pairs.append(pair)
            if progress:
                progress(1)
    finally:
        results.close()  # its workers stop with it, whatever stopped the loop
        _RERUN.clear()
    return result


_RERUN: dict = {}
"""The store, game and ruleset B of this process's re-runs (`_init_rerun` in a worker)."""


def _init_rerun(path: str, game_name: str, rules_b: Any) -> None:
    from locm.engine.registry import get
    from locm.store.eventstore import open_store

    _RERUN.update(store=open_store(path, create=False, readonly=True), game=get(game_name), rules_b=rules_b)


def _rerun_task(game_id: str) -> tuple[Any, Pair]:
    """One stored game re-run under B (or its re-run read back): ``(the re-run prepared for the store, or None
    when it is stored already, the Pair)``."""
    from locm.store.eventstore import GameExtras, prepare_game

    store, game, rules_b = _RERUN["store"], _RERUN["game"], _RERUN["rules_b"]
    events_a = store.verified_events(game_id)
    created = events_a[0]
    seed = _seed(game, created)
    probe = game.new(rules_b, seed, game.agents(created))
    gid_b = game.game_id(probe.log[0])
    prepared = None
    if store.has_game(gid_b):
        events_b = store.verified_events(gid_b)
    else:
        events_b = replay_under(game, events_a, rules_b)
        prepared = prepare_game(game, GameExtras(game_id=gid_b), events_b)
    held = game.holdings(created) if game.holdings is not None else ()
    stats = (tuple(game.seat_stats(events_a)), tuple(game.seat_stats(events_b))) if game.seat_stats else ()
    return prepared, Pair(tuple(game.agents(created)), seed, game.outcome(events_a), game.outcome(events_b),
                          tuple(held), stats)


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


__all__ = ["MatchRerunError", "MatchRerun", "rerun_match", "replay_under", "first_divergence", "bot_changes",
           "MatchWhatif", "match_whatif", "whatif_lines", "divergence_lines"]
