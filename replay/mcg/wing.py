"""my-card-game's wing of the replay tools (`replay.wing.Wing`, named by its definition): its account logs (the
collection economy, not a game) are told apart and sent to `locm verify`; its board page is drawn by
`replay.mcg.board` (the definition's ``html_board``)."""

from __future__ import annotations

import msgspec

from locm.events.codec import DECODE_ERRORS
from locm.replay.wing import Wing


class _Kind(msgspec.Struct):
    type: object = None


class McgWing(Wing):
    def file_kind(self, first: bytes) -> str | None:
        """``account`` for an account's log (its first event ``mcg_account_opened``)."""
        line = first.strip()
        try:
            kind = msgspec.json.decode(line[:line.rfind(b"}") + 1], type=_Kind).type
        except DECODE_ERRORS:
            return None
        return "account" if kind == "mcg_account_opened" else None

    def refusal(self, kind: str, path: str) -> str:
        return f"{path}: a my-card-game account's log, not a game: 'locm verify {path}' checks it"


WING = McgWing()

__all__ = ["WING", "McgWing"]
