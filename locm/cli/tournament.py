"""`locm tournament`: a round robin of any registered game into an event store (`locm.tournament.workflow.tournament`,
one path for every game; what only LOCM has comes from its player: mirrored seed pairs, the sequential test)."""

from __future__ import annotations

import contextlib
import functools
import sys

import click

from locm.cli.options import AGENT_HELP, DB_OPTION, GAME, RULESET, TIMEOUTS, sandbox_options, usage_errors
from locm.cli.play import _sandbox
from locm.tournament.backends import backend_options


@click.command()
@GAME
@RULESET
@click.option("--seats", type=click.IntRange(min=2), help="Players in each game of another game (Skyport: 2 to 8; "
              "default: the game's fewest): every combination of that many agents plays, in every seat.")
@click.option("--agents", "-a", "first", multiple=True, metavar="AGENT",
              help="The agents: " + AGENT_HELP + " Write them after --agents, "
                   "e.g. --agents greedy random \"python3 examples/bot.py\"; an agent given twice also "
                   "plays itself (--agents greedy greedy).")
@click.argument("more", nargs=-1, metavar="[AGENT]...")
@click.option("--games", "-n", type=click.IntRange(min=2), required=True,
              help="Games per pair of agents, both seats together: an even number (N/2 seeds, each played "
                   "in both seats).")
@DB_OPTION
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes playing games (the main process stores them).")
@click.option("--seed", type=int, default=1, show_default=True, help="The first seed; seeds are consecutive.")
@TIMEOUTS
@click.option("--busy-timeout", type=click.FloatRange(min=0), metavar="SECONDS",
              help="How long to wait, saying so, while another writer holds the store's lock (default 600, "
                   "or $LOCM_BUSY_TIMEOUT).")
@click.option("--allow-changed-bots", is_flag=True,
              help="Resume even if a bot's files changed since its stored games (mixing its versions).")
@click.option("--think-ms", type=click.IntRange(0, 600_000), default=3000, show_default=True,
              help="Skyport: a client's think time per turn (fast timing: its turn ends once it sent its "
                   "actions or endturn).")
@click.option("--join-timeout", type=click.FloatRange(1, 86_400), default=60, show_default=True,
              help="Skyport: seconds a client has to connect, shake hands and choose its loadout; one that "
                   "has not (or has ended before) forfeits its seat and plays as a client that left.")
@click.option("--map", "map_name", metavar="MAP",
              help="Skyport: the map of every game: a built-in map (e.g. duel-2p, crossroads-4p; the error of "
                   "another name lists them) or a .skyportmap file, recorded in each game (and a file's map in the "
                   "kept schedule).")
@click.option("--timing", type=click.Choice(["fast", "faithful"]), default="fast", show_default=True,
              help="Skyport: a served client's turns: fast (a turn ends once its player sent its actions or "
                   "endturn) or faithful (every turn lasts --think-ms, as the 2013 server's).")
@click.option("--wall-clock", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Skyport: a game's wall-clock limit from its first turn; checked before each turn, as the 2013 "
                   "server ends its games by time: a game that has run longer ends there, recorded (reason "
                   "wall-clock, R-WALL-CLOCK).")
@click.option("--sprt", metavar="TEST",
              help="Two agents: stop as soon as a sequential test over mirrored seed pairs is conclusive "
                   "(--games is then the cap), e.g. 'elo0=0,elo1=5,alpha=0.05,beta=0.05' (these are the "
                   "defaults of the items left out): H0 the first agent is elo0 logistic Elo stronger, H1 elo1.")
@click.option("--best-of", type=int, metavar="N",
              help="Each scheduled unit is a series of N matches (odd), played until one side has won a majority: "
                   "--games is then the series per pair (an even number, half in each seating); series j of a "
                   "seating starts at seed SEED+j*N. Standings by series follow those by games.")
@backend_options
@sandbox_options
def tournament(game_name, ruleset, seats, first, more, games, db, workers, seed, timeouts, busy_timeout,
               allow_changed_bots, think_ms, join_timeout, map_name, timing, wall_clock, sprt, best_of, backend,
               address, no_sandbox, bot_limits, bot_network, bot_binds):
    """Round robin: every pair of agents plays N games on mirrored seeds; results go to an event store.

    Each pair plays seeds S .. S+N/2-1, each seed once in each seating; an odd N is refused. An agent
    given twice also plays itself: seeds S .. S+N-1, each once (with the same agent in both seats, the
    swapped seating is the same game), its results in two rows, one per seat. Games are
    stored one by one under deterministic ids, so a tournament that was interrupted or killed is finished
    by running the same command again: stored games are skipped, none is stored twice. At the end: a table
    per agent (games, wins, win rate with its 95% Wilson interval, hard errors, timeouts, average think time
    per turn), ratings with 95% intervals (openskill, Plackett-Luce) and the head-to-head results.

    With --sprt and two agents, seeds are played pair by pair (both seatings) until a sequential probability
    ratio test over the pairs' pentanomial counts accepts H0 or H1, or --games is reached; the verdict is
    the one at the first conclusive pair in seed order, whatever the workers (games already in hand are
    stored too).

    \b
    Example:
      locm tournament --ruleset 1.2 --agents greedy random pass --games 100 --db t.db --workers 2
      locm tournament --agents lookahead greedy --games 2000 --db s.db --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05
      locm tournament --agents greedy random --games 100000 --db big.db --backend ray --address auto
      locm tournament --agents greedy "python3 examples/bot.py" --games 20 --db t.db --timeouts x2
      locm tournament --ruleset constructed --agents greedy greedy --games 200 --db self.db
      locm tournament --game mcg --ruleset standard --agents greedy random --games 20 --db m.db
      locm tournament --game mcg --agents greedy random --games 10 --best-of 3 --db series.db
      locm tournament --game skyport --ruleset 2013 --seats 3 --agents hunter random hunter --games 6 --db s.db
      locm tournament --game skyport --map crossroads-4p --timing faithful --think-ms 500 --wall-clock 300 \\
          --agents hunter "python3 examples/skyport/client.py {host} {port}" --games 2 --db s.db
      locm tournament --game skyport --seats 2 --agents hunter "node examples/skyport/client.js {host} {port}" \\
          "python3 examples/skyport/client.py {host} {port}" --games 4 --db s.db
    """
    from locm.engine import registry
    from locm.tournament.workflow import TournamentRequest, tournament as tournament_any

    game = registry.get(game_name)
    request = TournamentRequest(ruleset, (*first, *more), games, db, seats, workers, seed, timeouts, busy_timeout,
                                allow_changed_bots, think_ms, join_timeout, sprt, backend, address,
                                best_of=best_of, map=map_name, timing=timing, wall_clock=wall_clock)
    sandbox = functools.partial(_sandbox, no_sandbox, bot_limits, bot_network, bot_binds)
    with usage_errors():
        code = tournament_any(game, request, click.echo, sandbox, _bar)
    if code:
        sys.exit(code)


@contextlib.contextmanager
def _bar(length: int):
    """The games' progress bar on stderr (none when there is nothing to play: no empty 0/0 bar)."""
    from locm.cli.progress import bar as progress_bar

    with progress_bar(length=length, label="playing", show_eta=True, show_pos=True) as bar:
        yield bar.update


__all__ = ["tournament"]
