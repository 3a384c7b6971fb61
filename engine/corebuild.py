"""Which core runs: pure Python, compiled by mypyc, or native C++ (setup.py, `make fast`); the choice
(``LOCM_CORE``, read by the package at its edge, `locm.CORE_CHOICE`); and the refusal of a stale build.

Cores: the Python core of the install is either pure or compiled (one or the other: mypyc compiles the modules
in place); a game's native core (C++: the extension ``_native`` in its wing, built from the wing's
``cpp/core.cpp``; LOCM's, `engine.locm.native`) is there besides where it was built, and plays whole games of
its agents, the Python core everything else. ``LOCM_CORE=native|compiled|pure`` chooses one of those built here
for every command (a core not built here, or another value, is refused with one line: `CoreChoiceError`, at
`import locm.engine`); unset, the fastest built runs (native, then compiled, then pure).

A compiled build records the sha256 of every compiled module's source and the checkout it was built from
(``locm/engine/_corebuild.py``, written by setup.py, not in git). On import of `locm.engine` (`refuse_stale`)
those sources are hashed again, the installed ones and, when the checkout is still there, the checkout's: a
compiled module whose `.py` changed since the build would run the old code, so the import is refused with a
message saying to rebuild. An editable install (`make setup`) is always pure and has nothing to check. Reading
about twenty small files costs about a millisecond.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import sys
from pathlib import Path
from typing import Any, Literal, NamedTuple, get_args

HERE = Path(__file__).resolve().parent  # the installed locm/engine (or the checkout's engine/, editable)


class StaleCoreError(ImportError):
    """A compiled core whose modules' sources changed since it was built (it would run the old code). Keeps the
    changed paths and the build's hash."""

    def __init__(self, changed: list[str], build: str, checkout: str) -> None:
        self.changed = changed
        self.build = build
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        super().__init__(f"the compiled core (build {build}) is stale: {shown} changed since it was built; "
                         f"rebuild it with 'make fast' in {checkout} (or use the pure install, 'make setup')")


class CoreChoiceError(ImportError):
    """``LOCM_CORE`` names no core built here (or no core at all). Keeps the value and the cores built."""

    def __init__(self, value: str, built: list[str], why: str = "") -> None:
        self.value = value
        self.built = built
        if value not in KINDS:
            super().__init__(f"LOCM_CORE must be one of {', '.join(KINDS)}, got {value!r}")
        else:
            super().__init__(f"LOCM_CORE={value}: this install has no {value} core (built here: "
                             f"{', '.join(built)})" + (f": {why}" if why else ""))


CoreKind = Literal["native", "compiled", "pure"]
"""The rules cores a machine may have (``LOCM_CORE``)."""

KINDS: tuple[CoreKind, ...] = get_args(CoreKind)
_HOW = {"native": "native C++", "compiled": "compiled by mypyc", "pure": "pure Python"}


class Core(NamedTuple):
    kind: CoreKind
    build: str  # the build's hash (over the compiled modules' sources, or the native core's), or "editable"

    def __str__(self) -> str:
        return f"core: {_HOW.get(self.kind, self.kind)} (build {self.build})"


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def sources_hash(sources: dict[str, str]) -> str:
    """The build's hash: over the compiled modules' paths and their sources' sha256 (as setup.py computes it)."""
    whole = "".join(f"{p}\0{h}\0" for p, h in sorted(sources.items()))
    return hashlib.sha256(whole.encode()).hexdigest()[:12]


def stale_sources(sources: dict[str, str], roots: list[Path]) -> list[str]:
    """The paths (``engine/locm/state.py``) among `sources` (path -> sha256 at build time) whose file under one of
    `roots` (each laid out as the checkout: ``root/engine/...``) is missing or differs."""
    changed = []
    for path, digest in sources.items():
        if any(_sha256(root / path) != digest for root in roots):
            changed.append(path)
    return changed


def _build_info() -> tuple[bool, str, dict[str, str], str] | None:
    try:  # the build's record, a module setup.py writes beside this one (none in a checkout): by name, as it
        # is no part of the package this module belongs to
        _corebuild: Any = importlib.import_module(f"{__package__}._corebuild")
    except ImportError:
        return None
    return bool(_corebuild.COMPILED), str(_corebuild.BUILD_HASH), dict(_corebuild.SOURCES), str(_corebuild.CHECKOUT)


def _roots(checkout: str) -> list[Path]:
    roots = [HERE.parent]  # the installed files: site-packages/locm/engine/... is root/engine/... with root = locm/
    if (Path(checkout) / "setup.py").is_file() and (Path(checkout) / "engine").is_dir():
        roots.append(Path(checkout))
    return roots


def refuse_stale() -> None:
    """Raise StaleCoreError if this is a compiled build and a compiled module's source changed since."""
    info = _build_info()
    if info is None or not info[0]:
        return
    _, build, sources, checkout = info
    changed = stale_sources(sources, _roots(checkout))
    if changed:
        raise StaleCoreError(changed, build, checkout)


def python_core() -> Core:
    """The Python core of this install: compiled or pure, and its build's hash ("editable" for `make setup`'s)."""
    info = _build_info()
    if info is None:
        return Core("pure", "editable")
    return Core("compiled" if info[0] else "pure", info[1])


NATIVE_SOURCE = "cpp/core.cpp"  # a game's native core's source, in its wing: installed with the package (package
# data), and in the checkout


def native_games() -> list[str]:
    """The games whose wing holds a native core's source (``engine/<game>/cpp/core.cpp``): those that may have
    their native core built here."""
    return sorted(p.parent.parent.name for p in HERE.glob(f"*/{NATIVE_SOURCE}"))


@functools.cache
def native_module(game: str) -> tuple[Any, str]:
    """The native core's extension module of `game` (``locm.engine.<game>._native``) and "", or None and why it
    cannot run: not built here, or built from a source that changed since (the installed copy's or, while the
    checkout a wheel was built from is there, the checkout's: `make fast` or `make native` builds it again)."""
    try:
        native: Any = importlib.import_module(f"{__package__}.{game}._native")
    except ImportError as exc:
        return None, f"the native core is not built here ({exc})"
    source = f"engine/{game}/{NATIVE_SOURCE}"
    info = _build_info()
    for root in _roots(info[3]) if info is not None else [HERE.parent]:
        digest = _sha256(root / source)
        if digest is not None and digest != native.SOURCE_SHA256:
            return None, (f"the native core is stale: {root / source} changed since it was built "
                          "(rebuild it: 'make fast', or 'make native' for the editable install)")
    return native, ""


def _native_core() -> tuple[Core | None, str]:
    why = "the native core is not built here (no game has a native core's source here)"
    for game in native_games():
        module, why = native_module(game)
        if module is not None:
            return Core("native", str(module.SOURCE_SHA256)[:12]), ""
    return None, why


def built() -> list[Core]:
    """The cores built here, the fastest first."""
    native, _ = _native_core()
    return ([native] if native is not None else []) + [python_core()]


def core() -> Core:
    """The core that runs here: the one ``LOCM_CORE`` names, else the fastest built (`CoreChoiceError` for a
    value that names no core built here)."""
    return _chosen(getattr(sys.modules.get("locm"), "CORE_CHOICE", ""))


@functools.lru_cache(maxsize=8)  # asked for every game (`engine.locm.playing.play`): the answer per value, once
def _chosen(value: str) -> Core:
    cores = built()
    if not value:
        return cores[0]
    for c in cores:
        if c.kind == value:
            return c
    why = _native_core()[1] if value == "native" else ""
    raise CoreChoiceError(value, [c.kind for c in cores], why)
