"""Replay and audit commands of every game: `locm show`, `locm audit`, `locm replay`, `locm html` (each asks the
game's replay wing, `replay.wing.Wing`, for what differs; LOCM's `import-referee` is in its wing, `locm.games.locm.cli`).

Each is a thin layer over `replay`. SOURCE is one of
  game.jsonl                  an event log written by `locm play --log`
  official.txt.gz --game K    game K (0-based line) of an official referee log, replayed through the engine
  --db locm.db GAME_ID        a stored game (a unique prefix of its id is enough)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

SOURCE_HELP = """
\b
SOURCE is one of:
  game.jsonl                 an event log written by 'locm play --log' (- for standard input)
  official.txt.gz --game K   game K (0-based) of an official referee log
  --db locm.db GAME_ID       a stored game (a unique prefix of the id is enough)

A log read from a file is re-decided from its inputs first; one that does not follow the rules (or a stored
game whose hash chain does not hold) is still shown, with a first line saying where it departs (the seq, the
event it has, the event the rules give), and the exit status is 1.
"""


def _source(f):
    f = click.argument("source")(f)
    f = click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
                     help="Read SOURCE as a game id in this event store.")(f)
    f = click.option("--game", "game_index", type=int, metavar="K",
                     help="Which game of an official referee log (0-based line number).")(f)
    return f


def _open(source, db, game_index):
    from locm.replay import open_game

    if db is not None:
        if game_index is not None:
            raise click.UsageError("--game is for official logs, not with --db")
        return open_game(db=db, game_id=source)
    return open_game(source, game=game_index)


def _dump(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=1))


def _warn(r, to_stderr: bool = False) -> None:
    """A log that does not follow the rules (or a stored game whose chain does not hold) is shown, never
    silently: its warning is the first line of the output (on standard error where the output is JSON or a
    file)."""
    if r.warning:
        click.echo(r.warning, err=to_stderr)


def _exit(r) -> None:
    """Exit status 1 after showing a log that does not follow the rules or cannot be vouched for."""
    if r.warning:
        sys.exit(1)


def _pick_seq(r, turn, seq) -> int:
    if turn is not None and seq is not None:
        raise click.UsageError("give --turn or --seq, not both")
    if seq is not None:
        return r.check_seq(seq)
    if turn is not None:
        return r.turn_start(turn)
    return r.last_seq


def register(cli: click.Group) -> None:
    for cmd in (show, audit, replay_cmd, html):
        cli.add_command(cmd)


# --- show -------------------------------------------------------------------------------------------------


@click.command(epilog=SOURCE_HELP)
@_source
@click.option("--turn", type=int, metavar="N", help="The start of game turn N (after its draws).")
@click.option("--seq", type=int, metavar="S", help="Just after event S.")
@click.option("--as", "perspective", type=click.IntRange(0, 1), help="What player 0 or 1 saw (hides the other "
              "hand and the decks' order).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def show(source, db, game_index, turn, seq, perspective, as_json):
    """Show the board at one point of a game (default: the end) and the events of that turn.

    \b
    Example:
      locm show game.jsonl --turn 6
      locm show --db locm.db 1.2-7-0123 --seq 212 --as 0 --json
      locm show tests/data/official-1.5-games-00-49.txt.gz --game 3 --turn 10
    """
    r = _open(source, db, game_index)
    s = _pick_seq(r, turn, seq)
    out = r.wing.show(r, s, perspective, as_json)  # the game's wing: its board and its turn's events
    _warn(r, to_stderr=as_json)
    if as_json:
        _dump({**out, "behaviour": r.behaviour()})
    else:
        click.echo("\n".join([*out, r.behaviour()["text"]]))
    _exit(r)


# --- audit ------------------------------------------------------------------------------------------------


@click.command(epilog=SOURCE_HELP)
@_source
@click.option("--seq", type=int, metavar="S", help="Explain event S: its rule, its causes and what it changed (my-card-"
              "game, Skyport: and what it set off, the chain of triggers).")
@click.option("--rejected", is_flag=True, help="List every skipped action and hard error with its reason and rule.")
@click.option("--card", "card_id", type=int, metavar="ID", help="One card instance's whole life.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def audit(source, db, game_index, seq, rejected, card_id, as_json):
    """Settle a dispute from the log alone: why an event happened, which rule it applied, what it changed.

    \b
    Example:
      locm audit game.jsonl --seq 210
      locm audit --db locm.db 1.2-7-0123 --rejected
      locm audit game.jsonl --card 7 --json
      locm audit m.jsonl --seq 56            # a my-card-game death: its causes and the triggers it set off
      locm audit skyport.jsonl --seq 254   # Skyport: why the laser hit whom it hit, why -10
    """
    if [seq is not None, rejected, card_id is not None].count(True) != 1:
        raise click.UsageError("give exactly one of --seq S, --rejected, --card ID")
    r = _open(source, db, game_index)
    if seq is not None:
        out, kind, arg = r.explain(seq), "seq", seq
    elif rejected:
        out, kind, arg = r.rejected(), "rejected", None
    else:
        out, kind, arg = r.card_life(card_id), "card", card_id
    _warn(r, to_stderr=as_json)
    if as_json:
        _dump({"result": out, **r.trust()} if r.warning else out)
    else:
        click.echo("\n".join(r.wing.audit_lines(r, kind, out, arg)))  # the game's wing words it
    _exit(r)


# --- replay -----------------------------------------------------------------------------------------------


@click.command("replay", epilog=SOURCE_HELP)
@_source
@click.option("--all", "print_all", is_flag=True, help="Print every turn's board and events (no keys).")
@click.option("--as", "perspective", type=click.IntRange(0, 1), help="Start in player 0's or 1's view.")
def replay_cmd(source, db, game_index, print_all, perspective):
    """Step through a game in the terminal: n/p next/previous action, N/P (or ]/[) next/previous turn,
    t jump to a turn, v switch view (full, P0, P1), q quit. Not in a terminal, or with --all, print every
    turn's board and events in order.

    \b
    Example:
      locm replay game.jsonl
      locm replay --db locm.db 1.2-7-0123 --all | less
    """
    r = _open(source, db, game_index)
    _warn(r)
    if print_all or not r.wing.interactive or not (sys.stdin.isatty() and sys.stdout.isatty()):
        for line in r.wing.all_turns(r, perspective):
            click.echo(line)
        return _exit(r)
    r.wing.step(r, perspective)
    _exit(r)


# --- html -------------------------------------------------------------------------------------------------


@click.command(epilog=SOURCE_HELP)
@_source
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The HTML file to write.")
def html(source, db, game_index, output):
    """Write a self-contained replay viewer (one HTML file, no network): the board, the hands, the events;
    step by event, action or turn; click an event for its rule, causes and diff. Open
    game.html#seq=S&as=0 to start at seq S in player 0's view. A log that does not follow the rules gets a
    banner, and each event the rules would not produce is marked (with what they give instead).

    \b
    Example:
      locm html game.jsonl -o game.html
      locm html --db locm.db 1.2-7-0123 -o game.html
      locm html m.jsonl -o m.html          # another game's log: its own board, by seat or whole
    """
    from locm.common.outputs import write_output as _write_bytes
    from locm.replay.html import render_html

    r = _open(source, db, game_index)
    _warn(r, to_stderr=str(output) == "-")
    data = render_html(r).encode()  # the game's wing's page (replay.html)
    _write_bytes(output, data)
    # the summary goes to stderr when the page went to standard output
    click.echo(f"{output} ({len(data) // 1024} KB, {r.wing.page_note(r)})", err=str(output) == "-")
    _exit(r)
