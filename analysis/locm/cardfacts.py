"""The one fold of a LOCM game's facts: one pass over a game's events gives its outcome, length, damage by
source, card pool and decks, and, for each player and each card the player took into its deck, the facts the
card metrics of ``data/ANALYTICS.md`` are computed from. Every tool that asks what happened in a game reads
it from here: the card report (`locm.games.locm.facts_store`, which keeps the facts in the store file), `locm whatif`
(`locm.games.locm.whatif.facts_of`, `card_units`), `locm cardvalue` (holders by deck) and the overview
(`analysis.locm.overview`). Pure: no SQLite, no I/O.

Definitions (version `DEFINITIONS_VERSION`; a change to any of them, or to `card_features`, bumps it):

- A *card* is a base id of that game. In 1.2 it is the same card in every game; in constructed it is a card
  generated for that game only (R-CARDGEN), so reports group constructed cards by `card_features`.
- *Offered* (1.2): draft rounds whose three cards include the card (R-DRAFT). Both players see the same offer,
  so it is kept once per game (`GameFacts.offered`) and counts for each player-game of the game.
  Constructed: every card of the pool is available to both players; `GameFacts.pool` counts the pool's cards
  per feature bucket.
- *Picked*: draft picks of the card (1.2, pick number = round + 1, 1..30) or constructed choices of it
  (pick number = its position 1..30 in the ``DeckChosen`` order). ``pick_first`` is the earliest.
- *Copies*: copies in the player's shuffled deck (``DeckOrdered``, R-DECK).
- *Opening*: copies drawn before the first ``TurnStarted`` (the opening hand, R-TURN: 4 for the first player,
  5 for the second). *Drawn*: copies drawn after it (turn draws and card effects, R-DRAW).
- *Played*: copies summoned (``CreatureSummoned`` with ``copy_of == 0``; an Area copy is not a play) or used
  (``ItemUsed``). *Own turn*: the player's k-th ``TurnStarted`` is its own turn k (1-based).
  ``play_turn_sum`` sums the own turns of the plays; ``first_play_turn`` is the own turn of the first play.
  *Turns held*: own turn of the play minus own turn the copy entered the hand (opening hand: own turn 1; a
  copy drawn before the player's first turn counts from 1 too), summed over plays in ``held_sum``.
- *Won*: the player is ``GameEnded.winner``.
- ``fkey``: the card's `feature_key` (type, cost, keywords, area, draw, health effects, stat efficiency packed
  in one integer); `features_of_key` turns it into the constructed report's feature buckets.
- Game level: length = ``TurnStarted`` events (both players), ``last_turn`` the last one's ``turn`` (what
  whatif and the overview call a game's length, plus one), damage to players by ``PlayerDamaged.source`` (and
  by the player hurt, ``damage_taken``),
  drain = ``PlayerHealed`` with source ``drain``; *same decks*: both ``DeckOrdered`` hold the same base ids
  (as many copies of each); ``defs`` the card pool (``CardPoolDefined``), ``decks`` each player's deck in its
  ``DeckOrdered`` order.
- Constructed buckets (`GameFacts.buckets`): per player and feature bucket, how many of its cards meet each
  metric's condition, what the bucket intervals are clustered by (`analysis.locm.cardtotals.chunk_totals`).

Events of types not in `TYPES` (and fields not read here) are ignored, so that new event types and new fields
do not break the projection (unlike the fold, which must refuse what it does not know, STYLE 3).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import chain
from operator import attrgetter
from dataclasses import dataclass, field

from locm.events.locm.cards import KEYWORD_NAMES, TYPE_NAMES, AREA_NAMES, CREATURE, Card
from locm.events.locm.catalog import (
    CardDrawn, CardPicked, CardPoolDefined, CreatureSummoned, DeckChosen, DeckOrdered, DraftOffered,
    GameCreated, GameEnded, ItemUsed, PlayerDamaged, PlayerHealed, TurnStarted,
)

DEFINITIONS_VERSION = "cardfacts-3"
"""The version of the definitions above and of `card_features`; every report states it."""

# Event tags the projection reads (the store can filter on them).
TYPES = ("game_created", "card_pool_defined", "draft_offered", "card_picked", "deck_chosen", "deck_ordered",
         "card_drawn", "turn_started", "creature_summoned", "item_used", "player_damaged", "player_healed",
         "game_ended")

_READ = frozenset((GameCreated, CardPoolDefined, DraftOffered, CardPicked, DeckChosen, DeckOrdered, CardDrawn,
                   TurnStarted, CreatureSummoned, ItemUsed, PlayerDamaged, PlayerHealed, GameEnded))
"""The event classes `project` reads (the tags of `TYPES`)."""

# The columns of a card row, in order (`CardFact` fields).
CARD_COLUMNS = ("player", "card", "won", "copies", "picked", "pick_sum", "pick_first", "opening", "drawn",
                "plays", "play_turn_sum", "first_play_turn", "held_sum", "fkey")


@dataclass(slots=True)
class CardFact:
    """One player-game and one card of its deck (or one it picked)."""

    player: int
    card: int
    won: int = 0
    copies: int = 0
    picked: int = 0
    pick_sum: int = 0
    pick_first: int | None = None
    opening: int = 0
    drawn: int = 0
    plays: int = 0
    play_turn_sum: int = 0
    first_play_turn: int | None = None
    held_sum: int = 0
    fkey: int = 0  # `feature_key` of the card: what reports group constructed cards by

    def row(self) -> tuple:
        return _row(self)


_row = attrgetter(*CARD_COLUMNS)


@dataclass
class GameFacts:
    """What one game gives: its card rows and the game-level facts (seat, length, damage, offers)."""

    ruleset: str = ""
    seed: int | None = None
    agents: tuple[str, str] = ("", "")
    winner: int = -1
    reason: str = ""
    turns: int = 0  # TurnStarted events, both players
    damage: Counter = field(default_factory=Counter)  # PlayerDamaged amount by source
    damage_taken: list[int] = field(default_factory=lambda: [0, 0])  # PlayerDamaged amount by player hurt
    drain: int = 0  # PlayerHealed by drain
    offered: Counter = field(default_factory=Counter)  # 1.2: base id -> draft rounds offered
    pool: Counter = field(default_factory=Counter)  # constructed: feature bucket -> cards of the pool
    cards: list[CardFact] = field(default_factory=list)
    # constructed: per player, feature bucket (an index of FEATURE_ORDER) -> its cards' counts for each metric,
    # packed (`unpack_counts`): what the bucket intervals cluster by player-game and game
    buckets: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))
    same_decks: bool = False  # both players' decks held the same cards (as many copies of each)
    last_turn: int = -1  # the last TurnStarted's turn (-1: none)
    defs: dict[int, Card] = field(default_factory=dict)  # the card pool: base id -> Card
    decks: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # each player's deck, base ids in deck order

    def plays(self, player: int) -> int:
        """The cards the player played (summoned, an Area copy not counted, or used)."""
        return sum(f.plays for f in self.cards if f.player == player)

    def held(self, player: int) -> list[int]:
        """The base ids of the cards of the player's deck it ever had in hand (opening hand or drawn)."""
        return [f.card for f in self.cards if f.player == player and f.opening + f.drawn > 0 and f.card != -1]


