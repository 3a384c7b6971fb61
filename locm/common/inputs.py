"""Checks of the files a command reads, before any work is done for them."""

from __future__ import annotations

from pathlib import Path


def existing_store(db: Path) -> str:
    """The path of an event store that must be there already (a report reads it): `StoreNotFoundError` if
    there is no file."""
    from locm.errors import StoreNotFoundError

    if not Path(db).is_file():
        raise StoreNotFoundError(str(db))
    return str(db)


__all__ = ["existing_store"]
