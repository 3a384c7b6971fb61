"""Causal card value (`locm cardvalue`): what a card is worth to the player holding it, measured by playing the
same games with the card replaced by a baseline.

For each card (1.2) or feature bucket (1.2 or constructed), a ruleset B is made from the games' ruleset A
with that card (or every card of the bucket) replaced by a baseline: a *vanilla* creature of the same cost
(`vanilla`), another card's values (1.2, ``card:ID``), or whatever a variant file changes. The base games
(A: ``seeds`` seeds, the agents given, stored as games of A, played only if missing) are re-run under B with
the same seeds, seats and agents, and stored as games of B, as `locm whatif` does; a second run reads them
back (it resumes). The re-runs go through `locm.games.locm.whatif`'s worker pool; each worker reads, checks
and folds a base game once (`verified_game`: kept while its stored log is the same bytes, so `locm tune`'s
next measurement does not read it again), and a re-run of built-in agents from its seed alone is played whole
by the native core (`play_out_under`: the same log, byte for byte, as the Python path's).

The *holder* of a card in a game is the seat whose deck held more copies of it (for a bucket: of its cards)
than the opponent's in the game as played, under A (`locm.games.locm.whatif.advantage`). A game where both decks hold
as many (both one copy, or a bucket both decks fill) has no holder: a change acts on both seats alike there
and cannot tell what the card is worth to one of them (counted as ``tied``).

The card's **value** is the holders' win rate as the card is (A) minus their win rate with the baseline in
its place (B), on the same seeds: paired, with a 95% interval clustered by seed (`analysis.paired`).
Positive: the card is worth more to its holder than its baseline. Cards are ranked by it. The agents draft
and build again under B, so the value includes how they adapt: in 1.2 both players see the same three cards
each round, and a card made stronger is often taken by the opponent too, which takes the holder's edge away.
A simulator plays both games, so where the card went under B is known (`strata`): the holders that still held
more copies under B (``kept_edge``, with their own value in the JSON: the card's worth where the change did
not move it), those that did not (``lost_edge``), and the seats that held more only under B (``new_edge``)
are counted.
A game where no card changed by B is in the pool (1.2: the card was never offered) plays the same under A and
B, has no holder, and is not played again (``identical``).

Vanilla (`vanilla_card`): a creature of the same cost with attack = defense = cost + 1 and no keyword, no
health or draw effect, no Area. That is what the 1.5 generator gives a card of that cost with no property at
its mean bonus (``bonusAttackDistribution`` and ``bonusDefenseDistribution`` have mean 1), and about what the
1.2 list's vanilla creatures have (2 * cost + 2 stat points: 4, 6, 8, 10, 12 for costs 1-5 against the
list's 4, 6, 7, 9.6 and 11 on average). Measuring every card against the same curve puts their values on one
scale.

The targets and their baselines are in `locm.games.locm.cardvalue_targets` (re-exported here). Why one module
of about 450 lines: the paired re-runs, the strata and the control variate are one measurement, and its figures
are only honest together (who holds a card under A decides which games count under B).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from locm.analysis.locm.cardfacts import card_features
from locm.analysis.paired import STAR, Paired, mark_discoveries, pts
from locm.analysis.stratified import TwoPhase
from locm.analysis.varred import ControlVariate
from locm.engine.errors import LocmError
from locm.engine.locm.rulesets import DRAFT, Rules
from locm.events.locm.cards import Card
from locm.games.locm.cardvalue_targets import (CardValueError, Target, _only_cards_differ, bucket_match,  # noqa: F401
                                               make_targets, variant_targets, vanilla_card)

if TYPE_CHECKING:
    from locm.tournament.backends import Backend


# --- the re-runs (in `locm.games.locm.whatif`'s workers) -------------------------------------------------------------------


def _pool_under(rules: Rules, created) -> dict[int, Card]:
    from locm.engine.locm import setup
    from locm.games.locm.rerun import rerun_params

    seed, params = rerun_params(created, rules)
    events = setup.create(rules, seed, params, tuple(created.agents))
    return {c.base_id: c for c in events[1].cards}


def _work_seed(task: tuple[list[str], list[tuple[frozenset | None, int]], tuple[bool, ...], bool]) -> list[tuple]:
    """One seed's base games under every variant: per game and variant ``(gid, variant, status, prepared B or
    None, {target: units}, error)``; status ``played``, ``stored`` (read back) or ``identical``; a seed that is
    not re-run (``rerun`` False: a base seed beyond ``--seeds``) gives ``base`` and its holders under A, each
    ``("base", won under A, 0, copies ahead)``."""
    from locm.games.locm.whatif import _STATE, rerun_under, verified_game

    gids, target_rows, identical_ok, rerun = task  # rerun: a bool, or the variants re-run (the others: "base")
    store, variants = _STATE["store"], _STATE["variants"]
    out = []
    for gid in gids:
        try:
            created, ga = verified_game(store, gid)  # read, checked and folded once per process
        except LocmError as exc:
            out.append((gid, -1, "error", None, {}, str(exc)))
            continue
        pool_a, decks_a, win_a = ga.defs, ga.decks, ga.winner
        for k, rules_b in enumerate(variants):
            try:
                pool_b = _pool_under(rules_b, created)
                changed = {b for b, c in pool_a.items() if pool_b.get(b) != c}
                if not (rerun if isinstance(rerun, bool) else k in rerun):
                    status = "base" if changed or not identical_ok[k] else "base-identical"
                    out.append((gid, k, status, None, _base_units(ga, changed, target_rows, k), ""))
                    continue
                if not changed and identical_ok[k]:
                    out.append((gid, k, "identical", None, {}, ""))
                    continue
                decks_b, win_b, prepared = rerun_under(store, created, rules_b)
                units = {}
                for t, (only, variant) in enumerate(target_rows):
                    if variant != k:
                        continue
                    about = changed if only is None else changed & only
                    units[t] = strata(decks_a, decks_b, about, win_a, win_b)
                out.append((gid, k, "stored" if prepared is None else "played", prepared, units, ""))
            except LocmError as exc:
                out.append((gid, k, "error", None, {}, str(exc)))
    return out


def _base_units(ga, changed: set, target_rows: list, k: int) -> dict[int, list[tuple]]:
    """A base game's holders under A of each target of variant `k` (the game is not re-run), each ``("base",
    won under A, 0, copies ahead, whether either seat drew one of the changed cards)``."""
    from locm.games.locm.whatif import advantage

    units = {}
    for t, (only, variant) in enumerate(target_rows):
        about = changed if only is None else changed & only
        adv = advantage(ga.decks, about) if variant == k else None
        if adv is not None:
            drawn = any(f.card in about and f.drawn + f.opening > 0 for f in ga.cards)
            units[t] = [("base", int(ga.winner == adv[0]), 0, adv[1], drawn)]
    return units


def strata(decks_a: tuple, decks_b: tuple, about: set, win_a: int, win_b: int) -> list[tuple]:
    """One game's holders of the cards `about`, each ``(stratum, won under A, won under B, copies ahead)``:
    ``held`` (the same seat held more copies under A and under B), ``a_only`` (it held more under A, not
    under B), ``b_only`` (held more under B only); ``tie`` (the cards were in a deck, no seat held more in
    either game; the outcomes are not used)."""
    from locm.games.locm.whatif import advantage

    adv_a, adv_b = advantage(decks_a, about), advantage(decks_b, about)
    if adv_a is not None and adv_b is not None and adv_a[0] == adv_b[0]:
        p = adv_a[0]
        return [("held", int(win_a == p), int(win_b == p), adv_a[1])]
    out = []
    if adv_a is not None:
        out.append(("a_only", int(win_a == adv_a[0]), int(win_b == adv_a[0]), adv_a[1]))
    if adv_b is not None:
        out.append(("b_only", int(win_a == adv_b[0]), int(win_b == adv_b[0]), adv_b[1]))
    if not out and about & (set(decks_a[0]) | set(decks_a[1]) | set(decks_b[0]) | set(decks_b[1])):
        out.append(("tie", 0, 0, 0))
    return out


# --- the whole measurement ---------------------------------------------------------------------------------


QUESTION = ("what the card causes for its holder: the same seeds, seats and agents played again with only this card "
            "replaced by its baseline; value = the holders' win rate with the card as it is minus with the "
            "baseline (A - B: with --baseline V.toml, the opposite sign of locm whatif's B - A for the same "
            "change). locm whatif's row of a card answers another question: the change in its holders' win "
            "rate when the whole ruleset changes, its other cards and rules and the agents' new decisions "
            "included")
"""What `locm cardvalue` answers, said in its text and JSON."""


@dataclass
class Row:
    target: Target
    paired: Paired = field(default_factory=Paired)
    kept: Paired = field(default_factory=Paired)  # the holders that still held more copies under B
    strata: Counter = field(default_factory=Counter)
    copies_ahead: int = 0  # the holders' copies more than their opponents', summed
    cv: ControlVariate = field(default_factory=ControlVariate)  # the same units, and the base-only seeds' holders
    two_phase: TwoPhase | None = None  # --stratify: the value is its estimate (`cardvalue_strat`)

    def as_dict(self, adjusted: bool = False) -> dict:
        """The row for JSON; ``adjusted``: its value and interval are the control-variate ones
        (`analysis.varred`, the base games on more seeds than are re-run), the paired ones kept beside."""
        d = self.paired.as_dict(sign=-1)  # A - B: the card's value over its baseline
        value = {"value": d.pop("delta"), "low": d.pop("low"), "high": d.pop("high")}
        if adjusted:
            c = self.cv.as_dict()
            value["paired"] = {**value, "excludes_zero": d["excludes_zero"]}
            if c["value"] is not None:
                value.update(value=c["value"], low=c["low"], high=c["high"])
                d["excludes_zero"] = c["excludes_zero"]
            value["control_variate"] = {k: c[k] for k in ("theta", "variance_ratio", "base_units", "base_clusters")}
        if self.two_phase is not None:  # the paired figures below are of the re-run sample, unweighted
            t = self.two_phase.as_dict()
            value = {"value": t.pop("value"), "low": t.pop("low"), "high": t.pop("high"),
                     "sample_paired": {**value, "excludes_zero": d["excludes_zero"]}, "stratified": t}
            d["excludes_zero"] = t["excludes_zero"]
        k = self.kept.as_dict(sign=-1)
        return {"card": self.target.label, "baseline": self.target.baseline, **value, **d,
                "kept_edge": self.strata["held"], "lost_edge": self.strata["a_only"], "new_edge": self.strata["b_only"],
                "tied_games": self.strata["tie"],
                "mean_copies_ahead": round(self.copies_ahead / self.paired.units, 3) if self.paired.units else None,
                "value_holders_who_kept_it": {key: k[key] for key in ("delta", "low", "high", "units", "clusters")}}


@dataclass
class CardValueRun:
    rules_a: Rules
    agents: tuple[str, str]
    seeds: int
    first_seed: int
    variants: list[Rules]
    rows: list[Row]
    base_played: int = 0
    base_stored: int = 0
    played: int = 0
    reused: int = 0
    identical: int = 0
    errors: list = field(default_factory=list)
    seconds: float = 0.0
    base_seeds: int = 0  # the seeds of base games (at least `seeds`; more: the control variate)

    @property
    def stratified(self) -> bool:
        return any(r.two_phase is not None for r in self.rows)

    @property
    def adjusted(self) -> bool:
        return self.base_seeds > self.seeds and not self.stratified

    def ranked(self) -> list[dict]:
        out = [{**r.as_dict(self.adjusted), "rerun_under": self.variants[r.target.variant].name} for r in self.rows]
        out.sort(key=lambda r: (r["value"] is None, -(r["value"] or 0), r["card"]))
        mark_discoveries(out)  # q over the cards valued together: a star is a discovery among them
        for i, r in enumerate(out, 1):
            r["rank"] = i
        return out

    def summary(self) -> dict:
        return {"ruleset": self.rules_a.name, "agents": list(self.agents), "seeds": self.seeds,
                "base_seeds": max(self.base_seeds, self.seeds), "first_seed": self.first_seed, "base_games": self.base_stored + self.base_played,
                "base_games_played_now": self.base_played, "reruns_played_now": self.played,
                "reruns_read_back": self.reused, "reruns_identical_not_played": self.identical,
                "errors": len(self.errors), "seconds": round(self.seconds, 3), "question": QUESTION,
                "design": "stratified" if self.stratified else "control variate" if self.adjusted else "paired",
                "cards": self.ranked(),
                "definition": "value = holders' win rate with the card as it is minus with the baseline in its "
                              "place, same seeds, seats and agents; 95% interval clustered by seed"}


def base_tournament(agents: tuple[str, str], seeds: int) -> tuple[list[str], int]:
    """The tournament that plays the base games (agents, games): an agent against itself plays each seed
    once (``locm tournament --agents A A --games SEEDS``); two agents play each seed in both seatings."""
    if agents[0] == agents[1]:
        return [agents[0], agents[0]], seeds
    return list(agents), 2 * seeds


def base_schedule(rules_a: Rules, agents: tuple[str, str], seeds: int, seed: int):
    """The base games, as the tournament schedules them (so a tournament's stored games are reused)."""
    from locm.games.locm.tournament import schedule

    return schedule(rules_a, *base_tournament(agents, seeds), seed)


def check_agents(agents: Sequence[str], seeds: int) -> None:
    """Refuse agents a re-run cannot use (`CardValueError`), and an odd number of seeds for self-play."""
    from locm.games.locm.bots import is_builtin
    from locm.engine.locm.agents import AGENT_NAMES

    for a in agents:
        if not is_builtin(a):
            raise CardValueError(a, f"agent {a!r}: expected a built-in agent ({', '.join(AGENT_NAMES)}): a re-run "
                                    "decides again, so the agents must be deterministic given their seed")
    if agents[0] == agents[1] and seeds % 2:
        raise CardValueError(seeds, f"--seeds {seeds}: expected an even number for an agent against itself (the "
                                    "tournament schedules its self-play seeds in two halves)")


def base_games(db: Path, rules_a: Rules, agents: tuple[str, str], seeds: int, seed: int = 1, workers: int = 1,
               progress: Callable[[int], None] | None = None,
               announce: Callable[[int, str], None] | None = None, backend: Backend = "local",
               address: str | None = None) -> tuple[int, int]:
    """Play (as `locm tournament` does, on ``backend``) the base games the store lacks: ``(already stored, played
    now)``."""
    from locm.store.eventstore import open_store
    from locm.games.locm.tournament import run_tournament, schedule
    from locm.tournament.run import record_schedule, to_play

    check_agents(agents, seeds)
    jobs = base_schedule(rules_a, agents, seeds, seed)
    with open_store(db) as store:
        _, missing = to_play(store, jobs)
        if not missing:
            return len(jobs), 0
        if announce:
            announce(missing, "base games")
        names, games = base_tournament(agents, seeds)
        if backend == "ray":
            from locm.tournament.ray_backend import play_jobs_ray

            full = schedule(rules_a, names, games, seed)
            record_schedule(store, full)
            todo, count = to_play(store, full)
            tr = play_jobs_ray(store, todo, address=address, progress=progress, scheduled=len(full), count=count)
        else:
            tr = run_tournament(store, rules_a, names, games, workers=workers, seed=seed, progress=progress)
    if tr.failed:
        raise CardValueError(tr.failed[0][0], f"base game {tr.failed[0][0]} failed: {tr.failed[0][1]}")
    return len(jobs) - missing, tr.played


def _count_rerun(store, run: CardValueRun, status: str, prepared) -> None:
    """A re-run's outcome into the store and the run's counts: a new game stored (played), one the store held
    already or a worker found stored (reused), or one identical to its base game (identical)."""
    from locm.store.eventstore import DuplicateGameError

    if prepared is not None:
        try:
            store.append_prepared(prepared)
            run.played += 1
        except DuplicateGameError:
            run.reused += 1
    elif status == "stored":
        run.reused += 1
    else:
        run.identical += 1


def cardvalue(db: Path, rules_a: Rules, agents: tuple[str, str], targets: list[Target], variants: list[Rules],
              seeds: int, seed: int = 1, workers: int = 1, progress: Callable[[int], None] | None = None,
              announce: Callable[[int, str], None] | None = None, backend: Backend = "local",
              address: str | None = None, base_seeds: int | None = None) -> CardValueRun:
    """Play the base games the store lacks (`base_games`), re-run each under every variant (or read the
    re-runs back), and measure each target's value (see the module note). `announce(n, what)` is told the
    number of games ahead (the base games to play, then the re-runs), `progress(k)` as they are done.
    ``base_seeds`` (more than ``seeds``): base games on that many seeds, of which the first ``seeds`` are
    re-run; every value is then the control-variate one (`analysis.varred`: the holders' base outcome over
    all base seeds), the paired one kept beside it."""
    from locm.store.eventstore import open_store
    from locm.games.locm.whatif import _results

    t0 = time.perf_counter()
    base_seeds = max(base_seeds or seeds, seeds)
    if base_seeds > seeds:
        check_agents(agents, base_seeds)
    run = CardValueRun(rules_a, agents, seeds, seed, variants, [Row(t) for t in targets], base_seeds=base_seeds)
    jobs = base_schedule(rules_a, agents, base_seeds, seed)
    run.base_stored, run.base_played = base_games(db, rules_a, agents, base_seeds, seed, workers, progress,
                                                  announce, backend, address)
    if announce:
        announce(len(jobs) * len(variants), "re-runs" if base_seeds == seeds else "re-runs and base-only seeds")
    with open_store(db) as store:
        groups: dict = {}
        for job in jobs:
            groups.setdefault(job.seed, []).append(job.game_id)
        identical_ok = tuple(_only_cards_differ(rules_a, v) for v in variants)
        rows = [(t.only, t.variant) for t in targets]
        tasks = [(gids, rows, identical_ok, s < seed + seeds) for s, gids in groups.items()]
        results = _results(str(db), None, tuple(variants), tasks, workers, _work_seed, backend, address)
        try:
            for done in results:
                cluster: dict = {}
                base_only: dict = {}
                for gid, k, status, prepared, units, error in done:
                    if status == "error":
                        run.errors.append((gid, error))
                        continue
                    if status.startswith("base"):
                        for t, u in units.items():
                            base_only.setdefault(t, []).extend(x[1] for x in u)
                        continue
                    _count_rerun(store, run, status, prepared)
                    for t, u in units.items():
                        row = run.rows[t]
                        for stratum, wa, wb, by in u:
                            row.strata[stratum] += 1
                            if stratum in ("held", "a_only"):
                                cluster.setdefault(t, ([], []))[0].append((wa, wb, True, stratum == "held"))
                                row.copies_ahead += by
                            if stratum == "held":
                                cluster.setdefault(t, ([], []))[1].append((wa, wb, True, True))
                for t, (under_a, kept) in cluster.items():
                    run.rows[t].paired.add_cluster(under_a)
                    run.rows[t].kept.add_cluster(kept)
                    run.rows[t].cv.add_cluster((wa, wb) for wa, wb, _, _ in under_a)
                for t, outcomes in base_only.items():
                    run.rows[t].cv.add_base_cluster(outcomes)
                if progress:
                    progress(len(done))
        finally:
            results.close()  # its workers stop with it, whatever stopped the loop
    run.seconds = time.perf_counter() - t0
    return run


def most_held(db: Path, rules_a: Rules, agents: tuple[str, str], seeds: int, seed: int, n: int) -> list[str]:
    """The `n` cards (1.2) or buckets (constructed: of the families `bucket_match` takes) with a holder in most
    of the stored base games: a seat whose deck held more copies than its opponent's (`advantage`), the units
    a card's value is measured on. A card both decks hold alike has no holder there, however often it is held."""
    from locm.analysis.locm.cardfacts import project
    from locm.games.locm.whatif import advantage
    from locm.store.eventstore import open_store

    counts: Counter = Counter()
    draft = rules_a.deck_building == DRAFT
    with open_store(db, create=False, readonly=True) as store:
        for job in base_schedule(rules_a, agents, seeds, seed):
            if not store.has_game(job.game_id):
                continue
            g = project(store.events(job.game_id))
            pool, both = g.defs, g.decks
            held: dict[str, set] = {}
            for b in set(both[0]) | set(both[1]):
                keys = [str(b)] if draft else [f for f in card_features(pool[b])
                                               if f.split(":")[0] in ("type", "cost", "keyword", "area", "draw")]
                for key in keys:
                    held.setdefault(key, set()).add(b)
            counts.update(key for key, ids in held.items() if advantage(both, ids) is not None)
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


# --- text --------------------------------------------------------------------------------------------------



def cardvalue_lines(s: dict) -> list[str]:
    from locm.common.tables import table

    agents = " vs ".join(s["agents"]) if s["agents"][0] != s["agents"][1] else f"{s['agents'][0]} self-play"
    strat = s.get("design") == "stratified"
    out = [f"question: {s['question']}",
           f"card value under {s['ruleset']}: {s['base_games']} base games ({agents}, seeds {s['first_seed']}.."
           f"{s['first_seed'] + s.get('base_seeds', s['seeds']) - 1}); re-runs ({'chosen among the base seeds' if strat else 'seeds '}"
           f"{'' if strat else str(s['first_seed']) + '..' + str(s['first_seed'] + s['seeds'] - 1)}): {s['reruns_played_now']} played now, "
           f"{s['reruns_read_back']} read back, {s['reruns_identical_not_played']} identical (no changed card "
           f"in the pool) in {s['seconds']:.1f} s",
           "value = the holders' win rate with the card as it is minus with the baseline in its place, on the same "
           "seeds, seats and agents (the holder: the seat whose deck held more copies than its opponent's, as "
           "played; under B it may have kept that edge, lost it, or another seat gained one: kept/lost/new); "
           f"95% interval clustered by seed; q: Benjamini-Hochberg over the {len(s['cards'])} cards valued "
           f"({STAR})"]
    if s.get("design") == "stratified":
        out.append(f"stratified (--stratify): base games on {s['base_seeds']} seeds; each card re-run on as many "
                   f"seeds as --seeds {s['seeds']} re-runs, chosen by stratum (no holder: never; the card not "
                   "drawn; drawn, by the holders' base outcome) with Neyman allocation after a pilot; the value "
                   "estimates the paired value over every base seed; 'holders' counts the re-run ones")
    elif s.get("base_seeds", s["seeds"]) > s["seeds"]:
        out.append(f"control variate: base games on {s['base_seeds']} seeds, the first {s['seeds']} re-run; each "
                   "value is the paired one corrected by the holders' base win rate over every base seed "
                   "(analysis.varred); 'paired' is the value without it, 'var.' the variance of the value over "
                   "the paired one's (below 1: narrower)")
    out.append("")
    adjusted = s.get("design", "control variate") == "control variate" and s.get("base_seeds", s["seeds"]) > s["seeds"]
    rows, unheld = [], [r["card"] for r in s["cards"] if not r["units"]]
    for r in s["cards"]:
        if not r["units"]:
            continue
        v = "n/a" if r["value"] is None else f"{pts(r['value'])} pts" + (" *" if r["significant"] else "")
        ci = "n/a" if r["low"] is None else f"[{pts(r['low'])}, {pts(r['high'])}]"
        wa, wb = r["win_rate_a"], r["win_rate_b"]
        extra = ()
        if adjusted:
            ratio = r["control_variate"]["variance_ratio"]
            extra = ("n/a" if r["paired"]["value"] is None else f"{pts(r['paired']['value'])} pts",
                     "n/a" if ratio is None else f"{ratio:.2f}")
        rows.append((r["rank"], r["card"], r["baseline"], v, ci, "n/a" if r["q"] is None else f"{r['q']:.3f}",
                     *extra, r["units"], r["clusters"],
                     "n/a" if wa["rate"] is None else f"{100 * wa['rate']:.1f}%",
                     "n/a" if wb["rate"] is None else f"{100 * wb['rate']:.1f}%",
                     f"+{r['gained']}/-{r['lost']}", f"{r['kept_edge']}/{r['lost_edge']}/{r['new_edge']}",
                     r["tied_games"]))
    out.append(table(("rank", "card", "baseline", "value", "95% interval", "q", *(("paired", "var.") if adjusted else ()),
                      "holders", "seeds", "WR as is",
                      "WR baseline", "outcomes B vs A", "edge kept/lost/new", "tied"), rows))
    if unheld:
        out.append(f"not valued, no holder (no seat held more copies than its opponent in any base game): "
                   f"{', '.join(unheld)}")
    if s["errors"]:
        out.append(f"{s['errors']} re-runs failed (see --json)")
    return out


__all__ = ["cardvalue", "cardvalue_lines", "make_targets", "variant_targets", "vanilla_card", "bucket_match",
           "most_held", "CardValueError", "Target", "CardValueRun", "base_schedule", "base_games", "check_agents"]
