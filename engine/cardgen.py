"""The LOCM 1.5 card generator, bit-exact with the COG 2022 referee (R-CARDGEN, R-RNG).

`generate_cards(card_gen_seed)` makes the 120 cards of a constructed game: a master `Random(cardGenSeed)`
seeds eleven sub-generators (type, mana, area, property order, keyword count, keyword, draw, myHealth,
oppHealth, bonus attack, bonus defense), each card is built from them, and the set is stable-sorted by cost
with baseId = position. `format_generated_cards` renders the referee's "Generated cards: ..." game summary.

Things the referee does that are easy to get wrong, all reproduced here:
- Options are stable-sorted by weight before the walk `c = nextDouble() * sum; c -= w until c <= 0`; the walk
  is done by repeated subtraction (not by comparing against cumulative sums), because the two round differently.
- A rejected option restores the budget as `(budget * mult - add + add) / mult`, which need not be the old value.
- The property order is one list shuffled in place once per card, so each card's order depends on the last.
- Blue items draw no keywords at all (no keyword-count draw either); every type draws an area.
- Weight sums use Java's compensated `DoubleStream.sum` (JDK <= 17 form, see `_java_sum`).

The sub-generators' java.util.Random states are kept as bare 48-bit ints and stepped inline (the same LCG as
`engine.jrandom.JavaRandom`, which the tests hold this against): one set costs about 3,000 LCG steps, and
method calls per step would dominate the run time.
"""

from __future__ import annotations

import importlib.resources
from typing import Optional

import msgspec

from engine.jrandom import JavaRandom
from events.cards import TYPE_NAMES, Card, keywords_to_str, AREA_NAMES, KEYWORD_NAMES, BLUE, RED, CREATURE

CARDS_PER_SET = 120
SUMMARY_PREFIX = "Generated cards: "
WEIGHTS_RESOURCE = "cardWeights-1.5.json"

# java.util.Random (R-RNG), as in engine.jrandom; inlined below for speed.
_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1
_DOUBLE_UNIT = 1.0 / (1 << 53)

# The referee's initial property order; the list is reshuffled in place for every card.
_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH = range(5)


