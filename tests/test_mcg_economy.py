"""The collection economy of my-card-game (R-ACCOUNT … R-PLAYDECK): an account's log, its balances, packs and
their odds, destroying and crafting, match rewards, deck slots, and the audit that re-decides a log."""

from __future__ import annotations

import math
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from locm.engine.mcg.cards import TIERS, base_pool, tier
from locm.engine.mcg.economy import (
    ECONOMY, BuyPack, CraftCard, DeleteDeck, DestroyCard, GrantStarter, OpenAccount, RewardMatch, SaveDeck, audit_account,
    craft_cost, decide_account, destroy_value, draw_pack, evolve_account, fold_account, match_deck, pack_odds,
    provenance,
)
from locm.engine.mcg.errors import AccountError
from locm.engine.mcg.game import play_match
from locm.engine.mcg.rules import STANDARD
from locm.events.mcg.account import CardDestroyed, MatchRewarded, PackOpened, StarterGranted
from locm.events.mcg.codec import account_from_jsonl, to_jsonl

CARDS = {c.id: c for c in base_pool().values() if not c.token}


class Ledger:
    """An account driven by commands: its state and log."""

    def __init__(self, account: str = "alice", seed: int = 7) -> None:
        self.log = decide_account(None, OpenAccount(account, seed))
        self.state = fold_account(self.log)

    def do(self, command):
        events = decide_account(self.state, command)
        for e in events:
            self.state = evolve_account(self.state, e)
        self.log += events
        return events


def a_deck(ledger: Ledger) -> tuple[int, ...]:
    """A legal deck from what the account owns (the most copies allowed of each card, by id)."""
    out: list[int] = []
    for cid, n in sorted(ledger.state.collection.items()):
        limit = 1 if CARDS[cid].rarity >= 75 else 3
        out += [cid] * min(n, limit)
    return tuple(out[:30])


def test_an_account_opens_with_gold_and_no_cards_and_every_change_is_an_event():
    """R-ACCOUNT: 1000 gold, no material, no card; buying 10 packs spends it all on 50 cards."""
    ledger = Ledger()
    assert (ledger.state.gold, ledger.state.material, sum(ledger.state.collection.values())) == (1000, 0, 0)
    for _ in range(10):
        (event,) = ledger.do(BuyPack())
        assert type(event) is PackOpened and len(event.cards) == 5
    assert ledger.state.gold == 0 and sum(ledger.state.collection.values()) == 50
    with pytest.raises(AccountError, match=r"a pack costs 100 gold, the account has 0 \(R-PACK\)"):
        ledger.do(BuyPack())
    assert fold_account(account_from_jsonl(to_jsonl(ledger.log))).collection == ledger.state.collection


def test_the_starter_is_granted_once_straight_after_the_opening_and_audits():
    """R-STARTER: two copies of each of the 15 commonest cards (none rare), a legal deck; once, at seq 1 only."""
    ledger = Ledger()
    (event,) = ledger.do(GrantStarter())
    commonest = sorted(CARDS.values(), key=lambda c: (c.rarity, c.id))[:15]
    assert type(event) is StarterGranted and Counter(event.cards) == {c.id: 2 for c in commonest}
    assert all(c.rarity < 75 for c in commonest)
    ledger.do(SaveDeck(0, "starter", event.cards))
    assert audit_account(ledger.log).ok and provenance(ledger.log)[commonest[0].id] == [1, 1]
    with pytest.raises(AccountError, match=r"granted once, straight after the opening \(R-STARTER\)"):
        ledger.do(GrantStarter())
    late = Ledger()
    late.do(BuyPack())
    with pytest.raises(AccountError, match="R-STARTER"):
        late.do(GrantStarter())
    forged = [*ledger.log[:1], msgspec.structs.replace(event, cards=(76, *event.cards[1:]))]
    assert audit_account(forged).seq == 1


def test_packs_replay_from_their_recorded_seed():
    """R-PACK: the same seed gives the same packs; another seed other packs; the audit re-draws them."""
    a, b, c = Ledger(seed=1), Ledger(seed=1), Ledger(seed=2)
    for ledger in (a, b, c):
        for _ in range(3):
            ledger.do(BuyPack())
    assert a.log == b.log and a.log != c.log
    assert audit_account(a.log).ok


def test_destroy_gives_and_craft_costs_material_by_tier():
    """R-DESTROY, R-CRAFT: rarer cards give and cost more; crafting costs four times what destroying gives."""
    values = [destroy_value(ECONOMY, c) for c in sorted(CARDS.values(), key=lambda c: c.rarity)]
    assert values == sorted(values) and len(set(values)) == len(TIERS)
    ledger = Ledger()
    for _ in range(4):
        ledger.do(BuyPack())
    cid = min(ledger.state.collection)
    (event,) = ledger.do(DestroyCard(cid))
    assert type(event) is CardDestroyed and event.material == ECONOMY.destroy_material[tier(CARDS[cid].rarity)]
    cheapest = min(CARDS.values(), key=lambda c: craft_cost(ECONOMY, c))
    assert craft_cost(ECONOMY, cheapest) == 4 * destroy_value(ECONOMY, cheapest)
    with pytest.raises(AccountError, match="costs .* material, the account has .* \\(R-CRAFT\\)"):
        ledger.do(CraftCard(max(CARDS.values(), key=lambda c: c.rarity).id))
    while ledger.state.material < craft_cost(ECONOMY, cheapest):
        ledger.do(DestroyCard(next(c for c, n in sorted(ledger.state.collection.items()) if n)))
    before = ledger.state.collection[cheapest.id]
    ledger.do(CraftCard(cheapest.id))
    assert ledger.state.collection[cheapest.id] == before + 1


