"""The state of a my-card-game match: what the fold of its events gives (`engine.mcg.evolve`).

Plain mutable objects with slots, changed only by `evolve` on the fold's private copy (STYLE 2): `decide`
works on a `copy()` and never changes the state it is given. `snapshot()` is the state as plain values, for
comparing a fold with a live game.
"""

from __future__ import annotations

from typing import Any

from locm.events.mcg.rules import CardDef, McgRules, Seeds

# Phases in which a player acts. The draw and end phases (R-TURN) happen inside a decision: no one acts in them.
CHOOSE, MULLIGAN, MAIN, ENDED = "choose", "mulligan", "main", "ended"
PHASES = (CHOOSE, MULLIGAN, MAIN, ENDED)
FIRST_INSTANCE = 2  # R-SETUP: characters 0 and 1 are the players


class Monster:
    """A monster on the battlefield (R-SUMMON). ``owner``: whose graveyard it goes to; ``side``: who controls
    it (whose side of the board it is on)."""

    __slots__ = ("id", "card", "owner", "side", "power", "toughness", "health", "max_health", "summoned_turn",
                 "attacked")

    def __init__(self, id: int, card: CardDef, owner: int, side: int, power: int, toughness: int, health: int,
                 summoned_turn: int) -> None:
        self.id = id
        self.card = card
        self.owner = owner
        self.side = side
        self.power = power
        self.toughness = toughness
        self.health = health
        self.max_health = health
        self.summoned_turn = summoned_turn
        self.attacked = False

    def copy(self) -> "Monster":
        m = Monster.__new__(Monster)
        for k in Monster.__slots__:
            setattr(m, k, getattr(self, k))
        return m

    def values(self) -> dict[str, Any]:
        return {k: (self.card.id if k == "card" else getattr(self, k)) for k in Monster.__slots__}


class Player:
    """A player's side: health (no maximum, R-PLAYER), mana, deck (top card first), hand, graveyard, board
    (monster ids in board order), the empty draws so far (R-FATIGUE), the mulligan and this turn's rejections."""

    __slots__ = ("seat", "health", "mana", "max_mana", "deck", "hand", "graveyard", "board", "fatigue",
                 "mulliganed", "rejections")

    def __init__(self, seat: int, health: int) -> None:
        self.seat = seat
        self.health = health
        self.mana = 0
        self.max_mana = 0
        self.deck: list[int] = []
        self.hand: list[int] = []
        self.graveyard: list[int] = []
        self.board: list[int] = []
        self.fatigue = 0
        self.mulliganed = False
        self.rejections = 0

    def copy(self) -> "Player":
        p = Player.__new__(Player)
        for k in Player.__slots__:
            v = getattr(self, k)
            setattr(p, k, list(v) if type(v) is list else v)
        return p

    def values(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in Player.__slots__}


class McgState:
    """A match: its rules and cards, both players, the monsters on the board, the phase and who is to move."""

    __slots__ = ("rules", "seeds", "agents", "cards", "card_of", "owner_of", "monsters", "players", "phase",
                 "current", "first", "coin_winner", "turn", "seq", "next_id", "winner", "end_reason", "chain",
                 "delayed", "behaviour")

    def __init__(self, rules: McgRules, seeds: Seeds, agents: tuple[str, str], cards: dict[int, CardDef]) -> None:
        self.rules = rules
        self.seeds = seeds
        self.agents = agents
        self.cards = cards  # card id -> definition (from game_created; never changes)
        self.card_of: dict[int, int] = {}  # instance id -> card id
        self.owner_of: dict[int, int] = {}  # instance id -> seat
        self.monsters: dict[int, Monster] = {}
        self.players = (Player(0, rules.start_health), Player(1, rules.start_health))
        self.phase = CHOOSE
        self.current = -1  # the seat to move (-1 before the coin)
        self.first = -1  # the starting seat
        self.coin_winner = -1
        self.turn = 0
        self.seq = 0
        self.next_id = FIRST_INSTANCE
        self.winner = -1
        self.end_reason = ""
        self.chain = 0  # effects triggered by the action being decided (R-CAP)
        self.delayed: list[Any] = []  # the `effect_delayed` events still waiting for their phase (R-FX-DELAY)
        self.behaviour = 1  # the behaviour of the rules deciding the match (its created event's)

    def copy(self) -> "McgState":
        s = McgState.__new__(McgState)
        for k in McgState.__slots__:
            setattr(s, k, getattr(self, k))
        s.card_of = dict(self.card_of)
        s.owner_of = dict(self.owner_of)
        s.monsters = {i: m.copy() for i, m in self.monsters.items()}
        s.players = (self.players[0].copy(), self.players[1].copy())
        s.delayed = list(self.delayed)
        return s

    def snapshot(self) -> dict[str, Any]:
        """Every value of the state as plain data (two states are the same game position when equal)."""
        out = {k: getattr(self, k) for k in McgState.__slots__ if k not in ("monsters", "players", "cards",
                                                                             "delayed")}
        out["delayed"] = [(d.seq, d.at, d.turn) for d in self.delayed]
        out["cards"] = sorted(self.cards)
        out["monsters"] = {i: m.values() for i, m in sorted(self.monsters.items())}
        out["players"] = [p.values() for p in self.players]
        return out

    @property
    def ended(self) -> bool:
        return self.phase == ENDED

    def card(self, instance: int) -> CardDef:
        """The definition of an instance's card."""
        return self.cards[self.card_of[instance]]

    def name(self, instance: int) -> str:
        return self.card(instance).name if instance in self.card_of else f"#{instance}"


__all__ = ["McgState", "Player", "Monster", "CHOOSE", "MULLIGAN", "MAIN", "ENDED", "PHASES", "FIRST_INSTANCE"]
