"""`locm tune --game mcg`: my-card-game's seat balance. The first player's win rate is measured on seeded games
and the generic seat search (`locm.analysis.tune.seat_search`, its note names the method and its source)
races the changes a my-card-game variant file allows (R-VARIANT, `locm.engine.mcg.variants`: rules may be
added, never subtracted) toward 50% +- the margin with as few changes as possible:

- a tighter deck rule: ``max_copies`` one lower, ``max_copies_rare`` 0, ``rare_threshold`` down to the next
  rarity tier's bound (`RARITY_STEPS`);
- a card banned: each card the games' decks held (most held first, at most `BANS`);
- an end-phase effect added (`END_PHASE`): at the end of every turn from ``from_turn`` on, an effect of the
  effect language, "own" and "enemy" seen from the player whose turn ends.

The text fixes every other value (start health, hand sizes, mana: ``fixed`` in `locm.engine.mcg.rules.FIELDS`)
and a variant cannot change a card of the card file, only add cards; so neither is searched.

Every game is played as `locm tournament --game mcg` plays it (its id known before it is played, stored in
``--db``) and read back by a second run, which plays none again. One agent plays itself (each seed once, the
coin deciding the first player); two agents play each seed in both seatings. The tuned ruleset is written as
a variant file (``base``, ``name`` and the changes), which `locm play --game mcg --ruleset` takes as it is.
"""

from __future__ import annotations

import hashlib
import json
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Callable

from locm.analysis.tune import Objectives, SeatGame, seat_search
from locm.engine.errors import LocmError
from locm.engine.mcg.rules import ALIASES, RULESETS
from locm.engine.mcg.variants import variant_from_dict

BANS = 12
"""Cards the search tries banning in a round: those the measured games' decks held most."""
RARITY_STEPS = (60.0, 45.0, 30.0, 15.0)
"""The rarity tiers' bounds (R-RARITY) that ``rare_threshold`` may step down to, one a candidate."""
END_PHASE = (
    {"from_turn": 1, "do": "damage", "to": "enemy_player", "amount": 1},
    {"from_turn": 1, "do": "damage", "to": "enemy_player", "amount": 2},
    {"from_turn": 3, "do": "damage", "to": "enemy_player", "amount": 1},
    {"from_turn": 1, "do": "heal", "to": "own_player", "amount": 1},
    {"from_turn": 1, "do": "heal", "to": "own_player", "amount": 2},
    {"from_turn": 1, "do": "damage", "to": "both_players", "amount": 1},
    {"from_turn": 1, "do": "draw", "to": "own_player", "amount": 1},
    {"from_turn": 1, "do": "damage", "to": "enemy_monsters", "amount": 1},
)
"""The end-phase effects the search may add, one a candidate."""
METHOD = ("greedy (1 + lambda) search with paired, raced evaluation (after de Mesentier Silva et al. 2019, "
          "'Evolving the Hearthstone Meta')")


class McgTuneError(LocmError):
    """A my-card-game tune that cannot run as asked: a ruleset it cannot read, agents it cannot use."""


def _canonical(doc: dict) -> str:
    return json.dumps({k: v for k, v in doc.items() if k != "name"}, sort_keys=True, separators=(",", ":"))


def named(doc: dict) -> dict:
    """The variant document named by its content (``tune-<hash>``), so that the games of one ruleset have one
    name in the store whatever the input file called it."""
    return {**doc, "name": "tune-" + hashlib.sha256(_canonical(doc).encode()).hexdigest()[:12]}


def start_doc(ruleset: str) -> tuple[dict, str]:
    """The variant document a tune starts from and the ruleset's name: a built-in's (``{"base": ...}``) or a
    variant file's own, checked as `locm play` checks it (`McgTuneError`, one line)."""
    key = ALIASES.get(ruleset, ruleset)
    if key in RULESETS:
        return {"base": key}, key
    path = Path(ruleset)
    if not path.is_file():
        raise McgTuneError(f"--ruleset {ruleset}: expected {', '.join(RULESETS)} or a variant file (TOML)")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise McgTuneError(f"--ruleset {ruleset}: expected a readable variant file (TOML): {exc}") from None
    rules = variant_from_dict(doc, str(path), path.stem)  # a VariantError is one line
    doc = {k: v for k, v in doc.items() if k != "name"}
    return doc, rules.name


