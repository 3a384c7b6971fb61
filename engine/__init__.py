"""The LOCM rules core: pure functions over game state; no I/O beyond reading the static card data."""

from locm.engine.corebuild import refuse_stale as _refuse_stale

_refuse_stale()  # a compiled core whose sources changed since its build is refused (engine/corebuild.py)
