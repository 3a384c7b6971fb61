"""Project-wide pytest options."""

import os
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden event logs under tests/golden/ (only on purpose)")


def pytest_configure(config):
    # `make test-fast` runs the engine-facing tests on the build installed in .venv-fast/ (a wheel, compiled where a
    # C compiler exists), with --import-mode=append so that the checkout's locm/ folder does not shadow it: checked.
    if os.environ.get("LOCM_TEST_INSTALLED") == "1":
        import locm.engine
        from locm.engine.corebuild import core

        if Path(locm.engine.__file__).resolve().parent == Path(__file__).resolve().parent.parent / "engine":
            raise pytest.UsageError(f"LOCM_TEST_INSTALLED=1 but locm.engine is the checkout's: {locm.engine.__file__}")
        if os.environ.get("LOCM_TEST_CORE", core().kind) != core().kind:
            raise pytest.UsageError(f"LOCM_TEST_CORE={os.environ['LOCM_TEST_CORE']} but this install runs {core()}")
