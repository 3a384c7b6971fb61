"""Build a battle position from a hand-written event log, for rule tests.

`Position` folds a synthetic but valid log: a game created, a card pool, decks, hands, boards and a turn
start, so a test states the position it needs and then plays commands on it with the real `decide`.
"""

from __future__ import annotations

from locm.events.locm.cards import Card
from locm.events.locm.catalog import (
    CardDrawn, CardPoolDefined, CreatureSummoned, DeckOrdered, GameCreated, PlayerDamaged, PlayerHealed, TurnStarted,
)
from locm.engine.locm.game import Game
from locm.engine.locm.rulesets import by_name


def card(base_id, cost=1, attack=1, defense=1, keywords=0, type=0, my=0, opp=0, draw=0, area=0) -> Card:
    return Card(base_id=base_id, type=type, cost=cost, attack=attack, defense=defense, keywords=keywords,
                my_health=my, opp_health=opp, draw=draw, area=area)


class Position:
    def __init__(self, ruleset: str = "1.2") -> None:
        self.ruleset = ruleset
        self.cards: dict[int, Card] = {}
        self.deck = ([], [])
        self.hand = ([], [])
        self.board = ([], [])
        self.health = [30, 30]
        self.mana = 10
        self.next_id = 1

    def _unit(self, c: Card) -> int:
        self.cards[c.base_id] = c
        i = self.next_id
        self.next_id += 1
        return i, c

    def in_deck(self, p, c):
        i, c = self._unit(c)
        self.deck[p].append((i, c))
        return i

    def in_hand(self, p, c):
        i, c = self._unit(c)
        self.hand[p].append((i, c))
        return i

    def on_board(self, p, c, lane=0):
        i, c = self._unit(c)
        self.board[p].append((i, c, lane))
        return i

    def game(self) -> Game:
        ev = []

        def add(cls, **kw):
            ev.append(cls(seq=len(ev), cause=-1 if not ev else 0, rule="TEST", **kw))

        add(GameCreated, ruleset=self.ruleset, ruleset_version="test", seed=0, shuffle_player0_seed=0,
            shuffle_player1_seed=0, rules=by_name(self.ruleset))
        add(CardPoolDefined, cards=tuple(sorted(self.cards.values(), key=lambda c: c.base_id)))
        for p in (0, 1):
            # Top of the deck first: the hand's cards are drawn first, then the board's, the deck stays.
            units = self.hand[p] + [(i, c) for i, c, _ in self.board[p]] + self.deck[p]
            add(DeckOrdered, player=p, ids=tuple(i for i, _ in units), base_ids=tuple(c.base_id for _, c in units))
            for i, _ in self.hand[p]:
                add(CardDrawn, player=p, id=i)
            for i, c, lane in self.board[p]:
                add(CardDrawn, player=p, id=i)
                add(CreatureSummoned, player=p, id=i, base_id=c.base_id, lane=lane, cost=0)
        ids = [tuple(i for i, _, _ in self.board[p]) for p in (0, 1)]
        add(TurnStarted, player=1, turn=0, max_mana=0, mana=0, bonus_spent=False, draws=0, ready=ids[1])
        add(TurnStarted, player=0, turn=1, max_mana=self.mana, mana=self.mana, bonus_spent=False, draws=0,
            ready=ids[0], cleared=ids[1])
        for p in (0, 1):
            d = 30 - self.health[p]
            if d > 0:
                add(PlayerDamaged, player=p, amount=d, source="test", counts=False)
            elif d < 0:
                add(PlayerHealed, player=p, amount=-d, source="test")
        game = Game.from_log(ev)
        for p in (0, 1):
            game.state.players[p].runes = [r for r in game.state.players[p].runes if r < self.health[p]]
        return game


def types(events) -> list[str]:
    return [type(e).__name__ for e in events]


def of(events, cls):
    return [e for e in events if type(e) is cls]
