"""The commands' progress bars: on standard error, and only where someone watches a terminal. Without one
(a pipe, a log file, CI) nothing is written for them at all: click's bar would print its label alone, a stray
``verifying`` or ``playing`` line in the middle of a command's output."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any

import click


class _Silent:
    """A bar that shows nothing: iterates what it was given, counts its updates (``pos``, as click's bar)."""

    def __init__(self, iterable: Iterable | None) -> None:
        self._iterable = iterable if iterable is not None else ()
        self.pos = 0

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *_exc: Any) -> None:
        return None

    def __iter__(self) -> Iterator:
        return iter(self._iterable)

    def update(self, n_steps: int = 1, current_item: Any = None) -> None:
        self.pos += n_steps


def bar(iterable: Iterable | None = None, *, length: int | None = None, label: str = "", **options: Any):
    """`click.progressbar` on standard error where it is a terminal and there is something to show (a
    ``length`` of 0 shows no empty 0/0 bar); else a silent bar of the same shape (``with``, iteration,
    ``update``)."""
    if not sys.stderr.isatty() or length == 0:
        return _Silent(iterable)
    return click.progressbar(iterable, length=length, label=label, file=sys.stderr, **options)


__all__ = ["bar"]
