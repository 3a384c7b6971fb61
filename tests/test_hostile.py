"""The hostile-bot suite: bots that attack what is outside the protocol, each in a small sandboxed tournament
run by the command line as an organiser would (tests/bots/hostile_bot.py, one attack per run, against
good_bot.py), each checking that the attack got nothing: the attacker's result and reason are those of its
play, the opponent is unharmed (no error, no timeout, its games complete), the store holds every game and
`locm verify` finds them good, no process of either sandbox is left, the tournament is complete.

Run by root, the suite runs each attack twice: as root (each bot gets a uid of its own) and as the user
nobody (bubblewrap makes a user namespace; a tournament's kept sandboxes give each game its own), nobody
reaching this Python and locm through `locm.runner.sandbox.user` (a pyenv under /root is out of its reach otherwise).
Without a sandbox on the machine the sandboxed tests skip, saying why; the refusal of external bots without
a sandbox is tested everywhere.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from locm.runner.sandbox.bwrap import Sandbox, probe
from locm.runner.sandbox.kept import can_keep
from locm.runner.sandbox.user import RunAsError, as_user
from locm.store.eventstore import open_store

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
GOOD = shlex.join([sys.executable, str(BOTS / "good_bot.py")])
SANDBOX = probe()
needs_sandbox = pytest.mark.skipif(not SANDBOX.ok, reason=f"no sandbox here: {SANDBOX.reason}")
HOST_PIDNS = os.readlink("/proc/self/ns/pid")


def _nobody_can_run_locm() -> str | None:
    """Why the suite cannot also run as nobody here (None if it can): run by root, `locm.runner.sandbox.user` gives
    nobody a view in which it reaches this Python and locm (a pyenv under /root is out of its reach)."""
    if os.geteuid() != 0:
        return "not run by root: cannot run anything as nobody"
    try:
        r = subprocess.run(as_nobody([sys.executable, "-c", "import locm.cli.main"]), capture_output=True, text=True,
                           cwd="/", timeout=60, env=_env())
    except RunAsError as exc:
        return f"cannot run as nobody: {exc}"
    return None if r.returncode == 0 else f"nobody cannot run locm here: {r.stderr.strip()[-300:]}"


def as_nobody(argv: list[str]) -> list[str]:
    return as_user(argv, "nobody", extra=(str(ROOT),))


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@functools.lru_cache(maxsize=None)
def keeps(runner: str) -> bool:
    """Whether ``runner``'s tournaments keep sandboxes across games here (`locm.runner.sandbox.kept.can_keep`, which a
    runner that is not root tries once)."""
    if runner == "caller":
        return can_keep(Sandbox())
    code = "from locm.runner.sandbox.bwrap import Sandbox; from locm.runner.sandbox.kept import can_keep; print(can_keep(Sandbox()))"
    r = subprocess.run(as_nobody([sys.executable, "-c", code]), capture_output=True, text=True, cwd="/",
                       timeout=120, env=_env())
    return r.stdout.strip() == "True"


NOBODY = _nobody_can_run_locm()
RUNNERS = [pytest.param("caller", id="as-root" if os.geteuid() == 0 else "as-user"),
           pytest.param("nobody", id="as-nobody", marks=pytest.mark.skipif(NOBODY is not None, reason=str(NOBODY)))]


class Run:
    """One tournament of a hostile bot against good_bot.py: the command's result and the stored games."""

    def __init__(self, tmp: Path, runner: str, attack: str, *args: str, extra=(), games: int = 2) -> None:
        self.dir = tmp
        self.db = tmp / "t.db"
        self.hostile = shlex.join([sys.executable, str(BOTS / "hostile_bot.py"), attack, *args])
        self.agents = [self.hostile, GOOD]
        self.result = locm(runner, "tournament", "--agents", *self.agents, "--games", str(games), "--db",
                           str(self.db), "-j", "1", "--timeouts", "x5", *extra, cwd=tmp)
        assert self.result.returncode == 0, self.result.stderr[-2000:]
        with open_store(self.db, readonly=True) as store:
            self.records = list(store.games())
        self.games = games

    def stderr_of(self, agent: str) -> str:
        return "".join(r.seats[s].stderr for r in self.records for s in (0, 1)
                       if r.agents[s] == agent)

    def said(self, what: str) -> list[str]:
        """What the hostile bot reported about ``what`` (one entry per game)."""
        return re.findall(rf"hostile: {re.escape(what)}: (.*)", self.stderr_of(self.hostile))

    def assert_sound(self, reason: str | None = None) -> None:
        """The tournament complete, the store verified, the opponent unharmed, the attacker's games ended by
        ``reason`` (None: by play, no hard error), nothing of either sandbox left."""
        assert f"{self.games} of {self.games} Legends of Code and Magic games in" in self.result.stdout, self.result.stdout
        assert len(self.records) == self.games
        v = locm("caller", "verify", "--db", str(self.db), cwd=self.dir)
        assert v.returncode == 0 and f"{self.games} games checked: {self.games} good, 0 bad" in v.stdout, v.stdout
        for r in self.records:
            h = 0 if r.agents[0] == self.hostile else 1
            assert not r.seats[1 - h].error and not r.seats[1 - h].timeout, "the opponent was harmed"
            if reason is None:
                assert not r.seats[h].error and r.reason == "health", (r.reason, r.seats[h].stderr)
            else:
                assert r.winner == 1 - h and r.reason == "hard_error"
            meta = json.loads(r.meta)
            assert meta["sandbox"]["tool"].startswith("bwrap") and meta["sandbox"]["network"] is False
            for s in (0, 1):
                ns = re.search(r"pidns (\S+)", r.seats[s].stderr).group(1)
                assert ns != HOST_PIDNS, "each bot runs in a PID namespace of its own"
                left = in_namespace(ns)  # (a namespace's number is reused once it is gone: say whose they are)
                assert not left, f"processes left in a sandbox: {[(p, _cmdline(p)) for p in left]}"
        assert f"bots: {self.games} games sandboxed (bwrap" in self.result.stdout


