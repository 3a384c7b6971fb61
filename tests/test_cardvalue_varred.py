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


# --- on real games ----------------------------------------------------------------------------------------------


def test_on_real_games_the_adjusted_value_is_the_estimator_over_the_stored_games_and_only_the_first_seeds_rerun(
        tmp_path):
    """Random self-play of 1.2, 40 seeds re-run under a variant that makes card 5 a 7/7, base games on 120: the
    seeds past 40 are not re-run; the row's paired value is what a run without the extra base seeds gives, and
    its value is `ControlVariate` over the holders read back from the stored games by hand."""
    from locm.analysis.locm.cardfacts import project
    from locm.engine.locm.rulesets import RULES_12
    from locm.engine.locm.variants import variant_from_dict
    from locm.games.locm.cardvalue import base_schedule, cardvalue, variant_targets
    from locm.games.locm.whatif import advantage, rerun_id
    from locm.store.eventstore import open_store

    db = tmp_path / "cv.db"
    stronger = variant_from_dict({"base": "1.2", "name": "gnasher-7-7", "cards": {"5": {"attack": 7, "defense": 7}}},
                                 "v.toml")
    targets, variants = variant_targets(RULES_12, stronger, [], stronger.name)
    agents = ("random", "random")
    run = cardvalue(db, RULES_12, agents, targets, variants, 40, workers=1, base_seeds=120)
    assert run.base_played == 120 and run.played + run.identical == 40 and not run.errors
    (row,) = run.ranked()
    plain = cardvalue(db, RULES_12, agents, targets, variants, 40, workers=1)
    assert plain.played == 0 and plain.reused == run.played  # the same re-runs, read back
    (prow,) = plain.ranked()
    assert row["paired"]["value"] == prow["value"] and row["paired"]["low"] == prow["low"]

    by_hand = ControlVariate()
    with open_store(db, create=False, readonly=True) as store:
        for job in base_schedule(RULES_12, agents, 120, 1):
            events_a = store.events(job.game_id)
            ga = project(events_a)
            adv = advantage(ga.decks, {5})
            if adv is None:
                continue
            won_a = int(ga.winner == adv[0])
            if job.seed <= 40:
                gb = project(store.events(rerun_id(events_a, stronger)))
                by_hand.add_cluster([(won_a, int(gb.winner == adv[0]))])
            else:
                by_hand.add_base_cluster([won_a])
    expected = by_hand.as_dict()
    assert row["value"] == expected["value"] and row["low"] == expected["low"], (row, expected)
    assert row["control_variate"]["base_units"] == expected["base_units"] > row["units"]


def test_the_command_refuses_fewer_base_seeds_than_seeds_in_one_line(tmp_path):
    from click.testing import CliRunner

    from locm.cli.main import cli

    r = CliRunner().invoke(cli, ["cardvalue", "--db", str(tmp_path / "x.db"), "--card", "5", "--seeds", "100",
                                 "--base-seeds", "50"])
    assert r.exit_code == 2 and "--base-seeds 50: expected at least --seeds (100)" in r.output
    assert not (tmp_path / "x.db").exists()  # refused before any game
    r = CliRunner().invoke(cli, ["cardvalue", "--db", str(tmp_path / "x.db"), "--card", "5", "--seeds", "100",
                                 "--base-seeds", "301"])
    assert r.exit_code != 0 and "expected an even number" in r.output and "Traceback" not in r.output
