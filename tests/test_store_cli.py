"""The store's commands: `locm play --db`, `games`, `verify`, `export`, `import`. Round trips byte for byte,
tampered and foreign files refused with one line and left untouched."""

from __future__ import annotations

import os
import shlex
import sqlite3
import zlib
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from locm.events.locm.codec import to_jsonl
from locm.cli.main import cli
from locm.store.eventstore import GameExtras, SeatExtras, open_store
from locm.games.locm.play import play_one
from locm.games.locm.tournament import game_id
from locm.tournament.schedule import bot_fingerprint
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
GOOD_BOT = shlex.join([sys.executable, str(ROOT / "tests" / "bots" / "good_bot.py")])


def locm(*args, input=None):
    """`locm ...` through click's runner (fast); returns (exit code, stdout bytes, stderr text)."""
    r = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    return r.exit_code, r.stdout_bytes, r.stderr


def run_locm(*args):
    """The real entry point in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


def assert_one_line_error(code, stderr, start):
    assert code == 2, stderr
    assert stderr.startswith(start), stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr


def dir_state(path: Path) -> dict[str, bytes]:
    """Every file of a directory with its bytes: proof that a refused command changed nothing."""
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@pytest.fixture
def db(tmp_path) -> Path:
    """A store with five games: both rulesets, a forfeit by a bot, a constructed game won by seat 1."""
    path = tmp_path / "games.db"
    with open_store(path) as store:
        for ruleset, seed, agents in [("1.2", 1, ("greedy", "random")), ("1.2", 2, ("random", "greedy")),
                                      ("constructed", 3, ("greedy", "pass")), ("constructed", 4, ("pass", "greedy")),
                                      ("1.2", 5, ("random", "pass"))]:
            game = play_one(ruleset, seed, agents)
            store.append_game(LOCM_GAME, GameExtras(game_id=game_id(ruleset, seed, agents), seats=(SeatExtras(think_ms=0.5), SeatExtras(stderr="ü\n"))),
                              game.log)
    return path


# --- play --db --------------------------------------------------------------------------------------------


def test_play_stores_the_game_under_its_deterministic_id(tmp_path):
    logs = []
    for name in ("a", "b"):
        code, out, err = locm("play", "-r", "constructed", "--seed", 11, "--db", tmp_path / f"{name}.db",
                              "--log", tmp_path / f"{name}.jsonl")
        assert code == 0, err
        gid = game_id("constructed", 11, ("greedy", "random"))
        assert gid.startswith("constructed-11-") and f"stored: {gid} in ".encode() in out
        with open_store(tmp_path / f"{name}.db", readonly=True) as store:
            logs.append(to_jsonl(store.events(gid)))
        assert logs[-1] == (tmp_path / f"{name}.jsonl").read_bytes()
    assert logs[0] == logs[1]  # same seed, same built-in agents: byte-identical event logs


def test_play_of_a_stored_game_shows_it_writes_its_log_and_stores_nothing_new(tmp_path):
    path = tmp_path / "a.db"
    assert locm("play", "--seed", 3, "--db", path)[0] == 0
    with open_store(path, readonly=True) as store:
        before = [(r.game_id, r.head_hash, r.created) for r in store.games()]
    code, out, err = locm("play", "--seed", 3, "--db", path, "--log", tmp_path / "again.jsonl")
    assert code == 0, err
    gid = game_id("1.2", 3, ("greedy", "random"))
    lines = out.decode().splitlines()
    assert lines[0].startswith("winner: player ") and "events: " in out.decode()  # the result, as always
    assert f"already stored: {gid} in {path}: stored nothing new" in lines
    with open_store(path, readonly=True) as store:
        assert [(r.game_id, r.head_hash, r.created) for r in store.games()] == before
        assert to_jsonl(store.events(gid)) == (tmp_path / "again.jsonl").read_bytes()
    assert locm("play", "--seed", 3, "--p1", "pass", "--db", path)[0] == 0  # other agents: another game


def test_play_with_an_external_bot_stores_its_stderr(tmp_path):
    r = run_locm("play", "--seed", 4, "--p0", GOOD_BOT, "--p1", "greedy", "--db", tmp_path / "a.db",
                 "--timeouts", "x5")
    assert r.returncode == 0, r.stderr
    with open_store(tmp_path / "a.db", readonly=True) as store:
        (record,) = store.games()
    assert record.game_id == game_id("1.2", 4, (GOOD_BOT, "greedy"), bots=(bot_fingerprint(GOOD_BOT), ""))
    seat = record.seats[0]
    assert record.agents[0] == GOOD_BOT
    assert seat.stderr.startswith("botlib: pid ") and seat.think_ms > 0 and not seat.error


@pytest.mark.parametrize("args, message", [
    (["play", "--seed", 1, "--p0", "/no/such/bot.py"], "locm: error: unknown agent '/no/such/bot.py'"),
    (["play", "--seed", 1, "--timeouts", "slow"], "locm: error: --timeouts 'slow': expected a positive number"),
    (["play", "--seed", 1, "--p0", "python3 'oops"], "locm: error: unknown agent \"python3 'oops\""),
])
def test_play_refuses_bad_agents_and_limits_in_one_line(tmp_path, args, message):
    r = run_locm(*args, "--db", tmp_path / "x.db")
    assert_one_line_error(r.returncode, r.stderr, message)
    assert not (tmp_path / "x.db").exists()


# --- games --------------------------------------------------------------------------------------------------


def test_games_lists_and_filters(db):
    code, out, _ = locm("games", "--db", db)
    lines = out.decode().splitlines()
    assert code == 0 and lines[0].split()[:4] == ["game", "id", "ruleset", "seed"]
    assert len(lines) == 2 + 5 + 1 and lines[-1] == "5 Legends of Code and Magic games"
    assert lines[2].startswith(game_id("1.2", 1, ("greedy", "random")))

    def ids(*args):
        return [line.split()[0] for line in locm("games", "--db", db, *args)[1].decode().splitlines()[2:-1]]

    assert ids("--ruleset", "1.5") == ids("--ruleset", "constructed") == [
        game_id("constructed", 3, ("greedy", "pass")), game_id("constructed", 4, ("pass", "greedy"))]
    assert len(ids("--agent", "pass")) == 3 and ids("--agent", "nobody") == []
    assert ids("--ruleset", "constructed", "--winner", "1") == [game_id("constructed", 4, ("pass", "greedy"))]
    assert len(ids("--limit", "2")) == 2
    # LOCM's games are listed as every game's: its index fields filter them too
    assert ids("--field", "shuffle_player0_seed=-1") == [] and ids("--field", "id_scheme=1.2") == ids("--ruleset", "1.2") != []
    r = run_locm("games", "--db", db, "--field", "map=x")
    assert r.returncode == 2 and "Legends of Code and Magic's stored games have the index fields" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--winner", "2"], "locm games: error: --winner 2: Legends of Code and Magic has 2 seats: expected a seat 0..1"),
    (["--limit", "-1"], "locm games: error: Invalid value for '--limit'"),
    (["--ruleset", "2.0"], "locm: error: unknown ruleset '2.0'"),
])
def test_games_refuses_bad_filters(db, args, message):
    r = run_locm("games", "--db", db, *args)
    assert_one_line_error(r.returncode, r.stderr, message)


# --- verify -------------------------------------------------------------------------------------------------


def test_verify_passes_a_sound_store(db):
    r = run_locm("verify", "--db", db)
    assert r.returncode == 0
    assert r.stdout == "store: quick_check ok; ledger ok (5 games)\n5 games checked: 5 good, 0 bad\n"


def test_verify_reports_each_bad_game_and_exits_1(db):
    with open_store(db) as store:
        first, second, third = [r.game_id for r in store.games(limit=3)]
        log = store.events(third)
        # a forged result with an intact chain: the winner flipped in a copy of a real log
        forged = log[:-1] + [msgspec.structs.replace(log[-1], winner=1 - log[-1].winner)]
        store.append_game(LOCM_GAME, GameExtras(game_id="forged"), forged)
        # a log that does not fold: one card draw left out, the seqs renumbered, the chain rebuilt
        draws = [(i, e.player) for i, e in enumerate(log) if type(e).__name__ == "CardDrawn"]
        drop = next(i for i, p in draws[10:] if any(j > i and q == p for j, q in draws))
        store.append_game(LOCM_GAME, GameExtras(game_id="gapped"),
                          [msgspec.structs.replace(e, seq=i) for i, e in enumerate(log[:drop] + log[drop + 1:])])
    conn = sqlite3.connect(db)

    def edit_log(game_id, edit):
        key = "(SELECT id FROM games WHERE game_id = ?)"
        (data,) = conn.execute(f"SELECT data FROM logs WHERE game = {key}", (game_id,)).fetchone()
        lines = zlib.decompress(data).split(b"\n")
        conn.execute(f"UPDATE logs SET data = ? WHERE game = {key}", (edit(lines), game_id))

    with conn:  # edited behind the store's back: the hash chain breaks
        edit_log(first, lambda lines: zlib.compress(b"\n".join(
            line.replace(b'"rule":"', b'"rule":"X') if i == 5 else line for i, line in enumerate(lines))))
        edit_log(second, lambda lines: zlib.compress(b"\n".join(lines[:-1])))
        edit_log(third, lambda lines: b"not zlib" + zlib.compress(b"\n".join(lines)))
    conn.close()
    r = run_locm("verify", "--db", db)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[-1] == "7 games checked: 2 good, 5 bad"
    bad = dict(line.split(": ", 1) for line in lines[:-1] if not line.startswith("store: "))
    assert set(bad) == {first, second, third, "forged", "gapped"}
    assert bad[first].startswith("head of chain: expected hash ")  # the id once, at the start of the line
    assert bad[second].startswith("head of chain: expected event count ")
    assert bad[third].startswith("head of chain: expected log a readable log, got game ")
    assert bad["forged"].startswith(f"re-decided from its inputs, seq {len(log) - 1}: the event differs from what "
                                    "the rules give; the log has {\"type\":\"game_ended\"")
    assert bad["gapped"].startswith(f"re-decided from its inputs, seq {drop}: the event differs ")
    r = run_locm("verify", "--db", db, "--no-redecide")  # the fold alone still sees both
    bad = dict(line.split(": ", 1) for line in r.stdout.splitlines()[:-1] if not line.startswith("store: "))
    assert bad["forged"].startswith("won on health, but the loser (player ")
    assert bad["gapped"].startswith("the events do not fold: InvalidLogError: seq ")


def test_verify_redecides_and_catches_a_rechained_log_that_breaks_a_rule(db, tmp_path):
    """A creature's attack damage edited and the chain rebuilt by the store itself, under the game's own id
    (in another store): the chain, the fold, the winner and the id are all sound, only re-deciding the recorded
    inputs shows the rule that was broken."""
    with open_store(db) as store:
        record = store.games(limit=1)[0]
        log = store.events(record.game_id)
    k = next(i for i, e in enumerate(log) if type(e).__name__ == "CreatureDamaged")
    cheat = log[:k] + [msgspec.structs.replace(log[k], amount=log[k].amount + 1)] + log[k + 1:]
    other = tmp_path / "cheat.db"
    with open_store(other) as store:
        store.append_game(LOCM_GAME, GameExtras(game_id=record.game_id), cheat)
    r = run_locm("verify", "--db", other, "--no-redecide")
    assert r.returncode == 0, r.stdout  # chain, fold and id alone do not see it
    r = run_locm("verify", "--db", other)
    assert r.returncode == 1
    line = next(x for x in r.stdout.splitlines() if x.startswith(f"{record.game_id}: "))
    assert line.startswith(f"{record.game_id}: re-decided from its inputs, seq {k}: the event differs from what "
                           "the rules give; the log has {\"type\":\"creature_damaged\""), line
    assert f'"amount":{log[k].amount + 1}' in line and f'"amount":{log[k].amount},' in line
    assert r.stdout.splitlines()[-1].endswith("1 bad")


# --- export and import --------------------------------------------------------------------------------------


def test_export_import_export_is_byte_exact(db, tmp_path):
    code, first, _ = locm("export", "--all", "--db", db)
    assert code == 0 and first.count(b"\n") > 5
    (tmp_path / "games.jsonl").write_bytes(first)
    code, out, err = locm("import", tmp_path / "games.jsonl", "--db", tmp_path / "copy.db")
    assert code == 0, err
    assert out.decode().startswith("imported 5 games (") and str(tmp_path / "copy.db") in out.decode()
    assert locm("export", "--all", "--db", tmp_path / "copy.db")[1] == first
    assert run_locm("verify", "--db", tmp_path / "copy.db").returncode == 0
    # one game, to a file, then through standard input
    gid = game_id("constructed", 3, ("greedy", "pass"))
    assert locm("export", gid, "--db", db, "-o", tmp_path / "one.jsonl")[0] == 0
    one = (tmp_path / "one.jsonl").read_bytes()
    assert one.endswith(b'{"end":{"games":1,"events":' + str(one.count(b"\n") - 3).encode() + b"}}\n")
    code, out, err = locm("import", "-", "--db", tmp_path / "third.db", input=one)
    assert code == 0, err
    assert locm("export", gid, "--db", tmp_path / "third.db")[1] == one
    # importing again: refused, or skipped on request
    code, _, err = locm("import", tmp_path / "one.jsonl", "--db", tmp_path / "third.db")
    assert_one_line_error(code, err, f"locm: error: {tmp_path / 'one.jsonl'}: line 2: game '{gid}' is already in")
    code, out, _ = locm("import", tmp_path / "one.jsonl", "--db", tmp_path / "third.db", "--skip-existing")
    assert code == 0 and out.decode().strip().endswith("1 already stored, skipped")


def test_a_tampered_or_truncated_export_is_refused_with_its_line(db, tmp_path):
    lines = locm("export", "--all", "--db", db)[1].splitlines(keepends=True)
    target = next(i for i, line in enumerate(lines) if b'"type":"creature_summoned"' in line)
    tampered = lines.copy()
    tampered[target] = tampered[target].replace(b'"lane":0', b'"lane":1').replace(b'"lane":1,', b'"lane":0,', 0)
    if tampered[target] == lines[target]:
        tampered[target] = tampered[target].replace(b'"lane":1', b'"lane":0')
    assert tampered[target] != lines[target]
    cases = {"tampered.jsonl": (b"".join(tampered), target + 1),
             "truncated.jsonl": (b"".join(lines[:-7]), len(lines) - 6),
             "garbage.jsonl": (b"".join(lines[:3]) + b"\xff not json\n" + b"".join(lines[4:]), 4)}
    for name, (data, line) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        r = run_locm("import", path, "--db", tmp_path / "new.db")
        assert_one_line_error(r.returncode, r.stderr, f"locm: error: {path}: line {line}: ")
        assert not (tmp_path / "new.db").exists(), "a refused import leaves no store behind"
    # into an existing store: refused the same way, and nothing of the file is written
    with open_store(tmp_path / "existing.db") as store:
        store.append_game(LOCM_GAME, GameExtras(game_id="x"), play_one("1.2", 9, ("pass", "pass")).log)
    before = locm("export", "--all", "--db", tmp_path / "existing.db")[1]
    r = run_locm("import", tmp_path / "truncated.jsonl", "--db", tmp_path / "existing.db")
    assert r.returncode == 2
    assert locm("export", "--all", "--db", tmp_path / "existing.db")[1] == before


def test_export_needs_ids_or_all_and_known_ids(db, tmp_path):
    for args, message in [([], "locm export: error: give GAME_ID arguments or --all"),
                          (["--all", "x"], "locm export: error: give GAME_ID arguments or --all"),
                          (["nope"], "locm: error: no game 'nope' in the store")]:
        r = run_locm("export", *args, "--db", db, "-o", tmp_path / "out.jsonl")
        assert_one_line_error(r.returncode, r.stderr, message)
        assert not (tmp_path / "out.jsonl").exists()


# --- foreign, damaged and missing files -----------------------------------------------------------------------


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.execute("INSERT INTO people VALUES ('ada')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["foreign", "random"])
def test_foreign_and_random_files_are_refused_untouched(tmp_path, kind):
    work = tmp_path / "dir"
    work.mkdir()
    path = work / "file.db"
    if kind == "foreign":
        _foreign_sqlite(path)
        message = f"locm: error: {path}: not a locm event store: expected a locm_meta table, found tables people"
    else:
        path.write_bytes(os.urandom(5000))
        message = f"locm: error: {path}: corrupt event store: not an SQLite database"
    export = tmp_path / "one.jsonl"
    export.write_bytes(b"")  # content does not matter: the store is refused first
    before = dir_state(work)
    for args in (["games", "--db", path], ["verify", "--db", path], ["export", "--all", "--db", path],
                 ["import", export, "--db", path], ["play", "--seed", 1, "--db", path],
                 ["tournament", "--agents", "greedy", "pass", "--games", 2, "--db", path]):
        r = run_locm(*args)
        assert_one_line_error(r.returncode, r.stderr, message)
        assert dir_state(work) == before, args


def test_a_missing_store_is_not_created_by_readers(tmp_path):
    path = tmp_path / "missing.db"
    for command in ("games", "verify"):
        code, _, err = locm(command, "--db", path)
        assert_one_line_error(code, err, f"locm: error: {path}: no event store here")
    code, _, err = locm("export", "--all", "--db", path)
    assert_one_line_error(code, err, f"locm: error: {path}: no event store here")
    assert list(tmp_path.iterdir()) == []


# --- sql ----------------------------------------------------------------------------------------------------


def test_sql_queries_the_events_view_and_prints_a_table(db):
    with open_store(db, readonly=True) as store:
        expected = {}
        for gid, event in store.iter_events():
            tag = type(event).__struct_config__.tag
            expected[tag] = expected.get(tag, 0) + 1
        first = store.games(limit=1)[0].game_id
        damage = [e.amount for e in store.events(first) if type(e).__name__ == "PlayerDamaged"]
    code, out, err = locm("sql", "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC, type",
                          "--db", db)
    assert code == 0, err
    lines = out.decode().splitlines()
    assert lines[0].split() == ["type", "n"] and set(lines[1]) == {"-", " "}
    got = {line.split()[0]: int(line.split()[1]) for line in lines[2:]}
    assert got == expected and "rows" in err
    code, out, err = locm("sql", f"SELECT json_extract(payload, '$.amount') AS amount FROM events "
                                 f"WHERE game_id = '{first}' AND type = 'player_damaged' ORDER BY seq", "--db", db,
                          "--json")
    assert code == 0, err
    assert [msgspec.json.decode(line)["amount"] for line in out.splitlines()] == damage


def test_sql_is_read_only_and_a_bad_query_is_one_line(db):
    before = db.read_bytes()
    for query, start in (("SELEC 1", "locm: error: "), ("DELETE FROM games", "locm: error: ")):
        code, out, err = locm("sql", query, "--db", db)
        assert_one_line_error(code, err, start)
        assert f"{db}: SQL: " in err
    assert db.read_bytes() == before
    with open_store(db, readonly=True) as store:
        assert store.count() == 5
