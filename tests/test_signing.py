"""Signed results (`locm.provenance.signing`): a store's key, exports signed by it, imports that trust only the
keys named, and the store's ledger signed, through the real command line over real stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.provenance.signing import ledger_check
from locm.store.eventstore import open_store


def locm(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture()
def signed(tmp_path: Path):
    """A store of two LOCM games with a key, and its export signed: (store, public key, export file)."""
    db = tmp_path / "a.db"
    for seed in (3, 4):
        assert locm("play", "--seed", seed, "--db", db)[0] == 0
    code, out, _ = locm("key", "new", "--db", db)
    assert code == 0
    public = out.strip()
    assert len(public) == 64 and int(public, 16) >= 0
    out_file = tmp_path / "e.jsonl"
    code, _, err = locm("export", "--all", "--db", db, "-o", out_file)
    assert code == 0 and f"signed by {public}" in err
    return db, public, out_file


def test_a_store_has_one_key_and_shows_it(tmp_path: Path, signed) -> None:
    db, public, _ = signed
    assert locm("key", "show", "--db", db)[1].strip() == public
    code, _, err = locm("key", "new", "--db", db)
    assert code != 0 and "has a signing key already" in err and err.count("\n") == 1
    code, out, _ = locm("key", "new", "--db", db, "--replace")
    assert code == 0 and out.strip() != public
    assert locm("key", "show", "--db", db)[1].strip() == out.strip()
    bare = tmp_path / "bare.db"
    assert locm("play", "--seed", 1, "--db", bare)[0] == 0
    code, _, err = locm("key", "show", "--db", bare)
    assert code == 1 and "has no signing key" in err
    code, _, err = locm("key", "new", "--db", tmp_path / "none.db")
    assert code != 0 and not (tmp_path / "none.db").exists()


def test_an_export_signed_by_a_trusted_key_imports(tmp_path: Path, signed) -> None:
    db, public, out_file = signed
    sig = json.loads(Path(f"{out_file}.sig").read_text())
    assert sig["public_key"] == public and sig["algorithm"] == "ed25519"
    pub_file = tmp_path / "a.pub"
    pub_file.write_text(public + "\n")
    for trust in (public, pub_file):
        copy = tmp_path / f"copy-{len(str(trust))}.db"
        code, out, err = locm("import", out_file, "--db", copy, "--trust", trust)
        assert code == 0, err
        assert "imported 2 games" in out and "valid" in err
        with open_store(copy, create=False, readonly=True) as store:
            assert store.count() == 2


@pytest.mark.parametrize("change", ["other key", "edited", "unsigned", "bad signature", "not json", "stdin"])
def test_a_file_not_signed_by_a_trusted_key_is_refused_and_nothing_is_written(tmp_path: Path, signed,
                                                                               change: str) -> None:
    db, public, out_file = signed
    trust = public
    sig_file = Path(f"{out_file}.sig")
    if change == "other key":
        trust = "ab" * 32
    elif change == "edited":
        data = out_file.read_bytes()
        out_file.write_bytes(data.replace(b'"seed":3', b'"seed":5', 1))
    elif change == "unsigned":
        sig_file.unlink()
    elif change == "bad signature":
        doc = json.loads(sig_file.read_text())
        doc["signature"] = ("0" if doc["signature"][0] != "0" else "1") + doc["signature"][1:]
        sig_file.write_text(json.dumps(doc))
    elif change == "not json":
        sig_file.write_text("{")
    target = tmp_path / "copy.db"
    args = ["import", "-" if change == "stdin" else out_file, "--db", target, "--trust", trust]
    code, out, err = locm(*args)
    assert code != 0 and out == ""
    assert "error: " in err and err.count("\n") == 1 and "Traceback" not in err  # one line
    assert not target.exists()
    expected = {"other key": "not by a key this import trusts", "edited": "changed after it was signed",
                "unsigned": "is not signed", "bad signature": "not valid for this file",
                "not json": "not a signature file", "stdin": "give a file, not -"}[change]
    assert expected in err


def test_the_signed_ledger_names_a_game_removed_behind_the_stores_back(tmp_path: Path, signed) -> None:
    db, public, _ = signed
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and f"ledger signed at 2 games by {public}" in out
    assert locm("play", "--seed", 9, "--db", db)[0] == 0  # a game stored after the signature: still its prefix
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "ledger signed at 2 games" in out and "valid" in out
    # A forger who knows the format removes the second game and the third and rewrites the ledger over the rest:
    # the ledger agrees with the games, the signature does not.
    with open_store(db, create=False, readonly=True) as store:
        head_1 = store.ledger_head_at(1)
    conn = sqlite3.connect(db)
    (first,) = conn.execute("SELECT game_id FROM games ORDER BY id LIMIT 1").fetchone()
    with conn:
        keys = [k for (k,) in conn.execute("SELECT id FROM games WHERE game_id != ?", (first,))]
        for k in keys:
            for table in ("logs", "game_facts"):
                conn.execute(f"DELETE FROM {table} WHERE game = ?", (k,))
            conn.execute("DELETE FROM games WHERE id = ?", (k,))
        conn.execute("UPDATE locm_meta SET value = ? WHERE key = 'ledger'", (f"1 {head_1}",))
    conn.close()
    with open_store(db, create=False, readonly=True) as store:
        assert store.ledger_problem() is None
        verdict = ledger_check(store, db)
    assert verdict.signed and "not the store's first 2 games now" in verdict.problem
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "the ledger signed at 2 games is not the store's first 2 games now" in out


def test_a_forged_ledger_signature_is_named(tmp_path: Path, signed) -> None:
    db, _, _ = signed
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE signing_ledger SET head = ?", ("00" * 32,))
    conn.close()
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "the ledger's signature is not valid under its key" in out
