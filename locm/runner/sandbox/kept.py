"""A sandbox kept for one bot across its games (a tournament worker's): bubblewrap sets the view up once, and a
launcher inside it (`locm.runner.sandbox.launcher`) starts the bot afresh for each game, in new mount, PID, IPC and
network namespaces of the game's own, as a fresh uid (run by a user: in a user namespace of the game's own),
with a fresh empty ``/tmp``, and kills everything of the game at its end, confirming that nothing but itself
is left before the next game.

Why (measured, ``benchmarks/profile_sandbox.py`` and ``benchmarks/README.md``): a sandbox of its own costs
a bot start about 11 ms of CPU on this project's 2-core machine -- bubblewrap 6-8 ms (each of its ~25
read-only binds re-reads ``/proc/self/mountinfo``, about 0.2 ms a bind; its new network namespace and that
namespace's teardown in a kernel thread about 1 ms), ``setpriv`` about 2 ms and ``prlimit`` about 1 ms
(each a dynamically linked program started for one system call or two). A tournament of a fast bot is bound
by CPU (two interpreters start in each game), so two such starts a game made it 0.80x as fast as unconfined;
preparing the next game's sandboxes during the current one (``--block-fd``) hid nothing, since the CPU was
the limit. A kept sandbox pays bubblewrap once per bot and worker; a game's start is one fork of the
launcher, ``unshare``, a few mounts and ``posix_spawn`` of the bot (about 3 ms of CPU more than unconfined).

What stays as in a sandbox of its own: the view (`locm.runner.sandbox.bwrap.view_args`, plus, read-only, the runner's
Python installation and the launcher's file, which the launcher needs), the limits (``setrlimit`` in the
game's first process, inherited by the bot, as ``prlimit`` set them), the environment (sent for each game),
an unprivileged uid of its own (fresh for each game), no capability, ``no_new_privs``, the seccomp filter
(`locm.runner.sandbox.filter`), ``--die-with-parent``.

Run by root, the launcher is root and each game's uid is one of its own on the host. Run by a user, there is
one uid on the host, the runner's: the launcher is root of bubblewrap's user namespace (which maps it), and
each game's first process makes a user namespace of the game's own, mapping the game's fresh uid onto it,
where it drops every capability and forbids further user namespaces. The bot then shares the runner's kuid,
as it does in a sandbox of its own run by a user; why that is safe, and which per-user kernel counters it
still shares, is worked out in `locm.runner.sandbox.launcher`. `can_keep` says whether sandboxes are kept: always
when run by root; run by a user, where a kept sandbox's game can make its user namespace (`works_as_user`,
tried once per process), else one sandbox per game as before.

A launcher that does not answer (stopped, killed, stuck) fails only its sandbox: the bot's game goes on or ends
as a bot's would (a killed sandbox kills the bot: ``crashed (signal SIGKILL)``, a few milliseconds later, once
the launcher's own exit is done; a stopped one starts no bot: ``timeout``); the sandbox is destroyed (bubblewrap
reaps the launcher only when nothing of its PID namespace is left) and the next game gets a new one. Kept sandboxes are pooled per
process (`acquire`, `release`), at most `MAX_IDLE` idle ones, all killed by `close_all` (and by
``--die-with-parent`` when their worker dies).
"""

from __future__ import annotations

import collections
import functools
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from locm.runner.sandbox import cgroup
from locm.runner.sandbox import filter as sandbox_filter
from locm.runner.sandbox.bwrap import (Sandbox, bot_environment, child_pid, group_text, host_load_faked,
                                      host_load_masked, passwd_text, probe,
                                      uid_for_bot, view_args, views_in_tmp, wait_child_pid)

