"""The state of one game: what `evolve` builds and `decide` reads.

The state is a private working copy (STYLE 2): only `engine.locm.evolve.evolve` changes it, one event at a time.
`GameState.copy()` gives an independent copy, used for snapshots and by anyone who wants to keep a state.
"""

from __future__ import annotations

from locm.events.locm.cards import Card
from locm.events.locm.catalog import GameCreated
from locm.engine.locm.rulesets import Ruleset, deck_cards

# Compiled by mypyc (setup.py, `make fast`), Unit, Player and GameState are native classes, which have no bare
# __new__: their copies are built through the constructor there. Interpreted, __new__ and setting the fields is
# 1.4x faster than the constructor, so the pure core keeps it. Both give the same copy.
_NATIVE = not __file__.endswith((".py", ".pyc"))

# Phases
SETUP, DRAFT, CONSTRUCT, BATTLE, ENDED = "setup", "draft", "construct", "battle", "ended"


class Unit:
    """One card instance (in a deck, a hand or on the board) with its current values."""

    __slots__ = (
        "id", "card", "owner", "attack", "defense", "keywords",
        "can_attack", "has_attacked", "lane", "touched",
    )

    def __init__(self, id: int, card: Card, owner: int) -> None:
        self.id = id
        self.card = card
        self.owner = owner
        self.attack = card.attack
        self.defense = card.defense
        self.keywords = card.keywords
        self.can_attack = False
        self.has_attacked = False
        self.lane = -1
        self.touched = False  # 1.2 quirk: attacked, attacked by or targeted by an item (R-INPUT)

    def copy(self) -> "Unit":
        u = Unit(self.id, self.card, self.owner) if _NATIVE else Unit.__new__(Unit)
        u.id = self.id
        u.card = self.card
        u.owner = self.owner
        u.attack = self.attack
        u.defense = self.defense
        u.keywords = self.keywords
        u.can_attack = self.can_attack
        u.has_attacked = self.has_attacked
        u.lane = self.lane
        u.touched = self.touched
        return u

    def key(self) -> tuple[object, ...]:
        return (self.id, self.card.base_id, self.owner, self.attack, self.defense, self.keywords,
                self.can_attack, self.has_attacked, self.lane, self.touched)

    def __repr__(self) -> str:
        return f"Unit(id={self.id}, base={self.card.base_id}, {self.attack}/{self.defense}, lane={self.lane})"


class Player:
    """One side: health, mana, runes and the card zones. ``deck[-1]`` is the top of the deck."""

    __slots__ = (
        "index", "health", "max_mana", "mana", "bonus", "runes", "next_draw", "draw_shown",
        "damage_counter", "deck", "hand", "board", "actions", "turns", "picks", "last_damage",
    )

    def __init__(self, index: int, rules: Ruleset) -> None:
        self.index = index
        self.health = rules.start_health
        # R-TURN: P0 starts at 0 max mana, P1 at 1 with a bonus token; current mana starts full.
        self.max_mana = index
        self.mana = index
        self.bonus = index == 1
        self.runes = list(rules.runes)
        self.next_draw = 1
        self.draw_shown = 1
        self.damage_counter = 0
        self.deck: list[Unit] = []
        self.hand: list[Unit] = []
        self.board: list[Unit] = []
        self.actions: list[tuple[int, str, int, int]] = []  # (baseId, verb, id, arg) executed this/last turn (R-INPUT)
        self.turns = 0  # own turns started so far
        self.picks: list[int] = []
        self.last_damage = -1  # seq of the latest player_damaged of this player (what a death points to)

    @property
    def next_rune(self) -> int:
        return self.runes[0] if self.runes else 0

    def lane_count(self, lane: int) -> int:
        n = 0
        for u in self.board:
            if u.lane == lane:
                n += 1
        return n

    def copy(self, units: dict[int, Unit], rules: Ruleset) -> "Player":
        p = Player(self.index, rules) if _NATIVE else Player.__new__(Player)
        p.index = self.index
        p.health = self.health
        p.max_mana = self.max_mana
        p.mana = self.mana
        p.bonus = self.bonus
        p.runes = list(self.runes)
        p.next_draw = self.next_draw
        p.draw_shown = self.draw_shown
        p.damage_counter = self.damage_counter
        p.deck = [units[u.id] for u in self.deck]
        p.hand = [units[u.id] for u in self.hand]
        p.board = [units[u.id] for u in self.board]
        p.actions = list(self.actions)
        p.turns = self.turns
        p.picks = list(self.picks)
        p.last_damage = self.last_damage
        return p

    def key(self) -> tuple[object, ...]:
        return (self.health, self.max_mana, self.mana, self.bonus, tuple(self.runes), self.next_draw,
                self.draw_shown, self.damage_counter, tuple(u.key() for u in self.deck),
                tuple(u.key() for u in self.hand), tuple(u.key() for u in self.board),
                tuple(self.actions), self.turns, tuple(self.picks), self.last_damage)


