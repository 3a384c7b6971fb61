"""`lookahead`: a built-in agent that plays its battle turns by a scored look-ahead over the engine itself.

At every step of its turn the agent plays each legal action on a copy of the state (`decide` and `evolve`,
the very rules of the game, on `GameState.copy_for_one_action`), scores each resulting board with
`evaluate`, and plays the best action if it scores above ending the turn now; then it looks again from the
new state. The rules are never restated here: Guards, Ward, Lethal, Breakthrough, Drain, Area copies, runes
and item effects are whatever the engine makes of the action.

It reads only what a competition bot is told (R-INPUT): its own hand, both boards, health, mana, runes and
the opponent's hand and deck sizes; never the opponent's hand or any deck's order. A simulated action that
draws a card (an item or a creature with "draw") shows the drawn card on the copy, but the copy is scored
by its hand's size only, and the real action is then played on the real game, as any bot's would be.

Draft and deck building score each card by its stats and abilities against a mana curve (`card_value`,
`curve_need`), so that its decks hold what it can play on every turn.

Deterministic and seeded: its only random numbers are the jitter of its card values (`JITTER`), drawn from its
seed; in battle, ties go to the earlier legal action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from locm.events.locm.cards import (
    BLUE, BREAKTHROUGH, CHARGE, CREATURE, DRAIN, GREEN, GUARD, LETHAL, RED, WARD, Card,
)
from locm.engine.locm.agent import Agent
from locm.engine.locm.commands import BattleAction
from locm.engine.locm.decide import decide
from locm.engine.locm.evolve import apply_decided
from locm.engine.jrandom import JavaRandom
from locm.engine.locm.legal import legal_actions
from locm.engine.locm.state import ENDED, GameState, Player, Unit

if TYPE_CHECKING:
    from locm.engine.locm.game import Game

WIN = 1e6
"""The score of a won game (minus for a lost one): above any board."""

# Weights of `evaluate`, in "stat points" (one point of attack or defense of a plain creature on the board).
HEALTH = 1.0  # a point of health
LOW_HEALTH = 10  # below this much health, each point counts twice
CARD_IN_HAND = 1.5
LETHAL_THREAT = 30.0  # the opponent's board can kill me on its next turn
LETHAL_CHANCE = 8.0  # my board can kill the opponent on my next turn (it may answer first)


# --- the board's score ------------------------------------------------------------------------------------


def unit_value(u: Unit) -> float:
    """A creature on the board, in stat points: attack counts for more than defense (it is what removes
    creatures and health), and each keyword for what it usually does."""
    a, d, k = u.attack, u.defense, u.keywords
    if d <= 0:
        return 0.0
    v = 1.5 * a + d + 1.0
    if k & GUARD:
        v += 0.5 * d
    if k & WARD:
        v += 0.5 * a + 1.0
    if k & LETHAL:
        v += 3.0 if a > 0 else 0.0
    if k & DRAIN:
        v += 0.5 * a
    if k & BREAKTHROUGH:
        v += 0.3 * a
    return v


def _health_value(h: int) -> float:
    return h + min(h, LOW_HEALTH) if h > 0 else -WIN


def _board_attack(p: Player) -> int:
    return sum(u.attack for u in p.board if u.attack > 0)


def _has_guard(p: Player) -> bool:
    return any(u.keywords & GUARD for u in p.board)


def evaluate(state: GameState, me: int) -> float:
    """How good `state` is for player `me`, from what that player can see."""
    if state.phase == ENDED:
        return WIN if state.winner == me else -WIN
    my, op = state.players[me], state.players[1 - me]
    score = sum(unit_value(u) for u in my.board) - sum(unit_value(u) for u in op.board)
    score += HEALTH * (_health_value(my.health) - _health_value(op.health))
    score += CARD_IN_HAND * (len(my.hand) - len(op.hand))
    if not _has_guard(my) and _board_attack(op) >= my.health:
        score -= LETHAL_THREAT
    if not _has_guard(op) and _board_attack(my) >= op.health:
        score += LETHAL_CHANCE
    return score


def best_action(state: GameState, me: int, legal: tuple[BattleAction, ...] | None = None) -> BattleAction | None:
    """The legal action whose resulting board scores highest, or None when ending the turn scores as well.
    ``legal``: the state's legal list when the caller keeps it (a live game's), else it is built here."""
    best: BattleAction | None = None
    best_score = evaluate(state, me)
    acts = legal_actions(state) if legal is None else legal
    for action in acts:
        s = state.copy_for_one_action()
        apply_decided(s, decide(s, action, -1, acts))
        v = evaluate(s, me)
        if v > best_score:
            best, best_score = action, v
            if v >= WIN:
                break
    return best


# --- draft and deck building ------------------------------------------------------------------------------

_KW = {BREAKTHROUGH: 0.5, CHARGE: 0.8, DRAIN: 0.8, GUARD: 1.2, LETHAL: 2.5, WARD: 2.0}
CURVE = {0: 0, 1: 3, 2: 6, 3: 6, 4: 5, 5: 4, 6: 3}
"""The mana curve a drafted 30-card deck aims at (cards of each cost, 6 = 6 and more)."""
DRAFT_CURVE_WEIGHT = 0.45
"""How much a draft pick follows `CURVE`. Deck building (constructed) does not: a generated pool's cheap cards
are worth more than a curve (measured: 62% against greedy's decks without the curve, 54% with it; 1.2's
draft, 59% with it and 55% without; 300 games each, the same look-ahead battle on both sides)."""


JITTER = 0.5
"""Each card's value is multiplied by 1 + JITTER * u, u uniform in [0, 1) drawn from the agent's seed, when it
picks or builds: two seats that see the same offers (1.2) or the same pool (constructed) then build
different decks, as two players would. Without it, self-play decks are identical: every card is held by both
seats or by neither, so no card rate and no paired card value can tell anything. Measured on 100 seeds of
self-play (the share of a deck's 30 cards the other seat's deck also holds) and 200 games against greedy:
0 gives 100% and 72.5% (1.2) / 100% and 83% (constructed); 0.4 gives 79% and 72.5% / 84% and 77%; 0.6 gives
74% and 70.5% / 78% and 74.5%."""


def card_value(c: Card) -> float:
    """A card's worth per mana: its stats, keywords and effects (in stat points) over its cost + 1."""
    kw = sum(v for bit, v in _KW.items() if c.keywords & bit)
    effects = 0.5 * c.my_health - 0.7 * c.opp_health + 2.0 * c.draw
    if c.type == CREATURE:
        value = 1.2 * c.attack + c.defense + kw + effects
        if c.attack <= 0:
            value -= 2.0
    elif c.type == GREEN:
        value = 1.2 * c.attack + c.defense + kw + effects
    elif c.type == RED:
        value = -c.defense * 1.2 - c.attack + kw * 0.8 + effects
    else:  # BLUE: damage to a creature or to the opponent, health and draw
        value = -c.defense + effects
    if c.area:
        value *= 1.6 if c.area == 2 else 1.3
    return 4 * value / (c.cost + 1)


