"""R-CONSTRUCT deck checks: `deck_problem`'s fast path for legal decks agrees with the walk in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from locm.engine.locm.construct import deck_problem


def _reference(base_ids, pool_size, deck_size, max_copies):
    """The check written plainly: the first id out of the pool or over its copies, else the deck size."""
    counts: dict[int, int] = {}
    for b in base_ids:
        if not 0 <= b < pool_size:
            return f"CHOOSE {b}: expected a baseId in 0..{pool_size - 1}"
        counts[b] = counts.get(b, 0) + 1
        if counts[b] > max_copies:
            return f"CHOOSE {b}: more than {max_copies} copies"
    if len(base_ids) != deck_size:
        return f"a deck needs {deck_size} cards, got {len(base_ids)}"
    return None


@given(st.integers(min_value=1, max_value=12), st.integers(min_value=0, max_value=3),
       st.data())
def test_deck_problem_matches_the_plain_check(pool_size, max_copies, data):
    deck_size = data.draw(st.integers(min_value=0, max_value=8))
    ids = data.draw(st.lists(st.integers(min_value=-2, max_value=pool_size + 1), max_size=10))
    assert deck_problem(ids, pool_size, deck_size, max_copies) == _reference(ids, pool_size, deck_size, max_copies)


def test_legal_and_refused_decks():
    assert deck_problem([0, 0, 1, 2], 3, 4, 2) is None
    assert deck_problem([], 3, 0, 2) is None
    assert deck_problem([0, 0, 0, 1], 3, 4, 2) == "CHOOSE 0: more than 2 copies"
    assert deck_problem([5, 0, 0, 0], 3, 4, 2) == "CHOOSE 5: expected a baseId in 0..2"
    assert deck_problem([0, 1, 2], 3, 4, 2) == "a deck needs 4 cards, got 3"
