"""`locm cardvalue --stratify`: two-phase stratified re-runs with Neyman allocation (`analysis.stratified`).

Phase one is the base games on ``--base-seeds M`` seeds, read without re-running: each seed's holders of the
card under A (the units of the value, `locm.games.locm.cardvalue`) and its stratum:

- ``none``: no seat held more copies than its opponent under A (the card was never offered, or not taken, or
  both took as many). Such a seed has no unit: its re-run cannot change the value, and it is never re-run.
- ``undrawn``: a holder, but neither seat drew a copy of the changed card (opening hand included) in the game
  under A. A re-run can differ only through the draft (an agent that reads the card when it drafts takes
  other cards under B); random agents re-play such a game exactly, so these seeds carry little variance.
- ``drawn-won``, ``drawn-lost``, ``drawn-mixed``: a holder drew it; split by how the holders fared under A
  (the base outcome, which the paired difference depends on: stratifying on it is the stratified form of
  the control variate of `analysis.varred`).

Phase two re-runs, per card, as many games as ``--seeds N`` would have (the seeds of the first N whose pool
the change touches, what the paired run plays), or ``budget``: first a pilot (the first seeds in seed order
of each stratum with units), then the rest by Neyman allocation on the pilot's spreads, each stratum's seeds
in seed order. The value is `TwoPhase`'s: unbiased, given the base games, for the paired value that
re-running every one of the M seeds would give (the estimand of `cardvalue --seeds M`: the holders' win rate
with the card as it is minus with the baseline, holder-weighted over seeds). Re-runs are stored as
`cardvalue` stores them, so either reads the other's back.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from locm.analysis.stratified import TwoPhase, allocate, pilot
from locm.engine.locm.rulesets import Rules
from locm.games.locm.cardvalue import (CardValueError, CardValueRun, Row, Target, _count_rerun, _only_cards_differ,
                                       _work_seed, base_games, base_schedule, check_agents)

if TYPE_CHECKING:
    from locm.tournament.backends import Backend


def stratum(units: list[tuple[int, bool]]) -> str:
    """A seed's stratum from its holders under A, each ``(won under A, drew the card)`` (the module note)."""
    if not units:
        return "none"
    if not any(drawn for _, drawn in units):
        return "undrawn"
    wins = sum(w for w, _ in units)
    return "drawn-won" if wins == len(units) else "drawn-lost" if wins == 0 else "drawn-mixed"


def cardvalue_stratified(db: Path, rules_a: Rules, agents: tuple[str, str], targets: list[Target],
                         variants: list[Rules], seeds: int, base_seeds: int, seed: int = 1, workers: int = 1,
                         budget: int | None = None, progress: Callable[[int], None] | None = None,
                         announce: Callable[[int, str], None] | None = None, backend: Backend = "local",
                         address: str | None = None) -> CardValueRun:
    """Base games on ``base_seeds`` seeds (played if missing), then each target valued from stratified
    re-runs (the module note): ``budget`` re-runs a target, or by default as many as ``--seeds seeds``
    plays for its variant."""
    from locm.games.locm.whatif import _results

    t0 = time.perf_counter()
    if base_seeds < seeds:
        raise CardValueError(base_seeds, f"--base-seeds {base_seeds}: expected at least --seeds ({seeds})")
    check_agents(agents, base_seeds)
    run = CardValueRun(rules_a, agents, seeds, seed, variants, [Row(t, two_phase=TwoPhase()) for t in targets],
                       base_seeds=base_seeds)
    run.base_stored, run.base_played = base_games(db, rules_a, agents, base_seeds, seed, workers, progress,
                                                  announce, backend, address)
    groups: dict[int, list[str]] = {}
    for job in base_schedule(rules_a, agents, base_seeds, seed):
        groups.setdefault(job.seed, []).append(job.game_id)
    order = list(groups)
    spec = [(t.only, t.variant) for t in targets]
    identical_ok = tuple(_only_cards_differ(rules_a, v) for v in variants)

    def tasks_for(todo: dict[int, frozenset]) -> tuple[list[int], list]:
        """The seeds in seed order and their tasks (each variant in ``todo[seed]`` re-run, the others read)."""
        chosen = [s for s in order if s in todo]
        return chosen, [(groups[s], spec, identical_ok, todo[s]) for s in chosen]

    # phase one: every base seed's holders and stratum, and which seeds of the first N the paired run re-runs
    held: list[dict[int, list]] = [{} for _ in targets]  # target -> seed -> [(won under A, drawn)]
    paired_reruns = [0] * len(variants)
    at, tasks = tasks_for({s: frozenset() for s in order})
    if announce:
        announce(len(tasks), "base seeds read (strata)")
    results = _results(str(db), None, tuple(variants), tasks, workers, _work_seed, backend, address)
    try:
        for s, done in zip(at, results):
            touched = set()
            for gid, k, status, _, units, error in done:
                if status == "error":
                    run.errors.append((gid, error))
                    continue
                if status == "base" and s < seed + seeds:
                    touched.add(k)
                for t, u in units.items():
                    held[t].setdefault(s, []).extend((x[1], x[4]) for x in u)
            for k in touched:
                paired_reruns[k] += 1
            if progress:
                progress(1)
    finally:
        results.close()
    for t, row in enumerate(run.rows):
        tp = row.two_phase
        for s in order:
            h = stratum(held[t].get(s, []))
            tp.add_seed(h, len(held[t].get(s, [])))
        tp.mark_empty("none")
    members = [{h: [s for s in order if stratum(held[t].get(s, [])) == h] for h in r.two_phase.sizes if h != "none"}
               for t, r in enumerate(run.rows)]
    budgets = [budget if budget is not None else paired_reruns[tg.variant] for tg in targets]

    # phase two: the pilot, then Neyman allocation of the rest
    taken = [{h: 0 for h in m} for m in members]
    first = [pilot({h: len(s) for h, s in m.items()}, budgets[t]) for t, m in enumerate(members)]
    _rerun(run, db, variants, targets, members, taken, first, held, tasks_for, workers, backend, address, progress,
           True, announce)
    final = [allocate({h: len(s) for h, s in members[t].items()}, row.two_phase.spreads(), budgets[t], taken[t])
             for t, row in enumerate(run.rows)]
    _rerun(run, db, variants, targets, members, taken, final, held, tasks_for, workers, backend, address, progress,
           False, announce)
    run.seconds = time.perf_counter() - t0
    return run


