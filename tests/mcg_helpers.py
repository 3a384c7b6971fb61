"""Helpers of the my-card-game tests: cards written in a line, and `Position`, a match position built by
folding a hand-written event log (a game created with the decks the position needs, the opening draws in the
order it wants, monsters summoned, a turn started), on which a test then plays commands through the real
`decide`. Such a log does not re-decide (its deck order is not its seed's); it is for rule scenarios only."""

from __future__ import annotations

from locm.engine.mcg.evolve import fold
from locm.engine.mcg.game import McgGame
from locm.engine.mcg.rules import STANDARD, rules_hash
from locm.engine.mcg.setup import derive_seeds
from locm.events.mcg.catalog import (
    CardDrawn, CardPlayed, DeckShuffled, GameCreated, MonsterSummoned, MulliganChosen, PlayerDamaged, PlayerHealed,
    StarterChosen, TurnStarted,
)
from locm.events.mcg.rules import CardDef, Effect, McgRules

_ids = iter(range(5000, 10**6))


def fx(do: str, to: str, on: str = "", at: str = "", **kw: int) -> Effect:
    return Effect(do=do, to=to, on=on, at=at, **kw)


def monster(power: int = 1, toughness: int = 0, health: int = 1, cost: int = 0, effects: tuple[Effect, ...] = (),
            rarity: float = 1.0, token: bool = False, name: str = "") -> CardDef:
    cid = next(_ids)
    return CardDef(id=cid, name=name or f"M{cid}", type="monster", cost=cost, rarity=rarity, power=power,
                   toughness=toughness, health=health, effects=effects, token=token)


def spell(*effects: Effect, target: str = "", cost: int = 0, rarity: float = 1.0) -> CardDef:
    cid = next(_ids)
    return CardDef(id=cid, name=f"S{cid}", type="spell", cost=cost, rarity=rarity, target=target, effects=effects)


def equipment(power: int = 0, toughness: int = 0, cost: int = 0) -> CardDef:
    cid = next(_ids)
    return CardDef(id=cid, name=f"E{cid}", type="equipment", cost=cost, rarity=1.0, power=power, toughness=toughness)



class Position:
    """A position of seat 0's main phase in turn `turn`: hands, boards (monsters that may attack, unless added
    with ``fresh=True``: summoned this turn), decks (top first), health and mana of both players. Add every
    card of seat 0 before seat 1's (instance ids follow the order of the decks in `game_created`)."""

    def __init__(self, rules: McgRules = STANDARD, turn: int = 3, mana: int = 10) -> None:
        self.rules = rules
        self.turn = turn
        self.mana = mana
        self.health = [rules.start_health, rules.start_health]
        self.items: tuple[list[tuple[str, CardDef, bool]], list[tuple[str, CardDef, bool]]] = ([], [])
        self.extra: list[CardDef] = []  # cards only effects refer to (tokens)

    def _add(self, seat: int, kind: str, card: CardDef, fresh: bool = False) -> int:
        if seat == 0 and self.items[1]:
            raise AssertionError("add seat 0's cards before seat 1's")
        self.items[seat].append((kind, card, fresh))
        return 1 + len(self.items[0]) + (len(self.items[1]) if seat == 1 else 0)

    def in_hand(self, seat: int, card: CardDef) -> int:
        return self._add(seat, "hand", card)

    def on_board(self, seat: int, card: CardDef, fresh: bool = False) -> int:
        return self._add(seat, "board", card, fresh)

    def in_deck(self, seat: int, card: CardDef) -> int:
        return self._add(seat, "deck", card)

    def state(self):
        return self.game().state

    def game(self) -> McgGame:
        log: list = []

        def add(cls, **kw):
            log.append(cls(seq=len(log), cause=-1 if not log else 0, rule="TEST", **kw))

        every = {c.id: c for seat in (0, 1) for _, c, _ in self.items[seat]}
        every.update({c.id: c for c in self.extra})
        for c in list(every.values()):
            for e in c.effects:
                if e.do == "summon" and e.card not in every:
                    raise AssertionError(f"token {e.card} must be added to Position.extra")
        decks = tuple(tuple(c.id for _, c, _ in self.items[seat]) for seat in (0, 1))
        add(GameCreated, rules=self.rules, rules_hash=rules_hash(self.rules), seeds=derive_seeds(0),
            agents=("test", "test"), decks=decks, cards=tuple(sorted(every.values(), key=lambda c: c.id)), first=0)
        add(StarterChosen, player=-1, first=0)
        ids = ([2 + k for k in range(len(self.items[0]))],
               [2 + len(self.items[0]) + k for k in range(len(self.items[1]))])
        drawn: tuple[list[tuple[int, str, CardDef, bool]], ...] = ([], [])
        for seat in (0, 1):
            top = [(i, k, c, f) for i, (k, c, f) in zip(ids[seat], self.items[seat]) if k != "deck"]
            rest = [i for i, (k, _, _) in zip(ids[seat], self.items[seat]) if k == "deck"]
            drawn[seat].extend(top)
            add(DeckShuffled, player=seat, ids=tuple([i for i, *_ in top] + rest))
        for seat in (0, 1):
            for i, _, c, _ in drawn[seat]:
                add(CardDrawn, player=seat, id=i, card=c.id)
        for seat in (0, 1):
            add(MulliganChosen, player=seat, returned=())

        def summon(seat: int, fresh: bool) -> None:
            for i, k, c, f in drawn[seat]:
                if k == "board" and f == fresh:
                    add(CardPlayed, player=seat, id=i, card=c.id, cost=0)
                    add(MonsterSummoned, player=seat, id=i, card=c.id, power=c.power, toughness=c.toughness,
                        health=c.health)

        add(TurnStarted, player=0, turn=1, max_mana=0)
        summon(0, False)
        summon(1, False)
        add(TurnStarted, player=0, turn=self.turn, max_mana=self.mana)
        summon(0, True)
        summon(1, True)
        for seat in (0, 1):
            delta = self.health[seat] - self.rules.start_health
            if delta < 0:
                add(PlayerDamaged, player=seat, amount=-delta)
            elif delta > 0:
                add(PlayerHealed, player=seat, amount=delta)
        return McgGame(fold(log), log)


__all__ = ["Position", "monster", "spell", "equipment", "fx"]
