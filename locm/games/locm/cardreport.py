"""The card-balance report (issue 9): brings the card-facts projection up to date, then computes the metrics of
``data/ANALYTICS.md`` and writes ``cards.json``, ``cards.csv``, PNG charts and one self-contained
``index.html`` into a directory. `collect` gives the same numbers as data (for `locm cards stats`).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from locm.analysis.locm.cardfacts import DEFINITIONS_VERSION, FEATURE_ORDER, features_of_key
from locm.analysis.locm.cardmetrics import (DEFAULT_MIN_N, METRICS, TESTED, against_baseline, bucket_counts,
                                            card_row, sort_key)
from locm.analysis.stats import DEFAULT_FDR, wilson
from locm.engine.errors import LocmError
from locm.games.locm import facts_store as cs

RULESET_ORDER = ("1.2", "constructed")
CARD_KEYS = (["ruleset", "agent", "opponent", "base_id", "feature"]
             + [f"{m}_{k}" for m in METRICS for k in ("n", "wins", "wr", "ci")]
             + ["iih", "iih_ci", "offered", "picked", "pick_rate", "avg_pick", "avg_turn_played", "avg_turns_held"]
             + [f"{m}_{k}" for m, _, _ in TESTED for k in ("baseline", "centred", "p", "q", "significant")]
             + ["pairing_games", "pairing_win_rate", "pairing_ci", "lopsided", "interval", "definitions_version"])
from locm.analysis.locm.cardnotes import METRIC_NOTES, SELECTION_NOTE  # noqa: E402  (re-exported)
DEFAULT_MAX_IMBALANCE = 0.10
"""A pairing of two different agents is lopsided when one wins more than 50% + this of their games."""


class ReportError(LocmError):
    """A report cannot be made: no games to cover, or an output place that cannot be written."""


@dataclass
class Stratum:
    """The card rows of one pairing: the player-games of `agent` against `opponent` (the same agent twice:
    self-play, both seats)."""

    agent: str
    opponent: str
    player_games: int
    wins: int  # of `agent` in those player-games
    cards: list[dict]
    by_cost: list[tuple[str, int, int]]  # (cost bucket, in-hand n, wins)
    by_turn: list[tuple[int, int, int]]  # (own turn of first play, n, wins)
    features: dict[str, list[dict]] = field(default_factory=dict)  # constructed: family -> rows
    lopsided: bool = False
    same_decks: int = 0  # games of this pairing where both decks held the same cards
    baselines: dict = field(default_factory=dict)  # metric -> its baseline on these rows (`against_baseline`)

    @property
    def games(self) -> int:
        """The games of this pairing (self-play: each game gives two player-games)."""
        return self.player_games // 2 if self.selfplay else self.player_games

    @property
    def mirrored_decks(self) -> bool:
        """Most of the pairing's games had the same deck on both sides: a card's deck rate is about 50%
        whatever the card (both seats or neither hold it), and tells nothing."""
        return self.selfplay and self.games > 0 and self.same_decks > self.games / 2

    @property
    def selfplay(self) -> bool:
        return self.agent == self.opponent

    @property
    def label(self) -> str:
        return f"{self.agent} vs {self.opponent}" + (" (self-play)" if self.selfplay else "")


@dataclass
class RulesetData:
    """Everything the report shows for one ruleset: its card rows per pairing of agents (`strata`, the first
    the one the charts show) and its games."""

    ruleset: str
    strata: list[Stratum]
    games: list[dict]
    constructed: bool = False  # rows are feature buckets (constructed or a variant of it)

    @property
    def cards(self) -> list[dict]:
        return [r for s in self.strata for r in s.cards]

    @property
    def by_cost(self) -> list[tuple[str, int, int]]:
        return self.strata[0].by_cost

    @property
    def by_turn(self) -> list[tuple[int, int, int]]:
        return self.strata[0].by_turn

    @property
    def features(self) -> dict[str, list[dict]]:
        return self.strata[0].features


@dataclass
class ReportData:
    db: str
    version: str
    min_n: int
    filters: dict
    rulesets: dict[str, RulesetData]
    coverage: dict
    agents: dict[str, dict]  # ruleset -> {"agents": [...], "cells": {(a, b): (wins, n)}, "mirrored": (k, n)}
    comparison: dict | None
    max_imbalance: float = DEFAULT_MAX_IMBALANCE

    @property
    def lopsided(self) -> list[tuple[str, Stratum]]:
        """Every lopsided pairing, with its ruleset."""
        return [(rs, s) for rs, d in self.rulesets.items() for s in d.strata if s.lopsided]

    def seat_summary(self) -> dict[str, dict]:
        """Per ruleset, its games' summary (wins by seat, lengths, damage by source): what the charts and the
        page show beside the card rates."""
        return {rs: _summary(d.games) for rs, d in self.rulesets.items()}

    @property
    def mirrored(self) -> list[tuple[str, Stratum]]:
        """Every self-play pairing whose games mostly had the same deck on both sides."""
        return [(rs, s) for rs, d in self.rulesets.items() for s in d.strata if s.mirrored_decks]


def _cost_bucket(fkey: int) -> str:
    return features_of_key(fkey)[1].partition(": ")[2]


def collect(db_path: str | os.PathLike, *, ruleset: str | None = None, agent: str | None = None,
            seat: int | None = None, min_n: int = DEFAULT_MIN_N, refresh: bool = True, progress=None,
            on_start=None, opponent: str | None = None,
            max_imbalance: float = DEFAULT_MAX_IMBALANCE, include_untrusted: bool = False,
            rulesets: tuple[str, ...] | None = None, agents: tuple[str, ...] | None = None) -> ReportData:
    """Refresh the projection (unless ``refresh`` is False) and compute every number of the report: per
    ruleset, the card rows of each pairing of agents (`Stratum`; `agent` and `opponent` keep some), over the
    games the store may count (`locm.store.provenance`; every game with ``include_untrusted``). ``rulesets``
    keeps those of the store's rulesets, ``agents`` the games between those agents (the page's filters say
    so): `locm demo` reports its own tournaments, not the variants its card values re-ran nor its
    reinforcement-learning episodes."""
    path = str(db_path)
    check_request(path, ruleset)
    if refresh:
        cs.refresh(path, progress=progress, on_start=on_start, include_untrusted=include_untrusted)
    db = cs.connect(path, include_untrusted)
    try:
        stored = dict(db.execute("SELECT ruleset, count(*) FROM cardfacts_games GROUP BY ruleset").fetchall())
        names = [r for r in RULESET_ORDER if r in stored] + sorted(set(stored) - set(RULESET_ORDER))
        wanted = [ruleset] if ruleset else [r for r in names if rulesets is None or r in rulesets]
        out: dict[str, RulesetData] = {}
        for rs in wanted:
            games = cs.game_facts(db, rs, agent)
            if agents is not None:
                games = [g for g in games if set(g["agents"]) <= set(agents)]
            if not games:
                raise ReportError(f"{path} holds no {rs} games with agent {agent!r} that it may count"
                                  + ("" if include_untrusted else " (--include-untrusted: count every game)"))
            out[rs] = _ruleset_data(db, rs, agent, opponent, seat, min_n, games, max_imbalance)
        all_games = [g for d in out.values() for g in d.games]
        coverage = _coverage(all_games)
        coverage["left_out"] = _left_out(path, ruleset, include_untrusted)
        matrices = {rs: _agent_matrix(d.games) for rs, d in out.items()}
        comparison = _comparison(out["1.2"].games, out["constructed"].games) \
            if "1.2" in out and "constructed" in out else None
        return ReportData(path, cs.version(db) or DEFINITIONS_VERSION, min_n,
                          {"ruleset": ruleset or (", ".join(wanted) if rulesets is not None else None),
                           "agent": agent, "opponent": opponent, "seat": seat,
                           "agents": ", ".join(agents) if agents is not None else None}, out, coverage,
                          matrices, comparison, max_imbalance)
    finally:
        db.close()


def _left_out(path: str, ruleset: str | None, include_untrusted: bool) -> str | None:
    """The line saying how many of the store's LOCM games (of ``ruleset``) the report did not count, or counted
    only because of ``include_untrusted`` (`locm.store.provenance.left_out_note`); None when there are none."""
    from locm.store.eventstore import open_store
    from locm.store.provenance import left_out_note

    with open_store(path, create=False, readonly=True) as store:
        return left_out_note(store.left_out(game="locm", ruleset=ruleset), include_untrusted)


def check_request(path: str, ruleset: str | None) -> None:
    """Refuse a store without games, or without games of ``ruleset`` (`ReportError`), before any work."""
    db = cs.connect(path)
    try:
        stored = dict(db.execute("SELECT ruleset, count(*) FROM games GROUP BY ruleset").fetchall())
    finally:
        db.close()
    if not stored:
        raise ReportError(f"{path} holds no games: play some first, e.g. locm tournament --db {path} "
                          "--agents greedy random --games 100")
    if ruleset is not None and ruleset not in stored:
        have = ", ".join(f"{k}: {v}" for k, v in sorted(stored.items()))
        raise ReportError(f"{path} holds no {ruleset} games (it has {have})")


def _ruleset_data(db, rs: str, agent, opponent, seat, min_n: int, games: list[dict],
                  max_imbalance: float, fdr: float = DEFAULT_FDR) -> RulesetData:
    constructed = cs.is_constructed(db, rs)
    wins: dict[tuple[str, str], list[int]] = {}
    same: Counter = Counter()
    for g in games:
        a0, a1 = g["agents"]
        same[(a0, a1)] += g["same_decks"]
        if a0 != a1:
            same[(a1, a0)] += g["same_decks"]
        for s, pair in enumerate(((a0, a1), (a1, a0))):
            if seat is not None and s != seat:
                continue
            w = wins.setdefault(pair, [0, 0])
            w[0] += g["winner"] == s
            w[1] += 1
    strata = []
    for (a, o), (k, n) in wins.items():
        if (agent is not None and a != agent) or (opponent is not None and o != opponent):
            continue
        stratum = _stratum(db, rs, a, o, seat, min_n, constructed, k, n)
        stratum.lopsided = a != o and abs(k / n - 0.5) > max_imbalance
        stratum.same_decks = same[(a, o)]
        lo, hi = wilson(k, n)
        for row in stratum.cards:
            row.update(pairing_games=n, pairing_win_rate=round(k / n, 4), pairing_ci=[round(lo, 4), round(hi, 4)],
                       lopsided=stratum.lopsided)
        stratum.baselines = against_baseline(stratum.cards, fdr)
        for i, row in enumerate(stratum.cards):  # the keys in the order of CARD_KEYS (cards.json, cards.csv)
            stratum.cards[i] = {k: row[k] for k in CARD_KEYS if k in row}
        if constructed:  # the families' lists hold the same rows
            rows = {r["feature"]: r for r in stratum.cards}
            stratum.features = {f: [rows[r["feature"]] for r in fam] for f, fam in stratum.features.items()}
        strata.append(stratum)
    if not strata:
        raise ReportError(f"no {rs} player-games of agent {agent!r} against {opponent!r}")
    # self-play first, then the balanced pairings, the lopsided last; the most player-games first within each
    strata.sort(key=lambda s: (not s.selfplay, s.lopsided, -s.player_games, s.agent, s.opponent))
    return RulesetData(rs, strata, games, constructed)


def _stratum(db, rs: str, a: str, o: str, seat, min_n: int, constructed: bool, wins: int, n: int) -> Stratum:
    if constructed:
        buckets = cs.bucket_groups(db, rs, a, seat, opponent=o)
        by_cost = {f.partition(": ")[2]: c for f, c in buckets.items() if f.startswith("cost: ")}
    else:
        groups = cs.card_groups(db, rs, a, seat, opponent=o)
        by_cost = bucket_counts(groups, lambda key: (_cost_bucket(key[1]),))
    cost_rows = [(c, v["in_hand_n"], v["in_hand_wins"]) for c, v in
                 sorted(by_cost.items(), key=lambda kv: FEATURE_ORDER.index("cost: " + kv[0]))]
    features: dict[str, list[dict]] = {}
    offered = cs.offered_counts(db, rs, a, seat, opponent=o)
    if constructed:
        clusters = cs.bucket_clusters(db, rs, a, seat, opponent=o)
        rows = []
        for feature, counts in buckets.items():
            counts["offered"] = offered.get(feature, 0)
            code = FEATURE_ORDER.index(feature) if feature in FEATURE_ORDER else -1
            per_metric = {m: clusters[(code, m)] for m in range(len(METRICS)) if (code, m) in clusters}
            rows.append(card_row(rs, "feature", feature, counts, min_n, DEFINITIONS_VERSION, constructed, (a, o),
                                 per_metric))
        for family in ("type", "cost", "keyword", "area", "draw", "health", "efficiency"):
            fam = [r for r in rows if r["feature"].startswith(family + ":")]
            features[family] = sorted(fam, key=lambda r: _feature_order(r["feature"]))
        rows.sort(key=lambda r: _feature_order(r["feature"]))
    else:
        rows = []
        for key, counts in groups:
            counts = dict(counts, offered=offered.get(str(key[0]), 0))
            rows.append(card_row(rs, "base_id", key[0], counts, min_n, DEFINITIONS_VERSION, constructed, (a, o)))
        rows.sort(key=lambda r: r["base_id"])
    turns = cs.turn_groups(db, rs, a, seat, opponent=o)
    return Stratum(a, o, n, wins, rows, cost_rows, turns, features)


def _feature_order(feature: str):
    return (FEATURE_ORDER.index(feature) if feature in FEATURE_ORDER else len(FEATURE_ORDER), feature)


def _coverage(games: list[dict]) -> dict:
    seeds = sorted({g["seed"] for g in games if g["seed"] is not None})
    return {
        "games": len(games),
        "rulesets": dict(sorted(Counter(g["ruleset"] for g in games).items())),
        "agents": dict(sorted(Counter(a for g in games for a in g["agents"]).items())),
        "seeds": {"count": len(seeds), "min": seeds[0] if seeds else None, "max": seeds[-1] if seeds else None},
        "facts": {"stored": sum(1 for g in games if g.get("stored")),
                  "from_events": sum(1 for g in games if not g.get("stored"))},
    }


def _agent_matrix(games: list[dict]) -> dict:
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    seatings = Counter()
    for g in games:
        a0, a1 = g["agents"]
        seatings[(g["seed"], a0, a1)] += 1
        if a0 == a1:
            continue
        for s, (me, other) in enumerate(((a0, a1), (a1, a0))):
            c = cells[(me, other)]
            c[0] += g["winner"] == s
            c[1] += 1
    pairs = {(s, a, b) for (s, a, b) in seatings if a != b}
    mirrored = sum(1 for (s, a, b) in pairs if (s, b, a) in pairs)
    agents = sorted({a for g in games for a in g["agents"]})
    return {"agents": agents, "cells": {k: tuple(v) for k, v in cells.items()}, "mirrored": (mirrored, len(pairs))}


def _summary(games: list[dict]) -> dict:
    n = len(games)
    damage = Counter()
    for g in games:
        damage.update(g["damage"])
    return {"games": n, "seat0_wins": sum(g["winner"] == 0 for g in games),
            "turns": [g["turns"] for g in games], "damage": dict(damage),
            "drain": sum(g["drain"] for g in games)}


def _comparison(g12: list[dict], g15: list[dict]) -> dict | None:
    """The games played by the same agents on the same seeds (and seats) under both rulesets, side by side."""
    k12 = {(g["seed"], *g["agents"]): g for g in g12}
    k15 = {(g["seed"], *g["agents"]): g for g in g15}
    common = sorted(set(k12) & set(k15), key=str)
    if not common:
        return None
    left, right = [k12[k] for k in common], [k15[k] for k in common]
    return {"keys": len(common), "1.2": {**_summary(left), "matrix": _agent_matrix(left)},
            "constructed": {**_summary(right), "matrix": _agent_matrix(right)}}


def seat_summary(data: ReportData) -> dict[str, dict]:
    return data.seat_summary()


# --- writing ----------------------------------------------------------------------------------------------


def all_rows(data: ReportData) -> list[dict]:
    return [r for d in data.rulesets.values() for r in d.cards]


def cards_json(data: ReportData) -> str:
    return json.dumps(all_rows(data), indent=1) + "\n"


CSV_KEYS = [c for k in CARD_KEYS for c in ((f"{k}_lo", f"{k}_hi") if k.endswith("_ci") else (k,))]


def cards_csv(data: ReportData) -> str:
    """The rows of cards.json as CSV: the same keys, except that each ``M_ci`` is two columns ``M_ci_lo`` and
    ``M_ci_hi``; an empty cell is a null (not enough data, or not applicable)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_KEYS)
    for r in all_rows(data):
        cells = []
        for k in CARD_KEYS:
            v = r.get(k)
            if k.endswith("_ci"):
                cells += ["", ""] if v is None else v
            else:
                cells.append("" if v is None else v)
        w.writerow(cells)
    return buf.getvalue()


