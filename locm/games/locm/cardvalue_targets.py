"""What `locm cardvalue` values and against what (`locm.games.locm.cardvalue`, whose module note says why):
the targets (a card, a bucket, or each card a variant file changes), their baseline rulesets (a vanilla
creature of the card's cost, another card's values, or the variant's change of that card alone), and the
one-line error of a target that cannot be measured."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import msgspec

from locm.analysis.locm.cardfacts import COST_TOP, card_features
from locm.engine.errors import LocmError
from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.rulesets import DRAFT, Rules
from locm.engine.locm.variants import with_card_changes
from locm.events.locm.cards import AREA_NAMES, CREATURE, KEYWORD_NAMES, TYPE_NAMES, Card


class CardValueError(LocmError):
    """A card value that cannot be measured as asked: an unknown card id or bucket, a baseline that does not
    fit the ruleset, an agent that is not built in. ``what`` is the offending value."""

    def __init__(self, what: object, message: str) -> None:
        self.what = what
        super().__init__(message)


# --- baselines -------------------------------------------------------------------------------------------------


def vanilla_card(card: Card) -> Card:
    """The vanilla creature of a card's cost (see the module note), keeping its base id and name."""
    stat = card.cost + 1
    return Card(card.base_id, CREATURE, card.cost, stat, stat, 0, 0, 0, 0, 0, card.name, "vanilla")


def _vanilla_values(cost: int) -> dict:
    stat = cost + 1
    return {"type": TYPE_NAMES[CREATURE], "attack": stat, "defense": stat, "keywords": "------", "my_health": 0,
            "opp_health": 0, "draw": 0, "area": AREA_NAMES[0], "text": "vanilla"}


# Report buckets a change to generated cards can select (`engine.locm.cardweights.CardMatch`); the others
# (health effects, stat efficiency) depend on values a change may itself alter.
def bucket_match(bucket: str) -> dict:
    """The ``when`` of a feature bucket of the report (``keyword: guard``), or `CardValueError`."""
    family, _, value = bucket.partition(": ")
    if family == "type" and value in TYPE_NAMES:
        return {"type": value}
    if family == "cost":
        if value == f"{COST_TOP}+":
            return {"min_cost": COST_TOP}
        if value.isdigit() and int(value) < COST_TOP:
            return {"cost": int(value)}
    if family == "keyword" and (value in KEYWORD_NAMES or value == "none"):
        return {"keyword": value}
    if family == "area" and value in AREA_NAMES:
        return {"area": value}
    if family == "draw" and value in ("0", "1", "2+"):
        return {"min_draw": 2} if value == "2+" else {"draw": int(value)}
    raise CardValueError(bucket, f"{bucket!r}: expected a card id or a bucket of type, cost, keyword, area or draw "
                                 f"(e.g. 'keyword: guard', 'cost: 3', 'cost: {COST_TOP}+', 'draw: 2+')")


@dataclass(frozen=True)
class Target:
    """One row of the result: a card or bucket (`label`), the variant it is re-run under (`variant`, an index
    of `CardValueRun.variants`) and, when that variant changes more than this row is about, the base ids
    this row is about (`only`; None: every card the variant changes)."""

    label: str
    variant: int
    baseline: str
    only: frozenset | None = None


def _card_list(rules: Rules) -> dict[int, Card]:
    return {**cardlist_12(), **{c.base_id: c for c in rules.cards}}


def _name(rules_a: Rules, what: str, baseline: str) -> str:
    """The baseline ruleset's name: A's, the card and the baseline (``1.2~116~vanilla``), at most 40 characters
    (a long one ends in a short hash of what it names)."""
    import hashlib

    safe = "".join(ch if ch.isalnum() else "-" for ch in what).strip("-")
    name = f"{rules_a.name}~{safe}~{baseline.replace(':', '')}"
    if len(name) > 40:
        name = name[:31] + "~" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return name


