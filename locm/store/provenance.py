"""How each stored game entered its store: its provenance (issue 32, item 1).

Every write of games names its `Source`: played here by one run (``played``: the run's id, made when the store
is opened for writing, and the command that ran), imported (``imported``: the file as given, the SHA-256 of the
bytes the import read, when, and whether the file's signature was checked against a key the organiser trusts,
`locm import --trust`), or copied by `locm migrate` from a store of an older schema (``migrated``: that store
did not record how its games came in). What a game's record keeps is its game; what its provenance is, is a row
beside it, so that the record, its export line and the ledger stay what they were.

A store file keeps them in two tables made by its first write of games (`SOURCES_SQL`, `PROVENANCE_SQL`): a row
per source and a row per game naming its source. ``locm_meta``'s ``provenance_since`` is the key of the first
game written after the tables were made: a game before it was stored by a locm that did not record provenance
(`Provenance.kind` ``before``, counted as played here, and said so), a game after it without a row was
written behind the store's back (``unrecorded``, never counted).

What counts (`Provenance.counted`): a tournament, an SPRT run and their standings take as their own only the
games this store played (or a locm before provenance, or a migration, said it played) and the games imported
from a file whose signature a trusted key made. An untrusted import is kept, shown and verified, never
counted. Whoever can write the store's file can write these rows too: provenance protects the results from
what comes in through `locm import`; a store file in hostile hands is the signed ledger's matter
(`locm.provenance.signing`).
"""

from __future__ import annotations

import sys
import uuid
from typing import Literal

import msgspec

SOURCES_SQL = """\
CREATE TABLE IF NOT EXISTS provenance_sources (
    id      INTEGER PRIMARY KEY,
    run     TEXT NOT NULL UNIQUE,
    kind    TEXT NOT NULL CHECK (kind IN ('played', 'imported', 'migrated')),
    command TEXT NOT NULL,
    file    TEXT NOT NULL,
    sha256  TEXT NOT NULL,
    at      TEXT NOT NULL,
    trusted INTEGER NOT NULL CHECK (trusted IN (0, 1)),
    signer  TEXT NOT NULL
)"""
"""One row per way games came in: a run that played them, a file imported, a migration."""

PROVENANCE_SQL = """\
CREATE TABLE IF NOT EXISTS provenance (
    game   INTEGER PRIMARY KEY REFERENCES games (id),
    source INTEGER NOT NULL REFERENCES provenance_sources (id)
)"""
"""Each game's source, by the games' integer key."""

COMMAND_LIMIT = 300
"""The characters of a run's command line kept (its start)."""

SourceKind = Literal["played", "imported", "migrated"]

Kind = Literal["played", "imported", "migrated", "before", "unrecorded"]


class Source(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a write's games came in. ``run``: a unique id of the write's source (a played run's id; an import's
    own); ``at``: when, ISO-8601 UTC."""

    kind: SourceKind
    run: str
    command: str = ""
    file: str = ""
    sha256: str = ""
    at: str = ""
    trusted: bool = False
    signer: str = ""


class Provenance(msgspec.Struct, frozen=True, kw_only=True):
    """A stored game's provenance: its ``kind`` and, but for ``before`` and ``unrecorded``, its `Source`."""

    kind: Kind
    source: Source | None = None

    @property
    def counted(self) -> bool:
        """Whether a tournament, an SPRT run or their standings may count the game as their own."""
        return self.kind in ("played", "migrated", "before") or (
            self.kind == "imported" and self.source is not None and self.source.trusted)

    def text(self) -> str:
        """One line: how the game came in."""
        s = self.source
        if self.kind == "before" or s is None:
            return ("stored before this store recorded provenance (counted as played here, run unknown)"
                    if self.kind == "before" else "no provenance recorded: written behind the store's back")
        if s.kind == "played":
            return f"played here by run {s.run} ({s.at})"
        if s.kind == "migrated":
            return f"migrated from {s.file} ({s.at}), which did not record provenance (counted as played here)"
        trust = f"signature valid under trusted key {s.signer[:16]}..." if s.trusted else "not trusted (no --trust)"
        return f"imported from {s.file} (sha256 {s.sha256[:16]}..., {s.at}): {trust}"


def new_run() -> str:
    """A fresh run id (12 hex digits)."""
    return uuid.uuid4().hex[:12]


def played_source(run: str, at: str, command: str | None = None) -> Source:
    """The source of the games one writer plays: its run and what it is (default: the program's command line)."""
    text = " ".join(sys.argv) if command is None else command
    return Source(kind="played", run=run, command=text[:COMMAND_LIMIT], at=at)


def imported_source(file: str, *, at: str, trusted: bool = False, signer: str = "", sha256: str = "") -> Source:
    """The source of an import of ``file`` (its SHA-256 filled in by the import as it reads the bytes)."""
    return Source(kind="imported", run=new_run(), file=str(file)[:COMMAND_LIMIT], sha256=sha256, at=at,
                  trusted=trusted, signer=signer)


__all__ = ["PROVENANCE_SQL", "Provenance", "SOURCES_SQL", "Source", "imported_source", "new_run", "played_source"]
