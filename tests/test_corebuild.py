"""The compiled core's build (setup.py, `make fast`) and its refusal when stale (engine/corebuild.py).

Run by `make test` on the pure editable install and by `make test-fast` (LOCM_TEST_CORE=compiled) on the
compiled build in .venv-fast/, where the tests marked `compiled_only` check that build itself: every recorded
module is the compiled one, its hash is the sources', every installed file is under `locm`, and an installed copy
whose source was edited is refused with a one-line message saying to rebuild.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import locm

from locm.cli.main import cli
from locm.engine import corebuild
from locm.engine.corebuild import (Core, StaleCoreError, core, native_module, refuse_stale, sources_hash,
                                   stale_sources)

TEST_CORE = os.environ.get("LOCM_TEST_CORE", "")  # make test-fast: "compiled", then "native"
COMPILED_RUN = TEST_CORE == "compiled"
compiled_only = pytest.mark.skipif(not COMPILED_RUN, reason="checks the compiled build: `make test-fast`")


def _tree(root: Path, files: dict[str, bytes]) -> dict[str, str]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text)
    return {name: hashlib.sha256(text).hexdigest() for name, text in files.items()}


def test_stale_sources_names_an_edited_and_a_missing_module(tmp_path):
    sources = _tree(tmp_path, {"engine/locm/state.py": b"A = 1\n", "engine/jrandom.py": b"B = 2\n",
                               "engine/locm/legal.py": b"C = 3\n"})
    assert stale_sources(sources, [tmp_path]) == []
    (tmp_path / "engine/locm/state.py").write_bytes(b"A = 2\n")
    (tmp_path / "engine/jrandom.py").unlink()
    assert sorted(stale_sources(sources, [tmp_path])) == ["engine/jrandom.py", "engine/locm/state.py"]


def test_a_stale_compiled_build_is_refused_with_a_message_to_rebuild(monkeypatch, tmp_path):
    sources = _tree(tmp_path, {"engine/locm/state.py": b"A = 1\n"})
    monkeypatch.setattr(corebuild, "_build_info", lambda: (True, "abc123abc123", sources, str(tmp_path)))
    monkeypatch.setattr(corebuild, "_roots", lambda checkout: [Path(checkout)])
    refuse_stale()  # unchanged: accepted
    (tmp_path / "engine/locm/state.py").write_bytes(b"A = 2\n")
    with pytest.raises(StaleCoreError) as err:
        refuse_stale()
    assert err.value.changed == ["engine/locm/state.py"]
    assert "build abc123abc123" in str(err.value) and "engine/locm/state.py" in str(err.value)
    assert "make fast" in str(err.value)
    # a pure build has nothing compiled to go stale
    monkeypatch.setattr(corebuild, "_build_info", lambda: (False, "abc123abc123", sources, str(tmp_path)))
    refuse_stale()


def test_version_says_which_core_runs():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    version = importlib.metadata.version("locm")
    first, games = result.output.splitlines()
    assert first == f"locm {version}, {core()}"
    assert games.startswith("games: locm, mcg (my-card-game), skyport")  # then any installed from outside
    # as LOCM_CORE chose (locm.CORE_CHOICE); unset: the fastest built here, native where `make native` built it
    kind = TEST_CORE or locm.CORE_CHOICE or ("native" if native_module("locm")[0] is not None else "pure")
    expected = {"compiled": "compiled by mypyc", "native": "native C++", "pure": "pure Python"}[kind]
    assert expected in result.output
    assert str(Core("compiled", "c256bac2c6f3")) == "core: compiled by mypyc (build c256bac2c6f3)"


def test_bench_reports_the_core_it_measured():
    result = CliRunner().invoke(cli, ["bench", "--core", "this", "--games", "2", "--json"])
    assert result.exit_code == 0, result.output
    assert f'"core": "{core()}"' in result.output


@pytest.mark.skipif(core() != Core("pure", "editable"), reason="bench picks .venv-fast/ from the editable install only")
def test_bench_takes_the_compiled_build_beside_only_while_it_is_current(tmp_path):
    """`locm bench` (--core best) runs the checkout's .venv-fast/ build only if that build's sources are the
    checkout's: a stale one would refuse to run, so the pure core plays and says why."""
    from locm.games.locm.bench import compiled_beside

    (tmp_path / "engine").mkdir()
    source = tmp_path / "engine" / "jrandom.py"
    source.write_text("x = 1\n")
    fast = tmp_path / ".venv-fast" / "bin" / "locm"
    fast.parent.mkdir(parents=True)
    fast.write_text("")
    info = tmp_path / ".venv-fast" / "lib" / "python3.11" / "site-packages" / "locm" / "engine" / "_corebuild.py"
    info.parent.mkdir(parents=True)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    info.write_text(f"COMPILED = True\nBUILD_HASH = 'b'\nSOURCES = {{'engine/jrandom.py': {digest!r}}}\n")
    assert compiled_beside(tmp_path) == (str(fast), "")
    source.write_text("x = 2\n")
    assert compiled_beside(tmp_path) == (None, "the compiled core in .venv-fast/ is stale (engine/jrandom.py "
                                               "changed since it was built)")
    info.write_text("SOURCES = __import__('os').system('false')\n")  # read as data, never run
    assert compiled_beside(tmp_path) == (None, "the build in .venv-fast/ does not say what it was built from")
    shutil.rmtree(tmp_path / ".venv-fast")
    assert compiled_beside(tmp_path) == (None, "")


@compiled_only
def test_the_compiled_build_runs_compiled_modules_with_the_sources_hash():
    from locm.engine import _corebuild  # type: ignore[attr-defined]

    assert _corebuild.COMPILED and core() == Core("compiled", _corebuild.BUILD_HASH)
    assert _corebuild.BUILD_HASH == sources_hash(_corebuild.SOURCES)
    assert {"engine/jrandom.py", "engine/locm/state.py", "engine/locm/cardgen.py"} <= set(_corebuild.SOURCES)
    for path in _corebuild.SOURCES:
        module = importlib.import_module("locm." + path.removesuffix(".py").replace("/", "."))
        assert module.__file__ is not None and module.__file__.endswith(".so"), module.__file__


@compiled_only
def test_the_compiled_build_installs_everything_under_locm():
    import locm

    (info,) = Path(locm.__file__).parent.parent.glob("locm-*.dist-info")  # the installed one, not the checkout's
    files = importlib.metadata.Distribution.at(info).files or []
    tops = {f.parts[0] for f in files if f.parts[0] != ".."}  # `..`: the console script, in the venv's bin/
    assert tops == {"locm", info.name}, tops
    assert any(f.name.startswith("core__mypyc") for f in files)


@compiled_only
def test_an_installed_compiled_core_whose_source_changed_is_refused(tmp_path):
    import locm

    site = tmp_path / "site"
    shutil.copytree(Path(locm.__file__).parent, site / "locm", ignore=shutil.ignore_patterns("__pycache__"))
    run = [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); from locm.cli.main import main; "
           "sys.argv[1:] = ['--version']; main()", str(site)]
    ok = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0 and "compiled by mypyc" in ok.stdout, ok.stderr
    with open(site / "locm" / "engine" / "locm" / "legal.py", "a") as f:
        f.write("\n# edited after the build\n")
    stale = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True)
    assert stale.returncode == 2 and stale.stdout == ""
    assert stale.stderr.count("\n") == 1 and "Traceback" not in stale.stderr
    assert "engine/locm/legal.py changed since it was built" in stale.stderr and "make fast" in stale.stderr