LAUNCHER = Path(__file__).with_name("launcher.py")
LAUNCHER_IN_BOX = "/.locm-launcher.py"
CAPS = ("CAP_SYS_ADMIN", "CAP_SYS_CHROOT", "CAP_NET_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL")
"""The launcher's capabilities (root's, in the sandbox's namespaces): make a game's namespaces and mounts and
come back from them, bring the game's loopback up, drop the game to its uid (and empty the capability sets
the game inherits), end the game (its first process has the game's uid)."""
CAPS_AS_USER = ("CAP_SETFCAP",)
"""Run by a user, the launcher needs one more (in the sandbox's user namespace): a game's own user namespace may
map the launcher's uid, 0 of the sandbox's namespace, only if its maker had CAP_SETFCAP there (the kernel's
``verify_root_map``)."""
ANSWER_S = 5.0
"""How long a launcher has to answer a request (it gives up on a game's leftovers after 2 s itself)."""
MAX_IDLE = 8
ROOT_ONLY = ("root:x:0:0::/:/usr/sbin/nologin\n", "root:x:0:\n")
"""The sandbox's own passwd and group files: each game mounts its own over them, naming its uid."""
RLIMIT_NAMES = {"mem": "data", "cpu": "cpu", "procs": "nproc", "files": "nofile", "fsize": "fsize", "vmem": "as"}


class KeptSandboxError(OSError):
    """The kept sandbox cannot run a game (its launcher is gone or refused): the caller destroys it."""


def can_keep(policy: Sandbox) -> bool:
    """Whether bots under `policy` can have kept sandboxes here: sandboxed, and run by root or where a kept
    sandbox's launcher can give a game a user namespace of its own (`works_as_user`)."""
    return policy.enabled and (os.geteuid() == 0 or works_as_user())


@functools.lru_cache(maxsize=None)
def works_as_user() -> bool:
    """Run by a user: whether a kept sandbox works here (tried once per process: a kept sandbox runs ``true``
    as a game, which must exit 0 and leave the sandbox clean). Where the kernel or a security module refuses a
    game's nested user namespace, bots get a sandbox of their own per game, as before."""
    if not probe().ok:
        return False
    box = None
    try:
        box = KeptSandbox(["true"], Sandbox(), "/")
        fds = box.start(bot_environment())
        for fd in fds:
            os.close(fd)
        status = box.exit_status(time.monotonic() + 10)
        return status == 0 and box.failed is None and box.finish()
    except OSError:
        return False
    finally:
        if box is not None:
            box.destroy()


