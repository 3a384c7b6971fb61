"""`locm tune`'s seat step for LOCM: the first player's win rate brought within 50% +- the margin by rule
settings (1.2 and constructed) and, for constructed, the card generator's type weights, through the generic
seat search (`locm.analysis.tune.seat_search`; its note names the method and its source).

The fields are those a LOCM variant file may set (`locm.engine.locm.variants.OVERRIDABLE`): each candidate
moves one of `RULE_STEPS` by one of its steps, kept only when the variant checks accept it (runes below the
start health, a hand that holds the opening cards, ...). The variant format has no setting for one seat (the
second player's extra card and mana token are the referee's, `engine.locm.drawing`), so the search moves
settings both players share, which change how much the second player's extras are worth (a lower mana cap
makes the token worth more, a larger hand keeps more of the extra card). Constructed adds the generator's
``typeProbabilities`` (`TYPE_STEPS`: a creature more or less often, the items sharing the rest as before).

The games are the base games `locm cardvalue` and `locm tournament` play and store (`cardvalue.base_games`),
so a second run reads them back. Player 0 moves first in every LOCM game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import msgspec

from locm.analysis.tune import Objectives, SeatGame, seat_search
from locm.engine.locm.rulesets import DRAFT, Rules, rules_hash

RULE_STEPS: dict[str, tuple[int, ...]] = {
    "max_mana": (-4, -2, 2, 4),
    "start_health": (-10, 10, 20),
    "hand_limit": (-2, 2),
    "lane_size": (-1, 1),
    "draft_rounds": (-10, 10),
    "deck_size": (-10, 10),
}
"""The rule settings the seat search moves, and the steps it tries (one a candidate)."""
TYPE_STEPS = (-0.1, 0.1)
"""Constructed: the change of the generator's creature probability (the items scaled to share the rest)."""
BOUNDS = {"max_mana": (0, 99), "start_health": (1, 1000), "hand_limit": (5, 30), "lane_size": (1, 10),
          "draft_rounds": (5, 80), "deck_size": (5, 240)}
"""Within the variant file's ranges (`OVERRIDABLE`), narrowed to values a game can be played to its end with."""


def _named(rules: Rules) -> Rules:
    return rules.replace(name=f"tune-{rules_hash(rules)[:12]}", base=rules.base_name)


def _types(rules: Rules) -> dict[str, float]:
    from locm.engine.locm.cardgen import official_weights

    return dict(msgspec.json.decode(rules.card_weights or official_weights())["typeProbabilities"])


def apply(rules: Rules, change: dict) -> Rules:
    """``rules`` with one change: ``set`` rule settings, or ``types`` the generator's type probabilities."""
    from locm.engine.locm.cardgen import official_weights

    out = rules.replace(**change.get("set", {}))
    if "types" in change:
        weights = msgspec.json.decode(rules.card_weights or official_weights())
        weights["typeProbabilities"] = change["types"]
        out = out.replace(card_weights=msgspec.json.encode(weights).decode())
    return _named(out)


def candidates(rules: Rules) -> list[dict]:
    """Every single change of the module note that the variant checks accept under ``rules``."""
    from locm.engine.locm.variants import VariantError, check_rules

    out: list[dict] = []
    irrelevant = {"draft_rounds"} if rules.deck_building != DRAFT else {"deck_size"}
    for field, steps in RULE_STEPS.items():
        if field in irrelevant:
            continue
        now = getattr(rules, field)
        lo, hi = BOUNDS[field]
        for step in steps:
            new = now + step
            if lo <= new <= hi:
                out.append({"label": f"{field} {now} -> {new}", "set": {field: new}})
    if rules.deck_building != DRAFT:
        types = _types(rules)
        for step in TYPE_STEPS:
            c = round(types["creature"] + step, 4)
            if 0.1 <= c <= 0.9:
                rest = 1 - types["creature"]
                new = {k: (c if k == "creature" else round(v * (1 - c) / rest, 4)) for k, v in types.items()}
                out.append({"label": f"creature probability {types['creature']:g} -> {c:g}", "types": new})
    kept = []
    for c in out:
        try:
            check_rules(apply(rules, c), "tune")
        except VariantError:
            continue
        kept.append(c)
    return kept


class LocmSeats:
    """The play the seat search is handed: the first player's (seat 0's) score per seed in the base games."""

    def __init__(self, db: Path, agents: tuple[str, str], first_seed: int, workers: int, backend: str = "local",
                 address: str | None = None) -> None:
        self.db, self.agents, self.first_seed, self.workers = db, agents, first_seed, workers
        self.backend, self.address = backend, address
        self.played_now = 0

    def play(self, rulesets: list[Rules], seeds: int) -> list[list[float]]:
        """Each ruleset's scores (`one`), one ruleset after another (each a `locm tournament` of its own)."""
        return [self.one(rules, seeds) for rules in rulesets]

    def one(self, rules: Rules, seeds: int) -> list[float]:
        from locm.games.locm.cardvalue import base_games, base_schedule
        from locm.store.eventstore import open_store

        even = seeds + seeds % 2  # self-play schedules seeds in mirrored pairs
        _, played = base_games(self.db, rules, self.agents, even, self.first_seed, self.workers,
                               backend=self.backend, address=self.address)
        self.played_now += played
        per: dict[int, list[int]] = {}
        with open_store(self.db, create=False, readonly=True) as store:
            for job in base_schedule(rules, self.agents, even, self.first_seed):
                per.setdefault(job.seed, []).append(store.game(job.game_id).winner == 0)
        return [sum(v) / len(v) for _, v in sorted(per.items())][:seeds]

    def game(self) -> SeatGame:
        return SeatGame(self.play, candidates, apply, rules_hash, 1 if self.agents[0] == self.agents[1] else 2)


def seat_step(db: Path, rules: Rules, agents: tuple[str, str], budget: int, objectives: Objectives, seed: int = 1,
              workers: int = 1, backend: str = "local", address: str | None = None,
              progress: Callable[[str], None] | None = None) -> tuple[Rules, dict, int]:
    """The seat search on ``rules`` within ``budget`` games: the tuned rules, the evidence (`seat_search`'s) and
    the games this run played."""
    seats = LocmSeats(db, agents, seed, workers, backend, address)
    tuned, found = seat_search(seats.game(), rules, objectives, budget, progress)
    return tuned, found, seats.played_now


def weights_table(rules: Rules) -> dict:
    """The ``[weights]`` tables of a variant file that give ``rules``' generator weights (empty: the official)."""
    from locm.engine.locm.cardgen import official_weights

    if not rules.card_weights:
        return {}
    official = msgspec.json.decode(official_weights())
    mine = msgspec.json.decode(rules.card_weights)
    out: dict = {}
    for key, value in mine.items():
        base = official.get(key)
        if value == base:
            continue
        if isinstance(value, dict):
            out[key] = {k: v for k, v in value.items() if base is None or base.get(k) != v}
        elif isinstance(value, list) and isinstance(base, list) and all("name" in o for o in value):
            was = {o["name"]: o for o in base}
            out[key] = {o["name"]: {f: o[f] for f in ("weight", "multCost", "addCost") if f in o and
                                    o[f] != was.get(o["name"], {}).get(f)} for o in value if o != was.get(o["name"])}
    return out


__all__ = ["seat_step", "candidates", "apply", "weights_table", "RULE_STEPS", "TYPE_STEPS", "LocmSeats"]
