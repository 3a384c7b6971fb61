"""What-if re-runs of many stored games (`locm whatif`): every stored game of built-in agents of ruleset A is
re-run under ruleset B (`locm.games.locm.rerun`), the re-runs are stored as games of B, and the two sides are compared:
the share of games whose winner changes, the first player's win rate, game length, damage by source and the
cards whose in-hand win rate moves most, each with n and a 95% interval.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from locm.analysis.locm.cardfacts import GameFacts, project
from locm.analysis.locm.overview import DAMAGE_SOURCES
from locm.analysis.paired import Paired, pts
from locm.analysis.stats import Z95, wilson
from locm.engine.errors import LocmError
from locm.engine.locm.rulesets import Rules, rules_hash
from locm.events.locm.cards import AREA_NAMES, TYPE_NAMES, keywords_to_str
from locm.runner.bots import is_builtin
from locm.games.locm.rerun import rules_identity, rerun_game, rerun_params


# --- many re-runs ----------------------------------------------------------------------------------------------


@dataclass
class Facts:
    """What `whatif` keeps of one game: outcome, length, damage by source, the cards each player held."""

    winner: int
    turns: int
    damage: dict
    held: tuple  # (cards of player 0, cards of player 1): card keys ever in hand


def facts(events: Sequence) -> Facts:
    """`facts_of` the game's facts (`analysis.locm.cardfacts.project`, the one fold of a game's facts)."""
    return facts_of(project(events))


def facts_of(g: GameFacts) -> Facts:
    """What `whatif` keeps of one game's facts: the winner, the length (the last turn's number + 1), damage by
    source and, per player, the keys (`_card_key`) of the cards it ever had in hand."""
    named = any(c.name for c in g.defs.values())
    held = tuple(tuple(sorted({_card_key(g.defs[b], named) for b in g.held(p) if b in g.defs})) for p in (0, 1))
    return Facts(g.winner, g.last_turn + 1, dict(g.damage), held)


def _card_key(c, named: bool) -> str:
    """1.2: the base id and name (the card list's, so a variant's changed card keeps its key); constructed:
    the generated card's values (the same seed and weights give the same card)."""
    if named:
        return f"{c.base_id} {c.name}"
    kind = "C" if c.type == 0 else TYPE_NAMES[c.type]
    return (f"{kind} {c.cost}: {c.attack}/{c.defense} {keywords_to_str(c.keywords)} "
            f"{c.my_health}/{c.opp_health}/{c.draw} {AREA_NAMES[c.area]}")


_STATE: dict = {}


def _init_worker(db: str, rules_a_hash: str | None, variants: tuple[Rules, ...]) -> None:
    """A worker's (or the main process's) state: the store read-only, the hash games of A must have (None:
    any), and the rulesets B games are re-run under (`whatif`: one; `locm.games.locm.cardvalue`: one per card)."""
    from locm.store.eventstore import open_store

    _STATE.update(store=open_store(db, create=False, readonly=True), hash_a=rules_a_hash, variants=variants)


def replay_under(store, events_a: Sequence, rules_b: Rules) -> tuple[list, object, str]:
    """Game A re-run under `rules_b`: ``(B's events, its PreparedGame to store or None, B's id)``. A B game
    already stored is read back, not played again (so a second run resumes)."""
    from locm.engine.locm.definition import GAME
    from locm.store.eventstore import prepare_game
    from locm.games.locm.tournament import game_id

    created = events_a[0]
    seed, params = rerun_params(created, rules_b)
    gid_b = game_id(rules_b, seed, tuple(created.agents), params)
    if store.has_game(gid_b):
        return store.verified_events(gid_b), None, gid_b  # a stored game is trusted only if its chain holds
    played = rerun_game(events_a, rules_b)
    return played.game.log, prepare_game(GAME, played.extras, played.game.log), gid_b


def _work(gids: Sequence[str]) -> list[tuple]:
    """Re-run one seed's stored games under the variant: per game ``(gid, facts A, facts B, prepared B or
    None, B's id, skip, units)``, units being the paired outcomes of each card and bucket (`card_units`)."""
    store, rules_b = _STATE["store"], _STATE["variants"][0]
    out = []
    for gid in gids:
        try:
            events_a = store.verified_events(gid)  # a stored game is trusted only if its chain holds
            if _STATE["hash_a"] is not None and events_a[0].rules_hash != _STATE["hash_a"]:
                out.append((gid, None, None, None, "", "its rules differ from --ruleset-a", {}))
                continue
            events_b, prepared, gid_b = replay_under(store, events_a, rules_b)
            ga, gb = project(events_a), project(events_b)
            out.append((gid, facts_of(ga), facts_of(gb), prepared, gid_b, "", card_units(ga, gb)))
        except LocmError as exc:
            out.append((gid, None, None, None, "", str(exc), {}))
    return out


