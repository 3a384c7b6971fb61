"""`locm sandbox check`: what the sandbox enforces on this machine, each property and limit tried live.

Every check starts a real sandbox with the policy given (`locm.runner.sandbox.bwrap.build`, as a bot's) running
`locm/runner/sandbox/probe.py` from a fresh folder (beside a file standing for the store, which must read empty)
under this Python, and compares what the probe saw with what it must see. The CPU limit is tried at one
second (a busy loop must be stopped by SIGXCPU) so that the check stays short; the others at the values
given. `run_checks` returns one `Check` per line of the report.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

from locm.runner.sandbox import cgroup
from locm.runner.sandbox.bwrap import Sandbox, bot_environment, build, probe, require, wait_child_pid
from locm.runner.sandbox.limits import MiB, _show
from locm.runner.sandbox.kept import KeptSandbox, can_keep

PROBE = Path(__file__).with_name("probe.py")


class Check(NamedTuple):
    name: str
    ok: bool | None  # None: not limited, nothing to try
    detail: str


class _Box:
    """A fresh bot folder holding the probe and a stand-in store, hidden by the policy."""

    def __init__(self, policy: Sandbox) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="locm-sandbox-check-"))
        self.dir.chmod(0o755)  # the bot's uid must read its folder (run by root, it is not the owner)
        self.probe = self.dir / "probe.py"
        shutil.copyfile(PROBE, self.probe)
        self.probe.chmod(0o644)
        self.store = self.dir / "locm.db"
        self.store.write_bytes(b"SQLite format 3\0 stand-in for the store")
        self.store.chmod(0o644)
        self.outside = Path(tempfile.mkdtemp(prefix="locm-sandbox-check-outside-")) / "secret"
        self.outside.write_text("not for bots")
        self.policy = dataclasses.replace(policy, hide=policy.hide + (str(self.store),))
        self.kept: dict[Sandbox, KeptSandbox] | None = None  # a dict: each run is a game in a kept sandbox

    def argv(self, test: str = "", *args) -> list[str]:
        return [sys.executable, "-I", "-S", str(self.probe), *([test] if test else []), *map(str, args)]

    def run(self, test: str, *args, stdin: str = "", policy: Sandbox | None = None,
            timeout: float = 60) -> tuple[int, dict]:
        argv = self.argv(test, *args)
        if self.kept is not None:
            code, out, err = self._game(argv, policy or self.policy, stdin, timeout)
        else:
            code, out, err = self._own(argv, policy or self.policy, stdin, timeout)
        lines = out.strip().splitlines()
        try:
            return code, json.loads(lines[-1]) if lines else {"stderr": err.strip()[-300:]}
        except ValueError:
            return code, {"stdout": out[-300:], "stderr": err.strip()[-300:]}

    def _own(self, argv: list[str], policy: Sandbox, stdin: str, timeout: float) -> tuple[int, str, str]:
        """Run ``argv`` in a sandbox of its own, as a bot's (`locm.runner.bots.BotAgent`): in a cgroup of its own
        where there is one, moved there while bubblewrap waits (``--block-fd``)."""
        group = cgroup.make(policy.limits.mem, policy.limits.procs)
        launch = build(argv, policy, str(self.dir), counted=group is not None)
        gate, go = os.pipe() if group is not None else (-1, -1)
        args = launch.argv[:1] + ["--block-fd", str(gate)] + launch.argv[1:] if group is not None else launch.argv
        try:
            proc = subprocess.Popen(args, env=launch.env, pass_fds=launch.pass_fds + ((gate,) if gate >= 0 else ()),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if group is not None:
                os.close(gate)
                pid = wait_child_pid(launch.info, 10)
                if pid is not None:
                    group.add(pid)
                os.write(go, b"\n")
                os.close(go)
            try:
                out, err = proc.communicate(stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
        finally:
            launch.close()
            if group is not None:
                group.remove()
        return proc.returncode, out, err

    def _game(self, argv: list[str], policy: Sandbox, stdin: str, timeout: float) -> tuple[int, str, str]:
        """Run ``argv`` as one game in the kept sandbox of `policy` (made at its first game, then kept)."""
        box = self.kept.get(policy)
        if box is None:
            box = self.kept[policy] = KeptSandbox(self.argv(), policy, str(self.dir))
        fds = box.start(bot_environment(policy.limits), argv)
        with open(fds[0], "wb") as f:
            f.write(stdin.encode())
        out = {fds[1]: bytearray(), fds[2]: bytearray()}
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            for fd in out:
                sel.register(fd, selectors.EVENT_READ)
            while sel.get_map() and time.monotonic() < deadline:
                for key, _ in sel.select(max(0.0, deadline - time.monotonic())):
                    chunk = os.read(key.fd, 65536)
                    if chunk:
                        out[key.fd] += chunk
                    else:
                        sel.unregister(key.fd)
        code = box.exit_status(time.monotonic() + 5)
        if not box.finish():
            box.destroy()
            del self.kept[policy]
        for fd in out:
            os.close(fd)
        return -1 if code is None else code, out[fds[1]].decode(errors="replace"), out[fds[2]].decode(errors="replace")

    def close(self) -> None:
        for box in (self.kept or {}).values():
            box.destroy()
        self.kept = None
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.outside.parent, ignore_errors=True)


def run_checks(policy: Sandbox, progress: Callable[[Check], None] | None = None) -> list[Check]:
    """Every check of `policy` on this machine (`SandboxUnavailableError` if there is no sandbox at all)."""
    require(dataclasses.replace(policy, enabled=True))
    box = _Box(policy)
    checks = []
    passes = [("", (_inspect, _memory, _cpu, _procs, _files, _fsize, _tmp, _vmem, _dies_with_parent))]
    if can_keep(dataclasses.replace(policy, enabled=True)):  # what a tournament's workers run bots in
        passes.append(("kept ", (_inspect, _memory, _cpu, _procs, _files, _fsize, _tmp, _vmem, _game_to_game,
                                 _kept_dies_with_parent)))
    try:
        for prefix, makers in passes:
            box.kept = {} if prefix else None
            for make in makers:
                for check in make(box, policy):
                    check = check._replace(name=prefix + check.name)
                    checks.append(check)
                    if progress:
                        progress(check)
    finally:
        box.close()
    return checks


def header() -> str:
    found = probe()
    kept = "; the checks run again in a sandbox kept across games (\"kept\", as a tournament's workers run bots)"
    if os.geteuid() == 0:
        who = "run as root: each bot gets a fresh unprivileged uid" + kept
    else:
        who = "run as a user: each bot gets a user namespace (each game its own in a kept sandbox)" + (
            kept if can_keep(Sandbox()) else "; sandboxes are NOT kept across games here (a kept sandbox's "
                                             "game could not make its user namespace)")
    return f"locm sandbox check: bubblewrap {found.version}, {who}"


# --- the checks -------------------------------------------------------------------------------------------


def _inspect(box: _Box, policy: Sandbox):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    paths = ["/etc/shadow", str(box.outside), str(box.store), str(Path.home() / ".bashrc")]
    try:
        code, seen = box.run("inspect", os.getpid(), port, stdin=json.dumps(paths))
    finally:
        listener.close()
    if "ns" not in seen:
        yield Check("sandbox", False, f"the probe did not run (exit {code}): {seen}")
        return
    mine = {n: os.readlink(f"/proc/self/ns/{n}") for n in seen["ns"] if os.path.exists(f"/proc/self/ns/{n}")}
    must = ["pid", "ipc", "uts", "mnt"] + ([] if policy.network else ["net"]) + ([] if os.geteuid() == 0 else ["user"])
    same = [n for n in must if seen["ns"].get(n) == mine.get(n)]
    apart = [n for n in seen["ns"] if seen["ns"][n] and seen["ns"][n] != mine.get(n)]
    yield Check("namespaces", not same, f"separate from the host's: {', '.join(apart) or 'none'}"
                + (f"; NOT separate: {', '.join(same)}" if same else ""))
    root_ok = seen["uid"] != 0 and int(seen["caps"] or "0", 16) == 0 and seen["no_new_privs"] == "1"
    yield Check("identity", root_ok, f"uid {seen['uid']}, capabilities {seen['caps']}, no new privileges "
                                     f"{'yes' if seen['no_new_privs'] == '1' else 'NO'}")
    yield Check("processes", len(seen["pids"]) <= 3 and seen["signal_host"] != "delivered",
                f"sees {len(seen['pids'])} processes {seen['pids']}; signalling this command: {seen['signal_host']}")
    connected = seen["connect"] == "connected"
    yield Check("network", connected == policy.network,
                f"a port open on the host's 127.0.0.1: {seen['connect']}"
                + (" (--bot-network given)" if policy.network else ""))
    files = seen["files"]
    hidden = all(not v.startswith("read") for k, v in files.items() if k != str(box.store))
    store = files[str(box.store)] in ("read 0 bytes", "Permission denied")  # bound over with /dev/null
    shown = {"/etc/shadow": "/etc/shadow", str(box.outside): "a file outside its folder",
             str(box.store): "the store in its folder", paths[3]: "~/.bashrc"}
    yield Check("files", hidden and store, "; ".join(f"{shown[k]}: {v}" for k, v in files.items()))
    keys = seen["keys"]
    yield Check("keyrings", all(v == "Operation not permitted" for k, v in keys.items() if k != "/proc/keys")
                and keys["/proc/keys"] in ("Permission denied", "read 0 bytes"),
                "; ".join(f"{k}: {v}" for k, v in keys.items()))
    yield Check("user namespaces", seen["userns"] != "made", f"making one: {seen['userns']}")
    doors = seen["doors"]
    yield Check("system calls", all(v in ("Operation not permitted", "Function not implemented")
                                    for v in doors.values()), "; ".join(f"{k}: {v}" for k, v in doors.items()))
    masked = seen["proc"]
    yield Check("host load", all(v in ("read 0 bytes", "zeros", "Permission denied", "No such file or directory")
                                 for v in masked.values()),
                "; ".join(f"{k}: {v}" for k, v in masked.items()))
    writes = seen["writes"]
    ro = all(v != "written" for k, v in writes.items() if not k.startswith("/tmp/")) \
        and writes.get("/tmp/written") == "written"
    yield Check("read-only", ro, "; ".join(f"{'its folder' if k.startswith(str(box.dir)) else k}: {v}"
                                          for k, v in writes.items()))


def _memory(box: _Box, policy: Sandbox):
    mem = policy.limits.mem
    if mem is None:
        yield Check("mem=none", None, "not limited")
        return
    found = cgroup.where()
    if found.version:
        code, seen = box.run("shared", mem + 64 * MiB)
        name = "memory.max" if found.version == 2 else "memory.limit_in_bytes"
        pids = f", pids.max={policy.limits.procs}" if found.pids and policy.limits.procs is not None else ""
        yield Check(f"mem={_show('mem', mem)}", "held" not in seen and code in (137, -9),
                    f"holding {_show('mem', mem + 64 * MiB)} in a shared mapping: "
                    + (f"killed by the kernel (cgroup v{found.version} {name}{pids}, below {found.memory})"
                       if "held" not in seen and code in (137, -9) else f"ALLOWED (exit {code})"))
        return
    yield Check("memory counted", None, f"per process only (RLIMIT_DATA): no writable cgroup here ({found.reason}); "
                                        f"shared mappings, memory files and /tmp are NOT counted")
    code, seen = box.run("memory", mem + 16 * MiB)
    yield Check(f"mem={_show('mem', mem)}", "refused" in seen,
                f"mapping {_show('mem', mem + 16 * MiB)}: " + (seen.get("error") or "ALLOWED"))


def _cpu(box: _Box, policy: Sandbox):
    if policy.limits.cpu is None:
        yield Check("cpu=none", None, "not limited")
        return
    quick = dataclasses.replace(box.policy, limits=dataclasses.replace(policy.limits, cpu=1))
    t0 = time.monotonic()
    code, seen = box.run("cpu", 30, policy=quick)
    took = time.monotonic() - t0
    stopped = code == 128 + signal.SIGXCPU or code == 128 + signal.SIGKILL
    yield Check(f"cpu={policy.limits.cpu}", stopped,
                f"a busy loop {'was stopped by ' + signal.Signals(code - 128).name if stopped else 'was NOT stopped'}"
                f" after {took:.1f} s (tried with cpu=1)")


def _procs(box: _Box, policy: Sandbox):
    n = policy.limits.procs
    if n is None:
        yield Check("procs=none", None, "not limited")
        return
    code, seen = box.run("procs", n + 8)
    yield Check(f"procs={n}", "error" in seen and seen["started"] < n,
                f"{seen.get('started')} more processes started, then: {seen.get('error', 'NO LIMIT')}")


def _files(box: _Box, policy: Sandbox):
    n = policy.limits.files
    if n is None:
        yield Check("files=none", None, "not limited")
        return
    code, seen = box.run("files", n + 8)
    yield Check(f"files={n}", "error" in seen and n - 16 <= seen["opened"] < n,  # 3 pipes and a few of Python's
                f"{seen.get('opened')} files opened, then: {seen.get('error', 'NO LIMIT')}")


def _fsize(box: _Box, policy: Sandbox):
    n = policy.limits.fsize
    if n is None:
        yield Check("fsize=none", None, "not limited")
        return
    roomy = dataclasses.replace(box.policy, limits=dataclasses.replace(policy.limits, tmp=n + 16 * MiB))
    code, seen = box.run("fsize", n + MiB, policy=roomy)
    yield Check(f"fsize={_show('fsize', n)}", seen.get("wrote") == n and "error" in seen,
                f"a file of {_show('fsize', n + MiB)} stopped at {_show('fsize', seen.get('wrote'))}: "
                f"{seen.get('error', 'NO LIMIT')}")


def _tmp(box: _Box, policy: Sandbox):
    n = policy.limits.tmp
    part = min(policy.limits.fsize or n, 8 * MiB)
    code, seen = box.run("tmp", n + 8 * MiB, part)
    wrote = seen.get("wrote") or 0
    yield Check(f"tmp={_show('tmp', n)}", "error" in seen and wrote <= n,
                f"/tmp filled at {_show('tmp', wrote)}: {seen.get('error', 'NO LIMIT')}")


def _vmem(box: _Box, policy: Sandbox):
    n = policy.limits.vmem
    if n is None:
        yield Check("vmem=none", None, "not limited (the default: see --bot-limits)")
        return
    code, seen = box.run("memory", n + 16 * MiB)
    yield Check(f"vmem={_show('vmem', n)}", "refused" in seen,
                f"mapping {_show('vmem', n + 16 * MiB)}: " + (seen.get("error") or "ALLOWED"))


def _dies_with_parent(box: _Box, policy: Sandbox):
    """A helper process starts a sandbox and is killed with SIGKILL: nothing of the sandbox may remain."""
    argv = [sys.executable, "-I", "-S", str(box.probe), "sleep", 60]
    launch = build([str(a) for a in argv], box.policy, str(box.dir))
    helper = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                               "fds = tuple(int(fd) for fd in sys.argv[1].split(','))\n"
                               "subprocess.Popen(sys.argv[2:], pass_fds=fds)\n"
                               "time.sleep(60)", ",".join(map(str, launch.pass_fds)), *launch.argv],
                              env=launch.env, pass_fds=launch.pass_fds, stdout=subprocess.PIPE, text=True)
    launch.started()  # the info pipe stays open: bwrap writing to a closed one would die of SIGPIPE
    try:
        line = _readline(helper.stdout, 30)
        pidns = json.loads(line)["pidns"] if line.strip() else None
    finally:
        helper.kill()
        helper.wait()
        helper.stdout.close()
        launch.close()
    left = _in_namespace(pidns) if pidns else None
    end = time.monotonic() + 5
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = _in_namespace(pidns)
    yield Check("dies with parent", pidns is not None and left == [],
                "killing the process that started a sandbox (SIGKILL) ended everything in it" if left == []
                else f"processes left in the sandbox: {left}" if pidns else "the sandbox did not start")


def _game_to_game(box: _Box, policy: Sandbox):
    """Two games in one kept sandbox: the first leaves what it can for the second, which must find none."""
    _, first = box.run("leave")
    _, second = box.run("find")
    left = first.get("left") or {}
    same = first.get("uts") is not None and first.get("uts") == second.get("uts")
    fresh = first.get("uid") != second.get("uid") and second.get("pid") == first.get("pid") == 2
    found = second.get("found")
    yield Check("game to game", bool(left) and same and fresh and found == [],
                f"a game left {', '.join(f'{k} ({v})' for k, v in left.items()) or 'nothing (' + str(first) + ')'}; "
                f"the next game in {'the same' if same else 'ANOTHER'} sandbox found "
                f"{'nothing' if found == [] else found}, as uid {second.get('uid')} (then {first.get('uid')}), "
                f"pid {second.get('pid')} of a PID namespace of its own"
                + ("" if fresh else " (NOT a fresh uid and pid 2)"))


def _kept_dies_with_parent(box: _Box, policy: Sandbox):
    """A helper process makes a kept sandbox, starts a game in it and is killed with SIGKILL: nothing of the
    sandbox (its launcher, the game) may remain."""
    spec = {"limits": box.policy.limits.spec(), "network": box.policy.network, "binds": list(box.policy.binds),
            "hide": list(box.policy.hide), "argv": box.argv(), "sleep": box.argv("sleep", 60), "dir": str(box.dir)}
    code = ("import json, os, sys, time\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "from locm.runner.sandbox.bwrap import Sandbox, bot_environment\n"
            "from locm.runner.sandbox.limits import BotLimits\n"
            "from locm.runner.sandbox.kept import KeptSandbox\n"
            "s = json.loads(sys.argv[2])\n"
            "policy = Sandbox(BotLimits.parse(s['limits']), s['network'], tuple(s['binds']), tuple(s['hide']))\n"
            "kept = KeptSandbox(s['argv'], policy, s['dir'])\n"
            "fds = kept.start(bot_environment(policy.limits), s['sleep'])\n"
            "line = json.loads(os.read(fds[1], 4096).decode().splitlines()[0])\n"
            "line['launcher'] = kept.launcher_pid()\n"
            "print(json.dumps(line), flush=True)\n"
            "time.sleep(60)\n")
    helper = subprocess.Popen([sys.executable, "-I", "-c", code, str(Path(__file__).resolve().parents[3]),
                               json.dumps(spec)], stdout=subprocess.PIPE, text=True)
    try:
        line = _readline(helper.stdout, 30)
        seen = json.loads(line) if line.strip() else {}
    finally:
        helper.kill()
        helper.wait()
        helper.stdout.close()
    pidns, launcher = seen.get("pidns"), seen.get("launcher")
    end = time.monotonic() + 5
    left = (_in_namespace(pidns) if pidns else []) + ([launcher] if launcher and _alive(launcher) else [])
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = (_in_namespace(pidns) if pidns else []) + ([launcher] if launcher and _alive(launcher) else [])
    if not pidns:
        detail = f"the game did not start: {seen}"
    elif left:
        detail = f"processes left: {left}"
    else:
        detail = "killing the process that made a kept sandbox (SIGKILL) ended its launcher and its game"
    yield Check("dies with parent", bool(pidns and launcher) and left == [], detail)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in "ZX"


def _readline(stream, seconds: float) -> str:
    """A line from a pipe, or "" if none comes within ``seconds``."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        return stream.readline() if sel.select(seconds) else ""


def _in_namespace(pidns: str) -> list[int]:
    """The live processes of this PID namespace (as the host sees them)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{entry}/ns/pid") == pidns:
                    state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state not in "ZX":
                        found.append(int(entry))
    return found


__all__ = ["Check", "run_checks", "header"]
