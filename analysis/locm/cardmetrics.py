"""Card metrics of ``data/ANALYTICS.md`` from aggregated card facts: rates, sample sizes and 95% Wilson
intervals, one row per card (1.2) or per card feature bucket (constructed). Pure: the counts come from
`locm.games.locm.facts_store` (`card_groups`, `bucket_clusters`), the totals `analysis.locm.cardtotals` adds up.

Choices where ANALYTICS.md is silent or where the issue narrows it (definitions version
`analysis.locm.cardfacts.DEFINITIONS_VERSION`):

- Every rate counts a player-game once per card: two copies in one deck count once (as ANALYTICS.md's Deck
  WR says; it makes ``in_hand_n + not_seen_n == deck_n``).
- ``drawn``: a copy reached the hand after the opening hand; ``in_hand``: opening hand or drawn;
  ``not_seen``: in the deck, no copy reached the hand; ``played``: a copy summoned or used.
- Below the minimum sample (``min_n``) a rate and its interval are None ("not enough data"), the counts stay.
- ``iih`` = in-hand WR minus not-seen WR, None unless both are shown.
- ``pick_rate`` = picks / rounds offered (1.2); constructed: cards chosen / cards of the pool available to
  the player-game. ``avg_pick``: mean pick number (1.2, 1..30) or mean position of the card's first copy in
  the constructed choice order (1..30).
- ``avg_turn_played``: mean own-turn number over every play; ``avg_turns_held`` mean own turns a played copy
  spent in hand.
- Constructed feature buckets (`analysis.locm.cardfacts.card_features`) aggregate (player-game, card) pairs: a
  player-game with two Guard cards counts twice in "keyword: guard". The pairs of one player-game share its
  outcome, so they are not independent: a bucket's interval is clustered by game (`clustered_rate`): the
  cluster-robust variance of the ratio wins / pairs over games (both seats of one game in one cluster when
  both are kept), turned into an effective number of independent pairs, never more than the pairs, that the
  Wilson interval then uses. The 1.2 per-card rows count a player-game once per card and use Wilson as is.
"""

from __future__ import annotations

import math

from locm.analysis.stats import DEFAULT_FDR, DEFAULT_MIN_N, bh_qvalues, normal_p, wilson

METRICS = ("deck", "opening_hand", "drawn", "in_hand", "not_seen", "played")
EXTRA = ("picked", "pick_sum", "pick_games", "pick_first_sum", "plays", "play_turn_sum", "held_sum", "offered")
COUNT_FIELDS = tuple(f"{m}_{k}" for m in METRICS for k in ("n", "wins")) + EXTRA


def rate(wins: int, n: int, min_n: int) -> tuple[float | None, list[float] | None]:
    """(rate, [lo, hi]) rounded to 4 places, or (None, None) below the minimum sample (or n == 0)."""
    if n <= 0 or n < min_n:
        return None, None
    lo, hi = wilson(wins, n)
    return round(wins / n, 4), [round(lo, 4), round(hi, 4)]


def clustered_rate(wins: int, n: int, sums: list[int] | None, min_n: int
                   ) -> tuple[float | None, list[float] | None, float | None]:
    """(rate, [lo, hi], effective n) of a feature bucket from its pairs and its cluster sums ``[s2, s2w, g,
    x, c]`` (`locm.games.locm.facts_store.bucket_clusters`): over player-games, the sum of the squared pair count
    ``n_i`` and of it when won, and how many hold the bucket; over games with both seats kept, the sum of
    the two seats' counts multiplied, and how many games both hold it.

    With p = wins / n, a player-game's residual is ``n_i (won_i - p)``; the residuals of one game's two seats
    (one won, one lost) multiply to ``-p (1 - p) n_0 n_1``. So the sum of squared residuals over game
    clusters is ``s2w (1 - 2p) + p^2 s2 - 2 p (1 - p) x`` over ``G = g - c`` clusters, the variance of p is
    ``G / (G - 1) * that / n^2``, and the effective n is ``p (1 - p) / variance`` (at most n)."""
    if n <= 0 or n < min_n:
        return None, None, None
    p = wins / n
    n_eff = float(n)
    if sums is not None and 0 < p < 1:
        s2, s2w, g, x, c = sums
        clusters = g - c
        ss = s2w * (1 - 2 * p) + p * p * s2 - 2 * p * (1 - p) * x
        if clusters > 1 and ss > 0:
            variance = clusters / (clusters - 1) * ss / (n * n)
            n_eff = min(n_eff, p * (1 - p) / variance)
    lo, hi = wilson_float(p, n_eff)
    return round(p, 4), [round(lo, 4), round(hi, 4)], round(n_eff, 1)


