"""What the store is handed: its checker, and each game's projections (STYLE 13: persistence knows no domain).

The store keeps games of any registered game (`engine.registry`) and knows none of them. What one game adds to
the store comes through the game's definition: ``GameDef.edges`` names the module at the edges that holds the
game's parts there (LOCM's: `locm.games.locm.edges`), named, not imported, as ``GameDef.html_board`` names a
board's module, so the rules never load the edges and the store never names a game. The store reads two
optional names from that module:

- ``facts(events, data)``: the derived rows kept beside a game in its transaction (LOCM's card facts for the
  card report: ``(version, blob, log hash)``, or None when they cannot be computed);
- ``record_fields(created)``: the fields a game's record keeps (`locm.store.records.GameRecord.fields`) from its
  created event, where they are not its definition's ``index`` (LOCM's: the columns of store schema 2);
- ``seat_extras(events)``: what a game's log says of each seat beyond its outcome, as the store's
  `locm.store.records.SeatExtras` (LOCM's hard errors and timeouts), for a log imported without a runner's
  account of it (`locm.verify.logimport.import_log`);
- ``SIDE_LOGS``: a `SideLogs`, the chained logs a game keeps beside its games (my-card-game's accounts): their
  table, their lines in an export file (``{"<kind>": {...}}`` then the event lines) and their checks.

The checks of a game's content and the reading of a tournament's schedule belong to the layers above the
store (`locm.verify`, the tournaments): a caller that wants an import checked hands the store a `Checker`
(``open_store(..., checker=...)``); `locm.games.registry.checker` is the one the command line hands it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol


class Problem(Protocol):
    """A checker's answer: ``problem`` (one line) or None, ``seq`` the event where the log departs (-1: none)."""

    problem: str | None
    seq: int

    @property
    def ok(self) -> bool: ...


class Checker(Protocol):
    """The checks the store runs when a file is imported or migrated, handed to it by the caller.

    ``game_problem(game, game_id, events, meta=...)``: the checks `locm verify` makes of a game's content (its
    id what its content gives, re-deciding its inputs gives its events); ``schedule_of(manifest)``: the
    schedule a kept tournament manifest describes (its ``key`` is what the manifest gives; `ValueError` or a
    `LocmError` for a manifest this locm does not read)."""

    def game_problem(self, game: Any, game_id: str | None, events: Sequence[Any], *, meta: str = "{}") -> Problem:
        ...

    def schedule_of(self, manifest: str) -> Any: ...


class SideLogs(Protocol):
    """Chained logs a game keeps beside its games in a store file (my-card-game's accounts), one per name.

    ``kind`` is the key of their blocks in an export file, ``codec`` their events' codec, ``error`` the
    `StoreError` a log the store refuses raises."""

    kind: str
    codec: Any
    error: type[Exception]

    def names(self, store: Any) -> list[str]:
        """The names of the logs the store keeps ([] for a store without them, and for a memory store)."""

    def lines(self, store: Any, name: str) -> list[bytes]:
        """One stored log's events as their JSON lines, its chain checked (``error`` if it does not hold)."""

    def hashes(self, lines: Sequence[bytes]) -> list[bytes]:
        """The chained hashes of a log's lines (the last is its head)."""

    def problem(self, events: Sequence[Any], store: Any = None, also: Any = None) -> tuple[str | None, int]:
        """None when the log is one the rules give, else the problem and the seq where it is (-1: none); with
        ``store``, what it says of games (my-card-game's rewards) checked against the games ``store`` holds and
        those ``also`` maps (game id → ``credits`` of an import's games, stored with it)."""

    def credits(self, events: Sequence[Any]) -> Any:
        """What a game's log gives these logs (my-card-game: the accounts a match credits), or None."""

    def write(self, conn: Any, name: str, lines: Sequence[bytes]) -> None:
        """Write a log (checked by the caller) inside the caller's SQLite transaction."""


def edges(game: Any) -> ModuleType | None:
    """The module a game's definition names for its parts at the edges (``GameDef.edges``), or None."""
    name = getattr(game, "edges", "")
    return importlib.import_module(name) if name else None


def facts_of(game: Any):
    """The game's ``facts(events, data)`` projection (see the module docstring), or None."""
    module = edges(game)
    return None if module is None else getattr(module, "facts", None)


def record_fields_of(game: Any):
    """The game's ``record_fields(created)`` (see the module docstring), or None."""
    module = edges(game)
    return None if module is None else getattr(module, "record_fields", None)


def seat_extras_of(game: Any):
    """The game's ``seat_extras(events)`` (see the module docstring), or None."""
    module = edges(game)
    return None if module is None else getattr(module, "seat_extras", None)


def side_logs() -> list[SideLogs]:
    """Every registered game's side logs (`SideLogs`), in the registry's order."""
    from locm.engine import registry

    found = []
    for name in registry.GAMES:
        module = edges(registry.get(name))
        logs = None if module is None else getattr(module, "SIDE_LOGS", None)
        if logs is not None:
            found.append(logs)
    return found


def side_logs_of(kind: str) -> SideLogs | None:
    """The side logs whose export blocks are ``kind`` (None: no registered game keeps them)."""
    return next((logs for logs in side_logs() if logs.kind == kind), None)


__all__ = ["Checker", "Problem", "SideLogs", "edges", "facts_of", "record_fields_of", "seat_extras_of", "side_logs",
           "side_logs_of"]
