"""The errors of my-card-game's core, under the project's tree (`engine.errors.LocmError`, STYLE 9). Each
message is one line saying what was expected and what was got; each keeps the offending values."""

from __future__ import annotations

from locm.engine.errors import LocmError


def shown(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


class FileProblem(LocmError):
    """A card file or a variant file that cannot be used: ``source`` (the file), ``where`` (the card and the
    field, or the field), what was expected and what was got."""

    def __init__(self, source: str, where: str, expected: str, got: object = None, *, has_got: bool = True):
        self.source, self.where, self.expected, self.got = source, where, expected, got
        place = f"{source}: {where}: " if where else f"{source}: "
        tail = f", got {shown(got)}" if has_got and got is not None else ""
        super().__init__(f"{place}expected {expected}{tail}")


class CardFileError(FileProblem):
    """A card definition (in the card file or a variant's ``[[cards]]``) breaks R-CARDS or R-EFFECTS."""


class VariantError(FileProblem):
    """A variant file that cannot be played, or that would remove or loosen a rule (R-VARIANT)."""


class DeckError(LocmError):
    """A deck that breaks R-DECK (or a variant's tighter deck rules): ``seat`` (-1 when none), the reason."""

    def __init__(self, reason: str, seat: int = -1) -> None:
        self.reason, self.seat = reason, seat
        super().__init__(f"seat {seat}'s deck: {reason}" if seat >= 0 else reason)


class UnknownRules(LocmError):
    """A ruleset name that is neither a built-in my-card-game ruleset nor an alias."""

    def __init__(self, name: str, known: str) -> None:
        self.name = name
        super().__init__(f"unknown my-card-game ruleset {name!r}: expected one of {known}")


class AccountError(LocmError):
    """An account command refused (R-ACCOUNT … R-PLAYDECK): the balance is short, the card is not owned, the
    slot is empty, … Nothing is recorded."""


__all__ = ["FileProblem", "CardFileError", "VariantError", "DeckError", "UnknownRules", "AccountError", "shown"]