def locm(runner: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "locm.cli.main", *args]
    return subprocess.run(as_nobody(argv) if runner == "nobody" else argv, capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=_env())


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:300]
    except OSError as exc:
        return exc.strerror


def in_namespace(pidns: str) -> list[int]:
    """The live processes of a game's PID namespace. A kept sandbox's launcher is PID 1 of its sandbox's
    namespace, never of a game's: one found under a game's number is a later sandbox's (the kernel reuses a
    namespace's number once it is gone; the machine's other test runs make sandboxes too)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") == pidns:
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if state not in "ZX" and "/.locm-launcher.py" not in _cmdline(int(entry)):
                    found.append(int(entry))
        except OSError:
            continue
    return found


@pytest.fixture
def box(tmp_path_factory, request):
    """A folder for the store that the runner (root or nobody) can write."""
    path = Path(tempfile.mkdtemp(prefix="locm-hostile-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# --- the attacks --------------------------------------------------------------------------------------------


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_bot_cannot_find_or_touch_the_store(box, runner):
    run = Run(box, runner, "store")
    run.assert_sound()
    assert run.said("store paths seen") == ["none", "none"]  # no host /proc: no ancestor's command line


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_a_bot_cannot_signal_its_opponent_or_anything_else(box, runner, sig):
    run = Run(box, runner, "signals", sig)
    run.assert_sound()
    # it sees nothing but itself and its sandbox's first process (pid 1), which ignores signals from inside
    # its namespace (run by root, it belongs to root and the signal is refused)
    assert set(run.said("signalled")) <= {"none", "[1]"}


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGSTOP"])
def test_a_bot_cannot_kill_or_stop_its_worker(box, runner, sig):
    run = Run(box, runner, "worker", sig)
    run.assert_sound()
    # its parent is its sandbox's first process (pid 1): run by root it belongs to root (refused), else it
    # ignores signals from inside its namespace
    assert set(run.said("parent signalled")) <= {"1", "Operation not permitted"}


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_bot_reads_nothing_of_the_host_and_reaches_no_network(box, runner):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0)
    try:
        run = Run(box, runner, "snoop", str(listener.getsockname()[1]))
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody called
    finally:
        listener.close()
    run.assert_sound()
    assert run.said("read /etc/shadow") == ["No such file or directory"] * 2
    assert run.said("read /root/.bashrc") == ["No such file or directory"] * 2
    assert run.said(f"read {BOTS / 'good_bot.py'}") == ["Permission denied"] * 2  # its opponent, beside it
    assert run.said(f"read {BOTS / 'slow_bot.py'}")[0].endswith("bytes")  # its own folder: shown, read-only
    assert run.said("connect") == ["Connection refused"] * 2


@needs_sandbox
def test_the_network_is_given_only_when_asked_and_the_standings_say_so(box):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        run = Run(box, "caller", "snoop", str(listener.getsockname()[1]), extra=["--bot-network"])
    finally:
        listener.close()
    assert run.said("connect") == ["connected"] * 2
    assert "bots: 2 games sandboxed (bwrap" in run.result.stdout and "NETWORK ON" in run.result.stdout
    assert all(json.loads(r.meta)["sandbox"]["network"] is True for r in run.records)
    assert "network: ON (--bot-network)" in run.result.stderr


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_bot_cannot_grow_past_its_memory_limit(box, runner):
    run = Run(box, runner, "memory", extra=SLOW_MEMORY)
    run.assert_sound()
    if counts_memory(runner):  # the kernel kills the child for its bot's cgroup; the bot plays on
        assert run.said("child allocated") == [], run.stderr_of(run.hostile)
    else:  # RLIMIT_DATA refuses the child's allocation
        assert run.said("child allocated") == ["MemoryError"] * 2  # 1.25 GB asked, 768 MB allowed


SLOW_MEMORY = ("--timeouts", "x30")
"""Filling 768 MB until the kernel's OOM killer ends it took 2.8 s on this project's loaded 2-core machine
(load 17): more than the first turn's 5 s at x5 leaves room for."""


