"""Run inside the sandbox by `locm sandbox check` (`locm.sandbox_check`): one test per run, named by argv[1],
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


def memory(args):
    """Map (without touching) more private memory than the limit allows."""
    size = int(args[0])
    try:
        mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        return {"mapped": size}
    except OSError as exc:
        return {"refused": size, "error": exc.strerror}


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
