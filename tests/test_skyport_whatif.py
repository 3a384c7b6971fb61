"""`locm whatif --game skyport`: each agent's points, place, kills, deaths, damage, penalties and upgrades
under A and B, paired by seat and clustered by seed with a 95% interval (`analysis.paired.PairedMean`,
`engine.skyport.definition.seat_stats`), shown and in --json."""

from __future__ import annotations

import json
import math

from click.testing import CliRunner

from locm.analysis.paired import Clustered, PairedMean
from locm.cli.main import cli
from locm.engine.skyport.definition import GAME, STATS, seat_stats
from locm.events.skyport.catalog import Hit
from locm.store.eventstore import open_store
from tests.test_skyport_tools import _lined_up


def test_the_clustered_interval_is_the_cluster_robust_one():
    """Differences 1, 1 | 0 | 2 in three clusters: mean 1; sum of squares of (D_c - mean n_c) = 0 + 1 + 1 = 2;
    se = sqrt(2 * 3/2) / 4; the interval 1 +- 1.96 se."""
    p = PairedMean()
    p.add_cluster([(0, 1), (0, 1)])
    p.add_cluster([(1, 1)])
    p.add_cluster([(0, 2)])
    d = p.as_dict()
    se = math.sqrt(2 * 3 / 2) / 4
    assert d["delta"] == 1 and d["units"] == 4 and d["clusters"] == 3 and d["excludes_zero"]
    assert math.isclose(d["low"], 1 - 1.959963984540054 * se, abs_tol=1e-5)
    assert math.isclose(d["high"], 1 + 1.959963984540054 * se, abs_tol=1e-5)
    assert d["a"]["mean"] == 0.25 and d["b"]["mean"] == 1.25
    one = Clustered()
    one.add_cluster([3.0, 5.0])
    assert one.mean == 4.0 and one.interval() is None  # one cluster: no interval


def test_seat_stats_count_a_games_damage_and_penalties():
    """Each robot steps off its spawn tile in its first turn (turns 1 to 3); alpha's laser hits bravo in turn
    4; then everyone passes until turn 9: alpha once (turn 7), bravo and charlie twice (the idle penalty, 10
    each time, off the spawn tile)."""
    g, events = _lined_up()
    hit = next(e for e in events if type(e) is Hit)
    assert (hit.player, hit.by) == (1, 0) and g.state.turn == 9
    stats = seat_stats(g.log)
    assert [sorted(s) for s in stats] == [sorted(STATS)] * 3
    assert [s["damage"] for s in stats] == [hit.amount, 0, 0]
    assert [s["penalties"] for s in stats] == [10, 20, 20]
    assert [s["kills"] for s in stats] == [0, 0, 0] and [s["deaths"] for s in stats] == [0, 0, 0]


def test_whatif_reports_points_places_and_kills_paired_by_seed(tmp_path):
    db = tmp_path / "w.db"
    played = CliRunner().invoke(cli, ["tournament", "--game", "skyport", "--seats", "2", "--agents", "hunter",
                                      "random", "--games", "12", "--db", str(db)])
    assert played.exit_code == 0, played.output
    variant = tmp_path / "laser.toml"
    variant.write_text('base = "2013"\nname = "laser-plus"\n[laser]\ndamage = [22, 24, 26]\n', encoding="utf-8")
    shown = CliRunner().invoke(cli, ["whatif", "--game", "skyport", "--db", str(db), "--ruleset", str(variant),
                                     "--min-n", "5"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    at = lines.index("  hunter:", next(i for i, x in enumerate(lines) if x.startswith("per agent and game")))
    assert [x.split()[0] for x in lines[at + 1:at + 8]] == ["points", "place", *STATS]
    assert "(n=12 in 6 seeds)" in lines[at + 1]
    data = json.loads(CliRunner().invoke(cli, ["whatif", "--game", "skyport", "--db", str(db), "--ruleset",
                                               str(variant), "--json"]).stdout)
    assert data["figures"] == ["points", "place", *STATS]
    with open_store(db) as store:  # the paired change, computed here from the stored games of A and B
        diffs = {"points": [], "kills": []}
        for m in store.games(game="skyport"):
            if m.ruleset != "2013":
                continue
            rules_b = GAME.variant(variant.read_text(encoding="utf-8"), str(variant))
            created = store.events(m.game_id)[0]
            b_id = GAME.game_id(GAME.new(rules_b, m.seed, m.agents).log[0])
            b = store.game(b_id)
            stats_a, stats_b = seat_stats(store.events(m.game_id)), seat_stats(store.events(b_id))
            for seat, agent in enumerate(m.agents):
                if agent == "hunter":
                    diffs["points"].append(b.scores[seat] - m.scores[seat])
                    diffs["kills"].append(stats_b[seat]["kills"] - stats_a[seat]["kills"])
            assert created.agents == m.agents
    for key, ds in diffs.items():
        f = data["agents"]["hunter"]["figures"][key]
        assert len(ds) == 12 and math.isclose(f["delta"], sum(ds) / len(ds), abs_tol=1e-4), key
        assert f["low"] <= f["delta"] <= f["high"] and f["clusters"] == 6


def test_a_game_without_scores_has_no_points_rows():
    from locm.tournament.whatif import Whatif, Pair
    from locm.engine.seam import Outcome

    w = Whatif(GAME, "a", "b", [Pair(("x", "y"), 1, Outcome(0, "r", 3, None), Outcome(1, "r", 3, None))])
    assert w.summary(1)["figures"] == [] and w.summary(1)["agents"]["x"]["figures"] == {}
