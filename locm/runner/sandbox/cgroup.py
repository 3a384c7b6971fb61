"""A bot's memory and processes as the kernel counts them: a cgroup of the bot's own, nested under the runner's.

RLIMIT_DATA counts a process's private data only: neither shared mappings (Python's ``mmap.mmap(-1, n)`` is
MAP_SHARED), nor memory files (``memfd_create``), nor the bot's tmpfs, nor the sum over its processes. The
memory controller counts all of them, for every process of the bot together, and kills the bot (the kernel's
OOM killer, inside the cgroup only) when they pass the limit: the bot loses with the reason `MEMORY_LIMIT`.

Where: the runner's own cgroup of the memory controller (``/proc/self/cgroup``), found where it is mounted
(``/proc/self/mountinfo``): cgroup v2 (``memory.max``, ``memory.swap.max`` 0, ``memory.oom.group`` 1, and
``pids.max`` in the same folder) where the unified hierarchy has the memory controller, else v1
(``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes`` where swap is counted, ``pids.max`` in the
pids hierarchy). Each bot gets a fresh child ``locm-<pid>-<n>``, removed with its sandbox. A bot is in it before
it runs: a sandbox of its own waits on bubblewrap's ``--block-fd`` while its first process is moved
(`BotCgroup.add`); a kept sandbox's launcher is moved there once, at its first game, so that every game's
processes are born in it (moving each game's first process cost a start 5-10 ms more on this project's loaded
machine: a cgroup v1 migration waits for the kernel's RCU), and each game counts its memory events from its
start (`BotCgroup.mark`).

Where no cgroup is writable (run by a user without a delegated cgroup; cgroup v2 whose runner's cgroup holds
processes and has not delegated the controller), `available` says why, `locm sandbox check` says so, and
memory stays limited per process by RLIMIT_DATA.
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from typing import NamedTuple

MEMORY_LIMIT = "memory limit"
"""The reason a bot loses when the kernel killed it for its cgroup's memory."""
REMOVE_WAIT_S = 2.0
_counter = itertools.count()


class Where(NamedTuple):
    """Where bot cgroups are made: the runner's own cgroup folders (None: not there) and why not."""

    version: int  # 1 or 2; 0 when none is usable
    memory: str | None
    pids: str | None
    reason: str  # why none is usable ("" when one is)


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root, fstype, super options) of each cgroup mount."""
    out = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
                    out.append((fields[4].replace("\\040", " "), fields[3], rest[0], set(rest[2].split(","))))
    except OSError:
        pass
    return out


def _own_paths() -> dict[str, str]:
    """The runner's cgroup path per controller name (``""`` for the unified hierarchy)."""
    paths = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, names, path = line.rstrip("\n").split(":", 2)
                for name in names.split(",") if names else [""]:
                    paths[name] = path
    except (OSError, ValueError):
        pass
    return paths


def _folder(mount: str, root: str, path: str) -> str | None:
    """The folder of cgroup ``path`` in a mount of hierarchy root ``root`` (None if the mount does not show it)."""
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    rel = path[len(root):] if root != "/" else path
    folder = os.path.join(mount, rel.lstrip("/"))
    return folder if os.path.isdir(folder) else None


