"""External bots (`locm.runner.bots`): real processes from tests/bots/, real pipes, real time limits.

Every game here is played by `locm.games.locm.tournament.run_game`, as `locm play` and the tournament workers do: in the
sandbox where this machine has one (`BOX`), else unconfined, so that the protocol is tested everywhere. Each
test bot writes ``botlib: pid N pgid N pidns pid:[I]`` to its stderr first, so the kept stderr tells which
processes must be gone when the game is over (checked in /proc: a zombie counts as gone): unconfined, the
bot's pid and process group; sandboxed, every process of its PID namespace.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import sys
import time
from pathlib import Path

import pytest

from locm.engine.locm.agents import Agent
from locm.events.locm.catalog import ActionReceived, HardError
from locm.runner import botprocess
from locm.games.locm import tournament
from locm.games.locm.bots import check_agent
from locm.runner.botprocess import STDERR_KEEP
from locm.runner.bots import TimeLimits, command_argv, lost_by
from locm.errors import AgentSpecError, LocmError, TimeLimitError
from locm.store.eventstore import STDERR_LIMIT, GameExtras, open_store
from locm.runner.sandbox.bwrap import UNCONFINED, Sandbox, probe
from locm.games.locm import tournament as _tournament
from locm.engine.locm.definition import GAME as LOCM_GAME

BOTS = Path(__file__).resolve().parent / "bots"
BOX = Sandbox() if probe().ok else UNCONFINED
HOST_PIDNS = os.readlink("/proc/self/ns/pid")


def run_game(*args, sandbox=BOX, **kw):
    """`locm.games.locm.tournament.run_game` with the bots in `BOX`."""
    return _tournament.run_game(*args, sandbox=sandbox, **kw)


# Generous limits: the machines that run the tests are shared and busy; the limit tests set their own.
EASY = TimeLimits.parse("x5")


def bot(name: str, *args: str) -> str:
    """The agent spec of a test bot: a command line run with this interpreter."""
    return shlex.join([sys.executable, str(BOTS / name), *args])


def proc_state(pid: int) -> str | None:
    """The process's state letter from /proc (R, S, Z, ...), or None if there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    state = proc_state(pid)
    return state is not None and state not in "ZX"


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                found.append(int(entry))
    return found


def bot_pids(stderr: str) -> list[tuple[int, int, str]]:
    return [(int(p), int(g), ns) for p, g, ns in re.findall(r"botlib: pid (\d+) pgid (\d+) pidns (\S+)", stderr)]


def in_namespace(pidns: str) -> list[int]:
    """The live processes of a PID namespace, as the host sees them."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") == pidns and alive(int(entry)):
                found.append(int(entry))
        except OSError:
            continue
    return found


def _gone_soon(check, seconds: float = 3.0) -> bool:
    """SIGKILL is delivered asynchronously: a killed process can be seen running for a moment after the
    kill returns. Poll, bounded, for the condition instead of sampling it once."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def assert_gone(stderr: str, expect: int = 1) -> None:
    pids = bot_pids(stderr)
    assert len(pids) == expect, stderr[:300]
    for pid, pgid, pidns in pids:
        if pidns != HOST_PIDNS:  # sandboxed: everything the bot started lived in its namespace
            assert _gone_soon(lambda: in_namespace(pidns) == []), f"{in_namespace(pidns)} still in the sandbox"
            continue
        assert pid == pgid, "a bot must lead its own process group"
        assert _gone_soon(lambda: not alive(pid)), f"bot {pid} is still running"
        assert _gone_soon(lambda: group_members(pgid) == []), f"process group {pgid} still has members"
    for child in re.findall(r"grandchild pid (\d+)", stderr) if not BOX.enabled else ():
        assert _gone_soon(lambda: not alive(int(child))), f"the bot's child {child} is still running"


def hard_errors(game) -> list[HardError]:
    return [e for e in game.log if type(e) is HardError]


# --- time limits and agent specs --------------------------------------------------------------------------


def test_time_limits_default_to_the_referees():
    t = TimeLimits()
    assert [t.limit_ms("draft", True), t.limit_ms("draft", False)] == [1000, 100]
    assert t.limit_ms("construct", True) == t.limit_ms("construct", False) == 4000
    assert [t.limit_ms("battle", True), t.limit_ms("battle", False)] == [1000, 200]
    assert TimeLimits.parse(None) == TimeLimits.parse("") == t


