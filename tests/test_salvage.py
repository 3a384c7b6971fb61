"""Damage that does happen is survivable: `locm export --all --salvage` saves every game SQLite can still read,
from a store whose ``-wal`` was garbled (as the review's bot did, 32 KB of random bytes over it while the
tournament ran) or whose ``locm_meta`` page is damaged; its file imports into a new store that verifies.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_locm(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "locm.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def fill(path: Path, checkpointed: int, in_wal: int, garble_then: int = 0) -> None:
    """``checkpointed`` games in the main file, then ``in_wal`` more committed to the -wal only, and the
    writer dies (kill -9 in effect): the -wal and its index (-shm) stay. With ``garble_then``, 32 KB of
    random bytes are written over the start of the -wal while the writer runs; the writer, which trusts its
    index of the -wal, checkpoints (copying the garbled frames into the main file) and goes on storing that
    many games before it dies."""
    code = f"""
import os, random
from locm.store import open_store, GameExtras
from locm.play import play_one
s = open_store({str(path)!r})
s._conn.execute('PRAGMA wal_autocheckpoint=0')
for i in range({checkpointed}):
    s.append_game(GameExtras(game_id=f'g{{i}}'), play_one('1.2', i, ('greedy', 'random')).log)
if {checkpointed}:
    s._conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')
for i in range({checkpointed}, {checkpointed + in_wal}):
    s.append_game(GameExtras(game_id=f'g{{i}}'), play_one('1.2', i, ('greedy', 'random')).log)
if {garble_then}:
    with open({str(path)!r} + '-wal', 'r+b') as f:
        f.write(random.Random(7).randbytes(32 * 1024))
    s._conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    for i in range({checkpointed + in_wal}, {checkpointed + in_wal + garble_then}):
        try:
            s.append_game(GameExtras(game_id=f'g{{i}}'), play_one('1.2', i, ('greedy', 'random')).log)
        except Exception:
            pass
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def salvage(db: Path, tmp: Path) -> tuple[int, subprocess.CompletedProcess]:
    """Export with --salvage, import the file into a new store, verify it: the number of games saved."""
    rescued = tmp / "rescued.jsonl"
    r = run_locm("export", "--all", "--salvage", "--db", db, "-o", rescued)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    new = tmp / "new.db"
    i = run_locm("import", rescued, "--db", new)
    assert i.returncode == 0, i.stderr
    v = run_locm("verify", "--db", new)
    assert v.returncode == 0, v.stdout + v.stderr
    saved = int(v.stdout.strip().splitlines()[-1].split()[0])
    assert v.stdout.strip().endswith(f"{saved} games checked: {saved} good, 0 bad")
    return saved, r


def test_a_garbled_wal_is_salvaged_to_every_game_sqlite_still_reads(tmp_path):
    """A new store, every page still in the -wal: garbling its start damages the locm_meta page (its one
    frame is among the first), which the next checkpoint copies into the main file; the tournament goes on.
    Every command then calls the store corrupt; plain SQLite still reads the games; salvage saves them."""
    db = tmp_path / "s.db"
    fill(db, 0, 30, garble_then=5)
    assert Path(f"{db}-wal").stat().st_size > 32 * 1024 and Path(f"{db}-shm").exists()
    r = run_locm("games", "--db", db)
    assert r.returncode == 2 and "corrupt event store" in r.stderr and "--salvage" in r.stderr, r.stderr
    plain = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    readable = plain.execute("SELECT count(*) FROM games").fetchone()[0]
    plain.close()
    assert readable >= 30
    saved, r = salvage(db, tmp_path)
    assert saved >= 25, r.stderr  # every game whose log pages were not among the garbled frames


def test_a_damaged_meta_page_does_not_stop_a_salvage(tmp_path):
    db = tmp_path / "s.db"
    fill(db, 25, 0)
    conn = sqlite3.connect(db)
    page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'locm_meta'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    for leftover in (Path(f"{db}-wal"), Path(f"{db}-shm")):
        leftover.unlink(missing_ok=True)
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(random.Random(9).randbytes(size))
    r = run_locm("games", "--db", db)
    assert r.returncode == 2 and "--salvage" in r.stderr, r.stderr
    saved, r = salvage(db, tmp_path)
    assert saved == 25, r.stderr
