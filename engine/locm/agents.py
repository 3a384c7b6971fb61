"""Built-in players. An agent plays a whole turn on a live `Game` (`play_turn(game, player)`), either one
structured command at a time (`game.submit`) or as one protocol answer (`game.answer`, for external bots).

- `pass`: takes the first card, builds with PASS, never acts in battle.
- `random`: uniformly random choices among the legal ones (end of turn included), from its own seed.
- `greedy`: picks and builds by a card score, then summons for value, removes threats with items, attacks
  Guards first and trades well.
- `lookahead` (`engine.locm.lookahead`): plays each legal action on a copy of the state, scores the boards, plays
  the best; drafts and builds to a mana curve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from locm.events.locm.cards import (
    BLUE, BREAKTHROUGH, CHARGE, CREATURE, DRAIN, GREEN, GUARD, LETHAL, RED, WARD, Card,
)
from locm.engine.locm.commands import Attack, BattleAction, EndTurn, Summon, Use
from locm.engine.errors import LocmError
from locm.engine.jrandom import JavaRandom
from locm.engine.locm.agent import Agent
from locm.engine.locm.state import ENDED, GameState, Player, Unit

if TYPE_CHECKING:
    from locm.engine.locm.game import Game

AGENT_NAMES = ("random", "pass", "greedy", "lookahead")


class UnknownAgent(LocmError):
    """An agent name that is not built in (and, where allowed, not a command line either)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown agent {name!r}: expected one of {', '.join(AGENT_NAMES)}")


class PassAgent(Agent):
    name = "pass"


class RandomAgent(Agent):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = JavaRandom(seed)

    def pick(self, state: GameState, player: int) -> int:
        return self.rng.next_int(len(state.offer))

    def build(self, state: GameState, player: int) -> list[int]:
        n = len(state.cards)
        next_int = self.rng.next_int
        counts = [0] * n
        deck: list[int] = []
        missing = state.rules.deck_size  # at most n * max_copies (a variant with more is refused)
        copies = state.rules.max_copies
        while missing > 0:
            b = next_int(n)
            if counts[b] < copies:
                counts[b] += 1
                deck.append(b)
                missing -= 1
        return deck

    def battle(self, game: Game, player: int) -> None:
        state = game.state
        rng = self.rng
        submit = game.submit
        actions = game.legal_cache.actions  # the list the game keeps between events
        while True:
            acts = actions(state)
            k = rng.next_int(len(acts) + 1)
            if k == len(acts):
                return  # the end of the turn is one of the choices
            submit(acts[k])
            if state.phase == ENDED:
                return


# --- greedy -----------------------------------------------------------------------------------------------

_KW_VALUE = {BREAKTHROUGH: 0.5, CHARGE: 1.0, DRAIN: 0.7, GUARD: 1.0, LETHAL: 1.5, WARD: 1.5}


def card_score(c: Card) -> float:
    """A rough value per mana: stats and keywords for creatures, effects for items."""
    kw = sum(v for bit, v in _KW_VALUE.items() if c.keywords & bit)
    effects = c.my_health * 0.3 - c.opp_health * 0.5 + c.draw * 1.5
    if c.type == CREATURE:
        value = c.attack + c.defense + kw + effects
    elif c.type == GREEN:
        value = c.attack + c.defense + kw + effects
    else:
        value = -c.attack - c.defense + kw * 0.5 + effects
    value *= 1.5 if c.area == 2 else 1.3 if c.area == 1 else 1.0
    return value / (c.cost + 1)


