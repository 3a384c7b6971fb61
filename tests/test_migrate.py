"""Store schemas 1 and 2 -> 3: an older file is refused with one line naming `locm migrate`, and `locm migrate`
converts it with every game intact, `locm verify` passing and the same export bytes as before (from schema 2,
the whole file; from schema 1, every game line).

The fixture ``tests/data/store-v1.db.gz`` was written by locm at commit 3e01f60 (the last with store schema 1),
through `locm.store.eventstore.open_store(...).append_game`: a 1.2 game (greedy vs pass, seed 1, 279 events) and a
constructed game (pass vs greedy, seed 2, 113 events), with bot extras (think time, stderr, meta), then
VACUUMed; ``store-v1-export.jsonl.gz`` is `locm export --all` of it by the same commit. Its games were stored
under made-up ids (``1.2-1-fixture``); since ids name their content (`locm.engine.locm.gameid`) both files carry the ids
that locm gives those games (the ``game_id`` values replaced, nothing else: the events and their hashes are
as written).

``tests/data/store-v2.db.gz`` was written by locm at commit 116eb10 (main before the game seam, store schema 2):
the schema-1 fixture migrated by `locm migrate`, then ``locm play --ruleset constructed --seed 5 --p0 lookahead
--p1 random --db`` (a third game, 139 events, with its think times), then VACUUMed; ``store-v2-export.jsonl.gz``
is ``locm export --all`` of it by the same commit.

``tests/data/store-v2-schedule.db.gz`` was written by locm at commit f4c2683 (schema 2, with tournament
schedules and the ledger): ``locm tournament --agents greedy random --games 4 --workers 1 --db``, then VACUUMed.
"""

from __future__ import annotations

import gzip
import io
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest

from locm.errors import MigrateError, OldStoreError
from locm.games.registry import checker
from locm.store.migrate import migrate as migrate_store
from locm.store.eventstore import open_store
from tests.test_reliability import one_line_error, run_locm



def migrate(path, *args):
    """`locm migrate`'s library call, with the checker the command line hands it."""
    return migrate_store(path, *args, checker=checker())


DATA = Path(__file__).resolve().parent / "data"
IDS = ["1.2-1-edc1743bb9a2", "constructed-2-cc900b65d2ce"]
V2_IDS = [*IDS, "constructed-5-01485cc25761"]


@pytest.fixture
def v1(tmp_path) -> Path:
    db = tmp_path / "old.db"
    db.write_bytes(gzip.decompress((DATA / "store-v1.db.gz").read_bytes()))
    return db


@pytest.fixture
def v2(tmp_path) -> Path:
    db = tmp_path / "old.db"
    db.write_bytes(gzip.decompress((DATA / "store-v2.db.gz").read_bytes()))
    return db


def old_export() -> bytes:
    return gzip.decompress((DATA / "store-v1-export.jsonl.gz").read_bytes())


def test_a_schema_1_store_is_refused_in_one_line_naming_migrate(v1):
    before = v1.read_bytes()
    with pytest.raises(OldStoreError) as info:
        open_store(v1, readonly=True)
    assert str(info.value) == (f"{v1}: an event store of schema 1; this locm reads schema 3: run `locm migrate "
                               f"{v1}` to convert it (the original is kept as {v1}.v1)")
    for args in (["games", "--db", v1], ["show", "--db", v1, IDS[0]], ["verify", "--db", v1]):
        line = one_line_error(run_locm(*args))
        assert f"run `locm migrate {v1}`" in line
    assert v1.read_bytes() == before


def test_migrate_keeps_every_game_and_the_export_bytes(v1, tmp_path):
    r = run_locm("migrate", v1)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (f"migrated 2 games (392 events) to store schema 3 in {v1}; the schema-1 file is kept as "
                        f"{v1}.v1\n")
    with open_store(v1, readonly=True) as store:
        assert [g.game_id for g in store.games()] == IDS
        assert store.count_events() == 392
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    header, _, games = buf.getvalue().partition(b"\n")
    old_header, _, old_games = old_export().partition(b"\n")
    assert games == old_games  # every game line byte for byte what schema 1 exported
    assert (old_header, header) == (b'{"locm_export":1,"store_schema":1,"event_schema":2}',
                                    b'{"locm_export":1,"store_schema":2,"event_schema":2}')  # the lines' schema
    r = run_locm("verify", "--db", v1)
    assert r.returncode == 0 and r.stdout.endswith("2 games checked: 2 good, 0 bad\n"), r.stdout + r.stderr
    # the old file is kept whole (no -wal beside it) and still holds every event
    backup = Path(f"{v1}.v1")
    assert not Path(f"{backup}-wal").exists() and not Path(f"{v1}.migrating").exists()
    conn = sqlite3.connect(backup)
    assert conn.execute("SELECT count(*) FROM events").fetchone() == (392,)
    conn.close()
    # export -> import -> export into a fresh schema-3 store gives the same bytes again
    exported = tmp_path / "e.jsonl"
    exported.write_bytes(old_export())
    assert run_locm("import", exported, "--db", tmp_path / "new.db").returncode == 0
    again = run_locm("export", "--all", "--db", tmp_path / "new.db").stdout.encode()
    assert again == buf.getvalue() and again.partition(b"\n")[2] == old_games
    assert "already an event store of schema 3" in one_line_error(run_locm("migrate", v1))


