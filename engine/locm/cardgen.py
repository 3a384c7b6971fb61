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

A ruleset variant may change the generated cards (`engine.locm.cardweights.CardChange`, the weights' locm-only
``cardChanges``): `_apply_changes` runs on the finished set, so the draws and every other card stay the same.

Speed (about 3,000 LCG steps per set; Python pays per object, so as few Python ints as possible are made):
- each sub-generator's calls are known in advance, so its states are computed all at once by jump-ahead on
  one packed integer (`engine.jrandom.packed_states`) and turned into bytes, and the draws are read from
  those bytes by C-level byte operations (slicing, `bytes.translate`, adding byte lanes as integers);
- a weighted choice needs no D: D's top byte is the top byte of the double's first state, and a 256-entry
  bucket table turns it into the pick (`_pick_indices`); only a draw in a bucket holding a threshold gets
  its exact D and a `bisect` on thresholds found once by bisecting on the referee's walk (`_thresholds`);
- the property order's shuffle comes as one byte per card (`_shuffle_draws`), looked up in a table of the
  120 orders (`_order_steps`), and each card walks only its properties whose row is not a no-op;
- only the bonuses need every D in full (`_doubles`).
The tests hold all of it against `JavaRandom` and the walk.

Why one module of about 600 lines: it is one generator, read against one Java package (the referee's
``cardgenerator``: ``CardGenerator`` and the eight generators it drives). The draws' order, the packed states and the tables that make it fast are shared by every
step, and a step moved elsewhere could no longer be checked against the referee's in one reading.
"""

from __future__ import annotations

import functools
import importlib.resources
import itertools
from bisect import bisect_left
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Iterable, Sequence, cast

import msgspec

from locm.engine.locm.cardweights import Choice as _Choice, Distribution as _Distribution, Option as _Option
from locm.engine.locm.cardweights import CardChange, Tables as _Tables, Weights as _Weights
from locm.engine.jrandom import JavaRandom, field_mask as _field_mask, packed_states as _packed_states
from locm.engine.jrandom import unpack as _unpack
from locm.events.locm.cards import (
    AREA_NAMES,
    BLUE,
    CREATURE,
    GREEN,
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
_DOUBLE_UNIT = 1.0 / (1 << 53)
_D_LIMIT = 1 << 53  # nextDouble() is D * 2**-53 with D in [0, _D_LIMIT)
_BRACKET = 64  # half-width of the first bracket of a threshold's bisection (`_thresholds`)
_BUCKET_SHIFT = 45  # D >> 45 is D's top byte: a draw's bucket (`_pick_indices`)
_FINE_SHIFT = 37  # D >> 37 is D's top two bytes: a draw's second-level bucket
_AMBIGUOUS = 255  # a bucket that holds a threshold
_MAX_OPTIONS = 255  # a pick's index is a byte, and 255 is `_AMBIGUOUS`

# The referee's initial property order; the list is reshuffled in place for every card.
_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH = range(5)

# Bounds by type (creature, green, red, blue): attack >= 0 (blue: 0), defense >= _MIN_DEFENSE; red and
# blue items then carry both values negated.
_MIN_DEFENSE = (1, 0, 0, 0)
_SIGN = (1, 1, -1, -1)

_weight_of = itemgetter(0)

# Byte tables of `_shuffle_draws`.
_MOD15 = bytes(b % 15 for b in range(256))
_MOD5_TIMES24 = bytes(b % 5 * 24 for b in range(256))  # the sums there are at most 4 * 14
_MOD3_TIMES2 = bytes(b % 3 * 2 for b in range(256))
_BITS29_30_TIMES6 = bytes((b >> 5) * 6 for b in range(256))
_BIT30 = bytes(b >> 6 for b in range(256))


def generate_cards(card_gen_seed: int, weights: str = "") -> tuple[Card, ...]:
    """The 120 cards of a 1.5 game with this cardGenSeed, sorted by cost, baseId 0..119 (R-CARDGEN).
    `weights`: the generator's weights as JSON in the format of `data/cardWeights-1.5.json` (a ruleset
    variant's `card_weights`); empty for the official file.

    Under the native core (`engine.corebuild.core`), the same cards from the C++ generator
    (`engine.locm.nativecards.generated_cards`, over these tables), where it makes them."""
    if _native_selected():
        from locm.engine.locm.nativecards import generated_cards

        made = generated_cards(card_gen_seed, weights, _load_tables)
        if made is not None:
            return made
    return python_generated_cards(card_gen_seed, weights)


def _native_selected() -> bool:
    from locm.engine.corebuild import core

    return core().kind == "native"


def python_generated_cards(card_gen_seed: int, weights: str = "") -> tuple[Card, ...]:
    """`generate_cards` by this module (the reference the native generator is tested against)."""
    t = _load_tables(weights)
    n = CARDS_PER_SET
    master = JavaRandom(card_gen_seed)
    s_type, s_mana, s_area, s_order, s_kwn, s_kw, s_draw, s_my, s_opp, s_att, s_def = (
        (master.next_int() ^ _MULT) & _MASK for _ in range(11)
    )
    types, costs = _picks(t.types, s_type, n), _picks(t.mana, s_mana, n)
    picks, actives = _budgeted_rows(t, s_area, s_draw, s_my, s_opp, n)
    kw_numbers = _picks(t.kw_count, s_kwn, n)  # one per non-blue card, in card order
    kw_counts = iter(kw_numbers)
    # Enough keyword draws for every count in full (a rejected keyword ends a card's draws early), rounded up
    # to a multiple of 32 so that few sizes of jump-ahead constants are ever built (engine.jrandom caches them per size).
    kw_raw = _first_states(s_kw, (sum(kw_numbers[:n - types.count(BLUE)]) // 32 + 1) * 32)[0]
    kw_tops = kw_raw[5::8]
    kw_choices = cast("tuple[_Choice, ...]", t.keywords)  # None only where no keyword is left to draw
    bonus_atts = _bonuses(t.attack, s_att, n)
    bonus_defs = _bonuses(t.defense, s_def, n)
    # The stable sort by cost is known before any card is built: a card's rank is the count of cheaper cards
    # plus that of the earlier cards of its cost (mana costs are 0..12, `check_weights`).
    next_rank = list(itertools.accumulate([costs.count(c) for c in range(12)], initial=0))
    cards: list[Card | None] = [None] * n
    steps, orders, plans = _order_steps()
    k = orders.index((_AREA, _KEYWORDS, _DRAW, _MY_HEALTH, _OPP_HEALTH))  # the referee's initial order
    kd = 0
    for ctype, cost, shuffle, active, pick, bonus_att, bonus_def in zip(
            types, costs, _shuffle_draws(s_order, n), actives, picks, bonus_atts, bonus_defs):
        k = steps[k][shuffle]  # Collections.shuffle of the one list, carried over from the last card
        if ctype != BLUE:  # blue items draw no keywords, not even a count
            kw_count = next(kw_counts)
            if kw_count:
                active |= 1 << _KEYWORDS
        budget = float(cost)
        got = [0, 0, 0, 0, 0]  # area, keyword mask, draw, myHealth, oppHealth
        for prop in plans[k][active]:  # the card's order, without the properties that change nothing
            if prop != _KEYWORDS:
                mult, add, value = pick[prop]
                spent = budget * mult - add
                if spent < 0:
                    budget = (spent + add) / mult
                else:
                    budget = spent
                    got[prop] = value
            else:
                mask = 0
                for _ in range(kw_count):
                    choice = kw_choices[mask]  # as `_pick_indices`, one draw at a time
                    i = choice.buckets[kw_tops[kd]]
                    if i == _AMBIGUOUS:
                        i = bisect_left(choice.thresholds, _exact_d(kw_raw, kd))
                    mult, add, bit = choice.values[i]
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
        rank = next_rank[cost]
        next_rank[cost] = rank + 1
        cards[rank] = Card(rank, ctype, cost, attack, defense, got[1], got[3], got[4], got[2], got[0])
    if t.changes:
        return _apply_changes(cast("list[Card]", cards), t.changes)
    return cast("tuple[Card, ...]", tuple(cards))  # every rank was filled


def matches(card: Card, change: CardChange) -> bool:
    """Whether a generated card is one that `change` changes (its ``when``)."""
    w = change.when
    if w.type is not None and TYPE_NAMES[card.type] != w.type:
        return False
    if w.cost is not None and card.cost != w.cost or w.min_cost is not None and card.cost < w.min_cost:
        return False
    if w.keyword is not None:
        if w.keyword == "none":
            if card.keywords:
                return False
        elif not card.keywords & 1 << KEYWORD_NAMES.index(w.keyword):
            return False
    if w.area is not None and AREA_NAMES[card.area] != w.area:
        return False
    return not (w.draw is not None and card.draw != w.draw or w.min_draw is not None and card.draw < w.min_draw)


def _apply_changes(cards: list[Card], changes: Sequence[CardChange]) -> tuple[Card, ...]:
    """Each change, in order, on every card it matches; then the generator's bounds by type again (attack
    >= 0, a creature's defense >= 1, red and blue items' values <= 0, blue attack 0), so that a changed card
    is one the rules can play."""
    out = []
    for card in cards:
        for change in changes:
            if matches(card, change):
                card = _changed(card, change)
        out.append(card)
    return tuple(out)


def _changed(card: Card, change: CardChange) -> Card:
    s, a = change.set_, change.add
    ctype = card.type if s.type is None else TYPE_NAMES.index(s.type)
    attack = (card.attack if s.attack is None else s.attack) + a.attack
    defense = (card.defense if s.defense is None else s.defense) + a.defense
    if ctype in (CREATURE, GREEN):
        attack = max(attack, 0)
        defense = max(defense, _MIN_DEFENSE[ctype])
    else:
        attack = 0 if ctype == BLUE else min(attack, 0)
        defense = min(defense, 0)
    return msgspec.structs.replace(
        card, type=ctype, attack=attack, defense=defense,
        keywords=card.keywords if s.keywords is None else _keyword_mask(s.keywords),
        my_health=(card.my_health if s.my_health is None else s.my_health) + a.my_health,
        opp_health=(card.opp_health if s.opp_health is None else s.opp_health) + a.opp_health,
        draw=max((card.draw if s.draw is None else s.draw) + a.draw, 0),
        area=card.area if s.area is None else AREA_NAMES.index(s.area),
        text=card.text if s.text is None else s.text)


def _keyword_mask(text: str) -> int:
    return sum(1 << i for i, ch in enumerate(text) if ch != "-")


def _budgeted_rows(t: _Tables, s_area: int, s_draw: int, s_my: int, s_opp: int, count: int
                   ) -> tuple[Iterable[tuple[Any, ...]], bytes]:
    """Per card its rows of the budgeted properties, indexed by property (area, None for the keywords, draw,
    myHealth, oppHealth), and the set of those whose row is not a no-op (`_is_no_op`) as a mask of 1 << prop.

    With the official weights (3 * 5 * 4 * 4 combinations) a card's four picks are one byte, its combination
    (the index bytes added as byte lanes, each times its place value), and one `itemgetter` gives every
    card's rows; else the rows are zipped per property."""
    picked = [_pick_indices(choice, state, count) for choice, state in (
        (t.area, s_area), (t.draw, s_draw), (t.my_health, s_my), (t.opp_health, s_opp))]
    if t.combos:
        place, combination = 1, 0
        for choice, indices in zip((t.area, t.draw, t.my_health, t.opp_health), picked):
            combination += int.from_bytes(indices, "little") * place
            place *= len(choice.values)
        combined = combination.to_bytes(count, "little")
        return itemgetter(*combined)(t.combos), combined.translate(t.combo_actives)
    rows = [itemgetter(*indices)(choice.values)
            for choice, indices in zip((t.area, t.draw, t.my_health, t.opp_health), picked)]
    # Byte lanes of 0 or 1 (`Choice.live`) times 1 << prop, added (nothing carries).
    actives = sum(int.from_bytes(indices.translate(choice.live), "little") << prop for prop, choice, indices in zip(
        (_AREA, _DRAW, _MY_HEALTH, _OPP_HEALTH), (t.area, t.draw, t.my_health, t.opp_health), picked))
    return zip(rows[0], repeat(None), rows[1], rows[2], rows[3]), actives.to_bytes(count, "little")