def prepare_dir(out: str | os.PathLike) -> Path:
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: is a file, expected a directory for the report")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{out}: cannot create the report directory: {exc.strerror or exc}") from None
    return out


def write_report(data: ReportData, out: str | os.PathLike) -> Path:
    """Write cards.json, cards.csv, the charts and index.html into ``out``; returns index.html's path."""
    from locm.analysis.locm.cardcharts import draw_all
    from locm.analysis.locm.cardhtml import render

    from locm.errors import OutputError
    from locm.common.outputs import output_dir

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: is a file, expected a directory for the report")
    try:
        with output_dir(out) as stage:  # every file written, then moved in: a report complete or absent
            (stage / "cards.json").write_text(cards_json(data), encoding="utf-8")
            (stage / "cards.csv").write_text(cards_csv(data), encoding="utf-8")
            charts = draw_all(data, stage)
            (stage / "index.html").write_text(render(data, charts), encoding="utf-8")
    except OutputError as exc:
        raise ReportError(f"{out}: cannot write the report: {str(exc).rpartition(': ')[2]}") from None
    return out / "index.html"


def top_rows(data: ReportData, metric: str, top: int | None, with_value: bool = False):
    """The rows sorted by ``metric``, highest first, the first ``top``. ``with_value``: only the rows that have
    a value of it, and how many were left out: ``(rows, left out)``."""
    rows = sorted(all_rows(data), key=sort_key(metric))
    if with_value:
        kept = [r for r in rows if r.get(metric) is not None]
        return (kept if top is None else kept[:top]), len(rows) - len(kept)
    return rows if top is None else rows[:top]


__all__ = ["collect", "write_report", "ReportData", "ReportError", "cards_json", "cards_csv", "seat_summary",
           "top_rows", "CARD_KEYS", "SELECTION_NOTE", "METRIC_NOTES", "Stratum", "wilson", "DEFAULT_MAX_IMBALANCE"]
