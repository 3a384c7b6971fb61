"""The events of a my-card-game account: its own log, apart from any match (R-ACCOUNT).

An account's state (gold, material, collection, deck slots) is the fold of these events
(`engine.mcg.economy`); every change is one of them. Each carries ``seq``, ``cause`` and ``rule`` as a match's
events do; every one here is the fact of one command, so its ``cause`` is -1. ``account_opened`` carries the
economy's values and the card pool its packs draw from, so an account replays without reading the card file.
Tags are never reused and none is a tag of a match's catalog.
"""

from __future__ import annotations

from typing import Union

import msgspec

from locm.events.base import Event as Event  # every module of the game names its events from here
from locm.events.mcg.rules import CardDef

WIN, LOSS = "win", "loss"


class EconomyRules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The economy's values (R-ACCOUNT … R-DECKSLOT); `engine.mcg.economy.ECONOMY` is the built-in one."""

    start_gold: int = 1000
    pack_price: int = 100
    pack_size: int = 5
    boost_min_rarity: float = 30.0
    destroy_material: tuple[int, ...] = (5, 10, 20, 50, 100, 200, 400)  # by tier, Basic … Legendary
    craft_factor: int = 4
    win_gold: int = 30
    loss_gold: int = 10
    deck_slots: int = 9
    deck_size: int = 30
    max_copies: int = 3
    max_copies_rare: int = 1
    rare_threshold: float = 75.0


class AccountEvent(Event, frozen=True):
    """Base of every event of an account's log (``seq``, ``cause``, ``rule`` as any event: `events.base`)."""


class AccountOpened(AccountEvent, frozen=True, tag="mcg_account_opened"):
    """An account begins (R-ACCOUNT) with its economy, its starting gold, the seed of its packs and the card
    pool the packs draw from and crafts make."""

    account: str
    economy: EconomyRules
    pack_seed: int
    gold: int
    cards: tuple[CardDef, ...]


class StarterGranted(AccountEvent, frozen=True, tag="mcg_starter_granted"):
    """The starter collection (R-STARTER), once, straight after the opening: its card ids, sorted (copies
    repeated)."""

    cards: tuple[int, ...]


class PackOpened(AccountEvent, frozen=True, tag="mcg_pack_opened"):
    """Pack number ``pack`` (0, 1, …) bought for ``price`` gold; its cards in slot order, the last slot the
    boosted one (R-PACK, R-PACK-BOOST)."""

    pack: int
    price: int
    cards: tuple[int, ...]


class CardDestroyed(AccountEvent, frozen=True, tag="mcg_card_destroyed"):
    """One owned copy of ``card`` destroyed for ``material`` (R-DESTROY)."""

    card: int
    material: int


class CardCrafted(AccountEvent, frozen=True, tag="mcg_card_crafted"):
    """One copy of ``card`` crafted for ``material`` (R-CRAFT)."""

    card: int
    material: int


class MatchRewarded(AccountEvent, frozen=True, tag="mcg_match_rewarded"):
    """The gold a finished match earned (R-REWARD): the match's id and its result for this account."""

    match: str
    result: str
    gold: int


class DeckSaved(AccountEvent, frozen=True, tag="mcg_deck_saved"):
    """A deck saved in slot ``slot`` (R-DECKSLOT), replacing what the slot held: card ids, sorted."""

    slot: int
    name: str
    cards: tuple[int, ...]


class DeckDeleted(AccountEvent, frozen=True, tag="mcg_deck_deleted"):
    """Slot ``slot`` emptied (R-DECKSLOT)."""

    slot: int


AnyAccountEvent = Union[AccountOpened, PackOpened, CardDestroyed, CardCrafted, MatchRewarded, DeckSaved,
                        DeckDeleted, StarterGranted]
ACCOUNT_EVENT_TYPES: tuple[type[AccountEvent], ...] = AnyAccountEvent.__args__  # type: ignore[attr-defined]

__all__ = ["EconomyRules", "AccountEvent", "AccountOpened", "PackOpened", "CardDestroyed", "CardCrafted",
           "MatchRewarded", "DeckSaved", "DeckDeleted", "StarterGranted", "AnyAccountEvent", "ACCOUNT_EVENT_TYPES",
           "WIN", "LOSS"]
