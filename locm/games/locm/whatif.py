"""What LOCM adds to `locm whatif` (`locm.tournament.whatif`, the one path of every game): its hooks
(`locm.games.registry.HOOKS`) ``rerun_id`` (a re-run's id, its seeds' parameters re-derived under B),
``rerun_refused`` (rulesets that build decks another way), ``rerun_stored`` (the re-run and its record with
the think times its play measured),
``whatif_facts`` (per game and re-run: the winner, length, damage by source and the cards each player held,
`analysis.locm.cardfacts`, and the paired outcome of each card and feature bucket), ``whatif_summary`` (damage
per game by source, the cards whose in-hand win rate moves most, and the cards (1.2) and buckets whose holders
gain or lose, paired by seed) and ``whatif_lines``; and the re-run pool `locm.games.locm.cardvalue` uses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

from locm.analysis.locm.cardfacts import CARD_COLUMNS, GameFacts, project
from locm.analysis.locm.overview import DAMAGE_SOURCES
from locm.analysis.paired import STAR, Paired, mark_discoveries, pts
from locm.engine.locm.rulesets import Rules
from locm.events.locm.cards import AREA_NAMES, TYPE_NAMES, keywords_to_str
from locm.games.locm.rerun import rerun_game, rerun_params
from locm.tournament.whatif import mean, rate
from locm.tournament.whatif_text import avg, pct


# --- what a game and its re-run give ----------------------------------------------------------------------------------------------


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
_PLAYER, _CARD, _COPIES = (CARD_COLUMNS.index(c) for c in ("player", "card", "copies"))


def _init_worker(db: str, rules_a_hash: str | None, variants: tuple[Rules, ...]) -> None:
    """A worker's (or the main process's) state: the store read-only, the hash games of A must have (None:
    any), and the rulesets B games are re-run under (`locm.games.locm.cardvalue`: one per card)."""
    from locm.store.eventstore import open_store

    _STATE.update(store=open_store(db, create=False, readonly=True), hash_a=rules_a_hash, variants=variants)


_BASE: dict = {}
_BASE_MAX = 4096  # games kept per process (a created event and a game's facts: a few KB each)


def verified_game(store, game_id: str) -> tuple:
    """A stored game's created event (of the current schema, `engine.locm.upcast`) and its facts
    (`analysis.locm.cardfacts.project`), its chain verified (`EventStore.verified_events`) and folded once per
    process: kept by the store's path, the game's id, its record's head hash and event count and the SHA-256 of
    its log's stored bytes, so a game read again (the same base game under the next variant, the next
    `locm.games.locm.cardvalue` call of `locm tune`) is not inflated, chain-checked, decoded and folded again,
    and a log or record changed since is read and checked afresh."""
    from locm.engine.locm.upcast import upcast

    record = store.game(game_id)
    key = (str(store.path), game_id, record.head_hash, record.n_events, store.log_hashes([game_id]).get(game_id))
    hit = _BASE.get(key)
    if hit is None:
        events = store.verified_events(game_id)  # a stored game is trusted only if its chain holds
        hit = (upcast(events)[0], project(events))
        if len(_BASE) >= _BASE_MAX:
            _BASE.pop(next(iter(_BASE)))
        _BASE[key] = hit
    return hit


def play_out_under(created, rules_b: Rules) -> tuple[list, object] | None:
    """The game of `created` re-run under `rules_b` whole by the game's ``play_out`` (`engine.seam.GameDef`:
    LOCM's native core) where it applies (built-in agents, the game played from its seed alone: no explicit
    parameter to keep), as ``(B's events, its PreparedGame)``; None elsewhere (the re-run then decides turn by
    turn, `locm.games.locm.rerun.rerun_game`). The log is the one `rerun_game` gives, byte for byte
    (tests/test_cardvalue_native.py); the record has no think times (the core plays the whole game at once)."""
    from locm.engine.locm.definition import GAME
    from locm.engine.locm.gameid import created_id
    from locm.events.codec import json_array
    from locm.events.locm.catalog import HardError
    from locm.games.locm.bots import is_builtin
    from locm.store.eventstore import GameExtras, SeatExtras, prepare_game

    if GAME.play_out is None or rules_b.deck_building != created.rules.deck_building:
        return None
    agents = tuple(created.agents)
    if len(agents) != 2 or not all(agents) or not all(is_builtin(a) for a in agents):
        return None
    seed, params = rerun_params(created, rules_b)
    if seed is None or params:
        return None
    data = GAME.play_out(rules_b, seed, agents)
    if data is None:
        return None
    lines = data.rstrip(b"\n").split(b"\n")
    events = GAME.codec.from_json_array(json_array(b"\n".join(lines)))
    errors = {e.player for e in events if type(e) is HardError}
    extras = GameExtras(game_id=created_id(events[0]), seats=tuple(SeatExtras(error=s in errors) for s in (0, 1)))
    return events, prepare_game(GAME, extras, events, payloads=lines)


def stored_outcome(store, game_id: str) -> tuple[tuple, int] | None:
    """A stored game's decks and winner read from the facts the store keeps beside its events
    (`locm.analysis.locm.packedfacts`), without inflating, chain-checking, decoding or folding its log; None when
    it has none current (no such game, facts of another version, or a game changed since: the caller then reads
    it through `verified_game`, whose chain check stops at a log edited behind the store's back). Current means
    what `EventStore.current_facts` binds them to: the record's head hash and the SHA-256 of the log's stored bytes
    as they are now, so an edited log or record is never answered from here. What is trusted: the facts blob
    itself, written in the game's own transaction by the process that had its events (as `locm report` trusts
    it; `locm verify` recomputes every game's facts from its events and names one that differs). Each deck is
    its cards with their copies (base ids in ascending order, not deck order): `locm.games.locm.cardvalue`'s
    re-runs count copies (`advantage`) and nothing else of B's decks."""
    from locm.analysis.locm.packedfacts import FACTS_VERSION, WIDTH, card_ints, unpack

    blob = store.current_facts([game_id], FACTS_VERSION).get(game_id)
    if blob is None:
        return None
    try:
        p = unpack(blob)
    except ValueError:
        return None
    flat = card_ints(p)
    decks: tuple[list, list] = ([], [])
    for k in range(0, len(flat), WIDTH):
        player, card, copies = flat[k + _PLAYER], flat[k + _CARD], flat[k + _COPIES]
        if copies > 0 and card >= 0:
            decks[player].extend([card] * copies)
    return (tuple(sorted(decks[0])), tuple(sorted(decks[1]))), p.winner


def rerun_under(store, created, rules_b: Rules) -> tuple[tuple, int, object]:
    """`replay_under` of a game known by its created event (`verified_game`), as B's decks and winner
    (`analysis.locm.cardfacts.decks_and_winner`) and its PreparedGame to store (None: read back, its facts kept
    by `verified_game`), B played whole by `play_out_under` where it applies, else as `replay_under` plays it."""
    from locm.analysis.locm.cardfacts import decks_and_winner

    from locm.games.locm.tournament import game_id

    seed, params = rerun_params(created, rules_b)
    gid_b = game_id(rules_b, seed, tuple(created.agents), params)
    known = stored_outcome(store, gid_b)
    if known is not None:
        return (*known, None)
    if store.has_game(gid_b):
        gb = verified_game(store, gid_b)[1]
        return gb.decks, gb.winner, None
    whole = play_out_under(created, rules_b)
    if whole is None:
        events_b, prepared, _ = replay_under(store, [created], rules_b)
    else:
        events_b, prepared = whole
    return (*decks_and_winner(events_b), prepared)


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


def _results(db: str, hash_a, variants: tuple[Rules, ...], tasks: list, workers: int, work: Callable,
             backend: str = "local", address: str | None = None):
    """``work(task)`` for every task, in order, through the one pool (`locm.tournament.pool.imap`): in this process, in
    `workers` supervised processes, or with ``backend="ray"`` on the Ray cluster at ``address`` (the store's path
    must be readable on every node), each with the store open read-only and `variants` in its `_STATE`
    (`locm.games.locm.cardvalue`'s re-runs). Close it (``contextlib.closing``) when the loop over it may stop
    early: its workers stop with it."""
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


# --- text ---------------------------------------------------------------------------------------------------------


def paired_lines(rows: list[dict], a: str, b: str, top: int) -> list[str]:
    """The cards and buckets whose holders gain most and lose most, paired by seed."""
    from locm.common.tables import table

    if not rows or not top:
        return []
    out = ["", f"who gains and who loses: the same seeds, seats and agents under {a} and under {b}; a holder is "
               "the seat whose deck held more copies of the card (or of the bucket's cards, as they were under A) "
               "than its opponent's in the game under A; win-rate change B - A with its 95% interval clustered by "
               f"seed; q: Benjamini-Hochberg over the {len(rows)} rows tested ({STAR})"]
    gain = [r for r in rows if r["delta"] > 0][:top]
    lose = [r for r in reversed(rows) if r["delta"] < 0][:top]
    for title, part in (("gain most", gain), ("lose most", lose)):
        if part:
            out.append(f"{title}:")
            out.append(table(("card or bucket", "change", "95% interval", "q", "holders", "seeds", "won A", "won B"),
                             [(r["key"], f"{pts(r['delta'])} pts" + (" *" if r["significant"] else ""),
                               _interval(r), "n/a" if r["q"] is None else f"{r['q']:.3f}", r["units"],
                               r["clusters"], r["win_rate_a"]["k"], r["win_rate_b"]["k"])
                              for r in part]))
    if not gain and not lose:
        out.append("no holder's outcome changed")
    return out


def _interval(r: dict) -> str:
    return "n/a" if r["low"] is None else f"[{pts(r['low'])}, {pts(r['high'])}]"



# --- the hooks of `locm.tournament.whatif` ------------------------------------------------------------------


def rerun_id(events_a: Sequence, rules_b: Rules) -> str:
    """``rerun_id``: the id of the game of `events_a` re-run under `rules_b` (the same seed and agents, the
    parameters that differ from what B derives given explicitly), before it is played."""
    from locm.games.locm.tournament import game_id

    created = events_a[0]
    seed, params = rerun_params(created, rules_b)
    return game_id(rules_b, seed, tuple(created.agents), params)


def rerun_refused(rules_a: Rules, rules_b: Rules) -> str:
    """``rerun_refused``: why no game of `rules_a` can be re-run under `rules_b` ("" if one can): they build
    decks another way."""
    if rules_a.deck_building == rules_b.deck_building:
        return ""
    return (f"--ruleset-a {rules_a.name} builds decks by {rules_a.deck_building}, --ruleset {rules_b.name} by "
            f"{rules_b.deck_building}: a game cannot be re-run across them")


def rerun_stored(events_a: Sequence, rules_b: Rules, gid_b: str, game=None) -> tuple[list, object]:
    """``rerun_stored``: B's log and its record prepared for the store with the extras its play gives (each
    seat's think times, as a tournament's game keeps them)."""
    from locm.engine.locm.definition import GAME
    from locm.store.eventstore import prepare_game

    played = rerun_game(events_a, rules_b)
    return played.game.log, prepare_game(GAME, played.extras, played.game.log)


def whatif_facts(events_a: Sequence, events_b: Sequence) -> tuple:
    """``whatif_facts``: ``(facts under A, facts under B, units)`` (`facts_of`, `card_units`)."""
    ga, gb = project(events_a), project(events_b)
    return facts_of(ga), facts_of(gb), card_units(ga, gb)


def whatif_summary(groups: list, min_n: int, top: int) -> dict:
    """``whatif_summary``: damage per game by source under A and B, the cards whose in-hand win rate moves
    most, and the cards (1.2) and feature buckets whose holders gain or lose (``paired_by_seed``, each seed a
    cluster). ``groups``: each seed's `locm.tournament.whatif.Pair`s."""
    a, b, paired = Side(), Side(), {}
    for group in groups:
        cluster: dict = {}
        for p in group:
            fa, fb, units = p.facts
            a.add(fa)
            b.add(fb)
            for key, u in units.items():
                cluster.setdefault(key, []).extend(u)
        for key, u in cluster.items():
            paired.setdefault(key, Paired()).add_cluster(u)
    n = a.games
    sources = DAMAGE_SOURCES + tuple(sorted((set(a.damage) | set(b.damage)) - set(DAMAGE_SOURCES)))
    rows = [{"key": k, "kind": "bucket" if ": " in k else "card", **v.as_dict()}
            for k, v in paired.items() if v.units >= min_n]
    rows.sort(key=lambda r: (-r["delta"], r["key"]))
    mark_discoveries(rows)
    return {"damage_per_game_by_source": {s: {"a": mean(a.damage.get(s, [0] * n)), "b": mean(b.damage.get(s, [0] * n))}
                                          for s in sources if s in a.damage or s in b.damage},
            "cards_in_hand_win_rate_moves": card_moves(a, b, top, min_n), "paired_by_seed": rows}


def card_moves(a: Side, b: Side, top: int, min_n: int) -> list[dict]:
    """The `top` cards whose in-hand win rate moves most from A to B, each held in `min_n` games under both."""
    rows = []
    for key in set(a.cards) & set(b.cards):
        (na, wa), (nb, wb) = a.cards[key], b.cards[key]
        if na < min_n or nb < min_n:
            continue
        rows.append({"card": key, "a": rate(wa, na), "b": rate(wb, nb), "move": wb / nb - wa / na})
    rows.sort(key=lambda r: (-abs(r["move"]), r["card"]))
    return rows[:top]


def whatif_lines(s: dict, top: int) -> tuple[list, list[str]]:
    """``whatif_lines``: the damage rows of the summary's table, then the cards whose in-hand win rate moves
    most and the holders who gain and lose (`paired_lines`)."""
    from locm.common.tables import table

    a, b = s["ruleset_a"], s["ruleset_b"]["name"]
    rows = [(f"damage per game: {src}", avg(m["a"]), avg(m["b"])) for src, m in s["damage_per_game_by_source"].items()]
    out = []
    moves = s["cards_in_hand_win_rate_moves"]
    if moves:
        out += ["", "cards whose in-hand win rate moves most:"]
        out.append(table(("card", f"in-hand WR under {a}", f"under {b}", "move"),
                         [(m["card"], pct(m["a"]), pct(m["b"]), f"{100 * m['move']:+.1f} pts") for m in moves]))
    return rows, out + paired_lines(s["paired_by_seed"], a, b, top)


__all__ = ["facts", "facts_of", "replay_under", "rerun_under", "verified_game", "play_out_under", "stored_outcome",
           "card_units", "decks", "advantage", "Side", "paired_lines",
           "rerun_id", "rerun_refused", "rerun_stored", "whatif_facts", "whatif_summary", "whatif_lines", "card_moves"]
