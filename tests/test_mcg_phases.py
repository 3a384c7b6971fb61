"""my-card-game's phase hooks (R-FX-PHASE) and spells that wait for a phase (R-FX-DELAY), as data: scenarios on
hand-written positions, the card file's own cards, and the log's events for each hook."""

from __future__ import annotations

import pytest

from locm.engine.mcg.cards import base_pool, parse_cards
from locm.engine.mcg.commands import EndTurn, Play
from locm.engine.mcg.errors import CardFileError
from locm.engine.mcg.evolve import fold
from locm.engine.mcg.game import play_match
from locm.engine.mcg.rules import STANDARD
from locm.engine.mcg.variants import parse_variant
from locm.engine.mcg.views import view
from locm.events.mcg.catalog import (
    CardDrawn, EffectDelayed, EffectFizzled, EffectTriggered, MonsterDied, PlayerDamaged, PlayerHealed,
    TurnEnded, TurnStarted,
)
from tests.mcg_helpers import Position, fx, monster, spell


def of(events, cls):
    return [e for e in events if type(e) is cls]


def _decks(pos: Position, *seats: int) -> None:
    for seat in seats or (0, 1):
        for _ in range(4):
            pos.in_deck(seat, monster())


def test_a_turn_start_effect_triggers_before_the_draw_of_its_controllers_turn_only():
    """R-FX-PHASE: seat 1's monster heals seat 1 at the start of seat 1's turn, after `turn_started` and before
    the draw; not at the start of seat 0's turn."""
    pos = Position()
    _decks(pos)
    pos.on_board(1, monster(effects=(fx("heal", "own_player", on="turn_start", amount=3),)))
    game = pos.game()
    events = game.submit(EndTurn(0))
    kinds = [type(e) for e in events if type(e) in (TurnStarted, EffectTriggered, PlayerHealed, CardDrawn)]
    assert kinds == [TurnStarted, EffectTriggered, PlayerHealed, CardDrawn]
    trig = of(events, EffectTriggered)[0]
    assert (trig.on, trig.rule, trig.cause) == ("turn_start", "R-FX-PHASE", of(events, TurnStarted)[0].seq)
    assert game.state.players[1].health == 33
    events = game.submit(EndTurn(1))
    assert not of(events, EffectTriggered)


def test_a_main_start_effect_triggers_after_the_draw():
    """R-FX-PHASE: ``main_start`` acts after the turn's draw (it sees the card drawn)."""
    pos = Position()
    _decks(pos)
    pos.on_board(1, monster(effects=(fx("damage", "enemy_player", on="main_start", amount=2),)))
    game = pos.game()
    events = game.submit(EndTurn(0))
    kinds = [type(e) for e in events if type(e) in (CardDrawn, EffectTriggered, PlayerDamaged)]
    assert kinds == [CardDrawn, EffectTriggered, PlayerDamaged]
    assert of(events, EffectTriggered)[0].on == "main_start" and game.state.players[0].health == 28


def test_the_texts_end_phase_spell_destroys_every_monster_once_its_player_ends_the_turn():
    """R-FX-DELAY: "Destroy all monster cards on the battlefield once a player ends their turn": the spell is
    played in the main phase, its monsters still attack, and every monster dies in the end phase, after the
    turn effects, with its death effects."""
    pos = Position()
    _decks(pos, 0)
    mine = pos.on_board(0, monster(3, 0, 5, effects=(fx("damage", "enemy_player", on="turn", amount=1),)))
    doom = pos.in_hand(0, spell(fx("destroy", "all_monsters", at="end_phase")))
    _decks(pos, 1)
    theirs = pos.on_board(1, monster(1, 0, 9, effects=(fx("damage", "own_player", on="death", amount=4),)))
    game = pos.game()
    events = game.submit(Play(0, doom))
    (wait,) = of(events, EffectDelayed)
    assert (wait.source, wait.index, wait.at, wait.turn, wait.rule) == (doom, 0, "end_phase", 3, "R-FX-DELAY")
    assert not of(events, MonsterDied) and game.state.delayed == [wait]
    assert view(game.state, 1)["delayed"] == [{"player": 0, "card": wait.card, "index": 0, "at": "end_phase",
                                                "turn": 3, "target": -1}]  # R-VIEW: a played spell is public
    events = game.submit(EndTurn(0))
    ended = of(events, TurnEnded)[0]
    triggered = of(events, EffectTriggered)
    assert [(t.on, t.rule) for t in triggered[:2]] == [("turn", "R-ORDER"), ("delayed", "R-FX-DELAY")]
    assert triggered[1].cause == ended.seq and triggered[1].source == doom
    assert {e.id for e in of(events, MonsterDied)} == {mine, theirs}
    assert game.state.players[1].health == 30 - 1 - 4 and not game.state.monsters
    assert game.state.delayed == []


