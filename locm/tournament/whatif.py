"""`locm whatif` for every game, through the core (`engine.seam.GameDef`): the stored games of built-in agents of
ruleset A re-run under ruleset B (`locm.tournament.rerun`), the re-runs stored as games of B, and both sides
compared paired by game. Nothing here knows a game; what one game adds is a hook of its wing
(`locm.games.registry.HOOKS`): ``rerun_id`` (the id of a game's re-run before it is played), ``rerun_stored``
(the re-run played and its record prepared for the store: LOCM's keeps its agents' think times),
``rerun_refused`` (a ruleset A no game of can be re-run under B, refused at once), ``whatif_facts``
(what a worker keeps of a game and its re-run beside their outcomes), ``whatif_summary`` (the sections those
facts add to the summary) and ``whatif_lines`` (the lines they add to its text: `locm.tournament.whatif_text`).
LOCM's add damage by source, cards' in-hand win rates and the cards and feature buckets whose holders gain or
lose (`locm.games.locm.whatif`).

Only built-in agents' games are re-run (a bot's re-run is not the same player: those games are skipped and
counted); a stored re-run is read back instead of played again, so a second run resumes. Every figure has its
n and a 95% interval: Wilson for rates; mean +- 1.96 standard errors for lengths (clipped to the values'
range); paired changes (the same seats under A and B, clustered by seed: `analysis.paired`). Below ``min_n``
units a paired figure is printed as not enough data rather than as a rate.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

from locm.analysis.paired import Paired, PairedMean, mark_discoveries
from locm.analysis.stats import Z95, wilson
from locm.engine.errors import LocmError
from locm.engine.seam import GameDef, Outcome
from locm.tournament.rerun import game_hook, outcome_of, play_again, recorded_seed, rules_identity


QUESTION = ("what changed across the re-run games: the stored games of A played again under B on the same seeds, "
            "seats and agents; a card's row is the change in its holders' win rate when the whole ruleset changes "
            "(every changed card, rule and agent decision in it), not what that card causes (locm cardvalue "
            "answers that)")
"""What `locm whatif` answers, said in its text and JSON."""


def rate(k: int, n: int) -> dict:
    """A rate with its n and 95% Wilson interval (``rate`` None without games)."""
    lo, hi = wilson(k, n) if n else (0.0, 1.0)
    return {"k": k, "n": n, "rate": k / n if n else None, "low": lo, "high": hi}


def mean(values: Sequence[float]) -> dict:
    """A mean with its n and 95% normal interval (mean +- 1.96 standard errors) clipped to the values' range
    (no interval below 2 values)."""
    n = len(values)
    if not n:
        return {"n": 0, "mean": None, "low": None, "high": None}
    m = sum(values) / n
    if n < 2:
        return {"n": 1, "mean": m, "low": None, "high": None}
    half = Z95 * math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) / math.sqrt(n)
    return {"n": n, "mean": m, "low": max(m - half, min(values)), "high": min(m + half, max(values))}


class Pair(NamedTuple):
    """One stored game and its re-run: the agents by seat, the seed (the cluster of the paired intervals:
    both seatings of a seed), the outcomes under A and B, each seat's holdings under A (the game's
    ``holdings``; () when it has none), each seat's figures under A and under B (the game's ``seat_stats``:
    ``(per seat under A, per seat under B)``; () when it has none), the stored game's id and what the game's
    ``whatif_facts`` keeps of the two (None without that hook)."""

    agents: tuple[str, ...]
    seed: int
    a: Outcome
    b: Outcome
    holdings: tuple = ()
    stats: tuple = ()
    game_id: str = ""
    facts: Any = None


@dataclass
class Whatif:
    """The stored games of ruleset A re-run under B (`whatif`): the pairs, the games skipped and why, how many
    re-runs were played now and how many read back from the store."""

    game: GameDef
    rules_a: str
    rules_b: Any  # its rules value (or its name)
    pairs: list = field(default_factory=list)  # `Pair`
    skipped: list = field(default_factory=list)  # (game id, why)
    read_back: int = 0  # re-runs read back from the store
    played: int = 0  # re-runs played now (and stored)
    selected: int = 0  # the stored games chosen to re-run (skipped ones included)
    left_out: dict = field(default_factory=dict)  # games of A not counted, by why (`EventStore.left_out`)
    seconds: float = 0.0

    def _by_seed(self) -> dict[int, list[Pair]]:
        out: dict[int, list[Pair]] = {}
        for p in self.pairs:
            out.setdefault(p.seed, []).append(p)
        return out

    def summary(self, min_n: int = 20, top: int = 10) -> dict:
        """Every figure with its n and 95% interval; the paired changes (`analysis.paired`: B - A of the same
        seats, clustered by seed, Agresti-Min adjusted) of each agent and of each card's holders (the seat
        whose deck held more copies of it under A), a card listed once held in ``min_n`` units, each with its
        Benjamini-Hochberg q over the cards listed (`analysis.paired.mark_discoveries`); then the game's own
        sections (``whatif_summary``)."""
        pairs = self.pairs
        n = len(pairs)
        changed = [p for p in pairs if p.a.winner != p.b.winner]
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
            row["figures"] = self._figures(name, by_seed, min_n)
            per_agent[name] = row
        cards = self._cards(by_seed)
        rows = [{"card": k, **v.as_dict()} for k, v in cards.items() if v.units >= min_n]
        rows.sort(key=lambda r: (-r["delta"], r["card"]))
        mark_discoveries(rows)
        out = {"game": self.game.name, "question": QUESTION, "ruleset_a": self.rules_a,
               "ruleset_b": ({"name": self.rules_b} if isinstance(self.rules_b, str)  # a name alone
                             else rules_identity(self.game, self.rules_b)), "games": n,
               "rerun_now": self.played, "reused_from_store": self.read_back, "skipped": len(self.skipped),
               "seconds": round(self.seconds, 3), "min_n": min_n, "enough": n >= min_n,
               "winner_changed": rate(len(changed), n), "winner_changed_games": [p.game_id for p in changed[:10]],
               "first_player_win_rate": {"a": rate(sum(p.a.winner == 0 for p in pairs), n),
                                         "b": rate(sum(p.b.winner == 0 for p in pairs), n)},
               "game_length_turns": {"a": mean([p.a.turns for p in pairs]), "b": mean([p.b.turns for p in pairs]),
                                     "paired_delta": mean([p.b.turns - p.a.turns for p in pairs])},
               "figures": list(next(iter(per_agent.values()), {}).get("figures", {})),
               "agents": per_agent, "cards_paired_by_seed": rows, "cards_considered": len(cards)}
        own = game_hook("whatif_summary", self.game, None)
        if own is not None:
            out.update(own(list(by_seed.values()), min_n, top))
        return out

    @staticmethod
    def _cards(by_seed: dict[int, list[Pair]]) -> dict[str, Paired]:
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
        return cards

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


# --- choosing and re-running -----------------------------------------------------------------------------------


def ruleset_a_of(game: GameDef, spec: str, store) -> Any:
    """--ruleset-a: a built-in ruleset or a variant file of `game` (its rules value: only the stored games with
    exactly its values), else the name of a variant with stored games of `game` (every game of that name)."""
    from locm.common.rulesets import RulesetChoiceError, game_rules

    path = Path(spec)
    if path.suffix.lower() == ".toml" or "/" in spec or path.exists():
        return game_rules(game, spec)
    try:
        return game_rules(game, spec)
    except LocmError:
        pass
    if not store.games(game=game.name, ruleset=spec, limit=1):
        raise RulesetChoiceError(f"unknown ruleset {spec!r}: expected a built-in ruleset of {game.title} "
                                 f"({', '.join(game.rulesets)}), a ruleset file (.toml) or the name of a variant "
                                 "with stored games")
    return spec


def select(store, game: GameDef, name_a: str, agents: Sequence[str] | None, limit: int | None,
           skipped: list, counted: bool = True) -> list[str]:
    """The stored games of `game` of ruleset `name_a` to re-run, in stored order: every seat a built-in agent
    (of `agents` when given; a game of a command-line bot is added to `skipped`), at most `limit`; only games
    the store may count (`locm.store.provenance`) when ``counted``."""
    wanted = set(agents) if agents else None
    out = []
    for m in store.games(game=game.name, ruleset=name_a, counted=counted):
        if any(a not in game.agent_names for a in m.agents):
            skipped.append((m.game_id, "a command-line bot played: its re-run would not be the same player"))
            continue
        if wanted is not None and not set(m.agents) <= wanted:
            continue
        out.append(m.game_id)
        if limit is not None and len(out) >= limit:
            break
    return out


def whatif(store, game: GameDef, rules_b: Any, rules_a: Any = None, games: int | None = None,
           progress: Callable[[int], None] | None = None, announce: Callable[[int], None] | None = None,
           workers: int = 1, agents: Sequence[str] | None = None, backend: str = "local",
           address: str | None = None, include_untrusted: bool = False) -> Whatif:
    """Re-run the stored games of `game` of ruleset A between built-in agents (of `agents` when given) under
    `rules_b`; each re-run is stored as a game of B (its id is its content's, so a second run finds it and
    reads it back instead of playing it). ``rules_a``: a name (every stored game of it; default B's base, else
    B's name) or a rules value (only the games with exactly its values). ``workers`` > 1 (or ``backend="ray"``
    at ``address``): the re-runs are played by the one pool's workers (`locm.tournament.pool.imap`, the store
    read-only in each), in order: the same result as one."""
    from locm.errors import DuplicateGameError
    from locm.tournament.pool import imap

    t0 = time.perf_counter()
    ident = rules_identity(game, rules_b)
    named = rules_a if isinstance(rules_a, str) else None
    exact = None if rules_a is None or isinstance(rules_a, str) else rules_a
    name_a = named or (game.rules_name(exact) if exact is not None else _base(rules_b, ident))
    result = Whatif(game, name_a, rules_b)
    tasks = select(store, game, name_a, agents, games, result.skipped, counted=not include_untrusted)
    result.selected = len(tasks)
    result.left_out = store.left_out(game=game.name, ruleset=name_a)
    if announce:
        announce(len(tasks))
    path = store.path
    if workers > 1 and len(tasks) > 1 and path != ":memory:" or backend == "ray":
        path = os.path.abspath(path) if backend == "ray" else path
        results = imap(_rerun_task, tasks, workers, init=_init_rerun, init_args=(path, game.name, rules_b, exact),
                       backend=backend, address=address, batch=max(1, min(8, len(tasks) // (4 * max(1, workers)))),
                       label=lambda gid: f"the re-run of {gid}")
    else:
        _RERUN.update(store=store, game=game, rules_b=rules_b, exact=exact)
        results = imap(_rerun_task, tasks)
    try:
        for gid, why, prepared, pair in results:
            if why:
                result.skipped.append((gid, why))
            elif prepared is None:
                result.read_back += 1
            else:
                try:
                    store.append_prepared(prepared)
                    result.played += 1
                except DuplicateGameError:  # the same game of B came from another game of A: stored once
                    result.read_back += 1
            if pair is not None:
                result.pairs.append(pair)
            if progress:
                progress(1)
    finally:
        results.close()  # its workers stop with it, whatever stopped the loop
        own = _RERUN.pop("own", None)
        if own is not None:
            own.close()
        _RERUN.clear()
    result.seconds = time.perf_counter() - t0
    return result


def whatif_store(db: Path, game: GameDef, ruleset: str, ruleset_a: str | None = None,
                 agents: Sequence[str] = (), games: int | None = None, workers: int = 1,
                 progress: Callable[[int], None] | None = None, announce: Callable[[int], None] | None = None,
                 backend: str = "local", address: str | None = None, include_untrusted: bool = False) -> Whatif:
    """`locm whatif`: `whatif` over the store at `db` (its games of A that it may count, or every one with
    ``include_untrusted``), ruleset B ``ruleset`` (a built-in name or a variant file
    of `game`), ruleset A ``ruleset_a`` (`ruleset_a_of`; default B's base), only games of the built-in
    ``agents`` when given; a ruleset A its game's ``rerun_refused`` says no game of can be re-run under B is
    refused at once."""
    from locm.common.rulesets import game_rules
    from locm.errors import UsageProblem
    from locm.store.eventstore import open_store

    for a in agents:
        if a not in game.agent_names:
            raise UsageProblem(f"--agents {a!r}: expected a built-in agent of {game.title} "
                               f"({', '.join(game.agent_names)})")
    rules_b = game_rules(game, ruleset)
    with open_store(db, create=False) as store:
        rules_a = ruleset_a_of(game, ruleset_a, store) if ruleset_a else None
        refuse = game_hook("rerun_refused", game, None)
        why = refuse(rules_a, rules_b) if refuse is not None and not isinstance(rules_a, (str, type(None))) else ""
        if why:
            raise UsageProblem(why)
        return whatif(store, game, rules_b, rules_a, games, progress, announce, workers, agents or None, backend,
                      address, include_untrusted)


def _base(rules: Any, ident: dict) -> str:
    """A ruleset's base (the identity's, else the rules value's ``base``), else its own name."""
    return ident.get("base") or getattr(rules, "base", None) or ident["name"]


_RERUN: dict = {}
"""The store, game, ruleset B and exact ruleset A (or None) of this process's re-runs (`_init_rerun` in a
worker)."""


def _init_rerun(path: str, game_name: str, rules_b: Any, exact: Any) -> None:
    from locm.engine.registry import get
    from locm.store.eventstore import open_store

    store = open_store(path, create=False, readonly=True)
    _RERUN.update(store=store, own=store, game=get(game_name), rules_b=rules_b, exact=exact)


def _probe_id(game: GameDef, events_a: Sequence[Any], rules_b: Any) -> str:
    created = events_a[0]
    return game.game_id(game.new(rules_b, recorded_seed(game, created), game.agents(created)).log[0])


def _play_prepared(events_a: Sequence[Any], rules_b: Any, gid_b: str, game: GameDef) -> tuple[list, Any]:
    """The generic ``rerun_stored``: B's log (`play_again`) and its record prepared for the store."""
    from locm.store.eventstore import GameExtras, prepare_game

    events_b = play_again(game, events_a, rules_b)
    return events_b, prepare_game(game, GameExtras(game_id=gid_b), events_b)


def _rerun_task(game_id: str) -> tuple[str, str, Any, Pair | None]:
    """One stored game re-run under B (or its re-run read back): ``(its id, why it is skipped or "", the re-run
    prepared for the store or None when it is stored already, the Pair)``."""
    store, game, rules_b, exact = _RERUN["store"], _RERUN["game"], _RERUN["rules_b"], _RERUN["exact"]
    try:
        events_a = game.upcast(list(store.verified_events(game_id)))
        created = events_a[0]
        if exact is not None and created.rules != exact:
            return game_id, "its rules differ from --ruleset-a", None, None
        gid_b = game_hook("rerun_id", game, lambda *a: _probe_id(game, *a))(events_a, rules_b)
        prepared = None
        if store.has_game(gid_b):
            events_b = store.verified_events(gid_b)  # a stored game is trusted only if its chain holds
        else:
            events_b, prepared = game_hook("rerun_stored", game, _play_prepared)(events_a, rules_b, gid_b, game)
    except LocmError as exc:
        return game_id, str(exc), None, None
    held = game.holdings(created) if game.holdings is not None else ()
    stats = (tuple(game.seat_stats(events_a)), tuple(game.seat_stats(events_b))) if game.seat_stats else ()
    own = game_hook("whatif_facts", game, None)
    seed = game.index(created).get("seed")
    return game_id, "", prepared, Pair(tuple(game.agents(created)), seed, outcome_of(game, events_a),
                                       outcome_of(game, events_b), tuple(held), stats, game_id,
                                       own(events_a, events_b) if own is not None else None)


__all__ = ["Whatif", "Pair", "whatif", "whatif_store", "select", "ruleset_a_of", "rate", "mean"]
