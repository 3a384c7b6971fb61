"""Reports that cannot mislead (issue 34, item 1): the card report's rows against the baseline measured on the
same games, starred and coloured only after Benjamini-Hochberg control over the cards tested."""

from __future__ import annotations

import random

import pytest

from locm.analysis.locm.cardcharts import BAD, GOOD, PLAIN, bar_colour
from locm.analysis.stats import DEFAULT_FDR
from locm.engine.locm.carddata import cardlist_12
from locm.events.locm.catalog import CardDrawn, CardPoolDefined, DeckOrdered, GameCreated, GameEnded, TurnStarted
from locm.games.locm.cardreport import collect, write_report
from locm.engine.locm.definition import GAME as LOCM_GAME
from locm.store.eventstore import open_store

CARDS = cardlist_12()


def _null_game(rng: random.Random, seed: int, draw_bias: float = 0.0) -> list:
    """One hand-written 1.2 game of one agent against itself whose winner no card decides: each seat's deck is
    30 cards drawn at random from the 160, the opening hands are 4 and 5 cards, each own turn draws one more;
    the winner is a coin flip, tilted by ``draw_bias`` toward the seat that drew more (the selection bias of
    in-hand against not-seen: a player who draws more holds more of every card)."""
    events: list = []

    def add(cls, rule="R-TEST", **fields):
        events.append(cls(seq=len(events), cause=-1, rule=rule, **fields))

    add(GameCreated, ruleset="1.2", ruleset_version="1.2", seed=seed, shuffle_player0_seed=1,
        shuffle_player1_seed=2, draft_choices_seed=3, agents=("null", "null"))
    decks = [[rng.randrange(1, 161) for _ in range(30)] for _ in (0, 1)]
    pool = sorted({b for d in decks for b in d})
    add(CardPoolDefined, cards=tuple(CARDS[b] for b in pool))
    for p, deck in enumerate(decks):
        add(DeckOrdered, player=p, ids=tuple(range(1 + 30 * p, 31 + 30 * p)), base_ids=tuple(deck))
    for p, hand in ((0, 4), (1, 5)):
        for i in range(hand):
            add(CardDrawn, rule="R-TURN", player=p, id=1 + 30 * p + i)
    drawn = [4, 5]
    turns = rng.randrange(8, 30)
    for t in range(turns):
        p = t % 2
        extra = rng.random() < 0.3  # a card-draw effect, more often for one seat
        add(TurnStarted, player=p, turn=t, max_mana=min(12, t // 2 + 1), mana=min(12, t // 2 + 1),
            bonus_spent=False, draws=1)
        for _ in range(1 + extra):
            if drawn[p] < 30:
                add(CardDrawn, player=p, id=1 + 30 * p + drawn[p])
                drawn[p] += 1
    lead = (drawn[0] > drawn[1]) - (drawn[0] < drawn[1])
    winner = 0 if rng.random() < 0.5 + draw_bias * lead else 1
    add(GameEnded, winner=winner, reason="test", turn=turns - 1)
    return events


def _null_store(path, seed: int, games: int, draw_bias: float = 0.0):
    rng = random.Random(seed)
    store = open_store(path)
    for i in range(games):
        store.append_game(LOCM_GAME, {"game_id": f"n{seed}-{i}"}, _null_game(rng, seed * 100000 + i, draw_bias))
    store.close()
    return path


def _starred(data) -> list[tuple[int, str]]:
    return [(r["base_id"], m) for r in data.rulesets["1.2"].cards for m in ("in_hand", "iih")
            if r[f"{m}_significant"]]


def test_no_card_is_starred_more_often_than_the_stated_fdr_where_no_card_matters(tmp_path):
    """Over 20 independent stores of games whose winner no card decides, a store with any starred card is a
    false discovery (every star is false): BH keeps their share at most the stated FDR. Without the control
    (a star for every interval that excludes the baseline) nearly every store has one."""
    stores, with_star, uncorrected = 20, 0, 0
    for seed in range(stores):
        data = collect(_null_store(tmp_path / f"null{seed}.db", seed, 200), min_n=30)
        rows = data.rulesets["1.2"].cards
        with_star += bool(_starred(data))
        uncorrected += any(r[f"{m}_ci"] is not None and not r[f"{m}_ci"][0] <= r[f"{m}_baseline"] <= r[f"{m}_ci"][1]
                           for r in rows for m in ("in_hand", "iih"))
        assert data.rulesets["1.2"].strata[0].baselines["in_hand"]["tested"] > 100, seed
    assert with_star / stores <= DEFAULT_FDR, (with_star, stores)
    assert uncorrected / stores > 0.5, uncorrected  # what the report showed before


def test_the_bias_quoted_is_the_mean_measured_on_the_data(tmp_path):
    """Games where the seat that drew more wins more: every card's IIH is pushed up; the report quotes the
    mean IIH of its rows as the bias (not a fixed figure), centres every row on it, and says so on the page."""
    data = collect(_null_store(tmp_path / "biased.db", 99, 300, draw_bias=0.45), min_n=30)
    stratum = data.rulesets["1.2"].strata[0]
    shown = [r["iih"] for r in stratum.cards if r["iih"] is not None]
    measured = sum(shown) / len(shown)
    assert measured > 0.03  # the planted bias shows
    assert stratum.baselines["iih"]["baseline"] == round(measured, 4)
    assert all(r["iih_centred"] == round(r["iih"] - round(measured, 4), 4)
               for r in stratum.cards if r["iih"] is not None)
    html = write_report(data, tmp_path / "rep").read_text()
    assert f"IIH {100 * round(measured, 4):+.1f} points (the mean of {len(shown)} rows" in html
    assert "about 2 points" not in html.split("How to read")[0]  # no fixed figure is quoted as this data's bias


def test_a_card_made_far_stronger_by_a_variant_is_still_starred(tmp_path):
    """Random self-play under a 1.2 variant where one creature costs 0, is 12/12 with every keyword and deals
    20 damage when summoned: its holders win far more, and it stays starred after BH over every card tested."""
    from locm.engine.locm.variants import variant_from_dict
    from locm.games.locm.play import play_one

    planted = 42
    rules = variant_from_dict({"base": "1.2", "name": "planted", "cards": {str(planted): {
        "cost": 0, "attack": 12, "defense": 12, "keywords": "BCDGLW", "opp_health": -20, "my_health": 10}}},
        "planted.toml")
    store = open_store(tmp_path / "planted.db")
    for seed in range(400):
        store.append_game(LOCM_GAME, {"game_id": f"p{seed}"}, play_one(rules, seed, ("random", "random")).log)
    store.close()
    data = collect(tmp_path / "planted.db", min_n=30)
    row = next(r for r in data.rulesets["planted"].cards if r["base_id"] == planted)
    assert row["in_hand_significant"] and row["in_hand_centred"] > 0.2 and row["in_hand_q"] <= DEFAULT_FDR
    assert row["iih_significant"] and row["iih_q"] <= DEFAULT_FDR
    assert bar_colour(row, "in_hand") == GOOD and bar_colour(row, "iih") == GOOD


def test_charts_colour_only_significant_bars():
    row = {"in_hand_significant": False, "in_hand_centred": 0.2, "iih_significant": True, "iih_centred": -0.1}
    assert bar_colour(row, "in_hand") == PLAIN  # far from the baseline, but not a discovery: grey
    assert bar_colour(row, "iih") == BAD
    row["in_hand_significant"] = True
    assert bar_colour(row, "in_hand") == GOOD


PLANTED_TOML = ('base = "1.2"\nname = "planted"\n[cards.42]\ncost = 0\nattack = 12\ndefense = 12\n'
                'keywords = "BCDGLW"\nopp_health = -20\nmy_health = 10\n')


def test_whatif_stars_the_card_it_made_stronger_and_no_card_it_left_alone(tmp_path):
    """1000 random self-play games of 1.2 re-run under a variant that changes card 42 alone: its holders'
    paired gain is starred after BH over the ~190 cards and buckets tested, and no other card is, although
    several unchanged cards' intervals exclude 0 by chance (what whatif starred before). Its text and JSON say
    which question it answers."""
    import json

    from click.testing import CliRunner

    from locm.cli.main import cli

    db, var = tmp_path / "t.db", tmp_path / "planted.toml"
    var.write_text(PLANTED_TOML)
    runner = CliRunner()
    made = runner.invoke(cli, ["tournament", "--agents", "random", "random", "--games", "1000", "--db", str(db)])
    assert made.exit_code == 0, made.output
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--min-n", "20", "--json"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.output[result.output.index("{"):])
    rows = [r for r in s["paired_by_seed"] if r["kind"] == "card"]
    planted = next(r for r in rows if r["key"].startswith("42 "))
    assert planted["significant"] and planted["q"] <= DEFAULT_FDR and planted["delta"] > 0.15
    others = [r for r in rows if r is not planted]
    assert not [r["key"] for r in others if r["significant"]]
    assert sum(r["excludes_zero"] for r in others) >= 1  # chance alone, starred before the control
    assert s["question"].startswith("what changed across the re-run games")
    text = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--min-n", "20"]).output
    assert "question: what changed across the re-run games" in text
    starred = [line for line in text.splitlines() if " pts *" in line]
    assert len(starred) >= 1 and all(line.lstrip().startswith(("42 ", "type:", "cost:", "keyword:", "area:",
                                                                "draw:", "health:", "efficiency:"))
                                     for line in starred), starred
