"""LOCM's adapter for the environments: the observation encoder and the slots of its fixed action spaces.

Three phases, each a block of the action space (`locm.rl.adapter.Phase`):

- ``draft`` (1.2): 3 slots, pick the i-th offered card (as gym-locm's draft env);
- ``construct`` (constructed): 120 slots, choose card i of the pool for the deck, one card a step, 30 steps (as
  gym-locm's constructed env; the 30th choice submits the deck, as `locm.Game` does);
- ``battle``: gym-locm's 145 slots for a hand of 8 and lanes of 3 (other sizes for a variant's ``hand_limit``
  and ``lane_size``): 0 ends the turn; 1-16 summon hand card h to lane l (``1 + 2h + l``); 17-120 use hand card
  h on target t (``17 + 13h + t``: t 0 no target or the opponent, 1-6 own creatures by lane then position,
  7-12 enemy creatures); 121-144 attack with own creature j on target t (``121 + 4j + t``: t 0 the opponent,
  1-3 the enemy creatures of j's lane by position). Creatures are in summoning order within their lane, as
  the engine keeps the board.

Every slot of the mask is an action of the engine's `legal_actions` (plus the end of the turn): the engine
still decides every action, so the event log is the one `locm.Game` records for the same actions.

Observations are from the seat of the player to move, scaled by gym-locm's divisors (health /30, mana /13,
stats /12, draws /2); `features(rules)` names every number (the README's tables are made from them).
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

from locm.games.locm.api import Choose
from locm.engine.locm import game as engine_game
from locm.engine.locm.commands import Attack, BuildDeck, EndTurn, Pick, Summon, Use
from locm.engine.locm.rulesets import Rules, deck_cards
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT, ENDED
from locm.events.locm.cards import KEYWORD_NAMES, TYPE_NAMES
from locm.rl.adapter import Phase

LANES = 2
POOL = 120  # the constructed pool (R-CARDGEN)
OFFER = 3  # cards offered a draft round (R-DRAFT)
CURVE = 13  # mana-curve buckets: cost 0..11, and 12 or more

CARD_FEATURES = (*(f"is_{t}" for t in TYPE_NAMES), "cost", "attack", "defense", "my_health", "opp_health", "draw",
                 *KEYWORD_NAMES, "area")
"""A card's printed values (17): type one-hot, cost /12, attack /12, defense /12 (items: negative, the damage),
health changes /12, cards drawn /2, the six keywords, area /2 (1.5)."""
PLAYER_FEATURES = ("health", "mana", "max_mana", "next_rune", "next_draw", "hand", "deck", "board")
"""A player (8): health /30, mana and max mana /13, next rune /30 (1.2; 0 in constructed), cards drawn next
turn /6, cards in hand / hand limit, cards in deck / deck size, creatures on board / board size."""
OWN_UNIT = ("present", "attack", "defense", "can_attack", *KEYWORD_NAMES)
ENEMY_UNIT = ("present", "attack", "defense", *KEYWORD_NAMES)
_KW = tuple(tuple(float(m >> b & 1) for b in range(6)) for m in range(64))
_HAND_WIDTH = len(CARD_FEATURES) + 2  # present, the card, playable
_KW_BYTES = tuple(struct.pack("6f", *k) for k in _KW)
_ONE, _ZERO = struct.pack("f", 1.0), struct.pack("f", 0.0)
_pack16 = struct.Struct("16f").pack
_pack4 = struct.Struct("4f").pack
_pack3 = struct.Struct("3f").pack
_I12 = 1 / 12
_END = EndTurn()


def battle_size(rules: Rules) -> int:
    """The battle phase's slots: end turn, summons, uses, attacks (145 for a hand of 8, lanes of 3)."""
    h, s = rules.hand_limit, rules.lane_size
    return 1 + LANES * h + h * (1 + 2 * LANES * s) + LANES * s * (1 + s)