def test_migrate_refuses_a_tampered_game_and_leaves_the_old_store_as_it_was(v1):
    conn = sqlite3.connect(v1)
    conn.execute("UPDATE events SET payload = replace(payload, '\"rule\":\"', '\"rule\":\"X') "
                 "WHERE game_id = ? AND seq = 7", (IDS[1],))
    conn.commit()
    conn.close()
    before = v1.read_bytes()
    with pytest.raises(MigrateError) as info:
        migrate(v1)
    assert str(info.value).startswith(f"{v1}: game {IDS[1]!r} event 7: its hash chain does not verify")
    assert v1.read_bytes() == before
    assert sorted(p.name for p in v1.parent.iterdir()) == ["old.db"]


def test_migrate_refuses_when_the_backup_name_is_taken(v1):
    Path(f"{v1}.v1").write_text("mine")
    line = one_line_error(run_locm("migrate", v1))
    assert line == f"locm: error: {v1}: {v1}.v1 is in the way (a migration keeps the old store there): move it first"
    assert Path(f"{v1}.v1").read_text() == "mine"


def test_migrate_reads_games_still_in_the_wal(v1, tmp_path):
    """A schema-1 store whose last commit is only in its -wal (its writer was killed): migrated whole. The
    second game is taken out and written again with checkpoints off, so that it is in the -wal alone."""
    conn = sqlite3.connect(v1)
    game = conn.execute("SELECT * FROM games WHERE game_id = ?", (IDS[1],)).fetchone()
    events = conn.execute("SELECT * FROM events WHERE game_id = ? ORDER BY seq", (IDS[1],)).fetchall()
    with conn:
        conn.execute("DELETE FROM events WHERE game_id = ?", (IDS[1],))
        conn.execute("DELETE FROM games WHERE game_id = ?", (IDS[1],))
    conn.execute("PRAGMA journal_mode=wal")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the deletion in the main file
    conn.execute("PRAGMA wal_autocheckpoint=0")
    with conn:
        conn.execute(f"INSERT INTO games VALUES ({', '.join('?' * len(game))})", game)
        conn.executemany(f"INSERT INTO events VALUES ({', '.join('?' * len(events[0]))})", events)
    shutil.copy(v1, tmp_path / "main-only.db")
    wal = Path(f"{v1}-wal").read_bytes()
    conn.close()  # (closing checkpoints: put the -wal back as a killed writer leaves it)
    shutil.copy(tmp_path / "main-only.db", v1)
    Path(f"{v1}-wal").write_bytes(wal)
    with sqlite3.connect(tmp_path / "main-only.db") as main_only:
        assert main_only.execute("SELECT count(*) FROM games").fetchone() == (1,)  # the game is in the -wal only
    games, events_n, _ = migrate(v1)
    assert (games, events_n) == (2, 392)
    with open_store(v1, readonly=True) as store:
        assert [g.game_id for g in store.games()] == [IDS[0], IDS[1]]
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    assert buf.getvalue().partition(b"\n")[2] == old_export().partition(b"\n")[2]  # the game lines


