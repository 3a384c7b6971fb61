"""Signed results: a store's Ed25519 key (`cryptography`), export files signed by it, imports that trust only
the keys the organiser names, and the store's ledger signed as it stands.

What a signature proves, and what it does not (the threat model, also in the manual's guide):

- A valid signature on an export file proves that the file is, byte for byte, what a store holding that key
  exported: nobody without the key changed a game, a record, a schedule or an account in it, added one or took
  one out. It does not prove that the games were played fairly, by the agents named, or on this engine: that
  is what `locm import` and `locm verify` check (each game re-decided, its id recomputed), whoever signed.
- A signature is only as good as the key's secrecy. The key is kept in the store's file (the table
  ``signing_keys``), so whoever can read the store can sign as it: keep the store where results are made, and
  give others the public key only (`locm key show`). A key cannot be taken back; a store whose file was
  copied by someone else needs a new key (`locm key new --replace`), and importers trust the new one.
- A signed ledger (`sign_ledger`, written by each signed export and by `locm key sign`) says that the store
  held exactly its first ``count`` games, in that order, with these head hashes, and that its provenance chain
  (`locm.store.provchain`: how each game came in, its first ``pcount`` entries) had this head, when it signed:
  `locm verify` checks the last signature against the ledger and the provenance rows as they are now, so a
  game stored then and removed or replaced since, or a provenance row changed since, is named. A signature of
  version 1 (`LEDGER_TAG`, before the provenance chain) still reads and still covers the games, not their
  provenance: verify says so, and `locm key sign` signs again with it.

The signature of a file is detached (``FILE.sig``, JSON): the export's bytes stay what they were, and a
reader that knows nothing of signatures reads the file as before. It signs the SHA-256 of the file's bytes
under a domain tag (`FILE_TAG`), so a signature of one kind of message can never be taken for another's.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from locm.errors import LocmError

FILE_TAG = b"locm export file v1\0"
LEDGER_TAG = b"locm ledger v1\0"
LEDGER_TAG_V2 = b"locm ledger v2\0"
LEDGER_VERSION = 2
SIG_FORMAT = "locm-signature"
SIG_VERSION = 1
MAX_SIG_BYTES = 4096
"""A signature file is a few hundred bytes; anything larger is refused before it is parsed."""

_DDL = """
CREATE TABLE IF NOT EXISTS signing_keys (
    public  TEXT PRIMARY KEY,
    private BLOB NOT NULL,
    created TEXT NOT NULL,
    retired INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS signing_ledger (
    id        INTEGER PRIMARY KEY,
    count     INTEGER NOT NULL,
    head      TEXT NOT NULL,
    public    TEXT NOT NULL,
    signature TEXT NOT NULL,
    signed    TEXT NOT NULL,
    version   INTEGER NOT NULL DEFAULT 1,
    pcount    INTEGER NOT NULL DEFAULT 0,
    phead     TEXT NOT NULL DEFAULT ''
);
"""


class SignatureError(LocmError):
    """A signature missing, malformed, by a key not trusted, or not matching what it signs (one line)."""


@dataclass(frozen=True)
class Signature:
    """A detached signature of a file: who signed (the public key, hex), the file's SHA-256 and size."""

    public: str
    sha256: str
    size: int
    signature: str


def _crypto():
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
    except ImportError:  # pragma: no cover - a dependency of locm
        raise SignatureError("signing needs the 'cryptography' package: pip install cryptography") from None
    return InvalidSignature, serialization, Ed25519PrivateKey, Ed25519PublicKey


def _connect(db: str | os.PathLike) -> sqlite3.Connection:
    if not Path(db).exists():
        raise SignatureError(f"{db}: no such store")
    conn = sqlite3.connect(db, timeout=30)
    conn.executescript(_DDL)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(signing_ledger)")}
    for column, kind in (("version", "INTEGER NOT NULL DEFAULT 1"), ("pcount", "INTEGER NOT NULL DEFAULT 0"),
                         ("phead", "TEXT NOT NULL DEFAULT ''")):
        if column not in columns:  # a table of a locm before the provenance chain: its rows are of version 1
            with conn:
                conn.execute(f"ALTER TABLE signing_ledger ADD COLUMN {column} {kind}")
    return conn


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_key(db: str | os.PathLike, replace: bool = False) -> str:
    """Make the store's signing key (refused if it has one, unless ``replace``: the old one is retired, kept
    so that the signatures it made still read as its). Returns the public key (hex)."""
    _, serialization, private_cls, _ = _crypto()
    with _connect(db) as conn:
        current = conn.execute("SELECT public FROM signing_keys WHERE retired = 0").fetchone()
        if current is not None and not replace:
            raise SignatureError(f"{db} has a signing key already ({current[0]}): --replace makes a new one")
        key = private_cls.generate()
        raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
        public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
        conn.execute("UPDATE signing_keys SET retired = 1")
        conn.execute("INSERT INTO signing_keys (public, private, created) VALUES (?, ?, ?)", (public, raw, _now()))
    conn.close()
    return public


def public_key(db: str | os.PathLike) -> str | None:
    """The store's signing key's public half (hex), None if it has none."""
    if not Path(db).exists():
        raise SignatureError(f"{db}: no such store")
    conn = sqlite3.connect(f"file:{Path(db).resolve()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT public FROM signing_keys WHERE retired = 0").fetchone()
    except sqlite3.OperationalError:  # no key was ever made
        row = None
    finally:
        conn.close()
    return row[0] if row else None


def _private(conn: sqlite3.Connection):
    _, _, private_cls, _ = _crypto()
    row = conn.execute("SELECT public, private FROM signing_keys WHERE retired = 0").fetchone()
    if row is None:
        return None, None
    return row[0], private_cls.from_private_bytes(bytes(row[1]))


def _file_message(sha256: str, size: int) -> bytes:
    return FILE_TAG + bytes.fromhex(sha256) + size.to_bytes(8, "big")


def _ledger_message(count: int, head: str, version: int = 1, pcount: int = 0, phead: str = "") -> bytes:
    """What a ledger signature signs: version 1 the games' ledger, version 2 the provenance chain's too."""
    if version == 1:
        return LEDGER_TAG + count.to_bytes(8, "big") + bytes.fromhex(head)
    return (LEDGER_TAG_V2 + count.to_bytes(8, "big") + bytes.fromhex(head) + pcount.to_bytes(8, "big")
            + bytes.fromhex(phead))


def file_digest(path: str | os.PathLike) -> tuple[str, int]:
    """A file's SHA-256 (hex) and size, read in blocks."""
    h, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def sig_path(path: str | os.PathLike) -> Path:
    """Where a file's detached signature is: beside it, ``.sig`` added."""
    return Path(f"{path}.sig")


def sign_file(db: str | os.PathLike, path: str | os.PathLike) -> Signature | None:
    """Sign a file (an export) with the store's key, writing ``FILE.sig``; None (nothing written) if the store
    has no key. The store's ledger is signed first (`sign_ledger`: refused, and the file left unsigned, when the
    store does not agree with its own chains)."""
    with _connect(db) as conn:
        public, key = _private(conn)
    conn.close()
    if key is None:
        return None
    sign_ledger(db)
    sha, size = file_digest(path)
    sig = Signature(public, sha, size, key.sign(_file_message(sha, size)).hex())
    text = json.dumps({"format": SIG_FORMAT, "version": SIG_VERSION, "algorithm": "ed25519", "public_key": public,
                       "sha256": sha, "size": size, "signature": sig.signature}, indent=1) + "\n"
    tmp = sig_path(path).with_name(sig_path(path).name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, sig_path(path))
    return sig


def read_signature(path: str | os.PathLike) -> Signature:
    """The detached signature of ``path`` (``path.sig``), checked for shape (not yet for what it signs)."""
    where = sig_path(path)
    try:
        with open(where, "rb") as f:
            data = f.read(MAX_SIG_BYTES + 1)
    except FileNotFoundError:
        raise SignatureError(f"{path} is not signed (no {where.name} beside it)") from None
    except OSError as exc:
        raise SignatureError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_SIG_BYTES:
        raise SignatureError(f"{where}: not a signature file (over {MAX_SIG_BYTES} bytes)")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise SignatureError(f"{where}: not a signature file (not JSON)") from None
    if not isinstance(doc, dict) or doc.get("format") != SIG_FORMAT or doc.get("version") != SIG_VERSION \
            or doc.get("algorithm") != "ed25519":
        raise SignatureError(f"{where}: not a locm signature file of version {SIG_VERSION} (ed25519)")
    fields = {"public_key": 64, "sha256": 64, "signature": 128}
    for name, length in fields.items():
        value = doc.get(name)
        if not (isinstance(value, str) and len(value) == length and all(c in "0123456789abcdef" for c in value)):
            raise SignatureError(f"{where}: {name}: expected {length} lowercase hex digits")
    size = doc.get("size")
    if not (isinstance(size, int) and not isinstance(size, bool) and 0 <= size < 1 << 62):
        raise SignatureError(f"{where}: size: expected a whole number of bytes")
    return Signature(doc["public_key"], doc["sha256"], size, doc["signature"])


def parse_public(text: str) -> str:
    """A public key as given on the command line: 64 hex digits, or a file holding them (as `locm key show`
    prints them)."""
    value = text.strip()
    if len(value) != 64 and Path(value).is_file():
        value = Path(value).read_text(errors="replace")[:200].strip()
    value = value.lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise SignatureError(f"--trust {text!r}: expected a public key (64 hex digits, as 'locm key show' prints "
                             "it) or a file holding one")
    return value


def check_file(path: str | os.PathLike, trusted: list[str]) -> Signature:
    """The file's signature, if it is by one of the ``trusted`` public keys and signs the file's bytes as they
    are; else `SignatureError` (one line: unsigned, by another key, or not this file)."""
    invalid, _, _, public_cls = _crypto()
    sig = read_signature(path)
    if sig.public not in trusted:
        raise SignatureError(f"{path} is signed by {sig.public}, not by a key this import trusts (--trust)")
    sha, size = file_digest(path)
    if (sha, size) != (sig.sha256, sig.size):
        raise SignatureError(f"{path} is not the file its signature signs: it was changed after it was signed "
                             f"(sha256 {sha[:16]}..., the signature's {sig.sha256[:16]}...)")
    try:
        public_cls.from_public_bytes(bytes.fromhex(sig.public)).verify(bytes.fromhex(sig.signature),
                                                                       _file_message(sha, size))
    except (invalid, ValueError):
        raise SignatureError(f"{sig_path(path).name}: the signature is not valid for this file under key "
                             f"{sig.public}") from None
    return sig


def sign_ledger(db: str | os.PathLike) -> tuple[int, str] | None:
    """Sign the store's ledger as it stands with its key (version 2: the games' ledger's count and head and the
    provenance chain's, the chain started first where the store's provenance rows predate it); None if it has
    no key. Refused (`SignatureError`) when the games or the provenance rows do not agree with their chains: a
    signature would bless an edit made behind the store's back."""
    from locm.store.eventstore import open_store

    if public_key(db) is None:
        return None
    with open_store(db, create=False) as store:
        chain = getattr(store, "chain_provenance", None)
        if chain is not None:
            chain()
        found = [p for p in [store.ledger_problem(), *store.provenance_problems()] if p]
        if found:
            raise SignatureError(f"{db}: not signed: {found[0]} (locm verify --db {db} says more)")
        count, head = store.ledger()
        pcount, phead = store.provenance_ledger() or (0, "")
    from locm.store.provchain import GENESIS

    phead = phead or GENESIS.hex()
    with _connect(db) as conn:
        public, key = _private(conn)
        if key is None:
            return None
        signature = key.sign(_ledger_message(count, head, LEDGER_VERSION, pcount, phead)).hex()
        conn.execute("INSERT INTO signing_ledger (count, head, public, signature, signed, version, pcount, phead) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (count, head, public, signature, _now(), LEDGER_VERSION, pcount, phead))
    conn.close()
    return count, head


OLD_SIGNATURE = ("signed by a locm before the provenance chain (ledger signature version 1): the games are covered, "
                 "how they came in is not; 'locm key sign' signs the ledger again with it")


@dataclass(frozen=True)
class LedgerCheck:
    """`ledger_check`'s verdict: ``problem`` None when the last signature holds for the ledger as it is;
    ``note``: what it does not cover (`OLD_SIGNATURE`)."""

    signed: bool
    count: int = 0
    public: str = ""
    when: str = ""
    problem: str | None = None
    version: int = LEDGER_VERSION
    pcount: int = 0
    note: str | None = None


def _last_signature(db: str | os.PathLike) -> tuple | None:
    conn = sqlite3.connect(f"file:{Path(db).resolve()}?mode=ro", uri=True)
    try:
        try:
            return conn.execute("SELECT count, head, public, signature, signed, version, pcount, phead FROM "
                                "signing_ledger ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError:  # a table of a locm before the provenance chain (or none)
            row = conn.execute("SELECT count, head, public, signature, signed FROM signing_ledger "
                               "ORDER BY id DESC LIMIT 1").fetchone()
            return None if row is None else (*row, 1, 0, "")
    except sqlite3.OperationalError:
        return None
    finally:
        conn.close()


def ledger_check(store, db: str | os.PathLike) -> LedgerCheck:
    """The store's last ledger signature checked: valid under its key, its ``count`` games the first ``count``
    of the ledger now, with the head it signed (a game removed, replaced or reordered since is a problem), and
    (version 2) the provenance chain's first ``pcount`` entries, recomputed from the provenance rows as they
    are now, the head it signed (a row changed since is a problem). ``store``: the open store
    (`locm.store.eventstore.EventStore`) of the file ``db``."""
    invalid, _, _, public_cls = _crypto()
    row = _last_signature(db)
    if row is None:
        return LedgerCheck(False)
    count, head, public, signature, when, version, pcount, phead = row
    told = dict(signed=True, count=count, public=public, when=when, version=version, pcount=pcount)
    try:
        if version not in (1, LEDGER_VERSION):
            raise ValueError(version)
        public_cls.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(signature), _ledger_message(count, head, version, pcount, phead))
    except (invalid, ValueError, TypeError, OverflowError):
        return LedgerCheck(**told, problem="the ledger's signature is not valid under its key")
    if store.ledger_head_at(count) != head:
        return LedgerCheck(**told, problem=f"the ledger signed at {count} games is not the store's first {count} "
                                           "games now: a game stored then was removed, replaced or reordered since")
    if version == 1:
        return LedgerCheck(**told, note=OLD_SIGNATURE)
    from locm.store.provchain import GENESIS

    now = store.provenance_head_at(pcount) if pcount else GENESIS.hex()
    if now != phead:
        return LedgerCheck(**told, problem=f"the provenance rows signed with the ledger ({pcount} chain entries) are "
                                           "not as they are now: a game's provenance or a source row was changed "
                                           "since it was signed")
    return LedgerCheck(**told)


__all__ = ["SignatureError", "Signature", "new_key", "public_key", "sign_file", "read_signature", "parse_public",
           "check_file", "sign_ledger", "ledger_check", "LedgerCheck", "OLD_SIGNATURE", "sig_path", "file_digest"]
