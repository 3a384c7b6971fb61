"""`locm tune` for LOCM 1.2: find the cards out of balance and search card changes that bring them back, by
the greedy local search with paired evaluation of `locm.analysis.tune` (its note names the method's source).

The steps, every one on the same seeds, seats and agents (paired), every game stored as the tools store them
(base games as `locm tournament` stores them, re-runs as `locm cardvalue` does), so that a second run with
the same arguments reads them back and plays none again:

1. **Screen.** The base games of the ruleset (``seeds`` = ``budget / 16`` seeds). Each card's holders (the
   seat whose deck held more copies, `locm.games.locm.whatif.advantage`) and their win rate; the `SUSPECTS`
   cards whose holders' win rate lies furthest above and below 50% (a z-score, the two tails in turn, at least
   `MIN_HOLDERS` holders) are suspects, and the `REFERENCES` cards held most often are references. This is
   observational (an agent's choices bias it): it only chooses what to measure.
2. **Measure.** The causal value of every suspect and reference (`locm.games.locm.cardvalue`: the card
   replaced by the vanilla creature of its cost, paired re-runs). The band's centre is the median of these
   values. Sequential: an undecided card whose estimate lies more than half a band from the centre is
   measured again on twice its seeds, the furthest first, while the games each is expected to cost
   (`Tuner.expect`) fit in two thirds of the budget (games go where they decide; in all of it when none is
   decided out of band by then, as the search would have nothing to change). Half a band, not the band:
   a far-too-weak card's holders seldom play it, so on few seeds its estimate often lies just inside the band
   with an interval reaching far out of it, and a rule that waited for the estimate to leave the band never
   measured it again.
3. **Search.** For each card decided outside the band, furthest first, with an equal share of the budget left:
   single-field mutations (`candidates`: cost, attack, defense, a health effect, the field of the largest
   magnitude first; a keyword removed or, for a weak creature, added), raced (`race`: successive halving, each
   paired against the current ruleset, the holders' win rate with the card as it is minus with the mutation),
   the best kept (`choose`) and the card measured again under the changed ruleset on the seeds its race gave
   it; repeated while its estimate lies outside the band and the change budget (``max_changes`` fields) lasts.
4. **Seat.** The first player's win rate in the base games before and after, against 50% +- the margin;
   when it lies wholly outside, the seat search over rule settings (`locm.games.locm.tune_rules`) with the
   budget left.

``target`` chooses the steps: ``cards`` (1 to 3), ``seat`` (4 alone, on the ruleset as given) or ``all``.
Constructed's cards are generated per game: ``cards`` tunes its keyword buckets by the generator's keyword
costs (`locm.games.locm.tune_buckets`), ``seat`` and ``all`` its seat (rule settings and the generator's type
weights).
"""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path
from typing import Callable

import msgspec

from locm.analysis.stats import wilson
from locm.analysis.tune import HIGH, LOW, OPEN, Field, Objectives, centre_of, choose, mutations, seat_verdict, verdict
from locm.engine.locm.carddata import cardlist_12
from locm.engine.locm.rulesets import DRAFT, Rules, rules_hash
from locm.events.locm.cards import CREATURE, GREEN, KEYWORD_LETTERS, KEYWORD_NAMES, Card, keywords_to_str
from locm.games.locm.tune_measure import Ledger, TuneError, Tuner, _dict, race, seat_summary, tune_result

SUSPECTS = 4
"""Cards the screen sends to causal measurement for their holders' win rate."""
REFERENCES = 4
"""Cards held most often, measured too, so that the band's centre (the median) is not the suspects' alone."""
MIN_HOLDERS = 10
"""The fewest holders a card needs in the base games to be a suspect."""
MAX_ROUNDS = 3
"""Mutation rounds per card."""
LAMBDA = 8
"""Candidates raced per round (the largest numeric steps and the keyword changes, interleaved)."""


