"""`locm tune --target cards` on constructed (`locm.games.locm.tune_buckets`): its cards are generated anew each
game, so the six keyword buckets are measured and what a change may set is the generator's keyword entry. The
path runs end to end and writes a variant file that gives back its weights; the changes it tries are the
generator's and keep the variant checks."""

from __future__ import annotations

import json

from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.locm.rulesets import RULESETS
from locm.engine.locm.variants import parse_variant
from locm.events.locm.cards import KEYWORD_NAMES
from locm.games.locm.tune import variant_toml
from locm.games.locm.tune_buckets import apply, candidates, keyword_option


def test_constructed_cards_are_tuned_by_keyword_buckets(tmp_path):
    r = CliRunner().invoke(cli, ["tune", "--ruleset", "constructed", "--target", "cards", "--agents", "random",
                                 "--budget", "400", "--db", str(tmp_path / "t.db"), "-o", str(tmp_path / "t.toml"),
                                 "--json"])
    assert r.exit_code == 0, r.output
    result = json.loads(r.output)
    assert [c["card"] for c in result["cards"]] == [f"keyword: {k}" for k in KEYWORD_NAMES]
    assert all(c["before"]["units"] > 0 for c in result["cards"])  # each bucket was measured on its holders
    assert 0 < result["games_used"] <= 400 * 1.5 and result["games_played_now"] > 0
    tuned = parse_variant((tmp_path / "t.toml").read_text(), "t.toml")
    assert tuned.deck_building == RULESETS["constructed"].deck_building
    for step in result["changes"]:  # whatever was changed is in the written file
        k = step["card"].split(": ")[1]
        assert {f: keyword_option(tuned, k)[f] for f in step["change"]} == step["change"]
    assert (tmp_path / "t.html").read_text().count("keyword: ") >= len(KEYWORD_NAMES)


def test_a_keyword_change_is_the_generators_and_round_trips_through_the_variant_file():
    base = RULESETS["constructed"]
    weaker = candidates(base, "lethal", weaken=True)
    stronger = candidates(base, "lethal", weaken=False)
    was = keyword_option(base, "lethal")
    assert all(c.get("addCost", was["addCost"]) >= was["addCost"] and c.get("multCost", 1) <= was["multCost"]
               and c.get("weight", was["weight"]) <= was["weight"] for c in weaker)
    assert all(c.get("addCost", was["addCost"]) <= was["addCost"] and c.get("multCost", 1) >= was["multCost"]
               for c in stronger)
    changed = apply(base, "lethal", {"addCost": 3})
    assert keyword_option(changed, "lethal")["addCost"] == 3
    assert all(keyword_option(changed, k) == keyword_option(base, k) for k in KEYWORD_NAMES if k != "lethal")
    back = parse_variant(variant_toml(changed, "x"), "x.toml")
    assert keyword_option(back, "lethal")["addCost"] == 3
