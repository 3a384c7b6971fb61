"""my-card-game's wing of the replay tools (`replay.wing.Wing`, named by its definition): its account logs (the
collection economy, not a game) are told apart and sent to `locm verify`; its events in words (a command as
what it asks, an effect as what it does: `replay.mcg.words`), what of them a seat may not read (a card the
other drew or put back); its board in the viewer is drawn by `replay.mcg.board` (the definition's
``html_board``)."""

from __future__ import annotations

import msgspec

from typing import TYPE_CHECKING

from locm.events.codec import DECODE_ERRORS
from locm.events.mcg.catalog import (
    CardDrawn, CommandReceived, EffectDelayed, EffectFizzled, EffectTriggered, MulliganChosen,
)
from locm.replay.mcg.words import command_words, effect_words
from locm.replay.wing import Wing

if TYPE_CHECKING:
    from locm.replay.game import Replay


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


    def describe(self, r: Replay, seq: int, seat: int | None) -> str:
        """The definition's words, with a command said as what it asks and an effect as what it does."""
        e, state = r.events[seq], r.final
        text = r.game.describe(state, e)
        if type(e) is CommandReceived:
            return command_words(e.player, e.text, e.kind, lambda i: _name(state, i))
        if type(e) in (EffectTriggered, EffectDelayed, EffectFizzled):
            card = state.cards.get(e.card)
            effects = getattr(card, "effects", ())
            if 0 <= e.index < len(effects):
                names = {k: c.name for k, c in state.cards.items()}
                return f"{text} ({effect_words(effects[e.index], names)})"
        return text

    def private(self, r: Replay, seq: int) -> tuple[int, str] | None:
        """A card drawn, or put back, or asked to be put back, is its player's to see."""
        e = r.events[seq]
        if type(e) is CardDrawn:
            return e.player, f"player {e.player} draws a card"
        if type(e) is MulliganChosen:
            return e.player, f"player {e.player} mulligans: puts back {len(e.returned)} card(s)"
        if type(e) is CommandReceived and '"mulligan"' in e.text:
            return e.player, f"player {e.player} asks to put back some cards"
        return None


def _name(state: object, i: object) -> str:
    if i in (0, 1):
        return f"player {i}"
    if isinstance(i, int) and i in getattr(state, "card_of", {}):
        return f"{state.name(i)} #{i}"  # type: ignore[attr-defined]
    return f"#{i}"


WING = McgWing()

__all__ = ["WING", "McgWing"]
