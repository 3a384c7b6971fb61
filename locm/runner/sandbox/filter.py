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
runtime locm runs uses them to start). The filter is made by libseccomp (``libseccomp.so.2``, Debian package
``libseccomp2``, which apt itself needs) and loaded by bubblewrap (``--seccomp FD``); it covers the machine's
other ABIs (i386 and x32 on x86-64, arm on aarch64), whose system calls would otherwise get libseccomp's
default for a foreign architecture (the process killed).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

DENIED = ("add_key", "keyctl", "request_key")
"""The system calls refused to bots (``EPERM``)."""
OTHER_ABIS = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}
"""libseccomp's names of the other ABIs a process of this machine can call the kernel through."""
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000  # | the errno (libseccomp's seccomp.h)
FIX = "install libseccomp (apt-get install libseccomp2)"


class FilterUnavailable(OSError):
    """libseccomp is missing or refused to make the filter (the message says which, with the fix)."""


@functools.lru_cache(maxsize=None)
def program() -> bytes:
    """The filter as bubblewrap's ``--seccomp`` reads it (classic BPF), made once per process by libseccomp."""
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


def _ok(result: int, what: str) -> None:
    if result < 0:
        raise FilterUnavailable(f"libseccomp could not {what} ({os.strerror(-result)}): {FIX}")


def fd() -> int:
    """A pipe's read end holding the filter, for bubblewrap's ``--seccomp`` (the caller passes and closes it)."""
    data = program()
    read, write = os.pipe()
    os.write(write, data)  # a few hundred bytes: far below a pipe's buffer
    os.close(write)
    return read


__all__ = ["DENIED", "FilterUnavailable", "program", "fd"]
