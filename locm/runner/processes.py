"""Helper processes that die with the process that started them.

A worker (tournament, card-facts projection, what-if) calls `die_with_parent` first: the kernel then sends it
SIGKILL the moment its parent dies (Linux ``PR_SET_PDEATHSIG``), even if the parent was killed with SIGKILL
and even if the worker is stopped or busy; so killing a command kills its workers, whose sandboxed bots die
with them (bubblewrap's ``--die-with-parent``), and the ``multiprocessing`` resource tracker, which exits
when the last process holding its pipe is gone. Where ``prctl`` is missing, the worker's own check of its
parent (`parent_alive`) remains.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
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


__all__ = ["die_with_parent", "parent_alive", "sigterm_as_interrupt", "wait_gone"]


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
