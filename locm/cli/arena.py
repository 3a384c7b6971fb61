"""`locm arena`: the store in a browser (`locm.arena`). Registered in `locm.cli.main`."""

from __future__ import annotations

from pathlib import Path

import click

from locm.cli.options import INCLUDE_UNTRUSTED


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The store to show (opened read-only: tournaments may write it meanwhile).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; beyond loopback every request needs the token.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="The port to listen on.")
@click.option("--token", default=None, envvar="LOCM_ARENA_TOKEN",
              help="The token requests must carry (made and shown when serving beyond loopback without one).")
@click.option("--board", "boards", multiple=True, metavar="NAME=QUERY",
              help="A saved leaderboard: a name and the filters of /games as a query string (repeatable).")
@click.option("--index", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The arena's own index of the store (derived, safe to delete; default: in ~/.cache/locm/arena).")
@click.option("--workers", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes (each answers requests on its own core).")
@click.option("--reveal-after", type=click.FloatRange(0, 86400), default=None, metavar="SECONDS",
              help="Show a live game's hidden information this long after it happened (default: not until the "
                   "game is stored).")
@click.option("--no-spectate", is_flag=True,
              help="Do not make the store's live spool (DB.live/), where runners publish the games being played.")
@click.option("--cards", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A card report's folder ('locm report -o DIR') to serve at /cards/.")
@INCLUDE_UNTRUSTED
def arena(db: Path, host: str, port: int, token: str | None, boards: tuple[str, ...], index: Path | None,
          workers: int, reveal_after: float | None, no_spectate: bool, cards: Path | None,
          include_untrusted: bool) -> None:
    """Serve a live web view of a store: standings with ratings and intervals, leaderboards, the games with
    filters (new ones appear as they are stored), every game's replay at /games/ID (#seq=S&as=P deep links),
    bot pages, the state of running sequential tests (SPRT), the games being played at /live/games (watched as
    a spectator: hidden information hidden, or shown --reveal-after SECONDS), a card report (--cards), and JSON
    at /api/games, /api/games/ID, /api/standings, /api/sprt and /api/live. Reads the store, never writes it.
    The standings, ratings and bot pages count the games played here or imported from a trusted file
    (--include-untrusted: all), and a line says how many they left out; the game list shows every game.

    \b
    Example:
      locm arena --db locm-demo.db                 # then open http://127.0.0.1:8765/
      locm arena --db t.db --board "1.2=game=locm&ruleset=1.2" --board "4p=game=skyport&seats=4"
      locm arena --db t.db --reveal-after 60 --cards report/    # spectators see hidden cards a minute late
    """
    from locm.arena.app import parse_boards, serve

    if not db.is_file():
        raise click.UsageError(f"{db}: no such store (make one with 'locm tournament --db {db}')")
    serve(db, host=host, port=port, token=token, boards=parse_boards(boards), announce=click.echo, index=index,
          workers=workers, reveal_after=reveal_after, cards=cards, spectate=not no_spectate,
          include_untrusted=include_untrusted)
