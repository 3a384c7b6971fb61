"""The native (C++) card generator's side here: `engine.locm.cardgen.generate_cards` by the native core,
`locm.engine.locm._native`, over the Python core's tables (which `cardgen` hands in, so this module needs
nothing of it)."""

from __future__ import annotations

from typing import Any, Callable

from locm.events.locm.cards import Card
from locm.engine.corebuild import native_module
from locm.engine.locm.cardweights import Tables

_CARDGEN: dict[str, int] = {}  # the generator's tables handed to the native core, by weights (its handles)


def generated_cards(card_gen_seed: int, weights: str, load_tables: Callable[[str], Tables]) -> tuple[Card, ...] | None:
    """The cards of `card_gen_seed` by the native core, from the tables `load_tables(weights)` gives; None where
    it does not make them (not built here, or weights whose ``cardChanges`` change the generated cards)."""
    native, _ = native_module("locm")
    handle = cardgen_handle(weights, load_tables)
    if native is None or handle is None:
        return None
    return native.generated_cards(card_gen_seed, handle, Card)  # type: ignore[no-any-return]


def cardgen_handle(weights: str, load_tables: Callable[[str], Tables]) -> int | None:
    """The native core's handle of the generator's tables for `weights` (handed in on first use); None where it
    does not make these cards (not built here, or weights whose ``cardChanges`` change the generated cards)."""
    native, _ = native_module("locm")
    if native is None:
        return None
    handle = _CARDGEN.get(weights)
    if handle is None:
        t = load_tables(weights)
        if t.changes:
            return None

        def choice(c: Any) -> tuple[list[int], list[tuple[float, float, int]]]:
            rows = [(1.0, 0.0, v) if type(v) is int else (float(v[0]), float(v[1]), int(v[2])) for v in c.values]
            return list(c.thresholds), rows

        handle = _CARDGEN[weights] = native.set_cardgen_tables((
            choice(t.types), choice(t.mana), choice(t.kw_count), choice(t.area), choice(t.draw),
            choice(t.my_health), choice(t.opp_health), [None if c is None else choice(c) for c in t.keywords],
            (t.attack.mean, t.attack.std), (t.defense.mean, t.defense.std)))
    return handle
