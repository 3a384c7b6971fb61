"""The LOCM 1.5 card generator, bit-exact with the COG 2022 referee (R-CARDGEN, R-RNG).

`generate_cards(card_gen_seed)` makes the 120 cards of a constructed game: a master `Random(cardGenSeed)`
seeds eleven sub-generators (type, mana, area, property order, keyword count, keyword, draw, myHealth,
oppHealth, bonus attack, bonus defense), each card is built from them, and the set is stable-sorted by cost
with baseId = position. `format_generated_cards` renders the referee's "Generated cards: ..." game summary.

Referee details reproduced here:
- Options are stable-sorted by weight; `c = nextDouble() * sum`, then `c -= w` until `c <= 0`. The sum is
  Java's compensated `DoubleStream.sum`, in file order (keywords: sorted order, over those not yet taken).
- A rejected option restores the budget as `(budget * mult - add + add) / mult`.
- The property order is one list, shuffled in place once per card, so each card's order depends on the last.
- Blue items draw no keywords (not even a keyword count); every type draws an area.

Speed (about 3,000 LCG steps per set): each sub-generator's calls are known in advance, so its states are
computed all at once by jump-ahead on one packed integer (`_packed_states`), and every weighted choice is a
`bisect` on thresholds found once by bisecting on the referee's walk itself (`_thresholds`). The tests hold
both against `JavaRandom` and the walk.
"""

from __future__ import annotations

import functools
import importlib.resources
import itertools
import sys
from array import array
from bisect import bisect_left
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Iterable, Sequence, cast

import msgspec

from locm.engine.cardweights import Choice as _Choice, Distribution as _Distribution, Option as _Option
from locm.engine.cardweights import Tables as _Tables, Weights as _Weights
from locm.engine.jrandom import JavaRandom
from locm.events.cards import (
    AREA_NAMES,
    BLUE,
    KEYWORD_NAMES,
    TYPE_NAMES,
    Card,
    keywords_to_str,
)

CARDS_PER_SET = 120
SUMMARY_PREFIX = "Generated cards: "
WEIGHTS_RESOURCE = "cardWeights-1.5.json"

# java.util.Random (R-RNG), as in engine.jrandom.
_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1
_LOW24 = (1 << 24) - 1
_DOUBLE_UNIT = 1.0 / (1 << 53)
_D_LIMIT = 1 << 53  # nextDouble() is D * 2**-53 with D in [0, _D_LIMIT)
_BRACKET = 64  # half-width of the first bracket of a threshold's bisection (`_thresholds`)
_BUCKET_SHIFT = 45  # D >> 45 is D's top byte: a draw's bucket (`_pick_indices`)
_AMBIGUOUS = 255  # a bucket that holds a threshold
_KW_CHUNK = 160  # keyword draws computed at a time (a set needs about 135)

# The referee's initial property order; the list is reshuffled in place for every card.
_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH = range(5)

# Bounds by type (creature, green, red, blue): attack >= 0 (blue: 0), defense >= _MIN_DEFENSE; red and
# blue items then carry both values negated.
_MIN_DEFENSE = (1, 0, 0, 0)
_SIGN = (1, 1, -1, -1)

_weight_of = itemgetter(0)


