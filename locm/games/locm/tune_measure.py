"""The measurements of `locm tune` on LOCM (`locm.games.locm.tune` for 1.2's cards,
`locm.games.locm.tune_buckets` for constructed's buckets): the `Tuner` (one card's or bucket's causal value,
or the paired change a candidate makes, through `locm.games.locm.cardvalue`, with the games it used in a
`Ledger`), and `race`, the successive halving over a card's candidate changes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from locm.analysis.stats import wilson
from locm.analysis.tune import Estimate, Objectives, seat_verdict
from locm.engine.errors import LocmError
from locm.engine.locm.rulesets import Rules, rules_hash

RACE_SEEDS = 40
"""The fewest seeds a race of candidates starts on."""

class TuneError(LocmError):
    """A tune that cannot run as asked: a ruleset it cannot tune, a budget too small for one measurement."""


def games_key(rules: Rules) -> tuple[str, str]:
    """What tells a ruleset's games from another's: its values and its name (a game's id holds both, so two
    rulesets with the same values and different names play different games)."""
    return rules.name, rules_hash(rules)


@dataclass
class Ledger:
    """The games a tune used (played now or read back), counted per ruleset (`games_key`) at the most asked of it, so the count
    depends on the arguments only (a resumed run counts the same). A re-run under ruleset B of a game of A is a
    game of B: the same game (the same seed, seats and agents) as B's base game on that seed, which the store
    holds once. So B's re-runs (a subset of its base games on those seeds) and its base games count under one
    key, at the larger: a game used by two measurements counts once. Before each measurement the tune checks
    that the games it is expected to add (`Tuner.expect`) fit."""

    used: dict = field(default_factory=dict)
    played_now: int = 0

    def add(self, key: tuple, games: int, played: int) -> None:
        self.used[key] = max(self.used.get(key, 0), games)
        self.played_now += played

    @property
    def total(self) -> int:
        return sum(self.used.values())


@dataclass
class Tuner:
    """One tune's measurements: the store, the agents, where the games run, and the games used so far."""

    db: Path
    agents: tuple[str, str]
    objectives: Objectives
    budget: int
    first_seed: int = 1
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    progress: Callable[[str], None] | None = None
    ledger: Ledger = field(default_factory=Ledger)
    rerun_share: float = 1.0  # re-runs per base game in the last measurement (the rest were identical: not played)

    def expect(self, rules: Rules, card: int | str, seeds: int, against: Rules | None = None) -> int:
        """The games `measure` with these arguments is expected to add to the ledger: the base games of `rules`
        it lacks, and the re-runs at the share of base games the last measurement re-ran."""
        from locm.games.locm.cardvalue import make_targets

        per_seed = 1 if self.agents[0] == self.agents[1] else 2
        h = games_key(rules)
        base = max(0, seeds * per_seed - self.ledger.used.get((h, "base"), 0))
        variant = against if against is not None else make_targets(rules, [str(card)], "vanilla")[1][0]
        have = self.ledger.used.get((games_key(variant), "base"), 0)
        return base + max(0, math.ceil(self.rerun_share * seeds * per_seed) - have)

    def say(self, text: str) -> None:
        if self.progress:
            self.progress(f"[{self.ledger.total} games] {text}")

    def measure(self, rules: Rules, card: int | str, seeds: int, against: Rules | None = None
                ) -> tuple[Estimate, dict]:
        """The card's causal value under `rules` at `seeds` seeds: against the vanilla creature of its cost, or
        (``against``) the holders' win rate under `rules` minus under `against` (the paired change a mutation
        makes). One `locm.games.locm.cardvalue` run; its games enter the ledger."""
        from locm.games.locm.cardvalue import cardvalue, make_targets, variant_targets

        if against is None:
            targets, variants = make_targets(rules, [str(card)], "vanilla")
        else:
            targets, variants = variant_targets(rules, against, [str(card)], against.name)
        run = cardvalue(self.db, rules, self.agents, targets, variants, seeds, self.first_seed, self.workers,
                        backend=self.backend, address=self.address)
        if run.errors:
            raise TuneError(f"re-run of game {run.errors[0][0]} failed: {run.errors[0][1]}")
        h = games_key(rules)
        self.ledger.add((h, "base"), run.base_stored + run.base_played, run.base_played)
        self.ledger.add((games_key(variants[0]), "base"), run.played + run.reused, run.played)
        base_n = run.base_stored + run.base_played
        if base_n:
            self.rerun_share = (run.played + run.reused) / base_n
        row = run.ranked()[0]
        return Estimate(row["value"], row["low"], row["high"], row["units"]), row

    def holders(self, rules: Rules, seeds: int) -> tuple[dict[int, list[int]], tuple[int, int]]:
        """Per card, ``[holders, holders who won]`` in the base games, and the first player's ``(wins, games)``."""
        from locm.games.locm.cardvalue import base_games, base_schedule
        from locm.games.locm.whatif import advantage, verified_game
        from locm.store.eventstore import open_store

        stored, played = base_games(self.db, rules, self.agents, seeds, self.first_seed, self.workers,
                                    backend=self.backend, address=self.address)
        self.ledger.add((games_key(rules), "base"), stored + played, played)
        counts: dict[int, list[int]] = {}
        seat = [0, 0]
        with open_store(self.db, create=False, readonly=True) as store:
            for job in base_schedule(rules, self.agents, seeds, self.first_seed):
                g = verified_game(store, job.game_id)[1]  # checked and folded once: cardvalue's re-runs read it again
                seat[0] += g.winner == 0
                seat[1] += 1
                for b in set(g.decks[0]) | set(g.decks[1]):
                    adv = advantage(g.decks, {b})
                    if adv is not None:
                        c = counts.setdefault(b, [0, 0])
                        c[0] += 1
                        c[1] += g.winner == adv[0]
        return counts, (seat[0], seat[1])

