"""Sandboxes kept across games (`locm.runner.sandbox.kept`, in a tournament's workers): a launcher killed or stopped
from outside costs its sandbox, never the tournament (the bot's game is lost as a killed bot's, or goes on), and
nothing of a kept sandbox outlives the process that made it. The attacks a bot can try from inside are in
tests/test_hostile.py (nothing of a game reaches the next; the launcher is out of its reach).

Run by root, every test here runs twice: as root, and as the user nobody (`test_all_of_this_holds_as_nobody`
runs this file as nobody, where each game has a user namespace of its own: `locm.runner.sandbox.user`)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from locm.runner.sandbox import kept as sandbox_kept
from locm.games.locm.bots import TimedAgent
from locm.runner.bots import BotAgent, TimeLimits
from locm.engine.locm.agents import Agent, make_agent
from locm.events.locm.catalog import HardError
from locm.runner.sandbox.bwrap import Sandbox, probe
from locm.runner.sandbox.user import RunAsError, as_user
from locm.games.locm.tournament import run_game

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
GOOD = shlex.join([sys.executable, str(BOTS / "good_bot.py")])
pytestmark = [pytest.mark.skipif(not probe().ok, reason=f"no sandbox here: {probe().reason}"),
              pytest.mark.skipif(probe().ok and not sandbox_kept.can_keep(Sandbox()),
                                 reason="sandboxes are not kept across games here: a kept sandbox's game could not "
                                        "make its user namespace (see `locm sandbox check`)")]


@pytest.fixture
def keeping(monkeypatch):
    """Keep sandboxes in this process, as a tournament worker does; a launcher has 0.5 s to answer."""
    monkeypatch.setattr(sandbox_kept, "ANSWER_S", 0.5)
    sandbox_kept.keep()
    yield
    sandbox_kept.keep(False)
    sandbox_kept.close_all()


class Meddler(Agent):
    """Plays greedy; at its turn ``at``, does ``act`` to the launcher of the opponent bot's kept sandbox."""

    def __init__(self, bot: BotAgent, at: int, act: int) -> None:
        self.inner, self.bot, self.at, self.act, self.n = make_agent("greedy", 1), bot, at, act, 0
        self.name = "greedy"
        self.launcher: int | None = None

    def play_turn(self, game, player: int) -> None:
        self.n += 1
        if self.n == self.at:
            self.launcher = self.bot.kept.launcher_pid()
            os.kill(self.launcher, self.act)
            if self.act == signal.SIGKILL:
                # a kill takes effect a little later (the launcher's own exit first, then the kernel kills its
                # PID namespace): a bot answering meanwhile plays on. Once the launcher is a zombie, nothing of
                # its namespace is left.
                assert gone(self.launcher)
        self.inner.play_turn(game, player)


def play(seats: list) -> tuple:
    played = run_game("1.2", 1, [seats[0].command, "greedy"], limits=TimeLimits.parse("x5"), seats=seats)
    errors = [e for e in played.game.log if type(e) is HardError]
    return played, errors


