"""One line per event, as a person reads it: ``P0's #7 attacks #6``, ``P1 loses 2 health (attack)``.

`describe` needs to know whose a card instance is and what it is: `units` maps every instance id of the game
to its `Unit` (the final state's ``units``: an id, once dealt, is never reused). With a ``perspective`` the
other player's drawn cards are not named.
"""

from __future__ import annotations

from typing import Any

from locm.events.locm.cards import keywords_to_str
from locm.events.locm.catalog import (
    ActionReceived, ActionRejected, CardDrawn, CardPicked, CardPoolDefined, CreatureAttacked, CreatureDamaged,
    CreatureDied, CreatureModified, CreatureSummoned, DeckChosen, DeckOrdered, DraftOffered, DrawBonus, DrawLost,
    GameCreated, GameEnded, HardError, ItemUsed, PlayerDamaged, PlayerHealed, RuneBroken, TurnEnded, TurnStarted,
    WardLost,
)


def _u(units: dict[int, Any], i: int) -> str:
    u = units.get(i)
    if u is None:
        return f"#{i}"
    return f"P{u.owner}'s #{i} ({_card(units, i, u.card.base_id)})"


def _card(units: dict[int, Any], i: int, base_id: int) -> str:
    """A card instance's name where its card has one (the 1.2 list), else its base id (``b94``)."""
    u = units.get(i)
    return u.card.name if u is not None and u.card.name else f"b{base_id}"


def describe(e: Any, units: dict[int, Any], perspective: int | None = None) -> str:
    match e:
        case GameCreated():
            return (f"game created: ruleset {e.ruleset} {e.ruleset_version}, seed {e.seed}"
                    + (f", agents {e.agents[0] or '?'} vs {e.agents[1] or '?'}" if any(e.agents) else ""))
        case CardPoolDefined():
            return f"card pool: {len(e.cards)} cards"
        case DraftOffered():
            return f"draft round {e.round} offers b{e.base_ids[0]}, b{e.base_ids[1]}, b{e.base_ids[2]}"
        case CardPicked():
            return f"P{e.player} picks b{e.base_id} (draft round {e.round})"
        case DeckChosen():
            return f"P{e.player} chooses a deck of {len(e.base_ids)} cards"
        case DeckOrdered():
            return f"P{e.player}'s deck is shuffled ({len(e.ids)} cards)"
        case ActionReceived():
            return f"P{e.player} sends: {e.text if e.text else '(empty line)'}"
        case ActionRejected():
            return f"P{e.player}'s {e.action} is skipped: {e.reason}"
        case HardError():
            return f"P{e.player} hard error: {e.reason}" + (f" (answer {e.text!r})" if e.text else "")
        case TurnStarted():
            return (f"turn {e.turn}: P{e.player} starts, mana {e.mana}/{e.max_mana}, draws {e.draws}"
                    + (" (bonus mana spent)" if e.bonus_spent else ""))
        case TurnEnded():
            return f"P{e.player} ends the turn"
        case CardDrawn():
            if perspective is not None and perspective != e.player:
                return f"P{e.player} draws a card"
            u = units.get(e.id)
            return f"P{e.player} draws #{e.id}" + (f" ({_card(units, e.id, u.card.base_id)})" if u is not None else "")
        case DrawLost():
            return f"P{e.player} loses a draw: {e.reason}"
        case DrawBonus():
            return f"P{e.player} draws {e.amount} more next turn ({e.source})"
        case CreatureSummoned():
            what = f"an Area copy of #{e.copy_of}" if e.copy_of else f"for {e.cost} mana"
            return f"P{e.player} summons #{e.id} ({_card(units, e.id, e.base_id)}) in lane {e.lane}, {what}"
        case CreatureAttacked():
            target = f"P{1 - e.player} directly" if e.target == -1 else _u(units, e.target)
            return f"{_u(units, e.attacker)} attacks {target}"
        case ItemUsed():
            target = f"P{1 - e.player}" if e.target == -1 else _u(units, e.target)
            return f"P{e.player} uses #{e.id} ({_card(units, e.id, e.base_id)}) on {target} for {e.cost} mana"
        case CreatureModified():
            return (f"{_u(units, e.id)} becomes {e.attack}/{e.defense} {keywords_to_str(e.keywords)}"
                    + (", can attack" if e.can_attack else ""))
        case WardLost():
            return f"{_u(units, e.id)} loses its Ward (the hit is absorbed)"
        case CreatureDamaged():
            return f"{_u(units, e.id)} takes {e.amount} damage"
        case CreatureDied():
            return f"{_u(units, e.id)} dies"
        case PlayerDamaged():
            return f"P{e.player} loses {e.amount} health ({e.source})"
        case PlayerHealed():
            return f"P{e.player} gains {e.amount} health ({e.source})"
        case RuneBroken():
            return f"P{e.player}'s rune {e.rune} breaks"
        case GameEnded():
            return f"P{e.winner} wins ({e.reason}) in turn {e.turn}"
        case _:
            raise TypeError(f"describe: unknown event type {type(e).__name__}")


def unit_ids(e: Any) -> list[int]:
    """The card instances an event names (for audits of a card's life and of who was involved)."""
    match e:
        case CardDrawn() | WardLost() | CreatureDamaged() | CreatureDied() | CreatureModified():
            return [e.id]
        case CreatureSummoned():
            return [e.id] + ([e.copy_of] if e.copy_of else [])
        case CreatureAttacked():
            return [e.attacker] + ([e.target] if e.target != -1 else [])
        case ItemUsed():
            return [e.id] + ([e.target] if e.target != -1 else [])
        case ActionRejected():
            return _ints(e.action)
        case ActionReceived():
            return _ints(e.text)
        case _:
            return []


def _ints(text: str) -> list[int]:
    """Instance ids named by action items: ``SUMMON id lane``, ``ATTACK id target``, ``USE id target``."""
    out = []
    for item in text.split(";"):
        words = item.split()
        if not words or words[0] not in ("SUMMON", "ATTACK", "USE"):
            continue
        n = 1 if words[0] == "SUMMON" else 2
        for tok in words[1:1 + n]:
            if tok.lstrip("-").isdigit() and int(tok) > 0:
                out.append(int(tok))
    return out
