"""Which core runs, pure Python or compiled by mypyc (setup.py, `make fast`), and the refusal of a stale build.

A compiled build records the sha256 of every compiled module's source and the checkout it was built from
(``locm/engine/_corebuild.py``, written by setup.py, not in git). On import of `locm.engine` (`refuse_stale`)
those sources are hashed again, the installed ones and, when the checkout is still there, the checkout's: a
compiled module whose `.py` changed since the build would run the old code, so the import is refused with a
message saying to rebuild. An editable install (`make setup`) is always pure and has nothing to check. Reading
about twenty small files costs about a millisecond.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

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


class Core(NamedTuple):
    kind: str  # "compiled" or "pure"
    build: str  # the build's hash (over the compiled modules' sources), or "editable"

    def __str__(self) -> str:
        how = "compiled by mypyc" if self.kind == "compiled" else "pure Python"
        return f"core: {how} (build {self.build})"


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
    try:
        from locm.engine import _corebuild  # type: ignore[attr-defined]
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


def core() -> Core:
    """The core that runs here: compiled or pure, and its build's hash ("editable" for `make setup`'s install)."""
    info = _build_info()
    if info is None:
        return Core("pure", "editable")
    return Core("compiled" if info[0] else "pure", info[1])
