"""Commands: what a player asks for. `decide` turns a command into events.

A command with ``cause`` -1 is recorded in the log as an `ActionReceived` event first; a command that is one
item of an already recorded answer line carries that record's ``seq`` as its ``cause``.
"""

from __future__ import annotations

import msgspec


class Command(msgspec.Struct, frozen=True, array_like=True):
    def text(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


class Pick(Command, frozen=True, tag="PICK"):
    """1.2 draft: take card ``index`` (0..2) of the offer."""

    player: int
    index: int

    def text(self) -> str:
        # Every pick of every 1.2 game is recorded with this text: the three usual ones are made once.
        return _PICK_TEXTS[self.index] if 0 <= self.index < len(_PICK_TEXTS) else f"PICK {self.index}"


_PICK_TEXTS = ("PICK 0", "PICK 1", "PICK 2")


class BuildDeck(Command, frozen=True, tag="BUILD"):
    """1.5 constructed: the deck's 30 base ids, as already parsed from the player's answer."""

    player: int
    base_ids: tuple[int, ...]

    def text(self) -> str:
        return ";".join(f"CHOOSE {b}" for b in self.base_ids)


class Summon(Command, frozen=True, tag="SUMMON"):
    id: int
    lane: int

    def text(self) -> str:
        return f"SUMMON {self.id} {self.lane}"


class Attack(Command, frozen=True, tag="ATTACK"):
    id: int
    target: int

    def text(self) -> str:
        return f"ATTACK {self.id} {self.target}"


class Use(Command, frozen=True, tag="USE"):
    id: int
    target: int

    def text(self) -> str:
        return f"USE {self.id} {self.target}"


class Pass(Command, frozen=True, tag="PASS"):
    """A ``PASS`` item inside a battle answer: skipped silently (R-ACTIONS)."""

    def text(self) -> str:
        return "PASS"


class EndTurn(Command, frozen=True, tag="END"):
    """The end of the current player's answer: the turn passes (R-TURN)."""

    def text(self) -> str:
        return "PASS"


BattleAction = Summon | Attack | Use


def parse_command(text: str, player: int, phase: str) -> Command:
    """A built-in agent's recorded action (`ActionReceived` of kind ``action``) as its command again: the
    canonical `text()` of a `Summon`, `Attack`, `Use`, `Pass`, `Pick` or `BuildDeck`."""
    from locm.engine.errors import CommandError

    parts = text.split(";")
    verb, _, rest = parts[0].partition(" ")
    try:
        if verb == "PICK":
            return Pick(player, int(rest))
        if verb == "CHOOSE":
            return BuildDeck(player, tuple(int(p.partition(" ")[2]) for p in parts))
        if verb == "PASS" and not rest:
            return Pass()
        cls = {"SUMMON": Summon, "ATTACK": Attack, "USE": Use}[verb]
        a, b = rest.split(" ")
        return cls(int(a), int(b))
    except (KeyError, ValueError):
        raise CommandError(f"not the text of a command: {text!r}") from None
