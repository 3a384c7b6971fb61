"""`locm verify`: event logs, export files and a store checked (`locm.verify.checks`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from locm.cli.options import n as _n


@click.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, allow_dash=True))
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event store to check (default locm.db when no FILE is given).")
@click.option("--redecide/--no-redecide", default=True, show_default=True,
              help="Also rebuild each game from its game_created, feed every recorded input through the rules "
                   "again and compare the events byte for byte (--no-redecide: the chain and the fold only).")
@click.option("--full", is_flag=True,
              help="Run SQLite's full integrity_check on the store (every index against its table) instead of "
                   "the quick_check.")
def verify(files, db, redecide, full):
    """Check games and everything a store holds; exit status 1 if anything is wrong.

    A store: SQLite's integrity check (quick by default, full with --full), its ledger (every game ever
    stored is still there, in order: a deleted row is named), its tournaments' schedules (every scheduled game
    is there, and every game that says it is scheduled is the game of its place), and every game: its hash
    chain, its id (what
    its game_created gives), the fold of its events ends the game with the recorded winner, and (by default)
    re-deciding its recorded inputs gives exactly its events, so a log edited and re-chained is caught at the
    first event the rules would not produce. FILES: event logs (locm play --log, of any registered game: its
    game is told by its first line), my-card-game account logs (re-decided, every card traced to a pack or a
    craft), official referee logs (each game replayed as 'locm conformance' does) and store exports, checked
    the same way; - is standard input. A store's games of other games are checked by the core (chain, record,
    re-decided log). Each stored game's built-in agents are re-run on its seed (with --redecide): a game whose
    moves its agents would not make is named at the first such decision. A game of built-in agents the native
    core plays (LOCM's pass, random and greedy) is first played out whole from its game_created: the same log,
    byte for byte, proves both at once; any other log is re-decided and re-run decision by decision. The games the store did not play
    (imported, with the file, its SHA-256 and whether its signature was trusted) are listed apart. Prints a
    line per bad game and a summary.

    \b
    Example:
      locm verify --db t.db
      locm verify --db t.db --full --no-redecide    # the whole file, then chains, ids and folds only
      locm verify game.jsonl official.txt.gz games.jsonl
    """
    from locm.cli.progress import bar as progress_bar
    from locm.games.registry import SCHEDULES
    from locm.verify.checks import check_file, provenance_lines, store_checks, stored_problem
    from locm.games.registry import games_with, hook
    from locm.store.eventstore import open_store

    bad = total = 0
    extra: dict[str, tuple[int, int]] = {}  # per kind of kept thing: how many checked, how many bad

    def report(label: str, verdict) -> None:
        nonlocal bad, total
        total += 1
        if not verdict.ok:
            bad += 1
            click.echo(f"{label}: {verdict.problem.removeprefix(f'game {label!r}: ')}")
        elif verdict.note:
            click.echo(f"{label}: good; note: {verdict.note}")

    for path in files:
        for checked in check_file(str(path), redecide, schedules=SCHEDULES):
            report(checked.label, checked.verdict)
    store_bad = False
    if db is not None or not files:
        with open_store(db or Path("locm.db"), create=False, readonly=True) as store:
            found = store_checks(store, full, schedules=SCHEDULES)
            for line in found.problems:
                click.echo(f"store: {line}")
            for line in found.notes:
                click.echo(f"store: note: {line}")
            # The bar goes to stderr and only to a terminal: the report lines on stdout stay as they are.
            with progress_bar(found.records, length=len(found.records), label="verifying", show_pos=True,
                              show_eta=True) as bar:
                for record in bar:
                    report(record.game_id, stored_problem(store, record, redecide))
            for g in games_with("verify_store"):  # what a game keeps beside its games (my-card-game's accounts)
                noun, checked = hook("verify_store", g)(store)
                for label, problem in checked:
                    if problem:
                        click.echo(f"{label}: {problem}")
                if checked:
                    k, b = extra.get(noun, (0, 0))
                    extra[noun] = (k + len(checked), b + sum(1 for _, p in checked if p))
            store_bad = not found.ok
            for line in provenance_lines(store):  # the games not played here, apart
                click.echo(line)
            from locm.provenance.signing import ledger_check

            signed = ledger_check(store, db or Path("locm.db"))
            if signed.problem:
                click.echo(f"store: {signed.problem}")
                store_bad = True
            elif signed.signed:
                covers = "" if signed.note else f", with the games' provenance ({signed.pcount} chain entries)"
                click.echo(f"store: ledger signed at {_n(signed.count, 'game')} by {signed.public} ({signed.when}): "
                           f"valid{covers}")
                if signed.note:
                    click.echo(f"store: note: {signed.note}")
            if found.ok:
                click.echo(f"store: {found.summary()}")
    click.echo(f"{_n(total, 'game')} checked: {total - bad} good, {bad} bad")
    for noun, (k, b) in extra.items():
        click.echo(f"{_n(k, noun)} checked: {k - b} good, {b} bad")
    sys.exit(1 if bad or store_bad or any(b for _, b in extra.values()) else 0)


__all__ = ["verify"]
