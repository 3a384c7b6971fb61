"""The native (C++) core against the Python core: the same games give the same log, byte for byte in canonical
JSON (so the same hash chain), the same final state, and leave the agents' generators in the same place.

Skipped, saying why, where the native core is not built (`make native` in place, `make fast` in .venv-fast/).
`make test-fast` runs this module on the installed build with LOCM_CORE=native; the Python core it compares
with is the one of the same install (pure or compiled). Ten thousand games a ruleset: benchmarks/native_identity.py.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import locm
from tests.cores import PYTHON_KIND, selected

from locm.engine.corebuild import CoreChoiceError, core, native_module
from locm.engine.locm.agents import make_agent, seat_seed
from locm.engine.locm.playing import play
from locm.engine.locm.commands import Pick
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.rulesets import by_name
from tests.variant_strategies import variants

MODULE, WHY = native_module("locm")
pytestmark = pytest.mark.skipif(MODULE is None, reason=f"no native core: {WHY}")

if MODULE is not None:
    from locm.engine.locm import native

ENCODE = msgspec.json.Encoder().encode
NATIVE_AGENTS = ("random", "pass", "greedy")





def _python(rules, seed, agents):
    """The game as the Python core plays it, the card generator included."""
    with selected(PYTHON_KIND):
        assert core().kind != "native"
        game = Game.new(rules, seed, None, agents=agents)
        players = [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)]
        play(game, players)
    return game, players


def _native(rules, seed, agents):
    """The game as the native core plays it (its card generator included)."""
    with selected("native"):
        game = Game.new(rules, seed, None, agents=agents)
        players = [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)]
        assert native.play(game, players), native.why_not(game, players)
    return game, players


def head(log) -> str:
    """A hash chain over the canonical JSON of the events (what a store's head hash is made of)."""
    h = b""
    for e in log:
        h = hashlib.sha256(h + ENCODE(e)).digest()
    return h.hex()


def assert_same(rules, seed, agents):
    (a, pa), (b, pb) = _python(rules, seed, agents), _native(rules, seed, agents)
    la, lb = [ENCODE(e) for e in a.log], [ENCODE(e) for e in b.log]
    if la != lb:
        k = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        pytest.fail(f"seed {seed}, agents {agents}, rules {getattr(rules, 'name', rules)}: the logs differ first at "
                    f"event {k} of {len(la)} / {len(lb)}:\n  python {la[k] if k < len(la) else None!r}\n"
                    f"  native {lb[k] if k < len(lb) else None!r}")
    assert a.log == b.log  # the decoded events are equal values too
    assert head(a.log) == head(b.log)
    assert b.state.key() == a.state.key(), f"seed {seed}: the final states differ"
    assert fold(b.log).key() == b.state.key(), f"seed {seed}: the native state is not the fold of its log"
    for x, y in zip(pa, pb):
        if hasattr(x, "rng"):
            assert x.rng._seed == y.rng._seed, f"seed {seed}: an agent's generator ended elsewhere"
    assert b.ended and b.winner in (0, 1)
    return b


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_few_hundred_random_games_are_identical(ruleset):
    rules = by_name(ruleset)
    for seed in range(150):
        assert_same(rules, seed * 7919 - 400, ("random", "random"))
    for seed in range(40):
        assert_same(rules, seed, ("greedy", "random"))
        assert_same(rules, seed, ("greedy", "greedy"))
    for seed in range(20):
        assert_same(rules, seed, ("pass", "random"))
        assert_same(rules, seed, ("random", "pass"))
        assert_same(rules, seed, ("pass", "pass"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(-(2**63), 2**63 - 1), agents=st.tuples(st.sampled_from(NATIVE_AGENTS),
                                                               st.sampled_from(NATIVE_AGENTS)))
def test_any_seed_gives_the_same_game(seed, agents):
    for ruleset in ("1.2", "constructed"):
        assert_same(by_name(ruleset), seed, agents)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                   HealthCheck.filter_too_much])
@given(rules=variants(), seed=st.integers(0, 2**40),
       agents=st.tuples(st.sampled_from(NATIVE_AGENTS), st.sampled_from(NATIVE_AGENTS)))
def test_any_variant_gives_the_same_game(rules, seed, agents):
    assert_same(rules, seed, agents)