def generate_cards(card_gen_seed: int, weights: str = "") -> tuple[Card, ...]:
    """The 120 cards of a 1.5 game with this cardGenSeed, sorted by cost, baseId 0..119 (R-CARDGEN).
    `weights`: the generator's weights as JSON in the format of `data/cardWeights-1.5.json` (a ruleset
    variant's `card_weights`); empty for the official file."""
    t = _load_tables(weights)
    n = CARDS_PER_SET
    master = JavaRandom(card_gen_seed)
    s_type, s_mana, s_area, s_order, s_kwn, s_kw, s_draw, s_my, s_opp, s_att, s_def = (
        (master.next_int() ^ _MULT) & _MASK for _ in range(11)
    )
    types, costs = _picks(t.types, s_type, n), _picks(t.mana, s_mana, n)
    picks = zip(_picks(t.area, s_area, n), repeat(None), _picks(t.draw, s_draw, n),
                _picks(t.my_health, s_my, n), _picks(t.opp_health, s_opp, n))
    kw_counts = iter(_picks(t.kw_count, s_kwn, n))  # one per non-blue card, in card order
    kw_draws, s_kw = _doubles(s_kw, _KW_CHUNK)
    kw_choices = cast("tuple[_Choice, ...]", t.keywords)  # None only where no keyword is left to draw
    bonus_atts = _bonuses(t.attack, s_att, n)
    bonus_defs = _bonuses(t.defense, s_def, n)
    ranks = [0] * n  # the stable sort by cost is known before any card is built
    for rank, i in enumerate(sorted(range(n), key=costs.__getitem__)):
        ranks[i] = rank
    cards: list[Card | None] = [None] * n
    steps, orders = _order_steps()
    k = orders.index((_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH))  # the referee's initial order
    kd = 0
    for ctype, cost, shuffle, pick, bonus_att, bonus_def, rank in zip(
            types, costs, _shuffle_draws(s_order, n), picks, bonus_atts, bonus_defs, ranks):
        k = steps[k][shuffle]  # Collections.shuffle of the one list, carried over from the last card
        order = orders[k]
        budget = float(cost)
        got = [0, 0, 0, 0, 0]  # area, keyword mask, draw, myHealth, oppHealth
        for prop in order:
            if prop != _KEYWORDS:
                mult, add, value = pick[prop]
                spent = budget * mult - add
                if spent < 0:
                    budget = (spent + add) / mult
                else:
                    budget = spent
                    got[prop] = value
            elif ctype != BLUE:
                mask = 0
                for _ in range(next(kw_counts)):
                    if kd == len(kw_draws):
                        more, s_kw = _doubles(s_kw, _KW_CHUNK)
                        kw_draws += more
                    choice = kw_choices[mask]
                    mult, add, bit = choice.values[bisect_left(choice.thresholds, kw_draws[kd])]
                    kd += 1
                    spent = budget * mult - add
                    if spent < 0:
                        budget = (spent + add) / mult
                        break
                    budget = spent
                    mask |= bit
                got[_KEYWORDS] = mask
        attack, defense, low = int(budget + bonus_att), int(budget + bonus_def), _MIN_DEFENSE[ctype]
        attack = 0 if attack < 0 or ctype == BLUE else attack * _SIGN[ctype]
        defense = (low if defense < low else defense) * _SIGN[ctype]  # noqa: FURB136 (max() is slower)
        cards[rank] = Card(base_id=rank, type=ctype, cost=cost, attack=attack, defense=defense, keywords=got[1],
                           my_health=got[3], opp_health=got[4], draw=got[2], area=got[0])
    return cast("tuple[Card, ...]", tuple(cards))  # every rank was filled


def card_to_string(card: Card) -> str:
    """The referee's `Card.toString` for a card without instance id, e.g. ``-1 7 0 1 1 2 ------ 1 -3 0 0 ``."""
    return (f"-1 {card.base_id} {card.type} {card.cost} {card.attack} {card.defense} "
            f"{keywords_to_str(card.keywords)} {card.my_health} {card.opp_health} {card.draw} {card.area} ")


def format_generated_cards(cards: Iterable[Card]) -> str:
    """The "Generated cards: ..." game summary exactly as the official 1.5 logs store it.

    The referee joins `Card.toString` (which ends in a space) with ", "; the stored summary, like every
    summary line in the logs, has no space before its closing newline.
    """
    return (SUMMARY_PREFIX + ", ".join(map(card_to_string, cards))).rstrip(" ") + "\n"


def official_weights() -> bytes:
    """The official generator weights (the JSON file the referee ships)."""
    return (importlib.resources.files("locm.data") / WEIGHTS_RESOURCE).read_bytes()


def check_weights(raw: str | bytes) -> None:
    """Raise `msgspec.ValidationError` (or `DecodeError`) unless `raw` is a complete weights document."""
    w = msgspec.json.decode(raw, type=_Weights)
    for name in ("type_probabilities", "mana_curve", "keyword_number_probabilities"):
        if not any(v > 0 for v in getattr(w, name).values()):
            raise msgspec.ValidationError(f"{name}: expected at least one positive weight")
    for name in ("area_probabilities", "keyword_probabilities", "draw_probabilities",
                 "my_health_probabilities", "opp_health_probabilities"):
        options = getattr(w, name)
        if not options or not any(o.weight > 0 for o in options) or any(o.mult_cost <= 0 for o in options):
            raise msgspec.ValidationError(f"{name}: expected options with a positive weight and multCost > 0")
    if set(w.type_probabilities) - set(TYPE_NAMES):
        raise msgspec.ValidationError(f"typeProbabilities: expected keys among {', '.join(TYPE_NAMES)}")
    if any(not k.isdigit() or int(k) > 12 for k in w.mana_curve):
        raise msgspec.ValidationError("manaCurve: expected keys 0..12")


