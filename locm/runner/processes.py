"""Helper processes that die with the process that started them, and bots' processes that must not outlive their game.

A worker (tournament, card-facts projection, what-if) calls `die_with_parent` first: the kernel then sends it
SIGKILL the moment its parent dies (Linux ``PR_SET_PDEATHSIG``), even if the parent was killed with SIGKILL
and even if the worker is stopped or busy; so killing a command kills its workers, whose sandboxed bots die
with them (bubblewrap's ``--die-with-parent``), and the ``multiprocessing`` resource tracker, which exits
when the last process holding its pipe is gone. Where ``prctl`` is missing, the worker's own check of its
parent (`parent_alive`) remains.

A bot run unsandboxed (`locm.runner.botprocess`, Skyport's clients) runs under ``setpriv --pdeathsig`` where
util-linux has it (`unconfined`), and carries a token in its environment (`TOKEN_VAR`) that every process it
starts inherits: a descendant that leaves its process group (``setsid``, a double fork) is found by it
(`carriers`) and killed, and the process running the games is a child subreaper (`become_subreaper`) so that such
orphans are reaped (`reap_escaped`). A descendant that both leaves the group and clears its environment is not
found: only the sandbox's PID namespace makes that certain.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import shutil
import signal
import subprocess
import time

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> bool:
    """Ask for SIGKILL when the parent dies; exit at once if ``parent`` is already gone (it died before the
    request was made). True if the kernel took the request."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        ok = False
    if not parent_alive(parent):
        os._exit(1)
    return ok


def parent_alive(parent: int) -> bool:
    """Whether ``parent`` is still this process's parent (an orphan is re-parented to init or a subreaper)."""
    return os.getppid() == parent


@contextlib.contextmanager
def sigterm_as_interrupt():
    """SIGTERM raises KeyboardInterrupt for the duration, so that `finally` blocks kill bots and workers."""
    def terminated(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)



def wait_gone(pid: int, seconds: float = 5.0) -> None:
    """Wait (bounded) until process ``pid`` has ended (through a pidfd where Linux has them, else polling);
    reap it if it was re-parented to this process."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                sel.select(seconds)  # readable once the process has ended
        finally:
            os.close(fd)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            ours = True
        except ChildProcessError:  # not ours: its own parent reaps it
            ours = False
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in "ZX" and not ours:
            return
        time.sleep(0.001)


# --- bots' processes: the token, the subreaper, the escaped ones ---------------------------------------

TOKEN_VAR = "LOCM_BOT_TOKEN"
"""The environment variable that marks a bot and every process it starts."""
_subreaper = False


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): orphaned descendants of its
    bots are re-parented to it instead of init, so that it can reap them. False where not available."""
    global _subreaper
    if not _subreaper:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def carriers(token: bytes) -> list[int]:
    """The pids of the live processes whose environment holds ``token``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if token in f.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:
                pass
    return found


def _orphan_zombies(known: set[int]) -> list[int]:
    """This process's children that are zombies and not in ``known`` (orphans re-parented to a subreaper)."""
    me, found = os.getpid(), []
    try:
        children = {int(p) for t in os.scandir(f"/proc/{me}/task")
                    for p in open(f"/proc/{me}/task/{t.name}/children").read().split()}
    except OSError:
        return []
    for pid in children - known:
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] == "Z":
            found.append(pid)
    return found


def reap_escaped(token: str, killed: set[int] | None = None, deadline_s: float = 2.0,
                 known: frozenset[int] | set[int] = frozenset()) -> None:
    """Kill every process carrying the bot ``token`` and reap those re-parented to this process, until each
    one killed (here or before, ``killed``) is gone (or ``deadline_s`` passes). ``known``: this process's children
    that their own `subprocess.Popen` reaps (the bots still running), left alone."""
    marker = f"{TOKEN_VAR}={token}".encode()
    end = time.monotonic() + deadline_s
    killed = set(killed or ())
    while True:
        found = carriers(marker)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        for pid in _orphan_zombies(known) if _subreaper else ():
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        killed = {pid for pid in killed if os.path.exists(f"/proc/{pid}")}
        # Done only when a whole scan finds no carrier: a process forked just before its parent was killed
        # shows up in the next scan, not in the one that killed the parent.
        if (not found and not killed) or time.monotonic() >= end:
            return
        time.sleep(0.005)


def unconfined(argv: list[str]) -> list[str]:
    """An unsandboxed bot's command: under ``setpriv --pdeathsig KILL`` where util-linux has it, so that
    the bot dies with the process that started it."""
    setpriv = _setpriv_pdeathsig()
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)


@functools.lru_cache(maxsize=None)
def _setpriv_pdeathsig() -> str | None:
    path = shutil.which("setpriv")
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "--pdeathsig", "KILL", "--", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if ok.returncode == 0 else None


def exec_failure(stderr: bytes) -> str | None:
    """What ``prlimit``, ``setpriv`` or a kept sandbox's launcher said when it could not run the bot's program
    (`failed to execute`)."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        for tool in ("prlimit: ", "setpriv: ", "locm-launcher: "):
            if line.startswith(tool) and "failed to execute" in line:
                return line[len(tool):].strip()
    return None


__all__ = ["die_with_parent", "parent_alive", "sigterm_as_interrupt", "wait_gone", "TOKEN_VAR", "become_subreaper",
           "carriers", "reap_escaped", "unconfined", "exec_failure"]
