"""Skyport's wing of the replay tools (`replay.wing.Wing`, named by its definition): its answers for `locm audit
--seq S` (`replay.skyport.audit.why`: why a laser hit whom it hit, why -10), its events in words
(`replay.skyport.words`: moves, shots and their paths, hits) and its picture board in the viewer
(`replay.skyport.board`: the map, the robots, each weapon's reach, each shot)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from locm.replay.wing import Wing

if TYPE_CHECKING:
    from locm.replay.game import Replay


class SkyportWing(Wing):
    viewer_board = "locm.replay.skyport.board"

    def describe(self, r: Replay, seq: int, seat: int | None) -> str:
        from locm.replay.skyport.words import describe

        return describe(r.events[seq], r.events[0].names)

    def why(self, r: Replay, seq: int) -> list[str]:
        from locm.replay.skyport.audit import why

        return why(r, seq)


WING = SkyportWing()

__all__ = ["WING", "SkyportWing"]
