"""The provenance chain (`locm.store.provchain`) and the ledger signature that covers it (issue 32): a provenance
row flipped behind the store's back with sqlite3 is named by `locm verify`; one flipped with the chain rebuilt
too no longer matches the signed ledger; a signature of a locm before the chain still reads, says it does not
cover provenance and is signed again by `locm key sign`; a store written before the chain verifies with a
note and is chained at its next write; a migrated store is chained."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.provenance import signing
from locm.store import provchain
from locm.store.eventstore import open_store


def locm(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def sql(db: Path, *statements: str) -> None:
    """Statements run on the store's file with plain sqlite3: what someone holding the file can do."""
    conn = sqlite3.connect(db)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


@pytest.fixture()
def mixed(tmp_path: Path):
    """A store with a key: a game played here (key 1) and a game imported untrusted (key 2); the ledger signed
    with both. (store, the imported game's id, the played source's row key, the import's)."""
    other = tmp_path / "other.db"
    assert locm("play", "--seed", 7, "--db", other)[0] == 0
    assert locm("export", "--all", "--db", other, "-o", tmp_path / "other.jsonl")[0] == 0
    db = tmp_path / "a.db"
    assert locm("play", "--seed", 3, "--db", db)[0] == 0
    code, _, err = locm("import", tmp_path / "other.jsonl", "--db", db)
    assert code == 0, err
    assert locm("key", "new", "--db", db)[0] == 0
    code, _, err = locm("export", "--all", "--db", db, "-o", tmp_path / "a.jsonl")  # signs the ledger too
    assert code == 0 and "signed by" in err, err
    with open_store(db, create=False, readonly=True) as store:
        came = store.provenances()
    played, imported = came.values()
    assert played.kind == "played" and imported.kind == "imported" and not imported.counted
    conn = sqlite3.connect(db)
    keys = dict(conn.execute("SELECT kind, id FROM provenance_sources").fetchall())
    conn.close()
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "store: ledger signed at 2 games" in out and "valid" in out, out
    return db, list(came)[1], keys["played"], keys["imported"]


def test_an_imported_games_row_flipped_to_played_here_is_named_by_verify(mixed) -> None:
    db, imported, played, source = mixed
    code, out, _ = locm("verify", "--db", db)
    assert "valid, with the games' provenance (5 chain entries)" in out, out
    sql(db, f"UPDATE provenance SET source = {played} WHERE game = 2")
    with open_store(db, create=False, readonly=True) as store:
        assert store.provenance(imported).counted  # what the flip buys: the game counted as played here
    code, out, _ = locm("verify", "--db", db)
    assert code == 1
    assert (f"store: provenance chain: 1 provenance row not as the chain recorded it: game {imported}: its "
            f"provenance row names source row {played} (played), the chain source row {source} (imported)") in out


@pytest.mark.parametrize("edit", ["trusted", "kind", "since", "deleted", "head"])
def test_a_source_row_or_the_boundary_edited_is_named_by_verify(mixed, edit: str) -> None:
    db, imported, _, source = mixed
    statement, named = {
        "trusted": (f"UPDATE provenance_sources SET trusted = 1, signer = '{'ab' * 32}' WHERE id = {source}",
                    f"source row {source} (run "),
        "kind": (f"UPDATE provenance_sources SET kind = 'played' WHERE id = {source}", f"source row {source} (run "),
        "since": ("UPDATE locm_meta SET value = '9' WHERE key = 'provenance_since'", "provenance_since"),
        "deleted": ("DELETE FROM provenance WHERE game = 2", f"game {imported}: its provenance row was deleted"),
        "head": (f"DELETE FROM locm_meta WHERE key = '{provchain.META_KEY}'", "the provenance chain's head is "
                 "missing from locm_meta (5 entries in its table)"),
    }[edit]
    sql(db, statement)
    if edit in ("since", "deleted", "head"):  # both at once: the game now reads as stored before provenance, counted
        sql(db, "UPDATE locm_meta SET value = '9' WHERE key = 'provenance_since'",
            "DELETE FROM provenance WHERE game = 2")
    with open_store(db, create=False, readonly=True) as store:
        assert store.provenance(imported).counted
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "store: provenance chain: " in out and named in out, out
    code, _, err = locm("key", "sign", "--db", db)  # a signature would bless the edit: refused
    assert code != 0 and "not signed: " in err and err.count("\n") == 1


def test_a_flip_with_the_chain_rebuilt_no_longer_matches_the_signed_ledger(mixed) -> None:
    db, imported, played, _ = mixed
    # A forger who knows the format flips the row, then has locm's own code rebuild the chain over the rows as
    # they now are: the chain agrees with the rows, the signature does not.
    sql(db, f"UPDATE provenance SET source = {played} WHERE game = 2", "DELETE FROM provenance_log",
        f"DELETE FROM locm_meta WHERE key = '{provchain.META_KEY}'")
    with open_store(db, create=False) as store:
        store.chain_provenance()
        assert store.provenance_problems() == []
        assert store.provenance(imported).counted
        verdict = signing.ledger_check(store, db)
    assert verdict.signed and "the provenance rows signed with the ledger" in verdict.problem
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "store: the provenance rows signed with the ledger (5 chain entries) are not as they are " \
                         "now" in out, out


