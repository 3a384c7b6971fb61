"""Benjamini-Hochberg q-values and p-values from intervals (`analysis.stats`)."""

from __future__ import annotations

import math

import pytest

from locm.analysis.stats import bh_qvalues, discoveries, p_from_interval

# Hand-computed: p sorted 0.01, 0.02, 0.03, 0.04, 0.20 (m = 5); m p / rank = 0.05, 0.05, 0.05, 0.05, 0.20;
# the running minimum from the top leaves them so. Given out of order.
P = [0.04, 0.20, 0.01, 0.03, 0.02]
Q = [0.05, 0.20, 0.05, 0.05, 0.05]


def test_bh_matches_a_hand_computed_example():
    assert [round(q, 10) for q in bh_qvalues(P)] == Q
    # the step-up: sorted 0.01, 0.029, 0.03 give m p / rank = 0.03, 0.0435, 0.03; the minimum from the top
    # lowers the middle one to 0.03
    assert [round(q, 10) for q in bh_qvalues([0.01, 0.03, 0.029])] == [0.03, 0.03, 0.03]
    assert bh_qvalues([]) == []
    assert bh_qvalues([0.9, 1.0]) == [1.0, 1.0]


def test_bh_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    if not hasattr(stats, "false_discovery_control"):
        pytest.skip("scipy < 1.11 has no false_discovery_control")
    import random

    rng = random.Random(34)
    for m in (1, 2, 7, 160):
        ps = [rng.random() ** 3 for _ in range(m)]
        ref = stats.false_discovery_control(ps, method="bh")
        assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(bh_qvalues(ps), ref)), m


def test_p_from_interval_is_the_normal_one():
    assert math.isclose(p_from_interval(1.96, 0.0, 3.92), 0.05, abs_tol=1e-3)  # se 1: z 1.96
    assert p_from_interval(0.0, -1.0, 1.0) == 1.0
    assert math.isclose(p_from_interval(0.6, 0.5, 0.7, null=0.5), 0.05, rel_tol=1e-6)


def test_discoveries_mark_only_rows_that_pass_bh_and_exclude_the_baseline():
    rows = [{"p": p, "out": True} for p in P] + [{"p": None, "out": True}]
    rows[0]["out"] = False  # q 0.05 but its interval touches the baseline: not marked
    assert discoveries(rows, "p", "q", "star", lambda r: r["out"]) == 3
    assert [r["star"] for r in rows] == [False, False, True, True, True, False]
    assert rows[-1]["q"] is None
