"""Planted tests (issue 34, "what it must show"): one variant of 1.2 makes one card far too strong, one far too
weak and changes a third cosmetically; over three disjoint blocks of seeds, `locm cardvalue` against it stars
the first two (with the right signs) and never the third (each card re-run with its own change alone), and `locm whatif` of the same change stars the
untouched cards no more often than its stated false-discovery rate."""

from __future__ import annotations

import json

from click.testing import CliRunner

from locm.analysis.locm.cardfacts import card_features
from locm.analysis.stats import DEFAULT_FDR
from locm.cli.main import cli
from locm.engine.locm.carddata import cardlist_12

STRONG, WEAK, COSMETIC = 42, 5, 9
TRIO = f"""base = "1.2"
name = "planted-trio"
[cards.{STRONG}]   # far too strong: free, 12/12, every keyword, 20 damage to the opponent when summoned
cost = 0
attack = 12
defense = 12
keywords = "BCDGLW"
opp_health = -20
my_health = 10
[cards.{WEAK}]     # far too weak: free, 0/1, costs its owner 20 health when summoned
cost = 0
attack = 0
defense = 1
my_health = -20
[cards.{COSMETIC}]     # renamed: no rule reads a name
name = "Corrupted Beavrat II"
text = "new art"
"""
BLOCKS, GAMES = 3, 500


def _json(output: str) -> dict:
    return json.loads(output[output.index("{"):])


def test_the_planted_strong_and_weak_cards_are_starred_the_cosmetic_one_never_and_untouched_ones_within_the_fdr(
        tmp_path):
    var = tmp_path / "trio.toml"
    var.write_text(TRIO)
    cards = cardlist_12()
    touched = {STRONG, WEAK, COSMETIC}
    touched_keys = {f"{b} {cards[b].name}" for b in touched}
    touched_buckets = {f for b in touched for f in card_features(cards[b])}
    runner = CliRunner()
    false_stars = stars = 0
    for block in range(BLOCKS):
        db, first = tmp_path / f"b{block}.db", 1 + block * GAMES
        made = runner.invoke(cli, ["tournament", "--agents", "random", "random", "--games", str(GAMES),
                                   "--seed", str(first), "--db", str(db)])
        assert made.exit_code == 0, made.output
        w = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--min-n", "20", "--json"])
        assert w.exit_code == 0, w.output
        rows = _json(w.output)["paired_by_seed"]
        starred = [r["key"] for r in rows if r["significant"]]
        false = [k for k in starred if k not in touched_keys and k not in touched_buckets]
        stars += len(starred)
        false_stars += len(false)
        cv = runner.invoke(cli, ["cardvalue", "--db", str(db), "--agents", "random", "random", "--seeds", str(GAMES),
                                 "--seed", str(first), "--baseline", str(var), "--json"])
        assert cv.exit_code == 0, cv.output
        s = _json(cv.output)
        by_id = {int(r["card"].split()[0]): r for r in s["cards"]}
        assert set(by_id) == touched
        # value = holders' win rate with the card as it is minus with the change: the strong card is worth
        # less as it is (below 0), the weak one more (above 0), the renamed one exactly nothing
        assert by_id[STRONG]["significant"] and by_id[STRONG]["high"] < 0, (block, by_id[STRONG])
        assert by_id[WEAK]["significant"] and by_id[WEAK]["low"] > 0, (block, by_id[WEAK])
        cosmetic = by_id[COSMETIC]
        assert not cosmetic["significant"] and cosmetic["value"] == 0 and cosmetic["gained"] == cosmetic["lost"] == 0
        assert cosmetic["units"] > 20  # it was held: a real row, not an empty one
    # over the blocks, the share of whatif's stars on cards and buckets the variant left alone
    # (whatif re-runs the three changes at once and tests ~190 rows a block, so it stars fewer than cardvalue)
    assert stars >= 1 and false_stars / stars <= DEFAULT_FDR, (false_stars, stars)
