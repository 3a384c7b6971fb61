"""my-card-game's collection economy over a store's accounts: what `locm mcg ...` does, one function a command
(R-ACCOUNT … R-PLAYDECK in data/mcg/RULES.md).

Each function opens the store, folds the account's stored log (`locm.games.mcg.accounts.account_events`, its
chain checked, and the log checked as `locm verify --db` checks it), decides the commands on a working copy (`locm.engine.mcg.economy.decide_account`) and stores
the longer log once (`store_account`, which re-checks it whole): a command with several steps (three packs,
two copies destroyed) is all or nothing, and a refused one (`AccountError`, one line) stores nothing. Cards are
named by id or by name (any case). `play_decks` and `credit_match` are what `locm play --account` adds to a
game (`locm.games.mcg.play`).
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from locm.engine.mcg.economy import (
    Account, BuyPack, CraftCard, DeleteDeck, DestroyCard, GrantStarter, OpenAccount, RewardMatch, SaveDeck,
    decide_account, evolve_account, fold_account, match_deck,
)
from locm.engine.mcg.errors import AccountError
from locm.events.mcg.account import AccountEvent, AccountOpened
from locm.events.mcg.rules import CardDef
from locm.games.mcg.accounts import account_events, account_names, account_problem, store_account, stored_credits

STARTER_SLOT = 0
STARTER_NAME = "starter"
MAX_PACKS = 1000
"""The most packs one `buy` opens (a typo of 10**9 is refused before any draw)."""
MAX_DECK_FILE = 64 * 1024


@contextmanager
def _store(db: Path, create: bool = False) -> Iterator[Any]:
    from locm.common.inputs import existing_store
    from locm.store.eventstore import open_store

    with open_store(db if create else existing_store(db), create=create) as store:
        yield store


def _events(store: Any, name: str) -> list[AccountEvent]:
    """A stored account's log, checked as `locm verify --db` checks it: an account written into the store
    past `locm import` (a forged economy, pool or reward) is refused, naming the event, before any use."""
    if name not in account_names(store):
        raise AccountError(f"no account {name!r} in {store.path} (locm mcg account new {name} --db {store.path})")
    log = account_events(store, name)
    problem, _ = account_problem(log, store)
    if problem:
        raise AccountError(f"account {name!r} in {store.path} does not verify: {problem}")
    return log


def _run(db: Path, name: str, commands: Sequence[Any]) -> tuple[Account, list[AccountEvent]]:
    """Decide `commands` in order on the stored account, store them all (or nothing); the account after them
    and the new events."""
    with _store(db) as store:
        log = _events(store, name)
        state = fold_account(log)
        new: list[AccountEvent] = []
        for command in commands:
            for e in decide_account(state, command):
                state = evolve_account(state, e)
                new.append(e)
        store_account(store, [*log, *new], checked=len(log))
    return state, new


def find_card(state: Account, text: str | int) -> CardDef:
    """The collectible card `text` names: its id or its name (any case); `AccountError` if none."""
    text = str(text).strip()
    if re.fullmatch(r"\d{1,9}", text) and int(text) in state.cards:
        return state.cards[int(text)]
    for card in state.cards.values():
        if card.name.casefold() == text.casefold():
            return card
    raise AccountError(f"unknown card {text[:60]!r}: expected a card id or name of the game's "
                       f"{len(state.cards)} collectible cards (R-CARDS)")


def _account(db: Path, name: str) -> Account:
    with _store(db) as store:
        return fold_account(_events(store, name))


# --- the commands --------------------------------------------------------------------------------------------


def new_account(db: Path, name: str, seed: int | None = None) -> Account:
    """Open account `name` in store `db` (made if missing): its gold (R-ACCOUNT), the starter collection
    (R-STARTER) and the starter deck in slot 0. `seed`: its packs' seed (default: a fresh random one)."""
    pack_seed = secrets.randbits(63) if seed is None else seed
    opened = decide_account(None, OpenAccount(name, pack_seed))
    state = fold_account(opened)
    log = list(opened)
    for e in decide_account(state, GrantStarter()):
        state = evolve_account(state, e)
        log.append(e)
    for e in decide_account(state, SaveDeck(STARTER_SLOT, STARTER_NAME, tuple(state.collection.elements()))):
        state = evolve_account(state, e)
        log.append(e)
    with _store(db, create=True) as store:
        if name in account_names(store):
            raise AccountError(f"account {name!r} already exists in {db}")
        store_account(store, log)
    return state


