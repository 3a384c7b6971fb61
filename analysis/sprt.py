"""A sequential probability ratio test over mirrored seed pairs, as chess-engine testing frameworks run it
(fishtest's generalized SPRT with pentanomial counts). Pure: numbers in, numbers out.

Two agents A and B play seeds in pairs: each seed once with A in seat 0, once with A in seat 1. A pair's score
for A is 0, 1/4, 1/2, 3/4 or 1 (its two games' results averaged, a draw worth half); the test counts pairs
in these five cells (the *pentanomial* counts). Pairs, not games, are the independent units: the two games
of one seed share its draft or card pool, so their results are correlated, and counting them as independent
games would make the test too confident.

The hypotheses are on A's expected score ``s``, stated in logistic Elo (``s = 1 / (1 + 10 ** (-elo / 400))``):
H0 ``elo = elo0`` against H1 ``elo = elo1``. The distribution of a pair's score is not assumed: the log
likelihood ratio is the generalized one, with each hypothesis's distribution estimated by maximum likelihood
from the counts under the constraint that its mean is ``s0`` (or ``s1``). That maximum has a closed form up to
one scalar: ``q_i = p_i / (1 + x (a_i - s))`` for the observed frequencies ``p_i`` of the scores ``a_i``,
``x`` being the root of ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (decreasing in ``x``; found here by
safeguarded Newton steps). Then ``LLR = N sum p_i log(q1_i / q0_i)`` for ``N`` pairs.

Wald's bounds: accept H1 when ``LLR >= log((1 - beta) / alpha)``, H0 when ``LLR <= log(beta / (1 - alpha))``.
Empty cells get a count of 1e-3 (so that a hypothesis never gives an observed cell probability 0); no
correction for the overshoot of the last step, so the real error rates are at most the nominal ones, about.
`tests/test_sprt.py` checks both by simulation.

Everything takes counts of shape ``(..., 5)``: one test, or many at once (the simulation runs thousands).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from locm.errors import LocmError

SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""A's score in a pair, per cell of the pentanomial counts."""

EMPTY = 1e-3
"""The count given to an empty cell."""


class SprtError(LocmError):
    """Raised when the options of a sequential test do not make a test (bounds, error rates, a malformed
    ``--sprt`` text); keeps the offending ``text`` and says what was expected."""

    def __init__(self, text: str, why: str) -> None:
        self.text, self.why = text, why
        super().__init__(f"--sprt {text!r}: {why}")


def elo_to_score(elo: float) -> float:
    """The expected score of the logistic Elo model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The inverse of `elo_to_score` (infinite at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _constrained_mle(p: np.ndarray, s: float) -> np.ndarray:
    """The distribution over `SCORES` nearest to ``p`` (maximum likelihood, rows of ``p`` summing to 1, no zero)
    whose mean is ``s`` (strictly between 0 and 1)."""
    d = SCORES - s  # (5,)
    # 1 + x d_i > 0 for every cell: x in (-1 / max d, -1 / min d)
    lo, hi = -1.0 / d.max(), -1.0 / d.min()
    x = np.zeros(p.shape[:-1])
    lo_x, hi_x = np.full_like(x, lo), np.full_like(x, hi)
    for _ in range(60):
        den = 1.0 + x[..., None] * d
        f = (p * d / den).sum(-1)  # decreasing in x
        fp = -(p * d * d / (den * den)).sum(-1)
        lo_x = np.where(f > 0, x, lo_x)
        hi_x = np.where(f > 0, hi_x, x)
        step = x - f / fp
        inside = (step > lo_x) & (step < hi_x)
        new = np.where(inside, step, 0.5 * (lo_x + hi_x))
        if np.all(np.abs(new - x) < 1e-13):
            x = new
            break
        x = new
    q = p / (1.0 + x[..., None] * d)
    return q / q.sum(-1, keepdims=True)


def llr(counts, s0: float, s1: float) -> np.ndarray:
    """The generalized log likelihood ratio of H1 (mean pair score ``s1``) against H0 (``s0``) for pentanomial
    ``counts`` (shape ``(..., 5)``, cells in `SCORES` order); 0 where no pair was counted."""
    c = np.asarray(counts, dtype=float)
    n = c.sum(-1)
    reg = np.where(c > 0, c, EMPTY)
    p = reg / reg.sum(-1, keepdims=True)
    q0, q1 = _constrained_mle(p, s0), _constrained_mle(p, s1)
    out = n * (p * np.log(q1 / q0)).sum(-1)
    return np.where(n > 0, out, 0.0)


@dataclass(frozen=True)
class Sprt:
    """The test's settings: H0 ``elo = elo0``, H1 ``elo = elo1`` (logistic Elo of the first agent over the second,
    ``elo0 < elo1``), ``alpha`` the chance of accepting H1 when H0 holds, ``beta`` of accepting H0 when H1
    holds."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        text = self.text()
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise SprtError(text, f"{name} must be a finite number")
        if not self.elo0 < self.elo1:
            raise SprtError(text, f"expected elo0 < elo1, got elo0={self.elo0:g} and elo1={self.elo1:g}")
        if max(abs(self.elo0), abs(self.elo1)) > 2000:
            raise SprtError(text, "expected elo0 and elo1 between -2000 and 2000")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0 < v < 0.5:
                raise SprtError(text, f"expected 0 < {name} < 0.5, got {v:g}")

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (any of them may be left out: the defaults)."""
        values: dict[str, float] = {}
        for item in (i.strip() for i in text.split(",")):
            if not item:
                continue
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep or name not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtError(text, f"expected name=value items among elo0, elo1, alpha, beta, got {item!r}")
            if name in values:
                raise SprtError(text, f"{name} given twice")
            try:
                values[name] = float(value)
            except ValueError:
                raise SprtError(text, f"{name}: expected a number, got {value.strip()!r}") from None
        return cls(**values)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds of the LLR."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    @property
    def scores(self) -> tuple[float, float]:
        return elo_to_score(self.elo0), elo_to_score(self.elo1)

    def llr(self, counts) -> np.ndarray:
        return llr(counts, *self.scores)


Verdict = Literal["H0", "H1"]
"""The hypothesis a conclusive test accepts."""

H0: Verdict = "H0"
H1: Verdict = "H1"


@dataclass
class SprtState:
    """A running test: pairs are added in order; `verdict` is set at the first pair that makes it conclusive
    (and stays: later pairs do not change it)."""

    test: Sprt
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    llr: float = 0.0
    verdict: Verdict | None = None  # once conclusive
    pairs_at_verdict: int | None = None

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add_pair(self, first: float, second: float) -> str | None:
        """One pair: the first agent's score in each of its two games (1 win, 0.5 draw, 0 loss). Returns the
        verdict (None while inconclusive)."""
        if self.verdict is not None:
            return self.verdict
        self.counts[round(2 * (first + second))] += 1
        self.llr = float(self.test.llr(self.counts))
        lo, hi = self.test.bounds
        if self.llr >= hi or self.llr <= lo:
            self.verdict = H1 if self.llr >= hi else H0
            self.pairs_at_verdict = self.pairs
        return self.verdict

    def summary(self) -> dict:
        """For JSON and the CLI: the counts, the LLR and bounds, the score and Elo with a 95% interval of the
        pair scores' mean (normal approximation over pairs), and the verdict."""
        n = self.pairs
        lo, hi = self.test.bounds
        out = {"test": self.test.text(), "pairs": n, "pentanomial": list(self.counts),
               "llr": round(self.llr, 4), "lower": round(lo, 4), "upper": round(hi, 4),
               "verdict": self.verdict, "pairs_at_verdict": self.pairs_at_verdict}
        if n:
            c = np.asarray(self.counts, dtype=float)
            mean = float((c * SCORES).sum() / n)
            var = float((c * (SCORES - mean) ** 2).sum() / n)
            half = 1.959963984540054 * math.sqrt(var / n)
            out.update(score=round(mean, 5), elo=_finite(score_to_elo(mean)),
                       elo_low=_finite(score_to_elo(mean - half)), elo_high=_finite(score_to_elo(mean + half)))
        return out


