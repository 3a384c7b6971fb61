"""The catalog of domain events: every fact a game of LOCM can produce, in both rulesets.

Each event is a frozen, tagged msgspec Struct. Every event carries
- ``seq``: its position in the game's log (0, 1, 2, ...),
- ``cause``: the ``seq`` of the command record or event that caused it (-1 for the root event),
- ``rule``: the id of the rule of `LOCM-RULES.md` it applied (``R-…``).

Tags are written out explicitly and are never reused (STYLE 1, 8): renaming a class never orphans a stored row.
New fields get defaults; a field's type never changes.
"""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from locm.events.base import Behaviour, Event as Event  # every module of the game names its events from here
from locm.events.locm.cards import Card, KeywordMask
from locm.events.locm.rules import Rules

SCHEMA_VERSION = 2
"""2: the log carries its rules (`GameCreated.rules`), records say what kind of input they hold
(`ActionReceived.kind`), and the values `decide` computes travel in the events (`CreatureSummoned.can_attack`,
`TurnStarted.ready`/`cleared`, `CardPicked`/`DeckChosen.ends_phase`). Logs of schema 1 are read through
`engine.locm.upcast.upcast`, which fills these fields in."""


Seat = Annotated[int, msgspec.Meta(ge=0, le=1)]
"""A player (0 or 1): what a decoded log may hold (a log read from a file is hostile until checked)."""
Lane = Annotated[int, msgspec.Meta(ge=0, le=1)]




# --- set-up -----------------------------------------------------------------------------------------------


class GameCreated(Event, frozen=True, tag="game_created"):
    """A game begins: the ruleset, its version and every seed and parameter (R-SEEDS).

    ``rules`` holds every resolved value the game runs with; folding and re-deciding use it, never a lookup
    of ``ruleset`` by name. It is None only in logs of schema 1 (see `engine.locm.upcast`).
    """

    ruleset: str
    ruleset_version: str
    seed: int | None
    shuffle_player0_seed: int
    shuffle_player1_seed: int
    draft_choices_seed: int | None = None
    predefined_draft_ids: str | None = None
    card_gen_seed: int | None = None
    constructed_choices_seed: int | None = None
    id_scheme: str = "1.2"
    agents: tuple[str, str] = ("", "")
    schema_version: int = SCHEMA_VERSION
    rules: Rules | None = None
    rules_hash: str = ""  # sha256 of the resolved rules' values (`engine.locm.rulesets.rules_hash`); "" before variants
    bot_sha256: tuple[str, str] | msgspec.UnsetType = msgspec.UNSET
    """Per seat, the SHA-256 (hex) of a command-line bot's files ("" for a built-in agent): a bot's identity in
    a game is its command (``agents``) and this version. Unset, and then absent from the JSON, when neither
    seat is a bot, so that logs of built-in agents keep their bytes (and in logs written before bots had
    versions)."""
    behaviour: Behaviour | msgspec.UnsetType = msgspec.UNSET
    """Which behaviour of the rules decided the game (`engine.seam.GameDef.behaviour`, read through
    `engine.seam.behaviour_of`): written in every new game. Unset, and then absent from the JSON, in a log
    stored before it was recorded, which is of behaviour 1 and keeps its bytes (its hash chain)."""


class CardPoolDefined(Event, frozen=True, tag="card_pool_defined"):
    """The card definitions this game can use: the 60 drafted cards (1.2) or the 120 generated cards (1.5)."""

    cards: tuple[Card, ...]


class DraftOffered(Event, frozen=True, tag="draft_offered"):
    """A draft round's three cards, in the order shown (R-DRAFT)."""

    round: int
    base_ids: tuple[int, int, int]


class CardPicked(Event, frozen=True, tag="card_picked"):
    """A player took a card in a draft round (R-DRAFT)."""

    player: Seat
    round: int
    base_id: int
    ends_phase: bool = False  # the last pick of the draft: the battle set-up follows


class DeckChosen(Event, frozen=True, tag="deck_chosen"):
    """A player's 30 constructed choices, in the order chosen (R-CONSTRUCT)."""

    player: Seat
    base_ids: tuple[int, ...]
    ends_phase: bool = False  # the second deck: the battle set-up follows


class DeckOrdered(Event, frozen=True, tag="deck_ordered"):
    """A player's shuffled deck with instance ids, top card first (R-DECK)."""

    player: Seat
    ids: tuple[int, ...]
    base_ids: tuple[int, ...]


# --- commands as recorded -------------------------------------------------------------------------------


LINE, ACTION, END_TURN = "line", "action", "end_turn"


class ActionReceived(Event, frozen=True, tag="action_received"):
    """What a player sent, recorded before anything it causes (R-ACTIONS). ``kind`` says how to read ``text``:

    - ``line``: a whole answer line in the referee protocol, exactly as received (bots, referee logs);
    - ``action``: one action of a built-in agent, in its canonical text (``SUMMON 3 0``, ``PICK 1``,
      ``CHOOSE 4;CHOOSE 4;...``, ``PASS`` for an action that does nothing);
    - ``end_turn``: a built-in agent ends its turn (``text`` is ``PASS``).

    Re-deciding a log feeds each record back through the same path (`engine.locm.redecide`).
    """

    player: Seat
    text: str
    kind: str = LINE


