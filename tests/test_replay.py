"""Replay: every source gives one `Replay`; `locm show`, `audit`, `replay`, `import-referee` over it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.events.locm.catalog import ActionReceived, GameCreated, HardError, TurnStarted
from locm.events.locm.codec import to_jsonl
from locm.cli.main import cli
from locm.games.locm.play import play_one
from locm.store.eventstore import GameExtras, open_store
from locm.replay import Replay, ReplayError, ReplaySourceError, open_game
from locm.replay.locm.conformance import read_log_file
from locm.replay.rules import rule, rule_ids
from locm.replay.locm.referee import referee_games
from tests.helpers import LOG_12, LOG_15
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    """A store with two games of each ruleset."""
    path = tmp_path_factory.mktemp("replay") / "g.db"
    with open_store(path) as store:
        for ruleset in ("1.2", "constructed"):
            for seed in (3, 4):
                game = play_one(ruleset, seed, ("greedy", "random"))
                store.append_game(LOCM_GAME, GameExtras(game_id=f"{ruleset}-{seed}-test"), game.log)
    return path


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "g.jsonl"
    path.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    return path


# --- the library ------------------------------------------------------------------------------------------


def test_rules_file_is_the_shared_one_byte_for_byte():
    shared = ROOT.parent / "shared" / "rules" / "LOCM-RULES.md"
    if not shared.exists():
        pytest.skip("no ../shared/rules here")
    assert (ROOT / "data" / "LOCM-RULES.md").read_bytes() == shared.read_bytes()


def test_every_file_a_rule_text_names_is_in_the_repository():
    """The shared rules name files relative to the shared folder (../data/, ../conformance/); the texts shown
    (audit, html) name them where this repository keeps them, and each is there."""
    import re

    named = set()
    for rid in rule_ids():
        r = rule(rid)
        assert "../" not in r.heading + r.text, rid
        named |= set(re.findall(r"`((?:data|tests/data)/[^`\s]+)`", r.heading + "\n" + r.text))
    assert {"data/cardlist-1.2.txt", "data/cardWeights-1.5.json", "tests/data/java-random-vectors.txt"} <= named
    for path in named:
        assert list(ROOT.glob(path)), path
    assert rule("R-CAP").text.startswith("- No battle turn 1000 begins")


def test_every_rule_an_event_cites_has_a_section():
    events = [e for p in GOLDEN.glob("*.jsonl") for e in open_game(p).events]
    cited = {e.rule for e in events}
    assert cited <= set(rule_ids()), cited - set(rule_ids())
    assert "Lethal" in rule("R-ATTACK").text
    assert rule("R-DAMAGEDRAW").heading.startswith("R-RUNES")


def test_three_sources_give_the_same_kind_of_replay(store_path, log_path):
    stored = open_game(db=store_path, game_id="1.2-3")  # a unique prefix
    logged = open_game(log_path)
    official = open_game(LOG_15, game=3)
    for r in (stored, logged, official):
        assert isinstance(r, Replay) and type(r.events[0]) is GameCreated
        assert r.final.ended and r.turns()
    assert official.meta["scores"] == [1, 0] and official.meta["params"]["seed"] == "3043"
    assert stored.meta["game_id"] == "1.2-3-test"


def test_turns_split_the_battle_with_commands_and_start_after_draws(log_path):
    r = open_game(log_path)
    turns = r.turns()
    assert [t.number for t in turns] == list(range(len(turns)))
    for t, nxt in zip(turns, turns[1:]):
        assert t.last_seq + 1 == nxt.first_seq
        assert type(r.events[t.first_seq]) is TurnStarted and t.player == r.events[t.first_seq].player
        assert all(type(c) is ActionReceived and c.player == t.player for c in t.commands)
        assert [e.seq for e in t.events] == list(range(t.first_seq, t.last_seq + 1))
        # the start is after the draws: the next event is the player's first command
        assert type(r.events[t.start_seq + 1]) is ActionReceived
        assert r.view(t.start_seq)["players"][t.player]["mana"] == r.events[t.first_seq].mana


def test_view_hides_the_other_hand_and_the_decks(log_path):
    r = open_game(log_path)
    s = r.turn_start(6)
    full, as0, as1 = r.view(s), r.view(s, 0), r.view(s, 1)
    assert isinstance(full["players"][1]["hand"], list) and "deck_cards" in full["players"][0]
    assert as0["players"][1]["hand"] == len(full["players"][1]["hand"])
    assert as0["players"][0]["hand"] == full["players"][0]["hand"]
    assert as1["players"][0]["hand"] == len(full["players"][0]["hand"])
    assert not any("deck_cards" in p for p in as0["players"] + as1["players"])
    assert as0["players"][0]["board"] == full["players"][0]["board"] == as1["players"][0]["board"]


def test_diff_reports_only_what_changed(log_path):
    r = open_game(log_path)
    assert r.diff(250, 250) == {}
    t = r.turns()[10]
    d = r.diff(t.first_seq - 1, t.first_seq)  # a turn start: mana, active player, readiness
    assert d["active"] == [1 - t.player, t.player]
    p = next(x for x in d["players"] if x["player"] == t.player)
    assert p["mana"][1] == r.events[t.first_seq].mana
    assert "health" not in p


def test_causes_walk_back_with_decreasing_seqs_in_every_official_game():
    """Every event of every official game has a cause chain ending at a command or the root."""
    for path in (LOG_12, LOG_15):
        for g in referee_games(path):
            r = Replay(g.events)
            for e in r.events:
                chain = r.causes(e.seq)
                seqs = [e.seq] + [c.seq for c in chain]
                assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == len(seqs)
                end = chain[-1] if chain else e
                assert end.cause == -1 and type(end) in (ActionReceived, HardError, GameCreated), (path, e)


def test_replay_of_an_official_game_is_the_conformance_replay():
    logged = next(g for i, g in enumerate(read_log_file(LOG_12)) if i == 5)
    r = open_game(LOG_12, game=5)
    assert r.final.winner == logged.expected_winner


def test_card_life_and_rejected(log_path):
    r = open_game(LOG_12, game=1)
    life = r.card_life(7)
    types = [x["type"] for x in life]
    assert types[0] == "deck_ordered" and "card_drawn" in types
    rej = r.rejected()
    assert rej and all(x["rule"] and x["reason"] and x["line"] for x in rej)
    with pytest.raises(ReplayError):
        r.card_life(999)


# --- the commands -----------------------------------------------------------------------------------------


def test_show_json_has_the_documented_keys(log_path):
    res = invoke("show", log_path, "--turn", 8, "--json")
    assert res.exit_code == 0, res.output
    v = json.loads(res.output)
    assert {"seq", "turn", "active", "players"} <= set(v) and v["turn"] == 8
    for p in v["players"]:
        assert {"health", "mana", "max_mana", "deck", "hand", "board"} <= set(p)
        assert len(p["board"]) == 2
        for c in p["hand"]:
            assert {"id", "base_id", "attack", "defense", "keywords"} <= set(c) and len(c["keywords"]) == 6
        for lane in p["board"]:
            for c in lane:
                assert {"id", "base_id", "attack", "defense", "keywords", "can_attack"} <= set(c)
    res = invoke("show", log_path, "--seq", 250, "--as", 0, "--json")
    v = json.loads(res.output)
    assert v["seq"] == 250 and isinstance(v["players"][1]["hand"], int)


def test_show_text_lists_the_turns_events(log_path):
    res = invoke("show", log_path, "--turn", 10)
    assert res.exit_code == 0
    assert "turn 10 (P0)" in res.output and "health" in res.output and "lane 0:" in res.output


def test_show_from_a_store_by_prefix_and_an_official_log(store_path):
    res = invoke("show", "--db", store_path, "constructed-4", "--turn", 3, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["ruleset"] == "constructed"
    res = invoke("show", LOG_15, "--game", 0, "--turn", 2)
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("args, message", [
    (["show", "--db", "{db}", "nosuchgame"], "no game 'nosuchgame'"),
    (["show", "--db", "{db}", "1.2-"], "ambiguous"),
    (["show", "{log}", "--seq", "100000"], "seq must be in 0.."),
    (["show", "{log}", "--seq", "-1"], "seq must be in 0.."),
    (["show", "{log}", "--turn", "500"], "turn must be in 0.."),
    (["audit", "{log}", "--seq", "100000"], "seq must be in 0.."),
    (["show", "{readme}"], "not an event log"),
    (["show", "{missing}"], "no such file"),
    (["show", "{official}"], "pick one with --game K"),
    (["show", "{official}", "--game", "50"], "--game must be in 0..49"),
    (["html", "{readme}", "-o", "{tmp}/x.html"], "not an event log"),
    (["audit", "{log}"], "give exactly one of"),
    (["show", "{log}", "--seq", "3", "--turn", "3"], "not both"),
])
def test_bad_input_is_one_line_and_exit_2(store_path, log_path, tmp_path, args, message):
    subs = {"{db}": store_path, "{log}": log_path, "{readme}": ROOT / "README.md", "{official}": LOG_12,
            "{missing}": tmp_path / "nope.jsonl", "{tmp}": tmp_path}
    argv = []
    for a in args:
        for k, v in subs.items():
            a = a.replace(k, str(v))
        argv.append(a)
    res = CliRunner().invoke(cli, argv)
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in res.output


def test_a_truncated_log_is_refused_in_one_line(log_path, tmp_path):
    bad = tmp_path / "cut.jsonl"
    data = log_path.read_bytes()
    bad.write_bytes(data[: len(data) // 2] + b'{"type":"card_drawn","player":0,"id":1,"seq":3,"cause":0,"rule":"x"}\n')
    res = invoke("show", bad)
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1


def test_audit_json_shape(log_path):
    r = open_game(log_path)
    seq = next(e.seq for e in r.events if type(e).__name__ == "CreatureDied")
    res = invoke("audit", log_path, "--seq", seq, "--json")
    assert res.exit_code == 0, res.output
    x = json.loads(res.output)
    assert set(x) >= {"event", "rule", "causes", "diff"}
    assert x["event"]["seq"] == seq and x["rule"]["id"] == x["event"]["rule"] and x["rule"]["text"]
    assert x["causes"][-1]["type"] == "action_received"
    assert x["diff"]["left"][0]["id"] == x["event"]["id"]
    text = invoke("audit", log_path, "--seq", seq).output
    assert f"event {seq}: creature_died" in text and "leaves the board" in text and "rule R-" in text


def test_audit_rejected_and_card(log_path):
    res = invoke("audit", LOG_12, "--game", 0, "--rejected")
    assert res.exit_code == 0 and "must attack a Guard" in res.output and "[R-ACTIONS]" in res.output
    res = invoke("audit", log_path, "--card", 7, "--json")
    life = json.loads(res.output)
    assert life[0]["type"] == "deck_ordered" and any(x["type"] == "creature_summoned" for x in life)


def test_replay_prints_every_turn_when_not_a_terminal(log_path):
    r = open_game(log_path)
    res = invoke("replay", log_path)
    assert res.exit_code == 0
    assert res.output.count("=== turn ") == len(r.turns())
    assert "=== end" in res.output and f"{r.last_seq:5d}" in res.output


def test_import_referee_stores_all_official_games_and_verify_passes(tmp_path):
    db = tmp_path / "ref.db"
    res = invoke("import-referee", LOG_12, LOG_15, "--db", db)
    assert res.exit_code == 0, res.output
    assert "100 games stored" in res.output
    with open_store(db, readonly=True) as store:
        records = store.games()
        assert len(records) == 100
        meta = json.loads(records[0].meta)
        assert meta["scores"] in ([0, 1], [1, 0]) and "seed" in meta["params"]
    assert invoke("verify", "--db", db).exit_code == 0
    again = invoke("import-referee", LOG_12, "--db", db)
    assert again.exit_code == 2 and "already stored" in again.output
    assert invoke("import-referee", LOG_12, "--db", db, "--skip-existing").exit_code == 0
    gid = records[7].game_id
    shown = invoke("show", "--db", db, gid[:-3], "--json")
    assert shown.exit_code == 0, shown.output


def test_import_referee_is_all_or_none_per_file(tmp_path):
    import gzip

    lines = gzip.decompress(LOG_12.read_bytes()).decode().splitlines()
    broken = lines[3].replace('"PASS', '"PAS', 1) if '"PASS' in lines[3] else lines[3].replace("SUMMON", "SUMON", 1)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines[:3] + [broken] + lines[4:6]) + "\n")
    db = tmp_path / "ref.db"
    res = invoke("import-referee", bad, "--db", db)
    assert res.exit_code == 2 and "game 3" in res.output
    assert not db.exists()


def test_demo_writes_one_games_html_replay_and_says_what_to_try_next(tmp_path):
    db, chart = tmp_path / "demo.db", tmp_path / "demo.png"
    res = invoke("demo", "--db", db, "--games", 2, "--workers", 1, "--chart", chart)
    assert res.exit_code == 0, res.output
    page = tmp_path / "demo-replay.html"
    assert page.exists() and "game-data" in page.read_text(encoding="utf-8")
    line = next(x for x in res.output.splitlines() if x.startswith("replay of game"))
    assert str(page) in line and f"locm replay --db {db}" in line
    line = next(x for x in res.output.splitlines() if x.startswith("store checked: "))
    # four agents (6 pairs x 2 games) in both rulesets, and the look-ahead self-play (1.2: 6 x 2 games, its
    # per-card rows need more, `locm.games.locm.demo.SELFPLAY_12`; constructed: 2)
    assert line.startswith("store checked: quick_check ok; ledger ok (38 games); 4 tournament schedules complete; "
                           "38 of 38 games' chains and ids hold"), line


def test_a_stored_game_opens_by_a_prefix_with_its_record(store_path):
    r = open_game(db=store_path, game_id="constructed-3")
    with open_store(store_path, create=False, readonly=True) as store:
        events, record = store.events("constructed-3-test"), store.game("constructed-3-test")
    assert r.events == events and r.source == f"{store_path} constructed-3-test"
    assert r.meta == {"game_id": "constructed-3-test", "agents": [record.agents[0], record.agents[1]]}


def test_showing_a_stored_game_does_not_import_sqlite_utils(store_path):
    # sqlite-utils alone costs more to import than a whole `locm show`; only `store.db` (locm sql) needs it.
    code = ("import sys; from locm.replay.sources import open_game; "
            f"open_game(db={str(store_path)!r}, game_id='1.2-4'); print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("content", [b"\x00garbage" * 100, b""])
def test_a_bad_store_file_is_one_line_and_exit_2(tmp_path, content):
    db = tmp_path / "bad.db"
    db.write_bytes(content)
    res = invoke("show", "--db", db, "x")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
