"""Tried as a forger would: edited logs with every checksum recomputed are refused at each door (import,
migrate) and named by every reader; a store knows what it should hold."""

from __future__ import annotations

import io
import json

import msgspec
import pytest

from locm.engine.rulesets import RULES_12, rules_hash
from locm.errors import ImportFormatError
from locm.gameid import game_id
from locm.play import play_one
from locm.store import GameExtras, open_store
from tests.forge import games_of, reforge, replace_event
from tests.test_store_cli import locm

GAMES = [("1.2", 7, ("greedy", "random")), ("constructed", 3, ("greedy", "pass"))]


@pytest.fixture(scope="module")
def export() -> bytes:
    """An export of two real games (a 1.2 game of seed 7, a constructed one)."""
    with open_store(":memory:") as store:
        for ruleset, seed, agents in GAMES:
            store.append_game(GameExtras(game_id=game_id(ruleset, seed, agents)), play_one(ruleset, seed, agents).log)
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    return buf.getvalue()


def import_error(data: bytes) -> ImportFormatError:
    with open_store(":memory:") as store:
        with pytest.raises(ImportFormatError) as info:
            store.import_jsonl(io.BytesIO(data))
        assert store.count() == 0  # all or none
    return info.value


def flip_winner(events):
    end = events[-1]
    return events[:-1] + [msgspec.structs.replace(end, winner=1 - end.winner)]


def edit_rules(events):
    rules = events[0].rules.replace(start_health=20)
    return [msgspec.structs.replace(events[0], rules=rules, rules_hash=rules_hash(rules))] + events[1:]


def test_the_forgers_file_passes_every_checksum(export):
    """The tool is sound: unedited, its output is the same file byte for byte; edited, every check of the
    format passes (chain, records, totals), so only the rules and the ids are left to catch it."""
    assert reforge(export) == export
    with open_store(":memory:") as store:
        assert store.import_jsonl(io.BytesIO(reforge(export, flip_winner, game=1)), check=False).games == 2


def test_import_refuses_a_flipped_winner_naming_the_game_the_seq_and_the_event(export):
    gid = game_id(*GAMES[1])
    n = len(games_of(export)[1][1])
    exc = import_error(reforge(export, flip_winner, game=1))
    first_game_lines = len(games_of(export)[0][1]) + 1
    assert exc.line == 1 + first_game_lines + 1 + n  # the game_ended line: after the header, game 1, a record
    assert str(exc).startswith(f"line {exc.line}: game {gid!r}: re-decided from its inputs, seq {n - 1}: the event "
                               'differs from what the rules give; the log has {"type":"game_ended"')
    assert '"winner":' in str(exc).split("the rules give ")[1]


def test_import_refuses_edited_rules(export):
    exc = import_error(reforge(export, edit_rules))
    assert f"game {game_id(*GAMES[0])!r}: " in str(exc) and "seq " in str(exc)


def test_import_refuses_edited_rules_even_when_the_game_was_replayed_under_them(export):
    """The forger plays the game again under the edited rules: every event is what those rules give, but the
    game says it is a 1.2 game of seed 7 under another game's id."""
    forged = play_one(RULES_12.replace(start_health=20), 7, GAMES[0][2]).log
    exc = import_error(reforge(export, lambda events: forged))
    assert str(exc).endswith(f"the id is not what its content gives: its game_created gives "
                             f"'{game_id(RULES_12.replace(start_health=20), 7, GAMES[0][2])}'")


@pytest.mark.parametrize("what", ["the id of the seed-1 game", "a renamed agent"])
def test_import_refuses_a_game_under_an_id_its_content_does_not_give(export, what):
    if what == "a renamed agent":
        data = reforge(export, lambda ev: [msgspec.structs.replace(ev[0], agents=("greedy", "pass"))] + ev[1:])
        gid = game_id(*GAMES[0])
    else:
        gid = game_id("1.2", 1, GAMES[0][2])  # a seed-7 game under the id a tournament gives seed 1
        data = reforge(export, game_id=gid)
    exc = import_error(data)
    assert str(exc).startswith(f"line 3: game {gid!r}: the id is not what its content gives: its game_created "
                               "gives '1.2-7-"), str(exc)


def test_locm_import_of_a_forged_file_is_one_line_and_stores_nothing(export, tmp_path):
    (tmp_path / "forged.jsonl").write_bytes(reforge(export, lambda ev: replace_event(ev, "PlayerDamaged", 2,
                                                                                       amount=50)))
    code, out, err = locm("import", tmp_path / "forged.jsonl", "--db", tmp_path / "t.db")
    assert code == 2 and err.count("\n") == 1 and "re-decided from its inputs, seq " in err, err
    assert '"amount":50' in err and not (tmp_path / "t.db").exists()
