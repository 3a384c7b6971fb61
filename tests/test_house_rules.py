"""The house rules as tests (issue 30), over the package laid out as installed (``<tmp>/locm/engine`` ...):

- import-linter's contracts in pyproject.toml (``[tool.importlinter]``): the rules core is pure, and the layers
  import downward only (`lint-imports`, the tool's own command);
- no import circle between modules, imports inside functions included (grimp, the graph import-linter builds,
  with ``if TYPE_CHECKING:`` blocks left out), checked by the standard library's topological sort;
- the generic modules import no game: only a game's wing (a ``locm`` / ``mcg`` / ``skyport`` subpackage of a layer,
  or ``locm.games.<game>``) and the registries (``*.registry``) may import a game's package. `STILL_NAMING`
  lists the exceptions with the reason for each: it is empty now, and the list must be exactly what the code has
  (a module that starts to import a game fails the test, and so does one that stops without leaving the list).

Setuptools' editable install maps ``engine/`` to ``locm.engine`` with an import hook that neither grimp nor
lint-imports runs, so the test copies the checkout's folders into the installed layout first (as
tests/test_typing.py does for mypy).
"""

import graphlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="import-linter (the test extra) is not installed")

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "events", "replay", "analysis", "data")
GAMES = ("locm", "mcg", "skyport")
LAYERS = ("locm.engine", "locm.events", "locm.replay", "locm.analysis", "locm.rl", "locm.games")
STILL_NAMING: dict[str, str] = {}
"""Generic modules that still import a game, and why: none (issue 30: none but the registries)."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("installed")
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(ROOT / "locm", tmp / "locm", ignore=ignore)
    for name in FOLDERS:
        shutil.copytree(ROOT / name, tmp / "locm" / name, ignore=ignore)
    return tmp


@pytest.fixture(scope="module")
def graph(installed):
    sys.path.insert(0, str(installed))
    saved = {k: v for k, v in sys.modules.items() if k == "locm" or k.startswith("locm.")}
    for k in saved:
        del sys.modules[k]
    try:
        return grimp.build_graph("locm", exclude_type_checking_imports=True, cache_dir=None)
    finally:
        sys.path.remove(str(installed))
        sys.modules.update(saved)


def wing(module: str) -> str | None:
    """The game whose wing `module` is in, or None for a generic module."""
    parts = module.split(".")
    for layer in LAYERS:
        lp = layer.split(".")
        if parts[: len(lp)] == lp and len(parts) > len(lp) and parts[len(lp)] in GAMES:
            return parts[len(lp)]
    if parts[:2] == ["locm", "rl"] and len(parts) == 3:  # the environments' modules of one game: rl/locm_dataset.py
        return next((g for g in GAMES if parts[2].startswith(g + "_")), None)
    return None


def test_the_import_contracts_hold(installed):
    run = subprocess.run([str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo",
                          str(ROOT / "pyproject.toml")],
                         cwd=installed, capture_output=True, text=True,
                         env={"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in run.stdout, run.stdout[-2000:]


def test_no_module_is_in_an_import_circle(graph):
    circle = _circle(graph)
    assert circle is None, f"an import circle: {' -> '.join(circle or ())}"


def test_generic_modules_import_no_game(graph):
    naming = {}
    for module in sorted(graph.modules):
        if wing(module) or module.endswith(".registry"):
            continue
        games = sorted({wing(t) for t in graph.find_modules_directly_imported_by(module)} - {None})
        if games:
            naming[module] = games
    new = {m: g for m, g in naming.items() if m not in STILL_NAMING}
    assert not new, "generic modules that import a game's package: " + "; ".join(
        f"{m} imports {', '.join(g)}" for m, g in new.items())
    gone = set(STILL_NAMING) - set(naming)
    assert not gone, f"no longer import a game (take them off STILL_NAMING): {', '.join(sorted(gone))}"


def _circle(graph) -> list[str] | None:
    order = graphlib.TopologicalSorter({m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
    try:
        order.prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def test_the_checks_find_what_is_planted(installed, tmp_path):
    """A copy with a planted circle (inside a function) and a generic module importing a game: both found."""
    copy = tmp_path / "planted"
    shutil.copytree(installed, copy)
    (copy / "locm" / "common" / "planted_a.py").write_text("def f():\n    from locm.common import planted_b\n")
    (copy / "locm" / "common" / "planted_b.py").write_text("from locm.common import planted_a\nimport locm.engine.mcg\n")
    sys.path.insert(0, str(copy))
    saved = {k: v for k, v in sys.modules.items() if k == "locm" or k.startswith("locm.")}
    for k in saved:
        del sys.modules[k]
    try:
        planted = grimp.build_graph("locm", exclude_type_checking_imports=True, cache_dir=None)
    finally:
        sys.path.remove(str(copy))
        sys.modules.update(saved)
    assert set(_circle(planted) or ()) == {"locm.common.planted_a", "locm.common.planted_b"}
    assert "locm.engine.mcg" in planted.find_modules_directly_imported_by("locm.common.planted_b")
    assert wing("locm.common.planted_b") is None and wing("locm.engine.mcg.game") == "mcg"
