"""Paired comparisons: the same games played under two rulesets A and B (the same seeds, seats and agents),
and the change in win rate of the players a change concerns. Pure: numbers in, numbers out.

A *unit* is one seat of one game that the change concerns (it held the changed card under A or under B). It
has two outcomes, ``win_a`` and ``win_b`` (0 or 1), and its difference ``d = win_b - win_a`` (-1, 0 or 1).
The estimate is the mean of ``d`` over the units: the change in the units' win rate from A to B.

Units are not independent: both seats of one game are units when both held the card (their differences are
opposite), and the two seatings of one seed share their draft or card pool. So units are grouped in
*clusters* (one seed), and the interval is the cluster-robust one for a mean (the ratio of the clusters'
sums ``D_c`` of ``d`` to their counts ``n_c``):

    se^2 = G / (G - 1) * sum_c (D_c - delta * n_c)^2 / N^2,   delta +- 1.96 se,

with ``G`` clusters holding units and ``N`` units in all. The sums are kept as they come (``sum D_c^2``,
``sum D_c n_c``, ``sum n_c^2``), so memory does not grow with the number of games. Below 2 clusters there is
no interval.

Few changed outcomes make that interval too narrow (none at all: [0, 0], as if a change that altered no
outcome on these seeds could alter none on any seed). So the interval is computed as Agresti and Min (2005)
adjust the interval of a difference of paired proportions, adding half a unit to each kind of changed
outcome: here two pseudo-clusters of one unit each, one gained (``d = 1``) and one lost (``d = -1``), enter
the interval's centre and width (not the estimate). With no changed outcome among N units the interval is
then about +-1.96 * sqrt(2) / (N + 2), close to the "rule of three" bound 3 / N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from locm.analysis.stats import Z95, wilson


@dataclass
class Paired:
    """The running sums of one paired comparison (one card, one bucket, one change)."""

    units: int = 0
    clusters: int = 0
    wins_a: int = 0
    wins_b: int = 0
    gained: int = 0  # units that lost under A and won under B
    lost: int = 0  # units that won under A and lost under B
    held_a: int = 0  # units holding the card under A
    held_b: int = 0
    _dd: int = 0  # sum of D_c^2
    _dn: int = 0  # sum of D_c * n_c
    _nn: int = 0  # sum of n_c^2

    def add_cluster(self, units: Iterable[tuple[int, int, bool, bool]]) -> None:
        """One cluster's units, each ``(win_a, win_b, held under A, held under B)``."""
        d_sum = n = 0
        for win_a, win_b, in_a, in_b in units:
            d = win_b - win_a
            d_sum += d
            n += 1
            self.wins_a += win_a
            self.wins_b += win_b
            self.gained += d > 0
            self.lost += d < 0
            self.held_a += in_a
            self.held_b += in_b
        if n:
            self.units += n
            self.clusters += 1
            self._dd += d_sum * d_sum
            self._dn += d_sum * n
            self._nn += n * n

    def merge(self, other: "Paired") -> None:
        for f in ("units", "clusters", "wins_a", "wins_b", "gained", "lost", "held_a", "held_b", "_dd", "_dn",
                  "_nn"):
            setattr(self, f, getattr(self, f) + getattr(other, f))

    @property
    def delta(self) -> float | None:
        """The mean change in win rate from A to B (None without units)."""
        return (self.gained - self.lost) / self.units if self.units else None

    def interval(self) -> tuple[float, float] | None:
        """The 95% cluster-robust interval of `delta` with the two pseudo-clusters of the module note, or None
        below 2 clusters."""
        if self.clusters < 2:
            return None
        n, g = self.units + 2, self.clusters + 2
        d_total = self.gained - self.lost  # the pseudo-clusters add +1 and -1
        dd, dn, nn = self._dd + 2, self._dn, self._nn + 2  # their D^2 = 1 each, D*n = +1 and -1, n^2 = 1 each
        centre = d_total / n
        ss = dd - 2 * centre * dn + centre * centre * nn
        se = math.sqrt(max(ss, 0.0) * g / (g - 1)) / n
        return centre - Z95 * se, centre + Z95 * se

    def as_dict(self, sign: int = 1) -> dict:
        """The comparison for JSON: ``sign`` -1 reports A - B (a card's value over its baseline) instead of
        B - A."""
        d, ci = self.delta, self.interval()
        out = {"delta": None if d is None else round(sign * d, 5),
               "low": None if ci is None else round(min(sign * ci[0], sign * ci[1]), 5),
               "high": None if ci is None else round(max(sign * ci[0], sign * ci[1]), 5),
               "units": self.units, "clusters": self.clusters, "gained": self.gained, "lost": self.lost,
               "held_a": self.held_a, "held_b": self.held_b}
        for side, wins in (("a", self.wins_a), ("b", self.wins_b)):
            lo, hi = wilson(wins, self.units)
            out[f"win_rate_{side}"] = {"k": wins, "n": self.units, "rate": round(wins / self.units, 5)
                                       if self.units else None, "low": round(lo, 5), "high": round(hi, 5)}
        out["excludes_zero"] = ci is not None and (ci[0] > 0 or ci[1] < 0)
        return out


