"""What the edges' generic tools reach in a game's own wing (`locm/games/<game>/`), listed by hand: the one
place outside a wing that names the games' edge modules (`engine.registry` names their definitions).

- `PLAYERS`: the module that plays a tournament's game of this game, when the core's runner
  (`locm.tournament.matchplay`, for any game) is not enough: LOCM's referee-protocol bots and its card facts
  computed with each game, Skyport's clients through its TCP server. Such a module has ``play(job, limits,
  sandbox, seats)`` (the game played and prepared for the store, `locm.store.eventstore.PreparedGame`) and
  may have ``ahead(job, limits, sandbox)`` (the next game's seats made while a game is played; what ``play``
  is then given as ``seats``), ``init()`` and ``close()`` (once per worker), ``check_client(spec)`` (a served
  game's client command line, refused in one line).
- `SCHEDULE_KINDS`: the schedule kinds a store may hold beyond the generic one (`locm.tournament.schedule`),
  by their manifest's ``kind``: (module, class).
"""

from __future__ import annotations

import importlib
from types import ModuleType

PLAYERS: dict[str, str] = {
    "locm": "locm.games.locm.tournament",
    "skyport": "locm.games.skyport.tournament",
}
"""A game's own tournament player (see the module docstring); a game not listed is played by the core's."""

DEFAULT_PLAYER = "locm.tournament.matchplay"

SCHEDULE_KINDS: dict[str, tuple[str, str]] = {
    "round_robin": ("locm.games.locm.tournament", "RoundRobin"),
}
"""LOCM's round robin (mirrored seeds, self-play), kept as its stores have it since schema 1."""


def players(game: str) -> ModuleType:
    """The module that plays a tournament's game of `game` (its own, or the core's)."""
    return importlib.import_module(PLAYERS.get(game, DEFAULT_PLAYER))


__all__ = ["PLAYERS", "DEFAULT_PLAYER", "SCHEDULE_KINDS", "players"]
