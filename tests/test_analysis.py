"""Statistics and the game overview."""

from __future__ import annotations

import math

from locm.analysis.locm.overview import overview
from locm.analysis.stats import wilson
from locm.games.locm.play import play_one


def test_wilson_matches_the_textbook_values():
    lo, hi = wilson(5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)
    assert wilson(0, 10)[0] == 0.0 and math.isclose(wilson(0, 10)[1], 0.2775, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_overview_counts_what_the_events_say():
    games = [play_one("1.2", s, ("greedy", "random")) for s in range(4)]
    result = overview(("1.2", g.log) for g in games)["1.2"]
    assert result.games == 4
    assert result.seat0_wins == sum(g.winner == 0 for g in games)
    damage = sum(e.amount for g in games for e in g.log if type(e).__name__ == "PlayerDamaged")
    assert sum(result.damage.values()) == damage
    assert result.turns == [g.state.turn + 1 for g in games]