class GameState:
    """The whole game. ``seq`` is the sequence number the next event will get."""

    __slots__ = (
        "rules", "phase", "seq", "cards", "players", "units", "current", "turn", "round",
        "offer", "_offers", "next_id", "winner", "end_reason", "params",
    )

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.phase = SETUP
        self.seq = 0
        self.cards: dict[int, Card] = {}
        self.players = (Player(0, rules), Player(1, rules))
        self.units: dict[int, Unit] = {}
        self.current = 0  # whose decision it is
        self.turn = -1  # battle turn number, 0 = player 0's first turn
        self.round = 0  # draft round
        self.offer: tuple[int, ...] = ()  # current draft offer (base ids)
        self._offers: list[tuple[int, ...]] = []  # every draft offer, by round
        self.next_id = 2 * deck_cards(rules) + 1  # R-DECK, COG 2022 ids: Area copies after both decks (61)
        self.winner = -1
        self.end_reason = ""
        self.params: GameCreated | None = None  # the GameCreated event

    @property
    def ended(self) -> bool:
        return self.phase == ENDED

    def copy(self) -> "GameState":
        s = GameState(self.rules) if _NATIVE else GameState.__new__(GameState)
        s.rules = self.rules
        s.phase = self.phase
        s.seq = self.seq
        s.cards = self.cards  # never mutated after CardPoolDefined
        s.units = {i: u.copy() for i, u in self.units.items()}
        s.players = (self.players[0].copy(s.units, self.rules), self.players[1].copy(s.units, self.rules))
        s.current = self.current
        s.turn = self.turn
        s.round = self.round
        s.offer = self.offer
        s._offers = list(self._offers)
        s.next_id = self.next_id
        s.winner = self.winner
        s.end_reason = self.end_reason
        s.params = self.params
        return s

    def copy_for_one_action(self) -> "GameState":
        """A copy in which exactly one battle command may be decided and applied (a look-ahead's step): the
        units in hands and on boards are copied, the decks' units are shared with this state. One command
        only moves a deck's unit to the hand (a draw, `evolve`'s `_card_drawn`), never changes it, so this
        state stays as it was; a second command on the copy could change a shared unit. About a third of
        `copy`'s time (the decks are most of the units)."""
        s = GameState(self.rules) if _NATIVE else GameState.__new__(GameState)
        s.rules = self.rules
        s.phase = self.phase
        s.seq = self.seq
        s.cards = self.cards
        units = dict(self.units)
        for pl in self.players:
            for u in pl.hand:
                units[u.id] = u.copy()
            for u in pl.board:
                units[u.id] = u.copy()
        s.units = units
        s.players = (self.players[0].copy(units, self.rules), self.players[1].copy(units, self.rules))
        s.current = self.current
        s.turn = self.turn
        s.round = self.round
        s.offer = self.offer
        s._offers = self._offers  # never changed in the battle
        s.next_id = self.next_id
        s.winner = self.winner
        s.end_reason = self.end_reason
        s.params = self.params
        return s

    def key(self) -> tuple[object, ...]:
        """Everything observable, as a comparable value (for tests: fold == live)."""
        return (self.rules.name, self.phase, self.seq, self.players[0].key(), self.players[1].key(),
                tuple(sorted(u.key() for u in self.units.values())), self.current, self.turn,
                self.round, self.offer, self.next_id, self.winner, self.end_reason)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]
