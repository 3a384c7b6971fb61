"""The catalog of my-card-game's domain events: every fact a match can produce.

Each event is a frozen, tagged msgspec Struct carrying ``seq`` (its position in the log), ``cause`` (the
``seq`` of the command record or event that caused it, -1 for a root) and ``rule`` (the id of the rule of
``data/mcg/RULES.md`` it applied). Tags are written out and never reused (STYLE 1, 8), and none is a tag of
another game's catalog, so a stored line says which game it belongs to. A match's log is decoded only with
this module's union (`events.mcg.codec`); an account's log has its own (`events.mcg.account`).

Players are seats 0 and 1; cards in play are instances with ids from 2 on (R-SETUP); a target is a
character: a player's seat or a monster's instance id, -1 for none.
"""

from __future__ import annotations

from typing import Union

import msgspec

from locm.events.base import Behaviour, Event as Event  # every module of the game names its events from here
from locm.events.mcg.rules import CardDef, McgRules, Seeds

SCHEMA_VERSION = 1

# Kinds of `command_received`
ACTION, TIMEOUT = "action", "timeout"

# Reasons of `game_ended`
HEALTH, SURRENDER, INACTIVITY, BAD_ANSWER, REJECTIONS, TURN_LIMIT = (
    "health", "surrender", "inactivity", "bad_answer", "rejections", "turn_limit")

# When an effect triggers (`effect_triggered.on`)
ON_SUMMON, ON_DEATH, ON_TURN, ON_PLAY, ON_END_PHASE = "summon", "death", "turn", "play", "end_phase"
# ... at the start of a phase of its controller's turn (R-FX-PHASE), and a spell's effect that waited (R-FX-DELAY)
ON_TURN_START, ON_MAIN_START, ON_DELAYED = "turn_start", "main_start", "delayed"
# The phases a spell's effect may wait for (`Effect.at`): this turn's end phase, the start of its player's next turn
AT_END_PHASE, AT_TURN_START = "end_phase", "turn_start"




# --- set-up ------------------------------------------------------------------------------------------------


class GameCreated(Event, frozen=True, tag="mcg_game_created"):
    """A match begins (R-SETUP): its resolved rules and their hash, every seed, the agents, both decks (card
    ids, as listed: instance ids follow this order) and the definition of every card the match can meet.
    ``first`` is the seat that starts when it is given (R-SERIES), -1 for a coin flip (R-COIN). ``bots``:
    each seat's command-line bot's version (the SHA-256 of its files; "" for a built-in agent), absent (and
    not written) in a game of built-in agents or a log from before it was recorded, so such logs are
    unchanged; being part of the event, it is part of the game's id (`GameDef.game_id`). ``accounts``: the
    collection account (R-ACCOUNT) each seat played for ("" for a seat without one), absent in a game without
    accounts: it is what names the accounts a match's gold goes to (R-REWARD), and part of the id too."""

    rules: McgRules
    rules_hash: str
    seeds: Seeds
    agents: tuple[str, str]
    decks: tuple[tuple[int, ...], tuple[int, ...]]
    cards: tuple[CardDef, ...]
    first: int = -1
    schema_version: int = SCHEMA_VERSION
    bots: tuple[str, ...] | msgspec.UnsetType = msgspec.UNSET
    behaviour: Behaviour | msgspec.UnsetType = msgspec.UNSET
    """Which behaviour of the rules decided the game (`engine.seam.GameDef.behaviour`, read through
    `engine.seam.behaviour_of`): written in every new game. Unset, and then absent from the JSON, in a log
    stored before it was recorded, which is of behaviour 1 and keeps its bytes (its hash chain)."""
    accounts: tuple[str, ...] | msgspec.UnsetType = msgspec.UNSET


class CoinFlipped(Event, frozen=True, tag="mcg_coin_flipped"):
    """The coin's winner, who chooses the starting player (R-COIN)."""

    winner: int


class StarterChosen(Event, frozen=True, tag="mcg_starter_chosen"):
    """The starting player: chosen by the coin's winner ``player`` (R-COIN) or given (R-SERIES, player -1)."""

    player: int
    first: int


class DeckShuffled(Event, frozen=True, tag="mcg_deck_shuffled"):
    """A deck's order, top card first: the whole deck (R-SHUFFLE, R-MULLIGAN)."""

    player: int
    ids: tuple[int, ...]


class CardDrawn(Event, frozen=True, tag="mcg_card_drawn"):
    """The top card of a deck went into its player's hand (R-OPENING, R-MULLIGAN, R-DRAW, R-FX-DRAW)."""

    player: int
    id: int
    card: int


class CardBurned(Event, frozen=True, tag="mcg_card_burned"):
    """The top card of a deck, drawn into a full hand, went to the graveyard (R-HAND)."""

    player: int
    id: int
    card: int


class FatigueTaken(Event, frozen=True, tag="mcg_fatigue_taken"):
    """A draw from an empty deck: the player loses ``amount`` health, the next one costs more (R-FATIGUE)."""

    player: int
    amount: int


class MulliganChosen(Event, frozen=True, tag="mcg_mulligan_chosen"):
    """A player's one mulligan: the hand cards put back (R-MULLIGAN); none means the hand is kept."""

    player: int
    returned: tuple[int, ...]


class CardsReturned(Event, frozen=True, tag="mcg_cards_returned"):
    """Cards went from a hand back into the deck (R-MULLIGAN); a `deck_shuffled` follows."""

    player: int
    ids: tuple[int, ...]


# --- records of commands -----------------------------------------------------------------------------------


class CommandReceived(Event, frozen=True, tag="mcg_command_received"):
    """What a player sent, recorded before anything it causes: ``text`` is one line of the bot protocol
    (`engine.mcg.protocol`), exactly as received for a bot, canonical for a built-in agent (kind ``action``),
    or empty for a player who did not answer in time (kind ``timeout``). Re-deciding parses it again."""

    player: int
    text: str
    kind: str = ACTION