def buy(db: Path, name: str, packs: int = 1) -> tuple[Account, list[tuple[int, ...]]]:
    """Buy and open `packs` packs (R-PACK), all or none; the account after and each pack's cards."""
    if type(packs) is not int or not 1 <= packs <= MAX_PACKS:
        raise AccountError(f"--packs: expected 1..{MAX_PACKS} packs, got {packs!r}")
    state = _account(db, name)
    price = state.economy.pack_price * packs
    if state.gold < price:
        raise AccountError(f"not enough gold: {packs} pack{'s' if packs > 1 else ''} cost {price} gold, account "
                           f"{name!r} has {state.gold} (R-PACK)")
    state, new = _run(db, name, [BuyPack()] * packs)
    return state, [e.cards for e in new]


def destroy(db: Path, name: str, card: str, copies: int = 1) -> tuple[Account, CardDef, int]:
    """Destroy `copies` owned copies of `card` (R-DESTROY), all or none; the account after, the card and the
    material they gave."""
    state = _account(db, name)
    chosen = find_card(state, card)
    if type(copies) is not int or copies < 1:
        raise AccountError(f"--copies: expected 1 or more, got {copies!r}")
    if state.collection[chosen.id] < copies:
        raise AccountError(f"account {name!r} owns {state.collection[chosen.id]} of card {chosen.id} ({chosen.name}), "
                           f"cannot destroy {copies} (R-DESTROY)")
    before = state.material
    state, _ = _run(db, name, [DestroyCard(chosen.id)] * copies)
    return state, chosen, state.material - before


def craft(db: Path, name: str, card: str) -> tuple[Account, CardDef, int]:
    """Craft one copy of `card` (R-CRAFT); the account after, the card and the material it cost."""
    chosen = find_card(_account(db, name), card)
    state, new = _run(db, name, [CraftCard(chosen.id)])
    return state, chosen, new[0].material


def read_deck_file(path: Path) -> list[str]:
    """The cards a deck file lists: ids or names, separated by commas or new lines; ``#`` starts a comment."""
    from locm.errors import InputFileError

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DECK_FILE + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(str(path), exc) from None
    if len(data) > MAX_DECK_FILE:
        raise InputFileError(str(path), f"over {MAX_DECK_FILE} bytes: not a deck file")
    return [item for line in text.splitlines() for item in line.split("#")[0].split(",") if item.strip()]


def save_deck(db: Path, name: str, slot: int, cards: str | None = None, path: Path | None = None,
              deck_name: str | None = None) -> Account:
    """Save in `slot` (R-DECKSLOT, R-DECK) the deck of `cards` (ids or names, comma-separated) or of the
    deck file `path` (`read_deck_file`), replacing what the slot held."""
    state = _account(db, name)
    items = read_deck_file(path) if path is not None else (cards or "").split(",")
    ids = tuple(find_card(state, c).id for c in items if c.strip())
    state, _ = _run(db, name, [SaveDeck(slot, deck_name or f"deck {slot}", ids)])
    return state


def delete_deck(db: Path, name: str, slot: int) -> Account:
    """Empty deck slot `slot` (R-DECKSLOT)."""
    state, _ = _run(db, name, [DeleteDeck(slot)])
    return state


