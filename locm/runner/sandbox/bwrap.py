"""The bot sandbox: every external bot runs under bubblewrap (``bwrap``), a real sandboxing tool, never
unconfined unless the organiser says so (`Sandbox.enabled` False, ``--no-sandbox``).

What a sandboxed bot gets (`launch` builds the command):

- New PID, network, IPC, UTS, mount (and, where the kernel has them, cgroup) namespaces: it sees only its
  own processes (a fresh ``/proc``), has no network but its own loopback, cannot signal anything outside.
  ``--die-with-parent``: the sandbox dies with the process that started it, and everything in a PID
  namespace dies with the namespace's first process, so nothing a bot starts can outlive its game.
- A read-only view of what its command needs and nothing else of the host: the system folders (``/usr``
  and its ``/bin``, ``/lib`` links), a few files of ``/etc`` (`ETC`: the loader cache, Java's and Mono's
  configuration, ...), its own folder (the folder of every file its command line names, or the folder
  itself when an argument is one), the installation of its interpreter (a program found on the PATH that
  is not a system one: the nearest folder above it with a ``bin/`` -- a venv, a pyenv root, a JDK -- and
  the same for the file a symlink points to and for a script's ``#!`` interpreter). Files named in
  `Sandbox.hide` (the store and its ``-wal``, the other bots) read as empty even inside that view. No host
  ``/proc`` (a fresh one, the files that show the host's load masked: `HOST_LOAD`), no home, no store; an
  ``/etc/hosts`` naming its own loopback ``localhost`` (`HOSTS`; with the network, the host's); ``/`` is read-only; a private writable ``/tmp`` (and ``/dev/shm``) of
  `BotLimits.tmp` bytes; its environment is rebuilt from `ENV_KEEP` (no token, no secret of the host).
- An unprivileged uid: run by root, bwrap sets the sandbox up and ``setpriv`` drops to a uid of its own
  (`uid_for_bot`: a fresh one per bot, no capabilities, no new privileges); run by anyone else, bwrap makes
  a user namespace (uid 65534 inside, the caller outside) where no further one can be made.
- No kernel keyrings: ``add_key``, ``keyctl`` and ``request_key`` are refused by a seccomp filter and
  ``/proc/keys`` reads as nothing (`locm.runner.sandbox.filter`: run by a user, a bot has that user's kuid, and the
  user's keyring grants it every right); nor what Docker's default profile refuses that bots do not need:
  io_uring, ``userfaultfd``, new namespaces, ``perf_event_open``, ``bpf``, mounts, modules, ...
- Resource limits (`locm.runner.sandbox.limits`, ``--bot-limits``): memory of the whole bot (768 MB by
  default, as CodinGame: its cgroup's, `locm.runner.sandbox.cgroup`, where one is writable; else data memory
  per process, RLIMIT_DATA), and set by ``prlimit`` inside the sandbox CPU seconds per process, processes and
  threads, open files, size of a written file, size of ``/tmp``, and optionally address space; core dumps off.

What a command needs to see is found by `locm.runner.sandbox.views`. A network (`Sandbox.network`) or a wider
view (`Sandbox.binds`) is given only when asked for, and recorded with every game (`Sandbox.meta`).

A tournament's workers keep each bot's sandbox across its games and start the bot afresh in each game's own
namespaces (`locm.runner.sandbox.kept`; run by a user, in a user namespace of each game's own too): what a bot gets is
the same, at a fraction of a start's cost.

`probe` says whether this machine can sandbox (bubblewrap installed, namespaces allowed) by starting one;
`require` raises `SandboxUnavailableError` (one line: what is missing and the fix) when it cannot.
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import json
import os
import secrets
import selectors
import shutil
import subprocess
import time
from typing import NamedTuple

from locm.runner.sandbox import filter as sandbox_filter
from locm.runner.sandbox.limits import MiB, BotLimits
from locm.runner.sandbox.views import SYSTEM, TOO_BROAD, _inside, _masks, _outermost, _parents, _system, _views
from locm.errors import BotBindError, SandboxUnavailableError

ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "nsswitch.conf",
       "java-*", "mono", "dotnet")
"""Entries of ``/etc`` (globs) a bot sees: the loader's, the runtimes' (``java`` is a chain of links through
``alternatives``; the JDK reads ``/etc/java-17-openjdk``), the time zone. ``passwd`` and ``group`` are
written for the sandbox (its own user only); the rest of ``/etc`` (``shadow``, ...) is not there."""
ETC_NETWORK = ("resolv.conf", "hosts", "host.conf", "ssl", "ca-certificates", "gai.conf")
"""Entries of ``/etc`` added for a bot given the network."""
HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
"""The ``/etc/hosts`` of a bot without the network: ``localhost`` is its own loopback, IPv4 and IPv6 (a client
that connects to the name, as the Node.js and C# Skyport clients do, resolves it with no DNS); with
``/etc/host.conf``'s ``multi on``, without which the C library gives the first of them only."""
ENV_KEEP = ("PATH", "LANG", "LANGUAGE", "TZ", "PYENV_ROOT", "PYENV_VERSION", "JAVA_HOME", "DOTNET_ROOT")
"""Environment variables passed to a bot (with every ``LC_*``); the rest is dropped. ``HOME`` and ``TMPDIR``
are the private ``/tmp``; `RUNTIME_MEMORY` tells runtimes the memory limit."""
UID_BASE, UID_SPAN = 2_000_000_000, 100_000_000
"""Run by root, each bot gets a fresh uid from this range (below 2**31: some tools read uids as int32)."""
NOBODY = 65534
"""The uid and gid a bot has inside its user namespace when the runner is not root."""
KEYS_IN_PROC = ("/proc/keys", "/proc/key-users")
"""Bound over with ``/dev/null`` in every sandbox (`locm.runner.sandbox.filter`)."""
HOST_LOAD = ("/proc/interrupts", "/proc/softirqs", "/proc/schedstat", "/proc/pressure/cpu", "/proc/pressure/io",
             "/proc/pressure/memory")
"""``/proc`` files that show the host's load (a side channel on the opponent's CPU use): bound over with
``/dev/null`` in every sandbox, as `HOST_LOAD_FAKED` are with files of their own."""


def host_load_faked() -> dict[str, str]:
    """``/proc/stat`` and ``/proc/loadavg`` as a bot sees them: the same shape (one ``cpuN`` line per CPU, which
    the C library counts processors by where ``/sys`` is not there), every counter 0."""
    cpus = os.cpu_count() or 1
    stat = "cpu  0 0 0 0 0 0 0 0 0 0\n" + "".join(f"cpu{i} 0 0 0 0 0 0 0 0 0 0\n" for i in range(cpus))
    stat += "intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n"
    return {"/proc/stat": stat, "/proc/loadavg": "0.00 0.00 0.00 1/1 1\n"}


def host_load_masked() -> list[str]:
    """The files of `HOST_LOAD` this kernel has (a bind needs its target)."""
    return [path for path in HOST_LOAD if os.path.exists(path)]


# --- the policy -------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """How external bots are run: in bubblewrap with these limits (``enabled``), or unconfined."""

    limits: BotLimits = BotLimits()
    network: bool = False  # share the host's network (--bot-network)
    binds: tuple[str, ...] = ()  # more host paths shown read-only (--bot-bind)
    hide: tuple[str, ...] = ()  # host files shown empty if they fall in a bot's view (the store, other bots)
    enabled: bool = True

    def __post_init__(self) -> None:
        for path in self.binds:
            refused_bind(path)

    def meta(self) -> dict:
        """What the game record keeps of the policy (``meta.sandbox``): never the hidden paths."""
        if not self.enabled:
            return {"tool": "none"}
        found = probe()
        return {"tool": f"bwrap {found.version}".strip(), "limits": self.limits.spec(), "network": self.network,
                "binds": list(self.binds)}

    def describe(self) -> str:
        """One line for the organiser: what the bots of this run may do."""
        if not self.enabled:
            return ("sandbox: NONE (--no-sandbox): bots run unconfined, with your user's rights, files and "
                    "network")
        extra = "; network: ON (--bot-network)" if self.network else "; network: none"
        if self.binds:
            extra += f"; also shown: {', '.join(self.binds)}"
        return f"sandbox: bubblewrap, limits {self.limits.spec()}{extra}"


UNCONFINED = Sandbox(enabled=False)
NEVER_BOUND = SYSTEM + ("/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/var/run", "/var/lib", "/var/log")
"""Folders never shown to a bot through ``--bot-bind``, nor anything inside them (the view shows what a bot
needs of them already; the rest is the host's)."""


def refused_bind(path: str) -> None:
    """`BotBindError` if ``path`` (as given, or where it leads) is ``/``, in `NEVER_BOUND` or as broad as a
    folder of `TOO_BROAD` or the home folder."""
    for p in dict.fromkeys((os.path.normpath(os.path.abspath(path)), os.path.realpath(path))):
        if p == "/":
            raise BotBindError(path, "the whole file system is never shown to bots" if p == os.path.abspath(path)
                               else "it leads to /, which is never shown to bots")
        system = next((s for s in NEVER_BOUND if _inside(p, s)), None)
        if system is not None:
            raise BotBindError(path, f"{p} is {'' if p == system else 'inside '}the system folder {system}, "
                                     f"never shown to bots")
        if p in TOO_BROAD or p == os.path.expanduser("~"):
            raise BotBindError(path, f"{p} is too broad a folder to show to bots")


# --- is there a sandbox? ----------------------------------------------------------------------------------


class Probe(NamedTuple):
    ok: bool
    reason: str  # why not, with the fix ("" when ok)
    version: str  # bubblewrap's version ("" when missing)


FIX = ("install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed "
       "(sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), or run as root")


@functools.lru_cache(maxsize=None)
def probe() -> Probe:
    """Whether bots can be sandboxed here: the tools exist and a sandbox really starts (once per process)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Probe(False, f"bubblewrap (bwrap) is not installed: {FIX}", "")
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return Probe(False, f"bwrap does not run ({exc}): {FIX}", "")
    version = out.split()[-1] if out.split() else ""
    for tool in ("prlimit",) + (("setpriv",) if os.geteuid() == 0 else ()):
        if shutil.which(tool) is None:
            return Probe(False, f"{tool} (util-linux) is not installed: install util-linux", version)
    try:
        sandbox_filter.program()
        sandbox_filter.program(bot=True)
    except sandbox_filter.FilterUnavailable as exc:
        return Probe(False, str(exc), version)
    launch = build(["true"], Sandbox(), os.getcwd())
    try:
        r = subprocess.run(launch.argv, env=launch.env, pass_fds=launch.pass_fds, capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return Probe(False, f"bwrap cannot start a sandbox ({exc}): {FIX}", version)
    finally:
        launch.close()
    if r.returncode != 0:
        said = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
        return Probe(False, f"bwrap cannot make the namespaces here ({said}): {FIX}", version)
    return Probe(True, "", version)


def require(policy: Sandbox) -> None:
    """Nothing if bots can be run under `policy`; else `SandboxUnavailableError` with the reason and fix."""
    if policy.enabled:
        found = probe()
        if not found.ok:
            raise SandboxUnavailableError(found.reason)


# --- the command ------------------------------------------------------------------------------------------


class Launch(NamedTuple):
    """A sandboxed command: argv and environment for `subprocess.Popen`, the file descriptors it must pass
    (the sandbox reads them at start: ``/etc/passwd`` and ``/etc/group``, and writes the child's pid to
    ``info``, whose read end this side keeps), and the uid the bot runs as on the host (None: the caller's)."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...]
    info: int  # read end: bwrap writes {"child-pid": N} there once the sandbox is up (-1 when unsandboxed)
    uid: int | None

    def started(self) -> None:
        """Close this side's copies of the descriptors given to the child (after Popen)."""
        for fd in self.pass_fds:
            _close(fd)

    def close(self) -> None:
        self.started()
        _close(self.info)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def uid_for_bot() -> int:
    """A fresh unprivileged uid for one bot (run by root): bots never share one, so no limit on processes
    is shared either."""
    return UID_BASE + secrets.randbelow(UID_SPAN)


def build(argv: list[str], policy: Sandbox, cwd: str | None = None, wrap: tuple[str, ...] = (),
          counted: bool = False) -> Launch:
    """The bwrap command line that runs ``argv`` (as given, relative to ``cwd``) under `policy`. ``wrap``, if
    given, is a command run in the sandbox in its place, with ``argv`` as its last arguments (a Skyport
    client's relay, `locm.games.skyport.netbots`): what the sandbox shows is still found from ``argv`` alone.
    ``counted``: the bot's memory is limited by its cgroup (`locm.runner.sandbox.cgroup`), not RLIMIT_DATA."""
    cwd = os.path.abspath(cwd or os.getcwd())
    root = os.geteuid() == 0
    uid = uid_for_bot() if root else NOBODY
    args, fds = view_args(argv, policy, cwd, passwd_text(uid), group_text(uid))
    info_r, info_w = os.pipe()
    fds.append(info_w)
    args += ["--info-fd", str(info_w)]
    if root:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", *drop_to(uid)]
    else:
        args.append("--")
    args += [_tool("prlimit"), *policy.limits.prlimit_args(data=not counted), "--", *wrap, *argv]
    return Launch(args, bot_environment(policy.limits), tuple(fds), info_r, uid if root else None)


def view_args(argv: list[str], policy: Sandbox, cwd: str, passwd: str, group: str, kept: bool = False,
              extra: tuple[tuple[str, str], ...] = ()) -> tuple[list[str], list[int]]:
    """bwrap's options up to the command: the namespaces and the read-only view of what ``argv`` needs (and
    the ``extra`` (source, destination) files), ``/etc/passwd`` and ``/etc/group`` as given (read from pipes,
    whose read ends are returned to be passed, with the seccomp filter's: `locm.runner.sandbox.filter`), ``/`` read-only,
    the folder ``cwd``. A sandbox of its own has a size-limited tmpfs on ``/tmp`` and ``/dev/shm``; a ``kept``
    one an empty read-only ``/tmp`` (its launcher mounts each game's own, `locm.runner.sandbox.launcher`) and, run by
    a user, the launcher as root of the sandbox's user namespace, which makes each game's own in it."""
    root = os.geteuid() == 0
    own, views = _views(tuple(argv), cwd, os.environ.get("PATH", os.defpath))
    args = ["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "locm-bot",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if not policy.network:
        args.append("--unshare-net")
    if not root and kept:  # the launcher: root of the sandbox's user namespace (`locm.runner.sandbox.kept`)
        args += ["--unshare-user", "--uid", "0", "--gid", "0"]
    elif not root:
        args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--disable-userns"]
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    size = str(policy.limits.tmp)
    args += ["--proc", "/proc", "--dev", "/dev"]
    for name in KEYS_IN_PROC + tuple(host_load_masked()):
        args += ["--ro-bind", "/dev/null", name]
    fds = []
    for name, text in host_load_faked().items():
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        fds.append(r)
        args += ["--perms", "0444", "--ro-bind-data", str(r), name]
    if not kept:
        args += ["--perms", "1777", "--size", size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                 "--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    else:
        args += ["--remount-ro", "/dev", "--perms", "0755", "--dir", "/tmp"]
    args += ["--perms", "0755", "--dir", "/etc"]
    made = {"/tmp", "/etc", "/dev", "/proc"}
    for name in ETC + (ETC_NETWORK if policy.network else ()):
        for path in sorted(glob.glob(os.path.join("/etc", name))):
            args += ["--ro-bind", path, path]
    for name, text in (("hosts", HOSTS), ("host.conf", "multi on\n")) if not policy.network else ():
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        fds.append(r)
        args += ["--perms", "0444", "--ro-bind-data", str(r), f"/etc/{name}"]
    for name, text in (("passwd", passwd), ("group", group)):
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        fds.append(r)  # a kept sandbox mounts each game's over them: files of its own, not bound (unlinked) data
        args += ["--ro-bind-data", str(r), f"/etc/{name}"] if not kept else ["--perms", "0644", "--file", str(r),
                                                                             f"/etc/{name}"]
    shown = _outermost(views + [(os.path.realpath(p), os.path.abspath(p)) for p in policy.binds
                                if os.path.exists(p)] + list(extra))
    for _, dest in shown:
        args += _parents(dest, made)
    for src, dest in shown:
        args += ["--ro-bind", src, dest]
    for dest in _masks(shown, policy.hide, own):
        args += ["--ro-bind", "/dev/null", dest]
    if not (cwd in made or cwd == "/" or _system(cwd) or any(_inside(cwd, d) for _, d in shown)):
        args += _parents(cwd, made) + ["--perms", "0755", "--dir", cwd]  # relative paths resolve as given
    fds.append(sandbox_filter.fd(bot=not kept))  # a kept sandbox's games load the bot filter themselves
    args += ["--remount-ro", "/", "--chdir", cwd, "--seccomp", str(fds[-1])]
    return args, fds


def views_in_tmp(argv: list[str], policy: Sandbox, cwd: str) -> list[str]:
    """The destinations of ``argv``'s views that lie in ``/tmp`` or ``/dev/shm`` (outer ones first): a kept
    sandbox shows them again in each game's fresh ``/tmp`` (`locm.runner.sandbox.launcher`)."""
    _, views = _views(tuple(argv), cwd, os.environ.get("PATH", os.defpath))
    shown = _outermost(views + [(os.path.realpath(p), os.path.abspath(p)) for p in policy.binds if os.path.exists(p)])
    return [dest for _, dest in shown if any(_inside(dest, t) and dest != t for t in ("/tmp", "/dev/shm"))]


def passwd_text(uid: int) -> str:
    """The sandbox's ``/etc/passwd``: root and the bot's user (home /tmp, no shell)."""
    return f"root:x:0:0::/:/usr/sbin/nologin\nbot:x:{uid}:{uid}::/tmp:/usr/sbin/nologin\n"


def group_text(uid: int) -> str:
    return f"root:x:0:\nbot:x:{uid}:\n"


def drop_to(uid: int) -> list[str]:
    """The command that runs what follows it as ``uid`` (run by root): no groups, no capabilities, no new
    privileges."""
    return [_tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs"]


@functools.lru_cache(maxsize=None)
def _tool(name: str) -> str:
    """A util-linux tool's path on the host, if it is in a system folder the sandbox shows; else its name."""
    path = shutil.which(name)
    return path if path and _system(path) else name


def bot_environment(limits: BotLimits | None = None) -> dict[str, str]:
    """The environment a sandboxed bot starts with: `ENV_KEEP` and ``LC_*`` from ours, its own ``/tmp``, and
    the memory limit told to the runtimes that size their heap from the machine's memory, not from limits
    (the JVM, V8, .NET), so that they start and collect garbage within it (`RUNTIME_MEMORY`)."""
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP or k.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    env.update(HOME="/tmp", TMPDIR="/tmp")
    if limits is not None and limits.mem is not None:
        for name, value in RUNTIME_MEMORY.items():
            env[name] = value(limits.mem)
    return env


RUNTIME_MEMORY = {
    "JAVA_TOOL_OPTIONS": lambda mem: f"-XX:MaxRAM={mem}",  # heap sized as on a machine of `mem` bytes
    "NODE_OPTIONS": lambda mem: f"--max-old-space-size={mem * 3 // 4 // MiB}",
    "DOTNET_GCHeapHardLimit": lambda mem: f"{mem * 3 // 4:x}",
}
"""Variables telling a runtime the bot's memory limit (it sizes its heap from the machine's memory otherwise:
a JVM on a 64 GB machine asks for 1 GB at start, above the default limit)."""


def child_pid(info_fd: int) -> int | None:
    """The host pid of the sandbox's first process, from what bwrap wrote to ``--info-fd`` (None if not yet)."""
    try:
        os.set_blocking(info_fd, False)
        data = os.read(info_fd, 4096)
    except OSError:
        return None
    try:
        return int(json.loads(data.decode())["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None


def wait_child_pid(info_fd: int, seconds: float) -> int | None:
    """`child_pid`, waiting up to ``seconds`` for bubblewrap to write all of it (it may come in pieces)."""
    data, end = b"", time.monotonic() + seconds
    os.set_blocking(info_fd, False)
    with selectors.DefaultSelector() as sel:
        sel.register(info_fd, selectors.EVENT_READ)
        while (left := end - time.monotonic()) > 0 and sel.select(left):
            try:
                chunk = os.read(info_fd, 4096)
            except BlockingIOError:
                continue
            except OSError:
                return None
            if not chunk:
                break
            data += chunk
            try:
                return int(json.loads(data.decode())["child-pid"])
            except (ValueError, KeyError, TypeError):
                continue
    return None


__all__ = ["Sandbox", "UNCONFINED", "Probe", "probe", "require", "Launch", "build", "child_pid", "wait_child_pid",
           "bot_environment", "uid_for_bot", "ETC", "ENV_KEEP", "FIX"]
