"""The 1.5 constructed phase (R-CONSTRUCT): each player names its deck among the offered cards."""

from __future__ import annotations

from operator import eq
from typing import Sequence

from locm.events.locm.catalog import DeckChosen
from locm.engine.locm.emit import Out
from locm.engine.locm.drawing import begin_battle
from locm.engine.locm.state import GameState

def fill_deck(chosen: list[int], pool_size: int, deck_size: int, max_copies: int) -> None:
    """A bare PASS: take the first offered card with fewer than `max_copies` copies until the deck is full."""
    counts = [0] * pool_size
    for b in chosen:
        if 0 <= b < pool_size:  # a card outside the pool is refused by `deck_problem`, not here
            counts[b] += 1
    b = 0
    while len(chosen) < deck_size and b < pool_size:
        if counts[b] < max_copies:
            chosen.append(b)
            counts[b] += 1
        else:
            b += 1


def deck_problem(base_ids: Sequence[int], pool_size: int, deck_size: int, max_copies: int) -> str | None:
    """Why a deck is not a legal choice (R-CONSTRUCT), or None: cards of the pool, copies, the deck size.
    The one check behind both a bot's answer (`protocol.parse_construct`) and a built-in agent's `BuildDeck`.

    A legal deck (every game has two) is confirmed in C on the sorted ids: in the pool, and no id equal to
    the one `max_copies` places after it; only a refused deck is walked in order, for the first problem."""
    ids = sorted(base_ids)
    if (len(ids) == deck_size and (not ids or 0 <= ids[0] and ids[-1] < pool_size)
            and max_copies > 0 and not any(map(eq, ids, ids[max_copies:]))):
        return None
    counts: dict[int, int] = {}
    for b in base_ids:
        if not 0 <= b < pool_size:
            return f"CHOOSE {b}: expected a baseId in 0..{pool_size - 1}"
        n = counts[b] = counts.get(b, 0) + 1
        if n > max_copies:
            return f"CHOOSE {b}: more than {max_copies} copies"
    if len(base_ids) != deck_size:
        return f"a deck needs {deck_size} cards, got {len(base_ids)}"
    return None


def choose_deck(state: GameState, out: Out, player: int, base_ids: tuple[int, ...]) -> None:
    last = player == 1
    chosen = out.emit(DeckChosen(seq=out.seq, cause=out.cause, rule="R-CONSTRUCT", player=player,
                                 base_ids=tuple(base_ids), ends_phase=last))
    if last:
        begin_battle(state, out, (state.players[0].picks, list(base_ids)), chosen)
