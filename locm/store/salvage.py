"""Salvage: every game SQLite can still read from a damaged store, written as an export file (`salvage_jsonl`).

A store can be damaged where its games are not: a ``locm_meta`` page of random bytes (a garbled ``-wal`` that
a checkpoint copied into the main file), a ``-wal`` whose frames no longer match its index (``-shm``), a page
of the games table. SQLite may read the games through one view of the files and not another, so salvage
reads three views, most complete first, and keeps each game once, the first time it reads and verifies:

1. the store as it is: its ``-wal`` read through its index, the ``locm_meta`` checks skipped when that page is
   what is damaged;
2. a private copy of the main file and its ``-wal`` without the index: SQLite rebuilds the index from the
   frames whose checksums hold, so the ``-wal`` is read up to its first damaged frame;
3. a private copy of the main file alone: what was checkpointed.

Nothing is written beside the store (the copies are made in a temporary folder, removed after). A game that
no view reads and verifies is passed to ``on_bad``; the export file always ends well, so it imports.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from locm.errors import StoreError
from locm.store.eventstore import export_end, export_header, open_store


def salvage_jsonl(path: str | os.PathLike, game_ids: Iterable[str] | None, out: BinaryIO, *,
                  on_bad: Callable[[str, StoreError], None], on_view: Callable[[str, int], None] | None = None) -> int:
    """Write to ``out`` every game (of ``game_ids``, or all) that one of the views reads and verifies; return
    how many. ``on_view(description, n)`` is told what each view gave (n new games, or -1 when it does not
    open); ``on_bad(game_id, error)`` is told each game no view saved, with the first view's error."""
    wanted = None if game_ids is None else list(dict.fromkeys(game_ids))
    done: set[str] = set()
    bad: dict[str, StoreError] = {}  # games a view listed but did not read, with the first error
    unopened: list[StoreError] = []
    games = events = 0
    out.write(export_header())
    with tempfile.TemporaryDirectory(prefix="locm-salvage-") as tmp:
        for what, view in _views(Path(path), Path(tmp)):
            try:
                store = open_store(view, create=False, readonly=True, salvage=True)
            except StoreError as exc:
                unopened.append(exc)
                if on_view:
                    on_view(what, -1)
                continue
            new = 0
            with store:
                try:
                    ids = wanted if wanted is not None else store.readable_ids()
                except StoreError as exc:
                    unopened.append(exc)
                    ids = []
                for gid in ids:
                    if gid in done:
                        continue
                    try:
                        block, n = store.export_game(gid)
                    except StoreError as exc:
                        bad.setdefault(gid, exc)
                        continue
                    out.write(block)
                    done.add(gid)
                    games, events, new = games + 1, events + n, new + 1
            if on_view:
                on_view(what, new)
    out.write(export_end(games, events))
    if not games and not bad and unopened:
        raise unopened[0]  # no view opened: say why the store does not
    for gid, exc in bad.items():
        if gid not in done:
            on_bad(gid, exc)
    return games


def _views(path: Path, tmp: Path):
    """``(description, file)`` of each view of the store, the copies made only when needed."""
    yield "the store as it is", path
    wal = Path(f"{path}-wal")
    if not (wal.exists() and wal.stat().st_size > 0):
        return
    with_wal = tmp / "with-wal" / path.name
    with_wal.parent.mkdir()
    shutil.copyfile(path, with_wal)
    shutil.copyfile(wal, Path(f"{with_wal}-wal"))
    yield "its main file and -wal, the -wal's index rebuilt", with_wal
    main = tmp / "main" / path.name
    main.parent.mkdir()
    shutil.copyfile(path, main)
    yield "its main file alone", main


__all__ = ["salvage_jsonl"]