@pytest.mark.parametrize("spec, expected", [
    ("x2", TimeLimits(2000, 200, 8000, 2000, 400)),
    ("3", TimeLimits(3000, 300, 12000, 3000, 600)),
    ("0.5x", TimeLimits(500, 50, 2000, 500, 100)),
    ("battle=500", TimeLimits(battle=500)),
    ("x2, battle=500ms", TimeLimits(2000, 200, 8000, 2000, 500)),
    ("draft-first=50,construct=10", TimeLimits(draft_first=50, construct=10)),
])
def test_time_limits_parse(spec, expected):
    assert TimeLimits.parse(spec) == expected


@pytest.mark.parametrize("spec, message", [
    ("fast", "--timeouts 'fast': expected a positive number, got 'fast'"),
    ("battle=0", "--timeouts 'battle=0': expected a positive number up to 10000000, got '0'"),
    ("speed=3", "--timeouts 'speed=3': unknown limit 'speed', expected one of battle, battle_first, construct"),
    ("x-1", "expected a positive number up to 10000000, got '-1'"),
])
def test_bad_time_limits_are_refused(spec, message):
    with pytest.raises(TimeLimitError) as info:
        TimeLimits.parse(spec)
    assert message in str(info.value) and info.value.spec == spec


def test_agent_specs(tmp_path):
    assert check_agent("greedy") == "greedy"
    assert command_argv(bot("good_bot.py")) == [sys.executable, str(BOTS / "good_bot.py")]
    cases = {
        "nobody": "unknown agent 'nobody': expected random, pass, greedy, lookahead or a command line; no program 'nobody'",
        "python3 'oops": "the command line does not parse: No closing quotation",
        "/no/such/bot --fast": "no file '/no/such/bot'",
        "   ": "the command line is empty",
    }
    plain = tmp_path / "not_executable.py"
    plain.write_text("print('PASS')\n")
    cases[str(plain)] = "is not executable"
    for spec, message in cases.items():
        with pytest.raises(AgentSpecError) as info:
            check_agent(spec)
        assert message in str(info.value), spec
        assert info.value.spec == spec and isinstance(info.value, LocmError)


# --- whole games --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_good_bot_plays_whole_games(ruleset, seat):
    agents = [bot("good_bot.py"), "pass"]
    if seat:
        agents.reverse()
    played = run_game(ruleset, 5, agents, limits=EASY)
    game, x = played.game, played.extras
    assert game.ended and hard_errors(game) == []
    assert game.winner == seat and game.state.end_reason == "health"  # `pass` never plays a card
    answers = [e.text for e in game.log if type(e) is ActionReceived and e.player == seat]
    assert answers[0] == "PASS" and any(a.startswith("SUMMON") for a in answers)
    meta = json.loads(x.meta)
    assert meta["turns"][seat] == len(answers) and meta["limits_ms"] == EASY.as_dict()
    assert x.seats[seat].think_ms > 0 and not x.seats[seat].error
    stderr = x.seats[seat].stderr
    assert stderr.startswith("botlib: pid ") and stderr.count("\n") == 1
    assert_gone(stderr)


def test_two_bots_each_get_their_own_process():
    played = run_game("1.2", 8, [bot("good_bot.py"), bot("good_bot.py")], limits=EASY)
    assert played.game.ended and hard_errors(played.game) == []
    (p0, _, ns0), (p1, _, ns1) = bot_pids(played.extras.seats[0].stderr)[0], bot_pids(played.extras.seats[1].stderr)[0]
    assert (p0, ns0) != (p1, ns1)
    assert (ns0 == ns1 == HOST_PIDNS) == (not BOX.enabled)  # sandboxed, each in its own PID namespace
    assert_gone(played.extras.seats[0].stderr)
    assert_gone(played.extras.seats[1].stderr)


@pytest.mark.parametrize("ruleset, at", [("1.2", 2), ("constructed", 0)])
def test_player_1_still_gets_the_round_input_after_player_0_loses_it(ruleset, at):
    """As the referee's DraftTurn/ConstructTurn: both inputs of a round are sent before either answer is read,
    so a hard error of player 0 in that round still leaves player 1 with its input (its answer is dropped)."""
    played = run_game(ruleset, 3, [bot("garbage_bot.py", "words", str(at)), bot("inputs_bot.py")], limits=EASY)
    game = played.game
    assert game.ended and game.winner == 1 and hard_errors(game)[0].player == 0
    assert game.owed_input() is not None
    answers = [e for e in game.log if type(e) is ActionReceived and e.player == 1]
    assert len(answers) == at  # rounds before the bad one: its answer in the bad round is never played
    assert f"inputs: {at + 1}" in played.extras.seats[1].stderr
    assert not played.extras.seats[1].error and not played.extras.seats[1].timeout


