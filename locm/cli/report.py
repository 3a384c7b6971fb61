"""`locm report`: a report over an event store, the game's own (its hook ``report``, `locm.games.registry`:
LOCM's card-balance report, my-card-game's card win rates, Skyport's rates by loadout and map). The options
shared with LOCM's `locm cards stats` are here."""

from __future__ import annotations

from pathlib import Path

import click

from locm.analysis.stats import DEFAULT_MIN_N
from locm.cli.options import GAME_NAMES, INCLUDE_UNTRUSTED, usage_errors
from locm.engine import registry
from locm.tournament.backends import backend_options

DB = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"),
                  show_default=True, help="The event store (an SQLite file).")
RULESET = click.option("--ruleset", "-r", help="Only this ruleset: 1.2, constructed (alias 1.5), a ruleset variant "
                                              "file (TOML) or the name of a variant with stored games; default all.")
AGENT = click.option("--agent", "-a", help="Only the player-games of this agent (either seat).")
OPPONENT = click.option("--opponent", help="Only the player-games against this agent.")
IMBALANCE = click.option("--max-imbalance", type=click.FloatRange(0, 0.5), default=0.10, show_default=True,
                         help="A pairing of two agents is flagged as lopsided when one wins more than 50% plus "
                              "this share of their games.")
SEAT = click.option("--seat", type=click.IntRange(0, 1), help="Only the player-games of this seat (0 moves first).")
MIN = click.option("--min-games", "min_n", type=click.IntRange(min=1), default=DEFAULT_MIN_N, show_default=True,
                   help="Minimum sample: a rate over fewer player-games is shown as not enough data.")


@click.command()
@DB
@RULESET
@AGENT
@OPPONENT
@SEAT
@MIN
@IMBALANCE
@click.option("--output", "-o", "out", type=click.Path(path_type=Path), default=Path("report"), show_default=True,
              help="The directory to write into (created if missing).")
@click.option("--rebuild", is_flag=True, help="Rebuild the card-facts projection from the events first.")
@click.option("--game", "game_name", type=GAME_NAMES,
              default=registry.DEFAULT, show_default=True,
              help="mcg: my-card-game's card win rates by pairing, printed (locm.games.mcg.report); skyport: win and "
                   "score rates per agent by loadout and by map, printed (locm.games.skyport.report).")
@INCLUDE_UNTRUSTED
@backend_options
def report(db, ruleset, agent, opponent, seat, min_n, max_imbalance, out, rebuild, game_name, include_untrusted, backend,
           address):
    """Write a card-balance report: cards.json, cards.csv, PNG charts and a self-contained index.html.

    Brings the card-facts projection (tables cardfacts_* in the store file) up to date with the stored
    events first: only games stored since the last run are read. Every rate is given per pairing of agents
    (an agent against an opponent) with its sample size and a 95% interval (Wilson; clustered by game for
    constructed buckets); rates on fewer than --min-games player-games are shown as not enough data. A
    pairing whose agents differ in strength beyond --max-imbalance is flagged loudly. Only the games this store
    played or imported from a trusted file are counted (--include-untrusted: all), and a line says how many
    were left out.

    \b
    Example:
      locm report --db t.db -o report && chromium report/index.html
      locm report --db t.db --ruleset 1.2 --agent greedy --seat 0 --min-games 100 -o greedy-first
      locm report --db /shared/big.db --rebuild --backend ray --address auto -o report
      locm report --game mcg --db m.db --min-games 20     # my-card-game: card win rates, printed
      locm report --game skyport --db s.db                # Skyport: by loadout and map, printed
    """
    from locm.engine.errors import LocmError
    from locm.games.registry import hook

    game = registry.get(game_name)
    own = hook("report", game.name)
    if own is None:
        raise LocmError(f"{game.title} has no report")
    with usage_errors():
        own(db, ruleset=ruleset, agent=agent, opponent=opponent, seat=seat, min_n=min_n, max_imbalance=max_imbalance,
            out=out, rebuild=rebuild, backend=backend, address=address, echo=click.echo,
            include_untrusted=include_untrusted)


__all__ = ["DB", "RULESET", "AGENT", "OPPONENT", "IMBALANCE", "SEAT", "MIN", "report"]
