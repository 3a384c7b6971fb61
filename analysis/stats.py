"""Small statistics used by every report."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


DEFAULT_MIN_N = 50
"""The fewest games a rate is shown for in the reports (every game's: `locm report --min-games`)."""


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) for n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(xs: list[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of `xs` and its 95% interval, mean ± z·sd/√n (a normal approximation; sd with n - 1); an
    unbounded interval below two values."""
    n = len(xs)
    if n == 0:
        return math.nan, -math.inf, math.inf
    mean = sum(xs) / n
    if n < 2:
        return mean, -math.inf, math.inf
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, mean - z * sd / math.sqrt(n), mean + z * sd / math.sqrt(n)


def rate_text(successes: int, n: int) -> str:
    if n == 0:
        return "n/a"
    lo, hi = wilson(successes, n)
    return f"{100 * successes / n:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"
