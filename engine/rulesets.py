"""Rulesets as data: every parameter and policy that differs between 1.2 and constructed (1.5) lives here.

The battle code asks the ruleset (`state.rules.<field>`); it never branches on a version string. Each field
names the rule of `LOCM-RULES.md` it stands for (``metadata["rule"]``), so that `diff_rulesets` can list
every difference with its rule id, derived from these definitions alone.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from engine.errors import UnknownRuleset

# Policy values, named so that code compares against constants, not strings typed in place.
DRAFT, CONSTRUCTED = "draft", "constructed"
RUNES, DAMAGE_DRAW = "runes", "damage_draw"
LOSE_RUNE, TEN_DAMAGE = "lose_rune", "ten_damage"
IDS_12, IDS_COG2022, IDS_REVISED = "1.2", "cog2022", "revised"


def _f(default, rule: str, doc: str):
    return field(default=default, metadata={"rule": rule, "doc": doc})


@dataclass(frozen=True)
class Ruleset:
    """One official ruleset. Two instances below; `by_name` resolves names and aliases."""

    name: str = _f("1.2", "R-SEEDS", "ruleset name")
    version: str = _f("1.2", "R-SEEDS", "referee version")
    seed_params: tuple[str, ...] = _f(
        ("draftChoicesSeed", "shufflePlayer0Seed", "shufflePlayer1Seed"),
        "R-SEEDS",
        "parameters derived from `seed` by nextLong, in order",
    )
    deck_building: str = _f(DRAFT, "R-DRAFT", "how decks are built")
    runes: tuple[int, ...] = _f((25, 20, 15, 10, 5), "R-RUNES", "rune thresholds")
    draw_rule: str = _f(RUNES, "R-RUNES", "what gives extra draws: broken runes or every 5 damage")
    damage_draw_step: int = _f(0, "R-DAMAGEDRAW", "health lost for one extra draw (0: none)")
    empty_deck: str = _f(LOSE_RUNE, "R-DRAW", "a draw from an empty deck")
    turn_limit: int = _f(50, "R-DRAW", "own turn index from which the turn-limit penalty applies")
    turn_limit_penalty: str = _f(LOSE_RUNE, "R-DRAW", "penalty per draw (1.2) or per turn (1.5)")
    penalty_damage: int = _f(0, "R-DRAW", "health lost per empty-deck draw or turn-limit turn")
    full_hand_stops_draws: bool = _f(True, "R-DRAW", "a full hand loses all remaining draws (else just that one)")
    area: bool = _f(False, "R-SUMMON", "cards have an Area (lane1, lane2) effect")
    id_scheme: str = _f(IDS_12, "R-DECK", "how instance ids are numbered")
    input_runes: bool = _f(True, "R-INPUT", "player lines carry the next rune")
    input_area: bool = _f(False, "R-INPUT", "card lines carry the area field")
    zeroed_fields_quirk: bool = _f(True, "R-INPUT", "touched board creatures print my/opp/draw as 0 0 0")
    hand_limit: int = _f(8, "R-DRAW", "cards in hand at most")
    start_health: int = _f(30, "R-TURN", "starting health")
    deck_size: int = _f(30, "R-DECK", "cards in a deck")
    lane_size: int = _f(3, "R-ACTIONS", "creatures per lane at most")
    max_mana: int = _f(12, "R-TURN", "mana cap (13 while the bonus token is kept)")

    def replace(self, **changes) -> "Ruleset":
        return dataclasses.replace(self, **changes)


RULES_12 = Ruleset()

RULES_CONSTRUCTED = Ruleset(
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



def by_name(name: str) -> Ruleset:
    key = ALIASES.get(name, name)
    try:
        return RULESETS[key]
    except KeyError:
        raise UnknownRuleset(name) from None


@dataclass(frozen=True)
class RuleDifference:
    field: str
    rule: str
    doc: str
    left: object
    right: object


def diff_rulesets(a: Ruleset, b: Ruleset) -> list[RuleDifference]:
    """Every field whose value differs between two rulesets, with its rule id, in declaration order."""
    out = []
    for f in dataclasses.fields(Ruleset):
        va, vb = getattr(a, f.name), getattr(b, f.name)
        if va != vb and f.name not in ("name",):
            out.append(RuleDifference(f.name, f.metadata["rule"], f.metadata["doc"], va, vb))
    return out
