"""Replay and audit commands: `locm show`, `locm audit`, `locm replay`, `locm html`, `locm import-referee`.

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


def dump_json(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=1))


def warn(r, to_stderr: bool = False) -> None:
    """A log that does not follow the rules (or a stored game whose chain does not hold) is shown, never
    silently: its warning is the first line of the output (on standard error where the output is JSON or a
    file)."""
    if r.warning:
        click.echo(r.warning, err=to_stderr)


def trust(r) -> dict:
    """The JSON form of `warn`: a reader of --json output sees the same facts."""
    return {"warning": r.warning, "departures": [
        {"seq": d.seq, "message": d.message, "log_has": d.stored, "rules_give": d.decided} for d in r.departures]}


def exit_if_warned(r) -> None:
    """Exit status 1 after showing a log that does not follow the rules or cannot be vouched for."""
    if r.warning:
        sys.exit(1)


def _other(r) -> bool:
    """Whether `r` is a game of another registered game (`replay.match.MatchReplay`: the viewer shell)."""
    from locm.replay.match import MatchReplay

    return isinstance(r, MatchReplay)


def _own(r, name: str, default):
    """The hook ``name`` of the game that `r` shows (`locm.games.registry`): a game of the viewer shell
    (`replay.match.MatchReplay`) by its definition's name, else the default game's own viewer; ``default``
    (the viewer shell's version) where the game has none."""
    from locm.engine import registry
    from locm.games.registry import hook

    return hook(name, r.game.name if _other(r) else registry.DEFAULT, default)


def _show_other(r, s: int, seat: int | None, as_json: bool) -> None:
    turn = [t for t in r.game.turn_starts(r.events) if t[0] <= s]
    first = turn[-1][0] if turn else max(0, s - 5)
    if as_json:
        warn(r, to_stderr=True)
        dump_json({**r.view(s, seat), "events": [r.explain(i) | {"causes": None} for i in range(first, s + 1)],
               **({"warning": r.warning} if r.warning else {})})
    else:
        warn(r)
        click.echo(f"{r.game.title}: seq {s} of {r.last_seq}" + (f" (as P{seat})" if seat is not None else ""))
        click.echo(r.board(s, seat))
        click.echo("events:")
        for i in range(first, s + 1):
            click.echo(r.event_line(i))
    sys.exit(1 if r.warning else 0)


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
    _own(r, "show", _show_other)(r, s, perspective, as_json)


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
    _own(r, "audit", _audit_other)(r, seq, rejected, card_id, as_json)


def _audit_other(r, seq, rejected, card_id, as_json) -> None:
    """`locm audit` of another registered game through the viewer shell (`replay.match.MatchReplay`)."""
    line = lambda o: f"seq {o['seq']} {o['type']} ({o['rule']}): {o['description']}"  # noqa: E731
    if seq is not None:
        out = r.explain(seq)
        lines = [line(out)] + [f"  caused by {line(c)}" for c in out["causes"]]
        lines += [f"  why: {w}" for w in out.get("why", [])]  # the game's own answer (replay.match.WHY_HOOKS)
        if out["consequences"]:
            lines.append("  what it set off (the chain of triggers):")
            lines += ["    " + "  " * (c["depth"] - 1) + "-> " + line(c) for c in out["consequences"]]
    elif rejected:
        out = r.rejected()
        lines = [f"{len(out)} refused input(s)"] + [
            line(o) + (f"\n  the input: {line(o['input'])}" if o["input"] else "") for o in out]
    else:
        out = r.card_life(card_id)
        lines = [f"card instance {card_id}: {len(out)} events"] + [
            line(o) + (f"  <- {line(o['cause'])}" if o["cause"] else "") for o in out]
    warn(r, to_stderr=as_json)
    if as_json:
        dump_json({"result": out, **trust(r)} if r.warning else out)
    else:
        click.echo("\n".join(lines))
    sys.exit(1 if r.warning else 0)


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
    warn(r)
    _own(r, "replay", _replay_other)(r, print_all, perspective)


def _replay_other(r, print_all: bool, perspective) -> None:
    """Every turn's board and events, in order (the interactive viewer reads LOCM's turns)."""
    starts = [t[0] for t in r.game.turn_starts(r.events)] + [r.last_seq + 1]
    bounds = [0, *starts] if starts[0] > 0 else starts
    for a, b in zip(bounds, bounds[1:]):
        for i in range(a, b):
            click.echo(r.event_line(i))
        click.echo(r.board(b - 1, perspective))
        click.echo("")
    exit_if_warned(r)


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
    r = _open(source, db, game_index)
    _own(r, "html", _html_other)(r, output)


def _html_other(r, output) -> None:
    """The viewer shell with the game's own board (replay.match_html)."""
    from locm.common.outputs import write_output as _write_bytes
    from locm.replay.match_html import render_match_html

    warn(r, to_stderr=str(output) == "-")
    data = render_match_html(r).encode()
    _write_bytes(output, data)
    click.echo(f"{output} ({len(data) // 1024} KB, {len(r.events)} events, {r.game.title})",
               err=str(output) == "-")
    exit_if_warned(r)


__all__ = ["register", "show", "audit", "replay_cmd", "html", "dump_json", "warn", "trust", "exit_if_warned"]
