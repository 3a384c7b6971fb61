"""Variance reduction for a paired comparison: the base game's outcome as a control variate. Pure: numbers in,
numbers out; it names no game.

The paired comparison (`analysis.paired`) plays the same seeds under A and under B and takes, over the units
(the seats the change concerns, decided from the games of A), the mean of ``d = y_a - y_b``. When the games
of B drift far from those of A (the agents decide again, a draft goes another way), ``y_b`` says little
about ``y_a`` and the pairing removes little of the noise of ``y_a``. The games of A are the cheap half: they
are shared by every card or variant compared against them, while each B needs its own re-runs. So the base
games may be played on more seeds (``M``) than are re-run (``N``, the first of them), and the mean of the
base outcome ``x = y_a`` over all M seeds is a better estimate of the units' mean under A than its mean over
the N re-run ones. The control-variate (regression, "CUPED") estimator

    T(theta) = dbar_N - theta * (xbar_N - xbar_M)

is unbiased for every fixed ``theta`` (the N seeds are a part of the M chosen before any game is seen, so
``xbar_N - xbar_M`` has mean 0), and ``theta = 0`` is the paired estimator. ``theta`` is chosen to make the
interval narrowest (``theta* = sum e w / sum w^2`` below: the regression of the paired difference on the base
outcome, an estimate that costs a bias of order 1 / N, far below the interval). With M = N the adjustment is
zero and T is the paired estimate.

Units come in clusters (one seed: its games, both seats), so the interval is cluster-robust, from the
linearised estimator (the means are ratios over clusters of ``n_c`` units): for a re-run cluster ``c`` with
sums ``D_c`` of d, ``X_c`` of x and ``n_c`` units,

    e_c = (D_c - dbar n_c) / N_u,  r_c = (X_c - xbar_N n_c) / N_u,  m_c = (X_c - xbar_M n_c) / M_u,

(``N_u``, ``M_u``: the units of the re-run and of all base clusters), and ``w_c = r_c - m_c`` (a base-only
cluster: ``e_c = r_c = 0``), ``se^2 = G / (G - 1) * sum_c (e_c - theta w_c)^2`` over the G base clusters with
units, ``T +- 1.96 se``. The paired estimator's interval is the same formula at ``theta = 0`` over the re-run
clusters; their ratio is the variance reduction reported (``variance_ratio``: 0.6 means the adjusted interval
is as wide as the paired one would be with 1 / 0.6 = 1.7 times the re-run seeds).

One cluster is three numbers; a comparison keeps them in lists (a few thousand seeds per card), as the
estimate and the regression need the final means before the sums of squares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from locm.analysis.stats import Z95


@dataclass
class ControlVariate:
    """One paired comparison with the base outcome as a control variate (the module note). Re-run clusters
    are added with `add_cluster`, base-only clusters (seeds played under A alone) with `add_base_cluster`."""

    rerun: list[tuple[float, float, int]] = field(default_factory=list)  # (D_c, X_c, n_c)
    base_only: list[tuple[float, int]] = field(default_factory=list)  # (X_c, n_c)

    def add_cluster(self, units: Iterable[tuple[float, float]]) -> None:
        """One re-run cluster's units, each ``(y_a, y_b)``: its paired differences are ``y_a - y_b`` and its
        base outcomes ``y_a``. A cluster without units adds nothing."""
        d = x = 0.0
        n = 0
        for ya, yb in units:
            d += ya - yb
            x += ya
            n += 1
        if n:
            self.rerun.append((d, x, n))

    def add_base_cluster(self, outcomes: Iterable[float]) -> None:
        """One cluster of the base games that was not re-run: its units' base outcomes ``y_a``."""
        xs = list(outcomes)
        if xs:
            self.base_only.append((float(sum(xs)), len(xs)))

    @property
    def units(self) -> int:
        return sum(n for _, _, n in self.rerun)

    @property
    def base_units(self) -> int:
        return self.units + sum(n for _, n in self.base_only)

    def _parts(self) -> tuple[float, list[float], list[float]] | None:
        """(dbar, e, w) over every base cluster (re-run ones first), or None without re-run units."""
        nu = self.units
        if not nu:
            return None
        mu = self.base_units
        dbar = sum(d for d, _, _ in self.rerun) / nu
        xbar_n = sum(x for _, x, _ in self.rerun) / nu
        xbar_m = (sum(x for _, x, _ in self.rerun) + sum(x for x, _ in self.base_only)) / mu
        e = [(d - dbar * n) / nu for d, _, n in self.rerun] + [0.0] * len(self.base_only)
        w = [(x - xbar_n * n) / nu - (x - xbar_m * n) / mu for _, x, n in self.rerun]
        w += [-(x - xbar_m * n) / mu for x, n in self.base_only]
        return dbar, e, w

    def theta(self) -> float:
        """The coefficient that makes the interval narrowest (0 when the base games add nothing)."""
        parts = self._parts()
        if parts is None:
            return 0.0
        _, e, w = parts
        ww = sum(v * v for v in w)
        return sum(a * b for a, b in zip(e, w)) / ww if ww > 1e-18 else 0.0

    def estimate(self, theta: float | None = None) -> dict | None:
        """``{"value", "low", "high", "se", "theta", "paired_value", "paired_se", "variance_ratio"}`` at
        ``theta`` (None: `theta`), or None without re-run units; the interval is None below 2 clusters."""
        parts = self._parts()
        if parts is None:
            return None
        dbar, e, w = parts
        t = self.theta() if theta is None else theta
        nu, mu = self.units, self.base_units
        xbar_n = sum(x for _, x, _ in self.rerun) / nu
        xbar_m = (sum(x for _, x, _ in self.rerun) + sum(x for x, _ in self.base_only)) / mu
        value = dbar - t * (xbar_n - xbar_m)
        g, g_r = len(e), len(self.rerun)
        se = math.sqrt(g / (g - 1) * sum((a - t * b) ** 2 for a, b in zip(e, w))) if g > 1 else None
        se_p = math.sqrt(g_r / (g_r - 1) * sum(a * a for a in e[:g_r])) if g_r > 1 else None
        ratio = None if se is None or not se_p else (se / se_p) ** 2
        return {"value": value, "low": None if se is None else value - Z95 * se,
                "high": None if se is None else value + Z95 * se, "se": se, "theta": t, "paired_value": dbar,
                "paired_se": se_p, "variance_ratio": ratio}

    def as_dict(self) -> dict:
        """`estimate` rounded for JSON, with the units and clusters it used."""
        est = self.estimate() or {k: None for k in ("value", "low", "high", "se", "theta", "paired_value",
                                                    "paired_se", "variance_ratio")}
        out = {k: None if v is None else round(v, 5) for k, v in est.items()}
        out.update(units=self.units, clusters=len(self.rerun), base_units=self.base_units,
                   base_clusters=len(self.rerun) + len(self.base_only))
        out["excludes_zero"] = out["low"] is not None and (out["low"] > 0 or out["high"] < 0)
        return out


def smallest_resolved(resolved_by_size: dict[float, list[bool]], share: float = 0.5) -> float | None:
    """The smallest change size whose intervals excluded 0 in more than ``share`` of its repeats, all larger
    sizes included (a size that resolves while a larger one does not is not counted); None if none does."""
    best = None
    for size in sorted(resolved_by_size, reverse=True):
        runs = resolved_by_size[size]
        if not runs or sum(runs) <= share * len(runs):
            break
        best = size
    return best


__all__ = ["ControlVariate", "smallest_resolved"]
