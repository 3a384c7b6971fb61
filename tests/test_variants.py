"""Ruleset variants as files (issue 10): parsing and validation, identity in game_created, known effects of
single changes, `rules diff`, `rerun` and `whatif`."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from locm.engine.locm.playing import play
from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.rulesets import RULES_12, RULES_CONSTRUCTED, rules_hash
from locm.engine.locm.rulesdiff import diff_rows
from locm.engine.locm.variants import OVERRIDABLE, VariantError, parse_variant, variant_from_dict
from locm.events.locm.cards import keywords_to_str
from locm.events.locm.catalog import (ActionRejected, CreatureSummoned, DrawLost, GameCreated, GameEnded, PlayerDamaged,
                            PlayerHealed, TurnStarted)
from locm.events.locm.codec import from_jsonl, to_json, to_jsonl
from locm.cli.main import cli
from locm.games.locm.play import build_agents, play_one
from locm.store.eventstore import open_store
from locm.games.locm.variants import resolve_ruleset
from locm.engine import registry
from locm.tournament.rerun import first_divergence, rerun_match
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "variants").glob("*.toml"))
BASES = {"1.2": RULES_12, "constructed": RULES_CONSTRUCTED}
LOCM = registry.get("locm")


def variant(base: str, **changes):
    return variant_from_dict({"base": base, "name": "v", **changes}, "v.toml")


# --- files -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_example_files_are_valid_variants_that_play(path):
    rules = resolve_ruleset(str(path))
    assert rules.name == path.stem and rules.base in BASES and diff_rows(BASES[rules.base], rules)
    game = play_one(rules, 3, ("greedy", "random"))
    assert game.ended and game.log[0].rules == rules


def test_a_file_resolves_to_its_values_and_card_changes():
    rules = parse_variant('base = "1.2"\nname = "x"\nstart_health = 12\nrunes = [10, 5]\n'
                          '[cards.116]\ncost = 5\nkeywords = "B---LW"\n', "x.toml")
    assert (rules.name, rules.base, rules.start_health, rules.runes) == ("x", "1.2", 12, (10, 5))
    (card,) = rules.cards
    original = cardlist_12()[116]
    assert (card.base_id, card.cost, keywords_to_str(card.keywords)) == (116, 5, "B---LW")
    assert (card.attack, card.defense, card.name) == (original.attack, original.defense, original.name)


def test_the_changed_card_is_the_one_in_the_game():
    rules = variant("1.2", cards={"116": {"cost": 0}})
    game = Game.new(rules, 5, {"predefinedDraftIds": ",".join(["1_116_2"] * 30)})
    pool = {c.base_id: c for c in game.log[1].cards}
    assert pool[116].cost == 0 and pool[1] == cardlist_12()[1]


def test_generator_weights_change_the_generated_cards_and_travel_in_the_log():
    rules = variant("constructed", weights={"typeProbabilities": {"creature": 5.0}})
    assert json.loads(rules.card_weights)["typeProbabilities"]["creature"] == 5.0
    base_cards = Game.new(RULES_CONSTRUCTED, 9).log[1].cards
    cards = Game.new(rules, 9).log[1].cards
    assert sum(c.type == 0 for c in cards) > sum(c.type == 0 for c in base_cards)
    # the log alone re-creates the game: the weights are in game_created
    assert Game.from_created(Game.new(rules, 9).log[0]).log[1].cards == cards


def test_generated_card_changes_change_only_the_matching_cards_in_their_places():
    rules = variant("constructed", generated=[{"when": {"type": "creature", "keyword": "guard"}, "add": {"attack": 3}},
                                              {"when": {"cost": 2}, "set": {"keywords": "-----W"}}])
    for seed in (4, 9):
        base = Game.new(RULES_CONSTRUCTED, seed).log[1].cards
        cards = Game.new(rules, seed).log[1].cards
        assert [c.base_id for c in cards] == [c.base_id for c in base]
        for a, b in zip(base, cards):
            guard = a.type == 0 and a.keywords & 8
            expected = a.attack + 3 if guard else a.attack
            assert b.attack == expected and b.cost == a.cost, (seed, a, b)
            assert b.keywords == (32 if a.cost == 2 else a.keywords), (seed, a, b)
        assert any(a != b for a, b in zip(base, cards))
        # the log alone re-creates the game: the changes are in game_created's rules
        assert Game.from_created(Game.new(rules, seed).log[0]).log[1].cards == cards
    assert [r.field for r in diff_rows(RULES_CONSTRUCTED, rules)] == ["generated[1]", "generated[2]"]


CHANGE_FIELDS = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["creature", "itemGreen", "itemRed", "itemBlue"]),
    "attack": st.integers(-99, 99), "defense": st.integers(-99, 99), "my_health": st.integers(-9, 9),
    "opp_health": st.integers(-9, 9), "draw": st.integers(0, 4), "area": st.sampled_from(["target", "lane1", "lane2"]),
    "keywords": st.sampled_from(["------", "BCDGLW", "---G--", "-C---W"])})
WHEN = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["creature", "itemGreen", "itemRed", "itemBlue"]), "cost": st.integers(0, 12),
    "keyword": st.sampled_from(["guard", "ward", "none", "lethal"]), "min_draw": st.integers(0, 2)})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(when=WHEN, set_=CHANGE_FIELDS, add=st.fixed_dictionaries({}, optional={
    "attack": st.integers(-20, 20), "defense": st.integers(-20, 20), "draw": st.integers(-3, 3)}),
       seed=st.integers(0, 2**40))
def test_any_generated_change_a_file_accepts_plays_to_the_end(when, set_, add, seed):
    """A value a ruleset accepts must play: whatever a [[generated]] table sets or adds, the cards keep the
    generator's bounds (a creature's defense at least 1) and a game of random and look-ahead agents ends."""
    table = {"when": when, "set": set_} if set_ or not add else {"when": when}
    if add:
        table["add"] = add
    rules = variant("constructed", generated=[table])
    game = Game.new(rules, seed)
    assert all(c.defense >= 1 for c in game.log[1].cards if c.type == 0)
    play(game, build_agents(("random", "lookahead"), seed))
    assert game.ended and fold(game.log) == game.state


BAD = [
    ('base = "2.0"', "base", '"1.2" or "constructed"'),
    ('name = "x"', "base", "a base ruleset"),
    ('base = "1.2"\nstart_hp = 3', "start_hp", "a known field"),
    ('base = "1.2"\nstart_health = "ten"', "start_health", "an integer in 1..1000"),
    ('base = "1.2"\nstart_health = 0', "start_health", "an integer in 1..1000"),
    ('base = "1.2"\nlane_size = 1.5', "lane_size", "an integer in 1..10"),
    ('base = "1.2"\nrunes = [5, 10]', "runes", "largest first"),
    ('base = "1.2"\nfull_hand_stops_draws = 1', "full_hand_stops_draws", "true or false"),
    ('base = "1.2"\nid_scheme = "revised"', "id_scheme", "fixed by the base"),
    ('base = "1.2"\nmax_copies = 3', "max_copies", "constructed"),
    ('base = "constructed"\ndraft_rounds = 10', "draft_rounds", "no draft"),
    ('base = "1.2"\n[cards.161]\ncost = 1', "cards.161", "a card id of the 1.2 list"),
    ('base = "1.2"\n[cards.abc]\ncost = 1', "cards.abc", "a card id"),
    ('base = "1.2"\n[cards.5]\nmana = 1', "cards.5.mana", "a card field"),
    ('base = "1.2"\n[cards.5]\nkeywords = "XX"', "cards.5.keywords", "six characters"),
    ('base = "1.2"\n[cards.5]\ndefense = 0', "cards.5.defense", "at least 1 for a creature"),
    ('base = "constructed"\n[cards.5]\ncost = 1', "cards", "generated per game"),
    ('base = "constructed"\n[weights.typeProbabilities]\ndragon = 1.0', "weights.typeProbabilities.dragon",
     "a key of typeProbabilities"),
    ('base = "constructed"\n[weights.typeProbabilities]\ncreature = 0\nitemGreen = 0\nitemRed = 0\n'
     'itemBlue = 0', "weights", "at least one positive weight"),
    ('base = "1.2"\n[[generated]]\nset = { attack = 1 }', "generated", "no generated-card changes under 1.2"),
    ('base = "constructed"\n[[generated]]\nwhen = { keyword = "gaurd" }\nadd = { attack = 1 }',
     "generated[1].when.keyword", "one of breakthrough"),
    ('base = "constructed"\n[[generated]]\nwhen = { cost = 2 }', "generated[1]", "set = {...} and/or add"),
    ('base = "constructed"\n[[generated]]\nadd = { atack = 1 }', "generated[1]", "fields of when"),
    ('base = "constructed"\n[[generated]]\nset = { cost = 1 }', "generated[1].set.cost", "no cost change"),
    ('base = "constructed"\n[[generated]]\nset = { keywords = "G" }', "generated[1].set.keywords", "six characters"),
    ('base = "constructed"\ngenerated = 3', "generated", "[[generated]] tables"),
    ('base = "1.2"\nname = "1.2"', "name", "other than a built-in"),
    ('base = "1.2"\nname = "a b"', "name", "a name of letters"),
    ('base = "1.2"\nstart_health = ', "", "a TOML document"),
]


@pytest.mark.parametrize("text, field, expected", BAD, ids=[b[1] or "toml" for b in BAD])
def test_a_bad_file_is_one_error_naming_the_file_the_field_and_what_was_expected(text, field, expected):
    with pytest.raises(VariantError) as info:
        parse_variant(text, "bad.toml", "bad")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"bad.toml: {field}" if field else "bad.toml: ")
    assert expected in message


@pytest.mark.parametrize("content, expected", [
    (None, "no such ruleset file"),
    ("base = [", "expected a TOML document"),
    ('base = "9"', "base: expected"),
    ('base = "1.2"\nhealth = 3', "health: expected a known field"),
    ('base = "1.2"\n[cards.999]\ncost = 1', "cards.999: expected a card id"),
], ids=["missing", "broken toml", "unknown base", "unknown field", "unknown card"])
@pytest.mark.parametrize("command", ["play", "tournament"])
def test_the_cli_refuses_a_bad_ruleset_file_in_one_line_and_stores_nothing(tmp_path, content, expected, command):
    path = tmp_path / "v.toml"
    if content is not None:
        path.write_text(content)
    db = tmp_path / "games.db"
    args = (["play", "--seed", "1"] if command == "play" else ["tournament", "--agents", "greedy", "random",
                                                               "--games", "2"])
    result = CliRunner().invoke(cli, [*args, "--ruleset", str(path), "--db", str(db)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"locm: error: {path}") and expected in lines[0]
    assert not db.exists()


def test_an_unknown_ruleset_name_says_what_is_expected():
    result = CliRunner().invoke(cli, ["play", "--seed", "1", "--ruleset", "1.3"])
    assert result.exit_code == 2 and "or a ruleset file" in result.output


# --- identity --------------------------------------------------------------------------------------------------


def test_game_created_records_the_variant_name_base_and_content_hash():
    rules = variant("1.2", start_health=20, runes=[15, 10, 5])
    created = Game.new(rules, 4).log[0]
    assert (created.ruleset, created.rules.name, created.rules.base) == ("v", "v", "1.2")
    assert created.rules_hash == rules_hash(rules) == msgspec.json.decode(to_json(created), type=GameCreated).rules_hash
    assert rules_hash(rules) != rules_hash(RULES_12)
    # the hash is of the values, not of the names
    assert rules_hash(variant("1.2")) == rules_hash(RULES_12)
    assert rules_hash(rules.replace(name="other")) == rules_hash(rules)


@pytest.mark.parametrize("base", ["1.2", "constructed"])
def test_a_variant_equal_to_its_base_gives_the_same_logs_apart_from_the_identity(base):
    same = variant(base)
    for seed in (1, 2, 3, 4):
        agents = ("greedy", "random") if seed % 2 else ("random", "greedy")
        a, b = play_one(base, seed, agents).log, play_one(same, seed, agents).log
        assert [to_json(e) for e in a[1:]] == [to_json(e) for e in b[1:]]
        ca, cb = msgspec.structs.asdict(a[0]), msgspec.structs.asdict(b[0])
        assert {k for k in ca if ca[k] != cb[k]} == {"ruleset", "rules"}
        assert ca["rules"].replace(name="v", base=base) == cb["rules"] and cb["rules"].base_name == base
        assert a[0].rules_hash == b[0].rules_hash
        for rules_b in (same, BASES[base]):  # re-run the base game under the variant, and the variant's under 1.2
            report = rerun_match(LOCM, "g", a if rules_b is same else b, rules_b)
            assert report.seq is None and report.outcome_a == report.outcome_b
            assert "no divergence" in "\n".join(report.lines())


def test_a_stored_variant_game_verifies_and_lists_its_identity(tmp_path):
    path = tmp_path / "low.toml"
    path.write_text('base = "1.2"\nname = "low"\nstart_health = 15\nrunes = [10, 5]\n')
    db = tmp_path / "g.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["play", "--seed", "3", "--ruleset", str(path), "--db", str(db)]).exit_code == 0
    listed = runner.invoke(cli, ["games", "--db", str(db)])
    assert f"1.2 #{rules_hash(resolve_ruleset(str(path)))[:12]}" in listed.output and " low " in listed.output
    verified = runner.invoke(cli, ["verify", "--db", str(db)])
    assert verified.exit_code == 0 and "1 good" in verified.output
    with open_store(db, create=False) as store:
        (record,) = store.games()
        events = store.events(record.game_id)
    # verify re-folds with the log's own values: the fold gives the variant's health, not 1.2's
    assert fold(events[:5]).players[0].health == 15


def test_two_variants_of_one_name_but_different_values_get_different_game_ids():
    from locm.games.locm.tournament import game_id

    a, b = variant("1.2", start_health=10, runes=[5]), variant("1.2", start_health=11, runes=[5])
    assert game_id(a, 1, ("greedy", "random")) != game_id(b, 1, ("greedy", "random"))
    assert game_id(RULES_12, 1, ("greedy", "random")) == game_id("1.2", 1, ("greedy", "random"))


# --- known effects ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", ["1.2", "constructed"])
def test_start_health_1_ends_every_game_on_the_first_damage(base):
    rules = variant(base, start_health=1, **({"runes": []} if base == "1.2" else {}))
    checked = 0
    for seed in range(1, 13):
        log = play_one(rules, seed, ("greedy", "random")).log
        first = next(e for e in log if type(e) is PlayerDamaged)
        if any(type(e) is PlayerHealed and e.player == first.player for e in log[:first.seq]):
            continue  # a heal before the first damage: that damage may leave the player standing
        end = log[-1]
        assert type(end) is GameEnded and (end.winner, end.reason) == (1 - first.player, "health")
        assert all(e.cause != -1 for e in log[first.seq:]), "the game ends within the input that dealt it"
        checked += 1
    assert checked >= 8


def test_lane_size_1_refuses_a_second_summon_in_a_lane():
    rules = variant("1.2", lane_size=1)
    game = Game.new(rules, 3, {"predefinedDraftIds": ",".join(["83_83_83"] * 30)})  # Restless Owl costs 0
    while game.phase == "draft":
        game.answer(game.to_move, "PICK 0")
    a, b, c = [u.id for u in game.state.players[0].hand][:3]
    events = game.answer(0, f"SUMMON {a} 0;SUMMON {b} 0;SUMMON {c} 1")
    summoned = [(e.id, e.lane) for e in events if type(e) is CreatureSummoned]
    (rejected,) = [e for e in events if type(e) is ActionRejected]
    assert summoned == [(a, 0), (c, 1)]
    assert (rejected.action, rejected.rule) == (f"SUMMON {b} 0", "R-ACTIONS") and "lane 0" in rejected.reason
    # the same answer under 1.2 summons all three
    base = Game.new("1.2", 3, {"predefinedDraftIds": ",".join(["83_83_83"] * 30)})
    while base.phase == "draft":
        base.answer(base.to_move, "PICK 0")
    events = base.answer(0, f"SUMMON {a} 0;SUMMON {b} 0;SUMMON {c} 1")
    assert sum(type(e) is CreatureSummoned for e in events) == 3


def _first_turn_summons(rules) -> list:
    game = Game.new(rules, 5, {"predefinedDraftIds": ",".join(["1_116_2"] * 30)}, agents=("greedy", "random"))
    play(game, build_agents(("greedy", "random"), 5))
    turn, out = -1, []
    for e in game.log:
        if type(e) is TurnStarted:
            turn = e.turn
        elif type(e) is CreatureSummoned and turn == 0:
            out.append((e.base_id, e.cost))
    return out


def test_a_card_made_free_is_summoned_on_turn_one_by_greedy():
    assert (116, 0) in _first_turn_summons(variant("1.2", cards={"116": {"cost": 0}}))
    assert all(b != 116 for b, _ in _first_turn_summons(RULES_12))  # at cost 12 it cannot be


def test_hand_limit_5_loses_draws():
    rules = variant("1.2", hand_limit=5)
    lost = base_lost = 0
    for seed in (1, 2, 3):
        log = play_one(rules, seed, ("greedy", "random")).log
        for e in log:
            if type(e) is DrawLost:
                lost += 1
                assert e.reason == "hand_full" and len(fold(log[:e.seq]).players[e.player].hand) == 5
        state = fold(log)
        assert all(len(p.hand) <= 5 for p in state.players)
        base_lost += sum(type(e) is DrawLost for e in play_one("1.2", seed, ("greedy", "random")).log)
    assert lost > base_lost


# --- rules diff ------------------------------------------------------------------------------------------------


def _value_for(field: str, base, data) -> object:
    current = getattr(base, field)
    check = OVERRIDABLE[field]
    if field == "runes":
        return data.draw(st.lists(st.integers(1, 60), max_size=5, unique=True).map(lambda v: sorted(v, reverse=True))
                         .filter(lambda v: tuple(v) != current))
    if type(current) is bool:
        return not current
    if type(current) is str:
        options = [o for o in ("runes", "damage_draw", "lose_rune", "ten_damage") if check.ok(o) and o != current]
        return data.draw(st.sampled_from(options))
    lo, hi = (int(x) for x in check.expected.split()[-1].split(".."))
    return data.draw(st.integers(lo, min(hi, 240)).filter(lambda v: v != current and check.ok(v)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_single_field_variant_differs_from_its_base_in_exactly_that_field(data):
    base_name = data.draw(st.sampled_from(["1.2", "constructed"]))
    base = BASES[base_name]
    fields = [f for f in OVERRIDABLE
              if not (base_name == "1.2" and f in ("deck_size", "max_copies"))
              and not (base_name == "constructed" and f == "draft_rounds")]
    field = data.draw(st.sampled_from(fields))
    value = _value_for(field, base, data)
    try:
        rules = variant(base_name, **{field: value})
    except VariantError:  # a value that needs another field changed with it (e.g. runes below start_health)
        reject()
    assert [r.field for r in diff_rows(base, rules)] == [field]
    assert [r.field for r in diff_rows(rules, base)] == [field]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 160), st.sampled_from(["cost", "attack", "draw"]), st.integers(0, 9))
def test_a_single_card_change_is_listed_as_that_card_and_field(card_id, field, value):
    original = getattr(cardlist_12()[card_id], field)
    rules = variant("1.2", cards={str(card_id): {field: value}})
    expected = [] if value == original else [f"cards.{card_id}.{field}"]
    assert [r.field for r in diff_rows(RULES_12, rules)] == expected


def test_rules_diff_takes_files_and_prints_rule_ids_and_card_rows(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text('base = "1.2"\nname = "v"\nlane_size = 2\n[cards.116]\ncost = 5\n')
    result = CliRunner().invoke(cli, ["rules", "diff", "1.2", str(path)])
    assert result.exit_code == 0
    rows = {line.split()[1]: line.split() for line in result.output.splitlines()[2:-1]}
    assert rows["lane_size"][:4] == ["R-ACTIONS", "lane_size", "3", "2"]
    assert rows["cards.116.cost"][:4] == ["R-DRAFT", "cards.116.cost", "12", "5"]
    assert result.output.strip().endswith("2 differences")
    data = json.loads(CliRunner().invoke(cli, ["rules", "diff", str(path), "constructed", "--json"]).output)
    fields = {d["field"] for d in data["differences"]}
    assert {"lane_size", "cards.116.cost", "deck_building"} <= fields and not fields & {"name", "base"}
    assert (data["left"]["base"], data["right"]["base"]) == ("1.2", "constructed")


# --- rerun and whatif ----------------------------------------------------------------------------------------


def test_first_divergence_ignores_a_card_pool_changed_only_in_values():
    a = play_one("1.2", 7, ("greedy", "random")).log
    b = play_one(variant("1.2", cards={"116": {"cost": 11}}), 7, ("greedy", "random")).log
    assert a[1] != b[1] or all(c.base_id != 116 for c in a[1].cards)
    seq = first_divergence(LOCM, a, b)
    assert seq is None or seq > 1


def test_rerun_shows_the_first_divergence_with_its_rule_boards_and_outcomes(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    var = tmp_path / "runes.toml"
    var.write_text('base = "1.2"\nname = "few-runes"\nruns = 1\n')
    bad = CliRunner().invoke(cli, ["rerun", str(log), "--ruleset", str(var)])
    assert bad.exit_code == 2 and "runs: expected a known field" in bad.output
    var.write_text('base = "1.2"\nname = "few-runes"\nruns = 1\n'.replace("runs = 1", "runes = [15, 10, 5]"))
    result = CliRunner().invoke(cli, ["rerun", str(log), "--ruleset", str(var), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    d = data["divergence"]
    # under 1.2 the 25 rune breaks; under the variant there is no such rune, the game goes on
    assert (d["event_a"]["type"], d["event_a"]["rune"]) == ("rune_broken", 25)
    assert d["event_b"]["type"] != "rune_broken"
    assert d["rule_a"] == "R-RUNES" and d["changed_settings_of_that_rule"] == ["runes"]
    assert "P0  health" in d["board_a"] and "lane 0:" in d["board_b"]  # the `locm show` board
    assert data["outcome_a"]["winner"] in (0, 1) and data["outcome_b"]["winner"] in (0, 1)
    text = CliRunner().invoke(cli, ["rerun", str(log), "--ruleset", str(var)]).output
    assert f"first divergence at seq {d['seq']}" in text and "outcome under few-runes" in text


def test_rerun_reads_a_stored_game_by_a_unique_prefix(tmp_path):
    db = tmp_path / "g.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["play", "--seed", "7", "--db", str(db)]).exit_code == 0
    result = runner.invoke(cli, ["rerun", "1.2-7", "--db", str(db), "--ruleset", "1.2"])
    assert result.exit_code == 0 and "no divergence" in result.output
    missing = runner.invoke(cli, ["rerun", "1.2-8", "--db", str(db), "--ruleset", "1.2"])
    assert missing.exit_code == 2 and "no stored game id starts with '1.2-8'" in missing.output


def test_rerun_of_a_stored_schema_1_log_reads_it_as_the_current_schema(tmp_path):
    # A store keeps a log as it was appended; an old (schema 1) one has no rules in its game_created.
    old = from_jsonl((Path(__file__).parent / "golden" / "v1" / "1.2-seed7-greedy-vs-random.jsonl").read_bytes())
    assert old[0].rules is None
    db = tmp_path / "old.db"
    with open_store(db) as store:
        store.append_game(LOCM_GAME, {"game_id": "old-7"}, old)
    result = CliRunner().invoke(cli, ["rerun", "old-7", "--db", str(db), "--ruleset", "1.2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["outcome_a"] == data["outcome_b"]  # the same game: only how its inputs were recorded differs
    d = data["divergence"]
    assert (d["event_a"]["kind"], d["event_b"]["kind"]) == ("line", "action")


def test_rerun_refuses_a_ruleset_of_the_other_deck_building(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    result = CliRunner().invoke(cli, ["rerun", str(log), "--ruleset", "constructed"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_whatif_stores_the_reruns_and_reports_with_intervals(tmp_path):
    db = tmp_path / "t.db"
    runner = CliRunner()
    made = runner.invoke(cli, ["tournament", "--agents", "greedy", "random", "--games", "6", "--db", str(db)])
    assert made.exit_code == 0, made.output
    var = tmp_path / "short.toml"
    var.write_text('base = "1.2"\nname = "short"\nstart_health = 10\nrunes = [5]\n')
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--json", "--min-n", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["games"] == 6 and data["rerun_now"] == 6
    assert data["winner_changed"]["n"] == 6 and 0 <= data["winner_changed"]["low"] <= data["winner_changed"]["high"]
    assert data["game_length_turns"]["b"]["mean"] < data["game_length_turns"]["a"]["mean"]
    assert data["first_player_win_rate"]["a"]["n"] == 6 and data["cards_in_hand_win_rate_moves"]
    with open_store(db, create=False) as store:
        reruns = store.games(ruleset="short")
        assert len(reruns) == 6
        assert all(store.events(r.game_id)[0].rules.start_health == 10 for r in reruns)
    # a second run reads the stored re-runs back (and with 2 workers gives the same figures)
    again = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--json", "--min-n", "1",
                                "--workers", "2"])
    data2 = json.loads(again.output[again.output.index("{"):])
    assert data2["reused_from_store"] == 6 and data2["rerun_now"] == 0
    for key in ("winner_changed", "first_player_win_rate", "game_length_turns", "damage_per_game_by_source",
                "cards_in_hand_win_rate_moves"):
        assert data2[key] == data[key]
    text = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--games", "2"]).output
    assert "2 games of 1.2 re-run under short" in text and "winner changes:" in text
    verified = runner.invoke(cli, ["verify", "--db", str(db)])
    assert verified.exit_code == 0 and "12 good" in verified.output


def test_locm_goes_through_the_one_rerun_and_whatif_of_every_game(tmp_path):
    """No hook replaces LOCM's whole command: its whatif is every game's (`locm.tournament.whatif`), with the
    per-agent paired win rates every game has (counted here from the stored games and independent re-plays),
    and its own sections added by its wing's hooks; a ruleset A that builds decks another way is refused."""
    from locm.games.locm.rerun import rerun_game
    from locm.games.registry import HOOKS

    assert "rerun" not in HOOKS and "whatif" not in HOOKS
    db = tmp_path / "t.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["tournament", "--agents", "greedy", "random", "--games", "4", "--db",
                               str(db)]).exit_code == 0
    var = tmp_path / "short.toml"
    var.write_text('base = "1.2"\nname = "short"\nstart_health = 10\nrunes = [5]\n')
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(var), "--json", "--min-n", "1"])
    data = json.loads(result.output[result.output.index("{"):])
    assert data["game"] == "locm" and data["ruleset_b"]["base"] == "1.2" and data["damage_per_game_by_source"]
    won_a = won_b = 0
    with open_store(db, create=False) as store:
        for r in store.games(ruleset="1.2"):
            seat = r.agents.index("greedy")
            b = rerun_game(store.events(r.game_id), resolve_ruleset(str(var))).game.log[-1]
            won_a, won_b = won_a + (r.winner == seat), won_b + (b.winner == seat)
    greedy = data["agents"]["greedy"]
    assert greedy["units"] == 4 and greedy["delta"] == round((won_b - won_a) / 4, 5)
    assert greedy["win_rate_a"]["k"] == won_a and greedy["win_rate_b"]["k"] == won_b
    across = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", "constructed", "--ruleset-a", "1.2"])
    assert across.exit_code == 2 and "a game cannot be re-run across them" in across.output


