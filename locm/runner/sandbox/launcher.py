"""The launcher of a kept sandbox (`locm.runner.sandbox.kept`): the first process of a bubblewrap sandbox kept for one
bot across its games, starting the bot afresh for each game. It runs inside the sandbox under the runner's
Python (``-I -S``: no site, no environment), imports only the standard library, and reads nothing a bot
wrote: its only input is the control socket to the process that made the sandbox.

It is PID 1 of the sandbox's PID namespace (bubblewrap ``--as-pid-1``), root there with the capabilities of
`locm.runner.sandbox.kept.CAPS` (run by a user: root of the sandbox's user namespace, whose only uid is the
runner's, with those capabilities in that namespace only), not dumpable; at its start it empties the
capability bounding set and the inheritable and ambient sets, which every game inherits (bubblewrap's
``no_new_privs`` and seccomp filter, which refuses the keyring system calls, `locm.runner.sandbox.filter`, are
inherited too).

For each game (``start``) the launcher enters new mount, PID, IPC and (without the network) network
namespaces and mounts there what is the game's own: a fresh size-limited tmpfs on ``/tmp`` and ``/dev/shm``
(with the bot's views that lie in them shown again, read-only, as bubblewrap shows them), ``/etc/passwd``
and ``/etc/group`` naming the game's uid (written on a scratch tmpfs, bound read-only, the scratch
detached), the loopback up; it forks the game's first process and comes back to its own namespaces
(``setns``). That process, PID 1 of the game, mounts the game's ``/proc`` (``/proc/keys``,
``/proc/key-users`` and the files that show the host's load bound over with ``/dev/null``, ``/proc/stat`` and
``/proc/loadavg`` with files of zeros, as bubblewrap does in the sandbox's: `locm.runner.sandbox.bwrap.HOST_LOAD`), becomes the game's uid (a fresh one; run by a user, in a
user namespace of the game's own: `_own_user_namespace`) with no capability left, sets the game's rlimits,
makes itself not dumpable, spawns the bot in a new session with its three pipes as stdin/stdout/stderr (no
other descriptor) and the environment given, and exits as the bot does (its status, or 128 + N when signal N
killed it): everything else of the game dies with it. Just before the bot starts it loads the bot filter
(`locm.runner.sandbox.filter.BOT_DENIED`: the launcher itself needs namespaces and mounts, its games do not). ``kill`` ends the game (SIGKILL to its first process:
the kernel kills every process of its PID namespace before that one can be reaped) and answers whether the
sandbox is clean: no process in it but the launcher. Nothing of a game reaches the next: its processes,
files, IPC objects, sockets, PIDs, uid (run by a user: its user namespace) end with it.

What a bot can reach: its game's first process, of its uid, whose signals from inside the game are ignored
(PID 1 of a namespace gets none it has no handler for), which it cannot trace or read (not dumpable) and
whose rlimits it can lower -- ending its own game at worst. The launcher is in the PID namespace above, root's:
out of its sight and reach.

Run by a user (checked on kernel 6.18, as nobody: tests/test_hostile.py, tests/test_sandbox_kept.py and
`locm sandbox check` run so when run by root). There is one uid, the runner's: bubblewrap's user namespace maps
it as root (the launcher), and each game's own user namespace maps the game's fresh uid onto that same uid
(`_own_user_namespace`). So the launcher, the game's first process, the bot and the runner share one kuid
(the uid the kernel checks), and what a kuid alone grants is what a bot could take:

- Signals, tracing, ``/proc``, ``kill(-1)``, ``process_vm_readv``, pidfds all need a pid, and the bot sees
  only its game's PID namespace: the launcher, the runner, the other bots and the user's other processes
  have none there. The game's first process (PID 1) ignores the signals the game sends it; it is not dumpable,
  so tracing it, reading its memory, environment or descriptors, or opening its namespaces needs
  CAP_SYS_PTRACE in the namespace its memory was made in (the sandbox's), which the bot has not. Its
  ``/proc/1`` files belong to the sandbox's root, that is the same kuid: the bot may list ``/proc/1/fd``
  (empty: it keeps no descriptor), raise its ``oom_score_adj`` and write its ``coredump_filter`` or lower
  its rlimits -- which can end only the bot's own game.
- Capabilities: none. The game's user namespace is a child of the sandbox's, where the bot has none (the
  first process empties every set before the bot starts, and the bounding set, which a new user namespace
  fills again, too); no root uid in it; its limit on user namespaces is 0 (nothing in a game can make one:
  ``No space left on device``); ``no_new_privs``. A mount, ``setns`` or ``unshare`` is refused.
- Files: the kuid's rights reach only what the sandbox shows, all read-only but the game's own ``/tmp`` and
  ``/dev/shm``: the runner's other files are not in the view. (The runner's supplementary groups stay, as in
  a sandbox of its own: a user namespace without CAP_SETGID cannot drop them; they too reach only the view.)
- Keys: a key's "user" rights follow the kuid, and the runner's user keyring grants its kuid every right, so
  the keyring system calls are refused to everything in the sandbox (`locm.runner.sandbox.filter`: tried without
  the filter, a bot read, cleared and planted keys in the runner's keyring and filled the user's key quota,
  on which the other bots' and the runner's keys depend).
- Per-user limits: RLIMIT_NPROC is counted per user namespace and uid (kernel 5.14 and later), so the
  game's limit counts the game's processes alone (`locm sandbox check`: ``procs=128`` lets the game start
  126 more, its first process and the probe being the other two, whatever else the runner runs). What the
  kernel counts per kuid across namespaces is shared with the runner and its other bots, as in a sandbox of
  its own: pending signals, POSIX message queue bytes, locked memory, inotify instances (128 by default),
  epoll watches. A bot can use them up only while its game runs (its processes hold them), which could
  make the opponent's or the runner's next request for one fail; locm's own processes use none of them but
  epoll (one instance a selector: the worker's). A limit for the whole sandbox needs cgroups.
- With ``--bot-network`` the bot shares the host's network namespace, as run by root, and also its
  abstract unix sockets, where a local server that trusts its peer's uid (``SO_PEERCRED``: a desktop
  session's D-Bus, X11) sees the runner's uid.

Messages are JSON, one per datagram of a ``SOCK_SEQPACKET`` socket; ``start`` carries the bot's three pipe
ends (``SCM_RIGHTS``). The launcher answers ``{"started": pid}`` or ``{"failed": why}``, ``{"exit": status}``
when a game ends by itself, and ``{"clean": bool, "left": [...]}`` after ``kill``; it exits (and everything
in the sandbox with it) when the socket closes.
"""

