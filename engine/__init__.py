"""The LOCM rules core: pure functions over game state; no I/O beyond reading the static card data."""

from locm.engine.corebuild import core as _core, refuse_stale as _refuse_stale

_refuse_stale()  # a compiled core whose sources changed since its build is refused (engine/corebuild.py)
_core()  # a LOCM_CORE that names no core built here is refused (engine/corebuild.py)