def test_migrate_of_a_damaged_schema_1_store_is_one_line_and_keeps_it(v1):
    data = bytearray(v1.read_bytes())
    data[len(data) // 2: len(data) // 2 + 4096] = bytes(range(256)) * 16  # a page of events overwritten
    v1.write_bytes(bytes(data))
    line = one_line_error(run_locm("migrate", v1))
    assert line.startswith(f"locm: error: {v1}: "), line
    assert v1.read_bytes() == bytes(data)
    assert sorted(p.name for p in v1.parent.iterdir()) == ["old.db"]


def test_a_schema_2_store_is_refused_in_one_line_naming_migrate(v2):
    before = v2.read_bytes()
    with pytest.raises(OldStoreError) as info:
        open_store(v2, readonly=True)
    assert str(info.value) == (f"{v2}: an event store of schema 2; this locm reads schema 3: run `locm migrate "
                               f"{v2}` to convert it (the original is kept as {v2}.v2)")
    assert f"run `locm migrate {v2}`" in one_line_error(run_locm("games", "--db", v2))
    assert v2.read_bytes() == before


def test_migrate_from_schema_2_keeps_every_game_and_exports_the_same_file(v2, tmp_path):
    r = run_locm("migrate", v2)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (f"migrated 3 games (531 events) to store schema 3 in {v2}; the schema-2 file is kept as "
                        f"{v2}.v2\n")
    old = gzip.decompress((DATA / "store-v2-export.jsonl.gz").read_bytes())
    with open_store(v2, readonly=True) as store:
        assert [g.game_id for g in store.games()] == V2_IDS
        assert [m.game for m in store.games()] == ["locm"] * 3
        assert store.games()[2].seats[0].think_ms is not None and store.ledger_problem() is None
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    assert buf.getvalue() == old  # the whole file, header included, byte for byte
    r = run_locm("verify", "--db", v2)
    assert r.returncode == 0 and r.stdout.endswith("3 games checked: 3 good, 0 bad\n"), r.stdout + r.stderr
    conn = sqlite3.connect(f"{v2}.v2")  # the old file kept whole
    assert conn.execute("SELECT count(*) FROM games").fetchone() == (3,)
    conn.close()


def test_migrate_from_schema_2_refuses_an_altered_log(v2):
    conn = sqlite3.connect(v2)
    data = zlib.decompress(conn.execute("SELECT data FROM logs WHERE game = 2").fetchone()[0])
    conn.execute("UPDATE logs SET data = ? WHERE game = 2",
                 (zlib.compress(data.replace(b'"rule":"', b'"rule":"X', 1)),))
    conn.commit()
    conn.close()
    before = v2.read_bytes()
    with pytest.raises(MigrateError) as info:
        migrate(v2)
    assert str(info.value).startswith(f"{v2}: game {IDS[1]!r}: the chain ends at"), str(info.value)
    assert v2.read_bytes() == before and sorted(p.name for p in v2.parent.iterdir()) == ["old.db"]


@pytest.fixture
def v2_tournament(tmp_path) -> Path:
    db = tmp_path / "tour.db"
    db.write_bytes(gzip.decompress((DATA / "store-v2-schedule.db.gz").read_bytes()))
    return db


def test_migrate_keeps_a_tournaments_schedule_so_verify_still_checks_it(v2_tournament):
    r = run_locm("migrate", v2_tournament)
    assert r.returncode == 0, r.stderr
    assert f"{v2_tournament}: 1 tournament schedule kept" in r.stderr
    assert "ledger" not in r.stderr  # an intact store's ledger comes out the same: nothing to say
    with open_store(v2_tournament, readonly=True) as store:
        assert [k for k, _ in store.schedules()] == ["dc25bb8737075722"]
        assert store.ledger_problem() is None and store.ledger()[0] == 4
    r = run_locm("verify", "--db", v2_tournament, "--no-redecide")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 tournament schedule complete" in r.stdout


def test_migrate_does_not_hide_a_game_deleted_before_it(v2_tournament):
    """A game deleted from the old file behind the store's back (a bot that deletes its losses): the new
    file's ledger is the old one, not one recomputed over what is left, so verify still names the deletion
    and the schedule's missing place."""
    conn = sqlite3.connect(v2_tournament)
    gid = conn.execute("SELECT game_id FROM games WHERE id = 3").fetchone()[0]
    conn.execute("DELETE FROM logs WHERE game = 3")
    conn.execute("DELETE FROM games WHERE id = 3")
    conn.commit()
    conn.close()
    r = run_locm("migrate", v2_tournament)
    assert r.returncode == 0, r.stderr
    assert "the old store's ledger (4 games recorded) does not match the games it holds" in r.stderr
    r = run_locm("verify", "--db", v2_tournament, "--no-redecide")
    assert r.returncode == 1
    assert "the ledger records 4 games stored, the store holds 3: 1 deleted" in r.stdout
    assert "1 of its 4 games missing" in r.stdout and gid in r.stdout


def test_migrate_refuses_an_altered_schedule(v2_tournament):
    conn = sqlite3.connect(v2_tournament)
    conn.execute("UPDATE schedules SET manifest = replace(manifest, 'greedy', 'random')")
    conn.commit()
    conn.close()
    before = v2_tournament.read_bytes()
    with pytest.raises(MigrateError) as info:
        migrate(v2_tournament)
    assert str(info.value) == (f"{v2_tournament}: schedule dc25bb8737075722: its manifest gives the key "
                               f"20ad2c39c2b639fb (altered)")
    assert v2_tournament.read_bytes() == before
    assert sorted(p.name for p in v2_tournament.parent.iterdir()) == ["tour.db"]
