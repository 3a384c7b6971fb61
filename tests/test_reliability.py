"""Faults a store, a tournament or a bot runner must survive (issue 12), each against real SQLite files and
real processes: a checkpoint cut short by a full disk or kill -9, read-only media, concurrent first opens, a
writer holding the lock, bots that escape their process group, bots edited between runs, full disks on
output files. After each fault, every committed game is still listed, exported and verified.

Written through the CLI and `locm.store.eventstore.open_store` only, so that they hold on another store layout (but two
tests that edit a stored log behind the store's back, which needs the layout).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import multiprocessing
import os
import shlex
import signal
import subprocess
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from locm.engine.locm.gameid import game_id
from locm.store.eventstore import GameExtras, open_store
from locm.engine.locm.definition import GAME as LOCM_GAME
from locm.games.locm.play import play_one

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"


def run_locm(*args, env=None, preexec_fn=None, stdout=subprocess.PIPE, timeout=120):
    """The real entry point in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, preexec_fn=preexec_fn,
                          timeout=timeout)


def one_line_error(r, start="locm: error: "):
    assert r.returncode != 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines and lines[-1].startswith(start), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return lines[-1]


def assert_all_readable(db: Path, ids: list[str], tmp: Path) -> None:
    """Every game of ``ids`` is listed by `locm games`, exported by `locm export` and good for `locm verify`."""
    r = run_locm("games", "--db", db)
    assert r.returncode == 0, r.stderr
    listed = {line.split()[0] for line in r.stdout.splitlines()[2:-1]}
    assert set(ids) <= listed, sorted(set(ids) - listed)[:3]
    out = tmp / f"export-{time.monotonic_ns()}.jsonl"
    r = run_locm("export", "--all", "--db", db, "-o", out)
    assert r.returncode == 0, r.stderr
    exported = {json.loads(line)["game"]["game_id"] for line in out.read_text().splitlines() if '"game":' in line[:8]}
    assert set(ids) <= exported
    r = run_locm("verify", "--db", db)
    assert r.returncode == 0 and f"{len(listed)} good, 0 bad" in r.stdout, r.stdout + r.stderr


def fill_store(path: Path, n: int, *, checkpoint: bool = True, start: int = 0) -> list[str]:
    """Store ``n`` seeded games (seeds ``start``...); without ``checkpoint`` the process dies like kill -9 with
    every commit still in the -wal file (run in a subprocess)."""
    code = f"""
import os
from locm.store.eventstore import open_store, GameExtras
from locm.engine.locm.gameid import game_id
from locm.games.locm.play import play_one
from locm.engine.locm.definition import GAME as LOCM_GAME
s = open_store({str(path)!r})
{'' if checkpoint else "s._conn.execute('PRAGMA wal_autocheckpoint=0')"}
for i in range({start}, {start + n}):
    g = play_one('1.2', i, ('greedy', 'random'))
    s.append_game(LOCM_GAME, GameExtras(game_id=game_id('1.2', i, ('greedy', 'random'))), g.log)
{'s.close()' if checkpoint else 'os._exit(0)'}
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return [game_id("1.2", i, ("greedy", "random")) for i in range(start, start + n)]


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "4m"):
    """A real tmpfs mounted at ``where`` (skips the test where mounting is not allowed)."""
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def remount_ro(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


# --- 1. a healthy store after an interrupted checkpoint ----------------------------------------------------


def _cut_checkpoint(db: Path, limit: int = 1 << 18) -> None:
    """Checkpoint the -wal into the main file with a disk that is full after ``limit`` bytes (RLIMIT_FSIZE):
    SQLite writes page 1 (whose header gives the new page count), then fails, leaving the main file shorter
    than its header says and every page still in the -wal, as a kill -9 in the checkpoint does."""
    code = f"""
import resource, signal, sqlite3, os
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
c = sqlite3.connect({str(db)!r})
try:
    c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
