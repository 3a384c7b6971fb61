"""The project's exception tree (STYLE 9). Every error a user can cause is a `LocmError` with a one-line
message that says what was expected and what was got; each keeps the offending values as attributes.
The application layer (`locm.errors`) extends this tree.
"""

from __future__ import annotations


class LocmError(Exception):
    """Base of every error this project raises on purpose. The message is always one line."""

    def __init__(self, message: str = "") -> None:
        super().__init__(" ".join(str(message).split("\n")))


class CardDataError(LocmError):
    """The card list or the generator weights do not have the referee's format."""


class UnknownRuleset(LocmError):
    """A ruleset name that is neither a ruleset nor an alias."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown ruleset {name!r}: expected one of 1.2, constructed (alias 1.5)")


class GameParamError(LocmError):
    """A game parameter (seed, a derived seed, predefinedDraftIds) is missing, out of range or malformed."""

    def __init__(self, message: str, name: str = "", value: object = None) -> None:
        self.name = name
        self.value = value
        super().__init__(message)


class CommandError(LocmError):
    """A command that cannot be decided in this state (game over, not this player's turn, wrong phase):
    a caller's mistake, not a player's, so it is raised rather than recorded."""

    def __init__(self, message: str, command: object = None) -> None:
        self.command = command
        super().__init__(message)


class InvalidLogError(LocmError):
    """A log that does not fold: it does not start with game_created, its seqs are not 0, 1, 2, ..., a cause
    is not an earlier event, or an event does not fit the state. ``seq`` is the offending event's (or -1)."""

    def __init__(self, message: str, seq: int = -1) -> None:
        self.seq = seq
        super().__init__(message)


class UnknownBehaviourError(InvalidLogError):
    """A log decided under a behaviour of its game's rules that this engine does not know (a later engine's, or
    a made-up number): it cannot be re-decided as it was decided. Keeps ``behaviour`` (the log's) and ``known``
    (the highest this engine has; it has every one from 1)."""

    def __init__(self, behaviour: int, known: int) -> None:
        self.behaviour = behaviour
        self.known = known
        span = "1" if known == 1 else f"1..{known}"
        super().__init__(f"decided under behaviour {behaviour}; this engine knows {span}", 0)


class ProtocolError(LocmError):
    """A player's answer that the referee treats as a hard error (R-ACTIONS); ``text`` is the answer."""

    def __init__(self, message: str, text: str = "") -> None:
        self.text = text
        super().__init__(message)