def show(db: Path, name: str) -> dict[str, Any]:
    """The account as `locm mcg show --json` prints it: ``gold``, ``material``, ``collection`` {card id:
    copies}, ``decks`` {slot: [card ids]}, ``deck_names``, ``history`` (its events, the card pool left out)."""
    import msgspec

    with _store(db) as store:
        log = _events(store, name)
    state = fold_account(log)
    history = []
    for e in log:
        item = msgspec.to_builtins(e)
        if type(e) is AccountOpened:
            item["cards"] = len(e.cards)
        history.append(item)
    return {"account": state.account, "gold": state.gold, "material": state.material,
            "collection": {str(cid): n for cid, n in sorted(state.collection.items()) if n},
            "decks": {str(slot): list(cards) for slot, (_, cards) in sorted(state.decks.items())},
            "deck_names": {str(slot): deck_name for slot, (deck_name, _) in sorted(state.decks.items())},
            "packs": state.packs, "history": history}


def show_lines(db: Path, name: str) -> list[str]:
    """`locm mcg show` in words: balances, the collection by card, the decks."""
    from locm.engine.mcg.cards import TIERS, tier

    state = _account(db, name)
    owned = sum(state.collection.values())
    out = [f"account {state.account}: {state.gold} gold, {state.material} material, {owned} cards "
           f"({sum(1 for n in state.collection.values() if n)} different), {state.packs} pack"
           f"{'s' * (state.packs != 1)} opened"]
    for cid, n in sorted(state.collection.items()):
        if n:
            card = state.cards[cid]
            out.append(f"  {n} x {cid:3} {card.name} ({card.type}, cost {card.cost}, {TIERS[tier(card.rarity)]})")
    for slot, (deck_name, cards) in sorted(state.decks.items()):
        counts = ", ".join(f"{n}x{cid}" for cid, n in sorted(Counter(cards).items()))
        out.append(f"deck {slot} {deck_name!r}: {len(cards)} cards: {counts}")
    if not state.decks:
        out.append(f"no deck: a match needs one (locm mcg deck {name} 0 --cards ...)")
    return out


# --- matches ---------------------------------------------------------------------------------------------------


def play_decks(store: Any, seats: Sequence[tuple[str | None, int | None]]) -> list[tuple[int, ...] | None]:
    """Each seat's deck: ``(account, slot)`` gives the account's deck in that slot (its first with slot None,
    R-PLAYDECK); ``(None, None)`` gives None (the agent's own deck)."""
    named = [a for a, _ in seats if a is not None]
    if len(set(named)) != len(named):
        raise AccountError(f"account {named[0]!r} is in both seats: a match is between two accounts")
    out: list[tuple[int, ...] | None] = []
    for account, slot in seats:
        if account is None:
            out.append(None)
            continue
        state = fold_account(_events(store, account))
        last = state.economy.deck_slots - 1
        if slot is not None and not 0 <= slot <= last:
            raise AccountError(f"--deck: a deck slot is 0..{last}, got {slot} (R-DECKSLOT)")
        out.append(match_deck(state, slot))
    return out


def credit_match(store: Any, match_id: str) -> list[tuple[str, int]]:
    """Credit a stored match's gold (R-REWARD) to the accounts its ``mcg_game_created`` names, each with the
    result its log gives that seat. An account already credited for this match gets nothing; the gold each
    account got (0: already credited)."""
    credits = stored_credits(store, match_id)
    if credits is None:
        raise AccountError(f"no my-card-game match {match_id!r} in {store.path}: gold comes only from stored games "
                           "(R-REWARD)")
    out = []
    for name, (result, _) in credits.items():
        log = _events(store, name)
        state = fold_account(log)
        if match_id in state.rewarded:
            out.append((name, 0))
            continue
        new = decide_account(state, RewardMatch(match_id, result))
        store_account(store, [*log, *new], checked=len(log))
        out.append((name, new[0].gold))
    return out


__all__ = ["new_account", "buy", "destroy", "craft", "save_deck", "delete_deck", "show", "show_lines",
           "read_deck_file", "find_card", "play_decks", "credit_match", "STARTER_SLOT", "STARTER_NAME"]
