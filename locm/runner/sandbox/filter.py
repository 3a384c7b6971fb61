"""The system-call filter of every bot sandbox: the kernel's keyrings are closed to bots.

Why: a key's "user" permissions are granted by the owner's uid as the kernel knows it (the kuid), whatever
user namespace a process is in. Run by a user, every bot runs as that user's kuid (its sandbox's user
namespace maps one uid), and the user's own keyring (``_uid.N``) grants that kuid every permission: tried
on this project's machine (kernel 6.18), a bot in a sandbox listed it in ``/proc/keys``, read it, linked
keys of its own into it (which outlive its game: a channel to its next games and to the other bots), cleared
it (the runner's keys gone) and filled the user's key quota (200 keys, 20,000 bytes: ``kernel.keys.maxkeys``,
``maxbytes``), which every process of that user shares, the other bots included. Run by root, bots have uids
of their own, but one in a sandbox of its own still inherits the runner's session keyring (a login's).

So every sandbox, run by root or not, kept or not, is given a seccomp filter that refuses ``add_key``,
``keyctl`` and ``request_key`` with ``EPERM`` (as Docker's default profile does) and allows everything else;
``/proc/keys`` and ``/proc/key-users`` are bound over with ``/dev/null``. Bots never need keyrings (no
runtime locm runs uses them to start).

Bots themselves get more doors closed (`BOT_DENIED`, the bot filter, ``program(bot=True)``): what Docker's
default profile refuses that no bot needs -- io_uring (its own path around seccomp, and a history of kernel
bugs), ``userfaultfd`` (a tool for winning kernel races), new namespaces (``unshare``, ``setns``, ``clone``
with a ``CLONE_NEW*`` flag; ``clone3``, whose flags a filter cannot read, answers ``ENOSYS`` so that the C
library falls back to ``clone``), ``perf_event_open`` and ``bpf`` (side channels on the opponent's CPU), mounts
and the new mount API, kernel modules, ``kexec``, swap, ``reboot``, the clocks, ``acct``, ``quotactl``,
``open_by_handle_at``, ``syslog``. (Docker also limits ``personality``, the NUMA calls and, on old kernels,
``ptrace``: a bot's own address layout, memory placement or children harm no one outside it.) A sandbox of its own is given
the bot filter by bubblewrap; a kept sandbox's launcher needs namespaces and mounts to make each game, so
bubblewrap gives it the keyring filter and each game's first process loads the bot filter itself just before
it starts the bot (`locm.runner.sandbox.launcher`). Checked against every real bot kind
(tests/test_real_bots.py: Python with numpy, Java, Node.js, C++, Mono, Rust where installed).

The filters are made by libseccomp (``libseccomp.so.2``, Debian package ``libseccomp2``, which apt itself
needs) and loaded by bubblewrap (``--seccomp FD``); they cover the machine's other ABIs (i386 and x32 on
x86-64, arm on aarch64), whose system calls would otherwise get libseccomp's default for a foreign
architecture (the process killed).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

DENIED = ("add_key", "keyctl", "request_key")
"""The system calls refused to everything in a sandbox (``EPERM``)."""
BOT_DENIED = ("io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "perf_event_open", "bpf",
              "unshare", "setns", "mount", "umount2", "umount", "pivot_root", "chroot", "fsopen", "fsconfig",
              "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr", "init_module", "finit_module",
              "delete_module", "create_module", "kexec_load", "kexec_file_load", "swapon", "swapoff", "reboot",
              "settimeofday", "clock_settime", "clock_adjtime", "stime", "acct", "quotactl", "quotactl_fd",
              "open_by_handle_at", "syslog", "lookup_dcookie", "uselib", "ustat", "sysfs", "_sysctl", "vhangup",
              "iopl", "ioperm", "vm86", "vm86old", "nfsservctl", "get_kernel_syms", "query_module")
"""The system calls refused to bots besides `DENIED` (``EPERM``); those this machine's ABIs lack are skipped."""
CLONE_NEW_FLAGS = 0x7E020000
"""``CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET``: ``clone`` with any is refused."""

