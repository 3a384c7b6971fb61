"""The false-discovery check of the starring tools over real games (issue 34, item 1: "the report stars none of
the untouched cards more often than its stated false-discovery rate over repeated seeds").

A star is only checkable where the truth is known, so the games are played in 1.2 worlds built for it, by the
real engine and agents:

- ``uniform`` (A): every one of the 160 cards is the same vanilla creature (cost 2, 3/3, no keyword, no
  effect). No card can matter: which card a player holds is exchangeable with any other.
- ``nochange`` (B of test a): ``uniform`` with a rule moved for every card alike (start health 29) and each
  card's text changed (text plays no part; it makes each card a row of ``locm cardvalue --baseline``). The
  games diverge, so the paired tools have noise to star, yet no card can gain more than another: every star is
  false.
- ``planted`` (B of test b): ``nochange`` with card `PLANTED` made far too strong (cost 0, 12/12, every
  keyword, 99 damage to the opponent when summoned: its summoner wins). Its row is a true discovery; a star on any other card is
  false.

One repetition (`repetition`) plays ``games`` self-play games of ``uniform`` on its own seed block, re-runs them
under ``nochange`` and ``planted``, and counts each tool's stars:

- ``report`` (`locm report`, `locm.games.locm.cardreport.collect`): the card rows of the ``uniform`` games (a)
  and of the ``planted`` re-runs (b), in-hand WR and IIH against their baseline (BH over both metrics' tests);
- ``whatif`` (`locm whatif`): the card and bucket rows paired by seed, ``uniform`` against each B;
- ``cardvalue`` (`locm cardvalue --baseline B.toml`): one row per card B changes (every card: its text), each
  re-run under the whole of B (B moves a rule, which is no card's), A - B.

For each (tool, test) it gives the stars, the false ones and the false-discovery proportion V / max(R, 1),
and whether the planted card was starred. `summarise` turns repetitions into the realised FDR (mean FDP) and
the family-wise rate (the share of repetitions with a false star). Run it with `benchmarks/bench_fdr.py`;
`tests/test_fdr_repeated.py` runs a small one in the suite.

`locm cardvalue`'s default use (each card against a vanilla creature, one re-run per card with only that card
changed) is not in the check: in these worlds an untouched card is its own baseline, so its row has no re-run
and no star, and in the real 1.2 list every card differs from vanilla, so no star there is known false.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.rulesets import Rules
from locm.engine.locm.variants import variant_from_dict

PLANTED = 42
"""The card the ``planted`` world makes far too strong."""
AGENTS = ("random", "random")
"""The default agents: random self-play plays fastest and drafts every card alike (greedy drafts by score, and
with 160 equal cards both seats take the same one: mirrored decks leave no holder)."""
UNIFORM_CARD = {"type": "creature", "cost": 2, "attack": 3, "defense": 3, "keywords": "------", "my_health": 0,
                "opp_health": 0, "draw": 0, "area": "target", "text": "vanilla"}
"""Every card of ``uniform``: the vanilla creature of cost 2 (`locm.games.locm.cardvalue_targets.vanilla_card`)."""
STRONG = {"cost": 0, "attack": 12, "defense": 12, "keywords": "BCDGLW", "opp_health": -99, "my_health": 10}
TOOLS = ("report", "whatif", "cardvalue")
TESTS = ("nochange", "planted")


def worlds() -> dict[str, Rules]:
    """The three rulesets of the module note, by name: ``uniform``, ``nochange``, ``planted``."""
    ids = sorted(cardlist_12())
    uniform = {str(b): dict(UNIFORM_CARD) for b in ids}
    moved = {str(b): dict(UNIFORM_CARD, text="vanilla, text changed") for b in ids}
    strong = dict(moved, **{str(PLANTED): dict(UNIFORM_CARD, **STRONG, text="planted")})
    return {"uniform": variant_from_dict({"base": "1.2", "name": "fdr-uniform", "cards": uniform}),
            "nochange": variant_from_dict({"base": "1.2", "name": "fdr-nochange", "start_health": 29,
                                           "cards": moved}),
            "planted": variant_from_dict({"base": "1.2", "name": "fdr-planted", "start_health": 29,
                                          "cards": strong})}


@dataclass
class Count:
    """One tool's stars in one test of one repetition."""

    tested: int = 0  # rows (report: row and metric pairs) with a p-value
    stars: int = 0
    false: int = 0
    planted: bool | None = None  # the planted card starred (test b), None in test a
    raw: int = 0  # rows whose own interval excludes the baseline (what an uncorrected report stars)
    false_keys: list = field(default_factory=list)

    @property
    def fdp(self) -> float:
        return self.false / max(self.stars, 1)


def _is_planted(key) -> bool:
    return key == PLANTED or (isinstance(key, str) and key.startswith(f"{PLANTED} "))


def _count(rows: list[tuple[object, bool, bool, bool]], planted_true: bool) -> Count:
    """``rows``: (key, tested, starred, interval excludes the baseline)."""
    c = Count(planted=False if planted_true else None)
    for key, tested, starred, raw in rows:
        c.tested += tested
        c.raw += raw
        if starred:
            c.stars += 1
            if planted_true and _is_planted(key):
                c.planted = True
            else:
                c.false += 1
                c.false_keys.append(key)
    return c


