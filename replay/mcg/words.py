"""my-card-game's events in words for the replay tools: a card's effects as sentences (``when it dies: deals
1 damage to every monster``), a player's command as what it asks for (not its JSON), and a triggered effect
with what it does. Every word is built from the log's values (card names, numbers); nothing is evaluated."""

from __future__ import annotations

import json
from typing import Any

_WHO = {"target": "the chosen target", "self": "itself", "own_player": "its player",
        "enemy_player": "the opponent", "both_players": "both players", "all_monsters": "every monster",
        "enemy_monsters": "every enemy monster", "own_monsters": "every monster of its side",
        "other_own_monsters": "every other monster of its side", "enemy_characters": "every enemy",
        "random_enemy_monster": "a random enemy monster"}
_WHEN = {"summon": "when summoned", "death": "when it dies", "turn": "at each of its player's turns",
         "turn_start": "at the start of each of its player's turns",
         "main_start": "at the start of each of its player's main phases", "play": "when played", "": "when played"}
_AT = {"end_phase": "at the end of this turn", "turn_start": "at the start of its player's next turn"}


def effect_words(e: Any, names: dict[int, str]) -> str:
    """One effect (a card's ``Effect``, or its dict in a view) as a sentence."""
    get = (lambda k, d=None: e.get(k, d)) if isinstance(e, dict) else (lambda k, d=None: getattr(e, k, d))
    do, to = get("do", ""), _WHO.get(get("to", ""), str(get("to", "")).replace("_", " "))
    amount = get("amount", 0)
    if do == "damage":
        what = f"deals {amount} damage to {to}"
    elif do == "heal":
        what = f"heals {to} by {amount}"
    elif do == "raise_max_health":
        what = f"raises the maximum health of {to} by {amount}"
    elif do == "reduce_toughness":
        what = f"takes {amount} toughness from {to}"
    elif do == "buff":
        what = f"gives {to} +{get('power', 0)} power and +{get('toughness', 0)} toughness"
    elif do == "draw":
        what = f"{to} draws {amount} card{'s' if amount != 1 else ''}"
    elif do == "destroy":
        what = f"destroys {to}"
    elif do == "summon":
        count = get("count", 1)
        what = f"summons {count} {names.get(get('card', 0), 'card ' + str(get('card', 0)))}"
    else:
        what = f"{str(do).replace('_', ' ')} {to}"
    at = get("at", "") or ""
    when = _AT.get(at, at) if at else _WHEN.get(get("on", "") or "", get("on", ""))
    return f"{when}: {what}"


def card_words(effects: Any, names: dict[int, str]) -> str:
    """A card's effects, each as a sentence ("" for none)."""
    return "; ".join(effect_words(e, names) for e in effects)


def command_words(player: int, text: str, kind: str, name: Any) -> str:
    """A player's command (its JSON text) as what it asks; `name(id)` names a card instance. A text that is not
    a command the game knows is said to be unreadable, quoted as a string only."""
    who = f"player {player}"
    try:
        c = json.loads(text) if text else {}
    except ValueError:
        c = None
    if not isinstance(c, dict) or not c:
        return f"{who} sends an unreadable command ({len(text)} characters)" if text else f"{who}: {kind}"
    do = c.get("do")
    ids = c.get("ids") if isinstance(c.get("ids"), list) else []
    if do == "start":
        return f"{who} asks that player {c.get('first')} play first"
    if do == "mulligan":
        return f"{who} asks to put back {', '.join(name(i) for i in ids) or 'no card'}"
    if do == "play":
        target = f" on {name(c['target'])}" if "target" in c else ""
        return f"{who} asks to play {name(c.get('id'))}{target}"
    if do == "attack":
        return f"{who} asks {name(c.get('id'))} to attack {name(c.get('target'))}"
    if do == "end":
        return f"{who} ends the turn"
    if do == "surrender":
        return f"{who} surrenders"
    return f"{who} sends a command the game does not know ({str(do)[:30]})"