def test_tokens_and_unknown_cards_cannot_be_crafted_and_unowned_cannot_be_destroyed():
    ledger = Ledger()
    with pytest.raises(AccountError, match="not a collectible card"):
        ledger.do(CraftCard(901))
    with pytest.raises(AccountError, match=r"card 1 is not in the collection"):
        ledger.do(DestroyCard(1))


def test_a_match_rewards_gold_once_by_its_id():
    """R-REWARD: a win 30 gold, a loss 10; the event names the match; a match is rewarded once."""
    ledger = Ledger()
    game = play_match(seeds=3, agents=("greedy", "random"))
    match_id = f"mcg-seed-{game.log[0].seeds.seed}"
    (event,) = ledger.do(RewardMatch(match_id, "win" if game.state.winner == 0 else "loss"))
    assert type(event) is MatchRewarded and event.match == match_id and event.gold in (30, 10)
    with pytest.raises(AccountError, match="already been rewarded"):
        ledger.do(RewardMatch(match_id, "win"))
    with pytest.raises(AccountError, match="'win' or 'loss'"):
        ledger.do(RewardMatch("other", "draw"))


def test_nine_deck_slots_decks_select_the_collection_and_a_match_needs_one():
    """R-DECKSLOT, R-PLAYDECK: slots 0..8; a deck holds no more copies than owned and follows R-DECK; a card
    may be in several decks; a copy a deck needs is not destroyed; no deck, no match."""
    ledger = Ledger()
    with pytest.raises(AccountError, match=r"has no deck: .* a match needs one \(R-PLAYDECK\)"):
        match_deck(ledger.state)
    for _ in range(10):
        ledger.do(BuyPack())
    deck = a_deck(ledger)
    assert len(deck) == 30
    for slot in range(9):
        ledger.do(SaveDeck(slot, f"deck {slot}", deck))
    with pytest.raises(AccountError, match=r"a deck slot is 0..8, got 9"):
        ledger.do(SaveDeck(9, "tenth", deck))
    full = next(c for c, n in sorted(ledger.state.collection.items()) if deck.count(c) == n)
    other = next(k for k, c in enumerate(deck) if c != full)
    extra = tuple(sorted(deck[:other] + deck[other + 1:] + (full,)))
    with pytest.raises(AccountError, match=r"the collection holds"):
        ledger.do(SaveDeck(0, "x", extra))
    with pytest.raises(AccountError, match=r"deck 0 \('deck 0'\) holds .*take it out before destroying"):
        ledger.do(DestroyCard(full))
    game = play_match(STANDARD, seeds=1, decks=(match_deck(ledger.state, 4), match_deck(ledger.state)))
    assert game.ended and game.log[0].decks[0] == deck
    for slot in range(9):
        ledger.do(DeleteDeck(slot))
    with pytest.raises(AccountError, match="has no deck"):
        match_deck(ledger.state)


def test_the_audit_names_a_forged_pack_a_negative_balance_and_an_unowned_card():
    """R-ACCOUNT: re-deciding the log from its commands finds every event the rules would not give."""
    ledger = Ledger()
    for _ in range(3):
        ledger.do(BuyPack())
    log = ledger.log
    assert audit_account(log).ok and sum(len(v) for v in provenance(log).values()) == 15
    forged = list(log)
    forged[2] = msgspec.structs.replace(log[2], cards=(84, 84, 84, 84, 76))
    assert audit_account(forged).seq == 2 and "the rules give" in audit_account(forged).reason
    cheap = list(log) + [msgspec.structs.replace(log[1], seq=4, pack=3, price=1, cards=log[1].cards)]
    assert audit_account(cheap).seq == 4
    rich = [msgspec.structs.replace(log[0], gold=5000)] + list(log[1:])
    assert audit_account(rich).seq == 0
    poor_economy = msgspec.structs.replace(ECONOMY, start_gold=150)  # an economy the log declares: not the game's
    poor = [msgspec.structs.replace(log[0], economy=poor_economy, gold=150)] + list(log[1:])
    result = audit_account(poor)
    assert (result.seq, result.reason) == (0, "an account opens with the game's economy and cards (R-ACCOUNT): "
                                          "start_gold: expected 1000, the log declares 150")
    spent = Ledger()
    for _ in range(10):  # the starting gold buys 10 packs (R-ACCOUNT)
        spent.do(BuyPack())
    eleventh = msgspec.structs.replace(spent.log[-1], seq=len(spent.log), pack=10)
    result = audit_account([*spent.log, eleventh])
    assert (result.seq, result.reason) == (11, "a pack costs 100 gold, the account has 0 (R-PACK)")
    unowned = list(log) + [CardDestroyed(seq=4, cause=-1, rule="R-DESTROY", card=76, material=400)]
    assert audit_account(unowned).seq == 4 and "not in the collection" in audit_account(unowned).reason