def _combinations(area: _Choice, draw: _Choice, my: _Choice, opp: _Choice) -> tuple[list[tuple[Any, ...]], bytes]:
    """The rows and active set (`_budgeted_rows`) of every combination of the four budgeted picks, the area's
    index varying fastest; none when there are more than 256 combinations."""
    if len(area.values) * len(draw.values) * len(my.values) * len(opp.values) > 256:
        return [], b""
    combos = [(a, None, d, m, o) for o in opp.values for m in my.values for d in draw.values for a in area.values]
    actives = [sum(0 if _is_no_op(row) else 1 << prop for prop, row in enumerate(rows) if row is not None)
               for rows in combos]
    return combos, bytes(actives + [0] * (256 - len(actives)))


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
    for name in ("keyword_number_probabilities", "area_probabilities", "keyword_probabilities",
                 "draw_probabilities", "my_health_probabilities", "opp_health_probabilities"):
        if len(getattr(w, name)) > _MAX_OPTIONS:
            raise msgspec.ValidationError(f"{name}: expected at most {_MAX_OPTIONS} options")
    if set(w.type_probabilities) - set(TYPE_NAMES):
        raise msgspec.ValidationError(f"typeProbabilities: expected keys among {', '.join(TYPE_NAMES)}")
    if any(not k.isdigit() or int(k) > 12 for k in w.mana_curve):
        raise msgspec.ValidationError("manaCurve: expected keys 0..12")
    for i, change in enumerate(w.card_changes):
        problem = change_problem(change)
        if problem:
            raise msgspec.ValidationError(f"cardChanges[{i}]: {problem}")