def decks(events: Sequence) -> tuple[dict, tuple[tuple[int, ...], tuple[int, ...]]]:
    """A game's card pool (base id -> Card) and each player's deck (base ids, a copy per card)."""
    g = project(events)
    return g.defs, g.decks


def advantage(decks_: tuple, ids) -> tuple[int, int] | None:
    """The seat holding more copies of the cards `ids` than its opponent, and by how many, or None for a tie
    (both as many, or none): who "holds" a card in a paired comparison."""
    x0 = sum(1 for b in decks_[0] if b in ids)
    x1 = sum(1 for b in decks_[1] if b in ids)
    if x0 == x1:
        return None
    return (0, x0 - x1) if x0 > x1 else (1, x1 - x0)


def card_units(ga: GameFacts, gb: GameFacts) -> dict[str, list]:
    """The paired outcome of one game per card (1.2: the card list's id and name) and per feature bucket of
    the report (both rulesets), from its facts under A and under B: the seat that held more copies of it than
    its opponent in the game under A (`advantage`; a tie gives nothing: a change moves both seats alike), as
    ``(won under A, won under B, True, whether it still held more under B)``. A card is known by its
    definition under A, so a bucket is the cards that were in it before the change."""
    from locm.analysis.locm.cardfacts import card_features

    pool_a, decks_a, decks_b = ga.defs, ga.decks, gb.decks
    win_a, win_b = ga.winner, gb.winner
    named = any(c.name for c in pool_a.values())
    by_key: dict[str, set] = {}
    for b in set(decks_a[0]) | set(decks_a[1]) | set(decks_b[0]) | set(decks_b[1]):
        c = pool_a[b]
        for key in tuple(card_features(c)) + ((_card_key(c, True),) if named else ()):
            by_key.setdefault(key, set()).add(b)
    units: dict[str, list] = {}
    for key, ids in by_key.items():
        adv = advantage(decks_a, ids)
        if adv is not None:
            p = adv[0]
            after = advantage(decks_b, ids)
            units[key] = [(int(win_a == p), int(win_b == p), True, after is not None and after[0] == p)]
    return units


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
    paired: dict = field(default_factory=dict)  # card or bucket -> Paired (holders' win rate, B against A)
    seconds: float = 0.0

    def summary(self, top: int = 10, min_n: int = 20) -> dict:
        n = self.a.games
        out = {
            "ruleset_a": self.rules_a, "ruleset_b": rules_identity(self.rules_b),
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
            "paired_by_seed": self.paired_rows(min_n),
        }
        return out

    def paired_rows(self, min_n: int) -> list[dict]:
        """Every card (1.2) and feature bucket held in at least `min_n` units, with its paired change in
        win rate from A to B (`analysis.paired`), largest gain first."""
        rows = []
        for key, p in self.paired.items():
            if p.units >= min_n:
                rows.append({"key": key, "kind": "bucket" if ": " in key else "card", **p.as_dict()})
        rows.sort(key=lambda r: (-r["delta"], r["key"]))
        return rows

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
    half = Z95 * sd / math.sqrt(n)
    return {"n": n, "mean": m, "low": max(m - half, min(values)), "high": min(m + half, max(values))}


def select_games(store, rules_a: Rules | str | None, base: str, agents: Sequence[str] | None,
                 limit: int | None) -> list[str]:
    """The stored games to re-run: of ruleset A (its name; by default B's base), both seats built-in agents
    (of `agents` when given), at most `limit`, in stored order."""
    return [gid for group in select_by_seed(store, rules_a, base, agents, limit) for gid in group]


def select_by_seed(store, rules_a: Rules | str | None, base: str, agents: Sequence[str] | None,
                   limit: int | None) -> list[list[str]]:
    """`select_games`, grouped by seed (each seed's games in stored order, seeds in order of their first
    game): the clusters of the paired comparisons."""
    name = base if rules_a is None else rules_a if isinstance(rules_a, str) else rules_a.name
    wanted = set(agents) if agents else None
    groups: dict = {}
    n = 0
    for r in store.games(ruleset=name, game="locm"):
        pair = r.agents
        if not all(is_builtin(a) for a in pair) or (wanted is not None and not set(pair) <= wanted):
            continue
        groups.setdefault(r.seed, []).append(r.game_id)
        n += 1
        if limit is not None and n >= limit:
            break
    return list(groups.values())


