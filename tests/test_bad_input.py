"""Bad input never crashes, hangs or misleads (issue 18): the cases found by hand and by the fuzzers, each
through the command a user runs. The fuzz targets themselves are in tests/test_fuzz.py."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from locm.events.locm.codec import MAX_LINE, to_jsonl
from locm.games.locm.play import play_one
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def run_locm(*args, input=None, cwd=ROOT, **kw):
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, input=input, **kw)


def official_lines(name: str = "official-1.2-games-00-49.txt.gz") -> list[str]:
    return gzip.decompress((DATA / name).read_bytes()).decode().splitlines()


def one_line_error(r, code: int = 2) -> str:
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    return r.stderr


# --- the referee-log parser -------------------------------------------------------------------------------------


def test_a_bad_seed_is_one_bad_line_and_the_good_game_is_still_checked(tmp_path):
    good = official_lines()[0]
    bad = good[:good.rindex("}") + 1] + " 0 1 seed=abc"
    path = tmp_path / "mixed.txt"
    path.write_text(bad + "\n" + good + "\n")
    r = run_locm("conformance", path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip() == f"locm: error: {path}:1: parameter seed=abc: expected a 64-bit integer"
    assert "game 01: identical" in r.stdout and r.stdout.strip().endswith("1/2 games identical (1 line not a game log)")


def test_conformance_of_an_event_log_says_what_it_is_in_one_line(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    r = run_locm("conformance", log)
    err = one_line_error(r)
    assert len(err.strip().splitlines()) == 1 and "is an event log (locm play --log)" in err


@pytest.mark.parametrize("what", ["deep", "types", "huge number", "answer not text"])
def test_a_malformed_referee_line_is_named_and_the_rest_checked(tmp_path, what):
    good = official_lines()[0]
    end = good.rindex("}") + 1
    obj = json.loads(good[:end])
    if what == "deep":
        text = '{"errors": ' + "[" * 200_000 + "]" * 200_000 + "}" + good[end:]
    else:
        if what == "types":
            obj["errors"]["0"] = 7
        elif what == "huge number":
            obj["outputs"]["1"][3] = 10**400
        else:
            obj["outputs"]["0"][2] = {"a": 1}
        text = json.dumps(obj) + good[end:]
    path = tmp_path / "bad.txt"
    path.write_text(text + "\n" + good + "\n")
    r = run_locm("conformance", path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"locm: error: {path}:1: not an official game log line") and r.stderr.count("\n") == 1
    assert r.stdout.strip().endswith("1/2 games identical (1 line not a game log)")


def test_show_of_an_official_line_with_a_bad_seed_is_one_error(tmp_path):
    good = official_lines()[0]
    path = tmp_path / "bad.txt"
    path.write_text(good[:good.rindex("}") + 1] + " 0 1 seed=12x\n")
    err = one_line_error(run_locm("show", path, "--game", "0"))
    assert "parameter seed=12x: expected a 64-bit integer" in err and err.count("\n") == 1


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole(tmp_path):
    from locm.replay.locm.conformance import MAX_LINE as REFEREE_LINE

    path = tmp_path / "long.txt"
    good = official_lines()[0]
    with open(path, "w") as f:
        f.write("x" * (REFEREE_LINE + 10) + "\n" + good + "\n")
    r = run_locm("conformance", path)
    assert r.returncode == 1 and f"{path}:1: longer than 16 MiB" in r.stderr
    assert r.stdout.strip().endswith("1/2 games identical (1 line not a game log)")


# --- the event-log reader ------------------------------------------------------------------------------------------


def _log_lines() -> list[bytes]:
    return to_jsonl(play_one("1.2", 7, ("greedy", "random")).log).splitlines()


def test_a_deeply_nested_event_is_one_error(tmp_path):
    lines = _log_lines()
    lines[3] = b'{"type":"action_received","text":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    for command in (["show", path], ["html", path, "-o", tmp_path / "g.html"], ["audit", path, "--seq", "2"]):
        err = one_line_error(run_locm(*command))
        assert "line 4: not an event of schema 2" in err and err.count("\n") == 1
    assert not (tmp_path / "g.html").exists()


def test_a_huge_field_is_refused_quickly(tmp_path):
    lines = _log_lines()
    event = json.loads(lines[3])
    event["text"] = "A" * (100 << 20)
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"\n".join(lines[:3] + [json.dumps(event).encode()] + lines[4:]) + b"\n")
    r = run_locm("html", path, "-o", tmp_path / "g.html", timeout=60)
    err = one_line_error(r)
    assert f"line 4: longer than {MAX_LINE} bytes" in err


def test_an_event_that_does_not_fit_the_game_is_one_error(tmp_path):
    """An Area copy of a creature that is not on the board: evolve looks it up; the fold names the seq."""
    from locm.engine.errors import InvalidLogError
    from locm.engine.locm.folding import fold
    from locm.events.locm.catalog import CreatureSummoned
    from locm.events.locm.codec import from_jsonl

    events = from_jsonl(b"\n".join(_log_lines()))
    k = next(i for i, e in enumerate(events) if type(e) is CreatureSummoned)
    import msgspec

    events[k] = msgspec.structs.replace(events[k], copy_of=999)
    with pytest.raises(InvalidLogError, match=rf"seq {k}: a creature_summoned event that does not fit"):
        fold(events)


def test_a_zip_bomb_is_refused(tmp_path):
    from locm.replay.sources import MAX_FILE

    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb") as f:
        chunk = b"\n" * (1 << 20)
        for _ in range((MAX_FILE >> 20) + 2):
            f.write(chunk)
    err = one_line_error(run_locm("show", path))
    assert "larger than 256 MiB" in err


# --- the export reader ---------------------------------------------------------------------------------------------


def test_an_export_with_a_deep_or_long_line_is_refused_naming_it_and_nothing_is_stored(tmp_path):
    db = tmp_path / "a.db"
    assert run_locm("play", "--seed", 3, "--db", db).returncode == 0
    exported = run_locm("export", "--all", "--db", db, "-o", tmp_path / "x.jsonl")
    assert exported.returncode == 0, exported.stderr
    lines = (tmp_path / "x.jsonl").read_bytes().splitlines()
    for name, bad in (("deep", b'{"game":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
                      ("long", b'{"game":"' + b"x" * (MAX_LINE + 5) + b'"}')):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(b"\n".join([lines[0], bad] + lines[2:]) + b"\n")
        err = one_line_error(run_locm("import", path, "--db", tmp_path / f"{name}.db"))
        assert "line 2" in err and err.count("\n") == 1, err
        if name == "long":
            assert f"the line is longer than {MAX_LINE} bytes" in err


# --- outputs ---------------------------------------------------------------------------------------------------


def _log(tmp_path) -> Path:
    log = tmp_path / "game.jsonl"
    log.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    return log


def test_a_symlink_output_writes_its_target_and_stays_a_link(tmp_path):
    target = tmp_path / "real.html"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.html"
    link.symlink_to(target)
    r = run_locm("html", _log(tmp_path), "-o", link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")
    assert (target.stat().st_mode & 0o777) == 0o640  # the file's permissions are kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl", "link.html", "real.html"]


def test_a_fifo_output_is_written_not_replaced(tmp_path):
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    r = run_locm("play", "--seed", 3, "--log", fifo, timeout=60)
    reader.join(30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got and got[0].startswith(b'{"type":"game_created"')


@pytest.mark.parametrize("device, code", [((1, 3), 0), ((1, 7), 2)], ids=["null", "full"])
def test_a_device_output_is_written_not_replaced(tmp_path, device, code):
    """A copy of /dev/null and of /dev/full (made here, so the real ones are never at risk): written to, and
    still character devices afterwards; a full device is one line."""
    import os
    import stat

    dev = tmp_path / "dev"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(*device))
    except PermissionError:
        pytest.skip("cannot make a device node here")
    for args in (["html", _log(tmp_path), "-o", dev], ["play", "--seed", 4, "--log", dev]):
        r = run_locm(*args)
        assert r.returncode == code, r.stderr
        assert stat.S_ISCHR(dev.lstat().st_mode)
        if code:
            assert "No space left on device" in one_line_error(r, code)


def test_a_broken_pipe_does_not_lose_the_log_file(tmp_path):
    log = tmp_path / "q.jsonl"
    r = subprocess.run(["bash", "-c", f'"{sys.executable}" -m locm.cli.main play --seed 5 --log "{log}" | true; '
                                      'echo "status ${PIPESTATUS[0]}" >&2'], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.stderr.strip() == "status 0", r.stderr
    assert log.read_bytes().startswith(b'{"type":"game_created"')


def test_a_closed_standard_output_is_one_line_and_the_log_is_written(tmp_path):
    log = tmp_path / "q.jsonl"
    r = subprocess.run(["bash", "-c", f'"{sys.executable}" -m locm.cli.main play --seed 5 --log "{log}" >&-'],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stderr == "locm: error: standard output is closed: what it would show was " \
                                             "dropped\n", r.stderr
    assert log.read_bytes().startswith(b'{"type":"game_created"')


def test_a_report_on_a_full_disk_is_absent_not_partial(tmp_path):
    from tests.test_reliability import tmpfs

    db = tmp_path / "t.db"
    assert run_locm("tournament", "--agents", "greedy", "random", "--games", 4, "--db", db).returncode == 0
    whole = tmp_path / "whole"
    assert run_locm("report", "--db", db, "-o", whole).returncode == 0
    size = sum(p.stat().st_size for p in whole.iterdir())
    assert len(list(whole.iterdir())) >= 5
    with tmpfs(tmp_path / "full", f"{size // 1024 // 2}k") as mnt:
        out = mnt / "report"
        err = one_line_error(run_locm("report", "--db", db, "-o", out))
        assert "cannot write the report" in err and "No space left" in err
        assert list(mnt.iterdir()) == []  # nothing: no partial report, no staging directory
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        one_line_error(run_locm("report", "--db", db, "-o", out))
        assert [p.name for p in out.iterdir()] == ["notes.txt"] and len(list(mnt.iterdir())) == 1


# --- what reaches a terminal ------------------------------------------------------------------------------------

RAW = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


def _clean(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text[:300])


def test_bot_stderr_reaches_the_terminal_escaped(tmp_path):
    bot = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'escape_bot.py'}"
    db = tmp_path / "t.db"
    r = run_locm("play", "--seed", 3, "--p0", bot, "--p1", "greedy", "--db", db, "--timeouts", "x10")
    assert r.returncode == 0, r.stderr
    _clean(r.stdout + r.stderr)
    assert "\\u001b]52;c;cm0gLXJmIH4K\\u0007" in r.stdout  # shown, not obeyed
    gid = r.stdout.split("stored: ")[1].split()[0]
    shown = run_locm("games", "--db", db, "--stderr", gid)
    assert shown.returncode == 0 and "\\u001b]0;owned\\u0007" in shown.stdout
    _clean(shown.stdout + shown.stderr)


def test_names_and_texts_from_a_store_or_a_log_reach_the_terminal_escaped(tmp_path):
    from locm.engine.locm.agents import make_agent
    from locm.engine.locm.playing import play as play_game
    from locm.engine.locm.game import Game
    from locm.store.eventstore import open_store

    evil = "\x1b]0;owned\x07greedy\x1b[2J"
    game = Game.new("1.2", 4, agents=(evil, "random"))
    play_game(game, (make_agent("greedy", 4), make_agent("random", 5)))
    db = tmp_path / "evil.db"
    with open_store(db) as store:
        store.append_game(LOCM_GAME, {"game_id": "1.2-4-evil"}, game.log)
    log = tmp_path / "evil.jsonl"
    log.write_bytes(to_jsonl(game.log))
    for args in (["games", "--db", db], ["show", "--db", db, "1.2-4-evil", "--turn", 3],
                 ["show", log, "--turn", 3], ["audit", log, "--seq", 0], ["replay", log, "--all"],
                 ["show", log, "--json"], ["sql", "SELECT json_extract(agents, '$[0]') FROM games", "--db", db]):
        r = run_locm(*args)
        assert r.returncode == 0, (args, r.stderr)
        _clean(r.stdout + r.stderr)
        if "--json" in args:  # JSON stays valid
            json.loads(r.stdout)


def test_an_error_message_quoting_a_file_is_escaped(tmp_path):
    good = official_lines()[0]
    path = tmp_path / "bad.txt"
    path.write_text(good[:good.rindex("}") + 1] + " 0 1 seed=\x1b]0;owned\x07\n")
    r = run_locm("conformance", path)
    assert "seed=\\u001b]0;owned\\u0007: expected a 64-bit integer" in r.stderr
    _clean(r.stdout + r.stderr)


# --- read-only means read-only and works ------------------------------------------------------------------------


@pytest.mark.parametrize("projected", [False, True], ids=["no projection", "projection up to date"])
def test_report_and_cards_stats_work_on_a_read_only_store(tmp_path, projected):
    import hashlib

    from tests.test_reliability import remount_ro, tmpfs

    with tmpfs(tmp_path / "ro", "16m") as mnt:
        db = mnt / "t.db"
        assert run_locm("tournament", "--agents", "greedy", "random", "--games", 4, "--db", db).returncode == 0
        if projected:
            assert run_locm("cards", "rebuild", "--db", db).returncode == 0
        remount_ro(mnt)
        before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in mnt.iterdir()}
        stats = run_locm("cards", "stats", "--db", db, "--min-games", 1)
        assert stats.returncode == 0, stats.stderr
        assert ": 4 games (4 player-games)" in stats.stdout and "corrupt" not in stats.stderr
        report = run_locm("report", "--db", db, "-o", tmp_path / "report")
        assert report.returncode == 0, report.stderr
        assert (tmp_path / "report" / "index.html").exists()
        assert "read-only" in one_line_error(run_locm("cards", "rebuild", "--db", db))
        assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in mnt.iterdir()} == before


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("sql") / "t.db"
    assert run_locm("play", "--seed", 1, "--db", db).returncode == 0
    return db


@pytest.mark.parametrize("query, refused", [
    ("VACUUM INTO '{dir}/copy.db'", "ATTACH (VACUUM INTO too)"),
    ("ATTACH '{dir}/new.db' AS x", "ATTACH (VACUUM INTO too)"),
    ("PRAGMA journal_mode=DELETE", "PRAGMA journal_mode = DELETE"),
    ("PRAGMA user_version = 7", "PRAGMA user_version = 7"),
    ("DELETE FROM games", "DELETE games"),
    ("CREATE TABLE x (a)", "a change of the schema"),
])
def test_sql_refuses_anything_that_writes_anywhere(small_store, tmp_path, query, refused):
    before = small_store.read_bytes()
    err = one_line_error(run_locm("sql", query.format(dir=tmp_path), "--db", small_store))
    assert f"refused: {refused}" in err and "read-only queries" in err
    assert list(tmp_path.iterdir()) == [] and small_store.read_bytes() == before


def test_sql_still_reads_and_takes_reading_pragmas(small_store):
    for query in ("SELECT count(*) FROM events", "PRAGMA table_info(games)", "PRAGMA journal_mode",
                  "SELECT count(*) FROM pragma_table_info('games')"):
        r = run_locm("sql", query, "--db", small_store)
        assert r.returncode == 0 and "row" in r.stderr, (query, r.stderr)


def test_ctrl_c_stops_a_runaway_query(small_store):
    import signal
    import time

    p = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "sql", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                          "SELECT n + 1 FROM r) SELECT count(*) FROM r", "--db", str(small_store)],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("the query went on after Ctrl-C")
    assert p.returncode == 130 and err.strip() == "locm: aborted", err


# --- papercuts ----------------------------------------------------------------------------------------------------


def test_import_stores_an_event_log_under_the_id_play_would_give_it(tmp_path):
    log = tmp_path / "g.jsonl"
    assert run_locm("play", "--seed", 9, "--p1", "random", "--log", log).returncode == 0
    played = run_locm("play", "--seed", 9, "--p1", "random", "--db", tmp_path / "p.db")
    gid = played.stdout.split("stored: ")[1].split()[0]
    db = tmp_path / "i.db"
    r = run_locm("import", log, "--db", db)
    assert r.returncode == 0 and r.stdout.strip() == f"imported game {gid} into {db}", r.stderr
    assert "already in the store" in one_line_error(run_locm("import", log, "--db", db))
    assert run_locm("import", log, "--db", db, "--skip-existing").stdout.startswith(f"game {gid} already stored")
    assert run_locm("verify", "--db", db).returncode == 0
    lines = log.read_text().splitlines()
    tampered = tmp_path / "t.jsonl"
    tampered.write_text("\n".join(lines[:5]) + "\n")  # cut short
    err = one_line_error(run_locm("import", tampered, "--db", tmp_path / "t.db"))
    assert "does not follow the rules: " in err and not (tmp_path / "t.db").exists()


def test_replay_fits_80x24_with_card_names(tmp_path, monkeypatch):
    from locm.replay import open_game
    from locm.replay.locm.terminal import CLEAR, Stepper

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    r = open_game(_log(tmp_path))
    st = Stepper(r)
    longest = max(r.turns(), key=lambda t: t.last_seq - t.first_seq)
    assert longest.last_seq - longest.first_seq > 15  # more events than fit below the board
    st.seq = longest.last_seq - 2
    lines = st.screen().removeprefix(CLEAR).split("\r\n")
    assert len(lines) <= 23 and all(len(x) <= 80 for x in lines), (len(lines), max(map(len, lines)))
    assert lines[0].startswith(f"seq {st.seq}  turn {longest.number}")  # the header stays on the screen
    assert any(x.startswith(" >") for x in lines) and lines[-1].startswith("[full view]")
    assert "later events of this turn)" in "\n".join(lines) or "earlier" in "\n".join(lines)
    names = {u.card.name for u in r.state_at(st.seq).units.values()}
    assert any(name in "\n".join(lines) for name in names if name)
    assert not any(f"b{u.card.base_id} (" in "\n".join(lines) for u in r.state_at(st.seq).units.values())


def test_the_audit_of_an_attack_skipped_for_a_guard_names_the_guard():
    log = DATA / "official-1.2-games-00-49.txt.gz"
    r = run_locm("audit", log, "--game", 0, "--seq", 212)
    assert r.returncode == 0, r.stderr
    assert "creature 10 must attack a Guard in lane 0 first: 5" in r.stdout
    assert "  blocked by: #5 Spinekid (1) 2/1 ---G-- (Guard, lane 0)" in r.stdout.splitlines()
    listed = run_locm("audit", log, "--game", 0, "--rejected", "--json")
    blocked = [x for x in json.loads(listed.stdout) if x["blocking"]]
    assert blocked and blocked[0]["blocking"][0]["name"] == "Spinekid"


@pytest.mark.parametrize("field, value", [("keywords", 10**100), ("lane", 5), ("winner", 7)])
def test_a_value_outside_its_fields_range_is_one_error(tmp_path, field, value):
    """A keyword mask of 10**100 once broke `locm html` (an internal error); a lane of 5 broke `locm show`:
    seats, lanes, keyword masks, card types and areas are bounded by the events' types."""
    lines = _log_lines()
    kind = {"keywords": "creature_modified", "lane": "creature_summoned", "winner": "game_ended"}[field]
    k = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == kind)
    event = json.loads(lines[k])
    event[field] = value
    lines[k] = json.dumps(event).encode()
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    for command in (["html", path, "-o", tmp_path / "g.html"], ["show", path]):
        err = one_line_error(run_locm(*command))
        assert f"line {k + 1}: not an event of schema 2" in err and f"$.{field}" in err, err
