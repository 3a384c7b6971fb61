"""What a sandboxed bot's command needs to see: its own files, the folders they lie in, the installation of
its interpreter (a venv, a pyenv root, a JDK) and of a script's ``#!`` interpreter, each shown read-only at
its own path (`locm.runner.sandbox.bwrap` builds the bind options from them), and whether the bot's user can
read them (`unreadable`)."""

from __future__ import annotations

import functools
import os
import shutil

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Host folders shown read-only to every bot (a symlink, as ``/bin -> usr/bin``, is recreated as one)."""
TOO_BROAD = ("/", "/home", "/root", "/tmp", "/var/tmp", "/var", "/opt", "/srv", "/mnt", "/media", "/run", "/etc",
             "/dev", "/dev/shm", "/proc", "/sys", "/usr", "/usr/local", "/boot")
"""Folders never shown whole as a bot's own folder (nor the runner's home): a bot lying directly in one is
shown as its file alone."""


def unreadable(argv: list[str], cwd: str | None = None) -> str | None:
    """Why a bot's own files cannot be read by its sandbox's user, or None. Run by root, a bot runs as a uid
    of its own, which reads its folder and files only through their permissions for others (its folder's
    parents are made for the sandbox and do not matter): a folder of mode 0700 or a file of mode 0600 is
    refused up front, with the fix, instead of losing every game."""
    if os.geteuid() != 0:
        return None  # a user's bot runs as that user
    own, views = _views(tuple(argv), os.path.abspath(cwd or os.getcwd()), os.environ.get("PATH", os.defpath))
    for src, _ in views:
        if os.path.isdir(src) and os.stat(src).st_mode & 0o005 != 0o005:
            return f"its folder {src} is not readable by others (the sandbox runs bots as their own user): chmod o+rx"
    for path in own:
        if os.path.isfile(path) and os.stat(path).st_mode & 0o004 == 0:
            return f"{path} is not readable by others (the sandbox runs bots as their own user): chmod o+r"
    return None


@functools.lru_cache(maxsize=256)
def _views(argv: tuple[str, ...], cwd: str, path_var: str) -> tuple[frozenset[str], list[tuple[str, str]]]:
    """The bot's own files (real paths) and the ``(source, destination)`` folders its command needs."""
    own: set[str] = set()
    views: list[tuple[str, str]] = []
    program = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=path_var)
    if program is None:
        return frozenset(), []
    program = os.path.normpath(os.path.join(cwd, program))  # ./Coac/main and Coac/main: one folder, one view
    for runtime in _runtimes(program, by_path="/" not in argv[0]):
        views.append((os.path.realpath(runtime), runtime))
    for arg in argv[1:] if "/" not in argv[0] else argv:
        for part in [arg] + (arg.split(os.pathsep) if os.pathsep in arg else []):
            full = os.path.normpath(os.path.join(cwd, part)) if part else ""
            if not part or not os.path.exists(full):
                continue
            own.add(os.path.realpath(full))
            folder = full if os.path.isdir(full) else os.path.dirname(full)
            views.append((os.path.realpath(folder), folder) if not _too_broad(folder)
                         else (os.path.realpath(full), full))
    return frozenset(own), views


def _runtimes(program: str, by_path: bool) -> list[str]:
    """The folders a program needs to run: its installation (for a program found on the PATH, or one in a
    ``bin/`` folder, as a venv's python), the installation of the file a symlink points to, and the same for
    a script's ``#!`` interpreter. System programs need nothing more."""
    found = []
    for path in dict.fromkeys((program, os.path.realpath(program))):
        found += _install_root(path, walk=by_path)
    interpreter = _shebang(program)
    if interpreter:
        for path in dict.fromkeys((interpreter, os.path.realpath(interpreter))):
            found += _install_root(path, walk=True)
    return found


def _install_root(path: str, walk: bool) -> list[str]:
    if any(_inside(path, s) for s in SYSTEM + ("/etc",)):  # this path, not where it leads: a venv's python
        return []                                            # links to the system's, its venv is its own
    folder = os.path.dirname(path)
    if os.path.basename(folder) in ("bin", "sbin") and not _too_broad(os.path.dirname(folder)):
        return [os.path.dirname(folder)]
    if walk:  # a pyenv shim lives in <root>/shims and runs <root>/libexec/...
        d = os.path.dirname(folder)
        while not _too_broad(d) and d != os.path.dirname(d):
            if os.path.isdir(os.path.join(d, "bin")):
                return [d]
            d = os.path.dirname(d)
    return [folder] if not _too_broad(folder) else [path]


def _shebang(program: str) -> str | None:
    """The interpreter a script names on its ``#!`` line (resolved on the PATH through ``env``), if any."""
    try:
        with open(program, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return shutil.which(rest[0]) if rest else None
    return words[0]


def _system(path: str) -> bool:
    real = os.path.realpath(path)
    return any(_inside(p, s) for p in (path, real) for s in SYSTEM + ("/etc",))


def _too_broad(folder: str) -> bool:
    folder = os.path.normpath(folder)
    return folder in TOO_BROAD or folder == os.path.expanduser("~") or _system(folder) and folder != "/"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(views: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each destination once, none inside another (the outer one shows it already)."""
    kept: list[tuple[str, str]] = []
    for src, dest in sorted({(s, os.path.normpath(d)) for s, d in views}, key=lambda v: (len(v[1]), v)):
        if not any(_inside(dest, d) for _, d in kept) and not _system(dest) and os.path.exists(src):
            kept.append((src, dest))
    return kept


def _parents(dest: str, made: set[str]) -> list[str]:
    """``--dir`` for each missing ancestor of ``dest`` (mode 0755: bwrap would make them 0700 as root)."""
    out = []
    parts = dest.strip("/").split("/")[:-1]
    for i in range(1, len(parts) + 1):
        d = "/" + "/".join(parts[:i])
        if d not in made and not any(_inside(d, s) for s in SYSTEM):
            made.add(d)
            out += ["--perms", "0755", "--dir", d]
    return out


def _masks(shown: list[tuple[str, str]], hide: tuple[str, ...], own: frozenset[str]) -> list[str]:
    """Where each hidden file (not one of the bot's own) appears in the view: bound over with /dev/null."""
    out = []
    for path in hide:
        real = os.path.realpath(path)
        if real in own or not os.path.isfile(real):
            continue
        for src, dest in shown:
            if _inside(real, src):
                out.append(os.path.join(dest, os.path.relpath(real, src)) if real != src else dest)
    return out


__all__ = ["SYSTEM", "TOO_BROAD", "unreadable"]