def whatif(db: Path, rules_b: Rules, rules_a: Rules | str | None = None, agents: Sequence[str] | None = None,
           games: int | None = None, workers: int = 1,
           progress: Callable[[int], None] | None = None, announce: Callable[[int], None] | None = None,
           backend: str = "local", address: str | None = None) -> WhatifResult:
    """Re-run stored built-in-agent games under `rules_b`, store the re-runs (as games of B; those already
    stored are read back, so a second call resumes), and compare both sides. `rules_a`: the games' ruleset
    (default: B's base); as `Rules`, only games with exactly its values; as a name, every game of that name."""
    import time

    from locm.store.eventstore import DuplicateGameError, open_store

    t0 = time.perf_counter()
    with open_store(db, create=False, readonly=False) as store:
        groups = select_by_seed(store, rules_a, rules_b.base_name, agents, games)
        n = sum(map(len, groups))
        if announce:
            announce(n)
        name_a = rules_b.base_name if rules_a is None else rules_a if isinstance(rules_a, str) else rules_a.name
        result = WhatifResult(name_a, rules_b, selected=n)
        hash_a = rules_hash(rules_a) if isinstance(rules_a, Rules) else None  # a name alone: any values
        results = _results(str(db), hash_a, (rules_b,), groups, workers, _work, backend, address)
        try:
            for done in results:
                cluster: dict = {}
                for gid, fa, fb, prepared, gid_b, skip, units in done:
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
                        for key, u in units.items():
                            cluster.setdefault(key, []).extend(u)
                for key, u in cluster.items():
                    result.paired.setdefault(key, Paired()).add_cluster(u)
                if progress:
                    progress(len(done))
        finally:
            results.close()  # its workers stop with it, whatever stopped the loop
    result.seconds = time.perf_counter() - t0
    return result


def _results(db: str, hash_a, variants: tuple[Rules, ...], tasks: list, workers: int, work: Callable,
             backend: str = "local", address: str | None = None):
    """``work(task)`` for every task, in order, through the one pool (`locm.tournament.pool.imap`): in this process, in
    `workers` supervised processes, or with ``backend="ray"`` on the Ray cluster at ``address`` (the store's path
    must be readable on every node), each with the store open read-only and `variants` in its `_STATE`.
    `locm.games.locm.cardvalue` runs its own `work` through the same pool. Close it (``contextlib.closing``) when the loop
    over it may stop early: its workers stop with it."""
    from locm.tournament.pool import imap

    workers = workers if len(tasks) >= 2 else 1
    try:
        yield from imap(work, tasks, workers, init=_init_worker,
                        init_args=(os.path.abspath(db) if backend == "ray" else db, hash_a, variants),
                        backend=backend, address=address, batch=max(1, min(8, len(tasks) // (4 * max(1, workers)))),
                        label=lambda task: f"the re-runs of game {task[0] if isinstance(task, list) else task[0][0]}")
    finally:
        store = _STATE.pop("store", None)  # opened here when the work ran in this process
        if store is not None:
            store.close()


# --- text ---------------------------------------------------------------------------------------------------------


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}%, {100 * r['high']:.1f}%] (n={r['n']})"


def _avg(m: dict) -> str:
    return f"{m['mean']:.2f} [{m['low']:.2f}, {m['high']:.2f}] (n={m['n']})"


def whatif_lines(s: dict, top: int = 10) -> list[str]:
    from locm.common.tables import table

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
    out += paired_lines(s["paired_by_seed"], a, b, top)
    return out


def paired_lines(rows: list[dict], a: str, b: str, top: int) -> list[str]:
    """The cards and buckets whose holders gain most and lose most, paired by seed."""
    from locm.common.tables import table

    if not rows or not top:
        return []
    out = ["", f"who gains and who loses: the same seeds, seats and agents under {a} and under {b}; a holder is "
               "the seat whose deck held more copies of the card (or of the bucket's cards, as they were under A) "
               "than its opponent's in the game under A; win-rate change B - A with its 95% interval clustered by "
               "seed (* : the interval excludes 0)"]
    gain = [r for r in rows if r["delta"] > 0][:top]
    lose = [r for r in reversed(rows) if r["delta"] < 0][:top]
    for title, part in (("gain most", gain), ("lose most", lose)):
        if part:
            out.append(f"{title}:")
            out.append(table(("card or bucket", "change", "95% interval", "holders", "seeds", "won A", "won B"),
                             [(r["key"], f"{pts(r['delta'])} pts" + (" *" if r["excludes_zero"] else ""),
                               _interval(r), r["units"], r["clusters"], r["win_rate_a"]["k"], r["win_rate_b"]["k"])
                              for r in part]))
    if not gain and not lose:
        out.append("no holder's outcome changed")
    return out


def _interval(r: dict) -> str:
    return "n/a" if r["low"] is None else f"[{pts(r['low'])}, {pts(r['high'])}]"



__all__ = ["whatif", "whatif_lines", "WhatifResult", "facts", "facts_of", "select_games", "select_by_seed", "replay_under",
           "card_units", "decks", "advantage"]