def race(tuner: Tuner, rules: Rules, card: int | str, options: list[tuple[dict, Rules]], seeds: int, value: float,
         centre: float, limit: int) -> tuple[list[tuple[dict, Estimate, Rules]], list[dict]]:
    """Successive halving over a card's candidate changes (as the seat search races rule settings): each paired
    against `rules` on an eighth of `seeds` (at least `RACE_SEEDS`), the half whose predicted value (``value``
    minus the paired change) lies closest to `centre` on twice as many, ... up to `seeds` or two left, each
    measurement made only while its expected games, and the winner's own measurement on as many seeds after it,
    keep the ledger within `limit` (the first always). The
    candidates of the last level measured, ``(change, paired change, changed rules)``, for `choose`, and every
    candidate raced with the seeds it got and its paired change there (for the page)."""
    n = min(seeds, max(RACE_SEEDS, seeds // 8)) // 2 * 2
    per_seed = 1 if tuner.agents[0] == tuner.agents[1] else 2
    alive = list(range(len(options)))
    got: dict[int, Estimate] = {}
    seeds_of: dict[int, int] = {}
    level: list[int] = []
    last: list[int] = []
    while alive:
        level = []
        for i in alive:
            change, cand = options[i]
            # the winner is measured again on its seeds (about a game a seed): that must fit after this too
            if (got or level) and tuner.ledger.total + tuner.expect(rules, card, n, against=cand) + n * per_seed > limit:
                continue
            tuner.say(f"card {card}: trying {change} on {n} seeds")
            got[i], _ = tuner.measure(rules, card, n, against=cand)
            seeds_of[i] = n
            level.append(i)
        if not level:  # the budget ends the race before this level: the last level run decides
            level = last
            break
        if len(level) < len(alive) or n >= seeds or len(level) <= 2:
            break  # the budget ends the race, or it is run
        last = level
        off = {i: abs(value - got[i].value - centre) if got[i].value is not None else math.inf for i in level}
        alive = sorted(level, key=lambda i: (off[i], i))[:max(2, math.ceil(len(level) / 2))]
        n = min(seeds, n * 2) // 2 * 2
    raced = [{"change": options[i][0], "seeds": seeds_of[i], "paired_delta": _dict(got[i])} for i in sorted(got)]
    return [(options[i][0], got[i], options[i][1]) for i in level], raced


def _dict(e: Estimate) -> dict:
    return {"value": e.value, "low": e.low, "high": e.high, "units": e.units}


def seat_summary(w: tuple[int, int], margin: float) -> dict:
    """The first player's wins of games ``w`` as a result row: its rate, Wilson interval and verdict."""
    lo, hi = wilson(*w)
    return {"wins": w[0], "games": w[1], "rate": w[0] / w[1] if w[1] else None, "low": lo, "high": hi,
            "verdict": seat_verdict(w[0], w[1], lo, hi, margin)}


def tune_result(rules0: Rules, rules: Rules, agents: tuple[str, str], budget: int, seed: int, seeds: int,
                ob: Objectives, centre: float, measured: dict, steps: list, changes_made: int, tuner: "Tuner",
                seat_before: dict, seat_after: dict, searched: dict | None, seconds: float, method: str) -> dict:
    """A card tune's result, as `locm tune --json` prints it and its evidence page reads it."""
    return {"ruleset": rules0.name, "base": rules0.base_name, "agents": list(agents), "budget": budget,
            "first_seed": seed, "screen_seeds": seeds,
            "objectives": {"band": ob.band, "seat_margin": ob.seat_margin, "max_changes": ob.max_changes},
            "centre": centre, "cards": [{**m, "before": _dict(m["before"]), "after": _dict(m["after"])}
                                        for m in measured.values()],
            "changes": steps, "fields_changed": changes_made, "seat_before": seat_before, "seat_after": seat_after,
            "seat_search": searched, "games_used": tuner.ledger.total, "games_played_now": tuner.ledger.played_now,
            "seconds": round(seconds, 2), "method": method, "rules": rules}


__all__ = ["Tuner", "Ledger", "TuneError", "race", "games_key", "seat_summary", "tune_result", "RACE_SEEDS"]
