"""The 1.2 draft (R-DRAFT): 60 cards drawn from the list, 30 rounds of three, both players pick from each."""

from __future__ import annotations

from typing import cast

from locm.events.locm.catalog import CardPicked, CardPoolDefined, DraftOffered, GameCreated
from locm.engine.corebuild import core, native_module
from locm.engine.locm.carddata import CARDLIST_SIZE, cardlist_12
from locm.engine.locm.emit import Out
from locm.engine.jrandom import JavaRandom
from locm.engine.errors import GameParamError
from locm.engine.locm.rulesets import RULES_12, Ruleset
from locm.engine.locm.drawing import begin_battle
from locm.engine.locm.state import GameState

ROUNDS = RULES_12.draft_rounds  # the official value (30), a default for tests and tools


def draft_offers(draft_choices_seed: int, rounds: int = ROUNDS) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The drafted baseIds (twice the rounds: 60) and the offered triples, as the referee draws them; under the
    native core (`engine.corebuild.core`), drawn by it (core.cpp's `draft_offers`, the referee's procedure)."""
    if _native_selected():
        native, _ = native_module("locm")
        if native is not None:
            pool, offers = native.draft_offers(draft_choices_seed, rounds)
            return pool, offers
    batched = _offers_batched(draft_choices_seed, rounds)
    if batched is not None:
        return batched
    return _offers_one_by_one(draft_choices_seed, rounds)


def _native_selected() -> bool:
    return core().kind == "native"


def _offers_one_by_one(draft_choices_seed: int, rounds: int) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The referee's procedure call by call: 60 distinct cards of 160, then per round three distinct of the 60."""
    r = JavaRandom(draft_choices_seed)
    taken: set[int] = set()
    pool: list[int] = []
    size = min(2 * rounds, CARDLIST_SIZE)
    while len(pool) < size:
        i = r.next_int(CARDLIST_SIZE)
        if i not in taken:
            taken.add(i)
            pool.append(i + 1)
    offers = []
    for _ in range(rounds):
        a = r.next_int(size)
        b = r.next_int(size)
        while b == a:
            b = r.next_int(size)
        c = r.next_int(size)
        while c == a or c == b:
            c = r.next_int(size)
        offers.append((pool[a], pool[b], pool[c]))
    return pool, offers


def _offers_batched(draft_choices_seed: int, rounds: int) -> tuple[list[int], list[tuple[int, int, int]]] | None:
    """`_offers_one_by_one` from draws taken all at once (`JavaRandom.next31s`), or None when the batch does
    not do: a draw Java might reject (one above 2**31 - 160: about one game in 70,000) or a stream longer
    than the batch. The caller then replays call by call; the two agree draw for draw (tests/test_jrandom.py).

    Why: drawing one `next_int` at a time (about 166 a game) was half of a game's creation. Here the 60 cards
    are the first distinct values of the draws mod 160 (`dict.fromkeys`, in C), and a round takes the next
    three draws mod 60 unless two are equal (about one round in twenty then walks on draw by draw)."""
    size = min(2 * rounds, CARDLIST_SIZE)
    bits = JavaRandom(draft_choices_seed).next31s(3 * size + 20)  # 60 cards: about 75 + 92 draws are used
    if not bits or max(bits) > 0x80000000 - CARDLIST_SIZE:  # no rejection possible at bound 160 nor at 60
        return None
    firsts = [b % CARDLIST_SIZE for b in bits[:size + size // 2 + 10]]  # 60 cards took 61..96 draws (20,000 seeds)
    distinct = list(dict.fromkeys(firsts))
    if len(distinct) < size:
        firsts = [b % CARDLIST_SIZE for b in bits]
        distinct = list(dict.fromkeys(firsts))
        if len(distinct) < size:
            return None
    pool = [i + 1 for i in distinct[:size]]
    k = firsts.index(distinct[size - 1]) + 1
    if not size & (size - 1):  # next_int of a power of two (a variant's short draft) takes the high bits:
        bits = [0] * k + [(size * b) >> 31 for b in bits[k:]]  # the rounds' values themselves, which the
        size = 1 << 31  # `% size` below then leaves as they are
    # next_int(size) is b % size here (no rejection, see above), taken per draw as the rounds use them
    n = len(bits)
    offers = []
    for _ in range(rounds):
        if k + 3 > n:
            return None
        a, b, c = bits[k] % size, bits[k + 1] % size, bits[k + 2] % size
        if a == b or c == a or c == b:  # a repeated draw is drawn again: walk this round draw by draw
            k += 2
            while b == a:
                if k >= n:
                    return None
                b = bits[k] % size
                k += 1
            c = a
            while c == a or c == b:
                if k >= n:
                    return None
                c = bits[k] % size
                k += 1
        else:
            k += 3
        offers.append((pool[a], pool[b], pool[c]))
    return pool, offers


def parse_predefined(text: str, rounds: int = ROUNDS) -> list[tuple[int, int, int]]:
    """predefinedDraftIds: 30 comma-separated triples of baseIds, `_` standing for spaces."""
    triples = []
    for k, part in enumerate(text.replace("_", " ").split(",")):
        nums = part.split()
        try:
            triple = tuple(int(x) for x in nums)
        except ValueError:
            triple = ()
        if len(triple) != 3 or not all(1 <= b <= CARDLIST_SIZE for b in triple):
            raise GameParamError(
                f"predefinedDraftIds triple {k + 1}: expected 3 baseIds in 1..160, got {part!r}",
                "predefinedDraftIds",
                text,
            )
        triples.append(triple)
    if len(triples) != rounds:
        raise GameParamError(
            f"predefinedDraftIds: expected {rounds} triples, got {len(triples)}", "predefinedDraftIds", text
        )
    return triples


def draft_events(out: Out, created: GameCreated, rules: Ruleset) -> None:
    cards = cardlist_12()
    if rules.cards:  # a variant's changed cards replace the list's (R-DRAFT)
        cards = {**cards, **{c.base_id: c for c in rules.cards}}
    if created.predefined_draft_ids:
        offers = parse_predefined(created.predefined_draft_ids, rules.draft_rounds)
        pool = list(dict.fromkeys(b for t in offers for b in t))
    else:
        pool, offers = draft_offers(cast(int, created.draft_choices_seed), rules.draft_rounds)  # a 1.2 seed param
    out.emit(CardPoolDefined(seq=out.seq, cause=out.cause, rule="R-DRAFT", cards=tuple([cards[b] for b in pool])))
    for rnd, triple in enumerate(offers):
        out.emit(DraftOffered(seq=out.seq, cause=out.cause, rule="R-DRAFT", round=rnd, base_ids=triple))


def is_last_pick(state: GameState, player: int) -> bool:
    """Whether `player`'s pick now is the draft's last (player 1's of the last round): it ends the phase."""
    return player == 1 and state.round == state.rules.draft_rounds - 1


def pick(state: GameState, out: Out, player: int, index: int) -> None:
    last = is_last_pick(state, player)
    picked = out.emit(picked_event(state, out.seq, out.cause, player, index, last))
    if last:
        p0, p1 = state.players
        begin_battle(state, out, (p0.picks, p1.picks + [state.offer[index]]), picked)


def picked_event(state: GameState, seq: int, cause: int, player: int, index: int, last: bool) -> CardPicked:
    """The `CardPicked` of `player` taking card `index` of the offer (`last`: the draft's last pick)."""
    return CardPicked(seq=seq, cause=cause, rule="R-DRAFT", player=player, round=state.round,
                      base_id=state.offer[index], ends_phase=last)
