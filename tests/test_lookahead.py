"""The `lookahead` agent (`engine.locm.lookahead`): whole games under both rulesets keep the live state equal to the
fold of the log (its look-ahead copies never leak into the game), the same seed gives the same log, and its
choices depend only on what a competition bot is told (R-INPUT)."""

from __future__ import annotations

import pytest

from locm.events.locm import codec
from locm.engine.locm.agents import make_agent
from locm.engine.locm.playing import play
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.lookahead import LookaheadAgent, best_action, evaluate
from locm.engine.locm.state import BATTLE


def _game(ruleset: str, seed: int, agents=("lookahead", "greedy")) -> Game:
    g = Game.new(ruleset, seed, agents=agents)
    play(g, [make_agent(agents[0], 1), make_agent(agents[1], 2)])
    return g


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_games_fold_to_the_live_state_and_repeat_byte_for_byte(ruleset, seed):
    for agents in (("lookahead", "greedy"), ("random", "lookahead"), ("lookahead", "lookahead")):
        g = _game(ruleset, seed, agents)
        assert g.ended and g.winner in (0, 1), (ruleset, seed, agents)
        assert fold(g.log) == g.state, (ruleset, seed, agents)
        assert codec.to_jsonl(_game(ruleset, seed, agents).log) == codec.to_jsonl(g.log), (ruleset, seed, agents)


def _battle_states(ruleset: str, seed: int):
    """States at the start of several turns of a look-ahead self-play game."""
    g = Game.new(ruleset, seed)
    agents = [LookaheadAgent(), LookaheadAgent()]
    while not g.ended:
        if g.state.phase == BATTLE and g.state.turn >= 4:
            yield g.state
        agents[g.state.current].play_turn(g, g.state.current)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_choices_do_not_depend_on_what_the_player_cannot_see(ruleset):
    """Another opponent hand (same size), the opponent's deck and the player's own deck in another order:
    the same score and the same action."""
    checked = 0
    for state in _battle_states(ruleset, 3):
        me = state.current
        other = state.copy()
        mine, theirs = other.players[me], other.players[1 - me]
        pool = [c for c in other.cards.values()]
        for k, u in enumerate(theirs.hand):
            u.card = pool[(u.card.base_id + 7 * (k + 1)) % len(pool)]
            u.attack, u.defense, u.keywords = u.card.attack, u.card.defense, u.card.keywords
        theirs.deck.reverse()
        mine.deck.reverse()
        assert evaluate(other, me) == evaluate(state, me)
        assert best_action(other, me) == best_action(state, me), (ruleset, state.turn)
        checked += 1
    assert checked >= 5