# The metric conditions of a card row, in `analysis.locm.cardmetrics.METRICS` order, as 8-bit fields of one integer
# (`bucket_counts`): deck, opening hand, drawn, in hand, not seen, played. A deck holds at most 120 distinct
# constructed cards, so a field never overflows.
_FIELD = 8
_MASK8 = (1 << _FIELD) - 1


def _indicators(f: CardFact) -> int:
    in_hand = f.opening + f.drawn > 0
    return ((f.copies > 0) | (f.opening > 0) << 8 | (f.drawn > 0) << 16 | in_hand << 24
            | (f.copies > 0 and not in_hand) << 32 | (f.plays > 0) << 40)


def unpack_counts(packed: int) -> tuple[int, int, int, int, int, int]:
    """The six counts of a packed bucket value (`GameFacts.buckets`), in metric order."""
    return (packed & _MASK8, packed >> 8 & _MASK8, packed >> 16 & _MASK8, packed >> 24 & _MASK8,
            packed >> 32 & _MASK8, packed >> 40 & _MASK8)


# --- card features (constructed) --------------------------------------------------------------------------

COST_TOP = 7  # costs of 7 and more share a bucket
FEATURE_FAMILIES = ("type", "cost", "keyword", "area", "draw", "health", "efficiency")
EFFICIENCY = ("", "free (cost 0)", "< 1.5 per mana", "1.5-2.5 per mana", "2.5-3.5 per mana", ">= 3.5 per mana")
HEALTH = ("heals you", "hurts you", "hurts opponent", "heals opponent")
FEATURE_ORDER = tuple(
    [f"type: {t}" for t in TYPE_NAMES] + [f"cost: {c}" for c in range(COST_TOP)] + [f"cost: {COST_TOP}+"]
    + [f"keyword: {k}" for k in KEYWORD_NAMES] + ["keyword: none"] + [f"area: {a}" for a in AREA_NAMES]
    + ["draw: 0", "draw: 1", "draw: 2+"] + [f"health: {h}" for h in HEALTH] + ["health: none"]
    + [f"efficiency: {e}" for e in EFFICIENCY[1:]] + ["area: other"])
