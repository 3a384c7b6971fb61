"""Tournaments (`locm.games.locm.tournament`, `locm tournament`): ids, the mirrored schedule, standings, and a real
tournament process killed mid-run (SIGKILL and SIGTERM) then restarted: no process survives, no game is
lost or stored twice."""

from __future__ import annotations

import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from locm.errors import TournamentError
from locm.store.eventstore import MemoryStore, register_functions
from locm.games.locm.tournament import game_id, run_game, run_tournament, schedule
from locm.tournament.run import play_jobs, to_play
from locm.tournament.standings import pair_rows, standings
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
GOOD_BOT = shlex.join([sys.executable, str(ROOT / "tests" / "bots" / "good_bot.py")])


# --- ids and the schedule -------------------------------------------------------------------------------------


def test_game_ids_are_deterministic_and_tell_games_apart():
    gid = game_id("1.2", 7, ("greedy", "random"))
    assert re.fullmatch(r"1\.2-7-[0-9a-f]{12}", gid)
    assert gid == game_id("1.2", 7, ["greedy", "random"], {})
    others = {game_id("1.2", 7, ("random", "greedy")), game_id("1.2", 8, ("greedy", "random")),
              game_id("constructed", 7, ("greedy", "random")), game_id("1.2", 7, ("greedy", "pass")),
              game_id("1.2", 7, ("greedy", "random"), {"shufflePlayer0Seed": 1}),
              game_id("1.2", -7, ("greedy", "random"))}
    assert len(others) == 6 and gid not in others


def test_the_schedule_plays_every_seed_in_both_seats():
    jobs = schedule("1.2", ["greedy", "random", "pass"], 4, seed=10)
    assert len(jobs) == 3 * 4 and len({j.game_id for j in jobs}) == 12
    per_pair = Counter((frozenset((j.agent0, j.agent1)), j.seed) for j in jobs)
    assert set(per_pair.values()) == {2} and {s for _, s in per_pair} == {10, 11}
    for j in jobs:
        mirror = [k for k in jobs if (k.agent0, k.agent1, k.seed) == (j.agent1, j.agent0, j.seed)]
        assert len(mirror) == 1
    assert [(j.agent0, j.agent1, j.seed) for j in jobs[:4]] == [("greedy", "random", 10), ("random", "greedy", 10),
                                                               ("greedy", "pass", 10), ("pass", "greedy", 10)]
    assert all(j.game_id == game_id("1.2", j.seed, (j.agent0, j.agent1)) for j in jobs)


def test_an_agent_given_twice_also_plays_itself_each_seed_once():
    """Self-play: the agent in both seats, so the swapped seating is the same game; the pair plays as many
    games as any other, on seeds S .. S+N-1, each once, and the other pairs are as before."""
    a, b = "greedy", "random"
    jobs = schedule("1.2", [a, b, a], 6, seed=10)
    assert len(jobs) == 2 * 6 and len({j.game_id for j in jobs}) == 12 and list(jobs) == jobs[:]
    mirror = sorted(j.seed for j in jobs if j.agent0 == j.agent1)
    assert mirror == list(range(10, 16)) and {j.agent0 for j in jobs if j.agent0 == j.agent1} == {a}
    mixed = Counter((j.agent0, j.agent1, j.seed) for j in jobs if j.agent0 != j.agent1)
    assert mixed == Counter((x, y, s) for s in (10, 11, 12) for x, y in ((a, b), (b, a)))
    assert all(j.game_id == game_id("1.2", j.seed, (j.agent0, j.agent1)) for j in jobs)
    assert [j.place[1] for j in jobs] == list(range(12))  # every game its own place in the schedule
    assert [len(schedule("1.2", [a, a], 4, 1)), len(schedule("1.2", [a, a, b, b], 4, 1))] == [4, 12]


def test_a_self_play_tournament_is_complete_for_verify(tmp_path):
    db = tmp_path / "t.db"
    r = run_locm("tournament", "--agents", "pass", "random", "pass", "--games", 4, "--db", db)
    assert r.returncode == 0, r.stderr
    v = run_locm("verify", "--db", db)
    assert v.returncode == 0 and "1 tournament schedule complete" in v.stdout + v.stderr, v.stdout + v.stderr


