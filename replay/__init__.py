"""Replay and audit: step through any game, see any board, explain any event (`open_game` -> `Replay`)."""

from locm.replay.game import Replay, ReplayError, ReplaySourceError, Turn
from locm.replay.sources import open_game

__all__ = ["open_game", "Replay", "ReplayError", "ReplaySourceError", "Turn"]