def _finite(elo: float) -> float | None:
    """An Elo for JSON: None where the score is 0 or 1 (no finite Elo)."""
    return round(elo, 2) if math.isfinite(elo) else None


def simulate(test: Sprt, cells, runs: int, max_pairs: int, seed: int) -> dict[str, float]:
    """Run ``runs`` independent tests on synthetic pairs drawn from the pentanomial distribution ``cells``
    (five probabilities), each up to ``max_pairs`` pairs, all at once; the fractions that accepted H0, H1 or
    stayed inconclusive, and the mean number of pairs a test used."""
    rng = np.random.default_rng(seed)
    probs = np.asarray(cells, dtype=float)
    counts = np.zeros((runs, 5))
    verdict = np.zeros(runs, dtype=int)  # 0 running, -1 H0, 1 H1
    used = np.full(runs, max_pairs)
    lo, hi = test.bounds
    s0, s1 = test.scores
    for k in range(1, max_pairs + 1):
        running = verdict == 0
        if not running.any():
            break
        draws = rng.choice(5, size=runs, p=probs)
        counts[np.arange(runs), draws] += running
        idx = np.flatnonzero(running)
        value = llr(counts[idx], s0, s1)
        done_hi, done_lo = value >= hi, value <= lo
        verdict[idx[done_hi]] = 1
        verdict[idx[done_lo]] = -1
        used[idx[done_hi | done_lo]] = k
    return {H0: float(np.mean(verdict == -1)), H1: float(np.mean(verdict == 1)),
            "inconclusive": float(np.mean(verdict == 0)), "mean_pairs": float(used.mean())}


def mirrored_cells(score: float, seat_edge: float) -> list[float]:
    """A pentanomial distribution with mean ``score``: A wins its game in seat 0 with chance ``score + edge``,
    in seat 1 with ``score - edge`` (independently; no draws), so the seat's advantage is visible in the pairs
    as in real mirrored games."""
    p, q = score + seat_edge, score - seat_edge
    if not (0 <= q and p <= 1):
        raise ValueError(f"score {score} with seat edge {seat_edge} is not a pair of probabilities")
    lose2, win2 = (1 - p) * (1 - q), p * q
    return [lose2, 0.0, 1 - lose2 - win2, 0.0, win2]


__all__ = ["Sprt", "SprtState", "SprtError", "llr", "simulate", "mirrored_cells", "elo_to_score", "score_to_elo",
           "SCORES", "H0", "H1"]
