"""`locm tune --target cards` for constructed (LOCM 1.5): its cards are generated anew each game, so what is out
of balance is a *bucket* (the cards with a keyword) and what a change may set is the generator's weights: a
keyword's ``addCost`` in ``keywordProbabilities`` (the stat points a generated card gives up for the keyword:
more makes every card with it weaker, less stronger). The same steps as 1.2's cards (`locm.games.locm.tune`),
on buckets:

1. **Measure.** Each keyword bucket's causal value (`locm.games.locm.cardvalue`: every generated card with the
   keyword replaced by the vanilla creature of its cost, paired re-runs on the same seeds), on ``budget / 16``
   seeds; the band's centre is the median. An undecided bucket whose estimate lies more than half a band from
   the centre is measured again on twice the seeds, from at most two thirds of the budget (sequential).
2. **Search.** For each bucket outside the band, furthest first, with an equal share of the budget left: the
   keyword's ``addCost`` moved by 1, 2 or 3 up when too strong (by 1 to 4 down, not below 0, when too weak),
   its ``multCost`` (the factor on the card's stat budget) by 0.25 or 0.5 the other way, and, too strong, its
   ``weight`` halved (how often it is generated), raced paired against the current weights
   (`locm.games.locm.tune_measure.race`); the best kept (`choose`) and the bucket measured again; repeated while its
   estimate lies outside the band and the change budget lasts.

There is no screen: six buckets are measured, not a hundred and sixty cards."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import msgspec

from locm.analysis.tune import HIGH, LOW, OPEN, Objectives, centre_of, choose, verdict
from locm.engine.locm.rulesets import Rules
from locm.events.locm.cards import KEYWORD_NAMES
from locm.games.locm.tune_measure import TuneError, Tuner, _dict, race, seat_summary, tune_result

MAX_ROUNDS = 2
"""Mutation rounds per bucket."""


def _weights(rules: Rules) -> dict:
    from locm.engine.locm.cardgen import official_weights

    return msgspec.json.decode(rules.card_weights or official_weights())


def keyword_option(rules: Rules, keyword: str) -> dict:
    """The generator's ``keywordProbabilities`` entry of `keyword` under `rules`."""
    return next(o for o in _weights(rules)["keywordProbabilities"] if o["name"] == keyword)


def apply(rules: Rules, keyword: str, change: dict) -> Rules:
    """`rules` with the keyword's generator entry changed (``{"addCost": 2}``, ``{"weight": 0.5}``), named by
    its values."""
    from locm.engine.locm.variants import check_rules
    from locm.games.locm.tune_rules import _named

    weights = _weights(rules)
    weights["keywordProbabilities"] = [{**o, **change} if o["name"] == keyword else o
                                       for o in weights["keywordProbabilities"]]
    out = _named(rules.replace(card_weights=msgspec.json.encode(weights).decode()))
    check_rules(out, "tune")
    return out


def candidates(rules: Rules, keyword: str, weaken: bool) -> list[dict]:
    """The keyword's generator changes to try: ``addCost`` up (weaken) or down by 1, 2, 3 (not below 0), and,
    to weaken, its weight halved."""
    o = keyword_option(rules, keyword)
    add, mult = o["addCost"], o["multCost"]
    if weaken:
        out = [{"addCost": add + s} for s in (1, 2, 3)]
        out += [{"multCost": round(mult - s, 4)} for s in (0.25, 0.5) if mult - s > 0]
        return out + [{"weight": o["weight"] / 2}]
    out = [{"addCost": add - s} for s in (1, 2, 3, 4) if add - s >= 0]
    return out + [{"multCost": round(mult + s, 4)} for s in (0.25, 0.5) if mult + s <= 2]


