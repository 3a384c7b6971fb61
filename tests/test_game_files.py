"""Every reader takes every game's files (issue 33 item 6): `show`, `audit` and `html` of a my-card-game or
Skyport log with a line that does not decode, and a variant file with a value of the wrong type, are one-line
errors; `locm import` stores their `play --log` and `serve --log` files as `play --db` / `serve --db` would."""

from __future__ import annotations

import pytest

from tests.test_bad_input import one_line_error, run_locm

PLAYS = {
    "mcg": ("--ruleset", "standard", "--seed", 7, "--p0", "greedy", "--p1", "random"),
    "skyport": ("--ruleset", "2013", "--seed", 3, "--agents", "hunter,random"),
}
TITLES = {"mcg": "my-card-game", "skyport": "Skyport"}


def _played(tmp_path, game: str, db=None):
    log = tmp_path / f"{game}.jsonl"
    r = run_locm("play", "--game", game, *PLAYS[game], "--log", log, *(("--db", db) if db else ()))
    assert r.returncode == 0, r.stderr
    return log, r.stdout


@pytest.mark.parametrize("game", sorted(PLAYS))
@pytest.mark.parametrize("command", [("show",), ("audit", "--seq", 2), ("html", "-o", "{out}")])
def test_a_log_with_an_undecodable_line_is_one_error(tmp_path, game, command):
    log, _ = _played(tmp_path, game)
    lines = log.read_bytes().splitlines()
    lines[3] = lines[3][:-5]  # the fourth event cut short
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "bad.html"
    err = one_line_error(run_locm(command[0], bad, *(str(a).format(out=out) for a in command[1:])))
    assert err == f"locm: error: {bad}: not a {TITLES[game]} log: line 4: not a {TITLES[game]} event of schema 1: " \
                  "Input data was truncated\n"
    assert not out.exists()


@pytest.mark.parametrize("game, text, field", [
    ("mcg", 'base = "standard"\nname = "v"\n[[cards]]\nid = 1001\nname = "Golem"\ntype = "monster"\ncost = 3\n'
            'rarity = 12.0\npower = 2\ntoughness = 2\nhealth = 3\n'
            'effects = [{ on = "death", do = "damage", to = [], amount = 1 }]\n', "effects[0].to"),
    ("mcg", 'base = "standard"\nname = "v"\n[[cards]]\nid = 1001\nname = "Golem"\ntype = "monster"\ncost = 3\n'
            'rarity = 12.0\npower = 2\ntoughness = 2\nhealth = 3\n'
            'effects = [{ on = "death", do = ["damage"], to = "enemy_player", amount = 1 }]\n', "effects[0].do"),
    ("mcg", 'base = "standard"\nname = "v"\n[[cards]]\nid = 1001\nname = "Bolt"\ntype = "spell"\ncost = 3\n'
            'rarity = 12.0\ntarget = {a = 1}\neffects = [{ do = "damage", to = "target", amount = 1 }]\n', "target"),
    ("skyport", 'base = [1]\nname = "v"\n', "base"),
])
def test_a_variant_with_a_value_of_the_wrong_type_is_one_error(tmp_path, game, text, field):
    path = tmp_path / "v.toml"
    path.write_text(text)
    args = ("--game", game, "--ruleset", path, "--seed", 1) + (
        ("--agents", "hunter,random") if game == "skyport" else ())
    err = one_line_error(run_locm("play", *args))
    assert err.startswith("locm: error: ") and err.count("\n") == 1 and field in err, err


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_import_stores_a_play_log_of_any_game_under_the_id_play_gives_it(tmp_path, game):
    log, _ = _played(tmp_path, game)
    _, played = _played(tmp_path, game, db=tmp_path / "p.db")
    gid = played.split("stored: ")[1].split()[0]
    db = tmp_path / "i.db"
    r = run_locm("import", log, "--db", db)
    assert r.returncode == 0 and r.stdout.strip() == f"imported game {gid} into {db}", r.stderr
    assert "already in the store" in one_line_error(run_locm("import", log, "--db", db))
    assert run_locm("import", log, "--db", db, "--skip-existing").stdout.startswith(f"game {gid} already stored")
    assert run_locm("verify", "--db", db).returncode == 0
    shown = run_locm("show", "--db", db, gid)
    assert shown.returncode == 0 and shown.stdout == run_locm("show", log).stdout.replace(str(log), f"{db} {gid}")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(log.read_text().splitlines()[:-1]) + "\n")  # its end event lost
    err = one_line_error(run_locm("import", cut, "--db", tmp_path / "t.db"))
    assert "does not follow the rules" in err or "not a complete" in err or "ended" in err, err
    assert not (tmp_path / "t.db").exists()


def test_import_stores_a_served_game_under_the_id_serve_gives_it(tmp_path):
    log = tmp_path / "served.jsonl"
    args = ("serve", "--game", "skyport", "--map", "duel-2p", "--seat", "hunter", "--seat", "random", "--port", 0,
            "--turns", 20, "--seed", 5)
    served = run_locm(*args, "--log", log, "--db", tmp_path / "s.db", timeout=120)
    assert served.returncode == 0, served.stderr
    gid = (served.stdout + served.stderr).split("stored: ")[1].split()[0]
    db = tmp_path / "i.db"
    r = run_locm("import", log, "--db", db)
    assert r.returncode == 0 and r.stdout.strip() == f"imported game {gid} into {db}", r.stderr
    assert run_locm("verify", "--db", db).returncode == 0


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_a_stored_game_whose_chain_does_not_hold_is_shown_with_a_warning(tmp_path, game):
    """Every game's stored log is read as LOCM's is: a chain that does not hold is said, and re-decided (it
    was shown as sound, exit 0)."""
    import sqlite3

    db = tmp_path / "g.db"
    _, played = _played(tmp_path, game, db=db)
    gid = played.split("stored: ")[1].split()[0]
    with sqlite3.connect(db) as c:
        c.execute("update games set head_hash = zeroblob(32)")
    r = run_locm("show", "--db", db, gid, "--seq", 5)
    assert r.returncode == 1, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"WARNING: {db} {gid}: its stored hash chain does not hold (") and \
        first.endswith("re-decided from its inputs, it follows the rules"), first


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_audit_json_of_a_forged_log_of_any_game_names_its_departures(tmp_path, game):
    """`locm audit --json` of a log that does not follow the rules: the warning on stderr, the departures in the
    JSON, exit 1, for every game (another game's ended in AttributeError, exit 70)."""
    import json

    log, _ = _played(tmp_path, game)
    lines = log.read_text().splitlines()
    forged = json.loads(lines[-1])
    forged["rule"] = "R-FORGED"  # the end event, as the rules would not write it
    lines[-1] = json.dumps(forged, separators=(",", ":"))
    bad = tmp_path / "forged.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    r = run_locm("audit", bad, "--seq", 1, "--json")
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"WARNING: {bad}: this log does not follow the rules: it departs from them at seq ")
    out = json.loads(r.stdout)
    assert out["warning"] == r.stderr.strip() and out["departures"] and out["result"]["seq"] == 1