@functools.lru_cache(maxsize=None)
def counts_memory(runner: str) -> bool:
    """Whether ``runner``'s bots get a cgroup of their own here (`locm.runner.sandbox.cgroup`)."""
    code = "from locm.runner.sandbox import cgroup; print(cgroup.available())"
    argv = [sys.executable, "-c", code]
    r = subprocess.run(as_nobody(argv) if runner == "nobody" else argv, capture_output=True, text=True, cwd="/",
                       timeout=120, env=_env())
    return r.stdout.strip() == "True"


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("attack", ["shared", "memfd"])
def test_memory_the_kernel_counts_is_limited_and_the_bot_loses_by_its_memory_limit(box, runner, attack):
    """1 GB held through a shared mapping or a memory file, which RLIMIT_DATA does not count, against the
    default 768 MB: the bot's cgroup counts it, the kernel kills the bot, the game says why."""
    if not counts_memory(runner):
        pytest.skip(f"no writable cgroup for {runner} here (RLIMIT_DATA is the fallback: locm sandbox check)")
    run = Run(box, runner, attack, extra=SLOW_MEMORY)
    run.assert_sound(reason="hard_error")
    assert run.said(attack) == []  # killed before it held it all
    with open_store(run.db, readonly=True) as store:
        reasons = [e.reason for r in run.records for e in store.events(r.game_id) if type(e).__name__ == "HardError"]
    assert reasons == ["memory limit"] * run.games


@needs_sandbox
@pytest.mark.parametrize("attack", ["shared", "memfd"])
def test_a_bot_in_a_sandbox_of_its_own_loses_by_its_memory_limit_too(box, attack):
    """`locm play`: a sandbox of its own per bot (not kept), put in its cgroup before the bot runs."""
    if not counts_memory("caller"):
        pytest.skip("no writable cgroup here (RLIMIT_DATA is the fallback: locm sandbox check)")
    hostile = shlex.join([sys.executable, str(BOTS / "hostile_bot.py"), attack])
    r = locm("caller", "play", "--seed", "1", *SLOW_MEMORY, "--p0", hostile, "--p1", "greedy", cwd=box)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"hard error: player 0 ({hostile}): memory limit" in r.stdout + r.stderr


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_setsid_child_that_forks_forever_with_no_environment_dies_with_the_sandbox(box, runner):
    run = Run(box, runner, "escape")
    run.assert_sound()  # checks that nothing is left in either PID namespace
    assert run.said("escape") == ["started"] * 2


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_fork_bomb_stops_at_the_process_limit(box, runner):
    run = Run(box, runner, "forkbomb")
    run.assert_sound()
    for line in run.said("forkbomb"):
        n = int(line.split()[0])
        assert n < 128 and line.endswith("then Resource temporarily unavailable"), line


