"""verify's whole-game fast path (issue 31): a stored game of built-in agents that the native core plays out whole
from its created event, byte for byte, is proven by that one run (`locm.verify.checks.proven`, the game's
``play_out``); a game whose whole run differs (its agents relabelled, an event edited and re-chained) is still
named decision-exactly, as the per-decision paths name it (`content_problem`'s re-decision, `rerun_agents`), by
`locm verify` and by an import's checker alike.

Skipped, saying why, where the native core is not built (`make native`).
"""

from __future__ import annotations

import msgspec
import pytest

from locm.engine.corebuild import native_module
from locm.engine.locm.agents import make_agent, seat_seed
from locm.engine.locm.definition import GAME
from locm.engine.locm.game import Game
from locm.engine.locm.playing import play
from locm.events.locm.catalog import PlayerDamaged
from locm.games.registry import checker
from locm.provenance.agents import rerun_agents
from locm.store.eventstore import GameExtras, MemoryStore
from locm.verify.checks import Verdict, content_problem, proven, stored_problem
from tests.cores import PYTHON_KIND, selected

MODULE, WHY = native_module("locm")
pytestmark = pytest.mark.skipif(MODULE is None, reason=f"no native core: {WHY}")


def played(ruleset, seed, agents):
    """A whole game between built-in agents, played by the Python core (so the native core's run is its own)."""
    with selected(PYTHON_KIND):
        game = Game.new(ruleset, seed, None, agents=agents)
        play(game, [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)])
    return list(game.log)


def relabelled(log):
    """Greedy's moves credited to random and random's to greedy, the id recomputed (the rules still give it)."""
    created = log[0]
    return [msgspec.structs.replace(created, agents=created.agents[::-1]), *log[1:]]


def damage_edited(log):
    """The first damage to a player one more than the rules give (re-chained by the store it is put in)."""
    k = next(i for i, e in enumerate(log) if type(e) is PlayerDamaged)
    return [*log[:k], msgspec.structs.replace(log[k], amount=log[k].amount + 1), *log[k + 1:]]


def stored(events):
    store = MemoryStore()
    store.append_game(GAME, GameExtras(game_id=GAME.game_id(events[0])), events)
    return store, store.games()[0]


def per_decision(record, events):
    """What the per-decision paths alone name: the rules' re-decision (with the fold, the id), then the agents'
    re-run decision by decision."""
    verdict = content_problem(record.game_id, events, meta=record.meta, winner=record.winner, reason=record.reason,
                              game=GAME)
    if not verdict.ok:
        return verdict
    again = rerun_agents(GAME, events)
    return Verdict(again.why, again.seq) if again.status == "differs" else verdict


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_sound_game_is_proven_by_one_whole_run_on_the_native_core_only(ruleset):
    log = played(ruleset, 11, ("greedy", "random"))
    with selected("native"):
        assert proven(GAME, log)
        store, record = stored(log)
        assert stored_problem(store, record) == per_decision(record, log) == Verdict(None)
    with selected(PYTHON_KIND):  # the Python core has no whole-game run: decision by decision, as before
        assert not proven(GAME, log)


@pytest.mark.parametrize("forge", [relabelled, damage_edited])
@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_a_game_whose_whole_run_differs_is_named_decision_exactly(ruleset, forge):
    log = played(ruleset, 4, ("greedy", "random"))
    forged = forge(log)
    with selected("native"):
        assert proven(GAME, log) and not proven(GAME, forged)
        store, record = stored(forged)
        expected = per_decision(record, forged)
        assert not expected.ok and expected.seq > 0
        if forge is relabelled:  # the rules give it: only its agents' re-run names it, at a decision
            assert "decision " in expected.problem and f"(seq {expected.seq})" in expected.problem
        else:
            assert expected.problem.startswith("re-decided from its inputs") and type(forged[expected.seq]) is PlayerDamaged
        assert stored_problem(store, record) == expected  # locm verify
        assert checker().game_problem(GAME, record.game_id, forged, meta=record.meta).problem == expected.problem  # import