class McgSeats:
    """The play and the candidates the seat search is handed (`locm.analysis.tune.SeatGame`)."""

    def __init__(self, db: Path, agents: tuple[str, ...], first_seed: int, workers: int,
                 progress: Callable[[str], None] | None = None) -> None:
        from locm.engine import registry

        self.db, self.first_seed, self.workers, self.say = db, first_seed, workers, progress or (lambda t: None)
        self.game = registry.get("mcg")
        for a in agents:
            if a not in self.game.agent_names:
                raise McgTuneError(f"--agents {a}: expected built-in my-card-game agents "
                                   f"({', '.join(self.game.agent_names)})")
        self.seatings = [(agents[0], agents[0])] if len(agents) == 1 or agents[0] == agents[1] else [
            (agents[0], agents[1]), (agents[1], agents[0])]
        self.held: dict[str, Counter] = {}  # per ruleset's key: the cards its measured games' decks held
        self.played_now = 0
        self._scores: dict[str, float] = {}

    def key(self, doc: dict) -> str:
        return hashlib.sha256(_canonical(doc).encode()).hexdigest()

    def rules(self, doc: dict):
        return variant_from_dict(named(doc), "tune")

    def play(self, docs: list[dict], seeds: int) -> list[list[float]]:
        """For each of ``docs``, the first player's score on each of the first ``seeds`` seeds, playing (and
        storing) the games the store lacks, all in one pool of workers."""
        from locm.store.eventstore import open_store
        from locm.tournament.run import pending, play_jobs
        from locm.tournament.schedule import Job, new_match

        every = []
        for doc in docs:
            rules = self.rules(doc)
            every.append([Job(self.game.game_id(new_match(self.game, rules, s, seated).log[0]), "mcg", rules, s,
                              seated)
                          for s in range(self.first_seed, self.first_seed + seeds) for seated in self.seatings])
        out = []
        with open_store(self.db) as store:
            todo = pending(store, [j for jobs in every for j in jobs])
            if todo:
                run = play_jobs(store, todo, workers=self.workers)
                if run.failed:
                    raise McgTuneError(f"game {run.failed[0][0]} failed: {run.failed[0][1]}")
                self.played_now += run.played
            for doc, jobs in zip(docs, every):
                held = self.held.setdefault(self.key(doc), Counter())
                per_seed: list[float] = []
                for k in range(0, len(jobs), len(self.seatings)):
                    total = 0.0
                    for job in jobs[k:k + len(self.seatings)]:
                        if job.game_id not in self._scores:
                            record = store.game(job.game_id)
                            first = self.game.turn_starts(store.events(job.game_id))[0][2]
                            self._scores[job.game_id] = float(record.winner == first)
                            for deck in record.fields.get("decks", ()):
                                held.update(set(deck))
                        total += self._scores[job.game_id]
                    per_seed.append(total / len(self.seatings))
                out.append(per_seed)
        return out

    def candidates(self, doc: dict) -> list[dict]:
        """The single changes of the module note that ``doc`` has not made yet."""
        rules = self.rules(doc)
        out: list[dict] = []
        if rules.max_copies > 1:
            out.append({"label": f"max_copies {rules.max_copies} -> {rules.max_copies - 1}",
                        "set": {"max_copies": rules.max_copies - 1}})
        if rules.max_copies_rare > 0:
            out.append({"label": "max_copies_rare 1 -> 0", "set": {"max_copies_rare": 0}})
        lower = [t for t in RARITY_STEPS if t < rules.rare_threshold]
        if lower:
            out.append({"label": f"rare_threshold {rules.rare_threshold:g} -> {lower[0]:g}",
                        "set": {"rare_threshold": lower[0]}})
        pool = {c.id: c for c in self.game_pool(rules)}
        held = self.held.get(self.key(doc), Counter())
        for cid, _ in sorted(held.items(), key=lambda kv: (-kv[1], kv[0]))[:BANS]:
            if cid not in rules.banned and cid in pool:
                out.append({"label": f"ban card {cid} {pool[cid].name}", "add": {"banned": [cid]}})
        have = doc.get("end_phase", [])
        for e in END_PHASE:
            if e not in have:
                words = f"{e['do']} {e['to'].replace('_', ' ')} {e['amount']}"
                out.append({"label": f"end phase from turn {e['from_turn']}: {words}", "add": {"end_phase": [e]}})
        return [c for c in out if self._legal(doc, c)]

    def game_pool(self, rules) -> list:
        from locm.engine.mcg.rules import pool

        return list(pool(rules).values())

    def _legal(self, doc: dict, change: dict) -> bool:
        from locm.engine.mcg.errors import VariantError

        try:
            self.rules(apply(doc, change))
        except VariantError:  # e.g. a ban that leaves no legal deck
            return False
        return True


