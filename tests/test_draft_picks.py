"""The draft's picks through `decide` (R-DRAFT): the quick path of a pick that is not the last (its two events
built directly) refuses what the general path refuses, and records the same facts."""

from __future__ import annotations

import pytest

from locm.engine.locm.commands import Pick
from locm.engine.locm.decide import decide
from locm.engine.errors import CommandError
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.events.locm.catalog import ActionReceived, CardPicked


def test_a_pick_by_the_wrong_player_or_out_of_the_offer_is_refused():
    game = Game.new("1.2", 4)
    with pytest.raises(CommandError, match="it is player 0's turn, not player 1's"):
        decide(game.state, Pick(1, 0))
    with pytest.raises(CommandError, match=r"PICK index must be 0\.\.2, got 3"):
        decide(game.state, Pick(0, 3))
    with pytest.raises(CommandError, match=r"PICK index must be 0\.\.2, got -1"):
        decide(game.state, Pick(0, -1))


def test_every_pick_records_its_text_and_the_offered_card():
    game = Game.new("1.2", 4)
    k = 0
    while game.phase == "draft":
        p, index = game.to_move, k % 3
        offer = game.state.offer
        events = game.submit(Pick(p, index))
        record, picked = events[0], events[1]
        assert type(record) is ActionReceived and record.text == f"PICK {index}" and record.cause == -1
        assert type(picked) is CardPicked and picked.cause == record.seq and picked.base_id == offer[index]
        assert picked.ends_phase == (game.phase != "draft")  # only the last pick ends the draft
        k += 1
    assert k == 60
    assert fold(game.log) == game.state


def test_picks_as_answer_lines_reach_the_same_decks():
    # Game.answer decides each pick with its line's record as the cause: the general path, not the quick one.
    by_submit, by_answer = Game.new("1.2", 9), Game.new("1.2", 9)
    k = 0
    while by_submit.phase == "draft":
        by_submit.submit(Pick(by_submit.to_move, k % 3))
        by_answer.answer(by_answer.to_move, f"PICK {k % 3}")
        k += 1
    assert [p.picks for p in by_submit.state.players] == [p.picks for p in by_answer.state.players]
    for a, b in zip(by_submit.state.players, by_answer.state.players):
        assert len(a.hand) >= 4 and [u.id for u in a.hand] == [u.id for u in b.hand]
        assert [u.id for u in a.deck] == [u.id for u in b.deck]
