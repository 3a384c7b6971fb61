"""The game-free part of `locm tune`: objectives, the sequential verdict of one measurement against its band,
the mutations of a card's numeric fields, and the choice among evaluated candidates. Pure: numbers in,
numbers out (the games are played by a game's wing, e.g. `locm.games.locm.tune`).

The method is a greedy local search with paired evaluation, after "Evolving the Hearthstone Meta" (F. de
Mesentier Silva, R. Canaan, S. Lee, M. C. Fontaine, J. Togelius, A. K. Hoover, IEEE CoG 2019), which evolves
card changes toward balanced win rates with as few changes as possible. What is implemented here is smaller
than their evolutionary search: one card at a time, the out-of-band card furthest from the band first; a
(1 + lambda) step that evaluates lambda single-field mutations of the card on the same seeds as the current
ruleset (paired), keeps the best, and repeats from it while the card is still out of its band and the change
budget allows.

Objectives (`Objectives`): every measured card's value within ``band`` of the median of the measured values;
the first player's win rate within 50% +- ``seat_margin``; at most ``max_changes`` changed fields, and among
candidates that do as well, the one changing fewer.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Sequence

HIGH, LOW, IN, OPEN = "too strong", "too weak", "in band", "undecided"


@dataclass(frozen=True)
class Objectives:
    """What balanced means (see the module note). Values are win-rate fractions (0.10: 10 points)."""

    band: float = 0.10
    seat_margin: float = 0.05
    max_changes: int = 3

    @classmethod
    def parse(cls, specs: Iterable[str]) -> "Objectives":
        """Objectives from ``KEY=VALUE`` strings (``band=0.08``, ``seat=0.04``, ``changes=2``); `ValueError`
        with one line for anything else."""
        keys = {"band": ("band", float), "seat": ("seat_margin", float), "changes": ("max_changes", int)}
        values: dict = {}
        for spec in specs:
            key, eq, raw = spec.partition("=")
            if not eq or key.strip() not in keys:
                raise ValueError(f"--objective {spec!r}: expected band=FRACTION, seat=FRACTION or changes=N "
                                 "(e.g. band=0.1)")
            name, kind = keys[key.strip()]
            try:
                v = kind(raw)
            except ValueError:
                raise ValueError(f"--objective {spec!r}: expected a {'number' if kind is float else 'whole number'} "
                                 f"after {key.strip()}=") from None
            if (kind is float and not 0 < v < 0.5) or (kind is int and not 0 <= v <= 50):
                raise ValueError(f"--objective {spec!r}: expected {'a fraction in (0, 0.5)' if kind is float else '0..50'}")
            values[name] = v
        return cls(**values)


@dataclass(frozen=True)
class Estimate:
    """A measured value with its 95% interval (None: too few data for one)."""

    value: float | None
    low: float | None
    high: float | None
    units: int = 0


def verdict(est: Estimate, centre: float, band: float) -> str:
    """Where `est` stands against ``centre +- band``: `HIGH` or `LOW` when its interval lies wholly outside the
    band, `IN` when wholly inside, else `OPEN` (more games would decide it). The sequential rule: a card is
    measured on more seeds only while it is `OPEN`."""
    if est.low is None or est.high is None:
        return OPEN
    if est.low > centre + band:
        return HIGH
    if est.high < centre - band:
        return LOW
    if est.low >= centre - band and est.high <= centre + band:
        return IN
    return OPEN


def centre_of(values: Iterable[float | None]) -> float:
    """The median of the measured values (0 when none is measured)."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else 0.0


@dataclass(frozen=True)
class Field:
    """One numeric field a change may set: its value, its bounds, and the sign of a stronger card (+1: more is
    stronger, e.g. attack; -1: less is stronger, e.g. cost)."""

    name: str
    value: int
    lo: int
    hi: int
    stronger: int


def mutations(fields: Sequence[Field], weaken: bool, distance: float) -> list[dict[str, int]]:
    """Single-field steps toward weaker (``weaken``) or stronger values: for each field, steps of about a
    quarter, a half and three quarters of its value (at least 1, 2 and 3), scaled up when the card is far
    (``distance``, in band widths, above 2), within the field's bounds. Each is ``{field: new value}``."""
    scale = max(1.0, distance / 2)
    out: list[dict[str, int]] = []
    for f in fields:
        sign = -f.stronger if weaken else f.stronger
        steps = sorted({max(k, round(abs(f.value) * frac * scale)) for k, frac in ((1, 0.25), (2, 0.5), (3, 0.75))})
        seen = set()
        for s in steps:
            new = min(f.hi, max(f.lo, f.value + sign * s))
            if new != f.value and new not in seen:
                seen.add(new)
                out.append({f.name: new})
    return out


def choose(evaluated: Sequence[tuple[dict, Estimate]], current: float, centre: float) -> int | None:
    """The index of the best candidate: ``(its changed fields, the paired change it makes to the card's value)``;
    the predicted value is ``current - change``. The best is closest to the centre, then changes fewer fields,
    then comes first; None when no candidate brings the card closer to the centre than it is."""
    best, key = None, None
    for i, (changes, est) in enumerate(evaluated):
        if est.value is None:
            continue
        k = (round(abs(current - est.value - centre), 4), len(changes), i)
        if key is None or k < key:
            best, key = i, k
    if best is None or key[0] >= abs(current - centre):
        return None
    return best


def seat_verdict(wins: int, games: int, low: float, high: float, margin: float) -> str:
    """The first player's win rate (``wins`` of ``games``, its interval ``low..high``) against 50% +- margin."""
    if games == 0:
        return OPEN
    if low > 0.5 + margin:
        return HIGH
    if high < 0.5 - margin:
        return LOW
    if low >= 0.5 - margin and high <= 0.5 + margin:
        return IN
    return OPEN


__all__ = ["Objectives", "Estimate", "Field", "verdict", "centre_of", "mutations", "choose", "seat_verdict",
           "HIGH", "LOW", "IN", "OPEN"]