def change_problem(change: CardChange) -> str | None:
    """What is wrong with a change to generated cards (a name no card can have, a keyword text that is not
    six ``BCDGLW`` letters), or None."""
    w, s = change.when, change.set_
    for what, value, names in (("when.type", w.type, TYPE_NAMES), ("set.type", s.type, TYPE_NAMES),
                               ("when.area", w.area, AREA_NAMES), ("set.area", s.area, AREA_NAMES),
                               ("when.keyword", w.keyword, (*KEYWORD_NAMES, "none"))):
        if value is not None and value not in names:
            return f"{what}: expected one of {', '.join(names)}, got {value!r}"
    if s.keywords is not None and (len(s.keywords) != 6 or any(
            ch not in ("-", "BCDGLW"[i]) for i, ch in enumerate(s.keywords))):
        return f"set.keywords: expected six characters, each its letter of BCDGLW or '-', got {s.keywords!r}"
    for part, values in (("set", s), ("add", change.add)):
        for name in ("attack", "defense", "my_health", "opp_health", "draw"):
            v = getattr(values, name)
            lo, hi = (0, 10) if name == "draw" and part == "set" else (-10, 10) if name == "draw" else (-99, 99)
            if v is not None and not lo <= v <= hi:
                return f"{part}.{name}: expected an integer in {lo}..{hi}, got {v!r}"
    for name, v in (("when.cost", w.cost), ("when.min_cost", w.min_cost), ("when.draw", w.draw),
                    ("when.min_draw", w.min_draw)):
        if v is not None and not 0 <= v <= 99:
            return f"{name}: expected an integer in 0..99, got {v!r}"
    if s.text is not None and len(s.text) > 200:
        return f"set.text: expected at most 200 characters, got {len(s.text)}"
    return None