def test_a_tournament_under_a_variant_file_plays_in_worker_processes(tmp_path):
    var = tmp_path / "v.toml"
    var.write_text('base = "constructed"\nname = "two-lanes"\nlane_size = 2\n')
    db = tmp_path / "t.db"
    result = CliRunner().invoke(cli, ["tournament", "--ruleset", str(var), "--agents", "greedy", "random",
                                      "--games", "2", "--db", str(db), "--workers", "2"])
    assert result.exit_code == 0, result.output
    with open_store(db, create=False) as store:
        records = store.games(ruleset="two-lanes")
        assert len(records) == 2
        assert all(store.events(r.game_id)[0].rules.lane_size == 2 for r in records)


def test_rerun_runs_an_external_bot_again_as_a_process():
    import shlex
    import sys

    from locm.runner.bots import TimeLimits
    from locm.games.locm.tournament import run_game

    spec = shlex.join([sys.executable, str(ROOT / "tests" / "bots" / "good_bot.py")])
    limits = TimeLimits.parse("x5")
    played = run_game("1.2", 4, (spec, "greedy"), limits=limits)
    assert played.game.log[0].agents[0] == spec
    same = rerun_match(LOCM, "g", played.game.log, variant("1.2"), limits=limits)
    assert same.seq is None  # the bot answers as before: the same game
    short = rerun_match(LOCM, "g", played.game.log, variant("1.2", start_health=5, runes=[]), limits=limits)
    assert short.seq is not None and short.outcome_b.turns < short.outcome_a.turns
    assert any(type(e).__name__ == "ActionReceived" and e.kind == "line" and e.player == 0 for e in short.log_b)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_log_written_before_variants_still_decodes_and_re_decides(ruleset):
    from locm.engine.locm.redecide import redecide
    from locm.events.locm.codec import from_jsonl

    lines = to_jsonl(play_one(ruleset, 3, ("greedy", "random")).log).splitlines(keepends=True)
    created = json.loads(lines[0])
    del created["rules_hash"]
    for key in ("base", "cards", "card_weights"):
        del created["rules"][key]
    old = [json.dumps(created, separators=(",", ":")).encode() + b"\n"] + lines[1:]
    events = list(from_jsonl(b"".join(old)))
    assert events[0].rules.base_name == ruleset and events[0].rules_hash == ""
    assert redecide(events).ok