def gone(pid: int | None, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while pid is not None and _alive(pid) and time.monotonic() < end:
        time.sleep(0.02)
    return pid is not None and not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except (OSError, IndexError):
        return False


def in_namespace(pidns: str) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") == pidns and _alive(int(entry)):
                found.append(int(entry))
        except OSError:
            continue
    return found


def test_a_kept_sandbox_plays_the_bots_games_one_after_another(keeping):
    seen = []
    for _ in range(3):
        bot = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
        played, errors = play([bot, TimedAgent(make_agent("greedy", 1))])
        assert errors == [] and played.game.ended, played.extras.seats[0].stderr[-500:]
        assert json.loads(played.extras.meta)["sandbox"]["kept"] is True
        seen.append(played.extras.seats[0].stderr)
    assert len(sandbox_kept._IDLE[sandbox_kept.key(shlex.split(GOOD), Sandbox(), os.getcwd())]) == 1
    for stderr in seen:  # each game's PID namespace (a namespace's number is reused once it is gone) is empty
        assert "botlib: pid 2 pgid 2 " in stderr and in_namespace(re.search(r"pidns (\S+)", stderr).group(1)) == []


def test_a_killed_launcher_loses_the_game_as_a_killed_bot_and_the_next_game_gets_a_new_sandbox(keeping):
    bot = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    meddler = Meddler(bot, at=12, act=signal.SIGKILL)
    played, errors = play([bot, TimedAgent(meddler)])
    assert [(e.player, e.reason) for e in errors] == [(0, "crashed (signal SIGKILL)")]
    assert played.game.state.winner == 1
    assert gone(meddler.launcher)
    pidns = re.search(r"pidns (\S+)", played.extras.seats[0].stderr).group(1)
    assert in_namespace(pidns) == []
    again = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    played, errors = play([again, TimedAgent(make_agent("greedy", 1))])
    assert errors == [] and played.game.ended


def test_a_stopped_launcher_costs_its_sandbox_not_the_game(keeping):
    bot = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    meddler = Meddler(bot, at=12, act=signal.SIGSTOP)
    played, errors = play([bot, TimedAgent(meddler)])
    assert errors == [] and played.game.state.end_reason == "health"  # the bot itself was never stopped
    assert gone(meddler.launcher)  # its launcher did not answer at the end: the sandbox was destroyed
    assert not sandbox_kept._IDLE.get(sandbox_kept.key(shlex.split(GOOD), Sandbox(), os.getcwd()))
    again = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    played, errors = play([again, TimedAgent(make_agent("greedy", 1))])
    assert errors == [] and played.game.ended


def test_a_launcher_stopped_between_games_makes_the_bot_time_out_then_is_replaced(keeping):
    first = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    play([first, TimedAgent(make_agent("greedy", 1))])
    (idle,) = sandbox_kept._IDLE[sandbox_kept.key(shlex.split(GOOD), Sandbox(), os.getcwd())]
    launcher = idle.launcher_pid()
    os.kill(launcher, signal.SIGSTOP)
    bot = BotAgent(GOOD, TimeLimits.parse("draft_first=300"), sandbox=Sandbox())
    played = run_game("1.2", 1, [GOOD, "greedy"], limits=TimeLimits.parse("draft_first=300"),
                      seats=[bot, TimedAgent(make_agent("greedy", 1))])
    assert [(e.player, e.reason) for e in played.game.log if type(e) is HardError] == [(0, "timeout")]
    assert gone(launcher)
    again = BotAgent(GOOD, TimeLimits.parse("x5"), sandbox=Sandbox())
    played, errors = play([again, TimedAgent(make_agent("greedy", 1))])
    assert errors == [] and played.game.ended


def test_kill_9_of_a_tournament_takes_its_kept_sandboxes(tmp_path):
    """The tournament killed with SIGKILL while its worker holds kept sandboxes: their bubblewrap, launchers
    and games all die with it (the worker dies with its parent, each sandbox with its worker)."""
    slow = shlex.join([sys.executable, str(BOTS / "slow_bot.py"), "40"])
    main = subprocess.Popen([sys.executable, "-m", "locm.cli.main", "tournament", "--agents", GOOD, slow, "--games",
                             "20", "--db", str(tmp_path / "t.db"), "-j", "1"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        end = time.monotonic() + 60
        boxes: list[int] = []
        while time.monotonic() < end and len(boxes) < 2:  # both bots' kept sandboxes are up
            time.sleep(0.1)
            boxes = kept_sandboxes(str(tmp_path))
        assert len(boxes) >= 2, "no kept sandbox started"
        launchers = [child for pid in boxes for child in children(pid)]
        assert launchers
    finally:
        main.kill()
        main.wait()
    for pid in boxes + launchers:
        assert gone(pid), f"{pid} outlived the tournament"


def kept_sandboxes(cwd: str) -> list[int]:
    """bubblewrap processes of kept sandboxes (``--as-pid-1``) whose bot runs in ``cwd``."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            words = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if words and words[0].endswith(b"bwrap") and b"--as-pid-1" in words and cwd.encode() in words:
            found.append(int(entry))
    return found


def children(pid: int) -> list[int]:
    try:
        return [int(c) for t in os.listdir(f"/proc/{pid}/task")
                for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        return []


def test_a_program_that_cannot_run_loses_its_game_saying_why(keeping, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("#!/nonexistent/python\n")
    bot.chmod(0o755)
    tmp_path.chmod(0o755)
    played = run_game("1.2", 1, [str(bot), "greedy"], limits=TimeLimits.parse("x5"))
    assert [e.reason for e in played.game.log if type(e) is HardError] == [
        f"cannot start (failed to execute {bot}: No such file or directory)"]


def test_a_bot_whose_folder_is_in_tmp_sees_it_read_only_in_each_games_fresh_tmp(keeping, tmp_path):
    """bubblewrap shows such a folder inside the sandbox's /tmp; a kept sandbox shows it again, read-only, in
    each game's fresh /tmp, with the files hidden there still reading as nothing."""
    import shutil

    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("hostile_bot.py", "botlib.py", "good_bot.py"):
        shutil.copy(BOTS / name, folder)
        (folder / name).chmod(0o644)
    for path in (tmp_path, folder):
        path.chmod(0o755)
    command = shlex.join([sys.executable, str(folder / "hostile_bot.py"), "disk"])
    policy = Sandbox(hide=(str(folder / "good_bot.py"),))
    for seed in (1, 2):
        bot = BotAgent(command, TimeLimits.parse("x5"), sandbox=policy)
        played = run_game("1.2", seed, [command, "greedy"], limits=TimeLimits.parse("x5"), sandbox=policy,
                          seats=[bot, TimedAgent(make_agent("greedy", 1))])
        said = played.extras.seats[0].stderr
        assert [e for e in played.game.log if type(e) is HardError] == [], said
        assert f"hostile: write {folder / 'planted.py'}: Read-only file system" in said
        assert "hostile: tmp: 64 MB, then No space left on device" in said
    assert not (folder / "planted.py").exists()
    (box,) = sandbox_kept._IDLE[sandbox_kept.key(shlex.split(command), policy, os.getcwd())]
    # the bot's folder, and its interpreter's installation where that lies in /tmp too (a checkout cloned there)
    runner = {sys.prefix} if sys.prefix.startswith(("/tmp/", "/dev/shm/")) else set()
    assert box.games == 2 and set(box.views_in_tmp) == {str(folder)} | runner, box.views_in_tmp


def test_the_runners_keyrings_are_out_of_reach_and_bots_make_no_key(tmp_path):
    """A runner with a session keyring of its own (a login's) and a key in its user keyring: neither is within
    the bots' reach, and a bot can add no key anywhere (every sandbox refuses the keyring system calls: run by a
    user, a bot has the user's kuid, whose keyring grants it every right). Nothing is left for the next game."""
    hostile = shlex.join([sys.executable, str(BOTS / "hostile_bot.py"), "leave"])
    code = ("import ctypes, json, shlex, sys\n"
            "keyutils = ctypes.CDLL('libkeyutils.so.1')\n"
            "assert keyutils.keyctl_join_session_keyring(b'locm-test-runner') > 0\n"
            "assert keyutils.add_key(b'user', b'runner-secret', b'sesame', 6, -3) > 0\n"
            "mine = keyutils.add_key(b'user', b'runner-secret', b'sesame', 6, -4)\n"  # the user keyring (kept)
            "assert mine > 0\n"
            "from locm.runner.sandbox import kept as sandbox_kept\n"
            "from locm.runner.bots import TimeLimits\n"
            "from locm.games.locm.tournament import run_game\n"
            "sandbox_kept.keep()\n"
            "try:\n"
            "    for seed in (1, 2):\n"
            "        print(json.dumps(run_game('1.2', seed, [sys.argv[1], 'greedy'], limits=TimeLimits.parse('x5'))"
            ".extras.seats[0].stderr))\n"
            "finally:\n"
            "    sandbox_kept.close_all()\n"
            "    keyutils.keyctl_unlink(mine, -4)\n")
    r = subprocess.run([sys.executable, "-c", code, hostile], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    games = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(games) == 2
    for said in games:
        assert "hostile: found: nothing" in said, said
        assert "no key (Operation not permitted), no session key (Operation not permitted), time_wait, child" in \
            said, said


def test_idle_kept_sandboxes_are_bounded_the_oldest_destroyed(keeping, monkeypatch):
    monkeypatch.setattr(sandbox_kept, "MAX_IDLE", 1)
    launchers = []
    for command in (GOOD, GOOD + " 2"):
        bot = BotAgent(command, TimeLimits.parse("x5"), sandbox=Sandbox())
        meddler = Meddler(bot, at=3, act=0)  # signal 0: only learns the launcher's pid
        played, errors = play([bot, TimedAgent(meddler)])
        assert errors == []
        launchers.append(meddler.launcher)
    assert gone(launchers[0]) and _alive(launchers[1])
    assert [len(v) for v in sandbox_kept._IDLE.values()] == [1]


def test_all_of_this_holds_as_nobody():
    """Run by root: this file's tests pass when run by the user nobody too (each game in a user namespace of its
    own), none skipped. `locm.runner.sandbox.user` gives nobody a view in which it reaches this Python and locm."""
    import shutil
    import tempfile

    if os.geteuid() != 0:
        pytest.skip("not run by root: already run as a user, or cannot run anything as nobody")
    home = Path(tempfile.mkdtemp(prefix="locm-kept-nobody-"))
    home.chmod(0o777)  # nobody's pytest makes its temporary folders here
    try:
        argv = as_user([sys.executable, "-m", "pytest", str(Path(__file__)), "-p", "no:cacheprovider", "-rfEs",
                        "-k", "not as_nobody", "--basetemp", str(home / "pytest")], "nobody", extra=(str(ROOT),))
    except RunAsError as exc:
        shutil.rmtree(home)
        pytest.skip(f"cannot run as nobody here: {exc}")
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)})
    finally:
        shutil.rmtree(home, ignore_errors=True)
    summary = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    assert r.returncode == 0 and re.fullmatch(r"\d+ passed, \d+ deselected in [\d.]+s( \(.*\))?", summary), \
        r.stdout[-4000:] + r.stderr[-2000:]


def test_a_bot_started_as_dot_slash_folder_slash_program_plays_in_a_kept_sandbox(keeping, tmp_path, monkeypatch):
    """A compiled contest bot started as ``./Coac/main`` from the folder above it: its views are made from the
    normalised path (``./Coac`` and ``Coac`` are one folder), so a game's fresh /tmp shows it once."""
    import shutil

    folder = tmp_path / "bots" / "Coac"
    folder.mkdir(parents=True)
    for name in ("botlib.py", "good_bot.py"):
        shutil.copy(BOTS / name, folder)
    main = folder / "main"
    main.write_text(f"#!{sys.executable}\n" + (BOTS / "good_bot.py").read_text())
    for path in (tmp_path, tmp_path / "bots", folder, *folder.iterdir()):
        path.chmod(0o755)
    monkeypatch.chdir(tmp_path / "bots")
    for seed in (1, 2):
        played = run_game("1.2", seed, ["./Coac/main", "greedy"], limits=TimeLimits.parse("x5"))
        assert [e.reason for e in played.game.log if type(e) is HardError] == [], played.extras.seats[0].stderr