def screen(counts: dict[int, list[int]], suspects: int = SUSPECTS, references: int = REFERENCES
           ) -> tuple[list[int], list[int]]:
    """The suspects (holders' win rate furthest above and below 50% by z-score, the two tails in turn) and the
    references (held most)."""
    def signed(b: int) -> float:
        n, k = counts[b]
        return (k - n / 2) / math.sqrt(n / 4)

    able = [b for b in counts if counts[b][0] >= MIN_HOLDERS]
    # both tails: the cards whose holders win most and those whose holders win least, in turn (one far-too-strong
    # card's z dwarfs a weak card's, and a |z| ranking would fill every place with noise on the strong side)
    high = sorted(able, key=lambda b: (-signed(b), b))
    low = sorted(able, key=lambda b: (signed(b), b))
    chosen: list[int] = []
    for pair in zip(high, low):
        for b in pair:
            if b not in chosen and len(chosen) < suspects:
                chosen.append(b)
    refs = [b for b in sorted(counts, key=lambda b: (-counts[b][0], b)) if b not in chosen][:references]
    return chosen, refs


def card_fields(c: Card, weaken: bool) -> list[Field]:
    """The numeric fields a mutation may set on a card, each with its bounds and the sign of stronger."""
    out = [Field("cost", c.cost, 0, 12, -1)]
    if c.type in (CREATURE, GREEN):
        out += [Field("attack", c.attack, 0, 12, 1), Field("defense", c.defense, 1 if c.type == CREATURE else 0, 12, 1)]
    elif c.attack or c.defense:  # red and blue items: their negative values are damage
        out += [Field(f, getattr(c, f), -12, 0, -1) for f in ("attack", "defense") if getattr(c, f)]
    # a health effect the card has (a summon or use that heals or hurts a player): more health for its player is
    # stronger, more for the opponent weaker
    out += [Field(f, getattr(c, f), -99, 99, sign) for f, sign in (("my_health", 1), ("opp_health", -1))
            if getattr(c, f)]
    return out


def candidates(c: Card, weaken: bool, distance: float) -> list[dict]:
    """Changes to try on a card: numeric mutations, and a keyword removed (weaken) or added (a creature made
    stronger); each ``{field: value}`` in the variant file's terms (keywords as letters)."""
    by_field: dict[str, list[dict]] = {}
    for m in mutations(card_fields(c, weaken), weaken, distance):
        by_field.setdefault(next(iter(m)), []).append(m)
    # each field's largest step first, fields in turn, the field of the largest magnitude first (a card's largest
    # number, e.g. a 12 attack or a 30-health summon effect, is the likeliest to be out of line)
    order = sorted(by_field, key=lambda f: -abs(getattr(c, f)))
    levels = [by_field[f][::-1] for f in order]
    numeric = [lv[i] for i in range(max(map(len, levels), default=0)) for lv in levels if i < len(lv)]
    keywords: list[dict] = []
    letters = keywords_to_str(c.keywords)
    for i, name in enumerate(KEYWORD_NAMES):
        has = letters[i] != "-"
        if has == weaken and (weaken or c.type == CREATURE):
            new = letters[:i] + ("-" if has else KEYWORD_LETTERS[i]) + letters[i + 1:]
            keywords.append({"keywords": new})
    out = [x for pair in zip(numeric, keywords) for x in pair]
    rest = numeric[len(keywords):] + keywords[len(numeric):]
    return (out + rest)[:LAMBDA]


def apply(rules: Rules, card: int, changes: dict) -> Rules:
    """`rules` with the card's fields changed, named by its values (``tune-<hash>``)."""
    from locm.engine.locm.variants import check_rules
    from locm.events.locm.cards import keywords_from_str

    current = {**cardlist_12(), **{c.base_id: c for c in rules.cards}}[card]
    values = {k: (keywords_from_str(v) if k == "keywords" else v) for k, v in changes.items()}
    new = msgspec.structs.replace(current, **values)
    cards = tuple(sorted([c for c in rules.cards if c.base_id != card] + [new], key=lambda c: c.base_id))
    draft = rules.replace(cards=cards)
    name = f"tune-{rules_hash(draft)[:12]}"
    out = draft.replace(name=name, base=rules.base_name)
    check_rules(out, "tune")
    return out