# Each bad bot fails at its own turn 3 (a draft pick in 1.2) unless told otherwise.
FAILURES = [
    ("crash_bot.py", (), "crashed (exit 1)"),
    ("garbage_bot.py", ("bytes",), "not UTF-8"),
    ("garbage_bot.py", ("words",), "unknown draft action 'HELLO': expected PICK, CHOOSE or PASS"),
    ("flood_bot.py", (), "output flood"),
    ("quit_bot.py", (), "exited"),
]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("script, args, reason", FAILURES, ids=[f"{s}{a}" for s, a, _ in FAILURES])
def test_a_failing_bot_loses_with_the_reason_recorded(script, args, reason, seat):
    agents = [bot(script, *args), "random"]
    if seat:
        agents.reverse()
    t0 = time.monotonic()
    played = run_game("1.2", 3, agents, limits=EASY)
    elapsed = time.monotonic() - t0
    game, x = played.game, played.extras
    assert game.ended and game.winner == 1 - seat and game.state.end_reason == "hard_error"
    (err,) = hard_errors(game)
    assert (err.player, err.reason) == (seat, reason)
    assert x.seats[seat].error and not x.seats[seat].timeout
    assert not x.seats[1 - seat].error
    assert json.loads(x.meta)["turns"][seat] == 4
    assert elapsed < 10, "a failing bot must not hold the runner"
    stderr = x.seats[seat].stderr
    assert_gone(stderr)
    if script == "crash_bot.py":
        assert stderr.endswith("crash_bot: giving up at turn 3\n")
    if script == "flood_bot.py":
        assert len(err.text) <= 203  # the record keeps the start of what it wrote, not megabytes


def test_a_slow_bot_times_out_at_its_limit_and_its_process_group_is_killed():
    # Turn 31 of a 1.2 game is the bot's second battle turn: the battle limit, set here to 300 ms.
    limits = TimeLimits.parse("x5,battle=300")
    t0 = time.monotonic()
    played = run_game("1.2", 3, [bot("slow_bot.py", "31"), "pass"], limits=limits)
    elapsed = time.monotonic() - t0
    game, x = played.game, played.extras
    (err,) = hard_errors(game)
    assert (err.player, err.reason, game.winner) == (0, "timeout", 1)
    assert x.seats[0].timeout and x.seats[0].error and not x.seats[1].timeout
    slowest = json.loads(x.meta)["think_max_ms"][0]
    assert 300 <= slowest < 300 + 700, slowest  # enforced at the limit, not when the bot wakes up (120 s)
    assert elapsed < 15
    assert "sleeping at turn 31; grandchild pid" in x.seats[0].stderr
    assert_gone(x.seats[0].stderr)


def test_the_first_turn_of_each_phase_has_the_longer_limit():
    # The slow bot sleeps at turn 0 (its first pick): 1000 ms x 0.2 = 200 ms allowed.
    played = run_game("1.2", 3, [bot("slow_bot.py", "0"), "pass"], limits=TimeLimits.parse("x0.2"))
    assert hard_errors(played.game)[0].reason == "timeout"
    assert 200 <= json.loads(played.extras.meta)["think_max_ms"][0] < 900


def test_stderr_is_kept_bounded_to_its_tail(tmp_path):
    played = run_game("1.2", 3, [bot("noisy_bot.py", "300"), "greedy"], limits=EASY)
    x = played.extras
    assert played.game.ended and hard_errors(played.game) == []
    note, _, tail = x.seats[0].stderr.partition("\n")
    assert re.fullmatch(r"\[\.\.\. \d+ bytes of stderr cut\]", note)
    assert len(tail.encode()) == STDERR_KEEP
    last_turn = json.loads(x.meta)["turns"][0] - 1
    assert tail.endswith(f"turn {last_turn} line 299: thinking hard about my next move\n")
    with open_store(tmp_path / "s.db") as store:  # the store keeps less again
        record = store.append_game(LOCM_GAME, x, played.game.log)
    assert len(record.seats[0].stderr) <= STDERR_LIMIT and record.seats[0].stderr.endswith(tail[-1000:])


