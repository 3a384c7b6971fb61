"""`locm export` and `locm import`: a store's games as JSON lines, and back (all or none, each game checked)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from locm.cli.options import DB_OPTION, n as _n


@click.command("export")
@click.argument("game_ids", nargs=-1, metavar="[GAME_ID]...")
@click.option("--all", "all_games", is_flag=True, help="Export every stored game.")
@DB_OPTION
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write here instead of standard output (only once complete); - is standard output.")
@click.option("--salvage", is_flag=True,
              help="From a damaged store: write every game that still reads and verifies through any view of "
                   "its files (as it is; its -wal's valid frames; its main file alone), name the others on "
                   "stderr (exit status 1 if any).")
def export_cmd(game_ids, all_games, db, output, salvage):
    """Write games as JSON lines: a header, each game's record and its events with their hashes, totals.

    With --all: the games of every registered game (LOCM, my-card-game, Skyport), the store's tournament
    schedules and its my-card-game accounts (each account's log with its hashes). `locm import` reads the file
    back exactly (export, import, export gives the same bytes).

    \b
    Example:
      locm export --all --db t.db > games.jsonl
      locm export 1.2-7-0123456789ab --db t.db -o one.jsonl
      locm export --all --salvage --db damaged.db -o rescued.jsonl
    """
    from locm.common.outputs import output_file
    from locm.store.eventstore import open_store

    if bool(game_ids) == all_games:
        raise click.UsageError("give GAME_ID arguments or --all (one of the two)")
    bad, extra = [], []
    ids = None if all_games else list(dict.fromkeys(game_ids))

    def on_bad(gid, exc):
        bad.append(gid)
        click.echo(f"locm: left out game {gid}: {str(exc).removeprefix(f'game {gid!r}: ')}", err=True)

    def on_view(what, n):
        click.echo(f"locm: salvage: {what}: " + ("does not open" if n < 0 else f"{_n(n, 'game')} read"), err=True)

    if salvage:
        from locm.store.salvage import salvage_jsonl

        if not db.exists():
            open_store(db, create=False, readonly=True)  # the one-line "no store here"
        with output_file(output or "-") as out:
            n = salvage_jsonl(db, ids, out, on_bad=on_bad, on_view=on_view)
    else:
        with open_store(db, create=False, readonly=True) as store:
            for gid in ids or ():
                store.game(gid)  # an unknown id is refused before anything is written
            with output_file(output or "-") as out:
                n = store.export_jsonl(ids, out)
            if ids is None:  # --all: the store's tournament schedules and my-card-game accounts too
                from locm.games.registry import games_with, hook

                extra = [(len(store.schedules()), "tournament schedule")]
                extra += [hook("export_count", g)(store) for g in games_with("export_count")]
    if output is not None and str(output) != "-":
        click.echo(f"{_n(n, 'game')}" + "".join(f", {_n(k, what)}" for k, what in extra if k)
                   + f" written to {output}", err=True)
    _sign(db, output, salvage, ids)
    if bad:
        click.echo(f"locm: {_n(len(bad), 'damaged game')} left out, {_n(n, 'game')} saved", err=True)
        sys.exit(1)


def _sign(db, output, salvage, ids) -> None:
    """An export signed where the store holds a key (`locm key new`): ``OUTPUT.sig`` beside the file."""
    from locm.provenance.signing import public_key, sign_file

    if salvage or not db.exists() or public_key(db) is None:
        return
    if output is None or str(output) == "-":
        click.echo("locm: note: not signed: a signature is written beside a file (-o FILE)", err=True)
        return
    sig = sign_file(db, output)
    click.echo(f"signed by {sig.public}: {output}.sig", err=True)
    from locm.store.eventstore import open_store

    with open_store(db, create=False, readonly=True) as store:  # provenance does not travel: say what is vouched for
        foreign = sum(1 for came in store.provenances(ids).values() if not came.counted)
    if foreign:
        click.echo(f"locm: warning: {_n(foreign, 'game')} of the file this store did not play nor import under "
                   "--trust: the signature vouches for them too (see locm verify)", err=True)


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@DB_OPTION
@click.option("--skip-existing", is_flag=True,
              help="Skip games already stored identically instead of refusing (with --trust, those an untrusted "
                   "import had stored become this file's, and count).")
@click.option("--trust", "trusted", multiple=True, metavar="PUBKEY",
              help="Import only a file signed by this key (64 hex digits, or a file holding them, as 'locm key "
                   "show' prints it; repeatable): FILE.sig must be a valid signature of FILE's bytes by one of them.")
def import_cmd(file, db, skip_existing, trusted):
    """Store the games of an export file, all or none: a malformed, truncated or tampered file is refused
    with the number of its first wrong line, and nothing is written. Each game is checked as 'locm verify'
    checks a stored game: its id is what its game_created gives, and re-deciding its recorded inputs gives
    exactly its events, so a forged game whose hash chain was recomputed is refused naming the game, the seq
    and the first event the rules would not produce; its built-in agents are re-run on its seed, so a game
    relabelled as another agent's is refused naming the first decision that agent would not make. Each game
    records where it came from (this file, its SHA-256, when, and whether --trust checked its signature): a
    game imported without --trust is kept but never counted by a tournament or its standings (`locm verify`
    lists it). The file's tournament schedules are kept (each key what
    its manifest gives) and its my-card-game accounts too: each account's log re-decided as 'locm verify'
    checks one (a forged one is refused naming the account and the seq), and an account already stored must
    have its log extended, never rewritten. FILE may be - for standard input.

    FILE may also be an event log (`locm play --log`): its game is checked (re-deciding its inputs gives
    exactly its events) and stored under the id `locm play --db` would have given it.

    \b
    Example:
      locm import games.jsonl --db copy.db
      locm import game.jsonl --db t.db        # an event log from locm play --log
      locm import alice.jsonl --db t.db       # a my-card-game account's log (checked; it may only grow)
      locm import games.jsonl --db copy.db --trust 3f1c...e9   # only if games.jsonl.sig is that key's

    FILE may be a my-card-game account's log: it is checked as 'locm verify' checks one and kept as its
    account's one log (stored again, it must extend the stored log: an account's history is never rewritten).
    """
    from locm.errors import ImportFormatError, InputFileError
    from locm.events.codec import MAX_LINE
    from locm.games.registry import checker, games_with, hook
    from locm.store.eventstore import open_store

    from locm.store.provenance import imported_source
    from locm.store.records import utc_timestamp

    name = "-" if str(file) == "-" else str(Path(file).resolve())
    origin = imported_source(name, at=utc_timestamp())  # kept as untrusted: never counted as its agents'
    if trusted:
        from locm.provenance.signing import check_file, parse_public

        if str(file) == "-":
            raise click.UsageError("--trust checks a file's signature beside it: give a file, not -")
        sig = check_file(file, [parse_public(t) for t in trusted])
        click.echo(f"{file}: signed by {sig.public}: valid", err=True)
        origin = imported_source(name, at=origin.at, trusted=True, signer=sig.public, sha256=sig.sha256)
    existed = db.exists()
    store = open_store(db, checker=checker())
    ok = False
    try:
        with click.open_file(str(file), "rb") as stream:
            first = stream.readline(MAX_LINE + 1)
            for g in games_with("import_log"):  # a game's own kind of log (my-card-game: an account's)
                said = hook("import_log", g)(store, first, stream, str(file), db)
                if said is not None:
                    ok = True
                    click.echo(said)
                    return
            from locm.replay.sources import game_of_line

            other = game_of_line(first)  # another registered game's event log (`locm play --game G --log`)
            if other is not None or _is_event_log_line(first):
                from locm.engine import registry
                from locm.replay.sources import MAX_FILE
                from locm.verify.logimport import import_log

                data = first + stream.read(MAX_FILE)
                game = other if other is not None else registry.get(registry.DEFAULT)
                gid, stored = import_log(store, game, data, str(file), skip_existing=skip_existing, origin=origin)
                ok = True
                click.echo(f"imported game {gid} into {db}" if stored else f"game {gid} already stored, skipped")
                return
            from locm.cli.progress import bar as progress_bar

            size = os.fstat(stream.fileno()).st_size if str(file) != "-" else 0
            untrusted = {g for g, c in store.provenances().items() if not c.counted} if trusted else set()
            with progress_bar(length=size, label="importing") as bar:  # a bar only where someone watches
                summary = store.import_jsonl(_Counted(first, stream, bar.update if size else None),
                                             skip_existing=skip_existing, source=origin)
            now = sum(1 for c in store.provenances(list(untrusted)).values() if c.counted) if untrusted else 0
        ok = True
    except ImportFormatError as exc:
        raise InputFileError(str(file), exc) from None
    except OSError as exc:
        raise InputFileError(str(file), exc.strerror or exc) from None
    finally:
        store.close()
        if not ok and not existed:  # leave no empty store behind a refused import
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    if summary.games and not trusted:
        click.echo("locm: note: imported without --trust: kept as untrusted (no tournament or its standings counts "
                   "these games, reports and whatif only with --include-untrusted; `locm verify` lists them)", err=True)
    click.echo(f"imported {_n(summary.games, 'game')} ({_n(summary.events, 'event')}) into {db}"
               + (f"; {summary.skipped} already stored, skipped" if summary.skipped else "")
               + (f" ({now} of them now this trusted file's)" if now else "")
               + (f"; {_n(summary.schedules, 'tournament schedule')}" if summary.schedules else "")
               + (f"; {_n(summary.accounts, 'account')} ({_n(summary.account_events, 'event')})"
                  if summary.accounts else ""))


def _is_event_log_line(line: bytes) -> bool:
    """Whether a file's first line is an event log's `game_created` (not an export's header)."""
    import msgspec

    class Kind(msgspec.Struct):
        type: object = None

    try:
        return msgspec.json.decode(line, type=Kind).type == "game_created"
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return False


class _Counted:
    """A binary stream whose first line was read already (`readline` gives it back first), telling ``update``
    how many bytes each line is (a progress bar's), if given. Lines are read with the reader's limit
    (`events.locm.codec.bounded_lines`)."""

    def __init__(self, first: bytes, stream, update) -> None:
        self._first, self._stream, self._update = first, stream, update

    def readline(self, limit: int = -1) -> bytes:
        if self._first:
            line, self._first = self._first, b""
        else:
            line = self._stream.readline(limit)
        if self._update is not None:
            self._update(len(line))
        return line


__all__ = ["export_cmd", "import_cmd"]
