"""Skyport's protocol, revision 1, as the 2013 server speaks it (R-PROTO): pure functions from lines to values
and from game facts to messages. Sockets, timing and processes belong to the server that uses them.

Client to server, one JSON object per line, read by org.json's lenient parser (`engine.skyport.orgjson`):
the handshake ``{"message":"connect","revision":1,"name":...}``, the loadout
``{"message":"loadout","primary-weapon":...,"secondary-weapon":...}``, then actions
``{"message":"action","type":...}``. `ClientSession` is the server's reading of one connection: what it
answers at once (``{"message":"connect","status":true}`` or ``{"error":...}``), and what it hands to the game
(the name, the loadout, actions queued for the player's turn).

Server to client: the gamestate at each turn (`gamestate`), ``{"message":"endturn"}`` when the turn's time is
up, each action carried out re-broadcast to everyone with ``from`` (`broadcast`), and errors to the player
who sent an action (`errors`). The 2013 server writes a position as ``"j, k"``.
"""

from __future__ import annotations

from typing import Any

from locm.engine.skyport.actions import MissingField, get_string
from locm.engine.skyport.orgjson import JSONError, JavaCrash, java_int_value, java_str, parse_object, quote
from locm.engine.skyport.rules import WEAPONS
from locm.engine.skyport.setup import username_error
from locm.engine.skyport.state import SkyportState
from locm.events.skyport.catalog import ActionRejected, DroidFired, Event, LaserFired

HANDSHAKE, LOADOUT, PLAYING, DEAD = "handshake", "loadout", "playing", "dead"
CONNECTED = {"message": "connect", "status": True}
ENDTURN = {"message": "endturn"}


def java_lines(text: str) -> list[str]:
    """The lines Java's ``BufferedReader.readLine`` reads from `text`: ``\\n``, ``\\r`` and ``\\r\\n`` end a
    line; a last line without an end is read too."""
    out = []
    line: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\r\n":
            out.append("".join(line))
            line = []
            if c == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
                i += 1
        else:
            line.append(c)
        i += 1
    if line:
        out.append("".join(line))
    return out


def position_text(pos: tuple[int, int]) -> str:
    return f"{pos[0]}, {pos[1]}"


class Reading:
    """What one line did: the ``replies`` sent at once, and at most one of: the accepted ``name``, the accepted
    ``loadout`` (primary, secondary), an ``action`` queued for the player's turn."""

    __slots__ = ("replies", "name", "loadout", "action")

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.name: str | None = None
        self.loadout: tuple[str, str] | None = None
        self.action: dict[str, Any] | None = None


class ClientSession:
    """The server's reader of one client connection (its ``AIClientHandler`` and ``AIConnection.input``)."""

    __slots__ = ("phase", "name")

    def __init__(self) -> None:
        self.phase = HANDSHAKE
        self.name = ""

    def feed(self, line: str) -> Reading:
        """Read one line (without its end)."""
        out = Reading()
        if self.phase == DEAD:
            return out
        try:
            obj = parse_object(line)
        except JSONError as exc:
            out.replies.append({"error": f"Invalid packet received: {exc}"})
            return out
        except JavaCrash:
            self.phase = DEAD  # the reader thread died: nothing this client sends is read again
            return out
        error = self._input(obj, out)
        if error:
            out.replies.append({"error": error})
        return out

    def _input(self, obj: dict[str, Any], out: Reading) -> str:
        if self.phase == HANDSHAKE:
            if "message" not in obj:
                return 'Invalid or incomplete packet: JSONObject["message"] not found.'
            if obj["message"] != "connect":
                return f"Expected 'connect' handshake, but got '{java_str(obj['message'])}' key"
            if "revision" not in obj:
                return 'Invalid or incomplete packet: JSONObject["revision"] not found.'
            revision = java_int_value(obj["revision"])
            if revision is None:
                return 'Invalid or incomplete packet: JSONObject["revision"] is not an int.'
            if revision != 1:
                return f"Wrong protocol revision: supporting 1, but got {revision}"
            try:
                name = get_string(obj, "name")
            except MissingField as exc:
                return f"Invalid or incomplete packet: {exc}"
            error = username_error(name)
            if error:
                return error
            self.name = name
            self.phase = LOADOUT
            out.name = name
            out.replies.append(dict(CONNECTED))
            return ""
        if self.phase == LOADOUT:
            if "message" not in obj:
                return 'Invalid or incomplete packet: JSONObject["message"] not found.'
            if obj["message"] != "loadout":
                return f"Expected 'loadout', but got '{java_str(obj['message'])}' key"
            weapons = []
            for which, key in (("primary", "primary-weapon"), ("secondary", "secondary-weapon")):
                try:
                    weapon = get_string(obj, key)
                except MissingField as exc:
                    return f"Invalid or incomplete packet: {exc}"
                if weapon not in WEAPONS:
                    return f"Invalid {which} weapon: '{weapon}'"
                weapons.append(weapon)
            if weapons[0] == weapons[1]:
                return "Invalid loadout: Can't have the same weapon twice."
            self.phase = PLAYING
            out.loadout = (weapons[0], weapons[1])
            return ""
        if "message" not in obj:
            return "Invalid or incomplete packet"
        if obj["message"] != "action":
            return f"Unexpected message, got '{java_str(obj['message'])}' but expected 'action'"
        out.action = obj
        return ""


# --- server to client --------------------------------------------------------------------------------------


def gamestate(state: SkyportState, turn: int, order: tuple[int, ...]) -> dict[str, Any]:
    """The gamestate of `turn` (R-PROTO): the players in `order` (the player to move first), each with its name,
    and from turn 1 its health, score, position and weapons; the map as it is now."""
    players = []
    for slot in order:
        r = state.robots[slot]
        entry: dict[str, Any] = {"name": r.name}
        if turn != 0:
            entry.update({
                "health": r.health, "score": r.score, "position": position_text(r.position),
                "primary-weapon": {"name": r.primary, "level": r.primary_level},
                "secondary-weapon": {"name": r.secondary, "level": r.secondary_level},
            })
        players.append(entry)
    return {"message": "gamestate", "turn": turn, "players": players,
            "map": {"j-length": state.size, "k-length": state.size, "data": [list(row) for row in state.tiles]}}


def broadcast(action: dict[str, Any], name: str, fact: Event) -> dict[str, Any]:
    """The re-broadcast of an action carried out (R-PROTO): the action object as the client sent it, with
    ``from``; a laser's with ``start`` and ``stop``; a droid's ``sequence`` cut to the steps it walked."""
    out = dict(action)
    if isinstance(fact, DroidFired):
        out["sequence"] = list(action["sequence"][:len(fact.steps)])
    out["from"] = name
    if isinstance(fact, LaserFired):
        out["start"] = position_text(fact.start)
        out["stop"] = position_text(fact.stop)
    return out


def errors(fact: Event) -> list[dict[str, Any]]:
    """The error messages the server sends the acting player for this fact, in order (R-ERRORS)."""
    texts: list[str] = []
    if isinstance(fact, ActionRejected):
        texts = [fact.warning, fact.error]
    elif isinstance(fact, DroidFired):
        texts = [fact.warning]
    return [{"error": t} for t in texts if t]


__all__ = ["HANDSHAKE", "LOADOUT", "PLAYING", "DEAD", "CONNECTED", "ENDTURN", "java_lines", "position_text",
           "Reading", "ClientSession", "gamestate", "broadcast", "errors", "quote"]
