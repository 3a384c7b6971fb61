"""Plain-text tables for the terminal."""

from __future__ import annotations

from locm.events.locm.cards import AREA_NAMES, TYPE_NAMES, keywords_to_str


def table(headers, rows) -> str:
    rows = [tuple(str(c) for c in r) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def card_table(cards) -> str:
    named = any(c.name for c in cards)  # generated (1.5) cards have no names
    headers = ("id", "type", "cost", "att", "def", "keywords", "my", "opp", "draw", "area") + (("name",) if named else ())
    rows = [(c.base_id, TYPE_NAMES[c.type], c.cost, c.attack, c.defense, keywords_to_str(c.keywords),
             c.my_health, c.opp_health, c.draw, AREA_NAMES[c.area]) + ((c.name,) if named else ()) for c in cards]
    return table(headers, rows)
