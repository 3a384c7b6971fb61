"""Hypothesis strategies for ruleset variants: every field drawn from the range the validator accepts.

The ranges are read from the validator itself (`engine.locm.variants.OVERRIDABLE` and its `domain`s,
`WEIGHT_BOUNDS`, the card checks), so a range widened there is explored here the next run. Values that
depend on each other are drawn together, as the validator requires them: runes below the start health, the
turn-limit penalty equal to the empty-deck policy, no penalty damage under the rune policy, runes only and
damage draws never under the rune rule, a constructed deck no larger than 120 cards times the copies
allowed. Every drawn file must therefore be accepted; `variants()` turns it into `Rules`.
"""

from __future__ import annotations

from hypothesis import strategies as st

from locm.engine.locm.rulesets import DRAFT, LOSE_RUNE, RULESETS, RUNES
from locm.engine.locm.variants import _CARD_CHECKS, OVERRIDABLE, WEIGHT_BOUNDS, variant_from_dict

CONSTRUCTED_POOL = 120


def _int(field: str, checks=OVERRIDABLE) -> st.SearchStrategy[int]:
    lo, hi = checks[field].domain
    return st.integers(lo, hi)


@st.composite
def variant_docs(draw, base: str | None = None) -> dict:
    """The decoded TOML of a variant file that the validator accepts."""
    base = base or draw(st.sampled_from(sorted(RULESETS)))
    rules = RULESETS[base]
    draft = rules.deck_building == DRAFT
    doc: dict = {"base": base, "name": "v"}
    changed = draw(st.sets(st.sampled_from(sorted(OVERRIDABLE)), min_size=1), label="fields")  # a variant: one at least
    changed -= {"deck_size", "max_copies"} if draft else {"draft_rounds"}
    for field in sorted(changed - {"runes", "turn_limit_penalty", "empty_deck", "deck_size"}):
        check = OVERRIDABLE[field]
        if type(check.domain[0]) is int and type(check.domain[-1]) is int and len(check.domain) == 2:
            doc[field] = draw(_int(field), label=field)
        else:
            doc[field] = draw(st.sampled_from(check.domain), label=field)
    if changed & {"turn_limit_penalty", "empty_deck"}:
        doc["empty_deck"] = doc["turn_limit_penalty"] = draw(st.sampled_from(OVERRIDABLE["empty_deck"].domain),
                                                            label="empty_deck")
    policy, draw_rule = doc.get("empty_deck", rules.empty_deck), doc.get("draw_rule", rules.draw_rule)
    if policy == LOSE_RUNE and doc.get("penalty_damage", rules.penalty_damage):
        doc["penalty_damage"] = 0  # a rune is that penalty
    if draw_rule == RUNES and doc.get("damage_draw_step", rules.damage_draw_step):
        doc["damage_draw_step"] = 0  # no damage draws under the rune rule
    health = doc.get("start_health", rules.start_health)
    if draw_rule != RUNES:
        if rules.runes or "runes" in changed:
            doc["runes"] = []  # runes break only under the rune rule
    elif "runes" in changed or (rules.runes and rules.runes[0] >= health):
        top = min(health - 1, OVERRIDABLE["runes"].domain[1])
        runes = draw(st.lists(st.integers(1, top), unique=True, max_size=6), label="runes") if top >= 1 else []
        doc["runes"] = sorted(runes, reverse=True)
    if "deck_size" in changed:
        lo, hi = OVERRIDABLE["deck_size"].domain
        doc["deck_size"] = draw(st.integers(lo, min(hi, CONSTRUCTED_POOL * doc.get("max_copies", rules.max_copies))),
                                label="deck_size")
    if draft and draw(st.booleans(), label="change cards"):
        doc["cards"] = draw(_card_changes(), label="cards")
    if not draft and draw(st.booleans(), label="change weights"):
        doc["weights"] = draw(_weight_changes(), label="weights")
    return doc


def _card_changes() -> st.SearchStrategy[dict]:
    fields = {f: _int(f, _CARD_CHECKS) for f in ("cost", "my_health", "opp_health", "draw")}
    # a creature needs defense 1 and attack 0 at least (the validator); most cards of the list are creatures
    fields["attack"] = st.integers(0, _CARD_CHECKS["attack"].domain[1])
    fields["defense"] = st.integers(1, _CARD_CHECKS["defense"].domain[1])
    fields["keywords"] = st.tuples(*[st.sampled_from(["-", k]) for k in "BCDGLW"]).map("".join)
    change = st.fixed_dictionaries({}, optional=fields)
    return st.dictionaries(st.integers(1, 160).map(str), change, max_size=8)


def _weight_changes() -> st.SearchStrategy[dict]:
    def number(kind: str) -> st.SearchStrategy[float]:
        lo = 0.001 if kind == "multCost" else 0.0
        return st.floats(lo, WEIGHT_BOUNDS[kind], allow_nan=False)

    option = st.fixed_dictionaries({}, optional={k: number(k) for k in ("weight", "multCost", "addCost")})
    keywords = st.dictionaries(st.sampled_from(["breakthrough", "charge", "drain", "guard", "lethal", "ward"]),
                               option, max_size=3)
    types = st.fixed_dictionaries({}, optional={k: number("weight") for k in
                                                ("creature", "itemGreen", "itemRed", "itemBlue")})
    curve = st.dictionaries(st.integers(0, 12).map(str), number("weight"), max_size=4)
    bonus = st.fixed_dictionaries({}, optional={"mean": number("mean"), "std": number("std")})
    return st.fixed_dictionaries({}, optional={
        "typeProbabilities": types, "manaCurve": curve, "keywordProbabilities": keywords,
        "bonusAttackDistribution": bonus, "bonusDefenseDistribution": bonus,
    })


@st.composite
def variants(draw, base: str | None = None):
    """A `Rules` value drawn from `variant_docs` (refusal of a drawn file fails the test: the drawn values
    are all in the validator's ranges)."""
    doc = draw(variant_docs(base))
    try:
        return variant_from_dict(doc, "drawn.toml")
    except Exception as exc:
        if "weights the generator can use" in str(exc):  # every weight of a group drawn 0: refused, rightly
            from hypothesis import reject

            reject()
        raise
