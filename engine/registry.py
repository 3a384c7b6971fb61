"""The registered games: the built-in ones in a module-level dict, listed by hand, and those of other installed
packages, found through their entry points (group ``locm.games``; no discovery by import side effects).

Each entry loads its game's definition (`engine.seam.GameDef`) on first use, so a command about one game
does not import the others' rules. A new built-in game adds its packages and one line here; nothing else in
the core changes (`register` adds one at run time, which is what a test's own game uses).

A game from outside is a package that declares, in its ``pyproject.toml``::

    [project.entry-points."locm.games"]
    nim = "outside_nim.definition:GAME"

the entry point's name being the game's name and its value a `GameDef` or a function returning one. The entry
points are read once, when a name that is not a built-in game's is asked for or the games are listed (never at
import, and never for a built-in game); a definition is loaded when its game is first asked for. An entry
point whose name is taken (a built-in game's, an alias, another package's) is left out, and one that does not
load or does not give its game is refused when its game is asked for: each is one line naming the package
(`problems`, `GameEntryPointError`), and no built-in game is ever hidden by one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from locm.engine.errors import LocmError
from locm.engine.seam import GameDef

if TYPE_CHECKING:
    import importlib.metadata

DEFAULT = "locm"
GROUP = "locm.games"
"""The entry-point group other packages register their games in."""


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

SOURCES: dict[str, str] = {}
"""The package that gave each game found through an entry point (``name version``); built-in games have none."""
_PROBLEMS: list[str] = []
_ENTRY_POINTS: "list[importlib.metadata.EntryPoint] | None" = None  # once read
_loaded: set[str] = set()  # the outside games whose definitions are loaded


class UnknownGameError(LocmError):
    """A game name that is neither a registered game nor an alias."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown game {name!r}: expected one of {', '.join(names())}")


class GameEntryPointError(LocmError):
    """An installed package's ``locm.games`` entry point that does not give its game (it does not load, or
    gives something other than a `GameDef` of its own name); ``package`` names the package."""

    def __init__(self, package: str, message: str) -> None:
        self.package = package
        super().__init__(message)


def names() -> list[str]:
    """The registered games' names (the built-in ones first, then those of other packages), then their
    aliases (an outside game's once it is loaded)."""
    _discover()
    return [*GAMES, *(a for a, g in ALIASES.items() if g in GAMES)]


def get(name: str) -> GameDef:
    """The definition of the game called `name` (a name or an alias); `UnknownGameError` otherwise, or
    `GameEntryPointError` for an outside game whose entry point does not give it."""
    key = ALIASES.get(name, name)
    load = GAMES.get(key)
    if load is None and _discover():
        key = ALIASES.get(name, name)
        load = GAMES.get(key)
        if load is None:  # perhaps an outside game's alias: those are known once its definition is loaded
            for other in [n for n in SOURCES if n not in _loaded]:
                try:
                    GAMES[other]()
                except GameEntryPointError:
                    continue
            load = GAMES.get(ALIASES.get(name, name))
    if load is None:
        raise UnknownGameError(name)
    return load()


def definitions() -> Iterator[GameDef]:
    """Every registered game's definition that loads, the built-in ones first (the entry points are read only
    once those are all given: a caller that stops at a built-in game reads none); an outside game whose entry
    point does not give it is left out here and named in `problems`."""
    given: set[str] = set()
    for known in (list(GAMES), [n for n in names() if n in GAMES]):
        for name in known:
            if name in given:
                continue
            given.add(name)
            try:
                yield GAMES[name]()
            except GameEntryPointError:
                continue


def problems() -> list[str]:
    """One line per entry point of group ``locm.games`` left out or refused so far, naming its package
    (`definitions` loads every game, so after it this lists them all)."""
    _discover()
    return list(_PROBLEMS)


def _package(ep: "importlib.metadata.EntryPoint") -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else f"the package of {ep.value}"


def _discover() -> bool:
    """Read the entry points of group ``locm.games`` (once) and add each game whose name is free to `GAMES`,
    loaded on first use; True once read."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is not None:
        return True
    import importlib.metadata  # only here: a command about a built-in game never reads the installed packages

    try:
        _ENTRY_POINTS = list(importlib.metadata.entry_points(group=GROUP))
    except Exception as exc:  # a broken installed distribution's metadata: no outside game, said once
        _ENTRY_POINTS = []
        _PROBLEMS.append(f"the installed packages' entry points cannot be read: {type(exc).__name__}: {exc}")
        return True
    for ep in _ENTRY_POINTS:
        package = _package(ep)
        if ep.name in GAMES:
            taken = f"from {SOURCES[ep.name]}" if ep.name in SOURCES else "built in"
        elif ep.name in ALIASES:
            taken = f"an alias of {ALIASES[ep.name]}"
        else:
            taken = ""
        if taken:
            _PROBLEMS.append(f"package {package}: its {GROUP} entry point {ep.name!r} is left out: that name is "
                             f"already a game's ({taken})")
            continue
        SOURCES[ep.name] = package
        GAMES[ep.name] = _loader(ep, package)
    return True


def _loader(ep: "importlib.metadata.EntryPoint", package: str) -> Callable[[], GameDef]:
    game: GameDef | None = None

    def load() -> GameDef:
        nonlocal game
        if game is None:
            game = _load(ep, package)
            _loaded.add(ep.name)
        return game

    return load


def _load(ep: "importlib.metadata.EntryPoint", package: str) -> GameDef:
    """The definition an entry point gives (a `GameDef`, or a function returning one), checked; its aliases
    registered (one already taken is a `GameEntryPointError`)."""
    where = f"package {package}: its {GROUP} entry point {ep.name} = {ep.value}"

    def refuse(why: str) -> GameEntryPointError:
        line = " ".join(f"{where} {why}".split())  # one line, whatever an exception's message holds
        if line not in _PROBLEMS:
            _PROBLEMS.append(line)
        return GameEntryPointError(package, line)

    try:
        found = ep.load()
        game = found if isinstance(found, GameDef) or not callable(found) else found()
    except Exception as exc:  # whatever a package's import raises: one line, never a traceback
        raise refuse(f"does not load: {type(exc).__name__}: {exc}") from None
    if not isinstance(game, GameDef):
        raise refuse(f"gives a {type(game).__name__}, not an engine.seam.GameDef")
    if game.name != ep.name:
        raise refuse(f"gives the game {game.name!r}, not {ep.name!r}")
    for alias in game.aliases:
        if alias in GAMES or ALIASES.get(alias, ep.name) != ep.name:
            raise refuse(f"gives the alias {alias!r}, already a game's name or alias")
    for alias in game.aliases:
        ALIASES[alias] = ep.name
    return game


def register(game: GameDef) -> None:
    """Add a game at run time (a test's own game); its name must be new."""
    _discover()
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


__all__ = ["GAMES", "ALIASES", "SOURCES", "DEFAULT", "GROUP", "UnknownGameError", "GameEntryPointError", "names",
           "get", "definitions", "problems", "register", "unregister"]
