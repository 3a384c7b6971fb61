"""The 1.5 card generator against the referee (R-CARDGEN): derived vectors and all 50 official 1.5 logs."""

from __future__ import annotations

import functools
import gzip
import json
import re
from bisect import bisect_left
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from locm.engine.locm import cardgen
from locm.engine.locm.cardgen import (
    SUMMARY_PREFIX,
    card_to_string,
    format_generated_cards,
    generate_cards,
)
from locm.engine.jrandom import JavaRandom
from locm.events.locm.cards import BLUE, CREATURE, GREEN, RED

DATA = Path(__file__).parent / "data"
VECTORS = DATA / "java-random-vectors.txt"
GAMES_15 = DATA / "official-1.5-games-00-49.txt.gz"
SEED_PARAMS_15 = ("cardGenSeed", "constructedChoicesSeed", "shufflePlayer0Seed", "shufflePlayer1Seed")


@functools.cache
def _vector_sets() -> dict[int, list[str]]:
    """cardGenSeed -> the 120 card lines (Card.toString, trailing space kept) of each generated-set section."""
    sets: dict[int, list[str]] = {}
    lines = VECTORS.read_text().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"## LOCM 1\.5 generated card set, cardGenSeed=(-?\d+)", line)
        if not m:
            continue
        block = []
        for body in lines[i + 1:]:
            if not body:
                break
            block.append(body)
        assert block[0].startswith(SUMMARY_PREFIX)
        block[0] = block[0][len(SUMMARY_PREFIX):]
        sets[int(m.group(1))] = block
    return sets


@functools.cache
def _games_15() -> list[tuple[dict, dict[str, str]]]:
    """Each official 1.5 game: its JSON log and its key=value parameters."""
    games = []
    with gzip.open(GAMES_15, "rt", encoding="utf-8") as f:
        for line in f:
            obj, end = json.JSONDecoder().raw_decode(line)
            params = dict(p.split("=", 1) for p in line[end:].split()[2:])
            games.append((obj, params))
    return games


def _card_gen_seed(params: dict[str, str]) -> int:
    """R-SEEDS 1.5: four nextLong() from Random(seed); an explicit parameter overrides its derived value."""
    rng = JavaRandom(int(params["seed"]))
    derived = {name: rng.next_long() for name in SEED_PARAMS_15}
    return int(params.get("cardGenSeed", derived["cardGenSeed"]))


def _logged_summary(obj: dict) -> str:
    found = [s for s in obj["summaries"] if s and s.startswith(SUMMARY_PREFIX)]
    assert len(found) == 1, f"expected one generated-cards summary, got {len(found)}"
    return found[0]


def test_vector_file_has_both_sets():
    sets = _vector_sets()
    assert sorted(sets) == [1, 42]
    assert all(len(block) == 120 for block in sets.values())


@pytest.mark.parametrize("seed", [1, 42])
def test_vector_set(seed):
    expected = _vector_sets()[seed]
    cards = generate_cards(seed)
    got = [card_to_string(c) for c in cards]
    for base_id, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"cardGenSeed={seed} baseId {base_id}: expected {e!r}, got {g!r}"
    assert len(got) == len(expected)
    assert format_generated_cards(cards) == (SUMMARY_PREFIX + ", ".join(expected)).rstrip(" ") + "\n"


def test_official_log_file_has_fifty_games_over_several_seeds():
    games = _games_15()
    assert len(games) == 50
    assert len({_card_gen_seed(params) for _, params in games}) >= 5


@pytest.mark.parametrize("game", range(50))
def test_official_game_summary(game):
    obj, params = _games_15()[game]
    seed = _card_gen_seed(params)
    expected = _logged_summary(obj)
    got = format_generated_cards(generate_cards(seed))
    if got != expected:  # name the first differing card rather than dump 4 kB
        for base_id, (g, e) in enumerate(zip(got.split(", "), expected.split(", "))):
            assert g == e, f"game {game} cardGenSeed={seed} baseId {base_id}: expected {e!r}, got {g!r}"
    assert got == expected, f"game {game} cardGenSeed={seed}"


def test_card_gen_seed_derivation_without_override():
    # R-SEEDS: with no explicit cardGenSeed, it is the first nextLong() of Random(seed).
    assert _card_gen_seed({"seed": "28554"}) == -7210014994276523211
    assert _card_gen_seed({"seed": "28554", "cardGenSeed": "4047"}) == 4047


