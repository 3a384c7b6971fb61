"""Skyport conformance: every committed log of the official 2013 server replays identically through the engine
(every gamestate, re-broadcast and error each client got, the server's stats and the end), and a log that
differs anywhere is reported at its first difference, with its turn, player and field."""

from __future__ import annotations

import functools
import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from locm.events.skyport.catalog import EVENT_TYPES
from locm.replay.skyport.conformance import Result, check_log, read_records
from tests.skyport_helpers import SAMPLES, oracle_logs

LOGS = oracle_logs()


@functools.cache
def checked(path: Path) -> Result:
    """Each committed log is replayed once per test session."""
    return check_log(path)


def test_the_corpus_is_there():
    assert len(list(SAMPLES.glob("*.jsonl.gz"))) == 12 and len(LOGS) > 12


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_oracle_log_replays_identically(path: Path):
    result = checked(path)
    assert result.identical, result.summary()
    assert result.turns > 0 and result.messages > 0
    assert "timing:resolved" not in result.coverage  # the committed logs need no reading of late lines


def test_the_corpus_covers_every_event_and_the_rare_cases():
    seen: Counter[str] = Counter()
    for path in LOGS:
        seen += checked(path).coverage
    tags = {t.__struct_config__.tag for t in EVENT_TYPES} - {"game_created", "spawns_drawn", "turn_order_drawn",
                                                            "loadout_chosen", "loadout_rejected"}
    assert {k.split(":")[0] for k in seen} >= tags
    rare = {"game_ended:server-crash", "hit_absorbed:dead", "hit_absorbed:spawn", "mortar_fired:no-explosion",
            "droid_fired:too-long", "action_rejected:occupied", "action_rejected:off-map",
            "client:disconnected", "reply:Invalid packet received", "reply:Wrong protocol revision"}
    assert rare <= set(seen), rare - set(seen)


def _tampered(tmp_path: Path, change) -> Path:
    records = read_records(SAMPLES / "game-s1-0027.jsonl.gz")
    change(records)
    out = tmp_path / "tampered.jsonl.gz"
    with gzip.open(out, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    return out


def _edit_line(records, player, needle, edit):
    for r in records:
        if r["type"] == "msg" and r["player"] == player and r["dir"] == "s2c" and needle in r["line"]:
            value = json.loads(r["line"])
            edit(value)
            r["line"] = json.dumps(value)
            return
    raise AssertionError(f"no line with {needle!r}")


def test_a_changed_score_is_found_at_its_turn_player_and_field(tmp_path):
    def change(records):
        def bump(value):
            value["players"][1]["score"] += 1

        _edit_line(records, 2, '"turn":57,', bump)

    result = check_log(_tampered(tmp_path, change))
    assert not result.identical
    assert (result.turn, result.player, result.where) == (57, "p2-miner", "players[1].score")
    assert result.expected == result.got + 1  # expected: the 2013 server's (the log's), got: locm's


def test_a_missing_rebroadcast_and_a_changed_stat_are_found(tmp_path):
    def drop(records):
        i = next(i for i, r in enumerate(records) if r["type"] == "msg" and r["player"] == 1 and r["dir"] == "s2c"
                 and '"from"' in r["line"])
        del records[i]

    result = check_log(_tampered(tmp_path, drop))  # turn 1's first move (right-down) never reached p1-random
    assert (result.identical, result.turn, result.player, result.where) == (False, 1, "p1-random", "direction")
    assert (result.expected, result.got) == ("left-down", "right-down")  # the server's next, locm's missing one

    def stat(records):
        next(r for r in records if r["type"] == "stats" and r["before_turn"] == 120)["players"][0]["scrap"] += 1

    result = check_log(_tampered(tmp_path, stat))
    assert (result.identical, result.turn, result.where) == (False, 120, "stats.scrap")


def test_an_engine_that_rounds_otherwise_is_caught(monkeypatch):
    """The check is not vacuous: one point more on level-1 lasers shows up in the first game that has one."""
    import locm.engine.skyport.actions as actions

    real = actions.bonus_damage
    monkeypatch.setattr(actions, "bonus_damage", lambda base, unused, bonus: real(base, unused, bonus) + (base == 16))
    assert not check_log(SAMPLES / "game-s1-0027.jsonl.gz").identical


def test_cli_checks_skyport_logs_and_refuses_other_files(tmp_path):
    locm = [str(Path(sys.executable).parent / "locm")]
    ok = subprocess.run(locm + ["conformance", "--game", "skyport", *map(str, LOGS[:2])],
                        capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip().endswith("2/2 games identical"), ok.stdout + ok.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "format": "something else"}\n')
    out = subprocess.run(locm + ["conformance", "--game", "skyport", str(bad)], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == f"locm: error: {bad}:1: expected a skyport-oracle/1 header on the first line"


@pytest.mark.parametrize("edit, message", [
    (lambda recs: recs[0].__setitem__("seed", "x"), "header: expected 'seed' to be a int"),
    (lambda recs: recs[0].__setitem__("map_text", "players 2\nsize 2\n"), "the header's map_text:3: expected 'desc"),
    (lambda recs: recs[0].__setitem__("seed", 1 << 70), "header: expected a seed that is a Java long"),
    (lambda recs: recs[5].pop("line"), "msg record: expected 'dir' s2c or c2s and a 'line' string"),
    (lambda recs: recs[5].__setitem__("player", 9), "msg record: expected a player from 0 to 3 or 'gui'"),
    (lambda recs: next(r for r in recs if r["type"] == "stats").__setitem__("players", 3),
     "stats record: expected 'before_turn' and a list of 'players'"),
])
def test_a_broken_log_is_one_line_naming_where(tmp_path, edit, message):
    from locm.replay.skyport.conformance import OracleLogError

    path = _tampered(tmp_path, edit)
    with pytest.raises(OracleLogError) as err:
        check_log(path)
    assert message in str(err.value) and str(err.value).startswith(str(path)) and "\n" not in str(err.value)
