"""Variance reduction of `locm cardvalue` (issue 34, item 3; `analysis.varred`): the base outcome as a control
variate is unbiased and narrower on synthetic data whose truth is known, and on real games it agrees with the
paired estimate where it must."""

from __future__ import annotations

import random
import statistics

from hypothesis import given, settings, strategies as st

from locm.analysis.varred import ControlVariate, smallest_resolved


def _sample(rng: random.Random, m: int, n: int, pa: float, q: float, stick: float) -> ControlVariate:
    """M base clusters of 0 to 2 units, the first N re-run: y_a ~ Bernoulli(pa); y_b = y_a with probability
    `stick` (the re-run went the same way), else a fresh Bernoulli(q). The true mean of y_a - y_b is
    (1 - stick) * (pa - q)."""
    cv = ControlVariate()
    for c in range(m):
        units = []
        for _ in range(rng.choice((0, 1, 1, 2))):
            ya = int(rng.random() < pa)
            yb = ya if rng.random() < stick else int(rng.random() < q)
            units.append((ya, yb))
        if c < n:
            cv.add_cluster(units)
        else:
            cv.add_base_cluster(ya for ya, _ in units)
    return cv


@settings(max_examples=6, deadline=None, derandomize=True)
@given(pa=st.floats(0.2, 0.8), q=st.floats(0.2, 0.8), stick=st.floats(0.0, 0.9), seed=st.integers(0, 2**31))
def test_the_adjusted_estimate_is_unbiased_covers_and_is_narrower_when_the_re_runs_drift(pa, q, stick, seed):
    rng = random.Random(seed)
    truth = (1 - stick) * (pa - q)
    est = [_sample(rng, 400, 100, pa, q, stick).estimate() for _ in range(300)]
    adjusted = [e["value"] for e in est]
    paired = [e["paired_value"] for e in est]
    sd = statistics.stdev(adjusted)
    # unbiased: the mean of 300 estimates within 4 of its standard errors of the truth (printed seed on failure)
    assert abs(statistics.mean(adjusted) - truth) < 4 * sd / 300 ** 0.5 + 1e-3, (seed, truth)
    assert abs(statistics.mean(paired) - truth) < 4 * statistics.stdev(paired) / 300 ** 0.5 + 1e-3
    covered = sum(e["low"] <= truth <= e["high"] for e in est) / len(est)
    assert 0.89 <= covered <= 0.995, (seed, covered)
    # the spread across repeats (not only the stated interval) is smaller: 4 times the base seeds, drift
    assert sd < statistics.stdev(paired) * 1.02, (seed, sd, statistics.stdev(paired))
    assert statistics.median(e["variance_ratio"] for e in est) < 1.0


def test_a_fixed_coefficient_is_exactly_the_paired_estimate_shifted_by_the_base_means():
    rng = random.Random(7)
    cv = _sample(rng, 300, 120, 0.55, 0.4, 0.3)
    d = sum(c[0] for c in cv.rerun) / cv.units
    xn = sum(c[1] for c in cv.rerun) / cv.units
    xm = (sum(c[1] for c in cv.rerun) + sum(c[0] for c in cv.base_only)) / cv.base_units
    for theta in (0.0, 0.4, 1.0):
        assert abs(cv.estimate(theta)["value"] - (d - theta * (xn - xm))) < 1e-12
    e = cv.estimate(0.0)  # theta 0 is the paired estimator (its G / (G - 1) counts the base clusters too)
    g, g_r = len(cv.rerun) + len(cv.base_only), len(cv.rerun)
    assert abs(e["se"] ** 2 * (g - 1) / g - e["paired_se"] ** 2 * (g_r - 1) / g_r) < 1e-15


def test_without_extra_base_seeds_it_is_the_paired_estimate():
    rng = random.Random(3)
    cv = _sample(rng, 200, 200, 0.5, 0.3, 0.2)
    e = cv.estimate()
    assert e["theta"] == 0.0 and e["value"] == e["paired_value"] and e["variance_ratio"] == 1.0
    assert ControlVariate().estimate() is None


def test_the_smallest_resolved_size_needs_every_larger_size_resolved():
    runs = {1: [True, False, False], 2: [True, True, False], 3: [True, True, True], 4: [True, True, True]}
    assert smallest_resolved(runs) == 2
    assert smallest_resolved({1: [True, True], 2: [False, False], 3: [True, True]}) == 3
    assert smallest_resolved({1: [False]}) is None