@pytest.mark.parametrize("seed", [0, 1, 42, 4047, -7210014994276523211])
def test_set_invariants(seed):
    cards = generate_cards(seed)
    assert [c.base_id for c in cards] == list(range(120)), f"seed={seed}"
    assert [c.cost for c in cards] == sorted(c.cost for c in cards), f"seed={seed}"
    for c in cards:
        assert 0 <= c.cost <= 12 and 0 <= c.area <= 2, f"seed={seed} {c}"
        if c.type == CREATURE:
            assert c.attack >= 0 and c.defense >= 1, f"seed={seed} {c}"
        elif c.type == GREEN:
            assert c.attack >= 0 and c.defense >= 0, f"seed={seed} {c}"
        elif c.type == RED:
            assert c.attack <= 0 and c.defense <= 0, f"seed={seed} {c}"
        else:
            assert c.type == BLUE and c.attack == 0 and c.defense <= 0 and c.keywords == 0, f"seed={seed} {c}"


def test_deterministic_and_seed_sensitive():
    assert generate_cards(7) == generate_cards(7)
    assert generate_cards(7) != generate_cards(8)


def test_weights_loaded_once():
    assert cardgen._load_tables() is cardgen._load_tables()


def _all_choices():
    t = cardgen._load_tables()
    named = [("types", t.types), ("mana", t.mana), ("area", t.area), ("kw_count", t.kw_count),
             ("draw", t.draw), ("my_health", t.my_health), ("opp_health", t.opp_health)]
    named += [(f"keywords taken={mask:06b}", c) for mask, c in enumerate(t.keywords) if c is not None]
    return named


def test_weight_sums_do_not_depend_on_the_jdk():
    # Java's compensated sum changed its final step in JDK-8214761; the shipped weights must not care.
    def kahan(values, sign):
        total = comp = 0.0
        for v in values:
            y = v - comp
            t = total + y
            comp = (t - total) - y
            total = t
        return total - sign * comp

    for name, choice in _all_choices():
        for order in (choice.weights, choice.weights[::-1]):
            assert kahan(order, 1) == kahan(order, -1) == kahan(order, 0) == choice.total, name


@given(st.integers(min_value=0, max_value=2**53 - 1))
def test_threshold_pick_equals_referee_walk(d53):
    for name, choice in _all_choices():
        assert bisect_left(choice.thresholds, d53) == cardgen._walk(choice.weights, choice.total, d53), (
            f"{name} D={d53}")


def test_threshold_pick_equals_referee_walk_at_every_boundary():
    for name, choice in _all_choices():
        for t in choice.thresholds:
            for d53 in (t - 1, t, t + 1, t + 2):
                if 0 <= d53 < 2**53:
                    got = bisect_left(choice.thresholds, d53)
                    assert got == cardgen._walk(choice.weights, choice.total, d53), f"{name} D={d53}"


@given(st.integers(min_value=0, max_value=2**48 - 1), st.integers(min_value=1, max_value=40))
def test_packed_doubles_match_java_random(state, count):
    ref = JavaRandom(state ^ cardgen._MULT)  # a generator whose internal state is exactly `state`
    draws, after = cardgen._doubles(state, count)
    assert draws == [int(ref.next_double() * 2**53) for _ in range(count)], f"state={state}"
    assert cardgen._doubles(after, 1)[0] == [int(ref.next_double() * 2**53)], f"state={state}"


@given(st.integers(min_value=0, max_value=2**48 - 1), st.integers(min_value=1, max_value=40))
def test_first_states_give_java_random_doubles(state, count):
    ref = JavaRandom(state ^ cardgen._MULT)
    raw, after = cardgen._first_states(state, count)
    assert [cardgen._exact_d(raw, i) for i in range(count)] == [int(ref.next_double() * 2**53) for _ in range(count)]
    assert cardgen._exact_d(cardgen._first_states(after, 1)[0], 0) == int(ref.next_double() * 2**53)


def test_buckets_agree_with_the_walk():
    # a bucket's index is the walk's pick at both ends of the bucket (the walk never decreases in between)
    for name, choice in _all_choices():
        assert len(choice.buckets) == 256, name
        for b, index in enumerate(choice.buckets):
            first, last = b << 45, ((b + 1) << 45) - 1
            ends = {cardgen._walk(choice.weights, choice.total, first), cardgen._walk(choice.weights, choice.total, last)}
            assert (index == 255) == (len(ends) == 2), f"{name} bucket {b}"
            assert index == 255 or ends == {index}, f"{name} bucket {b}"


