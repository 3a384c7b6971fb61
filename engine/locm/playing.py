"""A game played to its end by two agents (`play`): natively where the native core is selected and can play it
(`engine.locm.native`), else by the Python core, turn by turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from locm.engine.locm.agent import Agent
from locm.engine.locm.state import CONSTRUCT, DRAFT, ENDED

if TYPE_CHECKING:
    from locm.engine.locm.game import Game


def _native_selected() -> bool:
    from locm.engine.corebuild import core

    return core().kind == "native"


def play(game: Game, agents: Sequence[Agent]) -> None:
    """Play `game` to its end with two agents (seat 0, seat 1). An input the referee still sends after the end
    (`Game.owed_input`: player 1's draft or construct input when player 0's answer of that round lost the game)
    goes to an agent that takes one (`receive_input(text, phase)`, e.g. an external bot), as the referee does."""
    if _native_selected():
        from locm.engine.locm import native

        native.play(game, agents)  # the whole game in C++ where it can (engine/locm/native.py), else as below
    while game.state.phase != ENDED:  # not `game.ended`: a property call per turn
        p = game.state.current
        agents[p].play_turn(game, p)
    owed = game.owed_input()
    if owed is not None:
        receive = getattr(agents[owed[0]], "receive_input", None)
        if receive is not None:
            receive(owed[1], DRAFT if game.rules.deck_building == "draft" else CONSTRUCT)


__all__ = ["play"]
