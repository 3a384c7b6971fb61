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


DEFAULT_FDR = 0.05
"""The false-discovery rate the reports control when they mark a card (`bh_qvalues`): a star or a colour says
the card's interval excludes its baseline and its q-value is at most this."""


def normal_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic ``z``."""
    return math.erfc(abs(z) / math.sqrt(2))


def p_from_interval(estimate: float, lo: float, hi: float, null: float = 0.0, z: float = Z95) -> float:
    """The two-sided p-value of ``estimate`` against ``null`` from its 95% interval [lo, hi] read as a normal
    one (standard error = width / 2z); 1.0 when the interval has no width (nothing is known), 0.0 when it is
    a point away from ``null``."""
    se = (hi - lo) / (2 * z)
    if not math.isfinite(se):
        return 1.0
    if se <= 0:
        return 1.0 if estimate == null else 0.0
    return normal_p((estimate - null) / se)


def bh_qvalues(pvalues: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given: ``q_(i) = min over j >= i of
    m p_(j) / j`` over the p-values sorted ascending, capped at 1. Rejecting every q <= alpha controls the
    false-discovery rate at alpha over the m tests (independent or positively dependent ones: Benjamini and
    Hochberg 1995; Benjamini and Yekutieli 2001)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    q = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * pvalues[i] / rank)
        q[i] = min(1.0, running)
    return q


def discoveries(rows: list[dict], p_key: str, q_key: str, mark_key: str, excludes, fdr: float = DEFAULT_FDR
                ) -> int:
    """Give every row with a p-value (``rows[i][p_key]`` not None) its q-value over those rows (`bh_qvalues`,
    rounded to 4 places) and mark it (``mark_key`` True) when its q is at most ``fdr`` and ``excludes(row)``
    (its interval excludes the baseline); the others get q None and False. Returns how many are marked."""
    tested = [r for r in rows if r.get(p_key) is not None]
    for r, q in zip(tested, bh_qvalues([r[p_key] for r in tested])):
        r[q_key] = round(q, 4)
        r[mark_key] = bool(q <= fdr and excludes(r))
    for r in rows:
        if r.get(p_key) is None:
            r[q_key], r[mark_key] = None, False
    return sum(r[mark_key] for r in tested)