@needs_sandbox
def test_a_child_spinning_on_the_cpu_does_not_outlive_the_game(box):
    run = Run(box, "caller", "cpu")
    run.assert_sound()
    assert run.said("cpu") == ["spinning child started"] * 2


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_bot_writes_only_its_own_small_tmp(box, runner):
    run = Run(box, runner, "disk")
    run.assert_sound()
    assert run.said("tmp") == ["64 MB, then No space left on device"] * 2
    assert run.said(f"write {BOTS / 'planted.py'}") == ["Read-only file system"] * 2
    assert run.said("write /planted") == ["Read-only file system"] * 2
    assert not (BOTS / "planted.py").exists()


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_nothing_of_a_game_reaches_the_bots_next_game(box, runner):
    """A worker keeps each bot's sandbox for its next games (`locm.runner.sandbox.kept`): what a bot leaves in one game
    (files in /tmp and /dev/shm, a SysV segment, a child, a TIME_WAIT socket; keys are refused in every
    sandbox) is not there in the next, where it runs as another uid (run by a user: in a user namespace of
    that game's own)."""
    run = Run(box, runner, "leave", games=4)
    run.assert_sound()
    assert run.said("found") == ["nothing"] * 4
    assert run.said("left") == ["/tmp/left-by-hostile, /dev/shm/left-by-hostile, shm segment, no key (Operation not "
                                "permitted), no session key (Operation not permitted), time_wait, child"] * 4
    who = [line.split() for line in run.said("who")]
    assert len({w[1] for w in who}) == 4  # a uid of each game's own
    if keeps(runner):
        assert len({w[3] for w in who}) == 1  # and yet one sandbox, kept for the bot's four games
        assert "kept per bot across games" in run.result.stdout


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_a_bot_cannot_reach_its_launcher_and_its_games_first_process_ignores_it(box, runner, sig):
    """The launcher of a kept sandbox is out of the bot's reach: in a PID namespace of the sandbox's (the
    bot's game has its own, under it), root's. The bot sees only its game's first process (PID 1 of the
    game, of the bot's uid, not dumpable) and itself, and nothing else when it tries every pid. A signal
    to that process is ignored (PID 1 receives none its namespace sends it without a handler), tracing
    and reading it are refused; lowering its limits is allowed (the same uid) and could only end the bot's
    own game. The game is played, and the next one runs in the same sandbox.

    Run by a user, that first process is in the game's own user namespace, and its /proc files belong to the
    launcher's uid (0 of the sandbox's namespace: a process that is not dumpable has its files owned by the
    root of the namespace its memory was made in), which is the runner's on the host, as the bot's is: the
    bot may list /proc/1/fd (its numbers: the first process keeps no descriptor), but reading its memory
    or environment still needs the right to trace it, which the bot has not (no capability there)."""
    if not keeps(runner):
        pytest.skip(f"sandboxes are not kept across games here for this runner ({runner}): "
                    "see `locm sandbox check`")
    run = Run(box, runner, "launcher", sig)
    run.assert_sound()
    assert run.said("signal 1") == ["delivered"] * 2  # and ignored: the game goes on (assert_sound)
    assert run.said("ptrace 1") == ["Operation not permitted"] * 2
    for what in ("environ", "mem"):
        assert run.said(f"/proc/1/{what}") == ["Permission denied"] * 2
    as_root = runner == "caller" and os.geteuid() == 0
    assert run.said("/proc/1/fd") == ["Permission denied" if as_root else "0 entries"] * 2
    assert run.said("processes") == ["[1]"] * 2
    assert run.said("kill -1") == ["No such process"] * 2
    assert len({line.split()[3] for line in run.said("who")}) == 1


# --- no sandbox, no untrusted run -------------------------------------------------------------------------------


