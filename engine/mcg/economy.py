"""The collection economy, event-sourced: an account's own log (R-ACCOUNT … R-PLAYDECK).

The same shape as a match: `decide_account(state, command) -> events` checks a command against the account and
emits the facts (a refused command raises `AccountError` and records nothing: the log holds only what
happened), `evolve_account(state, event)` applies one fact, and the state is the fold of the log. Packs draw
from `Random(SHA-256(<pack seed>:<pack number>))` and record their cards (R-PACK), so an account replays
exactly; `audit_account` re-decides a whole log from its commands (each event names the command it is the fact
of) and names the first event that the rules would not give: a balance below zero, a card destroyed or put in a
deck that was not owned, a pack whose cards are not its seed's. `provenance` traces every owned copy to the
starter, pack or craft that brought it.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

import msgspec

from locm.engine.errors import InvalidLogError
from locm.engine.mcg.cards import TIERS, base_cards, collectible, tier
from locm.engine.mcg.emit import derived_random
from locm.engine.mcg.errors import AccountError
from locm.engine.mcg.bounds import not_the_games
from locm.events.mcg.account import (
    LOSS, WIN, AccountEvent, AccountOpened, CardCrafted, CardDestroyed, DeckDeleted, DeckSaved, EconomyRules,
    MatchRewarded, PackOpened, StarterGranted,
)
from locm.events.mcg.rules import CardDef

ECONOMY = EconomyRules()
STARTER_COPIES = 2
"""Copies of each starter card (R-STARTER): two, so the third copy of a card is still worth finding."""


class Account:
    """An account's state: the fold of its log."""

    __slots__ = ("account", "economy", "cards", "pack_seed", "gold", "material", "collection", "decks", "packs",
                 "rewarded", "seq")

    def __init__(self, opened: AccountOpened) -> None:
        self.account = opened.account
        self.economy = opened.economy
        self.cards = {c.id: c for c in opened.cards}
        self.pack_seed = opened.pack_seed
        self.gold = opened.gold
        self.material = 0
        self.collection: Counter[int] = Counter()
        self.decks: dict[int, tuple[str, tuple[int, ...]]] = {}
        self.packs = 0
        self.rewarded: set[str] = set()
        self.seq = 1


# --- commands ------------------------------------------------------------------------------------------------


class OpenAccount(msgspec.Struct, frozen=True):
    account: str
    pack_seed: int
    economy: EconomyRules = ECONOMY
    cards: tuple[CardDef, ...] = ()  # empty: the card file's collectible cards


class GrantStarter(msgspec.Struct, frozen=True):
    pass


class BuyPack(msgspec.Struct, frozen=True):
    pass


class DestroyCard(msgspec.Struct, frozen=True):
    card: int


class CraftCard(msgspec.Struct, frozen=True):
    card: int


class RewardMatch(msgspec.Struct, frozen=True):
    match: str
    result: str


class SaveDeck(msgspec.Struct, frozen=True):
    slot: int
    name: str
    cards: tuple[int, ...]


class DeleteDeck(msgspec.Struct, frozen=True):
    slot: int


AccountCommand = OpenAccount | GrantStarter | BuyPack | DestroyCard | CraftCard | RewardMatch | SaveDeck | DeleteDeck


# --- decide ----------------------------------------------------------------------------------------------------