import ctypes
import fcntl
import gc
import json
import os
import resource
import selectors
import signal
import socket
import struct
import sys
import time

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x00020000, 0x08000000, 0x10000000, 0x20000000,
                                                                     0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1, 2, 4, 8, 32, 4096, 16384, 1 << 18)
MNT_DETACH = 2
SIOCSIFFLAGS, IFF_UP = 0x8914, 0x1
RLIMITS = {"data": resource.RLIMIT_DATA, "cpu": resource.RLIMIT_CPU, "nproc": resource.RLIMIT_NPROC,
           "nofile": resource.RLIMIT_NOFILE, "fsize": resource.RLIMIT_FSIZE, "as": resource.RLIMIT_AS,
           "core": resource.RLIMIT_CORE}
DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM, signal.SIGCHLD)
"""Signals the bot starts with at their default action (Python ignores or handles some of them)."""
CLEAN_WAIT_S = 2.0
KEYS_IN_PROC = ("/proc/keys", "/proc/key-users")  # `locm.runner.sandbox.bwrap.KEYS_IN_PROC`: this file imports no locm
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data=None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def _tmpfs(target: str, size: int, mode: str = "1777") -> None:
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")


class Home:
    """The launcher's own namespaces, to come back to after making a game's (``setns``)."""

    KINDS = (("mnt", CLONE_NEWNS), ("ipc", CLONE_NEWIPC), ("net", CLONE_NEWNET), ("pid", CLONE_NEWPID))

    def __init__(self) -> None:
        self.fds = [(os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC), flag)
                    for name, flag in self.KINDS]

    def back(self) -> None:
        for fd, flag in self.fds:
            _check(_libc.setns(fd, flag), "setns")
        os.chdir("/")


