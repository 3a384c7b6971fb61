"""Every official referee game replays identically: each input byte for byte, and the winner."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from locm.replay.locm.conformance import check_game, check_generated_cards, parse_log_line, read_log_file
from tests.helpers import LOG_12, LOG_15

GAMES_12 = list(read_log_file(LOG_12))
GAMES_15 = list(read_log_file(LOG_15))


def test_the_files_hold_fifty_games_each():
    assert len(GAMES_12) == 50 and len(GAMES_15) == 50
    assert {g.ruleset for g in GAMES_12} == {"1.2"}
    assert {g.ruleset for g in GAMES_15} == {"constructed"}


@pytest.mark.parametrize("logged", GAMES_12, ids=lambda g: f"1.2-game{g.index:02d}")
def test_official_12_game_is_identical(logged):
    result = check_game(logged)
    assert result.identical, result.summary()
    assert result.inputs_checked == len(logged.turns) > 60


@pytest.mark.parametrize("logged", GAMES_15, ids=lambda g: f"1.5-game{g.index:02d}")
def test_official_15_game_is_identical(logged):
    result = check_game(logged)
    assert result.identical, result.summary()
    assert check_generated_cards(logged) is None


def _raw_line(path, index):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.readlines()[index]


def test_a_changed_input_is_reported_with_frame_and_line():
    line = _raw_line(LOG_12, 0)
    obj, end = json.JSONDecoder().raw_decode(line)
    frame = next(f for f, e in enumerate(obj["errors"]["0"]) if e and e.startswith("30 1 "))
    obj["errors"]["0"][frame] = obj["errors"]["0"][frame].replace("30 1 25 25 1", "30 1 25 25 2", 1)
    tampered = parse_log_line(json.dumps(obj) + line[end:], 0)
    result = check_game(tampered)
    assert not result.identical
    assert (result.frame, result.player, result.line) == (frame, 0, 1)
    assert result.expected == "30 1 25 25 2" and result.got == "30 1 25 25 1"
    assert "MISMATCH at frame" in result.summary()


def test_a_wrong_winner_is_reported():
    line = _raw_line(LOG_15, 3)
    obj, end = json.JSONDecoder().raw_decode(line)
    rest = line[end:].split()
    swapped = f" {rest[1]} {rest[0]} " + " ".join(rest[2:])
    result = check_game(parse_log_line(json.dumps(obj) + swapped, 3))
    assert not result.identical
    assert result.message.startswith("winner: expected player")


def test_a_different_answer_changes_the_game():
    """The check is not blind to the answers: feeding one different answer breaks a later input."""
    logged = dataclasses.replace(GAMES_12[1], turns=list(GAMES_12[1].turns))
    battle = [i for i, t in enumerate(logged.turns) if t[3] and "ATTACK" in t[3]]
    i = battle[0]
    f, p, echo, answer = logged.turns[i]
    logged.turns[i] = (f, p, echo, "PASS\n")
    assert not check_game(logged).identical
