"""`locm position`: a stored game's position as a string to play on from (`locm.tournament.continued`)."""

from __future__ import annotations

from pathlib import Path

import click

from locm.cli.options import usage_errors


@click.command()
@click.argument("game_id", required=False)
@click.option("--seq", type=int, help="The position after this event (the end of the decision holding it).")
@click.option("--db", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The event store that holds the game.")
@click.option("--reveal", is_flag=True, help="The full position: every seat's hidden cards and the seeds (an "
                                             "organiser's); by default it is redacted for one seat.")
@click.option("--seat", type=int, help="The seat a redacted position is for [default: the seat to move].")
@click.option("--show", "show", metavar="STRING", help="Say what a position string holds, and its board, instead.")
def position(game_id, seq, db, reveal, seat, show):
    """Print the position of a stored game after event --seq, as one line to play on from.

    Redacted by default for one seat: it holds what that seat sees, not the other's hand, the deck order or
    the seeds, and playing on from it needs the store that holds the game. --reveal gives the full position,
    which plays on anywhere (`locm play --position`).

    \b
    Example:
      locm position 1.2-7-0123456789ab --seq 120 --db games.db
      locm position 1.2-7-0123456789ab --seq 120 --db games.db --reveal
      locm position --show locm1:eNqt...
    """
    from locm.tournament.continued import position_text, show_position

    with usage_errors():
        if show is not None:
            click.echo("\n".join(show_position(show)))
            return
        if game_id is None or seq is None or db is None:
            raise click.UsageError("give GAME_ID, --seq and --db (or --show STRING)")
        click.echo(position_text(db, game_id, seq, reveal, seat))


__all__ = ["position"]