def test_a_signature_made_before_the_chain_reads_says_what_it_does_not_cover_and_is_signed_again(mixed) -> None:
    db, imported, played, _ = mixed
    # The signing table as a locm before the chain kept it, its one row signed with the old message (games only).
    conn = sqlite3.connect(db)
    (raw,) = conn.execute("SELECT private FROM signing_keys WHERE retired = 0").fetchone()
    conn.close()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    with open_store(db, create=False, readonly=True) as store:
        count, head = store.ledger()
    old = Ed25519PrivateKey.from_private_bytes(raw).sign(signing.LEDGER_TAG + count.to_bytes(8, "big")
                                                         + bytes.fromhex(head)).hex()
    sql(db, "DROP TABLE signing_ledger",
        "CREATE TABLE signing_ledger (id INTEGER PRIMARY KEY, count INTEGER NOT NULL, head TEXT NOT NULL, "
        "public TEXT NOT NULL, signature TEXT NOT NULL, signed TEXT NOT NULL)",
        f"INSERT INTO signing_ledger (count, head, public, signature, signed) SELECT {count}, '{head}', public, "
        f"'{old}', 'then' FROM signing_keys")
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "store: ledger signed at 2 games by " in out and "valid, with the games' provenance" not in out, out
    assert f"store: note: {signing.OLD_SIGNATURE}" in out
    # Re-signed, the signature covers provenance: a flip with the chain rebuilt is then caught by it.
    code, out, err = locm("key", "sign", "--db", db)
    assert code == 0, err
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "valid, with the games' provenance (5 chain entries)" in out, out
    assert "note: signed by a locm before" not in out
    sql(db, f"UPDATE provenance SET source = {played} WHERE game = 2", "DELETE FROM provenance_log",
        f"DELETE FROM locm_meta WHERE key = '{provchain.META_KEY}'")
    with open_store(db, create=False) as store:
        store.chain_provenance()
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "the provenance rows signed with the ledger" in out


def test_a_store_written_before_the_chain_verifies_with_a_note_and_is_chained_at_its_next_write(tmp_path) -> None:
    db = tmp_path / "a.db"
    for seed in (1, 2):
        assert locm("play", "--seed", seed, "--db", db)[0] == 0
    sql(db, "DROP TABLE provenance_log", f"DELETE FROM locm_meta WHERE key = '{provchain.META_KEY}'")
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and f"store: note: provenance chain: {provchain.NOT_CHAINED}" in out, out
    assert locm("play", "--seed", 3, "--db", db)[0] == 0  # the chain, over the rows as they were, and on
    with open_store(db, create=False, readonly=True) as store:
        assert store.provenance_ledger()[0] == 1 + 3 + 3  # provenance_since, three runs, three games
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "provenance chain" not in out, out
    sql(db, "UPDATE provenance SET source = 1 WHERE game = 3")
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "game 1.2-3-" in out and "its provenance row names source row 1 (played)" in out, out


def test_a_migrated_store_is_chained_and_verifies(tmp_path) -> None:
    db = tmp_path / "old.db"
    db.write_bytes(gzip.decompress((Path(__file__).resolve().parent / "data" / "store-v2.db.gz").read_bytes()))
    assert locm("migrate", db)[0] == 0
    with open_store(db, create=False, readonly=True) as store:
        assert store.provenance_ledger()[0] == 1 + 3 + 1  # provenance_since, three games, the migration
        assert store.provenance_problems() == []
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "provenance chain" not in out, out


def test_a_trusted_import_taking_over_untrusted_games_is_chained_and_an_edit_after_it_named(tmp_path) -> None:
    played = tmp_path / "played.db"
    for seed in (1, 2):
        assert locm("play", "--seed", seed, "--db", played)[0] == 0
    public = locm("key", "new", "--db", played)[1].strip()
    out = tmp_path / "all.jsonl"
    assert locm("export", "--all", "--db", played, "-o", out)[0] == 0
    db = tmp_path / "copy.db"
    assert locm("import", out, "--db", db)[0] == 0
    code, text, err = locm("import", out, "--db", db, "--trust", public, "--skip-existing")
    assert code == 0 and "(2 of them now this trusted file's)" in text, text + err
    with open_store(db, create=False, readonly=True) as store:
        assert store.provenance_problems() == []
        assert store.provenance_ledger()[0] == 1 + 2 + 1 + 2 + 1  # since, 2 games and their file, twice
    code, text, _ = locm("verify", "--db", db)
    assert code == 0 and "provenance chain" not in text, text
    conn = sqlite3.connect(db)
    untrusted = conn.execute("SELECT id FROM provenance_sources WHERE trusted = 0").fetchone()[0]
    conn.close()
    sql(db, f"UPDATE provenance SET source = {untrusted} WHERE game = 1")  # the take-over undone by hand
    code, text, _ = locm("verify", "--db", db)
    assert code == 1 and f"names source row {untrusted} (imported), the chain source row " in text, text


def test_an_export_of_a_store_edited_behind_its_back_is_not_signed(tmp_path, mixed) -> None:
    db, _, played, _ = mixed
    sql(db, f"UPDATE provenance SET source = {played} WHERE game = 2")
    out = tmp_path / "again.jsonl"
    code, _, err = locm("export", "--all", "--db", db, "-o", out)
    errors = [line for line in err.splitlines() if line.startswith("locm: error: ")]
    assert code != 0 and len(errors) == 1 and ": not signed: 1 provenance row not as the chain" in errors[0], err
    assert not Path(f"{out}.sig").exists()


def test_a_chain_dropped_with_a_row_flipped_reads_as_an_old_store_but_not_to_the_signature(mixed) -> None:
    db, _, played, _ = mixed
    sql(db, f"UPDATE provenance SET source = {played} WHERE game = 2", "DROP TABLE provenance_log",
        f"DELETE FROM locm_meta WHERE key = '{provchain.META_KEY}'")
    code, out, _ = locm("verify", "--db", db)
    assert f"store: note: provenance chain: {provchain.NOT_CHAINED}" in out, out
    assert code == 1 and "store: the provenance rows signed with the ledger (5 chain entries) are not as they " \
                         "are now" in out, out