class ActionRejected(Event, frozen=True, tag="mcg_action_rejected"):
    """A well-formed action that is not legal now, with the reason (R-REJECT); the player acts again."""

    player: int
    action: str
    reason: str


class HardError(Event, frozen=True, tag="mcg_hard_error"):
    """An answer that is not an answer of the protocol (R-ANSWER): that player loses."""

    player: int
    reason: str


# --- turns and cards ---------------------------------------------------------------------------------------


class TurnStarted(Event, frozen=True, tag="mcg_turn_started"):
    """A turn begins (R-TURN): its player, its number and the player's mana, refilled (R-MANA)."""

    player: int
    turn: int
    max_mana: int


class TurnEnded(Event, frozen=True, tag="mcg_turn_ended"):
    """The player to move ended the turn: the end phase begins (R-END-PHASE)."""

    player: int
    turn: int


class CardPlayed(Event, frozen=True, tag="mcg_card_played"):
    """A card left its player's hand and its cost was paid (R-PLAY), on ``target`` (-1: none). A spell or
    equipment goes to the graveyard; a monster is summoned next."""

    player: int
    id: int
    card: int
    cost: int
    target: int = -1


class MonsterSummoned(Event, frozen=True, tag="mcg_monster_summoned"):
    """A monster joined ``player``'s side at the right end (R-SUMMON), played or a new token (R-FX-SUMMON)."""

    player: int
    id: int
    card: int
    power: int
    toughness: int
    health: int
    token: bool = False


class MonsterAttacked(Event, frozen=True, tag="mcg_monster_attacked"):
    """A monster attacked a character (R-ATTACK); the damage follows."""

    player: int
    attacker: int
    target: int


class MonsterDamaged(Event, frozen=True, tag="mcg_monster_damaged"):
    """A monster lost health (R-ATTACK, R-FX-DAMAGE); ``reflected``: its own attack's negative damage."""

    id: int
    amount: int
    reflected: bool = False


class PlayerDamaged(Event, frozen=True, tag="mcg_player_damaged"):
    """A player lost health (R-ATTACK, R-FX-DAMAGE)."""

    player: int
    amount: int


class MonsterHealed(Event, frozen=True, tag="mcg_monster_healed"):
    """A monster got health back, never above its maximum (R-HEAL)."""

    id: int
    amount: int


class PlayerHealed(Event, frozen=True, tag="mcg_player_healed"):
    """A player got health, without maximum (R-HEAL)."""

    player: int
    amount: int


class MaxHealthRaised(Event, frozen=True, tag="mcg_max_health_raised"):
    """A monster's maximum health and health both rose by ``amount`` (R-FX-MAXHEALTH)."""

    id: int
    amount: int


class StatsChanged(Event, frozen=True, tag="mcg_stats_changed"):
    """A monster's power and toughness changed by these amounts (R-EQUIP, R-FX-BUFF, R-FX-TOUGHNESS)."""

    id: int
    power: int
    toughness: int


class MonsterDied(Event, frozen=True, tag="mcg_monster_died"):
    """A monster was defeated and went to its owner's graveyard (R-DEATH); ``destroyed``: by R-FX-DESTROY."""

    id: int
    player: int
    destroyed: bool = False


class EffectTriggered(Event, frozen=True, tag="mcg_effect_triggered"):
    """Effect ``index`` of ``card`` (instance ``source``; -1 for a variant's end-phase effect) triggered
    for ``player`` (R-EFFECTS, R-ORDER); its results follow, caused by this event."""

    player: int
    source: int
    card: int
    on: str
    index: int


class EffectDelayed(Event, frozen=True, tag="mcg_effect_delayed"):
    """Effect ``index`` of the spell ``card`` (instance ``source``), played by ``player`` on ``target`` (-1:
    none), waits for a phase (R-FX-DELAY): ``at`` (``end_phase`` or ``turn_start``) of turn ``turn``. It
    resolves then as an `effect_triggered` with ``on`` ``delayed``, caused by that phase's event."""

    player: int
    source: int
    card: int
    index: int
    at: str
    turn: int
    target: int = -1


class EffectFizzled(Event, frozen=True, tag="mcg_effect_fizzled"):
    """An effect found nothing to act on, or the chain limit stopped it (R-ORDER, R-CAP)."""

    source: int
    card: int
    index: int
    reason: str


# --- the end -----------------------------------------------------------------------------------------------


class Surrendered(Event, frozen=True, tag="mcg_surrendered"):
    """A player surrendered (R-SURRENDER), or did not answer in time (``inactive``, R-INACTIVE)."""

    player: int
    inactive: bool = False


class GameEnded(Event, frozen=True, tag="mcg_game_ended"):
    """The match is over (R-WIN, R-SURRENDER, R-ANSWER, R-REJECT, R-CAP): its winner, why, and the turn."""

    winner: int
    reason: str
    turn: int


AnyEvent = Union[
    GameCreated, CoinFlipped, StarterChosen, DeckShuffled, CardDrawn, CardBurned, FatigueTaken, MulliganChosen,
    CardsReturned, CommandReceived, ActionRejected, HardError, TurnStarted, TurnEnded, CardPlayed,
    MonsterSummoned, MonsterAttacked, MonsterDamaged, PlayerDamaged, MonsterHealed, PlayerHealed,
    MaxHealthRaised, StatsChanged, MonsterDied, EffectTriggered, EffectDelayed, EffectFizzled, Surrendered,
    GameEnded,
]
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]

__all__ = [name for name in dir() if not name.startswith("_") and name not in ("annotations", "msgspec", "Union")]