@functools.cache
def _load_tables(weights: str = "") -> _Tables:
    raw = weights.encode() if weights else official_weights()
    w = msgspec.json.decode(raw, type=_Weights)
    for i, change in enumerate(w.card_changes):  # a hostile log's rules must not reach an index() below
        problem = change_problem(change)
        if problem:
            raise msgspec.ValidationError(f"cardChanges[{i}]: {problem}")
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
    area, draw = _choice(rows(w.area_probabilities, area_index)), _choice(rows(w.draw_probabilities, int))
    my, opp = _choice(rows(w.my_health_probabilities, int)), _choice(rows(w.opp_health_probabilities, int))
    combos, combo_actives = _combinations(area, draw, my, opp)
    return _Tables(
        types=_choice([(wt, type_index(k)) for k, wt in w.type_probabilities.items()]),
        mana=_choice([(wt, int(k)) for k, wt in w.mana_curve.items()]),
        area=area,
        kw_count=_choice([(wt, int(k)) for k, wt in w.keyword_number_probabilities.items()]),
        keywords=tuple(_choice(free, fine=False) if free else None for free in kw_free),
        draw=draw,
        my_health=my,
        opp_health=opp,
        attack=w.bonus_attack_distribution,
        defense=w.bonus_defense_distribution,
        combos=combos,
        combo_actives=combo_actives,
        changes=tuple(w.card_changes),
    )


