"""A sandboxed bot's limits (``--bot-limits``): memory, CPU seconds, processes, open files, file size, the
private ``/tmp``, address space; how they are read, shown and set (``prlimit``; the memory limit is the bot's
cgroup's where one is writable, `locm.runner.sandbox.cgroup`)."""

from __future__ import annotations

import dataclasses
import re

from locm.errors import BotLimitsError

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

_LIMIT_HELP = {
    "mem": "bytes of memory of the whole bot, all its processes, shared mappings, memory files and /tmp: the cgroup "
           "memory controller (RLIMIT_DATA per process where no cgroup is writable: locm sandbox check)",
    "cpu": "CPU seconds per process: RLIMIT_CPU",
    "procs": "processes and threads in the sandbox: RLIMIT_NPROC",
    "files": "open files per process: RLIMIT_NOFILE",
    "fsize": "bytes of one written file: RLIMIT_FSIZE",
    "tmp": "bytes of the private /tmp (and of /dev/shm)",
    "vmem": "bytes of address space per process: RLIMIT_AS (off by default: the JVM, .NET and V8 reserve "
            "far more address space than they use)",
}
_SIZES = {"mem", "fsize", "tmp", "vmem"}
_MINIMUM = {"mem": 16 * MiB, "cpu": 1, "procs": 1, "files": 16, "fsize": 0, "tmp": 1 * MiB, "vmem": 64 * MiB}
_UNITS = {"": 1, "b": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1 << 40}


@dataclasses.dataclass(frozen=True)
class BotLimits:
    """What one bot may use; None is no limit of locm's (the runner's own limit applies)."""

    mem: int | None = 768 * MiB
    cpu: int | None = 60
    procs: int | None = 128
    files: int | None = 256
    fsize: int | None = 64 * MiB
    tmp: int = 64 * MiB
    vmem: int | None = None

    @classmethod
    def parse(cls, spec: str | None) -> "BotLimits":
        """``None``/empty: the defaults. Otherwise comma-separated ``name=value`` items changing them: sizes
        take a unit (``768m``, ``1g``, ``512k``; bytes without one), ``none`` lifts a limit (not ``tmp``)."""
        if not spec or not spec.strip():
            return cls()
        changes = {}
        names = [f.name for f in dataclasses.fields(cls)]
        for item in (i.strip() for i in spec.split(",")):
            if not item:
                continue
            name, sep, text = (p.strip() for p in item.partition("="))
            if not sep:
                raise BotLimitsError(spec, f"expected name=value, got {item!r}")
            if name not in names:
                raise BotLimitsError(spec, f"unknown limit {name!r}, expected one of {', '.join(names)}")
            changes[name] = _limit_value(spec, name, text)
        return dataclasses.replace(cls(), **changes)

    def spec(self) -> str:
        """The limits as ``--bot-limits`` reads them (every one, in a fixed order): for the record."""
        return ",".join(f"{k}={_show(k, v)}" for k, v in dataclasses.asdict(self).items())

    def prlimit_args(self, data: bool = True) -> list[str]:
        """``prlimit`` options setting each limit (soft and hard), core dumps off (``data`` False: the memory
        limit is the bot's cgroup's, `locm.runner.sandbox.cgroup`, not RLIMIT_DATA). The CPU limit's hard value
        is one second above the soft one: SIGXCPU first, then SIGKILL for a bot that ignores it."""
        flags = {"mem": "--data", "procs": "--nproc", "files": "--nofile", "fsize": "--fsize", "vmem": "--as"}
        args = [f"{flag}={getattr(self, k)}" for k, flag in flags.items()
                if getattr(self, k) is not None and (data or k != "mem")]
        if self.cpu is not None:
            args.append(f"--cpu={self.cpu}:{self.cpu + 1}")
        return args + ["--core=0"]


def _limit_value(spec: str, name: str, text: str) -> int | None:
    if text.lower() in ("none", "unlimited"):
        if name == "tmp":
            raise BotLimitsError(spec, "tmp cannot be none: the private /tmp is memory and needs a size")
        return None
    m = re.fullmatch(r"(\d+)\s*([bkmgt]?)(?:i?b)?", text.lower()) if name in _SIZES else re.fullmatch(r"(\d+)()", text)
    if not m:
        kind = "a size like 768m or 1g" if name in _SIZES else "a whole number"
        raise BotLimitsError(spec, f"{name}: expected {kind} or none, got {text!r}")
    value = int(m.group(1)) * _UNITS[m.group(2)]
    if value < _MINIMUM[name] or value >= 1 << 62:
        raise BotLimitsError(spec, f"{name}: expected at least {_show(name, _MINIMUM[name])}, got {text!r}")
    return value


def _show(name: str, value: int | None) -> str:
    if value is None:
        return "none"
    if name not in _SIZES:
        return str(value)
    for unit, size in (("g", GiB), ("m", MiB), ("k", KiB)):
        if value and value % size == 0:
            return f"{value // size}{unit}"
    return str(value)


def limits_help() -> str:
    return "; ".join(f"{k}: {v}" for k, v in _LIMIT_HELP.items())


__all__ = ["BotLimits", "limits_help", "KiB", "MiB", "GiB"]