def test_a_spell_waits_for_its_players_next_turn_and_keeps_its_target():
    """R-FX-DELAY: ``at = "turn_start"`` acts at the start of the player's next turn, on the target chosen when
    played; a target gone by then fizzles."""
    pos = Position()
    _decks(pos, 0)
    slow = pos.in_hand(0, spell(fx("heal", "own_player", at="turn_start", amount=5),
                                fx("damage", "target", at="turn_start", amount=9), target="enemy_monster"))
    _decks(pos, 1)
    foe = pos.on_board(1, monster(1, 0, 9))
    game = pos.game()
    events = game.submit(Play(0, slow, foe))
    assert [(d.at, d.turn, d.target) for d in of(events, EffectDelayed)] == [("turn_start", 5, foe)] * 2
    events = game.submit(EndTurn(0))
    assert not of(events, EffectTriggered) and len(game.state.delayed) == 2
    events = game.submit(EndTurn(1))
    assert [(t.on, t.index) for t in of(events, EffectTriggered)] == [("delayed", 0), ("delayed", 1)]
    assert game.state.players[0].health == 35 and foe not in game.state.monsters and not game.state.delayed


def test_a_delayed_effect_on_a_target_that_left_fizzles():
    pos = Position()
    _decks(pos, 0)
    slow = pos.in_hand(0, spell(fx("damage", "target", at="end_phase", amount=2), target="enemy_monster"))
    kill = pos.in_hand(0, spell(fx("destroy", "target"), target="enemy_monster"))
    _decks(pos, 1)
    foe = pos.on_board(1, monster(1, 0, 9))
    game = pos.game()
    game.submit(Play(0, slow, foe))
    game.submit(Play(0, kill, foe))
    events = game.submit(EndTurn(0))
    assert [f.reason for f in of(events, EffectFizzled)] == ["no target"]


def test_the_card_file_has_phase_hook_cards_and_the_texts_end_phase_spell():
    """R-FX-PHASE, R-FX-DELAY as data: cards of the card file use them (no per-card code)."""
    cards = base_pool()
    ons = {e.on for c in cards.values() for e in c.effects}
    assert {"turn_start", "main_start"} <= ons
    oblivion = next(c for c in cards.values() if c.name == "Oblivion")
    assert any(e.at == "end_phase" and e.do == "destroy" and e.to == "all_monsters" for e in oblivion.effects)
    assert any(e.at == "turn_start" for c in cards.values() for e in c.effects)


@pytest.mark.parametrize("effect, field", [
    ('{ on = "turn_start", do = "heal", to = "own_player", amount = 1 }', "on"),
    ('{ at = "main_start", do = "heal", to = "own_player", amount = 1 }', "at"),
    ('{ at = ["end_phase"], do = "heal", to = "own_player", amount = 1 }', "at"),
])
def test_only_monsters_hook_phases_and_only_spells_wait(effect, field):
    text = f'[[card]]\nid = 1\nname = "X"\ntype = "spell"\ncost = 1\nrarity = 1.0\neffects = [{effect}]\n'
    with pytest.raises(CardFileError, match=rf"effects\[0\]\.{field}"):
        parse_cards(text, "c.toml")
    monster_at = ('[[card]]\nid = 1\nname = "X"\ntype = "monster"\ncost = 1\nrarity = 1.0\nhealth = 1\neffects = '
                  '[{ on = "turn", at = "end_phase", do = "heal", to = "own_player", amount = 1 }]\n')
    with pytest.raises(CardFileError, match=r"effects\[0\]\.at"):
        parse_cards(monster_at, "c.toml")


def test_a_variants_end_phase_effect_cannot_wait():
    with pytest.raises(Exception, match=r"end_phase\[0\]\.at"):
        parse_variant('base = "standard"\nname = "w"\n[[end_phase]]\nat = "end_phase"\ndo = "damage"\n'
                      'to = "both_players"\namount = 1\n', "w.toml")


def test_games_of_the_card_file_use_every_hook_and_fold_to_their_state():
    """Every hook is an event of the log, and the fold of the log is the live state."""
    seen = set()
    for seed in range(40):
        game = play_match(STANDARD, seeds=seed, agents=("greedy", "random"))
        assert fold(game.log).snapshot() == game.state.snapshot()
        seen |= {(type(e).__name__, getattr(e, "on", "")) for e in game.log if type(e) in (EffectTriggered,
                                                                                         EffectDelayed)}
        if {("EffectDelayed", ""), ("EffectTriggered", "delayed"), ("EffectTriggered", "turn_start"),
                ("EffectTriggered", "main_start")} <= seen:
            break
    assert {("EffectDelayed", ""), ("EffectTriggered", "delayed"), ("EffectTriggered", "turn_start"),
            ("EffectTriggered", "main_start")} <= seen, seen


def test_a_forged_waiting_effect_is_not_a_game():
    """A log whose `effect_delayed` names an effect that does not wait (or no card) stops the fold."""
    import msgspec
    from locm.engine.errors import InvalidLogError

    pos = Position()
    _decks(pos, 0)
    slow = pos.in_hand(0, spell(fx("heal", "own_player", at="end_phase", amount=1)))
    _decks(pos, 1)
    game = pos.game()
    game.submit(Play(0, slow))
    log = list(game.log)
    i = next(k for k, e in enumerate(log) if type(e) is EffectDelayed)
    assert fold(log).delayed
    for change in ({"at": "turn_start"}, {"index": 3}, {"card": 424242}):
        forged = [*log[:i], msgspec.structs.replace(log[i], **change), *log[i + 1:]]
        with pytest.raises(InvalidLogError, match=f"event {i} "):
            fold(forged)