def _choice(pairs: Sequence[tuple[float, Any]], fine: bool = True) -> _Choice:
    """WeightedChoiceGenerator over (weight, value) pairs: summed in the given order, walked stably sorted.
    `fine`: with the second-level buckets (`Choice.fine`; not for the 63 keyword choices, drawn far less)."""
    total = _java_sum(wt for wt, _ in pairs)
    ranked = sorted(pairs, key=_weight_of)
    weights = [wt for wt, _ in ranked]
    values = [v for _, v in ranked]
    thresholds = _thresholds(weights, total)
    if len(values) > _MAX_OPTIONS:  # check_weights refuses such a file first
        raise ValueError(f"a weighted choice of {len(values)} options: at most {_MAX_OPTIONS} are supported")
    buckets = _buckets(thresholds, 0, _BUCKET_SHIFT)
    small = all(type(v) is int and 0 <= v <= 255 for v in values)
    pad = [0] * (256 - len(values))
    return _Choice(weights=weights, total=total, thresholds=thresholds, values=values, buckets=buckets,
                   codes=bytes(values + pad) if small else b"",
                   live=bytes([0 if _is_no_op(v) else 1 for v in values] + pad),
                   fine={b: _buckets(thresholds, b << _BUCKET_SHIFT, _FINE_SHIFT)
                         for b, index in enumerate(buckets) if index == _AMBIGUOUS} if fine else {})


def _buckets(thresholds: list[int], start: int, shift: int) -> bytes:
    """For each of 256 buckets of 2**shift D values from `start`: the index every D in it picks, or 255."""
    out = bytearray()
    for b in range(256):
        low = start + (b << shift)
        first, last = bisect_left(thresholds, low), bisect_left(thresholds, low + (1 << shift) - 1)
        out.append(first if first == last else _AMBIGUOUS)
    return bytes(out)


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
    picked = _pick_indices(choice, state, count)
    return picked.translate(choice.codes) if choice.codes else [*map(choice.values.__getitem__, picked)]


def _pick_indices(choice: _Choice, state: int, count: int) -> bytearray:
    """The indices of the next `count` picks of a weighted choice whose java.util.Random is in `state`.

    No D is made: the top byte of D is the top byte of the double's first state (bits 40..47), and that byte
    alone gives the pick through `choice.buckets`, for all `count` draws at once in C (`bytes.translate`).
    A draw in a bucket holding a threshold (a few in a hundred) looks D's next byte (state bits 32..39) up in
    that bucket's second-level table, and only one in a sub-bucket holding a threshold (about 1 in 20,000)
    gets its exact D and a bisection.
    """
    raw = _first_states(state, count)[0]
    picked = bytearray(raw[5::8].translate(choice.buckets))
    i = picked.find(_AMBIGUOUS)
    fine = choice.fine
    while i >= 0:
        top = raw[8 * i + 5]
        index = fine[top][raw[8 * i + 4]] if top in fine else _AMBIGUOUS  # D's next byte
        picked[i] = index if index != _AMBIGUOUS else bisect_left(choice.thresholds, _exact_d(raw, i))
        i = picked.find(_AMBIGUOUS, i + 1)
    return picked