def _rerun(run: CardValueRun, db: Path, variants: list[Rules], targets: list[Target], members: list[dict],
           taken: list[dict], want: list[dict], held: list[dict], tasks_for: Callable, workers: int, backend,
           address, progress, is_pilot: bool, announce=None) -> None:
    """Re-run, for each target, the seeds of each stratum from ``taken[t][h]`` up to ``want[t][h]`` (in seed
    order), add them to its `TwoPhase` (and the row's sample figures), and move ``taken`` on."""
    from locm.store.eventstore import open_store
    from locm.games.locm.whatif import _results

    chosen: dict[int, dict[int, str]] = {}  # seed -> target -> stratum
    for t, m in enumerate(members):
        for h, seeds_h in m.items():
            for s in seeds_h[taken[t][h]:want[t].get(h, 0)]:
                chosen.setdefault(s, {})[t] = h
            taken[t][h] = max(taken[t][h], min(len(seeds_h), want[t].get(h, 0)))
    todo = {s: frozenset(targets[t].variant for t in ts) for s, ts in chosen.items()}
    if not todo:
        return
    at, tasks = tasks_for(todo)
    if announce:
        announce(len(tasks), "seeds re-run (pilot)" if is_pilot else "seeds re-run (allocated)")
    with open_store(db) as store:
        results = _results(str(db), None, tuple(variants), tasks, workers, _work_seed, backend, address)
        try:
            for s, done in zip(at, results):
                sums: dict[int, list] = {}
                for gid, k, status, prepared, units, error in done:
                    if status == "error":
                        run.errors.append((gid, error))
                        continue
                    if status.startswith("base"):
                        continue
                    _count_rerun(store, run, status, prepared)
                    for t, u in units.items():
                        if t not in chosen[s]:
                            continue  # re-run for another target of the variant: not in this one's sample
                        row = run.rows[t]
                        for st, wa, wb, by in u:
                            row.strata[st] += 1
                            if st in ("held", "a_only"):
                                sums.setdefault(t, []).append((wa, wb, True, st == "held"))
                                row.copies_ahead += by
                for t, h in chosen[s].items():
                    under_a = sums.get(t, [])
                    if len(under_a) != len(held[t].get(s, [])):
                        raise CardValueError(s, f"seed {s}: {len(under_a)} holders in the re-runs, "
                                                f"{len(held[t].get(s, []))} in the base games")
                    run.rows[t].two_phase.add_rerun(h, sum(wa - wb for wa, wb, _, _ in under_a), len(under_a),
                                                   pilot=is_pilot)
                    run.rows[t].paired.add_cluster(under_a)
                    run.rows[t].kept.add_cluster([x for x in under_a if x[3]])
                if progress:
                    progress(1)
        finally:
            results.close()


__all__ = ["cardvalue_stratified", "stratum"]