def report_rows(db: Path, ruleset: str, min_n: int) -> list[tuple]:
    """The card report's (card, metric) rows of ``ruleset``'s games in ``db``."""
    from locm.games.locm.cardreport import collect

    data = collect(db, ruleset=ruleset, min_n=min_n)
    out = []
    for r in data.rulesets[ruleset].cards:
        for m in ("in_hand", "iih"):
            ci, base = r[f"{m}_ci"], r[f"{m}_baseline"]
            raw = ci is not None and base is not None and not ci[0] <= base <= ci[1]
            out.append((r["base_id"], r[f"{m}_p"] is not None, bool(r[f"{m}_significant"]), raw))
    return out


def whatif_rows(store, rules_a: Rules, rules_b: Rules, min_n: int, workers: int) -> list[tuple]:
    from locm.engine import registry
    from locm.tournament.whatif import whatif

    result = whatif(store, registry.get("locm"), rules_b, rules_a, workers=workers)
    rows = result.summary(min_n=min_n)["paired_by_seed"]
    return [(r["key"], r["q"] is not None, r["significant"], r["excludes_zero"]) for r in rows]


def cardvalue_rows(db: Path, rules_a: Rules, rules_b: Rules, agents: tuple[str, str], games: int, seed: int,
                   workers: int, min_n: int) -> list[tuple]:
    from locm.games.locm.cardvalue import cardvalue, variant_targets

    targets, variants = variant_targets(rules_a, rules_b, (), rules_b.name)
    run = cardvalue(db, rules_a, agents, targets, variants, games, seed, workers)
    rows = [r for r in run.summary()["cards"] if r["units"] >= min_n]
    from locm.analysis.paired import mark_discoveries

    mark_discoveries(rows)  # over the rows shown (at least min_n holders), as whatif marks its own
    return [(int(r["card"].split()[0]), r["q"] is not None, r["significant"], r["excludes_zero"]) for r in rows]


def repetition(folder: Path, index: int, games: int, agents: tuple[str, str] = AGENTS, min_n: int = 20,
               workers: int = 1, tools: tuple[str, ...] = TOOLS) -> dict[str, dict[str, Count]]:
    """Repetition ``index`` (seeds ``1 + index * games`` onwards, a block no other repetition uses): play (or
    read back from ``folder/rep{index}.db``) the games and count every tool's stars, ``{tool: {test: Count}}``."""
    from locm.games.locm.tournament import run_tournament
    from locm.store.eventstore import open_store

    w = worlds()
    seed = 1 + index * games
    db = Path(folder) / f"rep{index}.db"
    with open_store(db) as store:
        tr = run_tournament(store, w["uniform"], list(agents), games, seed=seed, workers=workers)
        if tr.failed:
            raise RuntimeError(f"game {tr.failed[0][0]} failed: {tr.failed[0][1]}")
    out: dict[str, dict[str, Count]] = {t: {} for t in tools}
    for test in TESTS:
        b = w[test]
        planted_true = test == "planted"
        if "whatif" in tools or "report" in tools:
            with open_store(db) as store:
                rows = whatif_rows(store, w["uniform"], b, min_n, workers)
            if "whatif" in tools:
                out["whatif"][test] = _count(rows, planted_true)
        if "report" in tools:
            games_of = w["uniform"] if test == "nochange" else b  # (a): no card matters in A's games already
            out["report"][test] = _count(report_rows(db, games_of.name, min_n), planted_true)
        if "cardvalue" in tools:
            out["cardvalue"][test] = _count(cardvalue_rows(db, w["uniform"], b, agents, games, seed, workers,
                                                           min_n), planted_true)
    return out


def summarise(reps: list[dict[str, dict[str, Count]]], fdr: float) -> dict:
    """Per tool and test over the repetitions: the realised FDR (mean FDP), the family-wise rate (share of
    repetitions with a false star), the mean stars and false stars, how often the planted card was starred,
    and the stated rate."""
    out: dict = {}
    for tool in reps[0]:
        for test in reps[0][tool]:
            cs = [r[tool][test] for r in reps]
            n = len(cs)
            out.setdefault(tool, {})[test] = {
                "repetitions": n, "stated_fdr": fdr,
                "realised_fdr": round(sum(c.fdp for c in cs) / n, 4),
                "familywise": round(sum(c.false > 0 for c in cs) / n, 4),
                "mean_tested": round(sum(c.tested for c in cs) / n, 1),
                "mean_stars": round(sum(c.stars for c in cs) / n, 2),
                "mean_false": round(sum(c.false for c in cs) / n, 2),
                "mean_uncorrected": round(sum(c.raw for c in cs) / n, 2),
                "planted_starred": None if cs[0].planted is None else round(sum(bool(c.planted) for c in cs) / n, 4),
                "false_keys": [k for c in cs for k in c.false_keys][:20]}
    return out


__all__ = ["PLANTED", "AGENTS", "TOOLS", "TESTS", "worlds", "Count", "repetition", "summarise", "report_rows",
           "whatif_rows", "cardvalue_rows"]
