"""`engine/` and `events/` type-check under `mypy --strict` (issue 11): a signature or a change that breaks a
type fails here, with mypy's report.

mypy follows imports on disk and does not run setuptools' editable-install finder, so it cannot see that
`engine/` installs as `locm.engine`. The test therefore lays the two folders out as they are installed
(``<tmp>/locm/engine``, ``<tmp>/locm/events``) and checks the packages by their installed names.
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ("engine", "events")


def _installed_layout(tmp: Path) -> Path:
    (tmp / "locm").mkdir()
    (tmp / "locm" / "__init__.py").write_text("")
    for name in CORE:
        shutil.copytree(ROOT / name, tmp / "locm" / name, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp


def _mypy(cwd: Path) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml")]
    for name in CORE:
        args += ["-p", f"locm.{name}"]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True)


def test_engine_and_events_pass_mypy_strict(tmp_path):
    result = _mypy(_installed_layout(tmp_path))
    assert result.returncode == 0, f"mypy --strict locm.engine locm.events failed:\n{result.stdout}{result.stderr}"
    assert "no issues found in" in result.stdout


def test_the_check_catches_a_type_error(tmp_path):
    """The same run fails on a planted error, so a pass above means the modules were checked."""
    tree = _installed_layout(tmp_path)
    state = tree / "locm" / "engine" / "locm" / "state.py"
    state.write_text(state.read_text() + "\n\ndef _planted() -> int:\n    return 'not an int'\n")
    result = _mypy(tree)
    assert result.returncode == 1 and "engine/locm/state.py" in result.stdout and "return-value" in result.stdout
