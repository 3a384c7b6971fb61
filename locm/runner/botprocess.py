"""One bot's process, from its start to the proof that nothing of it is left (`BotProcess`); `locm.runner.bots`
plays turns through it.

A bot that exits, crashes, closes its output, or cannot start fails with a reason (`BotProcess.failure`): one
of `TIMEOUT`, `EXITED`, `FLOOD`, `NOT_UTF8` (set by the turn that reads its answer), ``crashed (exit N)``,
``crashed (signal NAME)``, ``memory limit`` (it ended when its cgroup's memory reached the limit:
`locm.runner.sandbox.cgroup`), `CLOSED` or ``cannot start (...)``. The last `STDERR_KEEP` bytes of its stderr
are kept (`BotProcess.stderr`). Its environment tells it the game's rules (`RULES_VAR`).

By default a bot runs in the sandbox (`locm.runner.sandbox.bwrap`: bubblewrap, its own PID, network, IPC and
mount namespaces, a read-only view of what its command needs, an unprivileged uid, resource limits). The
sandbox is started in a new session and killed with SIGKILL by `BotProcess.stop` at the end of every game,
whatever ended it (the game runner calls it in a ``finally``); everything the bot started is in its PID
namespace and dies with it, and `stop` returns once the namespace's first process is gone. The sandbox
also dies with the process that started it (``--die-with-parent``). In a tournament's workers the sandbox is
kept for the bot's next game (`locm.runner.sandbox.kept`, run by root or, where it works, by a user): `start`
asks its launcher to start the bot afresh, `kill` and `stop` to end the game and confirm that nothing of it is
left. A sandbox ends with the bot's exit status, or 128 + N when a signal N killed the bot (as a shell
reports it): such a status is recorded as ``crashed (signal NAME)``.

Unsandboxed (`Sandbox.enabled` False, ``--no-sandbox``: only for bots one trusts), the bot runs as the
caller, in a new session, killed with SIGKILL with its process group; it dies when its parent does, and a
descendant that leaves the group is found by its token and killed (`locm.runner.processes`).

Bots that are running are listed in a module-level set so that a worker that is told to die can kill them
all (`kill_all`).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
import uuid
from typing import Any

import msgspec

from locm.runner.processes import (TOKEN_VAR, become_subreaper, carriers, exec_failure, reap_escaped, unconfined,
                                   wait_gone)
from locm.runner.sandbox import kept as sandbox_kept
from locm.runner.sandbox import cgroup as sandbox_cgroup
from locm.runner.sandbox.bwrap import Sandbox, bot_environment, build, child_pid, wait_child_pid

LINE_LIMIT = 64 * 1024
"""Bytes an answer line may have; more output than this without a newline is an output flood."""
STDERR_KEEP = 16 * 1024
"""Bytes of a bot's stderr kept for the game record (the tail). The store keeps at most 8192 characters."""
READ_CHUNK = 64 * 1024
EXIT_GRACE_S = 0.5
"""How long a bot whose stdout closed is given to exit before it is said to have closed its output."""

TIMEOUT = "timeout"
EXITED = "exited"
FLOOD = "output flood"
NOT_UTF8 = "not UTF-8"
CLOSED = "closed its output"
RULES_VAR = "LOCM_RULES"
"""The environment variable that tells a bot the game's rules: the rules value its game was created with, as
JSON (LOCM's ``lane_size``, ``deck_size``, ``max_copies``, ...), since the protocol never says them; a bot under
the official referee finds it unset and plays the official values."""

_LIVE: set["BotProcess"] = set()


def kill_all() -> None:
    """Kill the process group of every bot still running in this process, and every kept sandbox (for a
    worker told to die)."""
    for bot in list(_LIVE):
        if bot.kept is None:
            bot.kill()
    sandbox_kept.kill_all()


def live_pids() -> set[int]:
    """The pids of the bots running in this process (their own `subprocess.Popen` reaps them)."""
    return {b.proc.pid for b in _LIVE if b.proc is not None and b.proc.pid is not None}


class _KeptPipes:
    """This side of a bot's pipes in a kept sandbox, where `BotProcess` has a `subprocess.Popen` otherwise."""

    pid = None
    returncode = None

    def __init__(self, stdin: int, stdout: int, stderr: int) -> None:
        self.stdin = open(stdin, "wb", buffering=0)
        self.stdout = open(stdout, "rb", buffering=0)
        self.stderr = open(stderr, "rb", buffering=0)


