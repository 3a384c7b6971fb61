"""Where `locm whatif` and `locm cardvalue` disagree on a card, the report says why (issue 34, item 1): the
weakened-card case of the issue (+14.3 in whatif, -17.1* in cardvalue), and the same change measured by both
on real games."""

from __future__ import annotations

import json

from click.testing import CliRunner

from locm.cli.main import cli
from locm.games.locm.cardvalue_compare import compare, compare_lines


def _cv_row(card, value, low, high, significant, baseline, units=120, lost_edge=0):
    return {"card": card, "baseline": baseline, "value": value, "low": low, "high": high,
            "significant": significant, "units": units, "lost_edge": lost_edge}


def _whatif(rows, moves=(), b="weak"):
    return {"question": "…", "ruleset_b": {"name": b}, "paired_by_seed": rows, "cards_in_hand_win_rate_moves": list(moves)}


def test_the_issues_weakened_card_is_explained_by_the_sign_and_the_agents_new_decisions():
    """The issue's case: a card weakened on purpose, +14.3 in whatif (B - A), -17.1* in cardvalue (A - B). The
    line gives both numbers and says they agree once signed alike, and why the weakened card's holders win
    more: most of them did not hold it under B."""
    w = _whatif([{"key": "5 Grime Gnasher", "kind": "card", "delta": 0.143, "low": 0.02, "high": 0.27,
                  "significant": False}])
    cv = {"cards": [_cv_row("5 Grime Gnasher", -0.171, -0.29, -0.05, True, "weak", units=140, lost_edge=90)]}
    (row,) = compare(w, cv)
    assert row["aligned"] == 0.171
    (head, line) = compare_lines([row])
    assert "disagree: 1 card" in head
    assert line.startswith("5 Grime Gnasher: whatif +14.3, cardvalue -17.1*: sign: whatif is B - A, cardvalue A - B")
    assert "+17.1 pts, the same direction: they agree" in line
    assert "90 of its 140 holders under A did not hold it under B (64%)" in line
    assert "chance: cardvalue stars it, whatif does not" in line


def test_cards_they_agree_on_have_no_line_and_other_reasons_are_named():
    w = _whatif([{"key": "1 A", "delta": 0.1, "low": 0.05, "high": 0.15, "significant": True},
                 {"key": "2 B", "delta": 0.1, "low": 0.05, "high": 0.15, "significant": True},
                 {"key": "3 C", "delta": 0.02, "low": -0.05, "high": 0.09, "significant": False}],
                moves=[{"card": "3 C", "move": -0.08}])
    cv = {"cards": [_cv_row("1 A", -0.1, -0.15, -0.05, True, "weak"),  # the same once signed alike: no line
                    _cv_row("2 B", -0.1, -0.15, -0.05, True, "vanilla"),  # signs differ, another change
                    {**_cv_row("3 C", -0.02, -0.09, 0.05, False, "weak"), "rerun_under": "1.2~3~weak"}]}
    # 3 C: the in-hand move points the other way, and cardvalue re-ran its change alone
    rows = {r["card"]: r for r in compare(w, cv)}
    assert set(rows) == {"2 B", "3 C"}
    assert rows["2 B"]["aligned"] is None and rows["2 B"]["reasons"][0].startswith("different changes")
    assert any(r.startswith("other changes: whatif re-ran the 2 cards weak changes") for r in rows["3 C"]["reasons"])
    assert any("in-hand win rate moved -8.0 pts" in r for r in rows["3 C"]["reasons"])
    assert compare_lines([]) == ["whatif and cardvalue agree on every card both measured"]


def test_on_real_games_whatif_and_cardvalue_of_one_weakened_card_are_the_same_numbers_signed_apart(tmp_path):
    """Random self-play of 1.2, card 5 (a 2-mana 4/1) made a 0/1: whatif over the stored games and cardvalue
    against the same variant pair the same seeds and holders, so whatif's change is minus cardvalue's value,
    and the command's line says so."""
    db = tmp_path / "w.db"
    weak = tmp_path / "weak.toml"
    weak.write_text('base = "1.2"\nname = "gnasher-weak"\n[cards.5]\nattack = 0\ndefense = 1\n')
    runner = CliRunner()
    r = runner.invoke(cli, ["tournament", "--agents", "random", "random", "--games", "300", "--db", str(db)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(weak), "--json", "--min-n", "5"])
    assert r.exit_code == 0, r.output
    w_file = tmp_path / "w.json"
    w_file.write_text(r.output)
    r = runner.invoke(cli, ["cardvalue", "--db", str(db), "--agents", "random", "random", "--seeds", "300",
                            "--baseline", str(weak), "--whatif", str(w_file), "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    (cv,) = s["cards"]
    (w,) = [x for x in json.loads(w_file.read_text())["paired_by_seed"] if x["key"] == cv["card"]]
    assert cv["units"] == w["units"] > 30 and cv["value"] == -w["delta"], (cv, w)
    assert s["reruns_played_now"] == 0  # whatif's re-runs, read back
    # signed alike they are one number: a line only where the stars differ (BH over different rows)
    for row in s["whatif_disagreements"]:
        assert row["aligned"] == w["delta"] and any(x.startswith("chance: ") for x in row["reasons"])
    r = runner.invoke(cli, ["cardvalue", "--db", str(db), "--agents", "random", "random", "--seeds", "300",
                            "--baseline", str(weak), "--whatif", str(weak)])
    assert r.exit_code == 2 and "expected the JSON of 'locm whatif --json'" in r.output


def test_a_variant_of_cards_alone_is_re_run_card_by_card_and_one_that_changes_rules_whole():
    from locm.engine.locm.carddata import cardlist_12
    from locm.engine.locm.rulesets import RULES_12
    from locm.engine.locm.variants import variant_from_dict
    from locm.games.locm.cardvalue import variant_targets

    cards = variant_from_dict({"base": "1.2", "name": "two", "cards": {"5": {"attack": 7}, "9": {"name": "X"}}}, "t.toml")
    targets, variants = variant_targets(RULES_12, cards, [], "t.toml")
    assert [t.label for t in targets] == ["5 Grime Gnasher", "9 Corrupted Beavrat"] and len(variants) == 2
    base = cardlist_12()
    for t, v in zip(targets, variants):  # each variant: A with that card's change alone
        (b,) = t.only
        differ = [c.base_id for c in v.cards if base[c.base_id] != c]
        assert differ == [b] and t.baseline == "two" and v.start_health == RULES_12.start_health
    rules = variant_from_dict({"base": "1.2", "name": "rules", "start_health": 20, "runes": [15, 10, 5], "cards": {"5": {"attack": 7},
                                                                                          "9": {"attack": 1}}}, "r.toml")
    targets, variants = variant_targets(RULES_12, rules, [], "r.toml")
    assert variants == [rules] and {t.variant for t in targets} == {0}  # its rules are no card's: re-run whole