def _first_states(state: int, count: int) -> tuple[bytes, int]:
    """The first state of each of the next `count` nextDouble() (48 bits in 8 little-endian bytes each), and
    the state after them."""
    packed = _packed_states(state, count, 2)
    last = packed >> (64 * (count - 1))
    return packed.to_bytes(8 * count, "little"), (last * _MULT + _ADD) & _MASK


def _exact_d(raw: bytes, i: int) -> int:
    """The D of draw `i` of `_first_states`: next(26) of its first state, next(27) of the one after."""
    first = int.from_bytes(raw[8 * i:8 * i + 6], "little")
    return ((first >> 22) << 27) + (((first * _MULT + _ADD) & _MASK) >> 21)


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


def _shuffle_draws(state: int, cards: int) -> bytes:
    """Per card the draws nextInt(5), nextInt(4), nextInt(3), nextInt(2) of the R-RNG shuffle of 5 properties,
    as one number j5*24 + j4*6 + j3*2 + j2 (0..119; see `_order_steps`).

    All in C on bytes, one byte per card: each draw's next(31) is the low four bytes of its state's field
    shifted right by 17. nextInt(4) and nextInt(2) are its top bits (of its top byte); nextInt(5) and
    nextInt(3) are its value mod 5 and mod 3, and since 256 = 1 (mod 15) that is the sum of its four bytes
    (each first reduced mod 15, so that the sum fits a byte) mod 5 or 3. The card's four bytes are added as
    the byte lanes of one integer (no lane reaches 256, so nothing carries).
    """
    raw = (_packed_states(state, 4 * cards) >> 17).to_bytes(32 * cards, "little")
    for first, reject in ((0, 2147483645), (16, 2147483646)):  # nextInt(5), nextInt(3): rejected next(31)
        top = raw[first + 3::32]
        c = top.find(127)
        while c >= 0:
            if int.from_bytes(raw[32 * c + first:32 * c + first + 4], "little") >= reject:
                rng = JavaRandom(state ^ _MULT)  # a rejection shifts the stream: replay it call by call
                return bytes(rng.next_int(5) * 24 + rng.next_int(4) * 6 + rng.next_int(3) * 2 + rng.next_int(2)
                             for _ in range(cards))
            c = top.find(127, c + 1)
    lanes = [int.from_bytes(raw[k::32].translate(_MOD15), "little") for k in (0, 1, 2, 3, 16, 17, 18, 19)]
    j5 = (lanes[0] + lanes[1] + lanes[2] + lanes[3]).to_bytes(cards, "little").translate(_MOD5_TIMES24)
    j3 = (lanes[4] + lanes[5] + lanes[6] + lanes[7]).to_bytes(cards, "little").translate(_MOD3_TIMES2)
    j4 = raw[11::32].translate(_BITS29_30_TIMES6)  # byte 3 of the second draw's next(31): its bits 24..30
    j2 = raw[27::32].translate(_BIT30)
    return sum(int.from_bytes(j, "little") for j in (j5, j4, j3, j2)).to_bytes(cards, "little")


@functools.cache
def _order_steps() -> tuple[list[list[int]], list[tuple[int, ...]], list[list[tuple[int, ...]]]]:
    """The property order's shuffle as a table: for each of the 120 orders of the five properties and each
    shuffle (a number of `_shuffle_draws`) the order it becomes; the orders; for each order and each set of
    properties (a mask of 1 << prop) that order's properties in the set. Looking the next order up is a third
    of the cost of the four swaps of Collections.shuffle, once per card."""
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
    plans = [[tuple(p for p in order if active >> p & 1) for active in range(32)] for order in orders]
    return steps, orders, plans


def _is_no_op(row: Any) -> bool:
    """A row that changes nothing, taken or not: value 0 at multCost 1, addCost 0. Taken, the budget stays
    `budget * 1.0 - 0.0` (itself, -0.0 included); rejected (only a negative budget), it is restored as
    `(budget + 0.0) / 1.0`, itself again; and the value is the card's default 0 either way."""
    return type(row) is tuple and row[0] == 1.0 and row[1] == 0.0 and row[2] == 0


__all__ = ["official_weights", "check_weights", "CARDS_PER_SET", "SUMMARY_PREFIX", "card_to_string",
           "format_generated_cards", "generate_cards"]
