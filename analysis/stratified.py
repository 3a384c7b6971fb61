"""Two-phase stratified re-runs with Neyman allocation: where a paired comparison spends its re-runs. Pure:
numbers in, numbers out; it names no game.

A paired comparison (`analysis.paired`) re-runs seeds under B and averages ``d = y_a - y_b`` over the units
(the seats the change concerns) of the re-run seeds; a seed's units and its base outcomes ``y_a`` are known
from its game under A alone. Phase one is the base games on ``M`` seeds (cheap: shared by every card or
variant compared against them): it puts each seed in a stratum ``h`` and counts its units ``u_i``. Phase two
re-runs ``m_h`` of the ``M_h`` seeds of each stratum (a seed is in the sample or not before its re-run is
seen) and gets their sums ``D_i`` of d. A stratum whose seeds have no unit needs no re-run at all (``D_i = 0``:
the re-run cannot change the estimate), and a stratum whose differences barely vary needs few. Neyman
allocation (Neyman 1934; Cochran, *Sampling Techniques*, 3rd ed., chapter 5 "optimum allocation" and chapter 12 "double sampling for
stratification") puts the re-runs where the variance is, ``m_h`` proportional to ``M_h S_h``; ``S_h`` (the
spread of the linearised ``D_i - v u_i`` in the stratum) comes from a pilot, the first re-runs of each
stratum (`pilot`).

The allocation after the pilot depends on the pilot's outcomes, so the pilot is not pooled into a stratum's
sample mean (that is biased: a pilot whose differences happened to be 0 keeps its stratum small and its zeros
weigh more; on synthetic strata like the test's, 1,200 seeds and 120 re-runs, such intervals covered 70%
instead of 95%). Instead the pilot's
``p_h`` seeds are known exactly and the other ``R_h = M_h - p_h`` seeds of the stratum are estimated from the
``m_h`` re-run after it (the next ones in seed order: a random sample of them, whatever the pilot showed):

    v = sum_h [sum_{i in pilot_h} D_i + (R_h / m_h) sum_{i in after_h} D_i] / U,   U = sum over all M seeds of u_i.

Given phase one and the pilot, it is unbiased for the paired value a re-run of every one of the M seeds would
give (its numerator is unbiased for that total, its denominator is that total), whatever the allocation; so
it is unbiased for that value given phase one alone, and for the estimand of the paired run (the holders'
mean of d, holder-weighted over seeds) up to the ratio's usual O(1/M) term. Its variance (linearised,
``r_i = D_i - v u_i``) has a term for each phase:

    var = [sum_h R_h^2 (1 - m_h / R_h) s_h^2 / m_h  +  sum_h (sum_{pilot_h} r_i^2 + (R_h / m_h) sum_{after_h} r_i^2)] / U^2,

the first the sampling of the strata after their pilots (``s_h^2``: the sample variance of r among the
re-runs after the pilot; two of them at least), the second that of the M seeds themselves (the
cluster-robust variance of the full paired estimate, estimated from the re-runs). With every seed of every
stratum re-run the first is 0 and the second is the paired estimator's clustered variance (a seed is a
cluster: its games, both seats): the test of this module's agreement. As `analysis.paired` does (Agresti and
Min's half units), the seed term counts two pseudo-seeds of one unit with d = +1 and -1 (and U + 2 units), so
that re-runs that changed no outcome give an interval around 0 rather than [0, 0]; the estimate is unchanged. `allocate` keeps a compromise floor
(a compromise allocation: a tenth of the proportional share, two re-runs at least) so that a pilot of small spread by
chance does not leave its stratum almost unsampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable

from locm.analysis.stats import Z95


def neyman(sizes: dict[Hashable, int], spreads: dict[Hashable, float], budget: int,
           floor: dict[Hashable, int] | None = None) -> dict[Hashable, int]:
    """Re-runs per stratum: ``m_h`` proportional to ``M_h S_h`` (Neyman), at least ``floor[h]`` (the pilot
    already run), at most ``M_h``, summing to at most ``budget`` (fewer only if every stratum is exhausted).
    A budget below the floors' sum gives the floors. Strata of spread 0 get their floor until the others are
    full, then the rest in proportion to their sizes."""
    floor = {h: min(floor.get(h, 0) if floor else 0, n) for h, n in sizes.items()}
    m = dict(floor)
    left = budget - sum(m.values())
    while left > 0:
        open_ = [h for h in sizes if m[h] < sizes[h]]
        if not open_:
            break
        weight = {h: sizes[h] * spreads.get(h, 0.0) for h in open_}
        if sum(weight.values()) <= 0:
            weight = {h: float(sizes[h] - m[h]) for h in open_}
        total = sum(weight.values())
        # the Neyman share of the whole budget, less what the stratum already has; the remainder to the largest
        target = {h: budget * weight[h] / total for h in open_}
        add = {h: max(0, min(sizes[h] - m[h], math.floor(target[h]) - m[h])) for h in open_}
        if sum(add.values()) == 0:  # the shares are below what the strata hold: one more to the most wanted
            h = max(open_, key=lambda k: (target[k] - m[k], str(k)))
            add = {h: 1}
        if sum(add.values()) > left:  # never past the budget: in order of need
            keep, room = {}, left
            for h in sorted(add, key=lambda k: (-(target[k] - m[k]), str(k))):
                keep[h] = min(add[h], room)
                room -= keep[h]
            add = keep
        for h, a in add.items():
            m[h] += a
        left -= sum(add.values())
    return m


def pilot(sizes: dict[Hashable, int], budget: int, share: int = 4, minimum: int = 5) -> dict[Hashable, int]:
    """The pilot's re-runs per stratum: ``1 / share`` of the budget split evenly over the strata, at least
    ``minimum`` each, at most the stratum's seeds."""
    each = max(minimum, budget // (share * max(1, len(sizes))))
    return {h: min(n, each) for h, n in sizes.items()}


COMPROMISE = 0.1  # after the pilot, every stratum gets at least this share of its proportional re-runs


def allocate(sizes: dict[Hashable, int], spreads: dict[Hashable, float], budget: int,
             first: dict[Hashable, int]) -> dict[Hashable, int]:
    """The re-runs per stratum after a pilot of ``first[h]``: Neyman (`neyman`) with a compromise floor, at
    least two re-runs after the pilot (what its variance needs) and ``COMPROMISE`` of the stratum's
    proportional share, so that a pilot whose outcomes happened not to vary does not leave its stratum to
    its pilot alone."""
    total = sum(sizes.values()) or 1
    floor = {h: first.get(h, 0) + min(n - first.get(h, 0), max(2, math.ceil(COMPROMISE * budget * n / total)))
             for h, n in sizes.items()}
    return neyman(sizes, spreads, budget, floor=floor)


@dataclass
class TwoPhase:
    """One comparison's strata: phase one's seeds (`add_seed`: stratum and units), phase two's re-runs
    (`add_rerun`: the seed's sum of d, from the pilot or after it). Strata with no unit are counted, never
    sampled (`mark_empty`)."""

    sizes: dict = field(default_factory=dict)  # stratum -> M_h (seeds)
    units: int = 0  # U: the units over all phase-one seeds
    pilot: dict = field(default_factory=dict)  # stratum -> [(D_i, u_i)] of the pilot's re-runs
    extra: dict = field(default_factory=dict)  # stratum -> [(D_i, u_i)] of the re-runs allocated after it
    empty: set = field(default_factory=set)  # strata whose seeds have no unit: D_i = 0, never re-run

    def add_seed(self, stratum: Hashable, units: int) -> None:
        self.sizes[stratum] = self.sizes.get(stratum, 0) + 1
        self.units += units

    def mark_empty(self, stratum: Hashable) -> None:
        self.empty.add(stratum)

    def add_rerun(self, stratum: Hashable, d: float, units: int, pilot: bool = False) -> None:
        (self.pilot if pilot else self.extra).setdefault(stratum, []).append((float(d), int(units)))

    def reruns(self, stratum: Hashable) -> int:
        return len(self.pilot.get(stratum, ())) + len(self.extra.get(stratum, ()))

    def spreads(self) -> dict:
        """Each re-run stratum's standard deviation of ``D_i - v u_i`` over its re-runs so far, ``v`` their
        ratio (what the allocation after the pilot reads)."""
        rows = {h: self.pilot.get(h, []) + self.extra.get(h, []) for h in set(self.pilot) | set(self.extra)}
        d = sum(x for r in rows.values() for x, _ in r)
        u = sum(n for r in rows.values() for _, n in r)
        v = d / u if u else 0.0
        return {h: statistics_sd([x - v * n for x, n in r]) for h, r in rows.items()}

    def _totals(self) -> dict | None:
        """Per stratum with units: (pilot rows, extra rows, seeds not in the pilot); None when one with seeds
        left after its pilot has no re-run after it (its total unknown)."""
        out = {}
        for h, big in self.sizes.items():
            if h in self.empty:
                continue
            p, e = self.pilot.get(h, []), self.extra.get(h, [])
            rest = big - len(p)
            if rest > 0 and not e:
                return None
            out[h] = (p, e, rest)
        return out

    def value(self) -> float | None:
        parts = self._totals()
        if not self.units or parts is None:
            return None
        total = 0.0
        for p, e, rest in parts.values():
            total += sum(d for d, _ in p) + (rest / len(e) * sum(d for d, _ in e) if rest else 0.0)
        return total / self.units

    def estimate(self) -> dict | None:
        """``{"value", "low", "high", "se", "se_strata", "se_seeds"}``, or None without units; all None when
        a stratum's total is unknown. The interval needs two re-runs after the pilot in each stratum it did not
        exhaust (else ``low``/``high`` None)."""
        keys = ("value", "low", "high", "se", "se_strata", "se_seeds")
        if not self.units:
            return None
        v = self.value()
        if v is None:
            return dict.fromkeys(keys)
        var_strata = var_seeds = 0.0
        ok = True
        for p, e, rest in self._totals().values():
            rp = [d - v * u for d, u in p]
            re_ = [d - v * u for d, u in e]
            var_seeds += sum(x * x for x in rp) + (rest / len(re_) * sum(x * x for x in re_) if rest else 0.0)
            if rest > len(re_):  # sampled, not exhausted: its spread is needed
                if len(re_) < 2:
                    ok = False
                    continue
                var_strata += rest * rest * (1 - len(re_) / rest) * statistics_sd(re_) ** 2 / len(re_)
        # two pseudo-seeds of one unit, d = +1 and -1 (as `analysis.paired` adds Agresti-Min's half units), so
        # that a card whose re-runs changed no outcome gets an honest interval around 0, not [0, 0]
        var_seeds += (1 - v) ** 2 + (1 + v) ** 2
        u2 = (self.units + 2) ** 2
        if not ok:
            return {**dict.fromkeys(keys), "value": v}
        se = math.sqrt((var_strata + var_seeds) / u2)
        return {"value": v, "low": v - Z95 * se, "high": v + Z95 * se, "se": se,
                "se_strata": math.sqrt(var_strata / u2), "se_seeds": math.sqrt(var_seeds / u2)}

    def as_dict(self) -> dict:
        est = self.estimate() or dict.fromkeys(("value", "low", "high", "se", "se_strata", "se_seeds"))
        out = {k: None if x is None else round(x, 5) for k, x in est.items()}
        out["excludes_zero"] = out["low"] is not None and (out["low"] > 0 or out["high"] < 0)
        out["strata"] = {str(h): {"seeds": n, "rerun": self.reruns(h), "pilot": len(self.pilot.get(h, ()))}
                         for h, n in sorted(self.sizes.items(), key=lambda kv: str(kv[0]))}
        out["units"] = self.units
        out["reruns"] = sum(self.reruns(h) for h in self.sizes)
        return out


def statistics_sd(xs: list[float]) -> float:
    """The sample standard deviation (0 below 2 values)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mean = sum(xs) / n
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))


__all__ = ["TwoPhase", "allocate", "neyman", "pilot"]