def _clear_stale(folder: str) -> None:
    """Remove the bot cgroups that runners gone without removing them left in ``folder`` (a worker killed with
    ``kill -9``): empty once their processes are gone, named by their runner's pid."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "locm" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            try:
                os.rmdir(os.path.join(folder, name))
            except OSError:
                pass


def _writable(folder: str) -> str:
    """"" if a child cgroup can be made in ``folder`` (tried), else why not."""
    _clear_stale(folder)
    probe = os.path.join(folder, f"locm-{os.getpid()}-probe")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"cannot make a cgroup in {folder} ({exc.strerror})"
    try:
        os.rmdir(probe)
    except OSError:
        pass
    return ""


@functools.lru_cache(maxsize=None)
def where() -> Where:
    """Where this process makes bot cgroups (found and tried once per process)."""
    mounts, own = _mounts(), _own_paths()
    for mount, root, fstype, _ in mounts:  # v2, where the unified hierarchy has the memory controller
        if fstype != "cgroup2" or "" not in own:
            continue
        folder = _folder(mount, root, own[""])
        try:
            with open(os.path.join(mount, "cgroup.controllers")) as f:
                controllers = f.read().split()
        except OSError:
            continue
        if folder is None or "memory" not in controllers:
            continue
        why = _writable(folder) or _delegate(folder)
        if why:
            return Where(0, None, None, f"cgroup v2: {why}")
        with open(os.path.join(folder, "cgroup.subtree_control")) as f:
            pids = folder if "pids" in f.read().split() else None
        return Where(2, folder, pids, "")
    memory = pids = None
    for mount, root, fstype, opts in mounts:
        if fstype == "cgroup" and "memory" in opts and "memory" in own and memory is None:
            memory = _folder(mount, root, own["memory"])
        if fstype == "cgroup" and "pids" in opts and "pids" in own and pids is None:
            pids = _folder(mount, root, own["pids"])
    if memory is None:
        return Where(0, None, None, "no cgroup memory controller is mounted for this process")
    why = _writable(memory)
    if why:
        return Where(0, None, None, f"cgroup v1: {why}")
    return Where(1, memory, pids if pids and not _writable(pids) else None, "")


def _delegate(folder: str) -> str:
    """cgroup v2: enable the memory (and pids) controllers for ``folder``'s children; "" or why not (v2
    allows it only where the folder holds no process itself: a delegated cgroup)."""
    control = os.path.join(folder, "cgroup.subtree_control")
    try:
        with open(control) as f:
            if "memory" in f.read().split():
                return ""
        _write(control, "+memory")
    except OSError as exc:
        return (f"cannot enable the memory controller below {folder} ({exc.strerror}): run locm in a "
                f"delegated cgroup (systemd-run --scope -p Delegate=yes)")
    try:
        _write(control, "+pids")
    except OSError:
        pass
    return ""


def available() -> bool:
    return where().version != 0


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _counter_of(path: str, names: tuple[str, ...]) -> int:
    """The sum of the counters ``names`` of a flat-keyed cgroup file (``""``: a file of one number)."""
    total = 0
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.strip().rpartition(" ")
                if name in names:
                    total += int(value)
    except (OSError, ValueError):
        pass
    return total


class BotCgroup:
    """One bot's (one game's) cgroup: its memory limit (and processes), made now, removed by `remove`."""

    def __init__(self, memory: int | None, procs: int | None) -> None:
        found = where()
        if not found.version:
            raise OSError(found.reason)
        self.version = found.version
        name = f"locm-{os.getpid()}-{next(_counter)}"
        self.folders: list[str] = []
        try:
            self.memory = self._make(found.memory, name)
            if found.version == 2:
                limits = [("memory.max", memory), ("memory.swap.max", 0 if memory is not None else None),
                          ("memory.oom.group", 1), ("pids.max", procs if found.pids else None)]
            else:
                limits = [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)]
            for file, value in limits:
                if value is not None and os.path.exists(os.path.join(self.memory, file)):
                    _write(os.path.join(self.memory, file), str(value))
            if found.version == 1 and found.pids and procs is not None:
                pids = self._make(found.pids, name)
                _write(os.path.join(pids, "pids.max"), str(procs))
        except OSError:
            self.remove()
            raise

    def _make(self, parent: str, name: str) -> str:
        folder = os.path.join(parent, name)
        os.mkdir(folder)
        self.folders.append(folder)
        return folder

    def add(self, pid: int) -> None:
        """Move process ``pid`` (before it starts the bot: what it starts is counted here too)."""
        for folder in self.folders:
            _write(os.path.join(folder, "cgroup.procs"), str(pid))

    def _reached(self) -> int:
        if not self.folders:
            return 0
        if self.version == 2:
            return _counter_of(os.path.join(self.memory, "memory.events"), ("oom_kill", "max"))
        return (_counter_of(os.path.join(self.memory, "memory.oom_control"), ("oom_kill",))
                + _counter_of(os.path.join(self.memory, "memory.failcnt"), ("",)))

    def mark(self) -> None:
        """A game starts in this cgroup (a kept sandbox's, kept across its games): `memory_reached` counts from
        now."""
        self._marked = self._reached()

    _marked = 0

    def memory_reached(self) -> bool:
        """Whether this cgroup's memory reached its limit (since `mark`): the kernel killed a process of it for
        that, or refused it memory (a write to a memory file or to ``/tmp`` fails with ENOMEM; the bot crashes
        on it)."""
        return self._reached() > self._marked

    def remove(self) -> None:
        """Remove the cgroup once its processes are gone (waiting a little for the last ones' exit; what is
        still in it then is killed first)."""
        end = time.monotonic() + REMOVE_WAIT_S
        for folder in reversed(self.folders):
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= end:
                        break
                    _kill_in(folder)
                    time.sleep(0.002)
        self.folders = []


def _kill_in(folder: str) -> None:
    try:
        with open(os.path.join(folder, "cgroup.procs")) as f:
            pids = [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def make(memory: int | None, procs: int | None) -> BotCgroup | None:
    """A bot's cgroup with these limits, or None where cgroups are not usable (RLIMIT_DATA applies then)."""
    if not available():
        return None
    try:
        return BotCgroup(memory, procs)
    except OSError:
        return None


__all__ = ["MEMORY_LIMIT", "BotCgroup", "Where", "where", "available", "make"]
