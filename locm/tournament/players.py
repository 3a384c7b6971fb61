"""Which module plays a tournament's game of a game: the one its definition names (`engine.seam.GameDef.player`:
LOCM's referee-protocol bots and card facts, Skyport's clients through its server), else the core's runner."""

from __future__ import annotations

DEFAULT_PLAYER = "locm.tournament.matchplay"
"""What plays a game whose definition names no player of its own (`engine.seam.GameDef.player`)."""


def players(game: str):
    """The module that plays a tournament's game of ``game`` (a registered name): the one its definition names
    (`GameDef.player`: LOCM's, Skyport's), else the core's (`DEFAULT_PLAYER`)."""
    import importlib

    from locm.engine import registry

    return importlib.import_module(registry.get(game).player or DEFAULT_PLAYER)


__all__ = ["DEFAULT_PLAYER", "players"]