def test_whatif_under_a_variant_equal_to_the_base_changes_nothing_and_bad_files_store_nothing(tmp_path):
    db = tmp_path / "t.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["tournament", "--ruleset", "constructed", "--agents", "greedy", "random",
                               "--games", "4", "--db", str(db)]).exit_code == 0
    same = tmp_path / "same.toml"
    same.write_text('base = "constructed"\nname = "same"\n')
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", str(same), "--json", "--min-n", "1"])
    data = json.loads(result.output[result.output.index("{"):])
    assert data["games"] == 4 and data["winner_changed"]["k"] == 0
    for key in ("first_player_win_rate", "game_length_turns"):
        assert data[key]["a"] == data[key]["b"]
    assert all(v["a"] == v["b"] for v in data["damage_per_game_by_source"].values())
    assert all(m["move"] == 0 for m in data["cards_in_hand_win_rate_moves"])
    with open_store(db, create=False) as store:
        before = store.count()
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "constructed"\nlane_size = 0\n')
    for args in (["whatif", "--db", str(db), "--ruleset", str(bad)], ["whatif", "--db", str(db), "--ruleset",
                                                                      str(tmp_path / "missing.toml")]):
        refused = runner.invoke(cli, args)
        assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    with open_store(db, create=False) as store:
        assert store.count() == before


