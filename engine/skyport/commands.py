"""Skyport commands: what a player asks for. `engine.skyport.decide` turns each into events, recording it first
as a `command_received`.

- `ChooseLoadout`: the two weapons, once, before turn 1 (R-LOADOUT).
- `Act`: one action of the player whose turn it is, as the JSON object the server queued (already parsed by
  the server's lenient reader, `engine.skyport.orgjson`): the rules read its fields as the server does, so a
  missing or mistyped field has the server's consequence (R-ACTIONS, R-ERRORS).
- `EndTurn`: the turn's deadline came with fewer actions than allowed.
- `Forfeit`: the player's client did not join in time (locm's tournaments, R-FORFEIT): its seat gets the
  default loadout and plays on as a client that has left.
- `Stop`: the game's wall-clock limit ran out before the turn of the player to move (locm's tournaments,
  R-WALL-CLOCK): the game ends there, scored as it stands.

The helpers `move`, `laser`, `mortar`, `droid`, `mine` and `upgrade` build the action objects a well-formed
client sends.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


class Command(msgspec.Struct, frozen=True):
    player: int


class ChooseLoadout(Command, frozen=True):
    primary: str
    secondary: str

    def text(self) -> str:
        return json.dumps({"primary-weapon": self.primary, "secondary-weapon": self.secondary},
                          separators=(",", ":"))


class Act(Command, frozen=True):
    action: dict[str, Any]

    def text(self) -> str:
        return action_text(self.action)


class EndTurn(Command, frozen=True):
    def text(self) -> str:
        return ""


class Forfeit(Command, frozen=True):
    why: str = ""

    def text(self) -> str:
        return self.why


class Stop(Command, frozen=True):
    """The wall-clock limit ran out before ``player``'s turn (``player``: the player to move); ``why`` says the
    limit."""

    why: str = ""

    def text(self) -> str:
        return self.why


def action_text(action: dict[str, Any]) -> str:
    """The action object as the JSON text its record keeps (insertion order, floats stay floats)."""
    return json.dumps(action, separators=(",", ":"))


def move(direction: str) -> dict[str, Any]:
    return {"message": "action", "type": "move", "direction": direction}


def laser(direction: str) -> dict[str, Any]:
    return {"message": "action", "type": "laser", "direction": direction}


def mortar(dj: int, dk: int) -> dict[str, Any]:
    """A mortar shot at the relative vector (dj, dk), written as the server expects it: ``"dj,dk"``."""
    return {"message": "action", "type": "mortar", "coordinates": f"{dj},{dk}"}


def droid(steps: list[str] | tuple[str, ...]) -> dict[str, Any]:
    return {"message": "action", "type": "droid", "sequence": list(steps)}


def mine() -> dict[str, Any]:
    return {"message": "action", "type": "mine"}


def upgrade(weapon: str) -> dict[str, Any]:
    return {"message": "action", "type": "upgrade", "weapon": weapon}


__all__ = ["Command", "ChooseLoadout", "Act", "EndTurn", "Forfeit", "Stop", "action_text", "move", "laser", "mortar",
           "droid", "mine", "upgrade"]