class ActionRejected(Event, frozen=True, tag="action_rejected"):
    """An action item that was skipped: illegal at that moment, with the reason and the rule (R-ACTIONS)."""

    player: Seat
    action: str
    reason: str


class HardError(Event, frozen=True, tag="hard_error"):
    """An answer the referee does not accept at all (malformed, timeout, ...): that player loses."""

    player: Seat
    reason: str
    text: str = ""


# --- turns and cards --------------------------------------------------------------------------------------


class TurnStarted(Event, frozen=True, tag="turn_started"):
    """A player's turn begins (R-TURN): mana after the bonus rule, how many cards it is to draw, its creatures
    that are now ready to attack (``ready``) and the other side's creatures whose turn is over (``cleared``:
    they can no longer attack and have not attacked)."""

    player: Seat
    turn: int
    max_mana: int
    mana: int
    bonus_spent: bool
    draws: int
    ready: tuple[int, ...] = ()
    cleared: tuple[int, ...] = ()


class TurnEnded(Event, frozen=True, tag="turn_ended"):
    """A player's turn ends (its answer has been carried out)."""

    player: Seat


class CardDrawn(Event, frozen=True, tag="card_drawn"):
    """The top card of a player's deck goes to its hand (R-DRAW)."""

    player: Seat
    id: int


class DrawLost(Event, frozen=True, tag="draw_lost"):
    """A draw that did not happen: the hand was full (R-DRAW)."""

    player: Seat
    reason: str


class DrawBonus(Event, frozen=True, tag="draw_bonus"):
    """A player's next-turn draw grows (card effect, broken rune, damage taken)."""

    player: Seat
    amount: int
    source: str


# --- actions ----------------------------------------------------------------------------------------------


class CreatureSummoned(Event, frozen=True, tag="creature_summoned"):
    """A creature enters a lane (R-SUMMON). ``copy_of`` > 0 marks a 1.5 Area copy (no mana, not from hand)."""

    player: Seat
    id: int
    base_id: int
    lane: Lane
    cost: int
    copy_of: int = 0
    can_attack: bool = False  # ready at once (Charge)


class CreatureAttacked(Event, frozen=True, tag="creature_attacked"):
    """A creature attacks an enemy creature or the opponent (``target`` -1) (R-ATTACK)."""

    player: Seat
    attacker: int
    target: int


class ItemUsed(Event, frozen=True, tag="item_used"):
    """An item is played on a creature or on the opponent (``target`` -1) (R-USE)."""

    player: Seat
    id: int
    base_id: int
    target: int
    cost: int


class CreatureModified(Event, frozen=True, tag="creature_modified"):
    """An item changed a creature: its attack, defense, keywords and readiness after the change (R-USE)."""

    id: int
    attack: int
    defense: int
    keywords: KeywordMask
    can_attack: bool


class WardLost(Event, frozen=True, tag="ward_lost"):
    """A creature's Ward absorbed a hit and is gone."""

    id: int


class CreatureDamaged(Event, frozen=True, tag="creature_damaged"):
    """A creature that survives loses defense in combat (R-ATTACK)."""

    id: int
    amount: int


class CreatureDied(Event, frozen=True, tag="creature_died"):
    """A creature leaves the board."""

    id: int


class PlayerDamaged(Event, frozen=True, tag="player_damaged"):
    """A player loses health. ``source``: attack, breakthrough, item, summon, deck, rune, turn_limit.

    ``counts`` is False for the 1.5 empty-deck and turn-limit losses, which do not feed R-DAMAGEDRAW.
    """

    player: Seat
    amount: int
    source: str
    counts: bool = True


class PlayerHealed(Event, frozen=True, tag="player_healed"):
    """A player gains health (drain, item, summon)."""

    player: Seat
    amount: int
    source: str


class RuneBroken(Event, frozen=True, tag="rune_broken"):
    """A 1.2 rune breaks (R-RUNES)."""

    player: Seat
    rune: int


class GameEnded(Event, frozen=True, tag="game_ended"):
    """The game is over (R-WIN). ``winner`` is 0 or 1."""

    winner: Seat
    reason: str
    turn: int


AnyEvent = Union[
    GameCreated,
    CardPoolDefined,
    DraftOffered,
    CardPicked,
    DeckChosen,
    DeckOrdered,
    ActionReceived,
    ActionRejected,
    HardError,
    TurnStarted,
    TurnEnded,
    CardDrawn,
    DrawLost,
    DrawBonus,
    CreatureSummoned,
    CreatureAttacked,
    ItemUsed,
    CreatureModified,
    WardLost,
    CreatureDamaged,
    CreatureDied,
    PlayerDamaged,
    PlayerHealed,
    RuneBroken,
    GameEnded,
]

EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