@functools.cache
def _load_tables(weights: str = "") -> _Tables:
    raw = weights.encode() if weights else official_weights()
    w = msgspec.json.decode(raw, type=_Weights)
    type_index = {name: i for i, name in enumerate(TYPE_NAMES)}.__getitem__
    area_index = {name: i for i, name in enumerate(AREA_NAMES)}.__getitem__
    kw_bit = {name: 1 << i for i, name in enumerate(KEYWORD_NAMES)}.__getitem__

    def rows(
        options: list[_Option], convert: Callable[[str], int]
    ) -> list[tuple[float, tuple[float, float, int]]]:
        return [(o.weight, (o.mult_cost, o.add_cost, convert(o.name))) for o in options]

    # Keywords are always drawn "with blacklist": over the sorted rows not yet taken, summed in that order.
    kw_sorted = sorted(rows(w.keyword_probabilities, kw_bit), key=_weight_of)
    kw_free = ([p for p in kw_sorted if not p[1][2] & mask] for mask in range(1 << len(KEYWORD_NAMES)))
    return _Tables(
        types=_choice([(wt, type_index(k)) for k, wt in w.type_probabilities.items()]),
        mana=_choice([(wt, int(k)) for k, wt in w.mana_curve.items()]),
        area=_choice(rows(w.area_probabilities, area_index)),
        kw_count=_choice([(wt, int(k)) for k, wt in w.keyword_number_probabilities.items()]),
        keywords=tuple(_choice(free) if free else None for free in kw_free),
        draw=_choice(rows(w.draw_probabilities, int)),
        my_health=_choice(rows(w.my_health_probabilities, int)),
        opp_health=_choice(rows(w.opp_health_probabilities, int)),
        attack=w.bonus_attack_distribution,
        defense=w.bonus_defense_distribution,
    )


def _choice(pairs: Sequence[tuple[float, Any]]) -> _Choice:
    """WeightedChoiceGenerator over (weight, value) pairs: summed in the given order, walked stably sorted."""
    total = _java_sum(wt for wt, _ in pairs)
    ranked = sorted(pairs, key=_weight_of)
    weights = [wt for wt, _ in ranked]
    values = [v for _, v in ranked]
    thresholds = _thresholds(weights, total)
    if len(values) > _AMBIGUOUS:
        return _Choice(weights=weights, total=total, thresholds=thresholds, values=values)
    buckets = bytearray()
    for b in range(256):  # D in [b << 45, (b + 1) << 45): one index unless a threshold lies inside
        first, last = bisect_left(thresholds, b << _BUCKET_SHIFT), bisect_left(thresholds, ((b + 1) << _BUCKET_SHIFT) - 1)
        buckets.append(first if first == last else _AMBIGUOUS)
    small = all(type(v) is int and 0 <= v <= 255 for v in values)
    return _Choice(weights=weights, total=total, thresholds=thresholds, values=values, buckets=bytes(buckets),
                   codes=bytes(values + [0] * (256 - len(values))) if small else b"")


def _walk(weights: list[float], total: float, d53: int) -> int:
    """The referee's randomChoice walk: the index picked when nextDouble() = d53 * 2**-53."""
    c = d53 * _DOUBLE_UNIT * total
    for i, wt in enumerate(weights):
        c -= wt
        if c <= 0:
            return i
    return len(weights) - 1