def phases(rules: Rules) -> tuple[Phase, ...]:
    """The phases of a ruleset: its deck building (draft or construct) and the battle."""
    h, s = rules.hand_limit, rules.lane_size
    if rules.deck_building == "draft":
        first = Phase("draft", OFFER, tuple(f"offer{i}_{f}" for i in range(OFFER) for f in CARD_FEATURES)
                      + _deck_summary(), tuple(f"pick {i}" for i in range(OFFER)))
    else:
        first = Phase("construct", POOL, tuple(f"card{i}_{f}" for i in range(POOL)
                                               for f in (*CARD_FEATURES, "chosen")) + _deck_summary(),
                      tuple(f"choose {i}" for i in range(POOL)))
    slots = ["end turn"] + [f"summon hand{k} lane{l}" for k in range(h) for l in range(LANES)]
    targets = ["none"] + [f"{side}{l}.{i}" for side in ("own", "enemy") for l in range(LANES) for i in range(s)]
    slots += [f"use hand{k} on {t}" for k in range(h) for t in targets]
    slots += [f"attack own{l}.{i} -> {t}" for l in range(LANES) for i in range(s)
              for t in ["opponent"] + [f"enemy{l}.{k}" for k in range(s)]]
    features = (tuple(f"{who}_{f}" for who in ("me", "op") for f in PLAYER_FEATURES)
                + tuple(f"hand{k}_{f}" for k in range(h) for f in ("present", *CARD_FEATURES, "playable"))
                + tuple(f"own{l}.{i}_{f}" for l in range(LANES) for i in range(s) for f in OWN_UNIT)
                + tuple(f"enemy{l}.{i}_{f}" for l in range(LANES) for i in range(s) for f in ENEMY_UNIT))
    return first, Phase("battle", battle_size(rules), features, tuple(slots))


def _deck_summary() -> tuple[str, ...]:
    return (*(f"curve_{c}" for c in range(CURVE)), *(f"deck_{t}" for t in TYPE_NAMES), "progress")


def _pack_card(c: Any) -> bytes:
    features = (1.0, *card_features(c))
    return struct.pack(f"{len(features)}f", *features)


def card_features(c: Any) -> tuple[float, ...]:
    """The 17 numbers of a card's printed values (`CARD_FEATURES`)."""
    t = c.type
    return ((t == 0) * 1.0, (t == 1) * 1.0, (t == 2) * 1.0, (t == 3) * 1.0, c.cost / 12, c.attack / 12,
            max(-12, c.defense) / 12, c.my_health / 12, c.opp_health / 12, c.draw / 2, *_KW[c.keywords & 63],
            c.area / 2)


