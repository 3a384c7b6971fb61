"""The edges import without cycles (issue 21's review): the command modules that `locm.cli.main` registers do not
import `locm.cli.main` back, and `analysis/` does not import `locm.games.locm.cardreport` (the report imports the analysis)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_registered_command_modules_do_not_import_the_cli():
    modules = [p for p in (ROOT / "locm" / "cli").glob("*.py") if p.name != "main.py"]
    modules += list((ROOT / "locm" / "games").glob("*/*cli.py")) + [ROOT / "locm" / "games" / "registry.py"]
    assert len(modules) > 10
    for path in modules:
        assert "locm.cli.main" not in imported(path), path


def test_the_analysis_does_not_import_the_report():
    for path in (ROOT / "analysis").glob("*.py"):
        assert not {m for m in imported(path) if m.startswith("locm.games.locm.cardreport")}, path.name


def test_the_scan_sees_an_import(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text("def f():\n    from locm.cli.main import _n\n")
    assert "locm.cli.main" in imported(planted)
