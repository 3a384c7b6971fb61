"""Run inside the sandbox by `locm sandbox check` (`locm.runner.sandbox.check`): one test per run, named by argv[1],
reporting what it saw as one JSON line on stdout. It imports nothing of locm (the sandbox shows it only its
own folder) and tries, as a hostile bot would, what the sandbox must forbid."""

import json
import mmap
import os
import signal
import socket
import sys
import time


def inspect(args):
    """Namespaces, identity, processes, files, network, as the bot sees them."""
    host_pid, port, paths = int(args[0]), int(args[1]), json.loads(sys.stdin.read())
    out = {"ns": {n: _readlink(f"/proc/self/ns/{n}") for n in ("pid", "net", "ipc", "uts", "mnt", "user", "cgroup")},
           "uid": os.getuid(), "gid": os.getgid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
    status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
    out["caps"] = status.get("CapEff", "").strip()
    out["no_new_privs"] = status.get("NoNewPrivs", "").strip()
    try:
        os.kill(host_pid, signal.SIGCONT)
        out["signal_host"] = "delivered"
    except OSError as exc:
        out["signal_host"] = exc.strerror
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        out["connect"] = "connected"
    except OSError as exc:
        out["connect"] = exc.strerror or str(exc)
    out["files"] = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                out["files"][path] = f"read {len(f.read())} bytes"
        except OSError as exc:
            out["files"][path] = exc.strerror
    out["keys"] = _keys()
    out["userns"] = _userns()
    out["doors"] = _doors()
    out["proc"] = {}
    for path in ("/proc/stat", "/proc/loadavg", "/proc/pressure/cpu", "/proc/interrupts"):
        try:
            with open(path, "rb") as f:
                data = f.read()
            counters = [w for w in data.split() if w.replace(b".", b"").isdigit() and w.strip(b"0.")]
            out["proc"][path] = ("read 0 bytes" if not data else "zeros" if len(counters) <= 2
                                 else f"read {len(data)} bytes of counters")
        except OSError as exc:
            out["proc"][path] = exc.strerror
    out["writes"] = {}
    for path in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "written"), "/written", "/etc/written",
                 "/tmp/written"):
        try:
            with open(path, "w") as f:
                f.write("x")
            out["writes"][path] = "written"
        except OSError as exc:
            out["writes"][path] = exc.strerror
    return out


def _keys():
    """What the kernel's keyrings give: the user keyring's id (a key's "user" rights follow the kuid: run by a
    user, that user's keyring is the bot's), a key added to the session keyring, /proc/keys."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    numbers = KEYCTL.get(os.uname().machine)
    out = {}
    if numbers:
        got = libc.syscall(numbers[1], 0, -4, 0)  # KEYCTL_GET_KEYRING_ID of @u, not made if missing
        out["keyctl"] = os.strerror(ctypes.get_errno()) if got < 0 else f"user keyring {got:x}"
        got = libc.syscall(numbers[0], b"user", b"locm-probe", b"x", 1, -3)  # add_key to @s
        out["add_key"] = os.strerror(ctypes.get_errno()) if got < 0 else "added"
    try:
        with open("/proc/keys", "rb") as f:
            out["/proc/keys"] = f"read {len(f.read())} bytes"
    except OSError as exc:
        out["/proc/keys"] = exc.strerror
    return out


DOORS = {"x86_64": {"io_uring_setup": 425, "userfaultfd": 323, "perf_event_open": 298, "bpf": 321, "clone": 56},
         "aarch64": {"io_uring_setup": 425, "userfaultfd": 282, "perf_event_open": 241, "bpf": 280, "clone": 220}}


def _doors():
    """What the system calls a bot has no need of answer (each with harmless arguments: a call let through
    fails on them or makes nothing that outlives this probe)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    numbers = DOORS.get(os.uname().machine, {})
    out = {}
    params = ctypes.create_string_buffer(120)
    for name, args in (("io_uring_setup", (1, params)), ("userfaultfd", (1,)), ("perf_event_open", (None, 0, -1, -1, 0)),
                       ("bpf", (0, None, 0))):
        if name in numbers:
            got = libc.syscall(numbers[name], *args)
            out[name] = os.strerror(ctypes.get_errno()) if got < 0 else "allowed"
            if got >= 0:
                os.close(got)
    pid = os.fork()
    if pid == 0:
        if "clone" in numbers:  # clone(CLONE_NEWUSER | SIGCHLD): a child that exits at once, if allowed
            got = libc.syscall(numbers["clone"], 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0)
            if got == 0:
                os._exit(0)
            os._exit(0 if got > 0 else ctypes.get_errno())
        os._exit(255)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 255:
        out["clone(CLONE_NEWUSER)"] = "allowed" if code == 0 else os.strerror(code)
    return out


def _userns():
    """Whether this process can make a user namespace (in a child: this one stays as it is)."""
    import ctypes

    pid = os.fork()
    if pid == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        os._exit(0 if libc.unshare(0x10000000) == 0 else ctypes.get_errno())  # CLONE_NEWUSER
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "made" if code == 0 else os.strerror(code)


def memory(args):
    """Map (without touching) more private memory than the limit allows."""
    size = int(args[0])
    try:
        mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        return {"mapped": size}
    except OSError as exc:
        return {"refused": size, "error": exc.strerror}


