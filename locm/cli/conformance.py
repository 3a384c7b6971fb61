"""`locm conformance`: a game's logs of its official referee or server replayed and checked (the game's hook
``conformance``, `locm.games.registry`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from locm.engine import registry
from locm.games.registry import games_with, hook


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print mismatches and the summary only.")
@click.option("--game", type=click.Choice(games_with("conformance")), default=registry.DEFAULT, show_default=True,
              help="The game the logs are of (skyport: logs of the official 2013 Skyport server).")
def conformance(files, quiet, game):
    """Replay official referee logs and check every input byte for byte, and the winner.

    FILES are logs in the official format (one game per line; .gz allowed). A line that is not a game log is
    reported with its line number and the other games are still checked. Exit status 0 only when every game
    is identical. With --game skyport, FILES are oracle logs of the 2013 Skyport server (one game per file):
    every gamestate, re-broadcast and error it sent each client is checked, and the first difference is
    reported with its turn, player and field.

    \b
    Example:
      locm conformance tests/data/official-1.2-games-00-49.txt.gz
      locm conformance --game skyport tests/data/skyport/*.jsonl.gz
    """
    sys.exit(hook("conformance", game)(files, quiet, click.echo))


__all__ = ["conformance"]