class LocmMatch:
    """A live LOCM game for the environments (`locm.rl.adapter.Match`), over the engine's `Game`."""

    __slots__ = ("game", "state", "log", "rules", "chosen", "_cards", "_h", "_s", "_deck", "_use_base", "_use_width",
                 "_attack_base", "_lanes_key", "_lanes_cache")

    def __init__(self, rules: Rules, seed: int, agents: Sequence[str]) -> None:
        self._bind(engine_game.Game.new(rules, seed, None, (agents[0], agents[1])))

    @classmethod
    def over(cls, game: engine_game.Game) -> "LocmMatch":
        """A match over an engine game that exists already (a stored game being read again)."""
        m = cls.__new__(cls)
        m._bind(game)
        return m

    def _bind(self, game: engine_game.Game) -> None:
        rules = game.rules
        self.game = game
        self.state = self.game.state
        self.log = self.game.log
        self.rules = rules
        self.chosen: list[int] = []  # constructed: the cards chosen so far by the player to move
        self._cards: dict[int, bytes] = {}  # base id -> float32 bytes of (1.0, *card_features), this game's pool
        self._h, self._s = rules.hand_limit, rules.lane_size
        self._deck = deck_cards(rules)
        self._use_base = 1 + LANES * self._h
        self._use_width = 1 + 2 * LANES * self._s
        self._attack_base = self._use_base + self._h * self._use_width
        self._lanes_key: tuple[int, int] | None = None
        self._lanes_cache: list[list[Any]] = []

    # --- the Match protocol ---------------------------------------------------------------------------------

    def to_move(self) -> int:
        return -1 if self.state.phase == ENDED else self.state.current

    def phase(self) -> int:
        phase = self.state.phase
        return 1 if phase == BATTLE else -1 if phase == ENDED else 0

    def result(self) -> tuple[float, float] | None:
        s = self.state
        if s.phase != ENDED:
            return None
        return (1.0, -1.0) if s.winner == 0 else (-1.0, 1.0)

    def play(self, action: Any) -> None:
        if type(action) is Choose:
            self.chosen.append(action.base_id)
            if len(self.chosen) == self.rules.deck_size:
                deck, self.chosen = tuple(self.chosen), []
                self.game.submit(BuildDeck(self.state.current, deck))
            return
        self.game.submit(action)

    def view(self, player: int | None) -> dict[str, Any]:
        from locm.engine.locm.views import view

        return view(self.state, player)

    def text(self, player: int) -> str:
        return self.game.input_for(player)

    def choices(self) -> tuple[list[int], list[Any]]:
        s = self.state
        if s.phase == BATTLE:
            return self._battle_choices()
        if s.phase == DRAFT:
            p = s.current
            n = len(s.offer)
            return list(range(n)), [Pick(p, i) for i in range(n)]
        if s.phase == CONSTRUCT:
            limit = self.rules.max_copies
            chosen = self.chosen
            ids = [b for b in sorted(s.cards) if chosen.count(b) < limit]
            return ids, [Choose(b) for b in ids]
        return [], []

    def observe(self, player: int) -> list[float] | bytearray:
        phase = self.state.phase
        if phase == BATTLE:
            return self._battle_obs(player)
        return self._building_obs(player)

    # --- battle ---------------------------------------------------------------------------------------------

    def _lanes(self, player: int) -> list[list[Any]]:
        """The player's creatures by lane, each lane in summoning order (cached for the current state)."""
        s = self.state
        key = (s.seq, player)
        if self._lanes_key == key:
            return self._lanes_cache
        lanes: list[list[Any]] = [[], []]
        for u in s.players[player].board:
            lanes[u.lane].append(u)
        self._lanes_key, self._lanes_cache = key, lanes
        return lanes

    def _battle_choices(self) -> tuple[list[int], list[Any]]:
        s = self.state
        p = s.current
        size = self._s
        hand = {u.id: k for k, u in enumerate(s.players[p].hand)}
        own: dict[int, int] = {}
        enemy: dict[int, int] = {}
        for l, lane in enumerate(self._lanes(p)):
            for i, u in enumerate(lane):
                own[u.id] = l * size + i
        enemy_lanes = [[u.id for u in lane] for lane in self._lanes_of(1 - p)]
        for lane in enemy_lanes:
            for i, uid in enumerate(lane):
                enemy[uid] = i  # attack targets: position in the lane
        use_base, use_width, attack_base = self._use_base, self._use_width, self._attack_base
        enemy_base = 1 + LANES * size
        slots = [0]
        actions: list[Any] = [_END]
        units = s.units
        legal = self.game.legal_actions()  # the list the engine's game keeps between events
        for a in legal:
            t = type(a)
            if t is Summon:
                slots.append(1 + 2 * hand[a.id] + a.lane)
            elif t is Attack:
                target = a.target
                slots.append(attack_base + (1 + size) * own[a.id] + (0 if target == -1 else 1 + enemy[target]))
            else:
                target = a.target
                if target == -1:
                    k = 0
                elif target in own:
                    k = 1 + own[target]
                else:
                    k = enemy_base + units[target].lane * size + enemy[target]
                slots.append(use_base + use_width * hand[a.id] + k)
        actions += legal
        return slots, actions

    def _lanes_of(self, player: int) -> list[list[Any]]:
        lanes: list[list[Any]] = [[], []]
        for u in self.state.players[player].board:
            lanes[u.lane].append(u)
        return lanes

    def _battle_obs(self, p: int) -> bytearray:
        """The battle's features as float32 bytes: a card's numbers are packed once a game, a unit's keywords
        once (the environments read the bytes as an array without converting each number)."""
        s = self.state
        me, op = s.players[p], s.players[1 - p]
        h, size = self._h, self._s
        deck, board = self._deck or 1, 2 * size
        hand = me.hand
        parts = [_pack16(me.health / 30, me.mana / 13, me.max_mana / 13, me.next_rune / 30, me.next_draw / 6,
                         len(hand) / h, len(me.deck) / deck, len(me.board) / board,
                         op.health / 30, op.mana / 13, op.max_mana / 13, op.next_rune / 30, op.next_draw / 6,
                         len(op.hand) / h, len(op.deck) / deck, len(op.board) / board)]
        append = parts.append
        cards = self._cards
        mana = me.mana
        for u in hand:
            c = u.card
            f = cards.get(c.base_id)
            if f is None:
                f = cards[c.base_id] = _pack_card(c)
            append(f)
            append(_ONE if c.cost <= mana else _ZERO)
        if len(hand) < h:
            append(bytes(4 * (h - len(hand)) * _HAND_WIDTH))
        kw = _KW_BYTES
        for lane in self._lanes(p):
            for u in lane:
                append(_pack4(1.0, u.attack * _I12, u.defense * _I12,
                              1.0 if u.can_attack and not u.has_attacked else 0.0))
                append(kw[u.keywords])
            if len(lane) < size:
                append(bytes(4 * (size - len(lane)) * len(OWN_UNIT)))
        for lane in self._lanes_of(1 - p):
            for u in lane:
                append(_pack3(1.0, u.attack * _I12, u.defense * _I12))
                append(kw[u.keywords])
            if len(lane) < size:
                append(bytes(4 * (size - len(lane)) * len(ENEMY_UNIT)))
        return bytearray().join(parts)

    # --- deck building --------------------------------------------------------------------------------------

    def _building_obs(self, p: int) -> list[float]:
        s = self.state
        cards = s.cards
        out: list[float] = []
        if s.phase == DRAFT:
            for b in s.offer:
                out += card_features(cards[b])
            out += [0.0] * ((OFFER - len(s.offer)) * len(CARD_FEATURES))
            deck = [cards[b] for b in s.players[p].picks]
            progress = s.round / max(1, self.rules.draft_rounds)
        else:
            limit = self.rules.max_copies
            chosen = self.chosen if p == s.current else []
            for b in sorted(cards):
                out += card_features(cards[b])
                out.append(chosen.count(b) / limit)
            out += [0.0] * ((POOL - len(cards)) * (len(CARD_FEATURES) + 1))
            deck = [cards[b] for b in chosen]
            progress = len(chosen) / self.rules.deck_size
        curve = [0.0] * (CURVE + 4)
        n = max(1, self._deck)
        for c in deck:
            curve[min(c.cost, CURVE - 1)] += 1 / n
            curve[CURVE + c.type] += 1 / n
        out += curve
        out.append(progress)
        return out


