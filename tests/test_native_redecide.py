"""verify's re-decide on the native core (`engine.locm.native.redecide`, core.cpp's `redecide_inputs`) against the
Python path of `engine.locm.redecide`: a sound log of built-in agents is sound on both, and a forged one (an event
edited, dropped, doubled; the log cut or lengthened: what a forger re-chains) is caught at the same event, with
the same words, whichever core is selected.

Skipped, saying why, where the native core is not built (`make native`).
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from locm.engine.corebuild import core, native_module
from locm.engine.locm.agents import make_agent, seat_seed
from locm.engine.locm.game import Game, last_input
from locm.engine.locm.playing import play
from locm.engine.locm.redecide import redecide
from locm.events.locm.catalog import ActionReceived, HardError, PlayerDamaged
from tests.cores import PYTHON_KIND, selected
from tests.variant_strategies import variants

MODULE, WHY = native_module("locm")
pytestmark = pytest.mark.skipif(MODULE is None, reason=f"no native core: {WHY}")

if MODULE is not None:
    from locm.engine.locm import native

AGENTS = ("random", "pass", "greedy")
SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]



def played(rules, seed, agents):
    """A whole game between built-in agents, played by the Python core (so the native core re-decides a log it
    did not write)."""
    with selected(PYTHON_KIND):
        game = Game.new(rules, seed, None, agents=agents)
        play(game, [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)])
    return list(game.log)


def both(log):
    """`redecide` under the Python core and under the native one."""
    with selected(PYTHON_KIND):
        assert core().kind != "native"
        pure = redecide(log)
    with selected("native"):
        nat = redecide(log)
    return pure, nat


def inputs_of(log):
    return [e for e in log[1:] if e.cause == -1 and type(e) in (ActionReceived, HardError)]


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_sound_logs_are_sound_natively_with_every_input_played(ruleset):
    for seed in range(60):
        agents = (AGENTS[seed % 3], AGENTS[(seed // 3) % 3])
        log = played(ruleset, seed, agents)
        fast = native.redecide(log)
        assert fast == (0, -1, len(inputs_of(log))), (ruleset, seed, agents, fast)
        pure, nat = both(log)
        assert pure.ok and nat == pure, (ruleset, seed)


@settings(max_examples=120, deadline=None, suppress_health_check=SLOW)
@given(rules=variants(), seed=st.integers(-(2**63), 2**63 - 1),
       agents=st.tuples(st.sampled_from(AGENTS), st.sampled_from(AGENTS)))
def test_any_variant_and_seed_is_sound_natively(rules, seed, agents):
    log = played(rules, seed, agents)
    assert native.redecide(log) == (0, -1, len(inputs_of(log))), (rules, seed, agents)


def forfeited(ruleset, seed, at):
    """A game cut at one of its inputs (any phase), where the player to move forfeits (a timeout)."""
    log = played(ruleset, seed, ("random", "greedy"))
    cuts = [k for k, e in enumerate(log) if k and e.cause == -1]
    game = Game.from_log(log[:cuts[at % len(cuts)]])
    game.forfeit(game.to_move, "timeout: no answer in 100 ms", "SUMMON 3 0")
    return list(game.log)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_forfeit_is_re_decided_natively(ruleset):
    for at in (0, 1, 7, 40, 61, 90, 200):
        log = forfeited(ruleset, at, at)
        assert type(log[-2]) is HardError
        assert native.redecide(log) == (0, -1, len(inputs_of(log))), (ruleset, at)
        pure, nat = both(log)
        assert pure.ok and nat == pure


def _edited(log, k, how, pick):
    e = log[k]
    if how == "drop":
        return log[:k] + log[k + 1:]
    if how == "double":
        return log[:k + 1] + log[k:]
    if how == "cut":
        return log[:k]
    if how == "append":
        return log + [log[k]]
    fields = [f for f in e.__struct_fields__ if type(getattr(e, f)) in (int, bool, str)]
    name = fields[pick % len(fields)] if how == "field" else how
    if name not in e.__struct_fields__:
        return None
    v = getattr(e, name)
    changed = (not v) if type(v) is bool else v + 1 if type(v) is int else v + "x"
    return log[:k] + [msgspec.structs.replace(e, **{name: changed})] + log[k + 1:]


FORGERIES = ["drop", "double", "cut", "append", "field", "seq", "cause", "amount", "player", "text", "id"]


@settings(max_examples=250, deadline=None, suppress_health_check=SLOW)
@given(ruleset=st.sampled_from(["1.2", "constructed"]), seed=st.integers(0, 2**40),
       agents=st.tuples(st.sampled_from(AGENTS), st.sampled_from(AGENTS)), where=st.floats(0, 1),
       how=st.sampled_from(FORGERIES), forfeit=st.booleans())
def test_a_forged_log_is_caught_at_the_same_event_on_both_cores(ruleset, seed, agents, where, how, forfeit):
    log = forfeited(ruleset, seed, seed) if forfeit else played(ruleset, seed, agents)
    k = 1 + int(where * (len(log) - 2))
    forged = _edited(log, k, how, int(where * 10**6))
    if forged is None or forged == log:
        return
    pure, nat = both(forged)
    assert nat == pure, (ruleset, seed, agents, k, how)
    fast = native.redecide(forged)
    if fast is None:
        return
    if pure.ok:  # an input edited into another one the rules take (a hard error's reason): a sound log still
        assert fast[0] == 0, (ruleset, seed, agents, k, how, fast)
    else:  # the native core took the log: it found the forgery itself, at the same event
        assert fast[:2] == (1, pure.divergence.seq), (ruleset, seed, agents, k, how, fast, pure.divergence)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_an_edited_damage_is_found_by_the_native_core_at_its_own_seq(ruleset):
    log = played(ruleset, 5, ("greedy", "random"))
    k = next(i for i, e in enumerate(log) if type(e) is PlayerDamaged)
    forged = log[:k] + [msgspec.structs.replace(log[k], amount=log[k].amount + 1)] + log[k + 1:]
    assert native.redecide(forged) == (1, k, len(inputs_of(log)))
    pure, nat = both(forged)
    assert pure.divergence.seq == k and nat == pure


def test_logs_the_native_core_does_not_take_go_to_the_python_path():
    log = played("1.2", 3, ("random", "random"))
    line = last_input(log)
    as_line = log[:line] + [msgspec.structs.replace(log[line], kind="line")] + log[line + 1:]
    assert native.redecide(as_line) is None  # an external bot's answer line: Python re-decides it
    refused = log[:line] + [msgspec.structs.replace(log[line], kind="action", text="SUMMON 999 0")] + log[line + 1:]
    assert native.redecide(refused) is None  # a command the rules refuse: Python says how
    pure, nat = both(refused)
    assert not pure.ok and nat == pure


@pytest.mark.parametrize("reason, taken", [('a "quoted" reason \\ and a backslash', True),
                                           ("a line\nbreak", False), ("non-ASCII: é", False),
                                           ('{"type":"action_received","player":0}', True)])
def test_a_hard_errors_texts_are_read_from_the_json_as_stored(reason, taken):
    log = played("1.2", 9, ("random", "random"))
    cut = [k for k, e in enumerate(log) if k and e.cause == -1][70]
    game = Game.from_log(log[:cut])
    game.forfeit(game.to_move, reason, reason[::-1])
    log = list(game.log)
    fast = native.redecide(log)
    assert fast == ((0, -1, len(inputs_of(log))) if taken else None)
    pure, nat = both(log)
    assert pure.ok and nat == pure
    forged = log[:-2] + [msgspec.structs.replace(log[-2], player=1 - log[-2].player)] + log[-1:]
    pure, nat = both(forged)
    assert not pure.ok and nat == pure