def _thresholds(weights: list[float], total: float) -> list[int]:
    """For each index i but the last, the largest D whose walk picks an index <= i (-1 if none).

    Rounding is monotone, so the walk's pick never decreases as D grows: `bisect_left(thresholds, D)` is
    exactly `_walk(weights, total, D)`. Each boundary is bisected on the walk itself, first within a few units
    of where exact arithmetic puts it (the running sum over the total, times 2**53: the walk's rounding moves
    it by a few units at most), over the whole range only if the walk does not confirm that bracket. The
    tables are built once per process, inside the first constructed game, so the bracket matters: 8 walks a
    boundary instead of 54.
    """
    out: list[int] = []
    running = 0.0
    for i in range(len(weights) - 1):
        running += weights[i]
        guess = int(running / total * _D_LIMIT) if total > 0 else 0
        lo, hi = max(-1, guess - _BRACKET), min(_D_LIMIT, guess + _BRACKET)
        if not ((lo == -1 or _walk(weights, total, lo) <= i) and (hi == _D_LIMIT or _walk(weights, total, hi) > i)):
            lo, hi = -1, _D_LIMIT
        while hi - lo > 1:  # the walk picks <= i at lo (or lo is -1), > i at hi (or hi is out of range)
            mid = (lo + hi) // 2
            if _walk(weights, total, mid) <= i:
                lo = mid
            else:
                hi = mid
        out.append(lo)
    return out


def _java_sum(values: Iterable[float]) -> float:
    """Java's `DoubleStream.sum()`: Kahan summation. (Before JDK-8214761, fixed in JDK 18 and backported to
    17u and 11u, the compensation was added instead of subtracted at the end; the shipped weights sum the
    same either way, which the tests check.)"""
    total = comp = 0.0
    for v in values:
        y = v - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total - comp


def _picks(choice: _Choice, state: int, count: int) -> Sequence[Any]:
    """The next `count` picks of a weighted choice whose java.util.Random is in `state` (bytes when the values
    are small ints)."""
    if not choice.buckets:  # more than 255 options
        thresholds, values = choice.thresholds, choice.values
        return [values[bisect_left(thresholds, d)] for d in _doubles(state, count)[0]]
    picked = _pick_indices(choice, state, count)
    return picked.translate(choice.codes) if choice.codes else [*map(choice.values.__getitem__, picked)]


def _pick_indices(choice: _Choice, state: int, count: int) -> bytearray:
    """The indices of the next `count` picks of a weighted choice whose java.util.Random is in `state`.

    No D is made: the top byte of D is the top byte of the double's first state (bits 40..47), and that byte
    alone gives the pick through `choice.buckets`, for all `count` draws at once in C (`bytes.translate`).
    Only a draw in a bucket holding a threshold (a few in a hundred) gets its exact D and a bisection.
    """
    raw = _packed_states(state, count, 2).to_bytes(8 * count, "little")  # the first state of each double
    picked = bytearray(raw[5::8].translate(choice.buckets))
    i = picked.find(_AMBIGUOUS)
    while i >= 0:
        first = int.from_bytes(raw[8 * i:8 * i + 6], "little")
        second = (first * _MULT + _ADD) & _MASK
        picked[i] = bisect_left(choice.thresholds, ((first >> 22) << 27) + (second >> 21))
        i = picked.find(_AMBIGUOUS, i + 1)
    return picked


def _bonuses(dist: _Distribution, state: int, count: int) -> list[float]:
    """The next `count` bonus values `nextDouble() * std + mean` (uniform in [mean, mean + std))."""
    # D * 2**-53 is exact, and so is 2**-53 * std (a power of two times std): D * scale rounds once, exactly
    # as the referee's (D * 2**-53) * std does.
    scale, mean = _DOUBLE_UNIT * dist.std, dist.mean
    return [d * scale + mean for d in _doubles(state, count)[0]]


def _doubles(state: int, count: int) -> tuple[list[int], int]:
    """The next `count` nextDouble() as D = (next(26) << 27) + next(27) (the double is D * 2**-53), and the
    state after them."""
    p = _packed_states(state, 2 * count)
    high = (p >> 22) & _field_mask(26, 2, count)  # next(26) of each even state, in place
    low = (p >> (64 + 21)) & _field_mask(27, 2, count)  # next(27) of each odd state, moved down a field
    return _unpack((high << 27) | low, 2 * count, 2), p >> (64 * (2 * count - 1))