def _game_mounts(req: dict) -> None:
    """In the game's new mount namespace: nothing propagates back; its passwd and group files; its ``/tmp``
    and ``/dev/shm``, with the bot's views that lie in them shown again (read-only, as in the sandbox: bound
    again from the sandbox's own, with what is bound over them) and its folder there."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    views = [(path, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path in req["views_in_tmp"]]
    _tmpfs("/tmp", 1 << 20, "0700")  # scratch, for the two files
    for name in ("passwd", "group"):
        fd = os.open(f"/tmp/{name}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, req[name].encode())
        os.close(fd)
        _mount(f"/tmp/{name}", f"/etc/{name}", None, MS_BIND)
        _mount(None, f"/etc/{name}", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _check(_libc.umount2(b"/tmp", MNT_DETACH), "umount /tmp")
    _tmpfs("/tmp", req["tmp"])
    _tmpfs("/dev/shm", req["tmp"])
    for path, fd in views:
        _folders(os.path.dirname(path))
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.mkdir(path, 0o755)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    _folders(req["cwd"])


def _folders(path: str) -> None:
    """``path`` and its missing parents, root's, mode 0755 (as bubblewrap makes them)."""
    if not os.path.isdir(path):
        _folders(os.path.dirname(path))
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP))


def _drop_what_games_inherit() -> None:
    """Empty the capability bounding set and the inheritable and ambient sets, once: every game's processes
    inherit them so (as ``setpriv --inh-caps=-all --bounding-set=-all`` would leave them), and the bot, run as
    another uid, has no capability at all (``no_new_privs``, set by bubblewrap, is inherited too)."""
    _drop_capabilities(keep_permitted=True)


def _drop_capabilities(keep_permitted: bool) -> None:
    """Empty the bounding, ambient and inheritable capability sets (and, unless ``keep_permitted``, the
    permitted and effective ones: no capability is left)."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _check(_libc.prctl(24, cap, 0, 0, 0), "drop a capability from the bounding set")  # PR_CAPBSET_DROP
    _check(_libc.prctl(47, 4, 0, 0, 0), "clear the ambient capabilities")  # PR_CAP_AMBIENT, CLEAR_ALL
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # two (effective, permitted, inheritable)
    _check(_libc.capget(header, data), "capget")
    data[2] = data[5] = 0
    if not keep_permitted:
        data[0] = data[1] = data[3] = data[4] = 0
    _check(_libc.capset(header, data), "clear the capabilities")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _own_user_namespace(uid: int) -> None:
    """Run by a user: enter a new user namespace, the game's own, where this process is ``uid``, mapped onto
    the launcher's uid (and gid) of the sandbox's namespace, 0, the only one there is (and on the host the
    runner's): every process of the game is ``uid`` in it and has no capability in it or in any other (the
    caller drops them). Its limit on further user namespaces is 0: nothing in the game can make one. Its
    RLIMIT_NPROC count (the kernel counts processes per user namespace and uid) starts empty."""
    outer_uid, outer_gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER), "unshare a user namespace")
    _write("/proc/self/setgroups", "deny")  # a user namespace may map its own gid only so
    _write("/proc/self/uid_map", f"{uid} {outer_uid} 1")
    _write("/proc/self/gid_map", f"{uid} {outer_gid} 1")
    _write("/proc/sys/user/max_user_namespaces", "0")


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _load_filter(program: bytes) -> None:
    """Load the bot filter (`locm.runner.sandbox.filter.BOT_DENIED`: classic BPF, 8 bytes an instruction) on this
    process, which the bot inherits; ``no_new_privs`` is set (bubblewrap's), so no capability is needed."""
    prog = _Fprog(len(program) // 8, program)
    _check(_libc.prctl(22, 2, ctypes.byref(prog), 0, 0), "load the bot filter")  # PR_SET_SECCOMP, MODE_FILTER


def _game_init(req: dict, fds: list[int]) -> None:
    """PID 1 of the game: its /proc, the game's uid (run by a user: in a user namespace of the game's own), its
    limits (the bot inherits them), the bot in a session of its own, then wait for it and exit as it did (never
    returns)."""
    code = 1
    try:
        try:
            for sig in DEFAULT_SIGNALS:
                signal.signal(sig, signal.SIG_DFL)
            _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            for path in KEYS_IN_PROC + tuple(req["proc_null"]):  # as bubblewrap hides them in the sandbox's
                _mount("/dev/null", path, None, MS_BIND)
            _tmpfs("/tmp", 1 << 20, "0755")  # scratch over the game's /tmp, for the faked files
            for n, (path, text) in enumerate(req["proc_fake"].items()):
                fd = os.open(f"/tmp/fake{n}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
                os.write(fd, text.encode())
                os.close(fd)
                _mount(f"/tmp/fake{n}", path, None, MS_BIND)
            _check(_libc.umount2(b"/tmp", MNT_DETACH), "umount the scratch /tmp")
            uid = req["uid"]
            if req["userns"]:
                _own_user_namespace(uid)
            for name, soft, hard in req["rlimits"]:
                resource.setrlimit(RLIMITS[name], (soft, hard))
            os.chdir(req["cwd"])
            if req["userns"]:
                _drop_capabilities(keep_permitted=False)
            else:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)  # every capability is gone with root's ids
            _libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: the bot, of the same uid, cannot trace this process
            _load_filter(bytes.fromhex(req["seccomp"]))
            bot = os.posix_spawnp(req["argv"][0], req["argv"], req["env"], setsid=True, setsigdef=DEFAULT_SIGNALS,
                                  file_actions=[(os.POSIX_SPAWN_DUP2, fd, n) for n, fd in enumerate(fds)])
        except OSError as exc:  # said as a wrapper says it: the runner reads it as the bot's failure to start
            os.write(fds[2], f"locm-launcher: failed to execute {req['argv'][0]}: {exc.strerror}\n".encode())
            os._exit(127)
        os.closerange(0, 1 << 20)  # the bot's pipes end with the bot alone
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == bot:
                code = os.waitstatus_to_exitcode(status)
                code = 128 - code if code < 0 else code
                break
    except BaseException:
        code = 1
    os._exit(code & 0xFF)


def _fork_game(req: dict, fds: list[int], home: Home) -> int:
    """Enter a game's new namespaces, set them up, fork its first process (a child of this launcher, which
    the namespaces now belong to) and come back home; that process's pid."""
    try:
        flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (CLONE_NEWNET if req["net"] else 0)
        _check(_libc.unshare(flags), "unshare")
        _game_mounts(req)
        if req["net"]:
            _loopback_up()
        init = os.fork()
        if init == 0:
            _game_init(req, fds)
    finally:
        home.back()
        for fd in fds:
            os.close(fd)
    return init


def _others() -> list[int]:
    """The processes of this sandbox other than the launcher (its /proc shows this PID namespace only)."""
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and p != "1")


def _end(game: int | None) -> tuple[bool, list[int]]:
    """Kill the game (if one runs) and reap until no process but this one is left (bounded)."""
    if game is not None:
        try:
            os.kill(game, signal.SIGKILL)
        except OSError:  # gone already; or refused, and the wait below says the sandbox is not clean
            pass
    end = time.monotonic() + CLEAN_WAIT_S
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        left = _others()
        if not left or time.monotonic() >= end:
            return not left, left
        for pid in left:  # anything else here (nothing should be) is killed too
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)


