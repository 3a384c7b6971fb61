"""locm: an event-sourced rules engine with replay tooling for three games: Legends of Code and Magic (1.2 and
constructed), my-card-game and Skyport.

`locm.Game` is the notebook front object (`locm.api`); the command line is `locm.cli.main`. The names below are
imported on first use (PEP 562), so that starting the command line does not load the API.
"""

_API = ("Game", "Choose", "Outcome", "IllegalActionError")


def __getattr__(name: str):
    if name in _API:
        from locm import api

        return getattr(api, name)
    raise AttributeError(f"module 'locm' has no attribute {name!r}")


__all__ = list(_API)
