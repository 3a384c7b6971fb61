"""my-card-game's adapter for the environments: its observation encoder and the slots of its action space.

Everything else is shared: the game itself comes from its registered definition (`engine/mcg/definition.py`:
create, legal actions, whose move, phase, outcome, views, built-in agents) through `locm.rl.seam_game`, and the
environments, opponents, rewards, masks and storing from `locm.rl.env`; this module numbers the phases. Three phases (R-COIN, R-MULLIGAN, R-TURN), each a block of the action space:

- ``choose`` (2 slots): the coin's winner starts (0) or lets the other seat start (1);
- ``mulligan``: one slot per set of hand positions put back, up to the ruleset's ``mulligan_max`` (positions in
  the order of the hand's card ids, as the game lists its legal mulligans: ``[]``, ``[0]``, ``[1]``, ...,
  ``[0, 1]``, ...; 26 slots for the standard opening hand of 5);
- ``main`` (187 slots for a hand of 12 and a board of 5): 0 ends the turn; ``1 + 13h + t`` plays hand card h
  on target t (0 no target, 1 the player itself, 2 the opponent, 3-7 its own monsters by board position,
  8-12 the enemy's); then ``attack own i -> t`` (t 0 the opponent, 1-5 the enemy monsters by position).

Every slot of the mask is one of the game's `legal_actions` (surrender is not offered), so `decide` judges
each action as it would a bot's. Observations are from the seat to move, scaled (health /30, mana /12, stats
/12); `phases(rules)` names every number.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterator, Sequence

from locm.engine.mcg import McgGame, STANDARD, legal_actions
from locm.engine.mcg.commands import Attack, EndTurn, Play
from locm.engine.mcg.state import CHOOSE, MAIN, MULLIGAN
from locm.events.mcg.rules import EQUIPMENT, MONSTER, SPELL, McgRules
from locm.rl.adapter import Phase
from locm.rl.seam_game import SeamMatch, SeamSpec

PLAYER = ("health", "mana", "max_mana", "hand", "deck", "board", "fatigue")
"""A player (7): health /30, mana and max mana /12, cards in hand / hand limit, cards in deck / deck size,
monsters / board size, empty draws so far /10."""
CARD = ("is_monster", "is_spell", "is_equipment", "cost", "power", "toughness", "health", "effects")
"""A card (8): type one-hot, cost /12, printed power, toughness and health /12, number of effects /4."""
MONSTER_FEATURES = ("present", "power", "toughness", "health", "can_attack")
"""A monster on the board (5): present, power /12, toughness /12, health /12, can attack now (own side only;
0 for the enemy's)."""
FIXED_TARGETS = ("none", "me", "opponent")


def _mulligans(rules: McgRules) -> list[tuple[int, ...]]:
    n = rules.opening_hand
    return [c for k in range(min(rules.mulligan_max, n) + 1) for c in combinations(range(n), k)]


def phases(rules: McgRules) -> tuple[Phase, ...]:
    h, b = rules.hand_limit, rules.board_size
    players = tuple(f"{who}_{f}" for who in ("me", "op") for f in PLAYER)
    hand = tuple(f"hand{k}_{f}" for k in range(h) for f in ("present", *CARD, "playable"))
    board = tuple(f"{side}{i}_{f}" for side in ("own", "enemy") for i in range(b) for f in MONSTER_FEATURES)
    opening = tuple(f"hand{k}_{f}" for k in range(rules.opening_hand) for f in ("present", *CARD))
    targets = [*FIXED_TARGETS, *(f"own{i}" for i in range(b)), *(f"enemy{i}" for i in range(b))]
    main = (["end turn"] + [f"play hand{k} on {t}" for k in range(h) for t in targets]
            + [f"attack own{i} -> {t}" for i in range(b) for t in ["opponent", *(f"enemy{j}" for j in range(b))]])
    return (Phase("choose", 2, players, ("start", "let the opponent start")),
            Phase("mulligan", len(_mulligans(rules)), players + opening,
                  tuple(f"put back {list(c)}" for c in _mulligans(rules))),
            Phase("main", len(main), players + hand + board, tuple(main)))


_TYPE = {MONSTER: (1.0, 0.0, 0.0), SPELL: (0.0, 1.0, 0.0), EQUIPMENT: (0.0, 0.0, 1.0)}


def _card(c: Any) -> list[float]:
    return [*_TYPE.get(c.type, (0.0, 0.0, 0.0)), c.cost / 12, c.power / 12, c.toughness / 12, c.health / 12,
            len(c.effects) / 4]


class McgEncoder:
    """my-card-game's `locm.rl.seam_game.Encoder` under one ruleset."""

    phase_names = (CHOOSE, MULLIGAN, MAIN)

    def __init__(self, rules: McgRules) -> None:
        self.rules = rules
        self.phases = phases(rules)
        self._mulligan_slot = {c: i for i, c in enumerate(_mulligans(rules))}

    def slots(self, s: Any, p: int, legal: Sequence[Any]) -> tuple[list[int], list[Any]]:
        if s.phase == CHOOSE:
            return [0 if a.first == p else 1 for a in legal], list(legal)
        slots: list[int] = []
        actions: list[Any] = []
        if s.phase == MULLIGAN:
            position = {i: k for k, i in enumerate(sorted(s.players[p].hand))}
            for a in legal:
                slot = self._mulligan_slot.get(tuple(position[i] for i in a.ids))
                if slot is not None:  # a hand larger than the opening hand: positions past it have no slot
                    slots.append(slot)
                    actions.append(a)
            return slots, actions
        if s.phase != MAIN:
            return [], []
        h, b = self.rules.hand_limit, self.rules.board_size
        width = len(FIXED_TARGETS) + 2 * b
        attack_base = 1 + h * width
        hand = {i: k for k, i in enumerate(s.players[p].hand)}
        own = {i: k for k, i in enumerate(s.players[p].board)}
        enemy = {i: k for k, i in enumerate(s.players[1 - p].board)}
        for a in legal:
            t = type(a)
            if t is EndTurn:
                slot = 0
            elif t is Play:
                k = hand[a.id]
                if k >= h:
                    continue
                target = a.target
                if target == -1:
                    x = 0
                elif target == p:
                    x = 1
                elif target == 1 - p:
                    x = 2
                elif target in own:
                    x = 3 + own[target]
                else:
                    x = 3 + b + enemy[target]
                slot = 1 + k * width + x
            elif t is Attack:
                slot = attack_base + own[a.id] * (1 + b) + (0 if a.target == 1 - p else 1 + enemy[a.target])
            else:  # pragma: no cover - the main phase lists no other command
                continue
            slots.append(slot)
            actions.append(a)
        return slots, actions

    def observe(self, s: Any, player: int) -> list[float]:
        r = self.rules
        out: list[float] = []
        for pl in (s.players[player], s.players[1 - player]):
            out += [pl.health / 30, pl.mana / 12, pl.max_mana / 12, len(pl.hand) / r.hand_limit,
                    len(pl.deck) / r.deck_size, len(pl.board) / r.board_size, pl.fatigue / 10]
        if s.phase == CHOOSE:
            return out
        me = s.players[player]
        if s.phase == MULLIGAN:
            hand = sorted(me.hand)[:r.opening_hand]
            for i in hand:
                out += [1.0, *_card(s.card(i))]
            out += [0.0] * ((r.opening_hand - len(hand)) * (1 + len(CARD)))
            return out
        for i in me.hand[:r.hand_limit]:
            c = s.card(i)
            out += [1.0, *_card(c), 1.0 if c.cost <= me.mana else 0.0]
        out += [0.0] * ((r.hand_limit - min(len(me.hand), r.hand_limit)) * (2 + len(CARD)))
        attackers = {a.id for a in legal_actions(s) if type(a) is Attack} if s.current == player else set()
        for side, own in ((me, True), (s.players[1 - player], False)):
            for i in side.board[:r.board_size]:
                m = s.monsters[i]
                out += [1.0, m.power / 12, m.toughness / 12, m.health / 12, 1.0 if own and i in attackers else 0.0]
            out += [0.0] * ((r.board_size - min(len(side.board), r.board_size)) * len(MONSTER_FEATURES))
        return out


def _health(m: SeamMatch, p: int) -> float:
    return m.state.players[p].health / 30


def _opponent_health(m: SeamMatch, p: int) -> float:
    return -max(0, m.state.players[1 - p].health) / 30


def _board(m: SeamMatch, p: int) -> float:
    s = m.state
    return float(sum(s.monsters[i].power for i in s.players[p].board))


def _opponent_board(m: SeamMatch, p: int) -> float:
    s = m.state
    return -float(sum(s.monsters[i].power for i in s.players[1 - p].board))


class McgSpec(SeamSpec):
    """my-card-game under one ruleset (``standard``, a variant file's path or `McgRules`) as a `GameSpec`."""

    def __init__(self, ruleset: Any = None) -> None:
        if ruleset is None or ruleset == "standard":
            rules = STANDARD
        elif isinstance(ruleset, McgRules):
            rules = ruleset
        else:
            from pathlib import Path

            from locm.engine.mcg import parse_variant

            path = Path(ruleset)
            rules = parse_variant(path.read_text(encoding="utf-8"), str(path), path.stem)
        super().__init__("mcg", rules, McgEncoder(rules),
                         {"player-health": _health, "opponent-health": _opponent_health,
                          "player-board-presence": _board, "opponent-board-presence": _opponent_board})

    def decisions(self, log: Sequence[Any]) -> Iterator[tuple[SeamMatch, int, Any]]:
        """A stored log played again: (match, seat, command) before each recorded answer is applied (a timeout
        or a line holding no command gives none). The match's log in the end is what the rules give."""
        from locm.engine.errors import LocmError
        from locm.engine.mcg import parse_answer
        from locm.engine.mcg.commands import Timeout
        from locm.events.mcg.catalog import TIMEOUT, CommandReceived, GameCreated

        created = log[0]
        if type(created) is not GameCreated:
            raise LocmError("a my-card-game log must start with mcg_game_created")
        game = McgGame.new(created.rules, created.seeds, created.agents, created.decks,
                           None if created.first == -1 else created.first, {c.id: c for c in created.cards})
        match = SeamMatch(self.definition, self.encoder, game, created.seeds.seed)
        for e in log[1:]:
            if type(e) is not CommandReceived or e.cause != -1 or game.ended:
                continue
            if e.kind == TIMEOUT:
                game.submit(Timeout(e.player))
                continue
            try:
                command = parse_answer(e.text, e.player)
            except LocmError:
                command = None
            if command is not None:
                yield match, e.player, command
            game.answer(e.player, e.text)


__all__ = ["McgSpec", "McgEncoder", "phases"]
