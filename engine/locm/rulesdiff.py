"""The differences between two LOCM rulesets, row by row (`locm rules diff`, `locm rerun`'s changed settings):
every field that differs with its rule id and meaning (`engine.locm.rulesets.diff_rulesets`), a card change
per card and value (``cards.116.cost``), a change of the constructed generator's weights per key."""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.rulesets import DRAFT, Rules, diff_rulesets
from locm.events.locm.cards import TYPE_NAMES, Card, keywords_to_str


class DiffRow(NamedTuple):
    """One difference between two rulesets: the field (``cards.116.cost`` for a card), the rule id, both
    values as text, and what the field means."""

    field: str
    rule: str
    left: str
    right: str
    doc: str


def show_value(v: object) -> str:
    if isinstance(v, tuple):
        return ",".join(map(str, v)) or "none"
    return str(v)


def diff_rows(a: Rules, b: Rules) -> list[DiffRow]:
    """Every difference between two rulesets, in field order; card changes and generator weights per card
    and per key."""
    rows = []
    for d in diff_rulesets(a, b):
        if d.field == "cards":
            rows += _card_rows(a, b)
        elif d.field == "card_weights":
            rows += _weight_rows(a.card_weights, b.card_weights)
        else:
            rows.append(DiffRow(d.field, d.rule, show_value(d.left), show_value(d.right), d.doc))
    return rows


def _card_rows(a: Rules, b: Rules) -> list[DiffRow]:
    originals = cardlist_12()

    def deck(r: Rules) -> dict[int, Card]:
        return {**originals, **{c.base_id: c for c in r.cards}}

    def show(f: str, v: Any) -> str:
        return keywords_to_str(v) if f == "keywords" else TYPE_NAMES[v] if f == "type" else str(v)

    ca, cb = deck(a), deck(b)
    listed = (a.deck_building == DRAFT, b.deck_building == DRAFT)  # constructed has no card list
    rows = []
    for bid in sorted({c.base_id for c in a.cards} | {c.base_id for c in b.cards}):
        x, y, o = (msgspec.structs.asdict(c) for c in (ca[bid], cb[bid], originals[bid]))
        for f in x:
            # both with a card list: the values differ; else: the field the card-list side changes
            if x[f] != y[f] if all(listed) else x[f] != o[f] or y[f] != o[f]:
                rows.append(DiffRow(f"cards.{bid}.{f}", "R-DRAFT",
                                    show(f, x[f]) if listed[0] else "(no card list)",
                                    show(f, y[f]) if listed[1] else "(no card list)",
                                    f"card {bid} ({originals[bid].name})"))
    return rows


def _weight_rows(wa: str, wb: str) -> list[DiffRow]:
    from locm.engine.locm.cardgen import official_weights

    def flat(text: str) -> dict[str, object]:
        doc = msgspec.json.decode(text.encode() if text else official_weights())
        out: dict[str, object] = {}
        for i, change in enumerate(doc.pop("cardChanges", []), 1):
            out[f"generated[{i}]"] = msgspec.json.encode(change).decode()
        for key, value in doc.items():
            if isinstance(value, list):
                for o in value:
                    for f in ("weight", "multCost", "addCost"):
                        out[f"weights.{key}.{o['name']}.{f}"] = float(o[f])
            else:
                for k, v in value.items():
                    out[f"weights.{key}.{k}"] = float(v)
        return out

    fa, fb = flat(wa), flat(wb)
    return [DiffRow(k, "R-CARDGEN", str(fa.get(k, "-")), str(fb.get(k, "-")),
                    "change to the generated cards" if k.startswith("generated") else "card generator weight")
            for k in sorted(fa.keys() | fb.keys()) if fa.get(k) != fb.get(k)]


__all__ = ["DiffRow", "diff_rows", "show_value"]