@dataclass
class Clustered:
    """The mean of values that come in clusters (one seed's games), with its cluster-robust 95% interval (the
    formula of the module note, without pseudo-clusters: these are not proportions). Running sums only."""

    units: int = 0
    clusters: int = 0
    total: float = 0.0
    _ss: float = 0.0  # sum of S_c^2 (S_c: a cluster's sum)
    _sn: float = 0.0  # sum of S_c * n_c
    _nn: int = 0  # sum of n_c^2

    def add_cluster(self, values: Iterable[float]) -> None:
        s, n = 0.0, 0
        for x in values:
            s += x
            n += 1
        if n:
            self.units += n
            self.clusters += 1
            self.total += s
            self._ss += s * s
            self._sn += s * n
            self._nn += n * n

    @property
    def mean(self) -> float | None:
        return self.total / self.units if self.units else None

    def interval(self) -> tuple[float, float] | None:
        """The 95% interval of `mean`, or None below 2 clusters."""
        if self.clusters < 2:
            return None
        m, g = self.total / self.units, self.clusters
        ss = self._ss - 2 * m * self._sn + m * m * self._nn
        se = math.sqrt(max(ss, 0.0) * g / (g - 1)) / self.units
        return m - Z95 * se, m + Z95 * se

    def as_dict(self) -> dict:
        m, ci = self.mean, self.interval()
        return {"mean": None if m is None else round(m, 5), "low": None if ci is None else round(ci[0], 5),
                "high": None if ci is None else round(ci[1], 5), "n": self.units, "clusters": self.clusters}


@dataclass
class PairedMean:
    """A number each unit has under A and under B (a seat's points, its kills): the means under A and under
    B and the mean of the differences B - A, each clustered by seed (`Clustered`)."""

    a: Clustered = field(default_factory=Clustered)
    b: Clustered = field(default_factory=Clustered)
    d: Clustered = field(default_factory=Clustered)

    def add_cluster(self, units: Iterable[tuple[float, float]]) -> None:
        """One cluster's units, each ``(value under A, value under B)``."""
        pairs = list(units)
        self.a.add_cluster(x for x, _ in pairs)
        self.b.add_cluster(y for _, y in pairs)
        self.d.add_cluster(y - x for x, y in pairs)

    def as_dict(self) -> dict:
        d = self.d.as_dict()
        ci = self.d.interval()
        return {"a": self.a.as_dict(), "b": self.b.as_dict(), "delta": d["mean"], "low": d["low"],
                "high": d["high"], "units": self.d.units, "clusters": self.d.clusters,
                "excludes_zero": ci is not None and (ci[0] > 0 or ci[1] < 0)}


def pts(x: float) -> str:
    """A rate difference in percentage points with its sign, one decimal ("+0.0", never "-0.0")."""
    return f"{round(100 * x, 1) + 0.0:+.1f}"




STAR = ("* : the interval excludes 0 and the Benjamini-Hochberg q-value over the rows tested is at most 0.05 "
        "(about 1 in 20 starred rows may still be chance)")
"""What a star on a card's or bucket's row means where many are tested at once (`mark_discoveries`)."""


def mark_discoveries(rows: list[dict], fdr: float | None = None) -> int:
    """Mark the rows of many paired comparisons at once (one per card or bucket, `Paired.as_dict` rows with
    ``low`` and ``high``): each row with an interval gets ``p`` (two-sided, from its interval read as a normal
    one around its centre, so that p < 0.05 exactly when it excludes 0), ``q`` (Benjamini-Hochberg over the
    rows with an interval) and ``significant`` (its interval excludes 0 and q is at most ``fdr``, by default
    `analysis.stats.DEFAULT_FDR`); a row without an interval gets None, None and False. A report stars
    ``significant``, not ``excludes_zero``: among 160 cards some exclude 0 by chance. Returns how many are
    marked."""
    from locm.analysis.stats import DEFAULT_FDR, discoveries, p_from_interval

    for r in rows:
        lo, hi = r.get("low"), r.get("high")
        r["p"] = None if lo is None or hi is None else round(p_from_interval((lo + hi) / 2, lo, hi), 6)
    return discoveries(rows, "p", "q", "significant", lambda r: r["excludes_zero"],
                       DEFAULT_FDR if fdr is None else fdr)


__all__ = ["Paired", "Clustered", "PairedMean", "pts", "mark_discoveries", "STAR"]