def decide_account(state: Account | None, command: AccountCommand) -> list[AccountEvent]:
    """The events of `command` on the account `state` (None before it opens); `AccountError` when refused."""
    if isinstance(command, OpenAccount):
        if state is not None:
            raise AccountError(f"account {state.account!r} is already open")
        return [_open(command)]
    if state is None:
        raise AccountError("the account is not open: its log starts with account_opened")
    seq, econ = state.seq, state.economy
    match command:
        case GrantStarter():
            if seq != 1:
                raise AccountError("the starter collection is granted once, straight after the opening (R-STARTER)")
            return [StarterGranted(seq=seq, cause=-1, rule="R-STARTER", cards=starter_cards(state))]
        case BuyPack():
            if state.gold < econ.pack_price:
                raise AccountError(f"a pack costs {econ.pack_price} gold, the account has {state.gold} (R-PACK)")
            cards = draw_pack(state.cards, econ, state.pack_seed, state.packs)
            return [PackOpened(seq=seq, cause=-1, rule="R-PACK", pack=state.packs, price=econ.pack_price,
                               cards=cards)]
        case DestroyCard():
            card = _owned_card(state, command.card, "destroy")
            for slot, (name, deck) in sorted(state.decks.items()):
                if deck.count(card.id) > state.collection[card.id] - 1:
                    raise AccountError(f"deck {slot} ({name!r}) holds {deck.count(card.id)} of card {card.id} "
                                       f"({card.name}): take it out before destroying a copy (R-DESTROY)")
            return [CardDestroyed(seq=seq, cause=-1, rule="R-DESTROY", card=card.id,
                                  material=destroy_value(econ, card))]
        case CraftCard():
            wanted = state.cards.get(command.card)
            if wanted is None or wanted.token:
                raise AccountError(f"card {command.card} cannot be crafted: not a collectible card (R-CRAFT)")
            cost = craft_cost(econ, wanted)
            if state.material < cost:
                raise AccountError(f"crafting {wanted.name} costs {cost} material, the account has {state.material} "
                                   "(R-CRAFT)")
            return [CardCrafted(seq=seq, cause=-1, rule="R-CRAFT", card=wanted.id, material=cost)]
        case RewardMatch():
            if not isinstance(command.match, str) or not 1 <= len(command.match) <= 100 \
                    or not command.match.isprintable():
                raise AccountError(f"a match id is 1 to 100 printable characters, got {command.match!r}")
            if command.result not in (WIN, LOSS):
                raise AccountError(f"a match's result is {WIN!r} or {LOSS!r}, got {command.result!r} (R-REWARD)")
            if command.match in state.rewarded:
                raise AccountError(f"match {command.match!r} has already been rewarded (R-REWARD)")
            gold = econ.win_gold if command.result == WIN else econ.loss_gold
            return [MatchRewarded(seq=seq, cause=-1, rule="R-REWARD", match=command.match, result=command.result,
                                  gold=gold)]
        case SaveDeck():
            _check_slot(econ, command.slot)
            if not isinstance(command.name, str) or not 1 <= len(command.name) <= 40 or not command.name.isprintable():
                raise AccountError(f"a deck's name is 1 to 40 printable characters, got {command.name!r}")
            reason = deck_problem(state, command.cards)
            if reason is not None:
                raise AccountError(f"deck {command.slot}: {reason}")
            return [DeckSaved(seq=seq, cause=-1, rule="R-DECKSLOT", slot=command.slot, name=command.name,
                              cards=tuple(sorted(command.cards)))]
        case DeleteDeck():
            _check_slot(econ, command.slot)
            if command.slot not in state.decks:
                raise AccountError(f"deck slot {command.slot} is empty (R-DECKSLOT)")
            return [DeckDeleted(seq=seq, cause=-1, rule="R-DECKSLOT", slot=command.slot)]
    raise AccountError(f"not an account command: {command!r}")


def _open(command: OpenAccount) -> AccountOpened:
    account = command.account
    if not isinstance(account, str) or not 1 <= len(account) <= 64 or not account.isprintable():
        raise AccountError(f"an account id is 1 to 64 printable characters, got {account!r}")
    problem = economy_problem(command.economy)
    if problem is not None:
        raise AccountError(f"an economy that cannot be played: {problem}")
    cards = command.cards or tuple(collectible(base_cards()))
    if not _is_int(command.pack_seed) or not -(1 << 63) <= command.pack_seed < 1 << 63:
        raise AccountError(f"a pack seed is a 64-bit integer, got {command.pack_seed!r}")
    boost = command.economy.boost_min_rarity
    if len({c.id for c in cards}) != len(cards) or not [c for c in cards if not c.token and boost <= c.rarity < 100]:
        raise AccountError("an account's card pool holds each card once, and a card of rarity below 100 for every "
                           "slot of a pack (R-PACK-BOOST)")
    problem = not_the_games(command.economy, cards)
    if problem is not None:
        raise AccountError(f"an account opens with the game's economy and cards (R-ACCOUNT): {problem}")
    return AccountOpened(seq=0, cause=-1, rule="R-ACCOUNT", account=account, economy=command.economy,
                         pack_seed=command.pack_seed, gold=command.economy.start_gold,
                         cards=tuple(c for c in cards if not c.token))


def economy_problem(econ: EconomyRules) -> str | None:
    """Why an economy's values cannot be played (a price of 0 would make gold from nothing, a negative value
    a negative balance), or None."""
    ints = {"start_gold": (0, 10**9), "pack_price": (1, 10**9), "pack_size": (1, 20), "craft_factor": (1, 100),
            "win_gold": (0, 10**6), "loss_gold": (0, 10**6), "deck_slots": (1, 99), "deck_size": (1, 200),
            "max_copies": (1, 30), "max_copies_rare": (0, 30)}
    for name, (lo, hi) in ints.items():
        v = getattr(econ, name)
        if not _is_int(v) or not lo <= v <= hi:
            return f"{name}: expected an integer in {lo}..{hi}, got {v!r}"
    material = econ.destroy_material
    if len(material) != len(TIERS) or not all(_is_int(v) and 0 <= v <= 10**6 for v in material):
        return f"destroy_material: expected {len(TIERS)} integers in 0..1000000 (one a tier), got {material!r}"
    if list(material) != sorted(material):
        return f"destroy_material: expected the rarer tier to give at least as much (R-DESTROY), got {material!r}"
    for name in ("boost_min_rarity", "rare_threshold"):
        v = getattr(econ, name)
        if type(v) not in (int, float) or not 0 <= v <= 100:
            return f"{name}: expected a number in 0..100, got {v!r}"
    return None