def test_self_play_standings_name_each_seat_and_count_each_game_once():
    store = MemoryStore()
    run = run_tournament(store, "1.2", ["random", "pass", "random"], 4, seed=3)
    assert (run.scheduled, run.played, run.failed) == (8, 8, [])
    records = store.games()
    table = {st.agent: st for st in standings(records, ["random", "pass", "random"])}
    assert list(table) == ["random", "pass", "random (seat 0)", "random (seat 1)"]
    assert (table["random"].games, table["pass"].games) == (4, 4)
    seat0, seat1 = table["random (seat 0)"], table["random (seat 1)"]
    assert seat0.games == seat1.games == 4 and seat0.wins + seat1.wins == 4
    wins0 = sum(r.winner == 0 for r in records if r.agents[0] == r.agents[1] == "random")
    assert seat0.wins == wins0
    rows = pair_rows(records, ["random", "pass", "random"])
    assert rows[1] == ("random (seat 0)", "random (seat 1)", 4, wins0, 4 - wins0)
    assert [st.agent for st in standings(records, ["random", "random"])] == ["random (seat 0)", "random (seat 1)"]
    # listed once, random's games against itself are not its games: the table is as before self-play existed
    assert [(st.agent, st.games) for st in standings(records, ["random", "pass"])] == [("random", 4), ("pass", 4)]


@pytest.mark.parametrize("agents, games, seed, message", [
    (["a", "b"], 5, 1, "--games must be even and at least 2 (each seed is played in both seats), got 5"),
    (["a", "b"], 0, 1, "--games must be even and at least 2 (each seed is played in both seats), got 0"),
    (["a"], 2, 1, "a tournament needs at least 2 agents, got 1"),
    (["a", "b", "a", "a"], 2, 1, "an agent may be given at most twice (twice: it also plays itself), got 'a' 3 "
                                 "times"),
    (["a", "a"], 4, 2**63 - 2, f"seeds {2**63 - 2}..{2**63 + 1} do not fit a 64-bit signed integer"),
    (["a", "b"], 4, 2**63 - 1, f"seeds {2**63 - 1}..{2**63} do not fit a 64-bit signed integer"),
])
def test_the_schedule_refuses_bad_requests(agents, games, seed, message):
    with pytest.raises(TournamentError) as info:
        schedule("1.2", agents, games, seed)
    assert str(info.value) == message


# --- a small tournament in this process's store -------------------------------------------------------------


def test_run_tournament_stores_every_game_once_and_resumes():
    store = MemoryStore()
    run = run_tournament(store, "constructed", ["greedy", "pass"], 6, workers=2, seed=3)
    assert (run.scheduled, run.already, run.played, run.failed) == (6, 0, 6, [])
    expected = {j.game_id for j in schedule("constructed", ["greedy", "pass"], 6, 3)}
    assert {r.game_id for r in store.games()} == expected
    again = run_tournament(store, "constructed", ["greedy", "pass"], 6, workers=2, seed=3)
    assert (again.already, again.played) == (6, 0) and store.count() == 6
    greedy, passer = standings(store.games(), ["greedy", "pass"])
    assert (greedy.games, greedy.wins, passer.wins, greedy.errors, greedy.timeouts) == (6, 6, 0, 0, 0)
    lo, hi = greedy.interval
    assert hi == 1.0 and 0.60 < lo < 0.61  # Wilson 95% for 6/6: [0.6097, 1]
    assert greedy.avg_think_ms is not None and greedy.avg_think_ms > 0


def test_a_new_store_is_not_looked_up_game_by_game_and_a_game_stored_meanwhile_is_a_duplicate():
    """On a new store `to_play` hands the whole schedule over without a look-up per game; a game that another
    run stores in the meantime is refused by the store, counted as a duplicate, and stored once."""
    store = MemoryStore()
    jobs = schedule("1.2", ["greedy", "random"], 4, 5)
    todo, count = to_play(store, jobs)
    assert todo is jobs and count == 4
    first = jobs[0]
    played = run_game(first.ruleset, first.seed, (first.agent0, first.agent1))
    store.append_game(LOCM_GAME, played.extras, played.game.log)  # "another run" got there first
    run = play_jobs(store, todo, workers=1, scheduled=len(jobs), count=count)
    assert (run.played, run.duplicates, run.failed) == (3, 1, [])
    assert sorted(r.game_id for r in store.games()) == sorted(j.game_id for j in jobs)
    todo, count = to_play(store, jobs)
    assert count == 0 and list(todo) == []


# --- the command ----------------------------------------------------------------------------------------------


def run_locm(*args, env=None):
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env)