def _low_variant_games(tmp_path: Path, games: int) -> tuple[Path, Path]:
    """A variant file "low" (1.2 at 8 health) and a store of `games` greedy-vs-random games under it."""
    db, var = tmp_path / "t.db", tmp_path / "low.toml"
    var.write_text('base = "1.2"\nname = "low"\nstart_health = 8\nrunes = [5]\n')
    assert CliRunner().invoke(cli, ["tournament", "--ruleset", str(var), "--agents", "greedy", "random",
                                    "--games", str(games), "--db", str(db)]).exit_code == 0
    return db, var


def test_whatif_from_games_of_a_variant_file_back_to_the_built_in(tmp_path):
    db, var = _low_variant_games(tmp_path, 4)
    runner = CliRunner()
    var2 = tmp_path / "low2.toml"  # the same name, other values: its games are not the ones of low.toml
    var2.write_text('base = "1.2"\nname = "low"\nstart_health = 9\nrunes = [5]\n')
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", "1.2", "--ruleset-a", str(var),
                                 "--json", "--min-n", "1"])
    data = json.loads(result.output[result.output.index("{"):])
    assert (data["ruleset_a"], data["ruleset_b"]["name"], data["games"]) == ("low", "1.2", 4)
    assert data["game_length_turns"]["a"]["mean"] < data["game_length_turns"]["b"]["mean"]
    other = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", "1.2", "--ruleset-a", str(var2), "--json"])
    data2 = json.loads(other.output[other.output.index("{"):])
    assert data2["games"] == 0 and data2["skipped"] == 4


