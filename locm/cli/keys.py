"""`locm key`: the store's signing key, which signs its exports (`locm.provenance.signing`)."""

from __future__ import annotations

from pathlib import Path

import click

from locm.cli.options import DB_OPTION, usage_errors


@click.group()
def key():
    """The store's signing key (Ed25519): `locm export` signs with it, `locm import --trust` checks.

    \b
    Example:
      locm key new --db t.db                 # prints the public key to give importers
      locm key show --db t.db > t.pub
      locm export --all --db t.db -o games.jsonl   # writes games.jsonl.sig too
      locm import games.jsonl --db copy.db --trust t.pub
      locm key sign --db t.db                # the ledger signed as it stands, without an export
    """


@key.command("new")
@DB_OPTION
@click.option("--replace", is_flag=True, help="Make a new key where the store has one (the old one is retired).")
def key_new(db: Path, replace: bool):
    """Make the store's signing key and print its public half (64 hex digits). The key is kept in the store's
    file: whoever can read the store can sign as it; give others the public key only.

    \b
    Example:
      locm key new --db t.db
    """
    from locm.provenance.signing import new_key
    from locm.store.eventstore import open_store

    with usage_errors():
        open_store(db, create=False, readonly=True).close()  # a store, not any file: the one-line refusal
        click.echo(new_key(db, replace=replace))


@key.command("show")
@DB_OPTION
def key_show(db: Path):
    """Print the store's public key (what importers pass to --trust); exit status 1 if it has none.

    \b
    Example:
      locm key show --db t.db > t.pub
    """
    import sys

    from locm.provenance.signing import public_key

    with usage_errors():
        found = public_key(db)
    if found is None:
        click.echo(f"locm: error: {db} has no signing key (locm key new --db {db} makes one)", err=True)
        sys.exit(1)
    click.echo(found)


@key.command("sign")
@DB_OPTION
def key_sign(db: Path):
    """Sign the store's ledger as it stands (its games and how each came in) with its key, as each signed
    export does; refused when the store does not agree with its own chains (see locm verify). Needed once for a
    store signed by a locm before the provenance chain, whose signature does not cover provenance.

    \b
    Example:
      locm key sign --db t.db && locm verify --db t.db
    """
    import sys

    from locm.provenance.signing import sign_ledger
    from locm.store.eventstore import open_store

    with usage_errors():
        open_store(db, create=False, readonly=True).close()  # a store, not any file: the one-line refusal
        found = sign_ledger(db)
    if found is None:
        click.echo(f"locm: error: {db} has no signing key (locm key new --db {db} makes one)", err=True)
        sys.exit(1)
    click.echo(f"signed the ledger at {found[0]} game{'s' * (found[0] != 1)}")


__all__ = ["key"]
