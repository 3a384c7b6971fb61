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
counted. The card reports and `whatif` count the same games, the rule applied in SQL (`Scope`): the few source
rows are classified once by `Provenance.counted`, each game's source is looked up by its key; the arena's
standings, ratings and bot pages the same, through its index's table of the keys not counted
(`locm.arena.index`). `INCLUDE_UNTRUSTED`,
the one flag every such reader takes, counts the rest too; `left_out_note` is the line each prints about them.
Whoever can write the store's file can write these rows too: provenance protects the results from what comes
in through `locm import`; every row written extends the provenance chain (`locm.store.provchain`), so an edit
behind the store's back is named by `locm verify`, and one with the chain rebuilt too by the signed ledger
(`locm.provenance.signing`), which covers the chain.
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

INCLUDE_UNTRUSTED = "--include-untrusted"
"""The flag of every reader of stored games that counts, beside the games `Provenance.counted` takes, the rest."""

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


class Scope(msgspec.Struct, frozen=True, kw_only=True):
    """Which of a store file's games count (`Provenance.counted`), as SQL over their integer keys (made from the
    file by `locm.store.sqlite.scope_of`). ``tables``: the provenance tables are there; ``since``:
    ``provenance_since`` (None: the store never recorded provenance; a game without a row is counted when its key
    is below it); ``uncounted``: the keys of the source rows not counted, each with its kind (``imported``, or
    ``unrecorded`` for a row locm did not write)."""

    tables: bool
    since: int | None
    uncounted: tuple[tuple[int, str], ...] = ()

    def uncounted_sql(self, key: str = "g.id", schema: str = "") -> str:
        """An SQL condition true of a game not counted, its integer key the column ``key``; the provenance tables
        in ``schema`` (``"s."``: an attached store). Literals only (integer keys read from the file), no
        parameters: one lookup of the game's provenance row by its key, of its source row by its key."""
        since = "0" if self.since is None else f"{key} >= {int(self.since)}"
        if not self.tables:
            return f"({since})"
        keys = ", ".join(str(int(k)) for k, _ in self.uncounted)
        return (f"coalesce((SELECT s_.id IN ({keys}) FROM {schema}provenance p_ JOIN {schema}provenance_sources s_ "
                f"ON s_.id = p_.source AND s_.kind IS NOT NULL WHERE p_.game = {key}), {since})")

    def counted_sql(self, key: str = "g.id", schema: str = "") -> str:
        """An SQL condition true of a game counted (`uncounted_sql`'s negation)."""
        return f"NOT {self.uncounted_sql(key, schema)}"

    def kind_sql(self, key: str = "g.id", schema: str = "") -> str:
        """An SQL expression of a game not counted: its source row's key, NULL when it has none (unrecorded)."""
        if not self.tables:
            return "NULL"
        return (f"(SELECT s_.id FROM {schema}provenance p_ JOIN {schema}provenance_sources s_ ON s_.id = p_.source "
                f"AND s_.kind IS NOT NULL WHERE p_.game = {key})")

    def kind_of(self, source: int | None) -> str:
        """The kind of a game not counted from its `kind_sql` value."""
        return dict(self.uncounted).get(source, "unrecorded") if source is not None else "unrecorded"


def left_out_note(left_out: dict[str, int], included: bool = False) -> str | None:
    """The one line a reader prints about the games it did not count (``left_out``: how many of each kind not
    counted, `locm.store.interface.EventStore.left_out`), or counted only because of `INCLUDE_UNTRUSTED`
    (``included``); None when there are none."""
    parts = [f"{n} imported game{'s' * (n != 1)}" for n in [left_out.get("imported", 0)] if n]
    parts += [f"{n} game{'s' * (n != 1)} without provenance (written behind the store's back)"
              for n in [left_out.get("unrecorded", 0)] if n]
    if not parts:
        return None
    what = " and ".join(parts)
    if included:
        return f"{what} counted though untrusted ({INCLUDE_UNTRUSTED})"
    return f"{what} not counted: untrusted; {INCLUDE_UNTRUSTED} to count them"


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


__all__ = ["INCLUDE_UNTRUSTED", "PROVENANCE_SQL", "Provenance", "SOURCES_SQL", "Scope", "Source", "imported_source",
           "left_out_note", "new_run", "played_source"]
