"""`locm games`: the stored games of any registered game as one table (`locm.reports.listing`, LOCM's too)."""

from __future__ import annotations

import click

from locm.cli.options import DB_OPTION, GAME, usage_errors


@click.command()
@DB_OPTION
@GAME
@click.option("--ruleset", "-r", help="Only games of this ruleset (a name, an alias or a variant file).")
@click.option("--agent", help="Only games with this agent in any seat (exactly as stored).")
@click.option("--winner", type=int, metavar="SEAT",
              help="Only games won by this seat, 0 for the first (LOCM and my-card-game: 0 or 1; Skyport: 0 to 7); "
                   "-1: games without a winner (a draw, or a tie for first on points).")
@click.option("--winner-agent", metavar="AGENT", help="Only games won by this agent, in any seat.")
@click.option("--seats", type=int, metavar="N", help="Only games of N players (Skyport: 2 to 8).")
@click.option("--place", type=int, metavar="K",
              help="With --agent: only games where that agent finished K-th (1: first, alone or shared).")
@click.option("--field", "fields", multiple=True, metavar="NAME=VALUE",
              help="Another game's: only games whose index field NAME is VALUE, e.g. --field map=octagon-8p "
                   "(Skyport); repeatable.")
@click.option("--limit", type=click.IntRange(min=0), help="At most this many games.")
@click.option("--stderr", "stderr_of", metavar="GAME_ID",
              help="Instead of the table, print what the bots of this stored game wrote on stderr.")
def games(db, game_name, ruleset, agent, winner, winner_agent, seats, place, fields, limit, stderr_of):
    """List the stored games as a table, in the order they were stored. ``turns`` are the battle turns
    begun, both players counted (as `locm play` says them).

    Another game's table has a row per game with every seat's agent, place (1 first; a tie shares it) and, in
    a game of points, score, in seat order; the winner is its seat and agent ("-": none). With --agent, that
    agent's seat, place and score are columns of their own.

    \b
    Example:
      locm games --db t.db --ruleset 1.2 --agent greedy --winner 0 --limit 20
      locm games --db t.db --winner-agent "python3 examples/bot.py"
      locm games --db t.db --stderr 1.2-7-0123456789ab
      locm games --db t.db --game skyport --agent hunter
      locm games --db t.db --game skyport --seats 4 --agent hunter --place 1
      locm games --db t.db --game skyport --winner 5 --field map=octagon-8p
    """
    from locm.engine import registry
    from locm.reports.listing import games_table, stderr_lines
    from locm.store.eventstore import open_store

    game = registry.get(game_name)
    _check_seat_filters(game, winner, seats, place, agent)
    wanted = {}
    for item in fields:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise click.UsageError(f"--field {item!r}: expected NAME=VALUE, e.g. map=octagon-8p")
        wanted[name] = value
    if stderr_of is not None:  # a game of any game
        with open_store(db, create=False, readonly=True) as store:
            for line in stderr_lines(store, stderr_of):
                click.echo(line)
        return
    with usage_errors():
        games_table(
            db, game=game, ruleset=ruleset, agent=agent, winner=winner, winner_agent=winner_agent, seats=seats,
            place=place, limit=limit, fields=wanted, echo=click.echo)


def _check_seat_filters(game, winner, seats, place, agent) -> None:
    """`locm games`' seat filters against the game's number of seats (one line each: `click.UsageError`)."""
    lo, hi = game.seats
    counts = f"{lo} to {hi}" if lo != hi else str(lo)
    if winner is not None and not -1 <= winner < hi:
        raise click.UsageError(f"--winner {winner}: {game.title} has {counts} seats: expected a seat 0..{hi - 1}, "
                               "or -1 for games without a winner")
    if seats is not None and not lo <= seats <= hi:
        raise click.UsageError(f"--seats {seats}: {game.title} is played by {counts} players")
    if place is not None and agent is None:
        raise click.UsageError("--place K needs --agent: the place is that agent's")
    if place is not None and not 1 <= place <= hi:
        raise click.UsageError(f"--place {place}: {game.title} has {counts} seats: expected a place 1..{hi}")


__all__ = ["games"]