def tune(db: Path, rules0: Rules, agents: tuple[str, str], budget: int, objectives: Objectives = Objectives(),
         seed: int = 1, workers: int = 1, backend: str = "local", address: str | None = None,
         progress: Callable[[str], None] | None = None, suspects: int = SUSPECTS, references: int = REFERENCES,
         target: str = "all") -> dict:
    """Run the steps of the module note; the evidence as a dict (`locm.games.locm.tune_page` writes it) with
    the tuned `Rules` under ``"rules"``."""
    from locm.games.locm.cardvalue import check_agents

    if rules0.card_weights and "cardChanges" in msgspec.json.decode(rules0.card_weights):
        raise TuneError(f"--ruleset {rules0.name}: a variant with [[generated]] card changes is not tuned by this "
                        "version")
    if rules0.deck_building != DRAFT and target == "cards":  # generated cards: keyword buckets, generator costs
        from locm.games.locm.tune_buckets import tune_buckets

        return tune_buckets(db, rules0, agents, budget, objectives, seed, workers, backend, address, progress)
    if target == "seat" or rules0.deck_building != DRAFT:
        return seat_only(db, rules0, agents, budget, objectives, seed, workers, backend, address, progress)
    seeds = max(20, min(2000, budget // 16)) // 2 * 2
    check_agents(agents, seeds)
    if budget < 2 * seeds:
        raise TuneError(f"--budget {budget}: expected at least {2 * seeds} games (the base games and one re-run each)")
    t0 = time.perf_counter()
    tuner = Tuner(db, agents, objectives, budget, seed, workers, backend, address, progress)
    ob = objectives
    tuner.say(f"screening {seeds} base games")
    counts, seat_before = tuner.holders(rules0, seeds)
    suspects, refs = screen(counts, suspects, references)
    cards = cardlist_12() | {c.base_id: c for c in rules0.cards}
    measured: dict[int, dict] = {}
    for b in suspects + refs:
        tuner.say(f"measuring card {b} {cards[b].name}")
        est, _ = tuner.measure(rules0, b, seeds)
        measured[b] = {"card": b, "name": cards[b].name, "role": "suspect" if b in suspects else "reference",
                       "screen_holders": counts[b][0], "screen_holders_won": counts[b][1], "seeds": seeds,
                       "before": est}
    centre = centre_of(m["before"].value for m in measured.values())

    def found() -> None:  # the games used when a card's verdict was first decided out of band
        for m in measured.values():
            if "found_at_games" not in m and verdict(m["before"], centre, ob.band) in (HIGH, LOW):
                m["found_at_games"] = tuner.ledger.total

    found()
    refine = budget * 2 // 3  # the rest is the search's
    while True:
        # sequential: an undecided card whose estimate lies more than half a band from the centre gets twice
        # its seeds, the furthest first, each while the games it is expected to cost (`Tuner.expect`) fit. Not
        # only estimates outside the band: a card far out of band is often estimated just inside it on few
        # seeds (a weak card's holders seldom play it), and a rule that waits for its estimate to leave the band
        # never measures it again
        open_ = sorted((b for b, m in measured.items() if verdict(m["before"], centre, ob.band) == OPEN
                        and m["before"].value is not None and abs(m["before"].value - centre) > ob.band / 2
                        and m["seeds"] * 2 <= 8000),
                       key=lambda b: (-abs(measured[b]["before"].value - centre), b))
        done = 0
        for b in open_:
            n = measured[b]["seeds"] * 2
            if tuner.ledger.total + tuner.expect(rules0, b, n) > refine:
                continue
            tuner.say(f"measuring card {b} again on {n} seeds")
            measured[b]["before"], _ = tuner.measure(rules0, b, n)
            measured[b]["seeds"] = n
            done += 1
        if not done and refine < budget and not any(verdict(m["before"], centre, ob.band) in (HIGH, LOW)
                                                    for m in measured.values()):
            refine = budget  # nothing is decided out of band, so the search's third goes to deciding
            continue
        if not done:
            break
        centre = centre_of(m["before"].value for m in measured.values())
        found()
    for m in measured.values():
        m.setdefault("found_at_games", None)
        m["verdict_before"] = verdict(m["before"], centre, ob.band)

    rules, changes_made, steps = rules0, 0, []
    out_of_band = sorted((m for m in measured.values() if m["verdict_before"] in (HIGH, LOW)),
                         key=lambda m: -abs(m["before"].value - centre))
    for k, m in enumerate(out_of_band):
        b, n_b, est = m["card"], m["seeds"], m["before"]
        # each card out of band gets an equal share of the budget left (the furthest is not allowed all of it)
        limit = tuner.ledger.total + (budget - tuner.ledger.total) // (len(out_of_band) - k)
        for _ in range(MAX_ROUNDS):
            # on while its estimate lies outside the band (a change that brought it closer but not in is built on)
            if changes_made >= ob.max_changes or est.value is None or abs(est.value - centre) <= ob.band:
                break
            weaken = est.value > centre
            card_now = {**cardlist_12(), **{c.base_id: c for c in rules.cards}}[b]
            options = [(change, apply(rules, b, change))
                       for change in candidates(card_now, weaken, abs(est.value - centre) / ob.band)]
            tried, raced = race(tuner, rules, b, options, n_b, est.value, centre, limit)
            if not tried:
                break
            best = choose([(c, d) for c, d, _ in tried], est.value, centre)
            if best is None:
                break
            change, delta, cand = tried[best]
            n_w = delta.units and next(r["seeds"] for r in raced if r["change"] == change)
            tuner.say(f"card {b}: {change} predicted best; measuring it on the {n_w} seeds it was raced on")
            after, _ = tuner.measure(cand, b, n_w)
            if after.value is None or abs(after.value - centre) >= abs(est.value - centre):
                m["rejected"] = {"change": change, "value_after": _dict(after)}  # measured, it did not help
                break
            steps.append({"card": b, "name": card_now.name, "change": change,
                          "from": {k: (keywords_to_str(card_now.keywords) if k == "keywords" else getattr(card_now, k))
                                   for k in change},
                          "paired_delta": _dict(delta), "value_before": _dict(est), "value_after": _dict(after),
                          "candidates": raced, "seeds": n_w})
            rules, est, changes_made = cand, after, changes_made + len(change)
        m["after"] = est
    for m in measured.values():
        m["remeasured"] = "after" in m and m["after"] is not m["before"]
        m.setdefault("after", m["before"])
        m["verdict_after"] = verdict(m["after"], centre, ob.band)
    seat_after = seat_before
    if rules is not rules0:
        _, seat_after = tuner.holders(rules, seeds)
    searched = None
    lo, hi = wilson(*seat_after)
    if target == "all" and seat_verdict(*seat_after, lo, hi, ob.seat_margin) in (HIGH, LOW) and \
            budget - tuner.ledger.total >= 40:
        from locm.games.locm.tune_rules import seat_step

        tuner.say("the first player's rate lies outside the margin: racing rule settings")
        try:
            rules, searched, played = seat_step(db, rules, agents, budget - tuner.ledger.total, ob, seed, workers,
                                                backend, address, progress)
        except ValueError:  # the budget left cannot pay for the seat's base measurement
            searched, played = None, 0
        if searched is not None:
            tuner.ledger.add(("seat search",), searched["games_used"], played)

    after = seat_row(searched["after"], agents) if searched and searched["changes"] else \
        seat_summary(seat_after, ob.seat_margin)
    return tune_result(rules0, rules, agents, budget, seed, seeds, ob, centre, measured, steps, changes_made, tuner,
                       seat_summary(seat_before, ob.seat_margin), after, searched, time.perf_counter() - t0,
                       "greedy local search with paired evaluation (after de Mesentier Silva et al. 2019, "
                       "'Evolving the Hearthstone Meta')")


def seat_row(e: dict, agents: tuple[str, str]) -> dict:
    """The page's seat row (wins of games) of a seat search's rate (`locm.analysis.tune.seat_search`)."""
    games = e["units"] * (1 if agents[0] == agents[1] else 2)
    return {"wins": round(e["value"] * games), "games": games, "rate": e["value"], "low": e["low"],
            "high": e["high"], "verdict": e["verdict"]}


def seat_only(db: Path, rules0: Rules, agents: tuple[str, str], budget: int, objectives: Objectives, seed: int,
              workers: int, backend: str, address: str | None, progress: Callable[[str], None] | None) -> dict:
    """Step 4 alone (``target="seat"``, and constructed): the seat search on the ruleset as given."""
    from locm.games.locm.cardvalue import check_agents
    from locm.games.locm.tune_rules import seat_step

    check_agents(agents, 2)
    t0 = time.perf_counter()
    try:
        rules, found, played = seat_step(db, rules0, agents, budget, objectives, seed, workers, backend, address,
                                         progress)
    except ValueError as exc:
        raise TuneError(str(exc)) from None

    ob = objectives
    return {"ruleset": rules0.name, "base": rules0.base_name, "agents": list(agents), "budget": budget,
            "first_seed": seed, "screen_seeds": 0,
            "objectives": {"band": ob.band, "seat_margin": ob.seat_margin, "max_changes": ob.max_changes},
            "centre": 0.0, "cards": [], "changes": [], "fields_changed": len(found["changes"]),
            "seat_before": seat_row(found["before"], agents), "seat_after": seat_row(found["after"], agents),
            "seat_search": found,
            "games_used": found["games_used"], "games_played_now": played,
            "seconds": round(time.perf_counter() - t0, 2),
            "method": "greedy (1 + lambda) search with paired, raced evaluation (after de Mesentier Silva et al. "
                      "2019, 'Evolving the Hearthstone Meta')", "rules": rules}


def variant_toml(rules: Rules, name: str) -> str:
    """A variant file (`locm.engine.locm.variants`) for `rules`: its base, `name`, the rule settings that differ
    from the base and every card field that differs from the 1.2 list."""
    import tomli_w

    from locm.engine.locm.rulesets import RULESETS
    from locm.engine.locm.variants import OVERRIDABLE
    from locm.events.locm.cards import AREA_NAMES, TYPE_NAMES

    base = RULESETS[rules.base_name]
    doc: dict = {"base": rules.base_name, "name": name}
    for key in OVERRIDABLE:
        if getattr(rules, key) != getattr(base, key):
            v = getattr(rules, key)
            doc[key] = list(v) if isinstance(v, tuple) else v
    originals = cardlist_12()
    show = {"type": lambda v: TYPE_NAMES[v], "area": lambda v: AREA_NAMES[v], "keywords": keywords_to_str}
    cards: dict = {}
    for c in rules.cards:
        was = msgspec.structs.asdict(originals[c.base_id])
        now = msgspec.structs.asdict(c)
        diff = {k: show.get(k, lambda v: v)(v) for k, v in now.items() if k != "base_id" and v != was[k]}
        if diff:
            cards[str(c.base_id)] = diff
    if cards:
        doc["cards"] = cards
    from locm.games.locm.tune_rules import weights_table

    weights = weights_table(rules)
    if weights:
        doc["weights"] = weights
    return tomli_w.dumps(doc)


def tuned_name(rules0: Rules) -> str:
    """The written variant's name: the ruleset's with ``-tuned`` (a long one shortened with a hash)."""
    name = f"{rules0.name}-tuned"
    if len(name) > 40:
        name = f"{rules0.name[:25]}-{hashlib.sha256(rules0.name.encode()).hexdigest()[:8]}-tuned"
    return name


__all__ = ["tune", "variant_toml", "tuned_name", "TuneError", "screen", "candidates", "apply", "Ledger"]