def test_games_filters_by_a_variant_name_or_file(tmp_path):
    var = tmp_path / "low.toml"
    var.write_text('base = "1.2"\nname = "low"\nstart_health = 8\nrunes = [5]\n')
    db = tmp_path / "g.db"
    runner = CliRunner()
    for ruleset in (str(var), "1.2"):
        assert runner.invoke(cli, ["play", "--seed", "2", "--ruleset", ruleset, "--db", str(db)]).exit_code == 0
    for spec in ("low", str(var)):
        out = runner.invoke(cli, ["games", "--db", str(db), "--ruleset", spec]).output
        assert out.strip().endswith("1 Legends of Code and Magic game") and "low-2-" in out
    unknown = runner.invoke(cli, ["games", "--db", str(db), "--ruleset", "high"])
    assert unknown.exit_code == 2 and "unknown ruleset 'high'" in unknown.output


def test_whatif_takes_the_name_of_a_stored_variant_as_ruleset_a(tmp_path):
    db, _ = _low_variant_games(tmp_path, 2)
    runner = CliRunner()
    result = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", "1.2", "--ruleset-a", "low", "--json"])
    data = json.loads(result.output[result.output.index("{"):])
    assert (data["ruleset_a"], data["games"]) == ("low", 2)
    unknown = runner.invoke(cli, ["whatif", "--db", str(db), "--ruleset", "1.2", "--ruleset-a", "lower"])
    assert unknown.exit_code == 2 and "unknown ruleset 'lower'" in unknown.output


