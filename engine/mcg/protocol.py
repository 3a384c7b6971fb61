"""The bot protocol of my-card-game: one line of JSON each way (R-ANSWER).

**To the bot**, whenever it is to move, one line (`message`)::

    {"game":"mcg","protocol":1,"seat":0,"view":{...},"legal":[{"do":"play","id":7},...]}

``view`` is `views.view` (what the seat may see, R-VIEW: its hand, both boards and graveyards, both players'
health and mana, the size of every hand and deck; never the opponent's hand nor any deck's order), ``legal``
every legal action now (`legal.legal_actions`), in the answer's own format. Characters are numbers: the
players are 0 and 1, cards have ids from 2 on.

**From the bot**, one line holding one JSON object, its action (`parse_answer`):

- ``{"do":"start","first":S}``: the coin's winner gives the first turn to seat S (phase ``choose``);
- ``{"do":"mulligan","ids":[...]}``: put these hand cards back, up to 3 (``[]`` keeps the hand);
- ``{"do":"play","id":I}`` or ``{"do":"play","id":I,"target":T}``: play hand card I (on character T);
- ``{"do":"attack","id":I,"target":T}``: monster I attacks character T;
- ``{"do":"end"}``: end the turn;  ``{"do":"surrender"}``: give up (accepted at any time).

A line that is not such an object (longer than `MAX_LINE` characters, not JSON, a duplicate or unknown key,
an unknown verb, a number that is not an integer of 32 bits, more than `MAX_IDS` ids) is a hard error: the
bot loses with the reason (`decide.decide_line`). A well-formed action that is not legal now is rejected with
the reason and the bot is asked again (R-REJECT), up to the ruleset's limit (R-CAP).

Both functions are pure: the process layer reads a bounded line and measures time (inactivity is surrender,
R-INACTIVE: `commands.Timeout`).
"""

from __future__ import annotations

import json
from typing import Any

from locm.engine.errors import ProtocolError
from locm.engine.mcg.commands import Attack, ChooseStarter, Command, EndTurn, Mulligan, Play, Surrender
from locm.engine.mcg.legal import legal_actions, to_move
from locm.engine.mcg.state import McgState
from locm.engine.mcg.views import view

PROTOCOL_VERSION = 1
MAX_LINE = 1000  # characters of an answer, its end of line excluded
MAX_IDS = 12
_INT = (-(1 << 31), (1 << 31) - 1)

# verb -> (its keys: required, optional)
_VERBS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "start": (("first",), ()),
    "mulligan": (("ids",), ()),
    "play": (("id",), ("target",)),
    "attack": (("id", "target"), ()),
    "end": ((), ()),
    "surrender": ((), ()),
}


def message(state: McgState, player: int) -> str:
    """The line `player` is sent (ending in a newline): its view and, when it is to move, its legal actions."""
    legal = [c.action() for c in legal_actions(state)] if to_move(state) == player else []
    doc = {"game": "mcg", "protocol": PROTOCOL_VERSION, "seat": player, "view": view(state, player), "legal": legal}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def parse_answer(line: str, player: int) -> Command:
    """The command an answer line of `player` holds; `ProtocolError` (with the line) when it holds none."""
    text = line.rstrip("\r\n")
    if len(text) > MAX_LINE:
        raise ProtocolError(f"answer of {len(text)} characters: at most {MAX_LINE}", text[:80])
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not a JSON object: {_short(exc)}", text) from None
    if not isinstance(doc, dict):
        raise ProtocolError(f"expected a JSON object, got {type(doc).__name__}", text)
    verb = doc.get("do")
    if not isinstance(verb, str) or verb not in _VERBS:
        raise ProtocolError(f"'do' must be one of {', '.join(_VERBS)}, got {_short(verb)}", text)
    required, optional = _VERBS[verb]
    for key in doc:
        if key != "do" and key not in required and key not in optional:
            raise ProtocolError(f"{verb}: unknown key {_short(key)} (expected {', '.join(required + optional)})",
                                text)
    for key in required:
        if key not in doc:
            raise ProtocolError(f"{verb}: missing key {key!r}", text)
    match verb:
        case "start":
            return ChooseStarter(player, _int(doc, "first", text))
        case "mulligan":
            ids = doc["ids"]
            if not isinstance(ids, list) or len(ids) > MAX_IDS:
                raise ProtocolError(f"mulligan: 'ids' must be a list of at most {MAX_IDS} integers", text)
            return Mulligan(player, tuple(sorted(_int({"ids": i}, "ids", text) for i in ids)))
        case "play":
            return Play(player, _int(doc, "id", text), _int(doc, "target", text) if "target" in doc else -1)
        case "attack":
            return Attack(player, _int(doc, "id", text), _int(doc, "target", text))
        case "end":
            return EndTurn(player)
    return Surrender(player)


def _int(doc: dict[str, Any], key: str, text: str) -> int:
    v = doc[key]
    if type(v) is not int or not _INT[0] <= v <= _INT[1]:
        raise ProtocolError(f"{key!r} must be an integer of 32 bits, got {_short(v)}", text)
    return v


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key appears twice")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number of JSON")


def _short(v: object) -> str:
    text = repr(v) if not isinstance(v, Exception) else str(v)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["message", "parse_answer", "MAX_LINE", "MAX_IDS", "PROTOCOL_VERSION"]