class LocmOpponent:
    """A built-in agent (`random`, `pass`, `greedy`, `lookahead`) or an external bot's command line (run in the
    sandbox, `locm.games.locm.bots`), playing a whole turn (a pick, a deck, a battle turn) for its seat."""

    def __init__(self, spec: str, seed: int) -> None:
        from locm.games.locm.bots import make_agent

        self.spec = spec
        self.agent = make_agent(spec, seed)

    def play(self, match: LocmMatch, player: int) -> None:
        self.agent.play_turn(match.game, player)

    def close(self) -> None:
        stop = getattr(self.agent, "stop", None)
        if stop is not None:
            stop()


def _health(m: LocmMatch, p: int) -> float:
    return m.state.players[p].health / 30


def _opponent_health(m: LocmMatch, p: int) -> float:
    return -max(0, m.state.players[1 - p].health) / 30


def _board(m: LocmMatch, p: int) -> float:
    return float(sum(u.attack for u in m.state.players[p].board))


def _opponent_board(m: LocmMatch, p: int) -> float:
    return -float(sum(u.attack for u in m.state.players[1 - p].board))


class LocmSpec:
    """LOCM under one ruleset (a built-in name, a variant file or a `Rules` value) as a `GameSpec`."""

    game = "locm"
    seats = 2
    rewards = {"player-health": _health, "opponent-health": _opponent_health,
               "player-board-presence": _board, "opponent-board-presence": _opponent_board}

    def __init__(self, ruleset: str | Rules = "1.2") -> None:
        from locm.games.locm.variants import resolve_ruleset

        from locm.engine.locm.rulesets import RULESETS

        self.rules = resolve_ruleset(ruleset)
        self.phases = phases(self.rules)
        # The built-in rulesets' features stay within [-1, 1] but for health (at most a few times 30): within the
        # environments' bound, so their observations need no clipping; a variant's are clipped.
        self.bounded = self.rules in RULESETS.values()

    def new(self, seed: int, agents: Sequence[str]) -> LocmMatch:
        return LocmMatch(self.rules, seed, agents)

    def opponent(self, spec: str, seed: int) -> LocmOpponent:
        return LocmOpponent(spec, seed)

    def open_store(self, option: Any) -> Any:
        if hasattr(option, "append_game"):
            return option
        from locm.store.eventstore import open_store

        return open_store(option)

    def store_episode(self, store: Any, match: LocmMatch) -> str:
        from locm.engine.locm.definition import GAME
        from locm.engine.locm.gameid import episode_id
        from locm.store.eventstore import GameExtras

        gid = episode_id(match.log)
        if not store.has_game(gid):  # the same seed, agents and actions: the same game, stored once
            store.append_game(GAME, GameExtras(game_id=gid, meta='{"source": "rl"}'), match.log)
        return gid


__all__ = ["LocmSpec", "LocmMatch", "LocmOpponent", "phases", "battle_size", "card_features", "CARD_FEATURES",
           "PLAYER_FEATURES"]
