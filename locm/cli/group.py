"""The `locm` group's behaviour: usage errors and project errors as one line and an exit status, never a
traceback; standard output guarded for every command; ``--version``. `locm.cli.main` builds the group."""

from __future__ import annotations

import contextlib
import errno
import os
import sys

import click

from locm.engine.errors import LocmError

EXIT_ERROR = 2


class LocmGroup(click.Group):
    """Turns usage errors into one line: `locm CMD: error: ...`. Standard output is guarded for the command
    (`locm.common.outputs.guard_stdout`): a closed one, a broken pipe or a full disk under it never stops a command
    before its file outputs are written; a closed or full one is reported at the end, in one line."""

    def main(self, args=None, prog_name="locm", **extra):
        from locm.common.outputs import guard_stdout, stdout_problem

        real, real_err = sys.stdout, sys.stderr
        guard = guard_stdout()
        code = 0
        try:
            self._main(args, prog_name, **extra)
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.stdout, sys.stderr = real, real_err
        problem = stdout_problem(guard)
        if guard.problem is not None:
            _silence_stdout()  # what is still buffered for it is dropped at exit, not written again
        if problem and code in (0, None):
            click.echo(f"locm: error: {problem}", err=True)
            code = EXIT_ERROR
        sys.exit(code)

    def _main(self, args, prog_name, **extra):
        try:
            value = super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
            sys.stdout.flush()  # a full disk under standard output is reported here, not at exit
            return value
        except click.exceptions.NoArgsIsHelpError as exc:  # pragma: no cover - click >= 8.2
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.UsageError as exc:
            cmd = exc.ctx.command_path if exc.ctx else "locm"
            hint = f" (see '{cmd} --help')"
            click.echo(f"{cmd}: error: {exc.format_message()}{hint}", err=True)
            sys.exit(EXIT_ERROR)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("locm: aborted", err=True)
            sys.exit(130)
        except LocmError as exc:
            click.echo(f"locm: error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        except BrokenPipeError:
            sys.exit(0)
        except OSError as exc:
            if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
                _internal_error(exc)
            _silence_stdout()
            click.echo(f"locm: error: cannot write standard output: {exc.strerror}", err=True)
            sys.exit(EXIT_ERROR)
        except Exception as exc:  # a bug: still one line, the traceback on demand
            _internal_error(exc)


_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO}
"""Errors of a write to standard output that are the output's fault (a full disk, a file-size limit)."""


def _internal_error(exc: Exception):
    if os.environ.get("LOCM_DEBUG"):
        raise exc
    click.echo(f"locm: internal error: {type(exc).__name__}: {exc} (set LOCM_DEBUG=1 for the "
               "traceback)", err=True)
    sys.exit(70)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered for it is dropped at exit instead
    of failing again there."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)


def show_version(ctx: click.Context, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from locm.engine import registry
    from locm.engine.corebuild import core

    click.echo(f"locm {version('locm')}, {core()}")
    games = {g.name: g for g in registry.definitions()}  # every game loaded: a broken one is a problem line
    click.echo("games: " + ", ".join(
        name + (f" ({', '.join(g.aliases)})" if g.aliases else "")
        + (f" from {registry.SOURCES[name]}" if name in registry.SOURCES else "") for name, g in games.items()))
    for line in registry.problems():
        click.echo(f"locm: warning: {line}", err=True)
    ctx.exit()


__all__ = ["EXIT_ERROR", "LocmGroup", "show_version"]