def apply(doc: dict, change: dict) -> dict:
    """``doc`` with one change (``set``: fields set; ``add``: entries added to a list field), without a name
    (`named` gives the changed ruleset its own)."""
    out = {k: v for k, v in doc.items() if k != "name"}
    out.update(change.get("set", {}))
    for k, more in change.get("add", {}).items():
        out[k] = [*out.get(k, []), *more]
    return out


def tune(db: Path, ruleset: str, agents: tuple[str, ...], budget: int, objectives: Objectives = Objectives(),
         seed: int = 1, workers: int = 1, progress: Callable[[str], None] | None = None) -> tuple[dict, dict]:
    """The seat search of the module note: ``(the tuned variant document, the evidence)``."""
    doc0, name0 = start_doc(ruleset)
    seats = McgSeats(db, agents, seed, workers, progress)
    t0 = time.perf_counter()
    game = SeatGame(seats.play, seats.candidates, apply, seats.key, len(seats.seatings))
    try:
        doc, found = seat_search(game, doc0, objectives, budget, progress)
    except ValueError as exc:
        raise McgTuneError(str(exc)) from None
    evidence = {"game": "mcg", "ruleset": name0, "base": doc0["base"], "agents": list(agents), "budget": budget,
                "first_seed": seed, "objectives": {"seat_margin": objectives.seat_margin,
                                                   "max_changes": objectives.max_changes},
                "seat": found, "changes": [s["change"] for s in found["changes"]],
                "games_used": found["games_used"], "games_played_now": seats.played_now,
                "seconds": round(time.perf_counter() - t0, 2), "method": METHOD}
    return doc, evidence


def variant_toml(doc: dict, name: str) -> str:
    """The tuned variant file: its base, ``name``, and every field of ``doc`` (the input's and the tune's)."""
    import tomli_w

    return tomli_w.dumps({"base": doc["base"], "name": name, **{k: v for k, v in doc.items()
                                                                  if k not in ("base", "name")}})


def tuned_name(name0: str) -> str:
    """The written variant's name: the ruleset's with ``-tuned`` (a long one shortened with a hash)."""
    name = f"{name0}-tuned"
    if len(name) > 40:
        name = f"{name0[:25]}-{hashlib.sha256(name0.encode()).hexdigest()[:8]}-tuned"
    return name


def run(db: Path, ruleset: str, agents: tuple[str, ...], budget: int, objectives: Objectives, out: Path,
        seed: int = 1, workers: int = 1, backend: str = "local", address: str | None = None,
        progress: Callable[[str], None] | None = None, target: str = "all") -> tuple[dict, list[str]]:
    """`locm tune --game mcg` (the hook ``tune``): the tune, the variant file at `out` and the evidence beside
    it (``.json``, ``.html``); the evidence and its summary lines. ``target``: all or seat (the same here:
    my-card-game's cards are the card file's, which a variant cannot change)."""
    from locm.analysis.tune import seat_lines, seat_page

    if target == "cards":
        raise McgTuneError("--target cards: a my-card-game variant cannot change the card file's cards (R-VARIANT); "
                           "--target seat tunes the first player's rate")
    if backend != "local":
        raise McgTuneError(f"--backend {backend}: my-card-game's tune plays on local workers only (--workers)")
    doc, evidence = tune(db, ruleset or "standard", agents, budget, objectives, seed, workers, progress)
    name = tuned_name(evidence["ruleset"])
    text = variant_toml(doc, name)
    variant_from_dict(tomllib.loads(text), str(out))  # the file reads back as the variant it was tuned as
    out.write_text(text, encoding="utf-8")
    evidence["tuned_variant"] = {"path": str(out), "name": name, "toml": text}
    json_path, html_path = out.with_suffix(".json"), out.with_suffix(".html")
    evidence["evidence"] = {"json": str(json_path), "html": str(html_path)}
    json_path.write_text(json.dumps(evidence, indent=1), encoding="utf-8")
    html_path.write_text(seat_page(evidence, "my-card-game"), encoding="utf-8")
    return evidence, seat_lines(evidence)


__all__ = ["tune", "run", "apply", "start_doc", "variant_toml", "tuned_name", "McgSeats", "McgTuneError",
           "END_PHASE", "BANS", "RARITY_STEPS"]