def test_the_games_that_reach_the_event_cap_and_the_turn_cap_are_identical():
    # lane_size 1 and a huge health with no damage from an empty deck: games that only the caps can end
    rules = by_name("constructed").replace(name="endless", base="constructed", start_health=1000,
                                           penalty_damage=0, turn_limit=499)
    game = assert_same(rules, 3, ("pass", "pass"))
    assert game.state.end_reason == "cap"


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(-(2**63), 2**63 - 1))
def test_the_native_card_generator_makes_the_python_generators_cards(seed):
    from locm.engine.locm.cardgen import python_generated_cards

    assert native.generated_cards(seed) == python_generated_cards(seed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                  HealthCheck.filter_too_much])
@given(rules=variants(base="constructed"), seed=st.integers(-(2**63), 2**63 - 1))
def test_the_native_card_generator_under_any_weights(rules, seed):
    from locm.engine.locm.cardgen import _load_tables, python_generated_cards

    made = native.generated_cards(seed, rules.card_weights)
    if _load_tables(rules.card_weights).changes:
        assert made is None  # cards changed after generation are the Python core's
    else:
        assert made == python_generated_cards(seed, rules.card_weights)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_the_log_as_json_lines_is_the_python_cores_to_the_byte(ruleset):
    from locm.events.locm.codec import to_jsonl

    for seed in range(40):
        for agents in (("random", "random"), ("pass", "random")):
            expected = to_jsonl(_python(by_name(ruleset), seed, agents)[0].log)
            with selected("native"):
                assert native.play_jsonl(ruleset, seed, agents) == expected, f"seed {seed}, agents {agents}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                  HealthCheck.filter_too_much])
@given(rules=variants(), seed=st.integers(-(2**63), 2**63 - 1),
       agents=st.tuples(st.sampled_from(NATIVE_AGENTS), st.sampled_from(NATIVE_AGENTS)))
def test_a_whole_game_from_its_seed_alone_is_the_python_cores_log_to_the_byte(rules, seed, agents):
    from locm.engine.locm.cardgen import _load_tables
    from locm.events.locm.codec import to_jsonl

    expected = to_jsonl(_python(rules, seed, agents)[0].log)
    made = native.opener(rules, agents)  # the opening decided natively, from the seed
    if rules.deck_building == "constructed" and _load_tables(rules.card_weights).changes:
        assert made is None  # cards changed after generation: the Python core's opening
    else:
        assert made is not None and made.play(seed) == expected
    with selected("native"):
        assert native.play_jsonl(rules, seed, agents) == expected


def test_play_jsonl_makes_no_opening_in_python_once_it_has_its_opener(monkeypatch):
    from locm.engine.locm import setup

    for ruleset in ("1.2", "constructed"):
        first = native.play_jsonl(ruleset, 1, ("random", "greedy"))  # the opener made (and checked) here
        monkeypatch.setattr(setup, "create", lambda *a, **k: pytest.fail("the Python core's opening was made"))
        assert native.play_jsonl(ruleset, 1, ("random", "greedy")) == first
        assert native.play_jsonl(ruleset, 2, ("random", "greedy")) != first
        monkeypatch.undo()
    from locm.engine.errors import GameParamError

    with pytest.raises(GameParamError):  # a seed the rules refuse: refused as the Python core refuses it
        native.play_jsonl("1.2", 2**63)


def test_the_draft_under_the_native_core_is_drawn_by_it_as_the_python_core_draws_it(monkeypatch):
    from locm.engine.locm import draft

    drawn = []
    real = MODULE.draft_offers
    monkeypatch.setattr(MODULE, "draft_offers", lambda seed, rounds: drawn.append(seed) or real(seed, rounds))
    for seed, rounds in ((0, 30), (-(2**63), 30), (2**63 - 1, 5), (12345, 64), (7, 80)):
        with selected("native"):
            made = draft.draft_offers(seed, rounds)
        with selected(PYTHON_KIND):
            assert draft.draft_offers(seed, rounds) == made == draft._offers_one_by_one(seed, rounds)
    assert len(drawn) == 5


def test_the_native_next_int_draws_again_past_a_draw_java_rejects_as_java_does():
    from locm.engine.jrandom import JavaRandom

    # seed 21237's 39th draw at bound 160 is one Java rejects (tests/test_jrandom.py), seeds 1-3 have none there
    for seed in (21237, 1, 2, 3):
        r = JavaRandom(seed)
        assert MODULE.java_next_ints(seed, 160, 200) == [r.next_int(160) for _ in range(200)], seed


