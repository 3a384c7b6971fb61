"""The 1.5 constructed phase (R-CONSTRUCT): each player names its 30 cards among the 120 offered."""

from __future__ import annotations

from events.catalog import DeckChosen
from engine.emit import Out
from engine.setup import begin_battle

MAX_COPIES = 2


def fill_deck(chosen: list[int], pool_size: int, deck_size: int) -> None:
    """A bare PASS: take the first offered card with fewer than 2 copies until the deck is full."""
    counts = [0] * pool_size
    for b in chosen:
        counts[b] += 1
    b = 0
    while len(chosen) < deck_size and b < pool_size:
        if counts[b] < MAX_COPIES:
            chosen.append(b)
            counts[b] += 1
        else:
            b += 1


def choose_deck(state, out: Out, player: int, base_ids: tuple[int, ...]) -> None:
    out.emit(DeckChosen(seq=out.seq, cause=out.cause, rule="R-CONSTRUCT", player=player, base_ids=tuple(base_ids)))
    if player == 1:
        begin_battle(state, out)
