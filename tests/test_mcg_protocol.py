"""The bot protocol of my-card-game (R-ANSWER, R-VIEW): what a bot is sent hides what it may not see; its
answer is parsed as hostile input (bounded; a bad line loses with a reason, never a crash)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from locm.engine.errors import ProtocolError
from locm.engine.mcg.commands import Attack, ChooseStarter, EndTurn, Mulligan, Play, Surrender
from locm.engine.mcg.game import McgGame, play_match
from locm.engine.mcg.legal import legal_actions
from locm.engine.mcg.protocol import MAX_LINE, message, parse_answer
from locm.engine.mcg.views import HIDDEN, describe, redact, view
from locm.events.mcg.catalog import CardDrawn, CommandReceived, DeckShuffled, GameCreated, HardError


def started(seed: int = 9) -> McgGame:
    game = McgGame.new(seeds=seed, first=0)
    game.submit(Mulligan(0))
    game.submit(Mulligan(1))
    return game


def test_the_message_shows_the_own_hand_and_hides_the_opponents_and_every_deck_order():
    """R-VIEW: one JSON line; own hand with cards; the opponent's hand as a count; decks as counts."""
    game = started()
    line = message(game.state, 0)
    assert line.endswith("\n") and "\n" not in line[:-1]
    doc = json.loads(line)
    you, enemy = doc["view"]["you"], doc["view"]["enemy"]
    assert [c["id"] for c in you["hand"]] == game.state.players[0].hand
    assert enemy["hand"] == 5 and enemy["deck"] == 25 and you["deck"] == 24
    hidden = set(game.state.players[1].hand) | set(game.state.players[0].deck) | set(game.state.players[1].deck)
    numbers = {int(x) for x in __import__("re").findall(r'"id":(\d+)', line)}
    assert not numbers & hidden
    assert doc["legal"] == [c.action() for c in legal_actions(game.state)]
    assert json.loads(message(game.state, 1))["legal"] == []  # not to move: nothing to choose


def test_every_legal_action_round_trips_its_line():
    """The text a built-in agent's command is recorded as parses back to the same command."""
    game = McgGame.new(seeds=2)
    seen = set()
    for _ in range(300):
        if game.ended:
            break
        for command in legal_actions(game.state):
            assert parse_answer(command.text(), command.player) == command
            seen.add(type(command))
        game.submit(legal_actions(game.state)[-1 if len(seen) % 2 else 0])
    assert seen >= {ChooseStarter, Mulligan, Play, Attack, EndTurn}
    assert parse_answer('{"do":"surrender"}', 1) == Surrender(1)


@pytest.mark.parametrize("line, reason", [
    ("x" * (MAX_LINE + 1), "answer of 1001 characters: at most 1000"),
    ("", "not a JSON object"),
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"do": "fly"}', "'do' must be one of start, mulligan, play, attack, end, surrender, got 'fly'"),
    ('{"do": "end", "do": "surrender"}', "not a JSON object: a key appears twice"),
    ('{"do": "play"}', "play: missing key 'id'"),
    ('{"do": "play", "id": 3, "colour": 1}', "play: unknown key 'colour'"),
    ('{"do": "play", "id": true}', "'id' must be an integer of 32 bits, got True"),
    ('{"do": "play", "id": 3.0}', "'id' must be an integer of 32 bits, got 3.0"),
    ('{"do": "play", "id": 99999999999}', "'id' must be an integer of 32 bits, got 99999999999"),
    ('{"do": "attack", "id": 3, "target": NaN}', "not a JSON object: NaN is not a number of JSON"),
    ('{"do": "mulligan", "ids": [' + ",".join(["1"] * 13) + "]}", "mulligan: 'ids' must be a list of at most 12"),
    ("[" * 400 + "]" * 400, "expected a JSON object, got list"),
])
def test_a_bad_line_is_a_loss_with_its_reason(line, reason):
    """R-ANSWER: the parser says why; played, the line loses the game with that reason, recorded bounded."""
    with pytest.raises(ProtocolError) as err:
        parse_answer(line, 0)
    assert str(err.value).startswith(reason)
    game = McgGame.new(seeds=1, first=0)
    events = game.answer(0, line)
    (error,) = [e for e in events if type(e) is HardError]
    assert error.reason.startswith(reason) and game.state.winner == 1
    (record,) = [e for e in events if type(e) is CommandReceived]
    assert len(record.text) <= MAX_LINE + 1


def test_an_illegal_but_well_formed_answer_is_rejected_and_the_bot_asked_again():
    """R-REJECT: not a loss; the rejection says why."""
    game = started()
    game.answer(0, '{"do": "attack", "id": 2, "target": 1}')
    assert not game.ended and game.to_move == 0
    assert "is not a monster on seat 0's side" in game.log[-1].reason


@settings(max_examples=300, deadline=None)
@given(line=st.one_of(st.text(max_size=60), st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
                      st.builds(json.dumps, st.dictionaries(st.sampled_from(["do", "id", "target", "ids", "first"]),
                                                            st.one_of(st.integers(), st.text(max_size=5),
                                                                      st.sampled_from(["play", "end", "attack"]),
                                                                      st.lists(st.integers(), max_size=4))))))
def test_any_line_parses_or_is_a_protocol_error(line):
    """Hostile input: whatever a bot sends, the parser gives a command or a `ProtocolError`, never another
    exception; and decided, any line leaves a game that still folds."""
    try:
        parse_answer(line, 0)
    except ProtocolError:
        pass
    game = McgGame.new(seeds=1, first=0)
    game.answer(0, line)
    assert McgGame.from_log(game.log).state.snapshot() == game.state.snapshot()


def test_the_per_player_log_hides_the_opponents_draws_and_every_deck_order():
    """R-VIEW: each seat's view of the log: its own draws shown, the opponent's hidden; no deck order; the
    opponent's deck list and answers hidden."""
    game = play_match(seeds=4, agents=("random", "random"))
    for seat in (0, 1):
        mine = [redact(e, seat) for e in game.log]
        created = mine[0]
        assert isinstance(created, GameCreated) and created.decks[1 - seat] == () and created.decks[seat]
        assert all(e.ids == () for e in mine if type(e) is DeckShuffled)
        draws = [e for e in mine if type(e) is CardDrawn]
        assert all(e.id == HIDDEN for e in draws if e.player != seat)
        assert all(e.id != HIDDEN for e in draws if e.player == seat)
        assert all(e.text == "" for e in mine if type(e) is CommandReceived and e.player != seat)
        assert [e.seq for e in mine] == [e.seq for e in game.log]


def test_every_event_has_a_description():
    game = play_match(seeds=5, agents=("greedy", "random"))
    texts = [describe(e, game.state) for e in game.log]
    assert all(t and t != type(e).__name__ for t, e in zip(texts, game.log))
    assert texts[-1].startswith(f"player {game.state.winner} wins")
    assert view(game.state, 0)["phase"] == "ended"