def make_targets(rules_a: Rules, items: Sequence[str], baseline: str) -> tuple[list[Target], list[Rules]]:
    """The rows and the variants for cards or buckets `items` against `baseline` (``vanilla``, ``card:ID``)."""
    draft = rules_a.deck_building == DRAFT
    targets, variants = [], []
    for item in items:
        item = item.strip()
        if draft:
            cards = _card_list(rules_a)
            if item.isdigit():
                if int(item) not in cards:
                    raise CardValueError(item, f"card {item}: expected a card id of the 1.2 list (1..{len(cards)})")
                chosen = [cards[int(item)]]
                label = f"{item} {cards[int(item)].name}"
            else:
                bucket_match(item)  # checks the name
                chosen = [c for c in cards.values() if item in card_features(c)]
                label = item
            if baseline == "vanilla":
                new = [vanilla_card(c) for c in chosen]
            elif baseline.startswith("card:") and baseline[5:].isdigit() and int(baseline[5:]) in cards:
                other = cards[int(baseline[5:])]
                new = [msgspec.structs.replace(other, base_id=c.base_id, name=c.name, text=f"as card {other.base_id}")
                       for c in chosen]
            else:
                raise CardValueError(baseline, f"--baseline {baseline}: expected vanilla, card:ID (an id of the 1.2 "
                                               "list) or a variant file")
            kept = tuple(c for c in rules_a.cards if c.base_id not in {n.base_id for n in new})
            rules_b = rules_a.replace(name=_name(rules_a, item, baseline), base=rules_a.base_name,
                                      cards=tuple(sorted(kept + tuple(new), key=lambda c: c.base_id)))
        else:
            if item.isdigit():
                raise CardValueError(item, f"{item}: constructed cards are generated anew for every game: expected a "
                                           "bucket (e.g. 'keyword: guard')")
            if baseline != "vanilla":
                raise CardValueError(baseline, f"--baseline {baseline}: expected vanilla or a variant file under "
                                               "constructed (a card id means a different card in every game)")
            from locm.engine.locm.cardweights import CardChange

            when = bucket_match(item)
            costs = [when["cost"]] if "cost" in when else range(when.get("min_cost", 0), 13)
            other = {k: v for k, v in when.items() if k not in ("cost", "min_cost")}
            # one change per cost: a vanilla creature's stats follow its cost
            changes = [msgspec.convert({"when": {**other, "cost": c}, "set": _vanilla_values(c)}, CardChange)
                       for c in costs]
            rules_b = rules_a.replace(name=_name(rules_a, item, baseline), base=rules_a.base_name,
                                      card_weights=with_card_changes(rules_a.card_weights, changes))
            label = item
        targets.append(Target(label, len(variants), baseline))
        variants.append(rules_b)
    return targets, variants


def variant_targets(rules_a: Rules, rules_b: Rules, items: Sequence[str], source: str
                    ) -> tuple[list[Target], list[Rules]]:
    """Rows for a variant file as the baseline: 1.2, one row per card it changes (or per card of `items`); when
    it changes cards alone, each re-run under A with that card's change alone (a variant that changes one card
    is re-run as it is, so `locm whatif`'s re-runs of it are read back), and when it changes rules too, every
    row re-run under the whole variant; constructed, one row for the whole change."""
    if rules_b.deck_building != rules_a.deck_building:
        raise CardValueError(source, f"--baseline {source}: a variant of {rules_b.base_name}, the games are "
                                     f"{rules_a.base_name}")
    if rules_a.deck_building == DRAFT:
        before = _card_list(rules_a)
        changed = sorted(c.base_id for c in rules_b.cards if before.get(c.base_id) != c)
        if items:
            unknown = [i for i in items if not i.isdigit() or int(i) not in changed]
            if unknown:
                raise CardValueError(unknown[0], f"card {unknown[0]}: expected a card the variant changes "
                                                 f"({', '.join(map(str, changed)) or 'it changes none'})")
            changed = [int(i) for i in items]
        if not changed:
            raise CardValueError(source, f"--baseline {source}: it changes no card")
        everything = sorted(c.base_id for c in rules_b.cards if before.get(c.base_id) != c)
        if (everything == changed and len(changed) == 1) or not _only_cards_differ(rules_a, rules_b):
            # one card changed: B itself; B changes rules too: B whole for every card (its rules are no card's)
            return [Target(f"{b} {before[b].name}", 0, rules_b.name, frozenset([b])) for b in changed], [rules_b]
        new = {c.base_id: c for c in rules_b.cards}
        targets, variants = [], []
        for b in changed:  # the card's change alone: what the card causes, not what the rest of B does
            kept = tuple(c for c in rules_a.cards if c.base_id != b)
            variants.append(rules_a.replace(name=_name(rules_a, str(b), rules_b.name), base=rules_a.base_name,
                                            cards=tuple(sorted(kept + (new[b],), key=lambda c: c.base_id))))
            targets.append(Target(f"{b} {before[b].name}", len(targets), rules_b.name, frozenset([b])))
        return targets, variants
    return [Target(f"the cards {rules_b.name} changes", 0, rules_b.name)], [rules_b]


def _only_cards_differ(a: Rules, b: Rules) -> bool:
    """Whether two rulesets differ in card definitions alone (1.2 ``cards``, the generated cards'
    ``cardChanges``): then a game whose pool no change reaches plays the same under both."""
    from locm.engine.locm.cardgen import official_weights

    def weights(r: Rules) -> dict:
        doc = msgspec.json.decode(r.card_weights.encode() if r.card_weights else official_weights())
        doc.pop("cardChanges", None)
        return doc

    blank = {"name": "", "base": "", "cards": (), "card_weights": ""}
    if a.replace(**blank) != b.replace(**blank):
        return False
    return a.deck_building == DRAFT or weights(a) == weights(b)


__all__ = ["CardValueError", "Target", "vanilla_card", "bucket_match", "make_targets", "variant_targets"]
