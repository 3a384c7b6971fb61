"""Rulesets as data: every parameter and policy that differs between 1.2 and constructed (1.5) lives here.

The battle code asks the ruleset (`state.rules.<field>`); it never branches on a version string. The value
type is `events.locm.rules.Rules` (a frozen msgspec Struct), because a game's resolved rules travel in its
`game_created` event: folding a log uses the log's values, never a lookup by name. `FIELDS` names the rule of
`LOCM-RULES.md` each field stands for, so that `diff_rulesets` lists every difference with its rule id,
derived from the definitions alone.
"""

from __future__ import annotations

import functools
import hashlib
from typing import NamedTuple

import msgspec

from locm.engine.errors import UnknownRuleset
from locm.engine.seam import RuleDifference, diff_rules
from locm.events.locm.rules import Rules

# Policy values, named so that code compares against constants, not strings typed in place.
DRAFT, CONSTRUCTED = "draft", "constructed"
RUNES, DAMAGE_DRAW = "runes", "damage_draw"
LOSE_RUNE, TEN_DAMAGE = "lose_rune", "ten_damage"
IDS_12, IDS_COG2022, IDS_REVISED = "1.2", "cog2022", "revised"

Ruleset = Rules
"""The engine's name for a ruleset value (one type: `events.locm.rules.Rules`)."""


class FieldInfo(NamedTuple):
    rule: str
    doc: str


FIELDS: dict[str, FieldInfo] = {
    "name": FieldInfo("R-SEEDS", "ruleset name"),
    "version": FieldInfo("R-SEEDS", "referee version"),
    "seed_params": FieldInfo("R-SEEDS", "parameters derived from `seed` by nextLong, in order"),
    "deck_building": FieldInfo("R-DRAFT", "how decks are built"),
    "runes": FieldInfo("R-RUNES", "rune thresholds"),
    "draw_rule": FieldInfo("R-RUNES", "what gives extra draws: broken runes or every 5 damage"),
    "damage_draw_step": FieldInfo("R-DAMAGEDRAW", "health lost for one extra draw (0: none)"),
    "empty_deck": FieldInfo("R-DRAW", "a draw from an empty deck"),
    "turn_limit": FieldInfo("R-DRAW", "own turn index from which the turn-limit penalty applies"),
    "turn_limit_penalty": FieldInfo("R-DRAW", "penalty per draw (1.2) or per turn (1.5)"),
    "penalty_damage": FieldInfo("R-DRAW", "health lost per empty-deck draw or turn-limit turn"),
    "full_hand_stops_draws": FieldInfo("R-DRAW", "a full hand loses all remaining draws (else just that one)"),
    "area": FieldInfo("R-SUMMON", "cards have an Area (lane1, lane2) effect"),
    "id_scheme": FieldInfo("R-DECK", "how instance ids are numbered"),
    "input_runes": FieldInfo("R-INPUT", "player lines carry the next rune"),
    "input_area": FieldInfo("R-INPUT", "card lines carry the area field"),
    "zeroed_fields_quirk": FieldInfo("R-INPUT", "touched board creatures print my/opp/draw as 0 0 0"),
    "hand_limit": FieldInfo("R-DRAW", "cards in hand at most"),
    "start_health": FieldInfo("R-TURN", "starting health"),
    "deck_size": FieldInfo("R-DECK", "cards in a deck"),
    "lane_size": FieldInfo("R-ACTIONS", "creatures per lane at most"),
    "max_mana": FieldInfo("R-TURN", "mana cap (13 while the bonus token is kept)"),
    "draft_rounds": FieldInfo("R-DRAFT", "draft rounds (three cards offered in each)"),
    "max_copies": FieldInfo("R-CONSTRUCT", "copies of one card a constructed deck may hold"),
    "base": FieldInfo("R-SEEDS", "the built-in ruleset a variant changes (empty for a built-in)"),
    "cards": FieldInfo("R-DRAFT", "1.2 card definitions that replace the card list's (by baseId)"),
    "card_weights": FieldInfo("R-CARDGEN", "the card generator's weights as JSON (empty: the official file)"),
}

RULES_12 = Rules()

RULES_CONSTRUCTED = Rules(
    name="constructed",
    version="1.5",
    seed_params=("cardGenSeed", "constructedChoicesSeed", "shufflePlayer0Seed", "shufflePlayer1Seed"),
    deck_building=CONSTRUCTED,
    runes=(),
    draw_rule=DAMAGE_DRAW,
    damage_draw_step=5,
    empty_deck=TEN_DAMAGE,
    turn_limit_penalty=TEN_DAMAGE,
    penalty_damage=10,
    full_hand_stops_draws=False,
    area=True,
    id_scheme=IDS_COG2022,
    input_runes=False,
    input_area=True,
    zeroed_fields_quirk=False,
)

RULESETS = {"1.2": RULES_12, "constructed": RULES_CONSTRUCTED}
ALIASES = {"1.5": "constructed", "12": "1.2", "15": "constructed"}


def deck_cards(rules: Rules) -> int:
    """The cards of each deck (R-DECK): the draft's picks (one a round), or the constructed deck's size."""
    return rules.draft_rounds if rules.deck_building == DRAFT else rules.deck_size


def by_name(name: str) -> Rules:
    """A built-in ruleset by its name or alias (for users choosing a ruleset; a log carries its own values)."""
    key = ALIASES.get(name, name)
    try:
        return RULESETS[key]
    except KeyError:
        raise UnknownRuleset(name) from None


def diff_rulesets(a: Rules, b: Rules) -> list[RuleDifference]:
    """Every field whose value differs between two rulesets, with its rule id, in declaration order (names,
    not values, left out: see `rules_hash`)."""
    return diff_rules(a, b, FIELDS)


@functools.lru_cache(maxsize=64)  # every new game records it; a ruleset is a frozen (hashable) value
def rules_hash(rules: Rules) -> str:
    """The content hash of a ruleset's resolved values: SHA-256 (hex) of the msgspec JSON of `rules` without
    its names (``name``, ``base``). Two rulesets with the same values have the same hash, whatever they are
    called; `game_created` records it (R-SEEDS)."""
    return hashlib.sha256(msgspec.json.encode(rules.replace(name="", base=""))).hexdigest()


def _check_fields() -> None:
    missing = set(Rules.__struct_fields__) ^ set(FIELDS)
    if missing:  # pragma: no cover - a programming error caught at import
        raise RuntimeError(f"locm.engine.locm.rulesets.FIELDS and locm.events.locm.rules.Rules differ: {sorted(missing)}")


_check_fields()

__all__ = ["Rules", "Ruleset", "RULES_12", "RULES_CONSTRUCTED", "by_name", "deck_cards", "diff_rulesets", "rules_hash", "FIELDS",
           "msgspec"]