except sqlite3.Error:
    pass
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_checkpoint_cut_short_leaves_a_store_every_command_reads(tmp_path):
    db = tmp_path / "s.db"
    ids = fill_store(db, 60, checkpoint=False)
    _cut_checkpoint(db)
    header = db.read_bytes()[:100]
    pages = int.from_bytes(header[28:32], "big") * int.from_bytes(header[16:18], "big")
    assert db.stat().st_size < pages and Path(f"{db}-wal").stat().st_size > 0  # the state of the issue
    assert_all_readable(db, ids, tmp_path)
    r = run_locm("play", "--seed", 5, "--p0", "pass", "--p1", "greedy", "--db", db)  # and a writer goes on
    assert r.returncode == 0, r.stderr
    assert_all_readable(db, ids, tmp_path)


def test_kill_9_during_a_large_import_keeps_every_committed_game(tmp_path):
    db, source = tmp_path / "s.db", tmp_path / "source.db"
    ids = fill_store(db, 5)
    # more games than SQLite's page cache holds, so that the one transaction of the import spills pages to the
    # -wal before it commits
    more = fill_store(source, 600, start=5)
    big = tmp_path / "big.jsonl"
    assert run_locm("export", "--all", "--db", source, "-o", big).returncode == 0
    p = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "import", str(big), "--db", str(db)], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wal = Path(f"{db}-wal")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None and (not wal.exists() or wal.stat().st_size < 1_000_000):
        time.sleep(0.01)
    p.kill()
    p.wait()
    assert_all_readable(db, ids, tmp_path)
    r = run_locm("import", big, "--db", db)  # and the import can simply be run again
    assert r.returncode == 0, r.stderr
    assert_all_readable(db, ids + more, tmp_path)


def test_a_full_disk_during_a_tournament_is_one_line_and_keeps_every_stored_game(tmp_path):
    with tmpfs(tmp_path / "small", "1m") as mnt:
        db = mnt / "t.db"
        r = run_locm("tournament", "--agents", "pass", "random", "--games", 2000, "--db", db, timeout=300)
        line = one_line_error(r)
        assert "full" in line or "No space" in line, line
        with open_store(db, readonly=True) as store:
            ids = [g.game_id for g in store.games()]
        assert ids
        assert_all_readable(db, ids, tmp_path)


def test_a_really_truncated_store_is_refused_with_a_way_to_recover(tmp_path):
    db = tmp_path / "s.db"
    fill_store(db, 40)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    r = run_locm("games", "--db", db)
    line = one_line_error(r, f"locm: error: {db}: corrupt event store: truncated")
    assert "quick_check" in line and "to recover" in line and "--salvage" in line
    r = run_locm("export", "--all", "--salvage", "--db", db, "-o", tmp_path / "rescued.jsonl")
    assert r.returncode == 1 and "damaged games left out" in r.stderr and "Traceback" not in r.stderr, r.stderr


def _salvage(db: Path, tmp: Path) -> None:
    """`export --salvage` writes the games that still read and verify and names the others; its file imports
    and verifies."""
    rescued = tmp / "rescued.jsonl"
    r = run_locm("export", "--all", "--salvage", "--db", db, "-o", rescued)
    assert r.returncode == 1, r.stderr
    left_out = [line for line in r.stderr.splitlines() if line.startswith("locm: left out game ")]
    saved = int(r.stderr.split(" saved")[0].rsplit(" ", 2)[-2])  # "... N games saved"
    assert left_out and saved > 0 and "Traceback" not in r.stderr, r.stderr
    r = run_locm("import", rescued, "--db", tmp / "new.db")
    assert r.returncode == 0, r.stderr
    r = run_locm("verify", "--db", tmp / "new.db")
    assert r.returncode == 0 and f"{saved} good, 0 bad" in r.stdout, r.stdout