class GreedyAgent(Agent):
    name = "greedy"

    def pick(self, state: GameState, player: int) -> int:
        picks = state.players[player].picks
        items_taken = sum(1 for b in picks if state.cards[b].type != CREATURE)
        max_items = _share(state.rules.draft_rounds, 8)
        best, best_score = 0, float("-inf")
        for i, b in enumerate(state.offer):
            c = state.cards[b]
            s = card_score(c)
            if c.type != CREATURE and items_taken >= max_items:
                s -= 1.0
            if best_score < s:
                best, best_score = i, s
        return best

    def build(self, state: GameState, player: int) -> list[int]:
        """Best-scoring cards with a mana curve: at most 8 cards costing 7 or more, 12 items or fewer (in a
        deck of 30; in proportion in a deck of another size)."""
        rules = state.rules
        size = rules.deck_size
        max_heavy, max_items = _share(size, 8), _share(size, 12)
        ranked = sorted(state.cards.values(), key=lambda c: (-card_score(c), c.base_id))
        deck: list[int] = []
        heavy = items_ = 0
        for c in ranked:
            for _ in range(rules.max_copies):
                if len(deck) == size:
                    return deck
                if c.cost >= 7 and heavy >= max_heavy or c.type != CREATURE and items_ >= max_items:
                    break
                deck.append(c.base_id)
                heavy += c.cost >= 7
                items_ += c.type != CREATURE
        from locm.engine.locm.construct import fill_deck

        fill_deck(deck, len(state.cards), size, rules.max_copies)
        return deck

    def battle(self, game: Game, player: int) -> None:
        state = game.state
        rules = state.rules
        # Every step plays a hand card (one or two creatures with an Area copy) or attacks with a creature
        # that has not attacked: at most 3 * hand + the creatures on the board, so this bound never binds.
        for _ in range(3 * rules.hand_limit + 2 * rules.lane_size):
            if game.ended:
                return
            action = self._choose(state, player, game.legal_actions())
            if action is None:
                return
            game.submit(action)

    def _choose(self, state: GameState, player: int, acts: tuple[BattleAction, ...]) -> BattleAction | None:
        if not acts:
            return None
        me, op = state.players[player], state.players[1 - player]
        units = state.units
        best: BattleAction | None = None
        best_value = 0.0
        for a in acts:
            if type(a) is Summon:
                c = units[a.id].card
                v = 2.0 + c.cost + card_score(c)
                # keep lanes balanced
                v -= 0.1 * me.lane_count(a.lane)
            elif type(a) is Use:
                c = units[a.id].card
                if a.target == -1:
                    v = (-c.defense - c.opp_health) * 0.8 + c.my_health * 0.3 + c.draw if c.type == BLUE else 0
                elif c.type == GREEN:
                    t = units[a.target]
                    v = 0.5 + c.cost * 0.8 + (1.0 if t.can_attack else 0.0)
                else:
                    t = units[a.target]
                    threat = t.attack + t.defense + (2 if t.keywords & GUARD else 0)
                    kills = t.defense + c.defense <= 0 and not t.keywords & WARD
                    v = (threat * 1.2 if kills else 0.4 * threat) + (1 if c.type == RED else 0)
            else:  # Attack
                v = self._attack_value(units, units[a.id], cast(Attack, a).target, op)
            if v > best_value:
                best, best_value = a, v
        return best

    @staticmethod
    def _attack_value(units: dict[int, Unit], att: Unit, target: int, op: Player) -> float:
        if att.attack <= 0:
            return 0.0
        if target == -1:
            return 1.0 + att.attack * (2.0 if op.health <= att.attack else 0.5)
        d = units[target]
        kills = not d.keywords & WARD and (att.attack >= d.defense or att.keywords & LETHAL)
        dies = not att.keywords & WARD and d.attack > 0 and (d.attack >= att.defense or d.keywords & LETHAL)
        value = (d.attack + d.defense) if kills else 0.3
        if d.keywords & GUARD:
            value += 2.0  # a Guard blocks the way to the opponent
        if dies:
            value -= att.attack + att.defense
        return value + 1.5


def _share(deck: int, of_30: int) -> int:
    """A limit set for a deck of 30 cards, for a deck of `deck` cards (the same for 30)."""
    return deck * of_30 // 30


_MASK64 = (1 << 64) - 1


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in `seat` for a game: fixed by the game's seed, different for each seat."""
    x = (game_seed * 0x9E3779B97F4A7C15 + (seat + 1) * 0xBF58476D1CE4E5B9) & _MASK64
    return x - (1 << 64) if x >> 63 else x


def make_agent(name: str, seed: int = 0) -> Agent:
    if name == "random":
        return RandomAgent(seed)
    if name == "pass":
        return PassAgent()
    if name == "greedy":
        return GreedyAgent()
    if name == "lookahead":
        from locm.engine.locm.lookahead import LookaheadAgent

        return LookaheadAgent(seed)
    raise UnknownAgent(name)


__all__ = ["Agent", "PassAgent", "RandomAgent", "GreedyAgent", "make_agent", "AGENT_NAMES",
           "UnknownAgent", "seat_seed", "RED", "Attack", "Use", "Summon", "EndTurn"]
