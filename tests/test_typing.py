"""`engine/` and `events/` type-check under `mypy --strict` (issue 11): a signature or a change that breaks a
type fails here, with mypy's report."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_and_events_pass_mypy_strict():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "engine", "events"],
        cwd=ROOT, capture_output=True, text=True,
    )
    print(result.stdout, result.stderr)
    assert result.returncode == 0, f"mypy --strict engine events failed:\n{result.stdout}{result.stderr}"
