"""`locm tune`'s seat search (`analysis.tune.seat_search`): my-card-game's starter, who wins far fewer than half
of greedy's games, is moved toward 50% by changes its variant files allow, the tuned variant plays, a second
run plays no game again; a planted rule imbalance in LOCM (a mana cap of 2) is found and a rule setting moved;
the search's own rules on a game of known rates; bad input is one line."""

from __future__ import annotations

import json
import random
import tomllib

import pytest
from click.testing import CliRunner

from locm.analysis.tune import Objectives, SeatGame, race_levels, seat_search
from locm.cli.main import cli
from locm.engine.mcg.variants import parse_variant
from locm.store.eventstore import open_store


@pytest.fixture(scope="module")
def mcg_tuned(tmp_path_factory):
    d = tmp_path_factory.mktemp("mcgtune")
    args = ["tune", "--game", "mcg", "--agents", "greedy", "--budget", "1600", "--objective", "changes=2",
            "--db", str(d / "t.db"), "-o", str(d / "tuned.toml"), "--json"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    return d, args, json.loads(r.output)


def test_mcg_seat_balance_moves_toward_half(mcg_tuned):
    _, _, result = mcg_tuned
    seat = result["seat"]
    assert seat["before"]["verdict"] == "too weak", seat["before"]  # the starter loses most greedy games
    assert seat["changes"] and len(seat["changes"]) <= 2
    before, after = seat["before"]["value"], seat["after"]["value"]
    assert abs(after - 0.5) < abs(before - 0.5), (before, after)
    first = seat["changes"][0]
    assert first["paired_delta"]["low"] > 0, first  # paired on the same seeds, the change raised the starter's rate
    assert result["games_used"] <= 1600 and result["games_played_now"] == result["games_used"]


def test_the_tuned_mcg_variant_plays_and_adds_rules_only(mcg_tuned, tmp_path):
    d, _, result = mcg_tuned
    text = (d / "tuned.toml").read_text()
    rules = parse_variant(text, "tuned.toml")
    assert rules.name == "standard-tuned" and rules.base == "standard"
    doc = tomllib.loads(text)
    assert set(doc) - {"base", "name"} <= {"banned", "end_phase", "max_copies", "max_copies_rare", "rare_threshold"}
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(cli, ["play", "--game", "mcg", "--ruleset", str(d / "tuned.toml"), "--seed", "5",
                                 "--p0", "greedy", "--p1", "greedy", "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert "standard-tuned" in r.output and log.stat().st_size > 0
    html = (d / "tuned.html").read_text()
    assert result["seat"]["changes"][0]["change"]["label"] in html and "Evolving the Hearthstone Meta" in html
    assert json.loads((d / "tuned.json").read_text())["seat"] == result["seat"]


def test_a_second_mcg_run_plays_no_game_again(mcg_tuned):
    d, args, result = mcg_tuned
    with open_store(d / "t.db", create=False, readonly=True) as store:
        before = store.count()
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    again = json.loads(r.output)
    assert again["games_played_now"] == 0 and again["seat"] == result["seat"]
    with open_store(d / "t.db", create=False, readonly=True) as store:
        assert store.count() == before


def test_a_planted_rule_imbalance_in_locm_gets_a_rule_setting_change(tmp_path):
    # a mana cap of 2 makes the second player's mana token worth far more: the first player wins about a third
    (tmp_path / "p.toml").write_text('base = "1.2"\nname = "low-mana"\nmax_mana = 2\n')
    r = CliRunner().invoke(cli, ["tune", "--ruleset", str(tmp_path / "p.toml"), "--target", "seat", "--agents",
                                 "random", "--budget", "1600", "--objective", "changes=1", "--db", str(tmp_path / "t.db"), "-o",
                                 str(tmp_path / "tuned.toml"), "--json"])
    assert r.exit_code == 0, r.output
    result = json.loads(r.output)
    seat = result["seat_search"]
    assert seat["before"]["verdict"] == "too weak", seat["before"]
    assert seat["changes"], seat
    assert seat["changes"][0]["change"]["set"].get("max_mana", 2) > 2, seat["changes"][0]
    assert abs(seat["after"]["value"] - 0.5) < abs(seat["before"]["value"] - 0.5)
    tuned = tomllib.loads((tmp_path / "tuned.toml").read_text())
    assert tuned["max_mana"] > 2 and tuned["name"] == "low-mana-tuned"
    r = CliRunner().invoke(cli, ["play", "--ruleset", str(tmp_path / "tuned.toml"), "--seed", "3", "--p0", "random",
                                 "--p1", "random"])
    assert r.exit_code == 0, r.output
    assert "max_mana" in (tmp_path / "tuned.html").read_text()


# --- the search on a game of known rates --------------------------------------------------------------------------


def _known(rates: dict[str, float], seed: int = 7) -> SeatGame:
    """A game whose first player wins with a known probability per ruleset (a frozenset of changes), each seed's
    result drawn from the seed alone, so that two rulesets' games on one seed are paired (common random numbers)."""

    def play(rulesets: list[frozenset], seeds: int) -> list[list[float]]:
        out = []
        for rules in rulesets:
            p = 0.2 + sum(rates[c] for c in rules)
            out.append([float(random.Random(seed * 100_003 + s).random() < p) for s in range(seeds)])
        return out

    return SeatGame(play, lambda rules: [{"label": c} for c in sorted(rates) if c not in rules],
                    lambda rules, c: rules | {c["label"]}, lambda rules: ",".join(sorted(rules)))


def test_the_search_keeps_the_change_that_helps_and_stops_within_the_margin():
    game = _known({"a-nothing": 0.0, "b-small": 0.05, "c-right": 0.3, "d-too-far": 0.6})
    rules, found = seat_search(game, frozenset(), Objectives(seat_margin=0.05, max_changes=3), 4000)
    assert rules == {"c-right"}, found["changes"]  # one change brings it within the margin: no second one
    assert found["before"]["verdict"] == "too weak" and abs(found["after"]["value"] - 0.5) <= 0.05
    assert found["games_used"] == game.games <= 4000


def test_a_change_that_cannot_be_told_from_none_is_not_made():
    game = _known({"a-nothing": 0.0, "b-nothing": 0.0})
    rules, found = seat_search(game, frozenset(), Objectives(), 2000)
    assert rules == frozenset() and not found["changes"] and found["rejected"] is not None


def test_the_budget_is_kept_and_a_budget_without_room_is_refused():
    game = _known({f"c{i}": 0.01 * i for i in range(12)})
    _, found = seat_search(game, frozenset(), Objectives(), 900)
    assert found["games_used"] <= 900
    with pytest.raises(ValueError, match="--budget"):
        seat_search(_known({"a": 0.1}), frozenset(), Objectives(), 30)
    assert race_levels(23) == 5 and race_levels(2) == 1


def test_mcg_bad_input_is_one_line(tmp_path):
    runner = CliRunner()
    base = ["tune", "--game", "mcg", "--budget", "1000", "--db", str(tmp_path / "x.db"), "-o", str(tmp_path / "x.toml")]
    (tmp_path / "bad.toml").write_text('base = "standard"\nname = "b"\nstart_health = 10\n')
    for extra, expected in ((["--agents", "nobody"], "nobody"), (["--agents", "greedy", "--target", "cards"], "cards"),
                            (["--agents", "greedy", "--ruleset", str(tmp_path / "bad.toml")], "start_health"),
                            (["--agents", "greedy", "--ruleset", "nowhere.toml"], "nowhere.toml")):
        r = runner.invoke(cli, base + extra)
        assert r.exit_code != 0 and expected in r.output and "Traceback" not in r.output, r.output
    assert not (tmp_path / "x.toml").exists()