def _slot(cost: int) -> int:
    return cost if cost < 6 else 6


def curve_need(counts: dict[int, int], cost: int, picked: int, total: int) -> float:
    """How much a drafted deck still wants a card of this cost: positive while its slot of `CURVE` is short
    of the share already reached, negative past it."""
    slot = _slot(cost)
    target = CURVE.get(slot, 0) * max(picked + 1, 1) / total
    return DRAFT_CURVE_WEIGHT * (target - counts.get(slot, 0))


class LookaheadAgent(Agent):
    """Draft, deck building and battle as the module describes; `seed` draws the jitter of its card values."""

    name = "lookahead"

    def __init__(self, seed: int = 0) -> None:
        self.rng = JavaRandom(seed)

    def _jittered(self, value: float) -> float:
        return value * (1.0 + JITTER * self.rng.next_double())

    def battle(self, game: Game, player: int) -> None:
        rules = game.state.rules
        # Every step plays a hand card or attacks with a creature that has not attacked (as greedy's bound):
        # at most 3 * hand + the creatures on the board, so this bound never binds.
        for _ in range(3 * rules.hand_limit + 2 * rules.lane_size):
            action = best_action(game.state, player, game.legal_actions())
            if action is None:
                return
            game.submit(action)
            if game.state.phase == ENDED:
                return

    def pick(self, state: GameState, player: int) -> int:
        picks = [state.cards[b] for b in state.players[player].picks]
        counts: dict[int, int] = {}
        for c in picks:
            counts[_slot(c.cost)] = counts.get(_slot(c.cost), 0) + 1
        total = state.rules.draft_rounds
        best, best_score = 0, float("-inf")
        for i, b in enumerate(state.offer):
            c = state.cards[b]
            s = self._jittered(card_value(c)) + curve_need(counts, c.cost, len(picks), total)
            if s > best_score:
                best, best_score = i, s
        return best

    def build(self, state: GameState, player: int) -> list[int]:
        """Constructed: the best cards by `card_value`, each as many times as allowed."""
        from locm.engine.locm.construct import fill_deck

        rules = state.rules
        values = {c.base_id: self._jittered(card_value(c)) for c in state.cards.values()}
        ranked = sorted(state.cards.values(), key=lambda c: (-values[c.base_id], c.base_id))
        deck: list[int] = []
        for c in ranked:
            deck.extend([c.base_id] * min(rules.max_copies, rules.deck_size - len(deck)))
            if len(deck) == rules.deck_size:
                break
        fill_deck(deck, len(state.cards), rules.deck_size, rules.max_copies)
        return deck


__all__ = ["LookaheadAgent", "evaluate", "best_action", "card_value", "unit_value", "BLUE"]