OTHER_ABIS = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}
"""libseccomp's names of the other ABIs a process of this machine can call the kernel through."""
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000  # | the errno (libseccomp's seccomp.h)
SCMP_CMP_MASKED_EQ = 7


class _ArgCmp(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``: a test of one argument of a system call."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]
FIX = "install libseccomp (apt-get install libseccomp2)"


class FilterUnavailable(OSError):
    """libseccomp is missing or refused to make the filter (the message says which, with the fix)."""


@functools.lru_cache(maxsize=None)
def program(bot: bool = False) -> bytes:
    """The filter as bubblewrap's ``--seccomp`` reads it (classic BPF), made once per process by libseccomp:
    the keyrings refused (`DENIED`) and, for a bot (``bot``), the doors of `BOT_DENIED` too."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        raise FilterUnavailable(f"libseccomp is not installed: {FIX}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_arch_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise FilterUnavailable(f"libseccomp could not start a filter: {FIX}")
    try:
        for abi in OTHER_ABIS.get(os.uname().machine, ()):
            token = lib.seccomp_arch_resolve_name(abi.encode())
            if token:
                _ok(lib.seccomp_arch_add(ctx, token), f"add the {abi} ABI")
        for call in DENIED:
            number = lib.seccomp_syscall_resolve_name(call.encode())
            if number < 0:
                raise FilterUnavailable(f"libseccomp does not know the system call {call}: {FIX}")
            _ok(lib.seccomp_rule_add(ctx, SCMP_ACT_ERRNO | errno.EPERM, number, 0), f"refuse {call}")
        if bot:
            _bot_rules(lib, ctx)
        read, write = os.pipe()
        try:
            _ok(lib.seccomp_export_bpf(ctx, write), "export the filter")
            os.close(write)
            write = -1
            data = b""
            while chunk := os.read(read, 65536):
                data += chunk
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
    finally:
        lib.seccomp_release(ctx)
    if not data or len(data) % 8:  # struct sock_filter: 8 bytes an instruction
        raise FilterUnavailable(f"libseccomp made an empty or broken filter ({len(data)} bytes): {FIX}")
    return data


def _bot_rules(lib, ctx) -> None:
    """`BOT_DENIED`, ``clone`` with a namespace flag, ``clone3`` (``ENOSYS``)."""
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    refuse = SCMP_ACT_ERRNO | errno.EPERM
    for call in BOT_DENIED:
        number = lib.seccomp_syscall_resolve_name(call.encode())
        if number >= 0:  # not on this machine's ABIs (vm86 is i386's): nothing to refuse
            _ok(lib.seccomp_rule_add(ctx, refuse, number, 0), f"refuse {call}")
    clone = lib.seccomp_syscall_resolve_name(b"clone")
    for flag in (1 << bit for bit in range(32) if CLONE_NEW_FLAGS >> bit & 1):
        test = (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))  # (flags & flag) == flag
        _ok(lib.seccomp_rule_add_array(ctx, refuse, clone, 1, test), "refuse clone with a namespace flag")
    clone3 = lib.seccomp_syscall_resolve_name(b"clone3")
    if clone3 >= 0:
        _ok(lib.seccomp_rule_add(ctx, SCMP_ACT_ERRNO | errno.ENOSYS, clone3, 0), "refuse clone3")


def _ok(result: int, what: str) -> None:
    if result < 0:
        raise FilterUnavailable(f"libseccomp could not {what} ({os.strerror(-result)}): {FIX}")


def fd(bot: bool = False) -> int:
    """A pipe's read end holding the filter (``bot``: the bot filter), for bubblewrap's ``--seccomp`` (the caller
    passes and closes it)."""
    data = program(bot)
    read, write = os.pipe()
    os.write(write, data)  # a few hundred bytes: far below a pipe's buffer
    os.close(write)
    return read


__all__ = ["DENIED", "BOT_DENIED", "FilterUnavailable", "program", "fd"]
