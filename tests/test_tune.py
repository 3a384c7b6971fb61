"""`locm tune` (`analysis.tune`, `locm.games.locm.tune`): a 1.2 card planted far too strong is changed and its value
drops, a card changed cosmetically is left alone, the written variant plays, a second run plays no game again;
the search's pure parts; bad input is one line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from locm.analysis.tune import HIGH, IN, LOW, OPEN, Estimate, Field, Objectives, choose, mutations, verdict
from locm.cli.main import cli
from locm.engine.locm.variants import parse_variant
from locm.events.locm.cards import keywords_to_str
from locm.store.eventstore import open_store

# Card 1 (Slimer, 1 mana 2/1 Charge) made a 1 mana 12/12 with every keyword; card 5 only renamed. Random agents
# draft without looking at values, so one seat often holds the card and the other not (see tests/test_cardvalue.py).
PLANTED = """base = "1.2"
name = "planted"

[cards.1]
attack = 12
defense = 12
keywords = "BCDGLW"

[cards.5]
name = "Grime Gnasher II"
"""
BUDGET = "3000"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    d = tmp_path_factory.mktemp("tune")
    (d / "planted.toml").write_text(PLANTED)
    args = ["tune", "--ruleset", str(d / "planted.toml"), "--agents", "random", "--budget", BUDGET, "--db",
            str(d / "t.db"), "-o", str(d / "tuned.toml"), "--json"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    return d, args, json.loads(r.output)


def test_the_planted_card_is_changed_and_its_value_drops(tuned):
    _, _, result = tuned
    planted = next(c for c in result["cards"] if c["card"] == 1)
    assert planted["role"] == "suspect" and planted["verdict_before"] == HIGH, planted
    assert result["changes"] and {c["card"] for c in result["changes"]} == {1}, result["changes"]
    first = result["changes"][0]
    assert first["paired_delta"]["low"] > 0, first  # the change takes value from its holders, interval above 0
    assert first["value_after"]["value"] < first["value_before"]["value"]
    assert planted["after"]["value"] < planted["before"]["value"]
    assert result["fields_changed"] <= result["objectives"]["max_changes"]
    # a fresh store: every game was played by this run (a re-run that is also a base game of the changed
    # ruleset counts in both of its measurements, so games used may exceed the games played)
    assert int(BUDGET) // 2 <= result["games_played_now"] <= result["games_used"]


def test_a_cosmetic_change_gets_no_change(tuned):
    d, _, result = tuned
    assert all(c["card"] != 5 for c in result["changes"])
    rules = parse_variant((d / "tuned.toml").read_text(), "tuned.toml")
    five = next(c for c in rules.cards if c.base_id == 5)
    assert five.name == "Grime Gnasher II"  # the input's own change is kept as it was, nothing added
    one = next(c for c in rules.cards if c.base_id == 1)
    final = {k: v for step in result["changes"] for k, v in step["change"].items()}  # each field's last change
    for k, v in final.items():
        assert (keywords_to_str(one.keywords) if k == "keywords" else getattr(one, k)) == v, (k, v, one)


def test_the_written_variant_plays_and_the_evidence_is_written(tuned, tmp_path):
    d, _, result = tuned
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(cli, ["play", "--ruleset", str(d / "tuned.toml"), "--seed", "7", "--p0", "greedy",
                                 "--p1", "random", "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert log.stat().st_size > 0
    evidence = json.loads((d / "tuned.json").read_text())
    assert evidence["changes"] == result["changes"]
    html = (d / "tuned.html").read_text()
    assert "Card 1 Slimer" in html and "Evolving the Hearthstone Meta" in html


def test_a_second_run_plays_no_game_again(tuned):
    d, args, result = tuned
    with open_store(d / "t.db", create=False, readonly=True) as store:
        before = store.count()
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    again = json.loads(r.output)
    assert again["games_played_now"] == 0
    assert again["games_used"] == result["games_used"] and again["changes"] == result["changes"]
    with open_store(d / "t.db", create=False, readonly=True) as store:
        assert store.count() == before


# --- the pure parts ---------------------------------------------------------------------------------------------


def test_verdict_against_the_band():
    assert verdict(Estimate(0.3, 0.2, 0.4), 0.0, 0.1) == HIGH
    assert verdict(Estimate(-0.3, -0.4, -0.2), 0.0, 0.1) == LOW
    assert verdict(Estimate(0.0, -0.05, 0.05), 0.0, 0.1) == IN
    assert verdict(Estimate(0.1, 0.0, 0.2), 0.0, 0.1) == OPEN
    assert verdict(Estimate(None, None, None), 0.0, 0.1) == OPEN


def test_mutations_step_toward_weaker_within_bounds():
    cost, attack = Field("cost", 1, 0, 12, -1), Field("attack", 12, 0, 12, 1)
    weaker = mutations([cost, attack], weaken=True, distance=1.0)
    assert {"cost": 2} in weaker and {"attack": 9} in weaker and {"attack": 6} in weaker
    assert all(len(m) == 1 for m in weaker)
    assert all(m["cost"] > 1 if "cost" in m else m["attack"] < 12 for m in weaker)
    stronger = mutations([cost, attack], weaken=False, distance=1.0)
    assert stronger == [{"cost": 0}]  # attack is at its bound; cost cannot go below 0


def test_choose_prefers_the_closest_then_the_fewest_fields():
    cands = [({"cost": 3, "attack": 2}, Estimate(0.3, 0.2, 0.4)), ({"cost": 4}, Estimate(0.3, 0.1, 0.5)),
             ({"attack": 1}, Estimate(0.1, 0.0, 0.2))]
    assert choose(cands, current=0.3, centre=0.0) == 1
    assert choose([({"cost": 2}, Estimate(-0.1, -0.2, 0.0))], current=0.3, centre=0.0) is None  # makes it worse


def test_objectives_parse_and_refuse():
    assert Objectives.parse(["band=0.08", "changes=2"]) == Objectives(band=0.08, max_changes=2)
    for bad in ("band", "speed=1", "band=x", "seat=0.9"):
        with pytest.raises(ValueError, match="--objective"):
            Objectives.parse([bad])


def test_bad_input_is_one_line(tmp_path):
    runner = CliRunner()
    base = ["tune", "--agents", "random", "--budget", "1000", "--db", str(tmp_path / "x.db"), "-o",
            str(tmp_path / "x.toml")]
    for extra, expected in ((["--objective", "band=2"], "--objective"),
                            (["greedy", "lookahead"], "one or two agents")):
        r = runner.invoke(cli, base + extra)
        assert r.exit_code != 0 and expected in r.output and "Traceback" not in r.output, r.output
    r = runner.invoke(cli, ["tune", "--agents", "nobody", "--budget", "1000", "--db", str(tmp_path / "y.db"), "-o",
                            str(tmp_path / "y.toml")])
    assert r.exit_code != 0 and "nobody" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x.toml").exists()


def test_hostile_names_are_escaped_in_the_page_and_the_file():
    from locm.games.locm.tune import variant_toml
    from locm.games.locm.tune_page import page

    hostile = 'x"]\n[cards.2]\ncost = 0 <script>alert(1)</script>'
    rules = parse_variant(f'base = "1.2"\nname = "h"\n[cards.5]\nname = {json.dumps(hostile)}\n', "h.toml")
    again = parse_variant(variant_toml(rules, "h-tuned"), "again.toml")
    assert again.cards == rules.cards and again.name == "h-tuned"  # the name round-trips, nothing injected
    est = {"value": 0.1, "low": 0.0, "high": 0.2, "units": 9}
    card = {"card": 5, "name": hostile, "role": "suspect", "seeds": 10, "before": est, "after": est,
            "verdict_before": IN, "verdict_after": IN, "remeasured": False}
    seat = {"wins": 5, "games": 10, "rate": 0.5, "low": 0.2, "high": 0.8, "verdict": OPEN}
    html = page({"ruleset": "<b>r</b>", "base": "1.2", "agents": ["random", "random"], "budget": 10, "first_seed": 1,
                 "games_used": 10, "games_played_now": 10, "seconds": 1.0, "method": "m", "centre": 0.0,
                 "objectives": {"band": 0.1, "seat_margin": 0.05, "max_changes": 3}, "cards": [card], "changes": [],
                 "fields_changed": 0, "seat_before": seat, "seat_after": seat})
    assert "<script>" not in html and "<b>r</b>" not in html and "&lt;script&gt;" in html