def test_a_program_that_cannot_start_loses_at_its_first_turn(tmp_path):
    script = tmp_path / "broken_bot"
    script.write_text("#!/no/such/interpreter\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    played = run_game("constructed", 3, ["greedy", str(script)], limits=EASY)
    (err,) = hard_errors(played.game)
    assert err.player == 1 and err.reason.startswith("cannot start (")
    assert played.game.winner == 0


def test_an_interrupted_game_leaves_no_bot_behind(monkeypatch):
    seen: list[int] = []

    class Interrupting(Agent):
        name = "boom"
        turns = 0

        def play_turn(self, game, player):
            seen.extend(b.pid for b in botprocess._LIVE if alive(b.pid))
            raise KeyboardInterrupt

    real = tournament.make_agent
    monkeypatch.setattr(tournament, "make_agent", lambda spec, seed, limits, sandbox=None:
                        Interrupting() if spec == "boom" else real(spec, seed, limits, sandbox))
    with pytest.raises(KeyboardInterrupt):
        run_game("1.2", 3, [bot("good_bot.py"), "boom"], limits=EASY)
    assert len(seen) == 1 and not alive(seen[0]) and group_members(seen[0]) == []
    assert not botprocess._LIVE


def test_the_store_accepts_what_the_runner_records(tmp_path):
    played = run_game("1.2", 3, [bot("crash_bot.py"), bot("good_bot.py")], limits=EASY)
    with open_store(tmp_path / "s.db") as store:
        record = store.append_game(LOCM_GAME, played.extras, played.game.log)
        assert record.extras() == GameExtras(**{**{f: getattr(played.extras, f)
                                                  for f in GameExtras.__struct_fields__},
                                                "created": record.created})
        assert (record.winner, record.reason, record.seats[0].error, record.seats[1].error) == (1, "hard_error", True, False)


def test_a_terminated_play_command_kills_its_bot(tmp_path):
    """`locm play` sent SIGTERM while its bot thinks: exit 130, the bot and its child are gone."""
    import signal
    import subprocess
    import uuid

    marker = f"locm-play-{uuid.uuid4().hex}"
    env = {**os.environ, "LOCM_TEST_MARKER": marker}

    def marked() -> dict[int, str]:
        """locm (the marker in its environment), the bot (in its command line; a sandboxed bot's environment
        is its own), the bot's child; the sandbox's own processes are not counted."""
        found = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                env = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            ours = marker.encode() in env or "locm-test-grandchild" in cmd or marker in cmd
            if ours and alive(int(entry)) and not cmd.startswith(("bwrap ", "/usr/bin/setpriv ")):
                found[int(entry)] = cmd
        return found

    proc = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "play", "--seed", "1", "--p0",
                             bot("slow_bot.py", "0", marker), "--timeouts", "x100", "--db", str(tmp_path / "a.db")]
                            + ([] if BOX.enabled else ["--no-sandbox"]),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while not any("locm-test-grandchild" in c for c in marked().values()) and time.monotonic() < end:
            time.sleep(0.05)
        assert len(marked()) == 3, marked()  # locm, the bot, its child
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.strip().endswith("locm: aborted"), err
    end = time.monotonic() + 5
    while marked() and time.monotonic() < end:
        time.sleep(0.05)
    assert marked() == {}
    assert not (tmp_path / "a.db").exists()  # an interrupted game is not stored: the store is opened once it ends


def test_games_stderr_says_how_a_seat_lost_as_play_says_it(tmp_path):
    """A bot that timed out lost "by a timeout" in `games --stderr` too (it said "by an error" for every loss
    outside the rules), and a crashed one "by an error"."""
    import subprocess

    db = str(tmp_path / "t.db")
    box = [] if BOX.enabled else ["--no-sandbox"]
    for seed, p0, timeouts in ((3, bot("slow_bot.py", "0"), "x0.2"), (4, bot("crash_bot.py"), "x5")):
        r = subprocess.run([sys.executable, "-m", "locm.cli.main", "play", "--seed", str(seed), "--p0", p0, "--p1",
                            "pass", "--timeouts", timeouts, "--db", db, *box], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    with open_store(db, readonly=True) as store:
        ids = [g.game_id for g in store.games()]
    said = []
    for gid in ids:
        r = subprocess.run([sys.executable, "-m", "locm.cli.main", "games", "--db", db, "--stderr", gid],
                           capture_output=True, text=True)
        said += [line for line in r.stdout.splitlines() if line.startswith("== player 0")]
    assert [s.split(")", 1)[1].split(":")[0] for s in said] == [" (lost by a timeout)", " (lost by an error)"], said
    assert lost_by(error=True, timeout=True) == "a timeout" and lost_by(False, False) == ""