@st.composite
def commands(draw):
    kind = draw(st.sampled_from(["pack", "pack", "destroy", "craft", "reward", "save", "delete"]))
    if kind == "pack":
        return BuyPack()
    if kind == "destroy":
        return DestroyCard(draw(st.sampled_from(sorted(CARDS))))
    if kind == "craft":
        return CraftCard(draw(st.sampled_from(sorted(CARDS))))
    if kind == "reward":
        return RewardMatch(f"m{draw(st.integers(0, 5))}", draw(st.sampled_from(["win", "loss", "tie"])))
    if kind == "save":
        return SaveDeck(draw(st.integers(-1, 9)), "d", tuple(draw(st.lists(st.sampled_from(sorted(CARDS)),
                                                                           min_size=30, max_size=30))))
    return DeleteDeck(draw(st.integers(-1, 9)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2 ** 63), 2 ** 63 - 1), script=st.lists(commands(), max_size=40))
def test_balances_never_go_negative_and_every_log_audits(seed, script):
    """R-ACCOUNT: whatever is asked, gold and material stay >= 0, decks hold only owned copies, every owned
    copy traces to a pack or a craft, and the log re-decides exactly."""
    ledger = Ledger(seed=seed)
    for command in script:
        try:
            ledger.do(command)
        except AccountError:
            pass
        s = ledger.state
        assert s.gold >= 0 and s.material >= 0
        for _, deck in s.decks.values():
            assert all(n <= s.collection[c] for c, n in Counter(deck).items())
    assert audit_account(ledger.log).ok
    owned = {c: n for c, n in ledger.state.collection.items() if n}
    assert {c: len(v) for c, v in provenance(ledger.log).items()} == owned


def test_pack_odds_within_a_confidence_interval_over_many_packs():
    """R-PACK, R-PACK-BOOST: over 4000 packs, each tier's share of the normal slots and of the boosted slot is
    within 4 standard deviations of its probability (chance of a card ∝ 100 - rarity; the boosted slot only
    among rarity >= 30)."""
    packs = [draw_pack(CARDS, ECONOMY, 12345, n) for n in range(4000)]
    for boosted, slots in ((False, [c for p in packs for c in p[:4]]), (True, [p[4] for p in packs])):
        odds = pack_odds(CARDS, ECONOMY, boosted)
        assert math.isclose(sum(odds.values()), 1.0)
        counts = Counter(tier(CARDS[c].rarity) for c in slots)
        for t in range(len(TIERS)):
            p = sum(q for c, q in odds.items() if tier(CARDS[c].rarity) == t)
            n = len(slots)
            assert abs(counts[t] - n * p) <= 4 * math.sqrt(n * p * (1 - p)) + 1, (boosted, TIERS[t], counts[t], n * p)
        if boosted:
            assert all(CARDS[c].rarity >= 30 for c in slots)
    normal, boost = pack_odds(CARDS, ECONOMY, False), pack_odds(CARDS, ECONOMY, True)
    rare = [c for c in CARDS if CARDS[c].rarity >= 30]
    assert all(boost[c] > normal[c] for c in rare)  # every uncommon-or-rarer card is likelier in the boosted slot
    legend = max(CARDS, key=lambda c: CARDS[c].rarity)
    basic = min(CARDS, key=lambda c: CARDS[c].rarity)
    assert normal[basic] / normal[legend] == pytest.approx((100 - CARDS[basic].rarity) / (100 - CARDS[legend].rarity))


@pytest.mark.parametrize("change, message", [
    ({"pack_price": 0}, "pack_price: expected an integer in 1..1000000000, got 0"),
    ({"start_gold": -5}, "start_gold: expected an integer in 0..1000000000, got -5"),
    ({"destroy_material": (5, 10, 20)}, "destroy_material: expected 7 integers"),
    ({"destroy_material": (5, 10, 20, 50, 100, 400, 200)}, "destroy_material: expected the rarer tier to give"),
    ({"boost_min_rarity": 100.0}, "an account's card pool holds each card once, and a card of rarity below 100"),
])
def test_an_economy_that_cannot_be_played_is_refused(change, message):
    """R-ACCOUNT: an account cannot open with values that would make gold from nothing or a slot with no card."""
    with pytest.raises(AccountError, match=message.replace("(", r"\(").replace(")", r"\)")):
        decide_account(None, OpenAccount("bob", 1, msgspec.structs.replace(ECONOMY, **change)))
