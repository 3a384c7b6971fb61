"""How far the text's rules can go, so that a cap this project adds never cuts one short (R-CAP, R-VARIANT:
"rules may be added but not subtracted").

Two caps end what the text lets run on: ``chain_limit`` (effects one command may trigger) and ``turn_limit``
(turns of a game). A cap below what a legal game of a card pool can reach would end such a game by the cap,
not by the text's rules (a required death effect fizzling, a game won on health at turn 2), so a ruleset's
caps must be at least the bounds computed here from its rules and its card pool. A bound is ``None`` when the
pool has none: tokens that summon tokens in a loop (possible only with a variant's cards); the cap then stops
the loop, and must still be at least the bound of the text's own card file.

The chain bound. In one command every instance on the board (at most ``2 * board_size``) and the card played
trigger each of their effects at most once (a monster is summoned once, dies once, and a command holds at most
one end phase and one start of a turn, whose hooks see only the monsters there when the phase starts); a token
an effect summons brings its own effects, so an instance's *weight* is its effects plus its summons' counts
times their tokens' weights. The effects that waited for a phase come from spells played before (at most
``deck_size`` of each player), and a variant's end-phase effects add theirs.

The turn bound. Every turn its player draws a card (R-DRAW), so a deck is empty after ``deck_size -
opening_hand`` own turns and the n-th own turn after that deals fatigue n (R-FATIGUE). Health comes only from
heals: the one-shot heals of at most ``2 * deck_size`` cards, and per own turn the recurring heals (turn and
phase-start effects) of at most ``2 * board_size`` monsters and the variant's end-phase heals of two end
phases. The first n at which the fatigue taken outweighs the most health a player can have is the last own
turn a player can survive; the game ends by turn twice that at the latest.

The same rule holds for the collection economy (R-ACCOUNT): an account's economy and card pool are the game's,
and a variant may only add a rule to them, never subtract one (`not_the_games`): its deck rules tightened as a
match's are, every other value the built-in one, the card file's cards neither left out nor added.
"""

from __future__ import annotations

import functools
from typing import Iterable, Mapping

from locm.engine.mcg.cards import base_cards, collectible
from locm.engine.mcg.rules import FIELDS, LOWER
from locm.events.mcg.account import EconomyRules
from locm.events.mcg.rules import CardDef, Effect, McgRules

_RECURRING = ("turn", "turn_start", "main_start")
_MOST_TURNS = 1_000_000
_HEALS_PLAYERS = ("own_player", "enemy_player", "both_players", "target", "enemy_characters")


class _Loop(Exception):
    """Tokens summon tokens in a loop: no bound."""


def _tokens(effect: Effect, cards: Mapping[int, CardDef]) -> CardDef | None:
    return cards.get(effect.card) if effect.do == "summon" else None


def _weight(card: CardDef, cards: Mapping[int, CardDef], seen: tuple[int, ...] = ()) -> int:
    """Effects an instance of `card` triggers in one command, with those of the tokens it summons."""
    if card.id in seen:
        raise _Loop(card.id)
    total = len(card.effects)
    for e in card.effects:
        token = _tokens(e, cards)
        if token is not None:
            total += e.count * _weight(token, cards, (*seen, card.id))
    return total


def _heal(e: Effect) -> int:
    return e.amount if e.do == "heal" and e.to in _HEALS_PLAYERS else 0


def _one_shot_heal(card: CardDef, cards: Mapping[int, CardDef], seen: tuple[int, ...] = ()) -> int:
    """The most health an instance of `card` gives a player once (its summon, death and spell effects, and the
    tokens they summon)."""
    if card.id in seen:
        raise _Loop(card.id)
    total = 0
    for e in card.effects:
        if e.on in _RECURRING:
            continue
        total += _heal(e)
        token = _tokens(e, cards)
        if token is not None:
            total += e.count * _one_shot_heal(token, cards, (*seen, card.id))
    return total


def _recurring_heal(card: CardDef, cards: Mapping[int, CardDef]) -> int:
    """The most health a monster of `card` gives a player per own turn (its turn and phase-start effects)."""
    total = 0
    for e in card.effects:
        if e.on in _RECURRING:
            total += _heal(e)
            token = _tokens(e, cards)
            if token is not None:
                total += e.count * _one_shot_heal(token, cards, (card.id,))
    return total