def tune_buckets(db: Path, rules0: Rules, agents: tuple[str, str], budget: int, objectives: Objectives, seed: int,
                 workers: int, backend: str, address: str | None, progress: Callable[[str], None] | None) -> dict:
    """The steps of the module note: the evidence (as `locm.games.locm.tune.tune` gives it, the buckets under
    ``"cards"`` with their names as ``card``) with the tuned `Rules` under ``"rules"``."""
    from locm.games.locm.cardvalue import check_agents

    seeds = max(20, min(2000, budget // 16)) // 2 * 2
    check_agents(agents, seeds)
    if budget < 2 * seeds:
        raise TuneError(f"--budget {budget}: expected at least {2 * seeds} games (the base games and one re-run each)")
    t0 = time.perf_counter()
    ob = objectives
    tuner = Tuner(db, agents, ob, budget, seed, workers, backend, address, progress)
    tuner.say(f"playing {seeds} base games")
    _, seat_before = tuner.holders(rules0, seeds)
    measured: dict[str, dict] = {}
    for k in KEYWORD_NAMES:
        item = f"keyword: {k}"
        tuner.say(f"measuring {item}")
        est, _ = tuner.measure(rules0, item, seeds)
        measured[k] = {"card": item, "name": "(generated cards)", "role": "bucket", "seeds": seeds, "before": est}
    centre = centre_of(m["before"].value for m in measured.values())
    while True:  # sequential, as for 1.2's cards
        open_ = sorted((k for k, m in measured.items() if verdict(m["before"], centre, ob.band) == OPEN
                        and m["before"].value is not None and abs(m["before"].value - centre) > ob.band / 2
                        and m["seeds"] * 2 <= 8000),
                       key=lambda k: (-abs(measured[k]["before"].value - centre), k))
        done = 0
        for k in open_:
            n = measured[k]["seeds"] * 2
            if tuner.ledger.total + tuner.expect(rules0, measured[k]["card"], n) > budget * 2 // 3:
                continue
            tuner.say(f"measuring keyword: {k} again on {n} seeds")
            measured[k]["before"], _ = tuner.measure(rules0, measured[k]["card"], n)
            measured[k]["seeds"] = n
            done += 1
        if not done:
            break
        centre = centre_of(m["before"].value for m in measured.values())
    for m in measured.values():
        m["verdict_before"] = verdict(m["before"], centre, ob.band)
    rules, changes_made, steps = rules0, 0, []
    out_of_band = sorted((m for m in measured.values() if m["verdict_before"] in (HIGH, LOW)),
                         key=lambda m: -abs(m["before"].value - centre))
    for i, m in enumerate(out_of_band):
        item, n_b, est = m["card"], m["seeds"], m["before"]
        k = item.split(": ")[1]
        limit = tuner.ledger.total + (budget - tuner.ledger.total) // (len(out_of_band) - i)
        for _ in range(MAX_ROUNDS):
            if changes_made >= ob.max_changes or est.value is None or abs(est.value - centre) <= ob.band:
                break
            was = keyword_option(rules, k)
            options = [(c, apply(rules, k, c)) for c in candidates(rules, k, est.value > centre)]
            tried, raced = race(tuner, rules, item, options, n_b, est.value, centre, limit)
            best = choose([(c, d) for c, d, _ in tried], est.value, centre) if tried else None
            if best is None:
                break
            change, delta, cand = tried[best]
            n_w = next(r["seeds"] for r in raced if r["change"] == change)
            tuner.say(f"{item}: {change} predicted best; measuring it on the {n_w} seeds it was raced on")
            after, _ = tuner.measure(cand, item, n_w)
            if after.value is None or abs(after.value - centre) >= abs(est.value - centre):
                m["rejected"] = {"change": change, "value_after": _dict(after)}
                break
            steps.append({"card": item, "name": f"keyword {k} (generator)", "change": change,
                          "from": {f: was[f] for f in change}, "paired_delta": _dict(delta),
                          "value_before": _dict(est), "value_after": _dict(after), "candidates": raced,
                          "seeds": n_w})
            rules, est, changes_made = cand, after, changes_made + 1
        m["after"] = est
    for m in measured.values():
        m["remeasured"] = "after" in m and m["after"] is not m["before"]
        m.setdefault("after", m["before"])
        m["verdict_after"] = verdict(m["after"], centre, ob.band)
        m["found_at_games"] = None
    seat_after = tuner.holders(rules, seeds)[1] if rules is not rules0 else seat_before

    return tune_result(rules0, rules, agents, budget, seed, seeds, ob, centre, measured, steps, changes_made, tuner,
                       seat_summary(seat_before, ob.seat_margin), seat_summary(seat_after, ob.seat_margin), None,
                       time.perf_counter() - t0, "greedy local search with paired, raced evaluation over the "
                       "generator's keyword costs (after de Mesentier Silva et al. 2019, 'Evolving the Hearthstone Meta')")


__all__ = ["tune_buckets", "apply", "candidates", "keyword_option"]
