"""The rules core stays pure (STYLE 6): engine/ and events/ import no SQLite, plotting, CLI or process code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "sqlite3", "sqlite_utils", "matplotlib", "click", "subprocess", "multiprocessing", "socket",
    "threading", "concurrent", "asyncio", "time", "datetime", "random", "os",
}
CORE = ("locm.engine", "locm.events")
"""The installed names of the core: the only parts of the ``locm`` package the core may import."""


def _impure(module: str) -> bool:
    top = module.split(".")[0]
    if top == "locm":
        return not any(module == c or module.startswith(c + ".") for c in CORE)
    return top in FORBIDDEN


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_modules_import_nothing_impure():
    offenders = {}
    for package in ("engine", "events"):
        for path in sorted((ROOT / package).rglob("*.py")):  # subpackages (engine/skyport/) included
            bad = {m for m in _imports(path) if _impure(m)}
            if bad:
                offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_scan_sees_imports():
    """The scanner itself finds an import (so an empty result above means something)."""
    assert "msgspec" in _imports(ROOT / "events" / "locm" / "catalog.py")
    assert "msgspec" in _imports(ROOT / "events" / "skyport" / "catalog.py")
    assert _impure("locm.store.eventstore") and _impure("locm") and _impure("sqlite3") and not _impure("locm.engine.locm.state")


def test_importing_and_playing_loads_no_impure_module():
    code = (
        "import sys\n"
        "from locm.engine.locm.game import Game\nfrom locm.engine.locm.agents import make_agent\n"
        "from locm.engine.locm.playing import play\n"
        "import locm.events.locm.codec, locm.engine.history\n"
        "g = Game.new('constructed', 5); play(g, [make_agent('random', 1), make_agent('greedy', 2)])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sqlite3', 'sqlite_utils', 'matplotlib', 'click', 'subprocess', 'multiprocessing'} "
        "or m.startswith('locm.') and m.split('.')[1] not in ('engine', 'events', 'data'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
