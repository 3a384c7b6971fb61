"""The registered games: a module-level dict, listed by hand (no discovery by import side effects).

Each entry loads its game's definition (`engine.seam.GameDef`) on first use, so a command about one game
does not import the others' rules. A new game adds its packages and one line here; nothing else in the core
changes (`register` adds one at run time, which is what a test's own game uses).
"""

from __future__ import annotations

from typing import Callable

from locm.engine.errors import LocmError
from locm.engine.seam import GameDef

DEFAULT = "locm"


def _locm() -> GameDef:
    from locm.engine.locm.definition import GAME

    return GAME


def _mcg() -> GameDef:
    from locm.engine.mcg.definition import GAME

    return GAME


def _skyport() -> GameDef:
    from locm.engine.skyport.definition import GAME

    return GAME


GAMES: dict[str, Callable[[], GameDef]] = {
    "locm": _locm,
    "mcg": _mcg,
    "skyport": _skyport,
}
"""Every game by its name: a function that returns its definition."""

ALIASES: dict[str, str] = {"my-card-game": "mcg"}


class UnknownGameError(LocmError):
    """A game name that is neither a registered game nor an alias."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown game {name!r}: expected one of {', '.join(names())}")


def names() -> list[str]:
    """The registered games' names, then their aliases."""
    return [*GAMES, *(a for a, g in ALIASES.items() if g in GAMES)]


def get(name: str) -> GameDef:
    """The definition of the game called `name` (a name or an alias); `UnknownGameError` otherwise."""
    key = ALIASES.get(name, name)
    load = GAMES.get(key)
    if load is None:
        raise UnknownGameError(name)
    return load()


def register(game: GameDef) -> None:
    """Add a game at run time (a test's own game); its name must be new."""
    if game.name in GAMES or game.name in ALIASES:
        raise LocmError(f"a game called {game.name!r} is already registered")
    GAMES[game.name] = lambda: game
    for alias in game.aliases:
        ALIASES[alias] = game.name


def unregister(name: str) -> None:
    """Remove a game added by `register` (and its aliases)."""
    GAMES.pop(name, None)
    for alias in [a for a, g in ALIASES.items() if g == name]:
        del ALIASES[alias]


__all__ = ["GAMES", "ALIASES", "DEFAULT", "UnknownGameError", "names", "get", "register", "unregister"]
