"""The build: pure Python, or LOCM's rules core compiled with mypyc where a C compiler exists (as black and mypy
ship theirs), and the native (C++) core, `locm.engine.locm._native` (engine/locm/cpp/core.cpp, pybind11), where a
C++ compiler exists. Everything else is in pyproject.toml.

LOCM_NATIVE=1 builds the native core (and fails if it cannot), LOCM_NATIVE=0 leaves it out; unset, a wheel has it
when a C++ compiler and Python's headers are found, and an editable install has not (`make native` builds it in
place for developers: LOCM_MYPYC=0 LOCM_NATIVE=1 `python setup.py build_ext --inplace`). Its source's sha256 is compiled in
(``SOURCE_SHA256``): `locm.engine.corebuild.native_module` refuses a build whose source changed since.

LOCM_MYPYC=1 compiles (and fails if it cannot), LOCM_MYPYC=0 builds pure; unset, a wheel is compiled when a C
compiler and Python's headers are found and pure otherwise, and an editable install (`make setup`, developers) is
always pure, so no compiled module can shadow a `.py` being edited. `make fast` builds the compiled wheel into
.venv-fast/. The compiled build records a hash of every compiled module's source
(locm/engine/_corebuild.py); `locm.engine.corebuild` refuses a build whose sources changed since.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# The compiled modules, by their path in the checkout: LOCM's rules core, the card generator included. Left
# interpreted: agents.py and lookahead.py (locm.games.locm.bots subclasses their classes), the modules off the hot path
# (describe, views, protocol text, variants, redecide, definition), the modules that only define msgspec Structs and
# tables (commands, cardweights, carddata, rulesets, upcast: nothing to gain, and mypyc cannot build a NamedTuple
# annotated `object` in rulesets), and the package __init__ files.
COMPILED = [
    "engine/jrandom.py",
    *(f"engine/locm/{m}.py" for m in (
        "state", "legal", "evolve", "emit", "decide", "drawing", "combat", "battle", "items", "draft", "game",
        "setup", "construct", "cardgen")),
]
# The checkout's folders as installed (pyproject.toml's package-dir): mypyc names modules by their path.
INSTALLED_AS = {"engine": "locm/engine", "events": "locm/events"}


def _installed(path: str) -> str:
    top, rest = path.split("/", 1)
    return f"{INSTALLED_AS[top]}/{rest}"


def _want(variable: str, compiler_var: str, default_compiler: str, what: str) -> bool:
    """Whether to build a compiled part: ``variable`` = 0 or 1 says; else yes where a compiler (``$CC``/``$CXX``
    or Python's own) and Python.h are there, and never for an editable install."""
    setting = os.environ.get(variable, "")
    if setting in ("0", "1"):
        return setting == "1"
    if setting:
        sys.exit(f"setup.py: {variable} must be 0 or 1, got {setting!r}")
    if "editable_wheel" in sys.argv or "develop" in sys.argv:
        return False
    compiler = os.environ.get(compiler_var) or sysconfig.get_config_var(compiler_var) or default_compiler
    found = shutil.which(compiler.split()[0])
    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    if not (found and headers):
        print(f"setup.py: no {default_compiler} compiler or no Python.h: building {what}", file=sys.stderr)
    return bool(found and headers)


def _want_compiled() -> bool:
    return _want("LOCM_MYPYC", "CC", "cc", "the pure-Python core")


def _want_native() -> bool:
    return _want("LOCM_NATIVE", "CXX", "c++", "without the native core")


NATIVE_SOURCE = "engine/locm/cpp/core.cpp"


def _native_extensions() -> list:
    from pybind11.setup_helpers import Pybind11Extension

    digest = hashlib.sha256((HERE / NATIVE_SOURCE).read_bytes()).hexdigest()
    return [Pybind11Extension("locm.engine.locm._native", [NATIVE_SOURCE], cxx_std=17,
                              define_macros=[("LOCM_SOURCE_SHA256", f'"{digest}"')],
                              extra_compile_args=["-O3", "-ffp-contract=off"])]


def _build_hash() -> tuple[str, dict[str, str]]:
    sources = {p: hashlib.sha256((HERE / p).read_bytes()).hexdigest() for p in COMPILED}
    whole = hashlib.sha256("".join(f"{p}\0{h}\0" for p, h in sorted(sources.items())).encode()).hexdigest()
    return whole[:12], sources


class BuildPy(build_py):
    """Writes locm/engine/_corebuild.py: which core this build holds, its hash and its sources' hashes."""

    compiled = False

    def run(self) -> None:
        super().run()
        build_hash, sources = _build_hash()
        text = ('"""Written by setup.py at build time (not in git): what `locm.engine.corebuild` checks."""\n'
                f"COMPILED = {self.compiled!r}\nBUILD_HASH = {build_hash!r}\n"
                f"SOURCES = {dict(sorted(sources.items()))!r}\nCHECKOUT = {str(HERE)!r}\n")
        out = Path(self.build_lib, "locm", "engine", "_corebuild.py")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def _mypyc_extensions() -> list:
    # mypyc names a module by its file's place among packages: stage the sources laid out as installed
    # (locm/engine/locm/state.py), under build/, and compile from there.
    stage = HERE / "build" / "mypyc-src"
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "locm").mkdir(parents=True)
    shutil.copy(HERE / "locm" / "__init__.py", stage / "locm" / "__init__.py")
    for top, dest in INSTALLED_AS.items():
        shutil.copytree(HERE / top, stage / dest, ignore=shutil.ignore_patterns("__pycache__"))
    # Not the project's strict settings (tests/test_typing.py checks those): the modules the compiled ones import
    # are type-checked only as far as compiling needs.
    (stage / "mypy.ini").write_text("[mypy]\nfollow_imports = silent\n")
    from mypyc.build import mypycify

    cwd = os.getcwd()
    os.chdir(stage)
    try:
        # group_name: the compiled modules' shared library is locm/engine/core__mypyc*.so, inside the one name locm
        return mypycify(["--config-file", "mypy.ini", *(_installed(p) for p in COMPILED)], opt_level="3",
                        group_name="locm.engine.core", target_dir=str(HERE / "build" / "mypyc-c"))
    finally:
        os.chdir(cwd)


# Reading the metadata needs no compiling (pip asks for it before the wheel).
METADATA_ONLY = bool({"egg_info", "dist_info"} & set(sys.argv)) and "bdist_wheel" not in sys.argv

if not METADATA_ONLY:
    # setuptools keeps build/lib* between builds: a module compiled before and not now would ship beside its .py.
    for old in HERE.glob("build/lib*"):
        shutil.rmtree(old)

extensions = []
if _want_compiled() and not METADATA_ONLY:
    BuildPy.compiled = True
    extensions += _mypyc_extensions()
if _want_native() and not METADATA_ONLY:
    extensions += _native_extensions()
setup(cmdclass={"build_py": BuildPy}, ext_modules=extensions)