def wilson_float(p: float, n: float) -> tuple[float, float]:
    """The Wilson score interval of a proportion p over an effective (possibly fractional) n."""
    return wilson(p * n, n) if n > 0 else (0.0, 1.0)


def diff_interval(w1: int, n1: int, w2: int, n2: int) -> tuple[float, float]:
    """Newcombe's hybrid score interval (95%) for p1 - p2 from two Wilson intervals (used for IIH bars)."""
    p1, p2 = w1 / n1, w2 / n2
    l1, u1 = wilson(w1, n1)
    l2, u2 = wilson(w2, n2)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def iih_interval(row: dict) -> list[float] | None:
    """The 95% interval of a row's IIH by Newcombe's hybrid method from the rows' own two intervals (clustered
    for a bucket), rounded to 4 places; None without an IIH."""
    if row["iih"] is None:
        return None
    p1, p2 = row["in_hand_wr"], row["not_seen_wr"]
    (l1, u1), (l2, u2) = row["in_hand_ci"], row["not_seen_ci"]
    d = p1 - p2
    return [round(d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), 4),
            round(d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2), 4)]


TESTED = (("in_hand", "in_hand_wr", "in_hand_ci"), ("iih", "iih", "iih_ci"))
"""The metrics the report tests against their baseline, with the row's keys of the value and its interval:
the charts' two (best and worst by in-hand WR; IIH)."""


def score_p(row: dict, metric: str, base: float) -> float:
    """The two-sided p-value of a row's in-hand WR (``metric`` "in_hand") or IIH ("iih") against the baseline
    ``base``, a score test: the standard error is the one the baseline implies (for a rate, the test whose
    inversion is the Wilson interval), over the row's effective n (`clustered_rate`, the n itself for a card).
    For IIH the two rates under the null are the pooled rate moved apart by ``base``."""
    n1 = row["_n_eff"].get("in_hand") or row["in_hand_n"]
    if metric == "in_hand":
        se = math.sqrt(base * (1 - base) / n1) if 0 < base < 1 else 0.0
        return normal_p((row["in_hand_wr"] - base) / se) if se > 0 else 1.0
    n2 = row["_n_eff"].get("not_seen") or row["not_seen_n"]
    pooled = (row["in_hand_wr"] * n1 + row["not_seen_wr"] * n2) / (n1 + n2)
    p1 = min(max(pooled + base * n2 / (n1 + n2), 1e-9), 1 - 1e-9)
    p2 = min(max(pooled - base * n1 / (n1 + n2), 1e-9), 1 - 1e-9)
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return normal_p((row["iih"] - base) / se)


def against_baseline(rows: list[dict], fdr: float = DEFAULT_FDR) -> dict[str, dict]:
    """Centre the tested metrics (`TESTED`) of one pairing's rows on the baseline measured on those rows and
    mark the rows that differ from it, controlling the false-discovery rate over every test of the pairing.

    The baseline of a metric is the mean of the rows that show it (every card, or every feature bucket, with
    enough data). Were no card to matter, each card's in-hand WR and IIH would scatter around it, not around
    50% and 0: in-hand WR shares the pairing's win rate and the draw (a player who draws more holds more of
    everything), and IIH carries the selection bias of in-hand against not-seen (long games reach more cards:
    17lands' users measure about 2 points on theirs; here it is measured on these games). Each row gets
    ``M_baseline``, ``M_centred`` (value minus baseline), ``M_p`` (two-sided, a score test against the
    baseline: `score_p`), ``M_q`` (Benjamini-Hochberg over every (row, metric) tested in the pairing, so that
    the stars of both metrics together keep the rate) and ``M_significant`` (q at most ``fdr`` and the
    row's interval excludes the baseline). The baseline is taken as known: with tens of rows its own error is
    small beside each row's. Returns per metric the baseline, the rows tested and how many are marked."""
    for row in rows:
        row["iih_ci"] = iih_interval(row)
    tests: list[tuple[dict, str, str, float]] = []
    bases: dict[str, float | None] = {}
    for metric, value, ci in TESTED:
        shown = [r for r in rows if r[value] is not None]
        base = bases[metric] = round(sum(r[value] for r in shown) / len(shown), 4) if shown else None
        for r in rows:
            v = r[value]
            r[f"{metric}_baseline"] = base
            r[f"{metric}_centred"] = None if v is None else round(v - base, 4)
            r[f"{metric}_p"], r[f"{metric}_q"], r[f"{metric}_significant"] = None, None, False
            if v is not None:
                tests.append((r, metric, ci, score_p(r, metric, base)))
    for (r, metric, ci, p), q in zip(tests, bh_qvalues([t[3] for t in tests])):
        base = bases[metric]
        r[f"{metric}_p"], r[f"{metric}_q"] = round(p, 4), round(q, 4)
        r[f"{metric}_significant"] = bool(q <= fdr and (r[ci][0] > base or r[ci][1] < base))
    return {metric: {"baseline": bases[metric], "tested": sum(1 for t in tests if t[1] == metric),
                     "significant": sum(bool(r[f"{metric}_significant"]) for r in rows), "fdr": fdr}
            for metric, _, _ in TESTED}


