"""Game creation (R-SEEDS): the game's parameters and its opening events (the decks, instance ids and opening
hands, R-DECK and R-TURN, are `engine.locm.drawing.begin_battle`'s).

Randomness is a recorded input (STYLE 4): the generator runs here at creation (and in `drawing` when the decks
are shuffled), and its outcomes go into events; folding a log never draws a random number.
"""

from __future__ import annotations

from typing import Any, cast

from locm.events.locm.catalog import CardPoolDefined, Event, GameCreated
from locm.engine.locm import behaviour as _behaviour
from locm.engine.locm.emit import Out
from locm.engine.errors import GameParamError
from locm.engine.jrandom import JavaRandom
from locm.engine.locm.rulesets import DRAFT, Ruleset, rules_hash
from locm.engine.locm.state import GameState
from locm.engine.locm.variants import check_rules
from locm.engine.seam import check_behaviour

# Parameter names as the referee spells them, and our field names for them.
PARAM_FIELDS = {
    "seed": "seed",
    "draftChoicesSeed": "draft_choices_seed",
    "shufflePlayer0Seed": "shuffle_player0_seed",
    "shufflePlayer1Seed": "shuffle_player1_seed",
    "cardGenSeed": "card_gen_seed",
    "constructedChoicesSeed": "constructed_choices_seed",
    "predefinedDraftIds": "predefined_draft_ids",
}

JAVA_LONG_MIN, JAVA_LONG_MAX = -(1 << 63), (1 << 63) - 1


def derive_params(
    rules: Ruleset, seed: int | None, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """R-SEEDS: the seeds a game runs with, each derived from `seed` unless given explicitly."""
    overrides = dict(overrides or {})
    for name, value in overrides.items():
        if name not in PARAM_FIELDS:
            raise GameParamError(f"unknown game parameter {name!r}", name, value)
        if name != "predefinedDraftIds" and not (JAVA_LONG_MIN <= value <= JAVA_LONG_MAX):
            raise GameParamError(f"{name} must be a 64-bit signed integer, got {value}", name, value)
    if seed is not None and not (JAVA_LONG_MIN <= seed <= JAVA_LONG_MAX):
        raise GameParamError(f"seed must be a 64-bit signed integer, got {seed}", "seed", seed)
    params: dict[str, Any] = {"seed": seed}
    rng = JavaRandom(seed) if seed is not None else None
    for name in rules.seed_params:
        derived = rng.next_long() if rng is not None else None
        value = overrides.get(name, derived)
        if value is None:
            raise GameParamError(f"{name} is needed: give a seed or {name}", name)
        params[name] = value
    if "predefinedDraftIds" in overrides:
        if rules.deck_building != DRAFT:
            raise GameParamError("predefinedDraftIds applies to the 1.2 draft only", "predefinedDraftIds")
        params["predefinedDraftIds"] = overrides["predefinedDraftIds"]
    return params


def create(
    rules: Ruleset, seed: int | None, overrides: dict[str, Any] | None = None, agents: tuple[str, str] = ("", ""),
    bots: tuple[str, str] | None = None, behaviour: int | None = None,
) -> list[Event]:
    """The opening events of a game: GameCreated, the card pool and (1.2) the 30 draft offers. ``bots``: each
    seat's bot version (`GameCreated.bot_sha256`, "" for a built-in agent); None or two "" leave it unset.
    ``behaviour``: the behaviour of the rules that decides it (`engine.locm.behaviour`; None: the current one,
    else an earlier one this engine keeps)."""
    check_rules(rules)  # a value built in code meets a variant file's checks
    params = derive_params(rules, seed, overrides)
    fields = {PARAM_FIELDS[k]: v for k, v in params.items()}
    if bots is not None and any(bots):
        fields["bot_sha256"] = (str(bots[0]), str(bots[1]))
    created = GameCreated(
        seq=0,
        cause=-1,
        rule="R-SEEDS",
        ruleset=rules.name,
        ruleset_version=rules.version,
        id_scheme=rules.id_scheme,
        agents=cast("tuple[str, str]", tuple(agents)),
        rules=rules,
        rules_hash=rules_hash(rules),
        behaviour=_behaviour.BEHAVIOUR if behaviour is None else behaviour,
        **fields,
    )
    check_behaviour(created, _behaviour.BEHAVIOUR)
    return [created] + opening(created)


def opening(created: GameCreated) -> list[Event]:
    """What follows from `game_created` alone: the card pool and (1.2) the draft offers. Re-deciding a log
    starts here, from the stored `game_created`."""
    rules = created.rules
    if rules is None:
        raise GameParamError("game_created has no rules (a schema 1 log: read it through engine.locm.upcast)")
    check_rules(rules, "game_created.rules", from_log=True)
    for name in rules.seed_params:  # a made-up game_created may lack one (the draft's seed in a 1.2 game with
        value = getattr(created, PARAM_FIELDS[name])  # predefined draft ids is not among them)
        if type(value) is not int or not JAVA_LONG_MIN <= value <= JAVA_LONG_MAX:
            if name == "draftChoicesSeed" and created.predefined_draft_ids is not None:
                continue
            raise GameParamError(f"game_created: {name} must be a 64-bit signed integer, got {value!r}", name, value)
    out = Out(None, created.seq, seq=created.seq + 1)  # type: ignore[arg-type]  # no state yet: only emit() is used
    if rules.deck_building == DRAFT:
        from locm.engine.locm.draft import draft_events

        draft_events(out, created, rules)
    else:
        from locm.engine.locm.cardgen import generate_cards

        out.emit(
            CardPoolDefined(
                seq=out.seq, cause=out.cause, rule="R-CARDGEN",
                cards=tuple(generate_cards(cast(int, created.card_gen_seed), rules.card_weights)),  # a 1.5 seed param
            )
        )
    return out.events



def preload(rules: Ruleset) -> None:
    """Load once what every game under `rules` reads: the 1.2 card list, or the 1.5 card generator's tables
    (the weights decoded, the choice thresholds, the jump-ahead constants). Optional: the first game of a
    process does it otherwise. `locm bench` calls it before its clock starts, as the peer benchmark loads its
    card list and weights before its own."""
    if rules.deck_building == DRAFT:
        from locm.engine.locm.carddata import cardlist_12
        from locm.engine.locm.draft import draft_offers

        cardlist_12()
        draft_offers(0, rules.draft_rounds)
    else:
        from locm.engine.locm.cardgen import generate_cards

        generate_cards(0, rules.card_weights)