"""Every feature bucket, in the order reports show them."""


def efficiency_bucket(card: Card) -> int:
    """Stat efficiency of a creature, (attack + defense) per mana, as an index of `EFFICIENCY` (0: an item).
    Integer comparisons, so that no rounding moves a card across a bucket edge."""
    if card.type != CREATURE:
        return 0
    if card.cost == 0:
        return 1
    twice = 2 * (card.attack + card.defense)
    c = card.cost
    return 2 if twice < 3 * c else 3 if twice < 5 * c else 4 if twice < 7 * c else 5


def feature_key(card: Card) -> int:
    """Everything `card_features` looks at, packed in one integer (kept in every card row as ``fkey``)."""
    my, opp, cost, t, area = card.my_health, card.opp_health, card.cost, card.type, card.area
    if t != CREATURE:
        eff = 0
    elif cost == 0:
        eff = 1
    else:  # efficiency_bucket, inlined: this runs for every card of every constructed pool
        twice = 2 * (card.attack + card.defense)
        eff = 2 if twice < 3 * cost else 3 if twice < 5 * cost else 4 if twice < 7 * cost else 5
    health = (my > 0) | (my < 0) << 1 | (opp < 0) << 2 | (opp > 0) << 3
    return (t | (cost if cost < COST_TOP else COST_TOP) << 2 | card.keywords << 5
            | (area if 0 <= area <= 2 else 3) << 11 | (card.draw if card.draw < 2 else 2) << 13 | health << 15
            | eff << 19)


def features_of_key(key: int) -> list[str]:
    """The feature buckets (``family: value``, one or more per family) of a `feature_key`."""
    t, cost, kw, area = key & 3, key >> 2 & 7, key >> 5 & 63, key >> 11 & 3
    draw, health, eff = key >> 13 & 3, key >> 15 & 15, key >> 19 & 7
    out = [f"type: {TYPE_NAMES[t]}", f"cost: {cost}" if cost < COST_TOP else f"cost: {COST_TOP}+"]
    out += [f"keyword: {name}" for bit, name in enumerate(KEYWORD_NAMES) if kw >> bit & 1] or ["keyword: none"]
    out.append(f"area: {AREA_NAMES[area]}" if area < len(AREA_NAMES) else "area: other")
    out.append("draw: 2+" if draw >= 2 else f"draw: {draw}")
    out += [f"health: {h}" for bit, h in enumerate(HEALTH) if health >> bit & 1] or ["health: none"]
    if eff:
        out.append(f"efficiency: {EFFICIENCY[eff]}")
    return out


_CODE = {f: i for i, f in enumerate(FEATURE_ORDER)}
_codes_cache: dict[int, tuple[int, ...]] = {}


def feature_codes(key: int) -> tuple[int, ...]:
    """`features_of_key` as indices of `FEATURE_ORDER`, remembered (a few hundred thousand keys at most)."""
    codes = _codes_cache.get(key)
    if codes is None:
        codes = _codes_cache[key] = tuple(_CODE[f] for f in features_of_key(key))
    return codes


_key_cached = lru_cache(maxsize=4096)(feature_key)  # 1.2 cards are the same 160 in every game


def card_features(card: Card) -> list[str]:
    """The feature buckets a card belongs to, as ``family: value`` (one or more per family)."""
    return features_of_key(feature_key(card))


# --- the projection ---------------------------------------------------------------------------------------


def decks_and_winner(events) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], int]:
    """`project`'s ``decks`` and ``winner`` of a game and nothing else (`locm cardvalue`'s re-runs read only
    those of a game under B): the same values, with one look at each event's type."""
    decks: list = [None, None]
    winner = -1
    for e in events:
        t = type(e)
        if t is DeckOrdered:
            decks[e.player] = tuple(e.base_ids)
        elif t is GameEnded:
            winner = e.winner
    return (decks[0] or (), decks[1] or ()), winner



