"""The store's writer of batches (`EventStore.append_games`, what tournaments call): each table's rows of a
batch in one statement with the games' keys given, and the WAL checkpointed by a thread of its own while the
writer goes on. What it writes must be what one game at a time writes, a batch is stored whole or not at all,
and the store it leaves is an ordinary one."""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import msgspec
import pytest

from locm.engine.locm.gameid import game_id
from locm.errors import DuplicateGameError
from locm.games.locm.play import play_one
from locm.store.eventstore import GameExtras, open_store
from locm.store.records import prepare_game
from locm.engine.locm.definition import GAME as LOCM_GAME

TABLES = ("games", "logs", "game_facts", "locm_meta")


def prepared(seeds) -> list:
    out = []
    for seed in seeds:
        agents = ("greedy", "random")
        p = prepare_game(LOCM_GAME, GameExtras(game_id=game_id("1.2", seed, agents)), play_one("1.2", seed, agents).log)
        out.append(p)
    return out


def rows(path) -> dict[str, list[tuple]]:
    """The tables' rows; of the provenance chain's head (``locm_meta``), its length only: it covers the run's
    id, which each store's writer makes afresh."""
    with sqlite3.connect(path) as conn:
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        found = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() if t in have else None
                 for t in TABLES}
    found["locm_meta"] = [(k, v.split(" ")[0] if k == "provenance_ledger" else v) for k, v in found["locm_meta"]]
    return found


def test_a_batch_stores_the_rows_one_game_at_a_time_stores(tmp_path):
    games = prepared(range(12))
    assert all(p.facts is not None for p in games)  # the facts' table is written by the batch too
    one, many = tmp_path / "one.db", tmp_path / "many.db"
    with open_store(one) as s:
        for p in games:
            s.append_prepared(p)
    with open_store(many) as s:
        s.append_games(games[:1])  # a batch of one
        s.append_games(games[1:5])
        s.append_games(games[5:])
    a, b = rows(one), rows(many)
    assert len(a["games"]) == 12 and len(a["game_facts"]) == 12
    for t in TABLES:
        assert a[t] == b[t], t  # keys, records, logs, facts and the ledger's head alike
    with open_store(many, readonly=True) as s:
        assert [s.verify_chain(p.record.game_id) for p in games] == [p.record.head_hash for p in games]


def test_a_batch_after_a_deleted_last_game_takes_the_keys_sqlite_would(tmp_path):
    games = prepared(range(6))
    one, many = tmp_path / "one.db", tmp_path / "many.db"
    for path in (one, many):
        with open_store(path) as s:
            s.append_games(games[:3])
        with sqlite3.connect(path) as conn:  # the last game's rows gone, as a delete by hand leaves them
            conn.execute("DELETE FROM game_facts WHERE game = 3")
            conn.execute("DELETE FROM logs WHERE game = 3")
            conn.execute("DELETE FROM games WHERE id = 3")
    with open_store(one) as s:
        for p in games[3:]:
            s.append_prepared(p)
    with open_store(many) as s:
        s.append_games(games[3:])
    assert rows(one)["games"] == rows(many)["games"]
    assert [r[0] for r in rows(many)["games"]] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("case", ["stored before", "twice in the batch"])
def test_a_batch_meeting_a_stored_game_is_refused_whole_naming_it(tmp_path, case):
    games = prepared(range(5))
    path = tmp_path / "s.db"
    with open_store(path) as s:
        if case == "stored before":
            s.append_prepared(games[3])
            batch, named = games, games[3].record.game_id
        else:
            batch, named = [*games[:3], games[1], games[4]], games[1].record.game_id
        before = rows(path)
        with pytest.raises(DuplicateGameError) as info:
            s.append_games(batch)
        assert named in str(info.value)
        assert rows(path) == before  # nothing of the batch: not even its first games


def test_the_wal_of_a_writer_of_batches_is_checkpointed_beside_it_and_gone_on_close(tmp_path):
    base = prepared(range(8))
    path = tmp_path / "s.db"
    wal = f"{path}-wal"
    s = open_store(path)
    written = 0
    for i in range(0, 2400, 48):  # about 60 MB of WAL frames, over three times SQLite's checkpoint threshold
        batch = [type(p)(msgspec.structs.replace(p.record, game_id=f"copy-{i + j:05d}"), p.data, p.facts)
                 for j, p in enumerate(base * 6)]
        s.append_games(batch)
        written += 48
    # the writer's own connection never checkpoints now (autocheckpoint off): pages reach the database file
    # only through the checkpointer, while the store is open
    deadline = time.monotonic() + 20
    while os.path.getsize(path) < 16 * 2**20 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert os.path.getsize(path) >= 16 * 2**20
    assert os.path.getsize(wal) < 48 * 2**20  # the WAL is written again from its start, not grown forever
    assert any(t.name == "locm-store-checkpoint" for t in threading.enumerate())
    s.close()
    assert not os.path.exists(wal)
    assert not any(t.name == "locm-store-checkpoint" for t in threading.enumerate())
    with open_store(path, readonly=True) as r:
        assert r.count() == written