def test_agents_play_hands_the_game_to_the_selected_core(monkeypatch):
    python_kind = PYTHON_KIND
    expected = head(_python(by_name("1.2"), 5, ("random", "random"))[0].log)
    real = native.play
    for kind in ("native", python_kind):
        monkeypatch.setattr(locm, "CORE_CHOICE", kind)
        called = []
        monkeypatch.setattr(native, "play", lambda g, a: called.append(1) or real(g, a))
        game = Game.new("1.2", 5, None, agents=("random", "random"))
        play(game, [make_agent("random", seat_seed(5, s)) for s in (0, 1)])
        assert bool(called) == (kind == "native") and game.ended
        assert head(game.log) == expected


def test_what_the_native_core_cannot_play_goes_to_the_python_core_saying_why():
    game = Game.new("1.2", 1, None, agents=("lookahead", "random"))
    players = [make_agent("lookahead", 1), make_agent("random", 2)]
    assert "no agent 'lookahead'" in native.why_not(game, players)
    assert not native.play(game, players)
    game.submit(Pick(0, 1))
    assert "under way" in native.why_not(game, [make_agent("random", 1), make_agent("random", 2)])


def test_locm_core_names_the_core_and_refuses_a_bad_value_in_one_line(monkeypatch):
    from locm.cli.main import cli

    monkeypatch.setattr(locm, "CORE_CHOICE", "native")
    assert core().kind == "native"
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and "core: native C++ (build " in result.output
    monkeypatch.setattr(locm, "CORE_CHOICE", "fastest")
    with pytest.raises(CoreChoiceError) as err:
        core()
    assert str(err.value) == "LOCM_CORE must be one of native, compiled, pure, got 'fastest'"
    out = subprocess.run([sys.executable, "-m", "locm.cli.main", "--version"], capture_output=True, text=True,
                         env={**os.environ, "LOCM_CORE": "fastest"})
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        "locm: error: LOCM_CORE must be one of native, compiled, pure, got 'fastest'"]
    for kind, how in (("native", "native C++"), (PYTHON_KIND, {"pure": "pure Python", "compiled": "compiled by mypyc"}
                                                              [PYTHON_KIND])):
        out = subprocess.run([sys.executable, "-m", "locm.cli.main", "--version"], capture_output=True, text=True,
                             env={**os.environ, "LOCM_CORE": kind})
        assert out.returncode == 0 and f"core: {how} (build " in out.stdout, out.stderr


def test_a_native_build_whose_source_changed_is_refused_saying_to_rebuild(monkeypatch, tmp_path):
    from locm.engine import corebuild

    source = tmp_path / "engine" / "locm" / corebuild.NATIVE_SOURCE
    source.parent.mkdir(parents=True)
    source.write_text("// the source as built\n")
    monkeypatch.setattr(MODULE, "SOURCE_SHA256", hashlib.sha256(source.read_bytes()).hexdigest())
    monkeypatch.setattr(corebuild, "_build_info", lambda: (False, "b", {}, str(tmp_path)))
    monkeypatch.setattr(corebuild, "_roots", lambda checkout: [Path(checkout)])
    assert corebuild.native_module.__wrapped__("locm") == (MODULE, "")
    source.write_text("// edited since\n")
    module, why = corebuild.native_module.__wrapped__("locm")
    assert module is None and "the native core is stale" in why and "make fast" in why


def test_a_tournament_of_built_in_agents_plays_natively_with_each_turn_timed(monkeypatch):
    from locm.games.locm.bots import TimedAgent
    from locm.games.locm.tournament import run_game

    played = []
    real = native.play
    monkeypatch.setattr(native, "play", lambda g, a: played.append(real(g, a)) or played[-1])
    monkeypatch.setattr(locm, "CORE_CHOICE", "native")
    for ruleset in ("1.2", "constructed"):
        game = run_game(ruleset, 11, ("greedy", "random")).game
        assert played[-1] is True
        assert head(game.log) == head(_python(by_name(ruleset), 11, ("greedy", "random"))[0].log)
    # the turns a timed agent counts are the turns it played: the Python core's count
    seats = [TimedAgent(make_agent(n, seat_seed(4, s))) for s, n in enumerate(("random", "greedy"))]
    game = Game.new("1.2", 4, None, agents=("random", "greedy"))
    play(game, seats)
    with selected(PYTHON_KIND):
        again = [TimedAgent(make_agent(n, seat_seed(4, s))) for s, n in enumerate(("random", "greedy"))]
        play(Game.new("1.2", 4, None, agents=("random", "greedy")), again)
    assert [a.turns for a in seats] == [a.turns for a in again] and all(a.turns > 30 for a in seats)
    assert all(a.think_ms_total > 0 and a.think_ms_max <= a.think_ms_total for a in seats)