def runner_python() -> tuple[str, str]:
    """The runner's real Python interpreter and its installation folder (shown read-only to the launcher)."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def rlimits(policy: Sandbox, data: bool = True) -> list[tuple[str, int, int]]:
    """The game's rlimits as the launcher sets them: the same as `BotLimits.prlimit_args` (``data`` False: the
    game's memory is its cgroup's)."""
    lim = policy.limits
    out = [(RLIMIT_NAMES[k], v, v) for k, v in (("mem", lim.mem if data else None), ("procs", lim.procs),
                                                ("files", lim.files), ("fsize", lim.fsize), ("vmem", lim.vmem))
           if v is not None]
    if lim.cpu is not None:
        out.append(("cpu", lim.cpu, lim.cpu + 1))
    return out + [("core", 0, 0)]


class KeptSandbox:
    """One bubblewrap sandbox with its launcher, for one bot command under one policy, one game at a time."""

    def __init__(self, argv: list[str], policy: Sandbox, cwd: str, wrap: tuple[str, ...] = ()) -> None:
        self.argv, self.policy, self.cwd, self.wrap = list(argv), policy, cwd, tuple(wrap)
        self.key = key(argv, policy, cwd, wrap)
        self.games = 0
        self.exit: int | None = None  # the game's status, once the launcher said it
        self.cgroup: cgroup.BotCgroup | None = None  # its games' (`locm.runner.sandbox.cgroup`), one at a time
        self.failed: str | None = None  # why the game could not start, once said
        self._asked_kill = False
        self.sandbox_pid: int | None = None
        self.views_in_tmp = views_in_tmp(self.argv, policy, cwd)
        exe, prefix = runner_python()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ctl = ours
        args, fds = view_args(self.argv, policy, cwd, ROOT_ONLY[0], ROOT_ONLY[1], kept=True,
                              extra=((prefix, prefix), (str(LAUNCHER), LAUNCHER_IN_BOX)))
        self._info, info_w = os.pipe()
        fds += [info_w, theirs.fileno()]
        args += ["--info-fd", str(info_w), "--as-pid-1", "--cap-drop", "ALL"]
        for cap in CAPS + (() if os.geteuid() == 0 else CAPS_AS_USER):
            args += ["--cap-add", cap]
        args += ["--", exe, "-I", "-S", LAUNCHER_IN_BOX, str(theirs.fileno())]
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         start_new_session=True, env=bot_environment(), pass_fds=tuple(fds))
        finally:
            theirs.close()
            for fd in fds[:-1]:
                os.close(fd)

    # --- a game -------------------------------------------------------------------------------------------

    def start(self, env: dict[str, str], argv: list[str] | None = None) -> tuple[int, int, int]:
        """Start the bot for a game with ``env`` (``argv``: other arguments for the same program and files,
        as `locm sandbox check` gives its probe); this side's ends of its stdin, stdout and stderr pipes.
        `KeptSandboxError` if the launcher is gone."""
        self.exit = self.failed = None
        self._asked_kill = False
        if self.cgroup is None and not self._cgroup_tried:  # made at the first game, kept with the sandbox
            self._cgroup_tried = True
            self.cgroup = self._enter_cgroup()
        if self.cgroup is not None:
            self.cgroup.mark()
        uid = uid_for_bot()
        req = {"op": "start", "argv": [*self.wrap, *(argv or self.argv)], "uid": uid, "env": env, "cwd": self.cwd,
               "rlimits": rlimits(self.policy, data=self.cgroup is None), "tmp": self.policy.limits.tmp,
               "net": not self.policy.network, "passwd": passwd_text(uid), "group": group_text(uid),
               "views_in_tmp": self.views_in_tmp, "userns": os.geteuid() != 0,
               "seccomp": sandbox_filter.program(bot=True).hex(), "proc_null": host_load_masked(),
               "proc_fake": host_load_faked()}
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = (pipes[0][1], pipes[1][0], pipes[2][0])
        try:
            socket.send_fds(self.ctl, [json.dumps(req).encode()], theirs)
        except OSError as exc:
            for fd in ours:
                os.close(fd)
            raise KeptSandboxError(f"its sandbox is gone ({exc.strerror or exc})") from None
        finally:
            for fd in theirs:
                os.close(fd)
        self.games += 1
        return ours

    def exit_status(self, deadline: float) -> int | None:
        """The game's exit status as the sandbox reports it (128 + N for signal N; 128 + SIGKILL when the
        sandbox itself was killed), waiting until ``deadline`` (monotonic) for it; None if not said by then."""
        self._pump(deadline, lambda: self.exit is not None or self.failed is not None)
        return self.exit

    def kill(self) -> None:
        """Ask the launcher to end the game now (once; it kills everything of the game)."""
        if not self._asked_kill:
            self._asked_kill = True
            try:
                self.ctl.send(b'{"op": "kill"}')
            except OSError:
                pass

    def finish(self) -> bool:
        """End the game and wait (bounded) for the launcher to confirm that nothing of it is left."""
        self.kill()
        self._clean: bool | None = None
        self._pump(time.monotonic() + ANSWER_S, lambda: self._clean is not None)
        return bool(self._clean)

    _cgroup_tried = False

    def _enter_cgroup(self) -> cgroup.BotCgroup | None:
        """The sandbox's cgroup, with its launcher in it, so that every game's processes are born there (moving
        each game's first process in cost a start about 5-10 ms more on this project's loaded machine, cgroup
        v1); None where there is none (RLIMIT_DATA then) or the launcher cannot be moved. The launcher's own
        memory (about 10 MB) and process count within the bot's limits."""
        pid = self.launcher_pid(wait=5.0)
        procs = self.policy.limits.procs
        group = cgroup.make(self.policy.limits.mem, None if procs is None else procs + 1)
        if group is None:
            return None
        try:
            if pid is None:
                raise OSError("bubblewrap did not say its launcher's pid")
            group.add(pid)
        except OSError:
            group.remove()
            return None
        return group

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def _pump(self, deadline: float, done) -> None:
        """Read the launcher's answers until ``done()`` or ``deadline``; the socket's end counts as a killed
        sandbox."""
        with selectors.DefaultSelector() as sel:
            sel.register(self.ctl, selectors.EVENT_READ)
            while not done():
                timeout = deadline - time.monotonic()
                if timeout <= 0 or not sel.select(timeout):
                    return
                try:
                    data = self.ctl.recv(1 << 16)
                except OSError:
                    data = b""
                if not data:  # the launcher is gone, and the game with it
                    if self.exit is None and self.failed is None:
                        self.exit = 128 + signal.SIGKILL
                    self._clean = False
                    return
                msg = json.loads(data)
                if "exit" in msg:
                    self.exit = int(msg["exit"])
                elif "failed" in msg:
                    self.failed = str(msg["failed"])
                elif "clean" in msg:
                    self._clean = bool(msg["clean"])

    _clean: bool | None = None

    # --- the sandbox --------------------------------------------------------------------------------------

    def alive(self) -> bool:
        return self.proc.poll() is None and self.ctl.fileno() >= 0

    def launcher_pid(self, wait: float = 2.0) -> int | None:
        """The host pid of the launcher (the sandbox's first process), once bubblewrap has said it (waiting up
        to ``wait`` seconds for that)."""
        if self.sandbox_pid is None and self._info >= 0:  # (it may come in pieces: read until it is whole)
            self.sandbox_pid = wait_child_pid(self._info, wait) if wait > 0 else child_pid(self._info)
        return self.sandbox_pid

    def destroy(self) -> None:
        """Kill the sandbox (its launcher first: everything in its PID namespace dies with it) and wait until
        it is gone."""
        from locm.runner.processes import wait_gone as _wait_gone

        if self.launcher_pid() is not None:
            try:
                os.kill(self.sandbox_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:  # bubblewrap reaps its launcher and exits: nothing is left to reap elsewhere
            self.proc.wait(timeout=ANSWER_S)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        if self.sandbox_pid is not None:
            _wait_gone(self.sandbox_pid)
        self._remove_cgroup()
        self.ctl.close()
        if self._info >= 0:
            os.close(self._info)
            self._info = -1


def key(argv: list[str], policy: Sandbox, cwd: str, wrap: tuple[str, ...] = ()) -> tuple:
    return tuple(argv), policy, cwd, tuple(wrap)


# --- the pool (per process) ---------------------------------------------------------------------------------

_IDLE: collections.OrderedDict[tuple, list[KeptSandbox]] = collections.OrderedDict()
_BUSY: set[KeptSandbox] = set()
_keeping = False


def keep(on: bool = True) -> None:
    """Keep sandboxes across games in this process (a tournament worker) or not (the default)."""
    global _keeping
    _keeping = on


def keeping(policy: Sandbox) -> bool:
    return _keeping and can_keep(policy)


def acquire(argv: list[str], policy: Sandbox, cwd: str) -> KeptSandbox:
    """An idle kept sandbox for this bot and policy, or a new one."""
    k = key(argv, policy, cwd)
    while _IDLE.get(k):
        box = _IDLE[k].pop()
        if box.alive():
            _BUSY.add(box)
            return box
        box.destroy()
    box = KeptSandbox(argv, policy, cwd)
    _BUSY.add(box)
    return box


def release(box: KeptSandbox, clean: bool) -> None:
    """Give a sandbox back after its game: kept if its launcher confirmed it clean, else destroyed."""
    _BUSY.discard(box)
    if not clean or not box.alive():
        box.destroy()
        return
    _IDLE.setdefault(box.key, []).append(box)
    _IDLE.move_to_end(box.key)
    while sum(len(v) for v in _IDLE.values()) > MAX_IDLE:
        oldest = next(iter(_IDLE))
        _IDLE[oldest].pop(0).destroy()
        if not _IDLE[oldest]:
            del _IDLE[oldest]


def close_all() -> None:
    """Destroy every kept sandbox of this process (idle or not)."""
    boxes = [b for v in _IDLE.values() for b in v] + list(_BUSY)
    _IDLE.clear()
    _BUSY.clear()
    for box in boxes:
        box.destroy()


def kill_all() -> None:
    """SIGKILL every kept sandbox of this process without waiting (a worker told to die)."""
    for box in [b for v in _IDLE.values() for b in v] + list(_BUSY):
        pid = box.launcher_pid(wait=0)
        for kill in ((lambda: os.kill(pid, signal.SIGKILL)) if pid else None,
                     lambda: os.killpg(box.proc.pid, signal.SIGKILL)):
            try:
                if kill is not None:
                    kill()
            except OSError:
                pass


__all__ = ["KeptSandbox", "KeptSandboxError", "can_keep", "keep", "keeping", "acquire", "release", "close_all",
           "kill_all", "rlimits", "runner_python", "CAPS", "MAX_IDLE"]
