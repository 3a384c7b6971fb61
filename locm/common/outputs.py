"""Writing what the user named: a file whole or not at all, a device or a pipe as it is, a report complete or
absent; and a standard output that a closed or broken pipe never turns into a crash or a lost file.

- `output_file(path)`: ``-`` is standard output. A device, a FIFO or a socket (``/dev/null``, ``/dev/full``,
  a named pipe) is opened and written, never replaced. A symlink is followed: its target is written (the
  link stays a link). A regular file (or a new one) is written to a temporary file beside it, renamed over it
  when complete (keeping the old file's permissions) and removed on failure: an interrupted or failed write
  leaves the old file or nothing.
- `output_dir(path)`: several files (a report) are written into a staging directory beside ``path`` and moved
  into it only when all are written, so a full disk leaves the previous report or none, never part of one.
- `guard_stdout()`: standard output that cannot be written (closed, a broken pipe, a full disk) stops being
  written to instead of raising; the command carries on with its file outputs and reports at the end
  (`stdout_problem`). Text written to standard output or standard error goes through
  `locm.common.terminal_text.escape_controls`, so a bot's stderr, an agent's name or a log's text can never drive the
  terminal (its own progress bars pass); bytes written to ``sys.stdout.buffer`` (a log, an export, a page
  sent to ``-``) are the data itself and pass as they are. `raw_stdout()` is the terminal for a full-screen
  viewer that escapes what it shows itself.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from locm.errors import OutputError
from locm.common.terminal_text import escape_controls

_PROGRESS = re.compile("(\r\x1b\\[\\?25l|\x1b\\[\\?25h|\r)")
"""What click's progress bars write to a terminal (carriage return, hide and show the cursor): kept."""


def _target(path: Path) -> tuple[Path, os.stat_result | None]:
    """The path a write goes to (a symlink's target, followed all the way) and its stat, or None if missing."""
    real = Path(os.path.realpath(path))
    try:
        return real, os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is standard output or names something that is written in place (a device, a FIFO)."""
    if str(path) == "-":
        return True
    _, st = _target(Path(path))
    return st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


@contextlib.contextmanager
def output_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through (see the module docstring); `OutputError` on failure."""
    if str(path) == "-":
        sys.stdout.flush()
        out = sys.stdout.buffer
        yield out
        out.flush()
        return
    path = Path(path)
    real, st = _target(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a directory", str(path))
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):  # a device, a FIFO: written as it is
            with open(real, "wb") as f:
                yield f
            return
        tmp = real.with_name(f".{real.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with open(tmp, "xb") as f:
                yield f
            if st is not None:
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
            os.replace(tmp, real)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None


def write_output(path: str | os.PathLike, data: bytes) -> None:
    """`output_file` for data already in memory."""
    with output_file(path) as f:
        f.write(data)


@contextlib.contextmanager
def output_dir(path: str | os.PathLike) -> Iterator[Path]:
    """A staging directory to write the files of ``path`` into; when the block ends without an error they are
    moved into ``path`` (created if missing; its other files are left alone), else the staging directory is
    removed and ``path`` is as it was. Renames need no space, so a full disk fails before anything moves."""
    path = Path(path)
    real, st = _target(path)
    if st is not None and not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a file, expected a directory", str(path))
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        stage = real.with_name(f".{real.name}.{uuid.uuid4().hex[:8]}.tmp")
        stage.mkdir()
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None
    try:
        yield stage
        if st is None:
            os.rename(stage, real)
        else:
            for entry in sorted(stage.iterdir()):
                os.replace(entry, real / entry.name)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def check_output(path: str | os.PathLike) -> None:
    """Refuse, before any work is done for it, an output path that cannot be written: no such directory, not
    writable, a directory. A device or a FIFO is fine (written as it is)."""
    path = Path(path)
    if str(path) == "-":
        return
    real, st = _target(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a directory", str(path))
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not os.access(real, os.W_OK):
            raise OutputError(f"cannot write {path}: permission denied", str(path))
        return
    if not real.parent.is_dir():
        raise OutputError(f"cannot write {path}: no directory {path.parent}", str(path))
    if not os.access(real.parent, os.W_OK) or (st is not None and not os.access(real, os.W_OK)):
        raise OutputError(f"cannot write {path}: permission denied or read-only", str(path))


# --- standard output ----------------------------------------------------------------------------------------


class _Guarded:
    """Writes to a stream until one write fails; then it drops what follows and remembers why (in the guard
    it belongs to). Everything else is the stream's."""

    def __init__(self, stream, owner: "_StdoutGuard") -> None:
        self._stream, self._owner = stream, owner

    def write(self, data):
        if self._owner.problem is None:
            try:
                return self._stream.write(data)
            except (OSError, ValueError) as exc:  # ValueError: the stream was closed
                self._owner.problem = exc
        return len(data)

    def flush(self) -> None:
        if self._owner.problem is None:
            try:
                self._stream.flush()
            except (OSError, ValueError) as exc:
                self._owner.problem = exc

    def isatty(self) -> bool:
        return self._owner.problem is None and self._stream.isatty()

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _StdoutGuard(_Guarded):
    """`sys.stdout` for the duration of a command: text escaped (`escape_controls`), with ``buffer`` guarded
    the same way but written as it is (bytes: the data a command was asked to send)."""

    def __init__(self, stream, problem: OSError | None = None) -> None:
        self.problem: OSError | ValueError | None = problem
        super().__init__(stream if stream is not None else open(os.devnull, "w"), self)
        self.buffer = _Guarded(self._stream.buffer, self)

    def write(self, data):
        return super().write(escape_controls(data) if isinstance(data, str) else data)


class _EscapedText:
    """Standard error for the duration of a command: text escaped but for the progress bars' own codes."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, data):
        return self._stream.write(escape_controls(data, _PROGRESS) if isinstance(data, str) else data)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def guard_stdout() -> _StdoutGuard:
    """Put the guard in place of `sys.stdout` (and the escaping of `sys.stderr`); the caller puts both back.
    A closed standard output (None in Python) counts as lost."""
    real = sys.stdout
    closed = OSError(errno.EBADF, "standard output is closed") if real is None else None
    guard = _StdoutGuard(real, closed)
    sys.stdout = guard  # type: ignore[assignment]
    if sys.stderr is not None:
        sys.stderr = _EscapedText(sys.stderr)  # type: ignore[assignment]
    return guard


def raw_stdout():
    """The terminal itself, for a full-screen viewer that writes its own control codes and escapes the text
    it shows (`locm replay`)."""
    out = sys.stdout
    return getattr(out, "_stream", out)


def stdout_problem(guard: _StdoutGuard) -> str | None:
    """Why standard output could not be written, as the end of a one-line error; None if all went out, or if
    the reader went away (a broken pipe: ``locm games | head`` is not an error)."""
    exc = guard.problem
    if exc is None or (isinstance(exc, OSError) and exc.errno == errno.EPIPE):
        return None
    if isinstance(exc, OSError) and exc.errno == errno.EBADF:
        return "standard output is closed: what it would show was dropped"
    return f"cannot write standard output: {getattr(exc, 'strerror', None) or exc}"


__all__ = ["output_file", "write_output", "output_dir", "check_output", "is_stream", "guard_stdout",
           "stdout_problem", "raw_stdout"]
