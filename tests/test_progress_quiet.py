"""Progress bars only where someone watches a terminal: a command whose standard error is a pipe writes no
stray label line there (click's bar alone printed "verifying", "playing" or "migrating" on a line of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *args], capture_output=True, text=True, cwd=cwd)


def test_no_progress_label_without_a_terminal(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    played = run("tournament", "--agents", "greedy", "random", "--games", "2", "--db", db, cwd=ROOT)
    assert played.returncode == 0, played.stderr
    checked = run("verify", "--db", db, cwd=ROOT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for r in (played, checked):
        lines = (r.stdout + r.stderr).splitlines()
        assert not [line for line in lines if line.strip() in ("playing", "verifying")], lines
