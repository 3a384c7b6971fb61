"""Behaviours of the rules (issue 32 item 6): every game's created event records which behaviour of its rules
decided it, and a game stored under an earlier behaviour re-decides as it was decided.

The deliberate change (`behaviour_two`) is what a rule fix looks like: LOCM's R-CAP ends a game at turn 12 from
behaviour 2 on, the rule reading the game's behaviour from its state, and LOCM's current behaviour is raised to
2. Games stored before the change stay valid and say "decided under behaviour 1 (this engine: 2)"; new games
differ; the same change without the behaviour number would make every older game depart from the rules."""

from __future__ import annotations

import dataclasses
import json

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine import core, registry
from locm.engine.errors import InvalidLogError, UnknownBehaviourError
from locm.engine.locm import behaviour as locm_behaviour, decide, drawing
from locm.engine.locm.gameid import created_id, game_id
from locm.engine.seam import behaviour_line, behaviour_of
from locm.events.codec import DecodeError
from locm.events.locm.catalog import GameEnded, TurnEnded
from locm.replay.game import Replay
from locm.replay.html import page_data
from locm.verify.checks import content_problem

SEED = 3  # random against random lasts 25 turns under behaviour 1: past the changed cap
AGENTS = ("random", "random")
SHORT_CAP = 12
PURE = decide.__file__.endswith(".py") and drawing.__file__.endswith(".py")
"""The change is made by replacing a function of the Python core, which a compiled core does not look up."""


def _short_cap_end_turn(original, *, by_behaviour: bool = True):
    """R-TURN's end of a turn with R-CAP at `SHORT_CAP` turns: under behaviour 2 and later (or, with
    ``by_behaviour`` False, for every game: the change made without a behaviour number)."""

    def end_turn(state, out, player):
        if (by_behaviour and behaviour_of(state.params) < 2) or state.turn + 1 < SHORT_CAP:
            return original(state, out, player)
        ended = out.emit(TurnEnded(seq=out.seq, cause=out.cause, rule="R-TURN", player=player))
        drawing.cap_end(state, out, player, ended)

    return end_turn


def _change(monkeypatch, *, by_behaviour: bool = True):
    import locm

    # the change is the Python core's: the native one (which plays and re-decides in C++) is not asked
    monkeypatch.setattr(locm, "CORE_CHOICE", "pure", raising=False)
    monkeypatch.setattr(drawing, "end_turn", _short_cap_end_turn(drawing.end_turn, by_behaviour=by_behaviour))
    if by_behaviour:
        monkeypatch.setattr(locm_behaviour, "BEHAVIOUR", 2)
        changed = dataclasses.replace(registry.get("locm"), behaviour=2)
        monkeypatch.setitem(registry.GAMES, "locm", lambda: changed)


@pytest.fixture
def stored():
    """A game stored before the change (behaviour 1), as its JSON lines."""
    game = registry.get("locm")
    return game.codec.to_jsonl(core.play(game, "1.2", SEED, AGENTS).log)


def _relabelled(events, behaviour):
    return [msgspec.structs.replace(events[0], behaviour=behaviour), *events[1:]]


@pytest.mark.parametrize("name", ["locm", "mcg", "skyport"])
def test_every_new_game_records_the_behaviour_that_decides_it(name):
    game = registry.get(name)
    match = core.play(game, game.rulesets[0], 7, ("random", "random"))
    assert b'"behaviour":1,' in game.codec.to_json(match.log[0])  # written, not left to a default
    assert behaviour_of(match.log[0]) == game.behaviour == 1
    assert core.verify(game, match.log) is None
    assert behaviour_line(game, match.log[0]) == "decided under behaviour 1 (this engine: 1)"


@pytest.mark.parametrize("name", ["locm", "mcg", "skyport"])
def test_a_log_without_the_field_is_behaviour_1_keeps_its_bytes_and_its_id(name):
    """Every game stored before behaviours were recorded: decoded and encoded again it is the same bytes (its
    hash chain holds), it is of behaviour 1, and its id is the id it had."""
    game = registry.get(name)
    log = core.play(game, game.rulesets[0], 5, game.agent_names[-2:]).log
    old = game.codec.to_jsonl(log).replace(b',"behaviour":1,', b",", 1)
    events = game.codec.from_jsonl(old)
    assert events[0].behaviour is msgspec.UNSET and behaviour_of(events[0]) == 1
    assert game.codec.to_jsonl(events) == old
    assert core.verify(game, events) is None
    assert game.game_id(events[0]) == game.game_id(log[0])


@pytest.mark.parametrize("name", ["locm", "mcg", "skyport"])
def test_a_behaviour_this_engine_does_not_know_is_a_one_line_error(name, tmp_path):
    game = registry.get(name)
    log = _relabelled(core.play(game, game.rulesets[0], 7, ("random", "random")).log, 7)
    with pytest.raises(UnknownBehaviourError, match=r"^decided under behaviour 7; this engine knows 1$"):
        core.verify(game, log)
    with pytest.raises(InvalidLogError, match="decided under behaviour 7"):
        game.fold(log)  # every reader folds: none decides a later engine's game with today's rules
    path = tmp_path / "later.jsonl"
    path.write_bytes(game.codec.to_jsonl(log))
    verified = CliRunner().invoke(cli, ["verify", str(path)])
    assert verified.exit_code == 1 and isinstance(verified.exception, SystemExit), verified.output
    assert f"{path}: decided under behaviour 7; this engine knows 1\n" in verified.output
    shown = CliRunner().invoke(cli, ["show", str(path)])
    assert shown.exit_code != 0 and "Traceback" not in shown.output
    assert f"locm: error: {path}: decided under behaviour 7; this engine knows 1" in shown.output
    assert len(shown.output.strip().splitlines()) == 1, shown.output
    with pytest.raises(DecodeError, match="behaviour"):  # not a behaviour at all: refused when decoded
        game.codec.from_json(game.codec.to_json(log[0]).replace(b'"behaviour":7', b'"behaviour":0'))