def add_counts(into: dict, counts: dict) -> None:
    for k in COUNT_FIELDS:
        into[k] = into.get(k, 0) + counts.get(k, 0)


def card_row(ruleset: str, key_name: str, key, counts: dict, min_n: int, version: str, constructed: bool,
             pairing: tuple[str, str] = ("", ""), clusters: dict[int, list[int]] | None = None) -> dict:
    """One row of cards.json: the issue's keys, in order, plus ``definitions_version``. ``constructed``: the
    ruleset builds decks by construction (its picks are counted per game), whatever its name. ``pairing``:
    the player-games' agent and its opponent's. ``clusters``: a bucket's cluster sums per metric index
    (`clustered_rate`); without them the intervals are Wilson's over the player-games."""
    row: dict = {"ruleset": ruleset, "agent": pairing[0], "opponent": pairing[1], key_name: key}
    n_eff: dict[str, float | None] = {}
    for i, m in enumerate(METRICS):
        n, w = counts.get(f"{m}_n", 0), counts.get(f"{m}_wins", 0)
        if clusters is not None:
            wr, ci, n_eff[m] = clustered_rate(w, n, clusters.get(i), min_n)
        else:
            wr, ci = rate(w, n, min_n)
        row.update({f"{m}_n": n, f"{m}_wins": w, f"{m}_wr": wr, f"{m}_ci": ci})
    a, b = row["in_hand_wr"], row["not_seen_wr"]
    row["iih"] = None if a is None or b is None else round(a - b, 4)
    offered = counts.get("offered", 0)
    picked = counts.get("pick_games" if constructed else "picked", 0)
    row["offered"] = offered
    row["picked"] = picked
    row["pick_rate"] = round(picked / offered, 4) if offered else None
    if constructed:
        games = counts.get("pick_games", 0)
        row["avg_pick"] = round(counts.get("pick_first_sum", 0) / games, 2) if games else None
    else:
        row["avg_pick"] = round(counts.get("pick_sum", 0) / picked, 2) if picked else None
    plays = counts.get("plays", 0)
    row["avg_turn_played"] = round(counts.get("play_turn_sum", 0) / plays, 2) if plays else None
    row["avg_turns_held"] = round(counts.get("held_sum", 0) / plays, 2) if plays else None
    row["interval"] = "wilson, clustered by game" if clusters is not None else "wilson"
    row["definitions_version"] = version
    row["_n_eff"] = n_eff  # a bucket's effective n per metric, for `score_p` (not written: not in CARD_KEYS)
    return row


def bucket_counts(groups, features_of) -> dict[str, dict]:
    """Sum the counts of card groups into feature buckets: ``groups`` is [(card, counts)],
    ``features_of(card)`` the buckets of a card; each bucket's `COUNT_FIELDS`, in the order the buckets first
    appear. (One numpy addition over every (group, bucket) pair: a constructed pairing has some ten thousand
    feature keys of about ten buckets each.)"""
    import numpy as np

    groups = list(groups)
    names: dict[str, int] = {}
    rows: list[int] = []
    at: list[int] = []
    for i, (card, _) in enumerate(groups):
        for feature in features_of(card):
            rows.append(i)
            at.append(names.setdefault(feature, len(names)))
    if not names:
        return {}
    counts = np.array([[c.get(k, 0) for k in COUNT_FIELDS] for _, c in groups], dtype=np.int64)
    out = np.zeros((len(names), len(COUNT_FIELDS)), dtype=np.int64)
    np.add.at(out, np.array(at, dtype=np.int64), counts[np.array(rows, dtype=np.int64)])
    return {name: dict(zip(COUNT_FIELDS, values)) for name, values in zip(names, out.tolist())}


def sort_key(metric: str):
    """Sort rows by a metric, highest first, rows without a value last."""
    def key(row):
        v = row.get(metric)
        return (v is None, -(v if isinstance(v, (int, float)) else 0))
    return key


__all__ = ["METRICS", "COUNT_FIELDS", "rate", "card_row", "bucket_counts", "diff_interval", "sort_key",
           "DEFAULT_MIN_N", "add_counts", "clustered_rate", "wilson_float", "iih_interval", "against_baseline",
           "TESTED", "score_p"]