class BotProcess:
    """An external program's process for one game (see the module docstring): started, killed, stopped, and how it
    ended; the turns are `locm.runner.bots.BotAgent`'s."""

    def __init__(self, command: str, argv: list[str], *, sandbox: Sandbox | None = None,
                 line_limit: int = LINE_LIMIT, stderr_keep: int = STDERR_KEEP) -> None:
        self.command = self.name = command
        self.argv = argv
        self.sandbox = Sandbox() if sandbox is None else sandbox
        self.sandbox_pid: int | None = None  # the host pid of the sandbox's first process, once known
        self._info = -1  # where bwrap writes that pid
        self._block = -1  # a prepared sandbox waits for a byte here before it runs the bot
        self.line_limit = line_limit
        self.stderr_keep = stderr_keep
        self.proc: subprocess.Popen | None = None
        self.token = ""  # set at start: marks the bot's process and its descendants (TOKEN_VAR)
        self._killed: set[int] = set()  # descendants outside the group killed by `kill`, to be reaped
        self.failure: str | None = None  # why this bot lost outside the protocol, once it has
        self.timed_out = False
        self.turns = 0  # the answers it gave (its turns)
        self._sel: selectors.BaseSelector | None = None
        self._err = bytearray()  # the tail of stderr
        self._err_total = 0
        self.kept: sandbox_kept.KeptSandbox | None = None  # the kept sandbox running this game, if one does
        self.cgroup: sandbox_cgroup.BotCgroup | None = None  # the bot's own cgroup (a sandbox of its own)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    # --- lifecycle ----------------------------------------------------------------------------------------

    def prepare(self, rules: Any = None) -> None:
        """Make the bot's sandbox ready without running the bot (bubblewrap's ``--block-fd``: it waits before
        running the command), so that `start` only has to let it go: a worker prepares the next game's
        sandboxes while it plays the current one. Unconfined, or where sandboxes are kept across games (a
        tournament worker's, `locm.runner.sandbox.kept`: starting a game there is cheap), nothing is done before
        `start`."""
        if sandbox_kept.keeping(self.sandbox):
            return
        if self.proc is None and self.failure is None and self.sandbox.enabled:
            self._spawn(rules, blocked=True)

    def start(self, rules: Any = None) -> None:
        """Start the process (once), with the game's `rules` in its environment (`RULES_VAR`), or let a
        prepared sandbox (made with the same rules) run it. A program that cannot be started makes the bot
        lose at its first turn."""
        if self.proc is None and self.failure is None:
            self._spawn(rules, blocked=False)
        if self._block >= 0:
            try:
                os.write(self._block, b"\n")
            except OSError:  # the sandbox is gone already: the first turn finds out how
                pass
            os.close(self._block)
            self._block = -1

    def _spawn(self, rules: Any, blocked: bool) -> None:
        become_subreaper()  # a sandbox's first process outliving bwrap, or an unconfined orphan, is reaped here
        if sandbox_kept.keeping(self.sandbox):
            self._spawn_kept(rules)
            return
        if self.sandbox.enabled:
            self.cgroup = sandbox_cgroup.make(self.sandbox.limits.mem, self.sandbox.limits.procs)
        launch = build(self.argv, self.sandbox, counted=self.cgroup is not None) if self.sandbox.enabled else None
        told = {RULES_VAR: msgspec.json.encode(rules).decode()} if rules else {}
        gate = -1
        if launch is None:
            self.token = uuid.uuid4().hex
            argv, env, fds = unconfined(self.argv), {**os.environ, TOKEN_VAR: self.token, **told}, ()
        else:
            argv, env, fds = launch.argv, {**launch.env, **told}, launch.pass_fds
            if blocked or self.cgroup is not None:  # the bot runs once its sandbox is in its cgroup
                gate, self._block = os.pipe()
                argv = argv[:1] + ["--block-fd", str(gate)] + argv[1:]
                fds = fds + (gate,)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, bufsize=0, start_new_session=True, env=env,
                                         pass_fds=fds)
        except OSError as exc:
            self.failure = f"cannot start ({exc.strerror or exc})"
            if launch is not None:
                launch.close()
            self._remove_cgroup()
            return
        finally:
            if gate >= 0:
                os.close(gate)
        if launch is not None:
            launch.started()
            self._info = launch.info
        _LIVE.add(self)
        if self.cgroup is not None:
            self._enter_cgroup(release=not blocked)
        sel = self._sel = selectors.DefaultSelector()
        for stream, tag in ((self.proc.stdout, "out"), (self.proc.stderr, "err")):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, tag)
        os.set_blocking(self.proc.stdin.fileno(), False)

    def _enter_cgroup(self, release: bool) -> None:
        """Move the sandbox's first process (waiting on ``--block-fd``: the bot has not run) into the bot's
        cgroup, then let it go on (``release``) or leave that to `start`. A sandbox that does not say its pid
        in time, or that cannot be moved, does not run: the bot cannot start."""
        self.sandbox_pid = wait_child_pid(self._info, 5.0)
        try:
            if self.sandbox_pid is None:
                raise OSError("bubblewrap did not say its sandbox's pid")
            self.cgroup.add(self.sandbox_pid)
        except OSError as exc:
            self.failure = f"cannot start (its cgroup: {exc.strerror or exc})"
            os.close(self._block)
            self._block = -1
            self.kill()
            return
        if release:
            os.write(self._block, b"\n")
            os.close(self._block)
            self._block = -1

    def _spawn_kept(self, rules: Any) -> None:
        """Start the bot for this game in a kept sandbox (`locm.runner.sandbox.kept`); a sandbox whose launcher is gone
        is replaced once."""
        env = bot_environment(self.sandbox.limits)
        if rules:
            env[RULES_VAR] = msgspec.json.encode(rules).decode()
        for attempt in (1, 2):
            try:
                box = sandbox_kept.acquire(self.argv, self.sandbox, os.getcwd())
                fds = box.start(env)
            except OSError as exc:
                if attempt == 1 and isinstance(exc, sandbox_kept.KeptSandboxError):
                    sandbox_kept.release(box, clean=False)
                    continue
                self.failure = f"cannot start ({exc.strerror or exc})"
                return
            break
        self.kept = box
        self.proc = _KeptPipes(*fds)
        _LIVE.add(self)
        sel = self._sel = selectors.DefaultSelector()
        for stream, tag in ((self.proc.stdout, "out"), (self.proc.stderr, "err")):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, tag)
        os.set_blocking(self.proc.stdin.fileno(), False)

    def kill(self) -> None:
        """SIGKILL the bot's process group (the sandbox, or the bot and whatever it started); safe to call
        again. In a kept sandbox: its launcher is told to kill everything of the game."""
        if self.kept is not None:
            self.kept.kill()
        if isinstance(self.proc, _KeptPipes):
            return
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        # bubblewrap says the namespace's first process just after it makes it: killed before that, bubblewrap
        # could leave it running on its own (bwrap's --die-with-parent is set by the child: a race), so wait
        # (bounded) for the word, and kill that process itself
        self._learn_sandbox_pid(wait=2.0)
        if self.sandbox_pid is not None:  # the namespace's first process: everything in it dies with it
            try:
                os.kill(self.sandbox_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the leader is not reaped yet, so its group id is still ours
        except (ProcessLookupError, PermissionError):
            pass
        if self.token:
            for pid in carriers(f"{TOKEN_VAR}={self.token}".encode()):  # those that left the group
                try:
                    os.kill(pid, signal.SIGKILL)
                    self._killed.add(pid)
                except OSError:
                    pass

    def stop(self) -> None:
        """Kill the process group, reap the bot, keep the rest of its stderr, close the pipes; sandboxed, wait
        until the sandbox's PID namespace is gone (everything in it dies with it)."""
        proc = self.proc
        if proc is None:
            return
        if isinstance(proc, _KeptPipes):
            if self.kept is not None:
                self._stop_kept()
            return
        self.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that SIGKILL cannot end
            pass
        self._drain_stderr()
        _LIVE.discard(self)
        if self.token:
            reap_escaped(self.token, self._killed, known=live_pids())
        else:
            self._learn_sandbox_pid()
            if self.sandbox_pid is not None:
                wait_gone(self.sandbox_pid)
        self._remove_cgroup()
        for fd in (self._info, self._block):
            if fd >= 0:
                os.close(fd)
        self._info = self._block = -1
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        _LIVE.discard(self)

    def _stop_kept(self) -> None:
        """End the game in the kept sandbox: wait until its launcher says nothing of it is left (the sandbox is
        then kept for the bot's next game) or destroy the sandbox; keep the rest of the stderr."""
        box, self.kept = self.kept, None
        clean = box.finish()
        sandbox_kept.release(box, clean)
        self._drain_stderr()
        _LIVE.discard(self)
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def _learn_sandbox_pid(self, wait: float = 0.0) -> None:
        """Read the sandbox's first process's host pid from bubblewrap's info pipe, once it is there (waiting up
        to ``wait`` seconds for it)."""
        if self.sandbox_pid is None and self._info >= 0:
            if wait > 0:
                with selectors.DefaultSelector() as sel:
                    sel.register(self._info, selectors.EVENT_READ)
                    sel.select(wait)
            self.sandbox_pid = child_pid(self._info)

    close = stop

    @property
    def stderr(self) -> str:
        """The kept tail of the bot's stderr, as text (undecodable bytes replaced)."""
        text = self._err.decode("utf-8", "replace")
        cut = self._err_total - len(self._err)
        return f"[... {cut} bytes of stderr cut]\n{text}" if cut else text

    # --- a turn -------------------------------------------------------------------------------------------

    def _ended(self) -> None:
        """Its stdout closed (or stdin broke): find out whether it exited and how, without reaping it."""
        if self.failure is not None:
            return
        if self.kept is not None:
            self._ended_kept()
            return
        pid, waited = self.proc.pid, time.monotonic() + EXIT_GRACE_S
        while True:
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is not None and info.si_pid:
                break
            if time.monotonic() >= waited:
                self.failure = self._memory_or(CLOSED)
                return
            time.sleep(0.005)
        self._say_status(info.si_code, info.si_status)

    def _say_status(self, si_code: int, status: int) -> None:
        """The failure of a bot whose process ended with ``status`` (``si_code``: exited or killed)."""
        if si_code == os.CLD_EXITED and status in (126, 127) and self.turns == 0:
            self._drain_stderr()
            said = exec_failure(bytes(self._err))
            if said:  # the sandbox (or the unconfined wrapper) could not run the bot's program
                self.failure = f"cannot start ({said})"
                return
        if si_code == os.CLD_EXITED and self.sandbox.enabled and 128 < status < 128 + 65:
            status, killed = status - 128, True  # the sandbox reports a bot killed by signal N as 128 + N
        else:
            killed = si_code != os.CLD_EXITED
        memory = self._memory_or(None) if killed or status != 0 else None  # killed for it, or refused more
        if memory is not None:
            self.failure = memory
        elif not killed:
            self.failure = EXITED if status == 0 else f"crashed (exit {status})"
        else:
            try:
                name = signal.Signals(status).name
            except ValueError:
                name = str(status)
            self.failure = f"crashed (signal {name})"

    def _memory_or(self, failure: str | None) -> str | None:
        """`MEMORY_LIMIT` if the bot's cgroup reached its memory limit in this game, else ``failure`` (a bot
        the kernel is still killing for it may close its output before its end is said)."""
        cgroup = self.kept.cgroup if self.kept is not None else self.cgroup
        return sandbox_cgroup.MEMORY_LIMIT if cgroup is not None and cgroup.memory_reached() else failure

    def _ended_kept(self) -> None:
        """`_ended` in a kept sandbox: its launcher says how the game ended (as a sandbox reports it)."""
        status = self.kept.exit_status(time.monotonic() + EXIT_GRACE_S)
        if self.kept.failed is not None:
            self.failure = f"cannot start (its sandbox: {self.kept.failed})"
        elif status is None:
            self.failure = self._memory_or(CLOSED)
        else:
            self._say_status(os.CLD_EXITED, status)

    def _keep_stderr(self, chunk: bytes) -> None:
        self._err_total += len(chunk)
        self._err += chunk
        if len(self._err) > self.stderr_keep:
            del self._err[:len(self._err) - self.stderr_keep]

    def _drain_stderr(self) -> None:
        """Read what is left in the stderr pipe (the process is dead; a grandchild may still hold it)."""
        fd = self.proc.stderr.fileno() if self.proc.stderr and not self.proc.stderr.closed else -1
        for _ in range(64):
            if fd < 0:
                return
            try:
                chunk = os.read(fd, READ_CHUNK)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._keep_stderr(chunk)


__all__ = ["BotProcess", "kill_all", "live_pids", "RULES_VAR", "LINE_LIMIT", "STDERR_KEEP", "TIMEOUT", "EXITED",
           "FLOOD", "NOT_UTF8", "CLOSED"]