def test_the_command_prints_standings_and_resumes(tmp_path):
    args = ["tournament", "-r", "1.2", "--agents", "greedy", "random", "pass", "--games", 4, "--db",
            tmp_path / "t.db", "--workers", 2, "--seed", 5]
    r = run_locm(*args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"12 games played, 0 stored before: 12 of 12 Legends of Code and Magic games in " \
                       f"{tmp_path / 't.db'} ({lines[0].rsplit('(', 1)[1].split(' s)')[0]} s)"
    assert lines[1].split() == ["agent", "games", "wins", "win", "rate", "95%", "interval", "errors", "timeouts",
                                "think", "ms"]
    rows = {line.split()[0]: line.split() for line in lines[3:6]}
    assert set(rows) == {"greedy", "random", "pass"} and all(row[1] == "8" for row in rows.values())
    assert sum(int(row[2]) for row in rows.values()) == 12
    assert "12 games scheduled, 0 already stored, 12 to play with 2 workers" in r.stderr
    again = run_locm(*args)
    assert again.returncode == 0 and again.stdout.startswith("0 games played")
    assert again.stdout.splitlines()[1:] == lines[1:]  # the tables come from the store: the same again


def test_the_command_plays_an_agent_against_itself(tmp_path):
    r = run_locm("tournament", "-r", "constructed", "--agents", "greedy", "greedy", "--games", 4, "--db",
                 tmp_path / "t.db")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("4 games played") and f"4 of 4 Legends of Code and Magic games in {tmp_path / 't.db'}" \
        in lines[0]
    seat0, seat1 = (line.split() for line in lines[3:5])
    assert seat0[:4] == ["greedy", "(seat", "0)", "4"] and seat1[:4] == ["greedy", "(seat", "1)", "4"]
    assert int(seat0[4]) + int(seat1[4]) == 4
    head = lines[-1].split()
    assert head[:6] == ["greedy", "(seat", "0)", "greedy", "(seat", "1)"] and head[6:] == ["4", seat0[4], seat1[4]]


@pytest.mark.parametrize("args, message", [
    (["--agents", "greedy", "pass", "--games", "3"], "locm: error: --games must be even"),
    (["--agents", "greedy", "pass", "--games", "2", "--workers", "0"], "locm tournament: error: Invalid value for"),
    (["--agents", "greedy", "nobody", "--games", "2"], "locm: error: unknown agent 'nobody'"),
    (["--agents", "pass", "pass", "pass", "--games", "2"], "locm: error: an agent may be given at most twice"),
    (["--agents", "greedy", "pass", "--games", "2", "--timeouts", "x0"], "locm: error: --timeouts 'x0'"),
])
def test_the_command_refuses_bad_input_in_one_line(tmp_path, args, message):
    r = run_locm("tournament", *args, "--db", tmp_path / "t.db")
    assert r.returncode == 2 and r.stderr.startswith(message), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert list(tmp_path.iterdir()) == []


# --- killed mid-run, restarted ----------------------------------------------------------------------------------


def marked(marker: str) -> dict[int, str]:
    """Processes started with `marker` in their environment (locm and its workers) or their command line (the
    bots, whose sandbox gives them an environment of their own, and their sandbox): pid -> command line
    (zombies left out)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if marker.encode() not in Path(f"/proc/{entry}/environ").read_bytes() and marker not in cmdline:
                continue
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in "ZX":
            found[int(entry)] = cmdline
    return found


def stored_ids(db: Path) -> list[str]:
    if not db.exists():
        return []
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
        try:
            return [r[0] for r in conn.execute("SELECT game_id FROM games")]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # not created yet
        return []


def wait_until(condition, timeout: float, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_tournament_leaves_no_process_and_finishes_when_restarted(tmp_path, sig):
    marker = f"LOCM_TEST_MARKER=tournament-{uuid.uuid4().hex}"
    env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
    db = tmp_path / "t.db"
    agents = ["greedy", f"{GOOD_BOT} {marker}", "random"]  # the marker in the bot's command line finds it
    args = ["tournament", "--ruleset", "1.2", "--agents", *agents, "--games", 16, "--db", db, "--workers", 2,
            "--seed", 100, "--timeouts", "x5"]
    expected = {j.game_id for j in schedule("1.2", agents, 16, 100)}
    assert len(expected) == 48

    proc = subprocess.Popen([sys.executable, "-m", "locm.cli.main", *map(str, args)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # kill it once a few games are stored and a bot is running
        def going():
            return len(stored_ids(db)) >= 4 and any(c.startswith(sys.executable) and "good_bot.py" in c
                                                    and "locm.cli.main" not in c for c in marked(marker).values())

        ready = wait_until(going, timeout=60, step=0.02)
        assert ready, f"the tournament did not get going: {proc.poll()}"
        running = marked(marker)
        assert len(running) >= 4, running  # the main process, 2 workers, at least one bot
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if sig == signal.SIGTERM:
        assert proc.returncode == 130, err
        assert re.search(r"locm: interrupted: \d+ of 48 games stored in .*; run the same command again", err), err
    else:
        assert proc.returncode == -signal.SIGKILL
    left = wait_until(lambda: not marked(marker), timeout=10) or marked(marker)
    assert left is True, f"processes left behind: {left}"

    stored_before = stored_ids(db)
    assert 4 <= len(stored_before) < 48, "kill earlier: the test must interrupt the tournament"
    assert set(stored_before) <= expected

    r = run_locm(*args, env=env)
    assert r.returncode == 0, r.stderr
    assert f"48 games scheduled, {len(stored_before)} already stored, {48 - len(stored_before)} to play" in r.stderr
    final = stored_ids(db)
    assert len(final) == 48 and set(final) == expected  # every game, each once
    conn = sqlite3.connect(db)
    register_functions(conn)  # the events view (one row per event) needs the store's SQL function
    counts = dict(conn.execute("SELECT game_id, count(*) FROM events GROUP BY game_id"))
    n_events = dict(conn.execute("SELECT game_id, n_events FROM games"))
    conn.close()
    assert counts == n_events
    v = run_locm("verify", "--db", db)
    assert v.returncode == 0 and v.stdout.endswith("48 games checked: 48 good, 0 bad\n"), v.stdout
    assert not marked(marker)


def test_the_hand_off_is_bounded_and_each_game_one_small_blob():
    """However slow the writer, the workers hold at most HANDOFF games each beyond what it has taken; each
    game arrives as its record and its compressed log, a pickle of a few KB."""
    import pickle
    import zlib

    from locm.runner.bots import TimeLimits
    from locm.store.eventstore import PreparedGame
    from locm.tournament.run import HANDOFF, _pool

    jobs = schedule("1.2", ("greedy", "random"), 24, 1)
    taken = []

    def source():
        for job in jobs:
            taken.append(job.game_id)
            yield job

    got = []
    for kind, gid, prepared, _ in _pool(source(), 2, TimeLimits()):
        if kind == "tick":  # the writer's chance to store a batch that waited long enough
            continue
        assert kind == "game" and isinstance(prepared, PreparedGame)
        got.append(gid)
        assert len(taken) <= len(got) + HANDOFF * 2
        assert len(pickle.dumps(prepared)) < 20_000
        assert zlib.decompress(prepared.data).count(b"\n") == prepared.record.n_events - 1
        time.sleep(0.05)  # a slow writer: the workers must wait for it, not run ahead
    assert sorted(got) == sorted(j.game_id for j in jobs)


def test_the_writer_stores_whole_games_several_to_a_transaction_and_skips_duplicates(tmp_path):
    from locm.store.eventstore import SqliteStore
    from locm.tournament.run import record_schedule

    committed = []  # games per committed transaction

    class Counting(SqliteStore):
        def _write(self, games):
            games = list(games)
            super()._write(games)
            committed.append(len(games))

    store = Counting(str(tmp_path / "w.db"))
    sched = schedule("1.2", ["greedy", "random"], 40, seed=1)
    record_schedule(store, sched)
    jobs = list(sched)
    run = play_jobs(store, jobs[:8], workers=1)
    assert (run.played, run.duplicates) == (8, 0)
    run = play_jobs(store, jobs, workers=2, batch=16)  # the first 8 are stored already: duplicates, skipped
    assert (run.played, run.duplicates) == (32, 8)
    assert store.count() == 40 and sum(committed) == 40
    assert max(committed) > 1 and max(committed) <= 16 and len(committed) < 40
    store.close()
    r = run_locm("verify", "--db", tmp_path / "w.db")  # the ledger and every game hold
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_ray_backend_without_ray_is_refused_in_one_line_before_the_store_is_made(tmp_path):
    code = ("import sys; sys.modules['ray'] = None; from locm.cli.main import main; "
            f"sys.argv = ['locm', 'tournament', '--agents', 'greedy', 'random', '--games', '2', '--db', "
            f"{str(tmp_path / 't.db')!r}, '--backend', 'ray']; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.strip() == ("locm: error: --backend ray needs Ray: pip install "
                                                      "'locm[ray]' (or pip install ray)"), r.stderr
    assert not (tmp_path / "t.db").exists()