def _is_int(v: object) -> bool:
    return type(v) is int


def _owned_card(state: Account, cid: int, verb: str) -> CardDef:
    card = state.cards.get(cid)
    if card is None or state.collection[cid] < 1:
        raise AccountError(f"card {cid} is not in the collection: nothing to {verb} (R-DESTROY)")
    return card


def _check_slot(econ: EconomyRules, slot: int) -> None:
    if type(slot) is not int or not 0 <= slot < econ.deck_slots:
        raise AccountError(f"a deck slot is 0..{econ.deck_slots - 1}, got {slot!r} (R-DECKSLOT)")


# --- rules of the economy ------------------------------------------------------------------------------------


def destroy_value(econ: EconomyRules, card: CardDef) -> int:
    """Material a destroyed copy gives, by the card's tier (R-DESTROY)."""
    return econ.destroy_material[tier(card.rarity)]


def craft_cost(econ: EconomyRules, card: CardDef) -> int:
    """Material a craft costs (R-CRAFT)."""
    return econ.destroy_material[tier(card.rarity)] * econ.craft_factor


def pack_odds(cards: dict[int, CardDef], econ: EconomyRules, boosted: bool) -> dict[int, float]:
    """Each card's chance in a slot of a pack (R-PACK), or in the boosted slot (R-PACK-BOOST)."""
    weights = {c.id: 100.0 - c.rarity for c in sorted(cards.values(), key=lambda c: c.id)
               if not c.token and c.rarity < 100 and (not boosted or c.rarity >= econ.boost_min_rarity)}
    total = sum(weights.values())
    return {cid: w / total for cid, w in weights.items()}


def draw_pack(cards: dict[int, CardDef], econ: EconomyRules, pack_seed: int, pack: int) -> tuple[int, ...]:
    """The cards of pack number `pack`: ``pack_size - 1`` slots by `pack_odds`, the last one boosted."""
    rng = derived_random(pack_seed, pack)
    normal, boosted = pack_odds(cards, econ, False), pack_odds(cards, econ, True)
    out = []
    for slot in range(econ.pack_size):
        odds = boosted if slot == econ.pack_size - 1 else normal
        r = rng.next_double()
        chosen = -1
        for cid, p in odds.items():
            chosen = cid
            r -= p
            if r < 0:
                break
        out.append(chosen)
    return tuple(out)