@functools.lru_cache(maxsize=64)
def _bounds(rules: McgRules, pool_items: tuple[tuple[int, CardDef], ...]) -> tuple[int | None, int | None]:
    cards = dict(pool_items)
    decks = [c for c in cards.values() if not c.token and c.id not in rules.banned]
    try:
        weight = max(_weight(c, cards) for c in cards.values())
        delayed = max((sum(1 + (e.count * _weight(t, cards) if (t := _tokens(e, cards)) else 0)
                           for e in c.effects if e.at) for c in decks), default=0)
        extra = sum(1 + (x.effect.count * _weight(t, cards) if (t := _tokens(x.effect, cards)) else 0)
                    for x in rules.end_phase)
        chain: int | None = (2 * rules.board_size + 1) * weight + 2 * rules.deck_size * delayed + extra
    except _Loop:
        chain = None
    try:
        once = 2 * rules.deck_size * max((_one_shot_heal(c, cards) for c in decks), default=0)
        per_turn = 2 * rules.board_size * max((_recurring_heal(c, cards) for c in cards.values() if c.type ==
                                               "monster"), default=0)
        per_turn += 2 * sum(_heal(x.effect) for x in rules.end_phase)
        before = rules.deck_size - rules.opening_hand
        n, taken = 0, 0
        while n < _MOST_TURNS:
            n += 1
            taken += rules.fatigue_start + rules.fatigue_step * (n - 1)
            if taken >= rules.start_health + once + per_turn * (before + n):
                break
        turns: int | None = 2 * (before + n) if n < _MOST_TURNS else None
    except _Loop:
        turns = None
    return chain, turns


def bounds(rules: McgRules, cards: Mapping[int, CardDef]) -> tuple[int | None, int | None]:
    """(the most effects one command can trigger, the last turn a game can reach) under `rules` with the card
    pool `cards`; None where the pool has no bound (a loop of tokens)."""
    return _bounds(rules, tuple(sorted(cards.items())))


DECK_RULES = ("deck_size", "max_copies", "max_copies_rare", "rare_threshold")
"""The economy's values that are the match's deck rules (R-DECK, R-DECKSLOT): a variant may tighten them as it
may tighten the match's (`engine.mcg.rules.FIELDS`); every other value of an account's economy is the game's."""


def not_the_games(econ: EconomyRules, cards: Iterable[CardDef]) -> str | None:
    """Why an account's economy or card pool is not the game's (R-ACCOUNT), or None: its values are the
    built-in economy's (`EconomyRules()`) but for deck rules a variant tightens ("rules may be added, never
    subtracted", R-VARIANT), and its cards are the card file's collectible cards, each as the file defines
    it, none left out or added."""
    own_economy = EconomyRules()
    for name in EconomyRules.__struct_fields__:
        got, own = getattr(econ, name), getattr(own_economy, name)
        if got == own:
            continue
        info = FIELDS.get(name) if name in DECK_RULES else None
        if info is not None and info.change == LOWER and info.low <= got < own:
            continue
        how = (f"{info.low:g}..{own:g} (a variant may tighten it)" if info is not None and info.change == LOWER
               else f"{own!r}")
        return f"{name}: expected {how}, the log declares {got!r}"
    game = {c.id: c for c in collectible(base_cards())}
    pool = {c.id: c for c in cards if not c.token}
    for cid, card in sorted(pool.items()):
        if cid not in game:
            return f"card {cid} ({card.name[:40]}) is not a card of the game (R-CARDS)"
        if card != game[cid]:
            return f"card {cid} ({game[cid].name}) is not the card file's card {cid} (R-CARDS)"
    missing = sorted(set(game) - set(pool))
    if missing:
        shown = ", ".join(map(str, missing[:8])) + (", ..." if len(missing) > 8 else "")
        return f"the card pool leaves out {len(missing)} of the game's {len(game)} cards ({shown}; R-PACK)"
    return None


CAPS = ("chain_limit", "turn_limit")


def least_caps(rules: McgRules, cards: Mapping[int, CardDef], text: tuple[int | None, int | None]) -> dict[str, int]:
    """The least value of each cap that cuts no legal game under `rules` with `cards`: its bound, or the text's
    own (`text`, the bounds of the built-in rules and card file) where the pool has none."""
    own = bounds(rules, cards)
    return {cap: b if b is not None else (t or 0) for cap, b, t in zip(CAPS, own, text)}


__all__ = ["bounds", "least_caps", "CAPS", "not_the_games", "DECK_RULES"]