def test_fine_buckets_agree_with_the_walk():
    for name, choice in _all_choices():
        for b, table in choice.fine.items():
            assert choice.buckets[b] == 255, f"{name} bucket {b}"
            for c, index in enumerate(table):
                first = ((b << 8) | c) << 37
                ends = {cardgen._walk(choice.weights, choice.total, d) for d in (first, first + (1 << 37) - 1)}
                assert (index == 255) == (len(ends) == 2) and (index == 255 or ends == {index}), f"{name} {b}.{c}"


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_pick_indices_near_every_threshold(low_bits):
    # a draw whose D shares its top 16 bits with a threshold: the second-level bucket, then the exact D
    for name, choice in _all_choices():
        for t in choice.thresholds:
            first = ((t >> 37) << 32) | low_bits  # the double's first state: D's top 16 bits are its bits 32..47
            state = _state_before(first)
            d = int(JavaRandom(state ^ cardgen._MULT).next_double() * 2**53)
            assert list(cardgen._pick_indices(choice, state, 1)) == [cardgen._walk(choice.weights, choice.total, d)], (
                f"{name} t={t} state={state}")


@given(st.integers(min_value=0, max_value=2**48 - 1), st.integers(min_value=1, max_value=200))
def test_pick_indices_equal_the_walk(state, count):
    draws = cardgen._doubles(state, count)[0]
    for name, choice in _all_choices():
        expected = [cardgen._walk(choice.weights, choice.total, d) for d in draws]
        assert list(cardgen._pick_indices(choice, state, count)) == expected, f"{name} state={state}"


@given(st.integers(min_value=0, max_value=2**48 - 1), st.integers(min_value=1, max_value=30))
def test_shuffle_draws_match_java_random(state, cards):
    ref = JavaRandom(state ^ cardgen._MULT)
    expected = [(ref.next_int(5), ref.next_int(4), ref.next_int(3), ref.next_int(2)) for _ in range(cards)]
    got = [(n // 24, n // 6 % 4, n // 2 % 3, n % 2) for n in cardgen._shuffle_draws(state, cards)]
    assert got == expected, f"state={state}"


def test_order_steps_are_collections_shuffle():
    steps, orders, _ = cardgen._order_steps()
    for k in (0, 17, 119):
        for shuffle in range(120):
            order = list(orders[k])
            for i, j in ((4, shuffle // 24), (3, shuffle // 6 % 4), (2, shuffle // 2 % 3), (1, shuffle % 2)):
                order[i], order[j] = order[j], order[i]
            assert orders[steps[k][shuffle]] == tuple(order)


def _state_before(next_state: int) -> int:
    """The LCG state whose next step is `next_state`."""
    return (next_state - cardgen._ADD) * pow(cardgen._MULT, -1, 2**48) % 2**48


@pytest.mark.parametrize("draw, bits", [(0, 2**31 - 1), (0, 2**31 - 3), (2, 2**31 - 1), (2, 2**31 - 2)])
def test_shuffle_draws_replay_a_rejected_draw(draw, bits):
    # nextInt(5) rejects next(31) >= 2147483645 and nextInt(3) rejects >= 2147483646: the stream shifts by one.
    target = (bits << 17) | 12345  # the state whose next(31) is `bits`
    state = target
    for _ in range(draw + 1):
        state = _state_before(state)
    ref = JavaRandom(state ^ cardgen._MULT)
    expected = [(ref.next_int(5), ref.next_int(4), ref.next_int(3), ref.next_int(2)) for _ in range(3)]
    assert [(n // 24, n // 6 % 4, n // 2 % 3, n % 2) for n in cardgen._shuffle_draws(state, 3)] == expected


def test_rows_zipped_per_property_without_the_combination_table(monkeypatch):
    # weights with more than 256 combinations of the budgeted picks take the per-property path
    tables = msgspec.structs.replace(cardgen._load_tables(), combos=[], combo_actives=b"")
    monkeypatch.setattr(cardgen, "_load_tables", lambda weights="": tables)
    for seed in sorted(_vector_sets()):
        assert [card_to_string(c) for c in generate_cards(seed)] == _vector_sets()[seed], f"seed={seed}"


def test_check_weights_refuses_more_options_than_a_byte_indexes():
    weights = json.loads(cardgen.official_weights())
    cardgen.check_weights(json.dumps(weights))
    weights["drawProbabilities"] = [{"name": str(i), "weight": 1, "multCost": 1, "addCost": 0} for i in range(256)]
    with pytest.raises(msgspec.ValidationError, match="at most 255 options"):
        cardgen.check_weights(json.dumps(weights))
