"""`locm.Game`, the notebook front object: legal actions in every phase, play, undo, outcome, view, repr, and the
manual's example (docs/guides/playing.md), run as it is written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import locm
from locm.engine.errors import LocmError
from locm.engine.locm.commands import EndTurn, Pick
from locm.engine.locm.folding import fold
from locm.engine.locm.redecide import redecide
from locm.engine.locm.rulesets import RULES_12

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "playing.md"


def test_the_manuals_example_runs_as_written(capsys):
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("## A notebook API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, str(GUIDE), "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("<locm.Game constructed seed=42 over: player ") and "Outcome(winner=" in out[0]
    assert out[1].split()[0].isdigit()  # the other hand, seen from player 0, is a count


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_every_phase_offers_legal_actions_and_a_whole_game_redecides(ruleset):
    g = locm.Game(ruleset, seed=5)
    phases = set()
    k = 0
    while not g.ended:
        acts = g.legal_actions()
        assert acts and isinstance(acts, tuple)
        phases.add(g.phase)
        if g.phase == "battle":
            assert acts[-1] == EndTurn()
        g.play(acts[k % len(acts)])
        k += 7
    assert phases == {"draft" if ruleset == "1.2" else "construct", "battle"}
    assert g.legal_actions() == () and g.outcome() is not None
    result = redecide(list(g.log))
    assert result.ok and result.strict, result.divergence


def test_the_outcome_is_the_seams_as_the_games_definition_reads_it():
    from locm.engine import registry, seam

    g = locm.Game("1.2", seed=3)
    assert g.outcome() is None
    while not g.ended:
        g.play(g.legal_actions()[0])
    assert locm.Outcome is seam.Outcome
    assert g.outcome() == registry.get("locm").outcome(g.log)
    assert f"won by {g.outcome().reason} in turn {g.outcome().turns}" in repr(g)


def test_undo_is_the_fold_of_the_log_minus_the_last_action():
    g = locm.Game("1.2", seed=9)
    while g.phase == "draft":
        g.play(g.legal_actions()[-1])
    before = g.log
    g.play(g.legal_actions()[0])
    g.play(EndTurn())
    g.undo()
    g.undo()
    assert g.log == before
    assert fold(list(before)) == locm.Game.from_log(before)._game.state
    from locm.engine.errors import LocmError

    with pytest.raises(LocmError, match="nothing to undo"):
        locm.Game("1.2", seed=9).undo()

def test_a_construct_deck_is_chosen_card_by_card_and_submitted_whole():
    g = locm.Game("constructed", seed=3)
    assert len(g.legal_actions()) == 120
    for _ in range(29):
        assert g.play(g.legal_actions()[0]) == []
    assert len(g.chosen) == 29 and g.to_move == 0
    with pytest.raises(locm.IllegalActionError, match="already holds 2 copies of card 0"):
        g.play(locm.Choose(0))
    g.undo()
    assert len(g.chosen) == 28
    g.play(g.legal_actions()[0])
    events = g.play(g.legal_actions()[0])
    assert type(events[-1]).__name__ == "DeckChosen" and g.to_move == 1 and g.chosen == ()


def test_illegal_actions_are_refused_with_the_engines_reason():
    g = locm.Game("1.2", seed=4)
    start = len(g.log)
    with pytest.raises(locm.IllegalActionError, match="picks one of 0..2"):
        g.play(Pick(0, 5))
    with pytest.raises(locm.IllegalActionError, match="not an action of the draft phase"):
        g.play(EndTurn())
    assert len(g.log) == start  # a refusal records nothing
    while g.phase == "draft":
        g.play(g.legal_actions()[0])
    from locm.engine.locm.commands import Attack

    before = len(g.log)
    with pytest.raises(locm.IllegalActionError, match="is not one of your creatures on the board"):
        g.play(Attack(99, -1))
    assert len(g.log) == before


def test_view_hides_the_other_hand_and_repr_reads_well():
    g = locm.Game(RULES_12.replace(name="house", start_health=20, runes=(15, 10, 5)), seed=2)
    while g.phase == "draft":
        g.play(g.legal_actions()[0])
    v0, full = g.view(0), g.view()
    assert isinstance(v0["players"][1]["hand"], int) and isinstance(full["players"][1]["hand"], list)
    assert v0["players"][0]["health"] == 20
    assert repr(g).startswith("<locm.Game house seed=2 battle turn 0, P0 to move; P0 20 hp")
    assert g.input_for(0).startswith("20 1 25 15 1\n")


def test_play_takes_an_actions_text_in_every_phase():
    g = locm.Game("1.2", seed=5)
    offer = g._game.state.offer
    events = g.play("PICK 1")
    assert [type(e).__name__ for e in events] == ["ActionReceived", "CardPicked"] and events[1].base_id == offer[1]
    while g.phase == "draft":
        g.play("PICK 0")
    while not any(type(a).__name__ == "Summon" for a in g.legal_actions()):
        g.play("PASS")
    summon = next(a for a in g.legal_actions() if type(a).__name__ == "Summon")
    assert g.play(f"SUMMON {summon.id} {summon.lane}")[1].id == summon.id
    player = g.to_move
    g.play("PASS")
    assert g.to_move == 1 - player
    with pytest.raises(locm.IllegalActionError, match="expected SUMMON id lane, ATTACK id target, USE id target "
                                                      "or PASS in the battle phase"):
        g.play("PICK 1")
    c = locm.Game("constructed", seed=5)
    for b in range(15):
        c.play(f"CHOOSE {b};CHOOSE {b}")
    assert c.phase == "construct" and c.to_move == 1  # the 30th choice submitted player 0's deck


def test_game_takes_a_variant_file(tmp_path):
    path = tmp_path / "low.toml"
    path.write_text('base = "1.2"\nname = "low"\nstart_health = 12\nrunes = [10, 5]\n')
    g = locm.Game(str(path), seed=2)
    assert g.rules.name == "low" and g.rules.start_health == 12
    with pytest.raises(LocmError, match="no such ruleset file"):
        locm.Game(str(tmp_path / "missing.toml"))
