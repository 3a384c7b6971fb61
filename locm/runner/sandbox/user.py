"""Run a command as another user, by root, where that user can reach this Python and locm: how the tests and
`benchmarks/bench_sandbox.py` try the sandbox as a runner that is not root (`as_user`).

A user such as ``nobody`` often cannot run the interpreter that runs locm: a pyenv or a venv under ``/root``
(mode 0700) is out of its reach. `as_user` changes nothing on the machine: bubblewrap, run by root, gives the
command a mount namespace of its own where the host is as it is (``/`` bound read-write, the host's ``/proc``
included), except that each folder on the way to what the command needs (the interpreter, its installation,
``sys.path``, the paths given) that the user could not pass through is an empty tmpfs showing only the needed
folders beneath it; then ``setpriv`` drops to the user (its uid and gid, no other group, no capability) and
runs the command. Only bubblewrap's mount namespace is new: the command's processes, network and files are
the host's, as a user's would be.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import sys

from locm.errors import LocmError


class RunAsError(LocmError):
    """A command cannot be run as the user asked for here (the message says why)."""


def needed_paths(extra: tuple[str, ...] = ()) -> list[str]:
    """The real paths a command run by this Python needs to reach: the interpreter, its installation, the
    folders of ``sys.path`` and ``extra``."""
    paths = [sys.executable, getattr(sys, "_base_executable", sys.executable), sys.prefix, sys.base_prefix,
             *(p for p in sys.path if p), *extra]
    return sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})


def _passable(path: str, user: pwd.struct_passwd) -> bool:
    """Whether ``user`` (no supplementary group: `as_user` clears them) may pass through the folder ``path``."""
    st = os.stat(path)
    if st.st_uid == user.pw_uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid == user.pw_gid:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def view_args(paths: list[str], user: pwd.struct_passwd) -> list[str]:
    """bubblewrap's options that let ``user`` reach ``paths``: each folder above one of them that it cannot
    pass through becomes a tmpfs (mode 0755) showing only the needed entries, each bound from the host (or
    made a folder, when it is such a folder too, which comes next: bubblewrap mounts in order)."""
    blocked: dict[str, set[str]] = {}
    for path in paths:
        parts = path.strip("/").split("/")
        for i in range(len(parts)):
            folder = "/" + "/".join(parts[:i])
            if not _passable(folder, user):
                blocked.setdefault(folder, set()).add(parts[i])
    args = []
    for folder in sorted(blocked, key=lambda f: (f.count("/"), f)):
        args += ["--perms", "0755", "--tmpfs", folder]
        for entry in sorted(blocked[folder]):
            inner = os.path.join(folder, entry)
            args += ["--perms", "0755", "--dir", inner] if inner in blocked else ["--bind", inner, inner]
    return args


def as_user(argv: list[str], user: str = "nobody", extra: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs ``argv`` as ``user`` (by root), reaching this Python, its packages and
    ``extra`` (`RunAsError` if it cannot be done here)."""
    if os.geteuid() != 0:
        raise RunAsError(f"only root can run a command as {user}")
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise RunAsError(f"there is no user {user!r} here") from None
    bwrap, setpriv = shutil.which("bwrap"), shutil.which("setpriv")
    if bwrap is None or setpriv is None:
        raise RunAsError("bwrap (bubblewrap) and setpriv (util-linux) are needed to run a command as another user")
    return [bwrap, "--dev-bind", "/", "/", *view_args(needed_paths(extra), entry), "--die-with-parent",
            "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
            setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--inh-caps=-all",
            "--", *argv]


__all__ = ["RunAsError", "as_user", "needed_paths", "view_args"]