def serve(ctl: socket.socket, home: Home) -> None:
    def say(**msg) -> None:
        ctl.send(json.dumps(msg).encode())

    sel = selectors.DefaultSelector()
    sel.register(ctl, selectors.EVENT_READ, "ctl")
    game, watch = None, -1

    def unwatch() -> None:
        nonlocal watch
        if watch >= 0:
            sel.unregister(watch)
            os.close(watch)
            watch = -1

    while True:
        for key, _ in sel.select():
            if key.data == "game":  # the game ended by itself: say how
                _, status = os.waitpid(game, 0)
                unwatch()
                game = None
                code = os.waitstatus_to_exitcode(status)
                say(exit=code if code >= 0 else 128 - code)
                continue
            data, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 3)
            for fd in fds:
                os.set_inheritable(fd, False)  # the bot gets them as 0, 1 and 2 only
            if not data:
                _end(game)
                return
            req = json.loads(data)
            if req["op"] == "start" and game is None and len(fds) == 3:
                try:
                    game = _fork_game(req, fds, home)
                    watch = os.pidfd_open(game)
                    sel.register(watch, selectors.EVENT_READ, "game")
                    say(started=game)
                except OSError as exc:
                    say(failed=str(exc))
            elif req["op"] == "kill":
                unwatch()
                clean, left = _end(game)
                game = None
                say(clean=clean, left=left)
            else:
                for fd in fds:
                    os.close(fd)
                say(failed=f"unexpected request {req.get('op')!r}")


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: not traceable; its /proc entries are root's alone
    ctl = socket.socket(fileno=int(sys.argv[1]))
    ctl.set_inheritable(False)
    os.closerange(3, ctl.fileno())  # nothing else of bubblewrap's
    os.closerange(ctl.fileno() + 1, 1 << 20)
    home = Home()
    _drop_what_games_inherit()
    gc.freeze()  # a game's first process is a fork: no collection may touch (and so copy) every page of it
    gc.disable()
    try:
        serve(ctl, home)
    except (BrokenPipeError, ConnectionResetError):
        _end(None)


if __name__ == "__main__":
    main()