def _shuffle_draws(state: int, cards: int) -> list[int]:
    """Per card the draws nextInt(5), nextInt(4), nextInt(3), nextInt(2) of the R-RNG shuffle of 5 properties,
    as one number j5*24 + j4*6 + j3*2 + j2 (0..119; see `_order_steps`)."""
    bits = _unpack((_packed_states(state, 4 * cards) >> 17) & _field_mask(31, 1, 4 * cards), 4 * cards, 1)
    b5, b4, b3, b2 = bits[0::4], bits[1::4], bits[2::4], bits[3::4]
    if max(b5) < 2147483645 and max(b3) < 2147483646:  # no rejected draw: one step per nextInt
        return [(j5 % 5) * 24 + (j4 >> 29) * 6 + (j3 % 3) * 2 + (j2 >> 30) for j5, j4, j3, j2 in zip(b5, b4, b3, b2)]
    rng = JavaRandom(state ^ _MULT)  # a rejection shifts the stream: replay it call by call
    return [rng.next_int(5) * 24 + rng.next_int(4) * 6 + rng.next_int(3) * 2 + rng.next_int(2) for _ in range(cards)]


@functools.cache
def _order_steps() -> tuple[list[list[int]], list[tuple[int, ...]]]:
    """The property order's shuffle as a table: the 120 orders of the five properties, and for each order and
    each shuffle (a number of `_shuffle_draws`) the order it becomes. Looking the next order up is a third of
    the cost of the four swaps of Collections.shuffle, once per card."""
    orders = list(itertools.permutations(range(5)))
    index = {order: k for k, order in enumerate(orders)}
    steps = []
    for order in orders:
        row = []
        for shuffle in range(120):
            o = list(order)
            for i, j in ((4, shuffle // 24), (3, shuffle // 6 % 4), (2, shuffle // 2 % 3), (1, shuffle % 2)):
                o[i], o[j] = o[j], o[i]  # Collections.shuffle: swap i with a draw in 0..i, from the end
            row.append(index[tuple(o)])
        steps.append(row)
    return steps, orders


def _packed_states(state: int, fields: int, stride: int = 1) -> int:
    """Raw 48-bit states of a java.util.Random in `state`, one per 64-bit field: field k holds the state after
    `stride * k + 1` steps (every state for stride 1; the first of each nextDouble's two for stride 2).

    `state * a mod 2**48` is taken as `lo*a_lo + ((lo*a_hi + hi*a_lo) mod 2**24 << 24)` over 24-bit halves,
    so that no field ever holds more than 50 bits and nothing carries into the next field.
    """
    mults_lo, mults_hi, adds, low24, low48 = _jump(fields, stride)
    lo, hi = state & _LOW24, state >> 24
    cross = (lo * mults_hi + hi * mults_lo) & low24
    return (lo * mults_lo + (cross << 24) + adds) & low48


@functools.cache
def _jump(fields: int, stride: int = 1) -> tuple[int, int, int, int, int]:
    """Packed jump-ahead: field k holds the affine map of `stride * k + 1` LCG steps (multiplier in 24-bit
    halves), then the 24- and 48-bit field masks."""
    mults, adds = [], []
    a, c = 1, 0
    for step in range(stride * (fields - 1) + 1):
        a, c = (a * _MULT) & _MASK, (c * _MULT + _ADD) & _MASK
        if step % stride == 0:
            mults.append(a)
            adds.append(c)
    return (_pack([m & _LOW24 for m in mults]), _pack([m >> 24 for m in mults]), _pack(adds),
            _pack([_LOW24] * fields), _pack([_MASK] * fields))


@functools.cache
def _field_mask(bits: int, stride: int, count: int) -> int:
    """`bits` low ones in every `stride`-th 64-bit field, `count` times."""
    return _pack([(1 << bits) - 1 if k % stride == 0 else 0 for k in range(stride * count)])


def _pack(values: list[int]) -> int:
    return int.from_bytes(b"".join(v.to_bytes(8, "little") for v in values), "little")


def _unpack(packed: int, fields: int, stride: int) -> list[int]:
    """Every `stride`-th 64-bit field, from the first."""
    return array("Q", packed.to_bytes(fields * 8, sys.byteorder))[::stride].tolist()


__all__ = ["official_weights", "check_weights", "CARDS_PER_SET", "SUMMARY_PREFIX", "card_to_string",
           "format_generated_cards", "generate_cards"]