def test_without_a_sandbox_external_bots_are_refused_in_one_line(tmp_path):
    """No bwrap on the PATH: a tournament with a bot is refused before anything is made, saying the fix."""
    env = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "locm.cli.main", "tournament", "--agents", GOOD, "greedy", "--games", "2",
                        "--db", str(tmp_path / "t.db")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("locm: error: cannot sandbox external bots: bubblewrap (bwrap) is not installed")
    assert "apt-get install bubblewrap" in r.stderr and "--no-sandbox" in r.stderr
    assert not (tmp_path / "t.db").exists()
    builtin = subprocess.run([sys.executable, "-m", "locm.cli.main", "play", "--seed", "1"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert builtin.returncode == 0, builtin.stderr  # built-in agents need no sandbox
    check = subprocess.run([sys.executable, "-m", "locm.cli.main", "sandbox", "check"], capture_output=True, text=True,
                           env=env, cwd=tmp_path)
    assert check.returncode == 2 and check.stderr.startswith("locm: error: cannot sandbox external bots: bubblewrap")
    assert len(check.stderr.strip().splitlines()) == 1 and check.stdout == "", check.stderr


def test_no_sandbox_runs_bots_unconfined_saying_so_every_time_and_in_each_game(tmp_path):
    args = ["tournament", "--agents", GOOD, "greedy", "--games", "2", "--db", str(tmp_path / "t.db"),
            "--no-sandbox"]
    r = locm("caller", *args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "locm: warning: sandbox: NONE (--no-sandbox): bots run unconfined" in r.stderr
    assert "bots: 2 games UNSANDBOXED (--no-sandbox)" in r.stdout
    with open_store(tmp_path / "t.db", readonly=True) as store:
        assert [json.loads(g.meta)["sandbox"] for g in store.games()] == [{"tool": "none"}] * 2


@pytest.mark.parametrize("args, message", [
    (["--bot-limits", "mem=lots"], "--bot-limits 'mem=lots': mem: expected a size like 768m or 1g or none"),
    (["--bot-limits", "procs=0"], "--bot-limits 'procs=0': procs: expected at least 1"),
    (["--bot-limits", "gpu=1"], "--bot-limits 'gpu=1': unknown limit 'gpu'"),
    (["--bot-limits", "tmp=none"], "--bot-limits 'tmp=none': tmp cannot be none"),
    (["--no-sandbox", "--bot-network"], "locm tournament: error: --bot-limits, --bot-network and --bot-bind"),
    (["--bot-bind", "/"], "--bot-bind '/': the whole file system is never shown to bots"),
    (["--bot-bind", "/etc"], "--bot-bind '/etc': /etc is the system folder /etc, never shown to bots"),
    (["--bot-bind", "/etc/shadow"], "--bot-bind '/etc/shadow': /etc/shadow is inside the system folder /etc"),
    (["--bot-bind", "/proc/self"], "--bot-bind '/proc/self': /proc/self is inside the system folder /proc"),
    (["--bot-bind", "/sys"], "--bot-bind '/sys': /sys is the system folder /sys"),
    (["--bot-bind", "/dev"], "--bot-bind '/dev': /dev is the system folder /dev"),
    (["--bot-bind", "/usr/lib"], "--bot-bind '/usr/lib': /usr/lib is inside the system folder /usr"),
    (["--bot-bind", "/home"], "--bot-bind '/home': /home is too broad a folder to show to bots"),
])
def test_bad_sandbox_options_are_one_line(tmp_path, args, message):
    r = locm("caller", "tournament", "--agents", GOOD, "greedy", "--games", "2", "--db", str(tmp_path / "t.db"),
             *args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "t.db").exists()


@needs_sandbox
@pytest.mark.parametrize("runner", RUNNERS)
def test_sandbox_check_tries_every_limit_live(runner):
    r = locm(runner, "sandbox", "check", "--bot-limits", "procs=32,files=64", cwd=Path("/"))
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    names = ["namespaces", "identity", "processes", "network", "files", "keyrings", "user namespaces",
             "system calls", "host load", "read-only", "mem=768m", "cpu=60", "procs=32", "files=64", "fsize=64m",
             "tmp=64m", "dies with parent"]
    if keeps(runner):  # and again in a sandbox kept across games, as a tournament's workers run bots
        names += [f"kept {name}" for name in names] + ["kept game to game"]
    for name in names:
        assert any(re.match(rf"  ok +{re.escape(name)} ", line) for line in lines), (name, r.stdout)
    assert re.search(r"  -- +vmem=none +not limited", r.stdout)
    if counts_memory(runner):
        assert re.search(r"  ok +mem=768m +holding 832m in a shared mapping: killed by the kernel \(cgroup v", r.stdout)
    else:
        assert re.search(r"  -- +memory counted +per process only \(RLIMIT_DATA\): no writable cgroup", r.stdout)
    assert re.search(r"  ok +system calls +io_uring_setup: Operation not permitted; userfaultfd: Operation not "
                     r"permitted; perf_event_open: Operation not permitted; bpf: Operation not permitted; "
                     r"clone\(CLONE_NEWUSER\): Operation not permitted", r.stdout)
    assert lines[-1] == f"{len(names)} of {len(names)} checks hold", r.stdout
    for line in lines:
        if re.match(r"  ok +(kept )?keyrings ", line):
            assert "keyctl: Operation not permitted; add_key: Operation not permitted" in line, line
    if keeps(runner):
        kept = next(line for line in lines if re.match(r"  ok +kept game to game ", line))
        for left in ("/tmp/locm-left", "/dev/shm/locm-left", "shm (made)", "time_wait (made)", "process (started)"):
            assert left in kept, kept
        assert "the next game in the same sandbox found nothing" in kept


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="a user's bots run as that user: their own files always read")
def test_a_bot_its_sandbox_cannot_read_is_refused_up_front(tmp_path):
    """Run by root, bots run as a uid of their own: a bot folder of mode 0700 is refused with the fix, in one
    line, before anything is played."""
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    shutil.copy(BOTS / "good_bot.py", folder)
    shutil.copy(BOTS / "botlib.py", folder)
    folder.chmod(0o700)
    r = locm("caller", "play", "--seed", "1", "--p0", shlex.join([sys.executable, str(folder / "good_bot.py")]),
             cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"its folder {folder} is not readable by others" in r.stderr and "chmod o+rx" in r.stderr
