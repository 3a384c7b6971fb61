"""Shared by the native core's tests: the Python core built beside it, and selecting a core for a block."""

from __future__ import annotations

import contextlib

import locm
from locm.engine.corebuild import built

PYTHON_KIND = next(c.kind for c in built() if c.kind != "native")
"""The Python core this checkout has (``compiled`` where mypyc built it, else ``pure``)."""


@contextlib.contextmanager
def selected(kind):
    """The core `kind` selected (as LOCM_CORE selects it: `locm.CORE_CHOICE`), whatever the test run selects."""
    before = locm.CORE_CHOICE
    locm.CORE_CHOICE = kind
    try:
        yield
    finally:
        locm.CORE_CHOICE = before