def starter_cards(state: Account) -> tuple[int, ...]:
    """The starter collection (R-STARTER): `STARTER_COPIES` copies of each of the commonest collectible cards
    (lowest rarity first, then lowest id; none of rarity at least `rare_threshold`), enough for one deck."""
    econ = state.economy
    copies = min(STARTER_COPIES, econ.max_copies)
    kinds = -(-econ.deck_size // copies)
    pool = sorted((c for c in state.cards.values() if not c.token and c.rarity < min(econ.rare_threshold, 100)),
                  key=lambda c: (c.rarity, c.id))
    if len(pool) < kinds:
        raise AccountError(f"the card pool has {len(pool)} cards below rarity {econ.rare_threshold:g}, a starter "
                           f"deck needs {kinds} (R-STARTER)")
    cards = [c.id for c in pool[:kinds] for _ in range(copies)][:econ.deck_size]
    return tuple(sorted(cards))


def deck_problem(state: Account, deck: Iterable[int]) -> str | None:
    """Why `deck` cannot be saved: R-DECK's rules, or more copies of a card than owned (R-DECKSLOT)."""
    econ = state.economy
    deck = list(deck)
    if len(deck) != econ.deck_size:
        return f"expected {econ.deck_size} cards, got {len(deck)} (R-DECK)"
    for cid, n in sorted(Counter(deck).items()):
        card = state.cards.get(cid)
        if card is None:
            return f"card {cid} is not a collectible card (R-DECK)"
        limit = econ.max_copies_rare if card.rarity >= econ.rare_threshold else econ.max_copies
        if n > limit:
            return f"{n} copies of card {cid} ({card.name}): at most {limit} (R-DECK)"
        if n > state.collection[cid]:
            return f"{n} copies of card {cid} ({card.name}), the collection holds {state.collection[cid]} (R-DECKSLOT)"
    return None


def match_deck(state: Account, slot: int | None = None) -> tuple[int, ...]:
    """The deck an account plays a match with: slot `slot`, or its first deck (R-PLAYDECK)."""
    if not state.decks:
        last = state.economy.deck_slots - 1
        raise AccountError(f"account {state.account!r} has no deck: save one in a slot (0..{last}) first; a match "
                           "needs one (R-PLAYDECK)")
    if slot is None:
        slot = min(state.decks)
    if slot not in state.decks:
        raise AccountError(f"deck slot {slot} is empty (R-PLAYDECK)")
    return state.decks[slot][1]


# --- evolve, fold, audit -------------------------------------------------------------------------------------


def evolve_account(state: Account | None, e: AccountEvent) -> Account:
    """Apply one fact of an account's log (the fold's working copy is changed in place)."""
    if state is None:
        if type(e) is not AccountOpened or e.seq != 0:
            raise InvalidLogError("an account's log starts with account_opened (seq 0)", e.seq)
        return Account(e)
    if e.seq != state.seq:
        raise InvalidLogError(f"account event {e.seq} out of sequence: expected seq {state.seq}", e.seq)
    match e:
        case StarterGranted():
            state.collection.update(e.cards)
        case PackOpened():
            state.gold -= e.price
            state.packs += 1
            state.collection.update(e.cards)
        case CardDestroyed():
            state.collection[e.card] -= 1
            state.material += e.material
        case CardCrafted():
            state.collection[e.card] += 1
            state.material -= e.material
        case MatchRewarded():
            state.gold += e.gold
            state.rewarded.add(e.match)
        case DeckSaved():
            state.decks[e.slot] = (e.name, e.cards)
        case DeckDeleted():
            state.decks.pop(e.slot, None)
        case _:
            raise InvalidLogError(f"account event {e.seq}: {type(e).__name__} is not an account event", e.seq)
    state.seq += 1
    return state


def fold_account(events: Iterable[AccountEvent]) -> Account:
    state: Account | None = None
    for e in events:
        state = evolve_account(state, e)
    if state is None:
        raise AccountError("an empty log has no account")
    return state


def command_of(e: AccountEvent) -> AccountCommand:
    """The command an account event is the fact of."""
    match e:
        case AccountOpened():
            return OpenAccount(e.account, e.pack_seed, e.economy, e.cards)
        case StarterGranted():
            return GrantStarter()
        case PackOpened():
            return BuyPack()
        case CardDestroyed():
            return DestroyCard(e.card)
        case CardCrafted():
            return CraftCard(e.card)
        case MatchRewarded():
            return RewardMatch(e.match, e.result)
        case DeckSaved():
            return SaveDeck(e.slot, e.name, e.cards)
        case DeckDeleted():
            return DeleteDeck(e.slot)
    raise AccountError(f"account event {e.seq}: {type(e).__name__} names no command")


class AccountAudit(NamedTuple):
    """The result of re-deciding an account's log: ``seq`` of the first event the rules do not give (-1: none)
    and why."""

    seq: int
    reason: str

    @property
    def ok(self) -> bool:
        return self.seq == -1


def audit_account(log: Iterable[AccountEvent]) -> AccountAudit:
    """Re-decide an account's log, command by command, from nothing (R-ACCOUNT): each event must be exactly
    what its command gives on the state before it."""
    state: Account | None = None
    for e in log:
        try:
            expected = decide_account(state, command_of(e))
        except AccountError as exc:
            return AccountAudit(e.seq, str(exc))
        if expected != [e]:
            got = expected[0]
            return AccountAudit(e.seq, f"the rules give {msgspec.json.encode(got).decode()[:200]}")
        state = evolve_account(state, e)
    return AccountAudit(-1, "")


def provenance(log: Iterable[AccountEvent]) -> dict[int, list[int]]:
    """For every card owned at the end of the log, the seqs of the starter, packs or crafts its copies came from
    (a destroyed copy is the oldest one)."""
    where: dict[int, list[int]] = {}
    for e in log:
        match e:
            case PackOpened() | StarterGranted():
                for cid in e.cards:
                    where.setdefault(cid, []).append(e.seq)
            case CardCrafted():
                where.setdefault(e.card, []).append(e.seq)
            case CardDestroyed():
                copies = where.get(e.card)
                if not copies:
                    raise AccountError(f"account event {e.seq}: card {e.card} destroyed, but no copy came from the "
                                       "starter, a pack or a craft")
                copies.pop(0)
    return {cid: seqs for cid, seqs in sorted(where.items()) if seqs}


__all__ = ["Account", "ECONOMY", "OpenAccount", "BuyPack", "DestroyCard", "CraftCard", "RewardMatch", "SaveDeck",
           "DeleteDeck", "AccountCommand", "decide_account", "evolve_account", "fold_account", "audit_account",
           "AccountAudit", "provenance", "draw_pack", "pack_odds", "destroy_value", "craft_cost", "deck_problem",
           "match_deck", "command_of", "economy_problem", "starter_cards", "STARTER_COPIES", "GrantStarter"]