class _Option(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: str
    weight: float
    mult_cost: float
    add_cost: float


class _Distribution(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    mean: float
    std: float


class _Weights(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    type_probabilities: dict[str, float]
    mana_curve: dict[str, float]
    area_probabilities: list[_Option]
    keyword_number_probabilities: dict[str, float]
    keyword_probabilities: list[_Option]
    draw_probabilities: list[_Option]
    my_health_probabilities: list[_Option]
    opp_health_probabilities: list[_Option]
    bonus_attack_distribution: _Distribution
    bonus_defense_distribution: _Distribution


class _Tables(msgspec.Struct, frozen=True):
    """Option lists sorted once by weight; items are (weight, value) or (weight, mult, add, value)."""

    types: tuple
    types_sum: float
    mana: tuple
    mana_sum: float
    area: tuple
    area_sum: float
    kw_count: tuple
    kw_count_sum: float
    keywords: tuple  # (weight, mult, add, bit)
    kw_sums: tuple  # whitelisted weight sum for every mask of keyword bits already taken
    draw: tuple
    draw_sum: float
    my_health: tuple
    my_health_sum: float
    opp_health: tuple
    opp_health_sum: float
    attack: _Distribution
    defense: _Distribution


_tables: Optional[_Tables] = None


def generate_cards(card_gen_seed: int) -> tuple[Card, ...]:
    """The 120 cards of a 1.5 game with this cardGenSeed, sorted by cost, baseId 0..119 (R-CARDGEN)."""
    t = _load_tables()
    master = JavaRandom(card_gen_seed)
    (s_type, s_mana, s_area, s_order, s_kwn, s_kw, s_draw, s_my, s_opp, s_att, s_def) = (
        (master.next_int() ^ _MULT) & _MASK for _ in range(11)
    )
    order = [_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH]
    kw_options, kw_sums = t.keywords, t.kw_sums
    att_mean, att_std = t.attack.mean, t.attack.std
    def_mean, def_std = t.defense.mean, t.defense.std
    rows = []
    for _ in range(CARDS_PER_SET):
        s_type, d = _next_double(s_type)
        ctype = _choose(t.types, t.types_sum, d)[1]
        s_mana, d = _next_double(s_mana)
        cost = _choose(t.mana, t.mana_sum, d)[1]
        budget = float(cost)
        for bound in (5, 4, 3, 2):  # Collections.shuffle of the 5-element order list
            s_order, j = _next_int(s_order, bound)
            order[bound - 1], order[j] = order[j], order[bound - 1]
        area = keywords = draw = my_health = opp_health = 0
        for prop in order:
            if prop == _KEYWORDS:
                if ctype == BLUE:
                    continue
                s_kwn, d = _next_double(s_kwn)
                for _ in range(_choose(t.kw_count, t.kw_count_sum, d)[1]):
                    s_kw, d = _next_double(s_kw)
                    weight, mult, add, bit = _choose_free(kw_options, kw_sums[keywords], keywords, d)
                    spent = budget * mult - add
                    if spent < 0:
                        budget = (spent + add) / mult
                        break
                    budget = spent
                    keywords |= bit
                continue
            if prop == _AREA:
                s_area, d = _next_double(s_area)
                weight, mult, add, value = _choose(t.area, t.area_sum, d)
            elif prop == _DRAW:
                s_draw, d = _next_double(s_draw)
                weight, mult, add, value = _choose(t.draw, t.draw_sum, d)
            elif prop == _MY_HEALTH:
                s_my, d = _next_double(s_my)
                weight, mult, add, value = _choose(t.my_health, t.my_health_sum, d)
            else:
                s_opp, d = _next_double(s_opp)
                weight, mult, add, value = _choose(t.opp_health, t.opp_health_sum, d)
            spent = budget * mult - add
            if spent < 0:
                budget = (spent + add) / mult
                continue
            budget = spent
            if prop == _AREA:
                area = value
            elif prop == _DRAW:
                draw = value
            elif prop == _MY_HEALTH:
                my_health = value
            else:
                opp_health = value
        s_att, d = _next_double(s_att)
        attack = int(budget + (d * att_std + att_mean))
        s_def, d = _next_double(s_def)
        defense = int(budget + (d * def_std + def_mean))
        attack, defense = _clamp(ctype, attack, defense)
        rows.append((cost, ctype, attack, defense, keywords, my_health, opp_health, draw, area))
    rows.sort(key=_cost_of)  # stable: equal costs keep generation order
    return tuple(
        Card(base_id=i, type=r[1], cost=r[0], attack=r[2], defense=r[3], keywords=r[4],
             my_health=r[5], opp_health=r[6], draw=r[7], area=r[8])
        for i, r in enumerate(rows)
    )


def card_to_string(card: Card) -> str:
    """The referee's `Card.toString` for a card without instance id, e.g. ``-1 7 0 1 1 2 ------ 1 -3 0 0 ``."""
    return (f"-1 {card.base_id} {card.type} {card.cost} {card.attack} {card.defense} "
            f"{keywords_to_str(card.keywords)} {card.my_health} {card.opp_health} {card.draw} {card.area} ")


def format_generated_cards(cards) -> str:
    """The "Generated cards: ..." game summary exactly as the official 1.5 logs store it.

    The referee joins `Card.toString` (which ends in a space) with ", "; the stored summary line, like every
    summary line in the logs, has no trailing space before its newline.
    """
    return (SUMMARY_PREFIX + ", ".join(map(card_to_string, cards))).rstrip(" ") + "\n"


def _load_tables() -> _Tables:
    global _tables
    if _tables is None:
        raw = (importlib.resources.files("data") / WEIGHTS_RESOURCE).read_bytes()
        _tables = _build_tables(msgspec.json.decode(raw, type=_Weights))
    return _tables


def _build_tables(w: _Weights) -> _Tables:
    type_index = {name: i for i, name in enumerate(TYPE_NAMES)}
    area_index = {name: i for i, name in enumerate(AREA_NAMES)}
    kw_bit = {name: 1 << i for i, name in enumerate(KEYWORD_NAMES)}
    types = _sorted_map(w.type_probabilities, type_index.__getitem__)
    mana = _sorted_map(w.mana_curve, int)
    kw_count = _sorted_map(w.keyword_number_probabilities, int)
    area = _sorted_options(w.area_probabilities, area_index.__getitem__)
    keywords = _sorted_options(w.keyword_probabilities, kw_bit.__getitem__)
    draw = _sorted_options(w.draw_probabilities, int)
    my_health = _sorted_options(w.my_health_probabilities, int)
    opp_health = _sorted_options(w.opp_health_probabilities, int)
    kw_sums = tuple(_java_sum(o[0] for o in keywords if not o[3] & mask) for mask in range(64))
    return _Tables(
        types=types, types_sum=_java_sum(w.type_probabilities.values()),
        mana=mana, mana_sum=_java_sum(w.mana_curve.values()),
        area=area, area_sum=_java_sum(o.weight for o in w.area_probabilities),
        kw_count=kw_count, kw_count_sum=_java_sum(w.keyword_number_probabilities.values()),
        keywords=keywords, kw_sums=kw_sums,
        draw=draw, draw_sum=_java_sum(o.weight for o in w.draw_probabilities),
        my_health=my_health, my_health_sum=_java_sum(o.weight for o in w.my_health_probabilities),
        opp_health=opp_health, opp_health_sum=_java_sum(o.weight for o in w.opp_health_probabilities),
        attack=w.bonus_attack_distribution, defense=w.bonus_defense_distribution,
    )


def _sorted_map(weights: dict[str, float], convert) -> tuple:
    """(weight, value) pairs stable-sorted by weight, from a JSON object in file order."""
    return tuple(sorted(((wt, convert(k)) for k, wt in weights.items()), key=_weight_of))


def _sorted_options(options: list[_Option], convert) -> tuple:
    """(weight, mult, add, value) stable-sorted by weight."""
    rows = ((o.weight, o.mult_cost, o.add_cost, convert(o.name)) for o in options)
    return tuple(sorted(rows, key=_weight_of))


def _java_sum(values) -> float:
    """Java's `DoubleStream.sum()`: Kahan summation, final `sum + compensation` as in JDK 8..17."""
    total = comp = 0.0
    for v in values:
        y = v - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total + comp


def _weight_of(row: tuple) -> float:
    return row[0]


def _cost_of(row: tuple) -> int:
    return row[0]


def _next_double(s: int) -> tuple[int, float]:
    """Random.nextDouble() on a bare state: ((next(26) << 27) + next(27)) * 2^-53."""
    s1 = (s * _MULT + _ADD) & _MASK
    s2 = (s1 * _MULT + _ADD) & _MASK
    return s2, ((s1 >> 22 << 27) + (s2 >> 21)) * _DOUBLE_UNIT


def _next_int(s: int, bound: int) -> tuple[int, int]:
    """Random.nextInt(bound) on a bare state (R-RNG), rejection loop included."""
    while True:
        s = (s * _MULT + _ADD) & _MASK
        bits = s >> 17
        if bound & -bound == bound:
            return s, (bound * bits) >> 31
        val = bits % bound
        if bits - val + (bound - 1) < 0x80000000:
            return s, val


def _choose(options: tuple, total: float, d: float) -> tuple:
    """WeightedChoiceGenerator.randomChoice: the option row where the walk stops (else the last)."""
    c = d * total
    for row in options:
        c -= row[0]
        if c <= 0:
            return row
    return options[-1]


def _choose_free(options: tuple, total: float, taken: int, d: float) -> tuple:
    """randomChoiceWithBlacklist over keyword rows whose bit is not in `taken`."""
    c = d * total
    last = None
    for row in options:
        if row[3] & taken:
            continue
        c -= row[0]
        if c <= 0:
            return row
        last = row
    return last


def _clamp(ctype: int, attack: int, defense: int) -> tuple[int, int]:
    """Referee bounds per type; red and blue items carry negated values (R-CARDGEN)."""
    if ctype == CREATURE:
        return max(attack, 0), max(defense, 1)
    if ctype == BLUE:
        return 0, -max(defense, 0)
    if ctype == RED:
        return -max(attack, 0), -max(defense, 0)
    return max(attack, 0), max(defense, 0)


__all__ = ["CARDS_PER_SET", "SUMMARY_PREFIX", "card_to_string", "format_generated_cards", "generate_cards"]