def project(events) -> GameFacts:
    """One pass over one complete game's events (in seq order) -> its `GameFacts`."""
    g = GameFacts()
    defs: dict[int, Card] = {}
    facts: list[dict[int, CardFact]] = [{}, {}]
    instance: dict[int, int] = {}  # instance id -> base id
    offered, damage, taken = g.offered, g.damage, g.damage_taken
    entered: dict[int, int] = {}  # instance id -> own turn it entered the hand
    own_turn = [0, 0]
    started = False
    constructed = False
    decks: list = [None, None]

    def fact(player: int, card: int) -> CardFact:
        f = facts[player].get(card)
        if f is None:
            f = facts[player][card] = CardFact(player, card)
        return f

    read = _READ
    for e in events:
        t = type(e)
        if t not in read:  # most of a battle's events (attacks, damage to creatures, answers): one look-up
            continue
        if t is CardPicked:
            f = facts[e.player].get(e.base_id) or fact(e.player, e.base_id)
            n = e.round + 1
            f.picked += 1
            f.pick_sum += n
            if f.pick_first is None or n < f.pick_first:
                f.pick_first = n
        elif t is CardDrawn:
            p = e.player
            b = instance.get(e.id, -1)
            f = facts[p].get(b) or fact(p, b)
            if started:
                f.drawn += 1
            else:
                f.opening += 1
            entered[e.id] = own_turn[p] or 1
        elif t is DraftOffered:
            for b in set(e.base_ids):
                offered[b] += 1
        elif t is PlayerDamaged:
            damage[e.source] += e.amount
            taken[e.player] += e.amount
        elif t is TurnStarted:
            started = True
            own_turn[e.player] += 1
            g.turns += 1
            g.last_turn = e.turn
        elif t is CreatureSummoned or t is ItemUsed:
            if t is CreatureSummoned and e.copy_of > 0:
                continue
            p = e.player
            turn = own_turn[p] or 1
            f = fact(p, e.base_id)
            f.plays += 1
            f.play_turn_sum += turn
            if f.first_play_turn is None:
                f.first_play_turn = turn
            f.held_sum += turn - entered.get(e.id, turn)
        elif t is PlayerHealed:
            if e.source == "drain":
                g.drain += e.amount
        elif t is DeckChosen:
            constructed = True
            for i, b in enumerate(e.base_ids, 1):
                f = fact(e.player, b)
                f.picked += 1
                f.pick_sum += i
                if f.pick_first is None:
                    f.pick_first = i
        elif t is DeckOrdered:
            p = e.player
            for i, b in zip(e.ids, e.base_ids):
                instance[i] = b
                fact(p, b).copies += 1
            decks[p] = tuple(e.base_ids)
        elif t is CardPoolDefined:
            for c in e.cards:
                defs[c.base_id] = c
        elif t is GameCreated:
            g.ruleset, g.seed, g.agents = e.ruleset, e.seed, tuple(e.agents)
        elif t is GameEnded:
            g.winner, g.reason = e.winner, e.reason
    g.same_decks = decks[0] is not None and decks[1] is not None and sorted(decks[0]) == sorted(decks[1])
    g.decks = (decks[0] or (), decks[1] or ())
    g.defs = defs
    if constructed:
        fkeys = {b: feature_key(c) for b, c in defs.items()}
        codes = Counter(chain.from_iterable(map(feature_codes, fkeys.values())))  # each pool card in each bucket
        g.pool.update({FEATURE_ORDER[c]: n for c, n in codes.items()})
    else:
        fkeys = {b: _key_cached(defs[b]) for f in facts for b in f if b in defs}
    for p in (0, 1):
        won = int(g.winner == p)
        buckets = g.buckets[p]
        for f in facts[p].values():
            f.won = won
            f.fkey = fkeys.get(f.card, 0)
            g.cards.append(f)
            if constructed:
                ind = _indicators(f)
                for code in feature_codes(f.fkey):
                    buckets[code] = buckets.get(code, 0) + ind
    return g


__all__ = ["project", "decks_and_winner", "GameFacts", "CardFact", "card_features", "DEFINITIONS_VERSION", "TYPES", "CARD_COLUMNS",
           "FEATURE_FAMILIES", "feature_key", "features_of_key", "feature_codes", "FEATURE_ORDER", "unpack_counts"]
