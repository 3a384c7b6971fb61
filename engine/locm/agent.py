"""The agent's base class (`engine.locm.agents` has the built-in ones, `engine.locm.lookahead` another): it plays
a whole turn on a live `Game` (`play_turn(game, player)`), taking the first card, building with PASS and never
acting in battle unless a subclass says otherwise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from locm.engine.locm.commands import BuildDeck, Pick
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT, ENDED, GameState

if TYPE_CHECKING:
    from locm.engine.locm.game import Game


class Agent:
    name = "agent"

    def play_turn(self, game: Game, player: int) -> None:
        state = game.state
        phase = state.phase
        if phase == DRAFT:
            game.submit(Pick(player, self.pick(state, player)))
        elif phase == CONSTRUCT:
            game.submit(BuildDeck(player, tuple(self.build(state, player))))
        elif phase == BATTLE:
            self.battle(game, player)
            if game.state.phase != ENDED:  # `game.ended` read directly: a property call less a turn
                game.end_turn()

    def pick(self, state: GameState, player: int) -> int:
        return 0

    def build(self, state: GameState, player: int) -> list[int]:
        from locm.engine.locm.construct import fill_deck

        deck: list[int] = []
        fill_deck(deck, len(state.cards), state.rules.deck_size, state.rules.max_copies)
        return deck

    def battle(self, game: Game, player: int) -> None:
        pass


__all__ = ["Agent"]