def shared(args):
    """Hold (touched) a shared mapping larger than the memory limit: the bot's cgroup counts it (RLIMIT_DATA
    would not); the kernel kills this process before it says anything."""
    size = int(args[0])
    held = mmap.mmap(-1, size)
    for i in range(0, size, mmap.PAGESIZE):
        held[i] = 1
    return {"held": size}


def cpu(args):
    """Spin until the CPU limit stops this process (the checker sees the signal in the exit status)."""
    end = time.monotonic() + float(args[0])
    while time.monotonic() < end:
        pass
    return {"spun": float(args[0])}


def procs(args):
    """Start processes until the system says no; they wait, and die with the sandbox."""
    n = 0
    for _ in range(int(args[0])):
        try:
            pid = os.fork()
        except OSError as exc:
            return {"started": n, "error": exc.strerror}
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
    return {"started": n}


def files(args):
    """Open files until the system says no."""
    kept = []
    for _ in range(int(args[0])):
        try:
            kept.append(open(os.devnull))
        except OSError as exc:
            return {"opened": len(kept), "error": exc.strerror}
    return {"opened": len(kept)}


def fsize(args):
    """Write one file longer than the limit allows (SIGXFSZ ignored, so that the write reports it)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return _fill("/tmp/big", int(args[0]), chunk=1 << 20)


def tmp(args):
    """Fill /tmp with files below the file-size limit until it is full."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    total, i = 0, 0
    while total < int(args[0]):
        got = _fill(f"/tmp/part{i}", min(int(args[1]), int(args[0]) - total + (1 << 20)), chunk=1 << 20)
        total += got["wrote"]
        i += 1
        if "error" in got:
            return {"wrote": total, "error": got["error"]}
    return {"wrote": total}


def sleep(args):
    """Say which PID namespace this is, then wait to be killed with the sandbox."""
    print(json.dumps({"pidns": _readlink("/proc/self/ns/pid")}), flush=True)
    time.sleep(float(args[0]))
    return {"slept": True}


LEFT_KEY = 0x10C1  # the SysV shared memory key and the name of what a game leaves for the next
KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl: syscall numbers


def leave(args):
    """Leave what a bot could try to pass to its next game in a kept sandbox: files in /tmp and /dev/shm, a
    SysV shared memory segment, keys in its user and session keyrings, a process in a new session, a TCP
    connection in TIME_WAIT; say who and where it is."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    left = {}
    for path in ("/tmp/locm-left", "/dev/shm/locm-left"):
        with open(path, "w") as f:
            f.write("from the last game")
        os.chmod(path, 0o666)
        left[path] = "written"
    left["shm"] = "made" if libc.shmget(LEFT_KEY, 4096, 0o1666) >= 0 else os.strerror(ctypes.get_errno())
    numbers = KEYCTL.get(os.uname().machine)
    for keyring, name in ((-4, "key"), (-3, "session key")):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING
        if numbers:
            got = libc.syscall(numbers[0], b"user", b"locm-left", b"x", 1, keyring)
            left[name] = "added" if got >= 0 else os.strerror(ctypes.get_errno())
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    peer, _ = server.accept()
    client.close()  # it closes first: its end waits in TIME_WAIT
    peer.close()
    server.close()
    left["time_wait"] = "made"
    if os.fork() == 0:
        os.setsid()
        time.sleep(60)
        os._exit(0)
    left["process"] = "started"
    return {"left": left, **_who()}


def find(args):
    """What a game finds of the last one's leftovers (`leave`), and who and where it is."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    found = [p for p in ("/tmp/locm-left", "/dev/shm/locm-left") if os.path.exists(p)]
    if libc.shmget(LEFT_KEY, 0, 0) >= 0:
        found.append("shm segment")
    numbers = KEYCTL.get(os.uname().machine)
    for keyring, name in ((-4, "key"), (-3, "session key")):  # KEYCTL_SEARCH in @u, in @s
        if numbers and libc.syscall(numbers[1], 10, keyring, b"user", b"locm-left", 0) >= 0:
            found.append(name)
    others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    if others:
        found.append(f"processes {others}")
    tcp = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                tcp += [line.split()[3] for line in f.read().splitlines()[1:]]
        except OSError:
            pass
    if tcp:
        found.append(f"sockets in states {sorted(set(tcp))}")
    return {"found": found, **_who()}


def _who():
    return {"uid": os.getuid(), "pid": os.getpid(), "uts": _readlink("/proc/self/ns/uts"),
            "pidns": _readlink("/proc/self/ns/pid")}


def _fill(path, size, chunk):
    wrote = 0
    block = b"\0" * chunk
    with open(path, "wb", buffering=0) as f:
        while wrote < size:
            try:
                n = f.write(block[:min(chunk, size - wrote)])
            except OSError as exc:
                return {"wrote": wrote, "error": exc.strerror}
            wrote += n
    return {"wrote": wrote}


def _readlink(path):
    try:
        return os.readlink(path)
    except OSError:
        return None


if __name__ == "__main__":
    print(json.dumps(globals()[sys.argv[1]](sys.argv[2:])), flush=True)