def test_report_and_cards_stats_take_a_variant_file_or_its_stored_name(tmp_path):
    db, var = _low_variant_games(tmp_path, 2)
    runner = CliRunner()
    for spec in (str(var), "low"):
        stats = runner.invoke(cli, ["cards", "stats", "--db", str(db), "--ruleset", spec, "--min-games", "1"])
        assert stats.exit_code == 0, stats.output
        assert stats.output.splitlines()[2].split()[0] == "low" and ": 2 games (2 player-games)" in stats.output
        report = runner.invoke(cli, ["report", "--db", str(db), "--ruleset", spec, "-o", str(tmp_path / "r")])
        assert report.exit_code == 0, report.output
        assert report.stdout.startswith("2 games (low: 2)")
        assert {row["ruleset"] for row in json.loads((tmp_path / "r" / "cards.json").read_text())} == {"low"}
    other = tmp_path / "low2.toml"  # the same name, other values: its games are not in this store
    other.write_text('base = "1.2"\nname = "low"\nstart_health = 9\nrunes = [5]\n')
    for command in (["cards", "stats"], ["report", "-o", str(tmp_path / "r2")]):
        refused = runner.invoke(cli, [*command, "--db", str(db), "--ruleset", str(other)])
        assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1, refused.output
        assert "2 of the 2 stored games named 'low' ran under other values than this file's" in refused.output
    assert not (tmp_path / "r2").exists()
