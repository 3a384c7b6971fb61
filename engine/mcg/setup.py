"""A match's creation (R-SETUP): the seeds (R-RNG), the decks (R-DECK), the card definitions the match can
meet, and the opening events up to the first decision: the coin (R-COIN) or, in a series, the given starter
(R-SERIES) with the shuffles and opening hands."""

from __future__ import annotations

from typing import Mapping, Sequence

import msgspec

from locm.engine.errors import GameParamError
from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.decks import greedy_deck, random_deck
from locm.engine.mcg.emit import Out, derived_random
from locm.engine.mcg.evolve import initial_state
from locm.engine.mcg.rules import STANDARD, check_deck, pool, rules_hash
from locm.engine.mcg.turns import choose_starter
from locm.engine.mcg.behaviour import BEHAVIOUR
from locm.events.mcg.catalog import CoinFlipped, Event, GameCreated
from locm.events.mcg.rules import CardDef, McgRules, Seeds

SEED_NAMES = ("play", "shuffle0", "shuffle1", "deck0", "deck1")  # derived from `seed` in this order (R-RNG)
_LONG = (-(1 << 63), (1 << 63) - 1)


def derive_seeds(seeds: int | Mapping[str, int] | Seeds) -> Seeds:
    """A game's seeds from its `seed` (an int, or a mapping with ``seed`` and any of `SEED_NAMES` given
    explicitly): the missing ones come from `Random(seed).nextLong()` in the order of `SEED_NAMES` (R-RNG)."""
    if isinstance(seeds, Seeds):
        return seeds
    given: dict[str, int] = {"seed": seeds} if isinstance(seeds, int) else dict(seeds)
    for name, value in given.items():
        if name != "seed" and name not in SEED_NAMES:
            raise GameParamError(f"unknown seed {name!r}: expected seed or one of {', '.join(SEED_NAMES)}", name)
        if type(value) is not int or not _LONG[0] <= value <= _LONG[1]:
            raise GameParamError(f"seed {name}: expected a 64-bit integer, got {value!r}", name, value)
    if "seed" not in given:
        raise GameParamError("a game needs a seed", "seed")
    rng = JavaRandom(given["seed"])
    derived = {name: rng.next_long() for name in SEED_NAMES}
    derived.update({k: v for k, v in given.items() if k != "seed"})
    return Seeds(seed=given["seed"], play=derived["play"], shuffle=(derived["shuffle0"], derived["shuffle1"]),
                 deck=(derived["deck0"], derived["deck1"]))


def build_deck(agent: str, cards: Mapping[int, CardDef], rules: McgRules, seed: int) -> tuple[int, ...]:
    """The deck a built-in agent brings when none is given: greedy's by value, any other a random legal one."""
    return greedy_deck(cards, rules, seed) if agent == "greedy" else random_deck(cards, rules, seed)


def create(rules: McgRules = STANDARD, seeds: int | Mapping[str, int] | Seeds = 0,
           agents: Sequence[str] = ("random", "random"), decks: Sequence[Sequence[int]] | None = None,
           first: int | None = None, cards: Mapping[int, CardDef] | None = None,
           bots: Sequence[str] | None = None, behaviour: int | msgspec.UnsetType | None = None,
           accounts: Sequence[str] | None = None) -> list[Event]:
    """The opening events of a match: `game_created`, then the coin (the match waits for its winner's
    choice) or, with `first` given (a series, R-SERIES), the starter, shuffles and opening hands (it waits for
    the first mulligan). `decks` default to the agents' (`build_deck`); `cards` to the ruleset's pool;
    `accounts` names each seat's collection account ("" for none; R-REWARD), recorded only when one is given.
    ``behaviour``: the behaviour of the rules that decides it (`engine.mcg.behaviour`; None: the current one;
    unset: a log's from before behaviours were recorded, re-decided as behaviour 1 with its bytes).
    Raises `DeckError` for a deck that breaks R-DECK, `GameParamError` for bad seeds or a bad `first`."""
    s = derive_seeds(seeds)
    every = pool(rules) if cards is None else dict(cards)
    names = tuple(agents)
    if len(names) != 2 or not all(isinstance(a, str) for a in names):
        raise GameParamError(f"a match has two agents, got {names!r}", "agents", names)
    chosen: tuple[tuple[int, ...], tuple[int, ...]]
    if decks is None:
        chosen = (build_deck(names[0], every, rules, s.deck[0]), build_deck(names[1], every, rules, s.deck[1]))
    else:
        if len(decks) != 2:
            raise GameParamError(f"a match has two decks, got {len(decks)}", "decks")
        chosen = (tuple(decks[0]), tuple(decks[1]))
    for seat in (0, 1):
        check_deck(rules, chosen[seat], every, seat)
    named = tuple(accounts) if accounts and any(accounts) else ()
    if named and (len(named) != 2 or not all(isinstance(a, str) for a in named) or named[0] == named[1]):
        raise GameParamError(f"a match names an account (or \"\") for each of its two seats, two different "
                             f"accounts, got {named!r}", "accounts", named)
    if first not in (None, 0, 1):
        raise GameParamError(f"the first seat is 0 or 1, got {first!r}", "first", first)
    created = GameCreated(seq=0, cause=-1, rule="R-SETUP", rules=rules, rules_hash=rules_hash(rules), seeds=s,
                          agents=(names[0], names[1]), decks=chosen, cards=_used_cards(rules, chosen, every),
                          first=-1 if first is None else first,
                          bots=tuple(bots) if bots and any(bots) else msgspec.UNSET,
                          behaviour=BEHAVIOUR if behaviour is None else behaviour,
                          accounts=named or msgspec.UNSET)
    out = Out(initial_state(created), 0)
    if first is None:
        out.emit(CoinFlipped, "R-COIN", winner=derived_random(s.play, "coin").next_int(2))
    else:
        choose_starter(out, -1, first, "R-SERIES")
    return [created, *out.events]


def _used_cards(rules: McgRules, decks: tuple[tuple[int, ...], ...], cards: Mapping[int, CardDef]) -> tuple[
        CardDef, ...]:
    """The cards of both decks and every token their effects (or a variant's end-phase effects) can summon."""
    todo = {cid for deck in decks for cid in deck}
    todo |= {x.effect.card for x in rules.end_phase if x.effect.do == "summon"}
    seen: set[int] = set()
    while todo:
        cid = todo.pop()
        seen.add(cid)
        todo |= {e.card for e in cards[cid].effects if e.do == "summon"} - seen
    return tuple(cards[cid] for cid in sorted(seen))


__all__ = ["create", "derive_seeds", "build_deck", "SEED_NAMES"]