def test_a_damaged_page_is_salvaged(tmp_path):
    import random

    db = tmp_path / "s.db"
    fill_store(db, 40)
    with contextlib.closing(sqlite3.connect(db)) as conn:  # a page of the logs in the middle, overwritten whole
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'logs' ORDER BY pageno")]
    data = bytearray(db.read_bytes())
    start = (pages[len(pages) // 2] - 1) * size
    data[start: start + size] = random.Random(1).randbytes(size)
    db.write_bytes(bytes(data))
    _salvage(db, tmp_path)


# --- 2. read-only media ----------------------------------------------------------------------------------


@pytest.mark.parametrize("state", ["checkpointed", "wal"])
def test_reading_commands_work_on_a_read_only_filesystem(tmp_path, state):
    with tmpfs(tmp_path / "ro", "16m") as mnt:
        db = mnt / "s.db"
        ids = fill_store(db, 12, checkpoint=state == "checkpointed")
        if state == "wal":  # the -shm of a crashed writer is left too, as on a real disk
            assert Path(f"{db}-wal").exists()
        remount_ro(mnt)
        with pytest.raises(OSError):
            (mnt / "probe").write_text("x")
        assert_all_readable(db, ids, tmp_path)
        r = run_locm("play", "--seed", 1, "--db", db)
        one_line_error(r)


# --- 3. concurrent first opens and a writer holding the lock ----------------------------------------------


def _open_and_append(path, barrier, seat, errors):
    try:
        barrier.wait()
        with open_store(path) as store:
            game = play_one("1.2", seat, ("pass", "pass"))
            store.append_game(LOCM_GAME, GameExtras(game_id=f"g{seat}"), game.log)
    except Exception as exc:  # reported to the test
        errors.put(f"{type(exc).__name__}: {exc}")


def test_two_processes_creating_one_store_at_once_both_succeed(tmp_path):
    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    for trial in range(15):
        path = tmp_path / f"t{trial}.db"
        barrier = ctx.Barrier(3)
        procs = [ctx.Process(target=_open_and_append, args=(path, barrier, seat, errors)) for seat in range(3)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert errors.empty(), f"trial {trial}: {errors.get()}"
        with open_store(path, readonly=True) as store:
            assert sorted(r.game_id for r in store.games()) == ["g0", "g1", "g2"]


def test_two_tournaments_started_together_on_a_new_file_both_finish(tmp_path):
    for trial in range(3):
        db = tmp_path / f"t{trial}.db"
        args = [sys.executable, "-m", "locm.cli.main", "tournament", "--agents", "pass", "greedy", "--games", "6",
                "--db", str(db)]
        procs = [subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
        for out, err, code in results:
            assert code == 0, err
            assert "6 of 6 Legends of Code and Magic games" in out
        with open_store(db, readonly=True) as store:
            ids = [g.game_id for g in store.games()]
        assert len(ids) == len(set(ids)) == 6
        assert_all_readable(db, ids, tmp_path)


def _hold_write_lock(path: Path, seconds: float, ready, release) -> None:
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    ready.set()
    release.wait(seconds)
    conn.execute("COMMIT")
    conn.close()


@contextlib.contextmanager
def _write_lock_held(path: Path, seconds: float):
    """Another process holds the store's write lock for `seconds` from the start of the block, or until the
    block ends if that comes first."""
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_write_lock, args=(path, seconds, ready, release))
    holder.start()
    assert ready.wait(30)
    try:
        yield
    finally:
        release.set()
        holder.join()


def test_a_writer_waits_for_the_lock_with_a_message_then_goes_on(tmp_path):
    db = tmp_path / "t.db"
    ids = fill_store(db, 2)
    with _write_lock_held(db, 5):  # long enough for the tournament to start and meet it, however loaded the machine
        r = run_locm("tournament", "--agents", "pass", "greedy", "--games", 2, "--db", db)
    assert r.returncode == 0, r.stderr
    assert "waiting for another writer" in r.stderr
    assert "2 of 2 Legends of Code and Magic games" in r.stdout
    assert_all_readable(db, ids, tmp_path)


def test_the_wait_for_the_lock_is_bounded(tmp_path):
    db = tmp_path / "t.db"
    ids = fill_store(db, 2)
    with _write_lock_held(db, 60):  # held until the tournament has given up
        r = run_locm("tournament", "--agents", "pass", "greedy", "--games", 2, "--db", db, "--busy-timeout", 1)
    line = one_line_error(r)
    assert "locked by another writer" in line and "--busy-timeout" in line
    assert_all_readable(db, ids, tmp_path)


# --- 4. bounded memory -----------------------------------------------------------------------------------


def test_an_absurd_tournament_is_refused_at_once(tmp_path):
    t0 = time.monotonic()
    r = run_locm("tournament", "--agents", "pass", "greedy", "--games", 10**12, "--db", tmp_path / "t.db",
                 timeout=60)
    line = one_line_error(r)
    assert "10000000 games" not in line and "at most" in line, line
    assert time.monotonic() - t0 < 30 and not (tmp_path / "t.db").exists()


def test_a_large_schedule_is_not_built_in_memory():
    from locm.games.locm.tournament import game_id, schedule
    from locm.tournament.schedule import MAX_GAMES

    games = MAX_GAMES // 3 // 2 * 2
    jobs = schedule("1.2", ["greedy", "random", "pass"], games, seed=1)
    assert len(jobs) == games * 3
    assert jobs[len(jobs) - 1].seed == games // 2 and jobs[-1] == jobs[-6:][-1] and jobs[0] == next(iter(jobs))
    assert sys.getsizeof(jobs) < 10_000


def _children_rss_kb() -> int:
    """Resident memory of this process's children (the worker processes), in kB."""
    total = 0
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
    return total


def test_workers_do_not_pile_up_finished_games_behind_a_slow_writer(tmp_path):
    """The hand-off is bounded: a worker starts a game only when the writer has taken one, so however slow the
    store is, at most a few games per worker (and the writer's batch) are played and not yet stored, and
    memory stays flat."""
    from locm.games.locm.tournament import schedule
    from locm.tournament.run import play_jobs

    started = tmp_path / "started"
    started.write_text("")
    bot = f"sh {BOTS / 'count_bot.sh'} {started}"
    ahead, rss, stored = [], [], [0]
    batch = 4  # games per transaction: small, so that the writer is called often

    def slow_writer(n):  # the store's writer is much slower than the workers
        time.sleep(0.03 * n)
        stored[0] += n
        ahead.append(len(started.read_text().splitlines()) - stored[0])
        rss.append(_children_rss_kb())

    with open_store(tmp_path / "t.db") as store:
        jobs = schedule("1.2", [bot, "pass"], 160, seed=1)
        run = play_jobs(store, jobs, workers=2, progress=slow_writer, batch=batch)
        assert run.played == 160 and not run.failed
    assert len(rss) >= 160 // batch
    assert max(ahead) <= 2 * 2 + batch + 2, ahead  # games begun but not stored: the hand-off and one batch
    assert max(rss[-20:]) - max(rss[10:30]) < 20_000, rss  # kB


# --- 5. bots that escape their process group -------------------------------------------------------------


def _alive(pid: int) -> bool:
    """True while the process exists, even as a zombie nobody reaped."""
    return Path(f"/proc/{pid}").exists()


def _pids(path: Path, n: int) -> list[int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = [int(line.split()[1]) for line in path.read_text().splitlines()] if path.exists() else []
        if len(pids) >= n:
            return pids
        time.sleep(0.02)
    raise AssertionError(f"the bot wrote {path.read_text() if path.exists() else 'nothing'}")


def _assert_all_gone(pids: list[int]) -> None:
    """Every pid is gone after a short grace; whatever is not is killed, so a failure leaves nothing behind."""
    try:
        assert _gone(pids) == []
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _gone(pids: list[int]) -> list[int]:
    """The pids still there after a short grace."""
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and any(map(_alive, pids)):
        time.sleep(0.02)
    return [p for p in pids if _alive(p)]


# The three tests below are of unconfined bots (--no-sandbox), whose escaped descendants are found by their
# token: the bots write their pids to a file of the test, which a sandboxed bot could not. Sandboxed bots
# doing the same are in tests/test_hostile.py.


@pytest.mark.parametrize("bot, n", [("setsid_bot.py", 1), ("double_fork_bot.py", 2)])
def test_play_leaves_no_process_of_a_bot_behind(tmp_path, bot, n):
    pidfile = tmp_path / "pids"
    command = shlex.join([sys.executable, str(BOTS / bot), str(pidfile)])
    r = run_locm("play", "--seed", 3, "--p0", command, "--p1", "pass", "--timeouts", "x20", "--no-sandbox")
    assert r.returncode == 0, r.stderr
    pids = _pids(pidfile, n)
    _assert_all_gone(pids)


@pytest.mark.parametrize("bot, n", [("setsid_bot.py", 1), ("double_fork_bot.py", 2)])
def test_the_game_runner_kills_and_reaps_every_descendant(tmp_path, bot, n):
    """In the process that runs the game (a worker, or `locm play`): nothing left running, no zombie."""
    from locm.runner.bots import TimeLimits
    from locm.runner.sandbox.bwrap import UNCONFINED
    from locm.games.locm.tournament import run_game

    pidfile = tmp_path / "pids"
    command = shlex.join([sys.executable, str(BOTS / bot), str(pidfile)])
    played = run_game("1.2", 4, (command, "greedy"), limits=TimeLimits.parse("x20"), sandbox=UNCONFINED)
    assert played.game.state.winner in (0, 1)
    pids = _pids(pidfile, n)
    _assert_all_gone(pids)


def test_a_tournament_leaves_no_process_of_a_bot_behind(tmp_path):
    pidfile = tmp_path / "pids"
    command = shlex.join([sys.executable, str(BOTS / "double_fork_bot.py"), str(pidfile)])
    r = run_locm("tournament", "--agents", command, "pass", "--games", 2, "--db", tmp_path / "t.db", "-j", 2,
                 "--timeouts", "x20", "--no-sandbox")
    assert r.returncode == 0, r.stderr
    pids = _pids(pidfile, 4)
    _assert_all_gone(pids)


# --- 6. a changed bot is not a new player ----------------------------------------------------------------


def test_a_tournament_resumed_with_an_edited_bot_is_refused_naming_it(tmp_path):
    import shutil

    for name in ("botlib.py", "good_bot.py"):
        shutil.copy(BOTS / name, tmp_path / name)
    tmp_path.chmod(0o755)  # run by root, a bot's sandbox user reads its folder as others do
    bot = shlex.join([sys.executable, str(tmp_path / "good_bot.py")])
    db = tmp_path / "t.db"
    args = ["tournament", "--agents", bot, "pass", "--db", db, "--timeouts", "x20"]
    r = run_locm(*args, "--games", 2)
    assert r.returncode == 0, r.stderr
    with open_store(db, readonly=True) as store:
        ids = [g.game_id for g in store.games()]
        assert all(json.loads(g.meta)["bot_sha256"][g.agents[0] != bot] for g in store.games())
    r = run_locm(*args, "--games", 4)  # the same bot: resumed
    assert r.returncode == 0, r.stderr
    with (tmp_path / "good_bot.py").open("a") as f:
        f.write("# a new version\n")
    r = run_locm(*args, "--games", 6)
    line = one_line_error(r)
    assert bot in line and "changed" in line and "--allow-changed-bots" in line, line
    with open_store(db, readonly=True) as store:
        assert store.count() == 4
        ids = [g.game_id for g in store.games()]
    r = run_locm(*args, "--games", 6, "--allow-changed-bots")
    assert r.returncode == 0, r.stderr
    assert_all_readable(db, ids, tmp_path)


# --- 7. output edges -------------------------------------------------------------------------------------


def test_dash_means_standard_output_for_every_output_file(tmp_path):
    r = run_locm("play", "--seed", 2, "--p0", "greedy", "--p1", "pass", "--log", "-")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "game_created" and json.loads(lines[-1])["type"] == "game_ended"
    assert "winner: player" in r.stderr  # the summary moves out of the way of the log
    assert not (ROOT / "-").exists()
    db = tmp_path / "s.db"
    ids = fill_store(db, 2)
    r = run_locm("export", "--all", "--db", db, "-o", "-")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1]) == {"end": {"games": 2, "events": r.stdout.count('"hash"')}}
    assert not (ROOT / "-").exists()
    assert_all_readable(db, ids, tmp_path)


def fill_up(mnt: Path) -> None:
    """Fill a filesystem to the last byte: the next write fails with ENOSPC."""
    with contextlib.suppress(OSError), open(mnt / ".filler", "wb", buffering=0) as f:
        while True:
            f.write(b"\0" * 4096)


def test_a_full_disk_under_a_log_file_is_one_line_and_leaves_nothing(tmp_path):
    with tmpfs(tmp_path / "full", "64k") as mnt:
        fill_up(mnt)
        r = run_locm("play", "--seed", 2, "--p0", "greedy", "--p1", "random", "--log", mnt / "g.jsonl")
        line = one_line_error(r)
        assert "g.jsonl" in line and "No space left" in line, line
        assert "winner: player" in r.stdout  # the game was played: its summary is still shown
        assert [p.name for p in mnt.iterdir()] == [".filler"]
        db = tmp_path / "s.db"
        ids = fill_store(db, 3)
        r = run_locm("export", "--all", "--db", db, "-o", mnt / "all.jsonl")
        one_line_error(r)
        assert [p.name for p in mnt.iterdir()] == [".filler"]
        assert_all_readable(db, ids, tmp_path)


@pytest.mark.parametrize("args", [["play", "--seed", 2, "--log", "-"], ["export", "--all"],
                                  ["games"]])
def test_a_full_disk_under_standard_output_is_one_line(tmp_path, args):
    db = tmp_path / "s.db"
    ids = fill_store(db, 30)
    if args[0] != "play":
        args = [*args, "--db", db]
    with tmpfs(tmp_path / "full", "16k") as mnt:
        fill_up(mnt)
        with open(mnt / "out", "w") as out:
            r = run_locm(*args, stdout=out)
        line = one_line_error(r)
        assert "standard output" in line and "No space left" in line, line
    assert_all_readable(db, ids, tmp_path)


def test_demo_checks_its_chart_path_before_playing(tmp_path):
    t0 = time.monotonic()
    r = run_locm("demo", "--db", tmp_path / "d.db", "--games", 2, "--chart", tmp_path / "no" / "dir" / "c.png")
    line = one_line_error(r)
    assert "c.png" in line and not (tmp_path / "d.db").exists(), line


def test_a_bad_line_in_a_conformance_file_is_reported_and_the_rest_checked(tmp_path):
    import gzip

    from tests.helpers import LOG_12

    lines = gzip.open(LOG_12, "rt").read().splitlines()[:3]
    path = tmp_path / "log.txt"
    path.write_text("\n".join([lines[0], "this is not a game", lines[1], lines[2]]) + "\n")
    r = run_locm("conformance", path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"locm: error: {path}:2: not an official game log line") and "Traceback" not in r.stderr
    assert "3/4 games identical" in r.stdout, r.stdout


# --- 8. consistency ----------------------------------------------------------------------------------------


def test_play_and_games_count_turns_the_same_way(tmp_path):
    db = tmp_path / "s.db"
    crash = shlex.join([sys.executable, str(BOTS / "crash_bot.py"), "0"])  # loses in the draft, no turn played
    for seed, p0 in ((2, "greedy"), (3, crash)):
        r = run_locm("play", "--seed", seed, "--p0", p0, "--p1", "random", "--db", db, "--timeouts", "x20")
        assert r.returncode == 0, r.stderr
        played = int(r.stdout.split(" turns")[0].rsplit(" ", 1)[1])
        r = run_locm("games", "--db", db)
        shown = r.stdout.splitlines()[-2].split()
        assert str(played) in shown, (played, shown)
        assert played >= 0


def test_play_shows_the_end_of_a_crashed_bots_stderr(tmp_path):
    crash = shlex.join([sys.executable, str(BOTS / "crash_bot.py"), "2"])
    r = run_locm("play", "--seed", 2, "--p0", crash, "--p1", "pass", "--timeouts", "x20")
    assert r.returncode == 0, r.stderr
    assert "crashed (exit 1)" in r.stdout and "| crash_bot: giving up at turn 2" in r.stdout, r.stdout


def test_games_shows_a_stored_games_bot_stderr(tmp_path):
    db = tmp_path / "s.db"
    crash = shlex.join([sys.executable, str(BOTS / "crash_bot.py"), "2"])
    r = run_locm("play", "--seed", 2, "--p0", crash, "--p1", "pass", "--timeouts", "x20", "--db", db)
    gid = r.stdout.split("stored: ")[1].split()[0]
    r = run_locm("games", "--db", db, "--stderr", gid)
    assert r.returncode == 0, r.stderr
    assert "crash_bot: giving up at turn 2" in r.stdout and "player 0" in r.stdout
    one_line_error(run_locm("games", "--db", db, "--stderr", "nope"), "locm: error: no game 'nope'")


def test_games_selects_by_winning_agent(tmp_path):
    db = tmp_path / "s.db"
    r = run_locm("tournament", "--agents", "greedy", "pass", "--games", 4, "--db", db)
    assert r.returncode == 0, r.stderr
    r = run_locm("games", "--db", db, "--winner-agent", "greedy")
    rows = r.stdout.splitlines()[2:-1]
    assert r.stdout.splitlines()[-1] == "4 Legends of Code and Magic games" and len(rows) == 4
    r = run_locm("games", "--db", db, "--winner-agent", "pass")
    assert r.stdout.splitlines()[-1] == "0 Legends of Code and Magic games"
    r = run_locm("games", "--db", db, "--limit", 1)
    assert r.stdout.splitlines()[-1] == "1 Legends of Code and Magic game"


def test_every_option_has_help_and_workers_is_spelled_one_way():
    from locm.cli.main import cli

    def commands(group, prefix=""):
        for name, cmd in group.commands.items():
            yield f"{prefix}{name}", cmd
            if hasattr(cmd, "commands"):
                yield from commands(cmd, f"{prefix}{name} ")

    for name, cmd in commands(cli):
        for p in cmd.params:
            if p.param_type_name == "option" and not p.hidden:
                assert p.help, f"locm {name} {p.opts[0]} has no help"
                if "--workers" in p.opts:
                    assert p.opts == ["--workers", "-j"] or p.opts == ["-j", "--workers"], (name, p.opts)


def test_import_names_the_cli_flag_and_verify_says_the_id_once(tmp_path):
    db = tmp_path / "s.db"
    g1 = fill_store(db, 2)[1]
    out = tmp_path / "e.jsonl"
    assert run_locm("export", "--all", "--db", db, "-o", out).returncode == 0
    line = one_line_error(run_locm("import", out, "--db", db))
    assert "--skip-existing" in line and "skip_existing=True" not in line
    import sqlite3

    import zlib

    conn = sqlite3.connect(db)  # event 3 of g1 edited in its stored log
    key = f"(SELECT id FROM games WHERE game_id = '{g1}')"
    lines = zlib.decompress(conn.execute(f"SELECT data FROM logs WHERE game = {key}").fetchone()[0]).split(b"\n")
    lines[3] = lines[3].replace(b'"seq":3', b'"seq":3 ')
    conn.execute(f"UPDATE logs SET data = ? WHERE game = {key}", (zlib.compress(b"\n".join(lines)),))
    conn.commit()
    conn.close()
    r = run_locm("verify", "--db", db)
    bad = [line for line in r.stdout.splitlines() if g1 in line]
    assert r.returncode == 1 and len(bad) == 1 and bad[0].count(g1) == 1, r.stdout


def test_kill_9_of_a_tournament_leaves_no_warning_and_every_stored_game_readable(tmp_path):
    db = tmp_path / "t.db"
    p = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "tournament", "--agents", "pass", "random", "--games",
                          "4000", "--db", str(db), "-j", "2"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # kill it once it has stored a few games, mid-run
        time.sleep(0.2)
        with contextlib.suppress(Exception), open_store(db, readonly=True) as store:
            if store.count() >= 20:
                break
    p.kill()
    _, err = p.communicate(timeout=60)  # ends when every process holding its stderr (workers too) is gone
    assert "leaked" not in err and "Traceback" not in err, err
    with open_store(db, readonly=True) as store:
        ids = [r.game_id for r in store.games()]
    assert ids
    assert_all_readable(db, ids, tmp_path)


# --- 9. a newcomer's first hour ----------------------------------------------------------------------------


LANES_2_DECK_40 = 'base = "constructed"\nname = "small-lanes"\nlane_size = 2\ndeck_size = 40\nmax_copies = 1\n'


@pytest.mark.parametrize("ruleset", ["1.2", "constructed", "variant"])
def test_the_example_bot_plays_legal_games_in_both_rulesets(tmp_path, ruleset):
    """Under a variant too: the bot reads the sizes the protocol never says from LOCM_RULES."""
    bot = f"{sys.executable} examples/bot.py"
    if ruleset == "variant":
        ruleset = tmp_path / "v.toml"
        ruleset.write_text(LANES_2_DECK_40)
    for seed in (1, 2):
        log = tmp_path / f"game-{seed}.jsonl"
        r = run_locm("play", "-r", ruleset, "--seed", seed, "--p0", bot, "--p1", "greedy", "--log", log,
                     "--timeouts", "x20")
        assert r.returncode == 0, r.stderr
        types = [json.loads(line)["type"] for line in log.read_text().splitlines()]
        assert types[-1] == "game_ended" and "hard_error" not in types and "action_rejected" not in types
        assert types.count("action_received") > 10


def test_every_doc_the_code_cites_is_in_the_repository():
    import re

    cited = set()
    for path in [*ROOT.glob("*.md"), *ROOT.glob("*/*.py"), *ROOT.glob("*/*.md"), *ROOT.glob("examples/**/*")]:
        if ".venv" not in path.parts and path.is_file():
            cited |= set(re.findall(r"\b([A-Z][A-Z-]+\.md)\b", path.read_text(errors="replace")))
    assert {"LOCM-RULES.md", "ANALYTICS.md"} <= cited
    present = {p.name for p in ROOT.rglob("*.md") if ".venv" not in p.parts}
    assert cited <= present, cited - present
    shared = ROOT.parent / "shared"
    for copy, source in ((ROOT / "data" / "LOCM-RULES.md", shared / "rules" / "LOCM-RULES.md"),
                         (ROOT / "data" / "ANALYTICS.md", shared / "ANALYTICS.md"),
                         (ROOT / "docs" / "STYLE.md", shared / "STYLE.md")):
        if source.exists():
            assert copy.read_bytes() == source.read_bytes()


def test_a_schedule_knows_its_games_without_listing_them():
    from locm.games.locm.tournament import game_id, schedule
    from locm.tournament.schedule import MAX_GAMES

    jobs = schedule("1.2", ["greedy", "random", "pass"], MAX_GAMES // 3 // 2 * 2, seed=5)
    last = jobs[-1]
    record = type("R", (), {"ruleset": "1.2", "seed": last.seed, "agent0": last.agent0, "agent1": last.agent1,
                            "game_id": last.game_id})
    assert jobs.holds(record)
    record.seed, record.game_id = last.seed + 1, game_id("1.2", last.seed + 1, (last.agent0, last.agent1))
    assert not jobs.holds(record)


@pytest.mark.parametrize("args", [("play", "--seed", "3"), ("games",), ("verify",), ("export", "--all")])
def test_a_store_cannot_be_standard_input_or_output(tmp_path, args):
    r = subprocess.run([sys.executable, "-m", "locm.cli.main", *args, "--db", "-"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "not standard input or output" in r.stderr and not (tmp_path / "-").exists()


def test_dash_reads_standard_input_for_logs_and_writes_standard_output_for_html(tmp_path):
    """`-` is standard input for the log a command reads (conformance, show) and standard output for
    `html -o`; no file named `-` is made."""
    official = (ROOT / "tests" / "data" / "official-1.2-games-00-49.txt.gz")
    lines = gzip.decompress(official.read_bytes()).decode().splitlines(keepends=True)[:2]

    def locm_in(stdin: str, *args):
        return subprocess.run([sys.executable, "-m", "locm.cli.main", *args], cwd=tmp_path, input=stdin,
                              capture_output=True, text=True)

    r = locm_in("".join(lines), "conformance", "-", "--quiet")
    assert r.returncode == 0 and r.stdout.strip().endswith("2/2 games identical"), r.stdout + r.stderr
    log = tmp_path / "g.jsonl"
    assert locm_in("", "play", "--seed", "7", "--log", str(log)).returncode == 0
    r = locm_in(log.read_text(), "show", "-", "--seq", "5", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["seq"] == 5, r.stderr
    r = locm_in("", "html", str(log), "-o", "-")
    assert r.returncode == 0 and r.stdout.startswith("<!DOCTYPE html>") and "KB" in r.stderr
    assert not (tmp_path / "-").exists()
