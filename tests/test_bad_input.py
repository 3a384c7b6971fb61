"""Bad input never crashes, hangs or misleads (issue 18): the cases found by hand and by the fuzzers, each
through the command a user runs. The fuzz targets themselves are in tests/test_fuzz.py."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from locm.events.codec import MAX_LINE, to_jsonl
from locm.play import play_one

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def run_locm(*args, input=None, cwd=ROOT, **kw):
    return subprocess.run([sys.executable, "-m", "locm.cli", *map(str, args)], capture_output=True, text=True,
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
    from locm.replay.conformance import MAX_LINE as REFEREE_LINE

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
    from locm.engine.evolve import fold
    from locm.events.catalog import CreatureSummoned
    from locm.events.codec import from_jsonl

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