def test_an_earlier_behaviour_stays_selectable_and_a_later_one_is_refused():
    game = registry.get("mcg")
    with pytest.raises(core.CoreError, match="no behaviour 2: this engine knows 1$"):
        core.play(game, "standard", 1, AGENTS, behaviour=2)
    assert core.play(game, "standard", 1, AGENTS, behaviour=1).log == core.play(game, "standard", 1, AGENTS).log


@pytest.mark.skipif(not PURE, reason="the change replaces a function of the Python core (this core is compiled)")
def test_a_rule_changed_without_a_behaviour_number_makes_every_older_game_depart(monkeypatch, stored):
    """What the behaviour number prevents: a faithful fix applied to every game re-decides stored ones with
    today's rules, and they "depart from the rules"."""
    game = registry.get("locm")
    events = game.codec.from_jsonl(stored)
    _change(monkeypatch, by_behaviour=False)
    found = core.verify(game, events)
    assert found is not None and found.seq > 0 and "R-CAP" in found.decided


@pytest.mark.skipif(not PURE, reason="the change replaces a function of the Python core (this core is compiled)")
def test_after_a_behaviour_change_older_games_stay_valid_and_new_ones_differ(monkeypatch, stored, tmp_path):
    _change(monkeypatch)
    game = registry.get("locm")
    assert game.behaviour == 2
    old = game.codec.from_jsonl(stored)
    # the stored game re-decides as it was decided
    assert core.verify(game, old) is None
    verdict = content_problem(None, old)
    assert verdict.ok and verdict.note == "decided under behaviour 1 (this engine: 2)", verdict
    # a new game of the same seeds and agents is decided under behaviour 2: it ends at the new cap
    new = core.play(game, "1.2", SEED, AGENTS).log
    assert behaviour_of(new[0]) == 2 and core.verify(game, new) is None
    end = new[-1]
    assert type(end) is GameEnded and end.rule == "R-CAP" and end.turn == SHORT_CAP - 1
    assert old[-1].rule == "R-WIN" and len(new) < len(old)
    assert new[1:3] == old[1:3]  # the same game until the rule that changed
    # its id is another game's: the behaviour is part of it (behaviour 1's ids are unchanged)
    assert created_id(new[0]) == game_id("1.2", SEED, AGENTS) != created_id(old[0])
    assert created_id(old[0]) == game_id("1.2", SEED, AGENTS, behaviour=1)
    # the number decides: each log relabelled as the other behaviour departs from the rules
    assert core.verify(game, _relabelled(old, 2)) is not None
    assert core.verify(game, _relabelled(new, 1)) is not None
    # the earlier behaviour is selectable for a new game too: it is the stored game, byte for byte
    assert game.codec.to_jsonl(core.play(game, "1.2", SEED, AGENTS, behaviour=1).log) == stored


@pytest.mark.skipif(not PURE, reason="the change replaces a function of the Python core (this core is compiled)")
def test_verify_show_and_the_viewer_say_which_behaviour_decided(monkeypatch, stored, tmp_path):
    _change(monkeypatch)
    path = tmp_path / "stored.jsonl"
    path.write_bytes(stored)
    verified = CliRunner().invoke(cli, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert f"{path}: good; note: decided under behaviour 1 (this engine: 2)" in verified.output
    shown = CliRunner().invoke(cli, ["show", str(path)])
    assert shown.exit_code == 0 and "WARNING" not in shown.output, shown.output
    assert shown.output.splitlines()[-1] == "decided under behaviour 1 (this engine: 2)"
    as_json = CliRunner().invoke(cli, ["show", str(path), "--json"])
    assert json.loads(as_json.output)["behaviour"] == {"decided": 1, "engine": 2,
                                                      "text": "decided under behaviour 1 (this engine: 2)"}
    r = Replay(registry.get("locm").codec.from_jsonl(stored), str(path))
    assert page_data(r)["meta"]["behaviour"] == "decided under behaviour 1 (this engine: 2)"


def test_the_native_core_decides_the_behaviour_the_python_core_does():
    from locm.engine.locm import native

    if not native.available():
        pytest.skip(native.WHY_UNAVAILABLE)
    from locm.engine.locm.game import Game
    from locm.engine.locm.agents import make_agent

    assert native._native.BEHAVIOUR == locm_behaviour.BEHAVIOUR
    agents = [make_agent("random", 1), make_agent("random", 2)]
    assert native.why_not(Game.new("1.2", 4, agents=AGENTS), agents) is None
    relabelled = Game.new("1.2", 4, agents=AGENTS)
    relabelled.state.params = msgspec.structs.replace(relabelled.state.params, behaviour=2)
    assert native.why_not(relabelled, agents) == ("the native core decides behaviour 1 of the rules, not this "
                                                  "game's 2")
