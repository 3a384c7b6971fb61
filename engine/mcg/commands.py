"""Commands: what a player asks for. `decide` turns a command into events; `text()` is its canonical line of
the bot protocol (`engine.mcg.protocol` parses it back to the same command), which is what a built-in agent's
command is recorded as (`command_received`).

Targets are characters: a player's seat (0, 1) or a monster's instance id; -1 for none (R-SETUP).
"""

from __future__ import annotations

import json

import msgspec


class Command(msgspec.Struct, frozen=True):
    """Base of every command; ``player`` is the seat that sends it."""

    player: int

    def action(self) -> dict[str, object]:  # pragma: no cover - every command defines it
        raise NotImplementedError

    def text(self) -> str:
        """The command as one line of the bot protocol (canonical JSON)."""
        return json.dumps(self.action(), separators=(",", ":"))


class ChooseStarter(Command, frozen=True):
    """The coin's winner says which seat starts (R-COIN)."""

    first: int

    def action(self) -> dict[str, object]:
        return {"do": "start", "first": self.first}


class Mulligan(Command, frozen=True):
    """Put these hand cards back (none: keep the hand) (R-MULLIGAN)."""

    ids: tuple[int, ...] = ()

    def action(self) -> dict[str, object]:
        return {"do": "mulligan", "ids": list(self.ids)}


class Play(Command, frozen=True):
    """Play a hand card, on a target when it needs one (R-PLAY)."""

    id: int
    target: int = -1

    def action(self) -> dict[str, object]:
        if self.target == -1:
            return {"do": "play", "id": self.id}
        return {"do": "play", "id": self.id, "target": self.target}


class Attack(Command, frozen=True):
    """A monster attacks a character (R-ATTACK)."""

    id: int
    target: int

    def action(self) -> dict[str, object]:
        return {"do": "attack", "id": self.id, "target": self.target}


class EndTurn(Command, frozen=True):
    """End the main phase: the end phase and the next turn follow (R-END-PHASE)."""

    def action(self) -> dict[str, object]:
        return {"do": "end"}


class Surrender(Command, frozen=True):
    """Give up, at any time (R-SURRENDER)."""

    def action(self) -> dict[str, object]:
        return {"do": "surrender"}


class Timeout(Command, frozen=True):
    """The player did not answer within the time limit: inactivity is surrender (R-INACTIVE). Recorded as a
    `command_received` of kind ``timeout`` with no text."""

    def action(self) -> dict[str, object]:
        return {}

    def text(self) -> str:
        return ""


class BadAnswer(Command, frozen=True):
    """An answer that is not an answer of the protocol (R-ANSWER): ``text`` is the line as received (bounded
    by the protocol's reader), ``reason`` why it was refused."""

    line: str
    reason: str

    def action(self) -> dict[str, object]:
        return {}

    def text(self) -> str:
        return self.line


PLAYER_ACTIONS = (ChooseStarter, Mulligan, Play, Attack, EndTurn)

__all__ = ["Command", "ChooseStarter", "Mulligan", "Play", "Attack", "EndTurn", "Surrender", "Timeout",
           "BadAnswer", "PLAYER_ACTIONS"]
