"""locm: an event-sourced rules engine with replay tooling for three games: Legends of Code and Magic (1.2 and
constructed), my-card-game and Skyport.

`locm.Game` is the notebook front object (LOCM's, `locm.games.locm.api`: the module `locm.games.registry.notebook`
names); the command line is `locm.cli.main`. The names below are imported on first use (PEP 562), so that starting
the command line does not load the API.
"""

import os as _os

_API = ("Game", "Choose", "Outcome", "IllegalActionError")

CORE_CHOICE = _os.environ.get("LOCM_CORE", "")
"""LOCM_CORE=native|compiled|pure: the rules core of every command (read here, at the edge: `locm.engine` reads
no environment; `locm.engine.corebuild.core` takes it from here, and refuses a value naming no core built)."""


def __getattr__(name: str):
    if name in _API:
        from locm.games.registry import notebook

        return getattr(notebook(), name)
    raise AttributeError(f"module 'locm' has no attribute {name!r}")


__all__ = list(_API)
