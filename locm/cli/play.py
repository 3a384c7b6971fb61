"""`locm play`: one game of any registered game (`locm.tournament.workflow.play`, one path for every game)."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from locm.cli.options import AGENT_HELP, GAME, RULESET, TIMEOUTS, make_sandbox, sandbox_options, usage_errors


@click.command()
@GAME
@RULESET
@click.option("--seed", type=int, help="The game's seed (R-SEEDS); required unless the game is played on from a "
                                        "position (--from or --position).")
@click.option("--p0", default="greedy", show_default=True, help="Agent in seat 0: " + AGENT_HELP)
@click.option("--p1", default="random", show_default=True, help="Agent in seat 1, as --p0.")
@click.option("--agents", metavar="A,B,...", help="Another game's built-in agents, one per seat (Skyport: 2 to 8), "
                                                   "instead of --p0/--p1.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write the event log here (JSON lines); - for standard output (the summary then goes to "
                   "standard error).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="Also store the game in this event store (created if missing); its id is printed.")
@TIMEOUTS
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A referee parameter, e.g. shufflePlayer0Seed=5 (repeatable).")
@click.option("--account", metavar="NAME", help="Seat 0 plays this account's deck (a game with accounts: "
                                                 "my-card-game; the account is in --db, which the match's gold "
                                                 "is credited to, once).")
@click.option("--deck", type=int, metavar="SLOT", help="The deck slot of --account [default: its first deck].")
@click.option("--account1", metavar="NAME", help="Seat 1's account, as --account.")
@click.option("--deck1", type=int, metavar="SLOT", help="The deck slot of --account1, as --deck.")
@click.option("--from", "from_id", metavar="GAME_ID", help="Play on from a position of this game stored in --db "
                                                           "(with --seq), by --agents (default: its own agents; "
                                                           "built-in ones, bots, or 'person': you, at this "
                                                           "terminal).")
@click.option("--seq", "from_seq", type=int, metavar="S", help="With --from: the position after event S (the end "
                                                               "of the decision holding it).")
@click.option("--position", "position_text", metavar="STRING", help="Play on from a position string (`locm "
              "position`); a redacted one needs the --db that holds its game.")
@click.option("--best-of", type=int, metavar="N",
              help="Play a series of N matches (odd) until one side has won a majority: match k on seed "
                   "SEED+k-1; LOCM and Skyport swap the seats every match, my-card-game keeps them and the "
                   "player who did not start the previous match starts (R-SERIES). Each match is stored with "
                   "its series in its meta.")
@sandbox_options
def play(game_name, ruleset, seed, p0, p1, agents, log_path, db, timeouts, params, account, deck, account1, deck1,
         from_id, from_seq, position_text, best_of, no_sandbox, bot_limits, bot_network, bot_binds):
    """Play one game and print the winner and a short summary.

    The same seed and the same built-in agents give a byte-identical event log. With --db the game is stored
    under its id, which names its content (ruleset, seed, agents and the versions of bots' files,
    parameters); a game already stored is played and shown again, and nothing new is stored. A bot whose
    files changed since it played this game is said so (its game is a new one).

    --from ID --seq S (or --position STRING, from `locm position`) plays on from that position of a stored game
    instead, by --agents (its own by default: they give the game again), and stores the game with where it came
    from in its meta; a seat kept by its built-in agent plays on as it would have.

    \b
    Example:
      locm play --ruleset constructed --seed 42 --p0 greedy --p1 random --log g.jsonl
      locm play --seed 7 --p0 "python3 examples/bot.py" --p1 greedy --db games.db --timeouts x2
      locm play --game mcg --ruleset standard --seed 7 --p0 greedy --p1 random --log m.jsonl
      locm play --game skyport --ruleset 2013 --seed 3 --agents hunter,random,random --db games.db
      locm play --game mcg --seed 7 --account alice --deck 0 --p1 random --db games.db
      locm play --from 1.2-7-0123456789ab --seq 120 --agents greedy,lookahead --db games.db
      locm play --position locm1:eNqt... --db games.db --agents person,greedy
      locm play --game mcg --seed 7 --p0 greedy --p1 random --best-of 3 --db games.db
    """
    from locm.engine import registry
    from locm.games.registry import hook
    from locm.tournament.workflow import PlayRequest, play as play_any

    sandbox = functools.partial(_sandbox, no_sandbox, bot_limits, bot_network, bot_binds)
    if from_id is not None or position_text is not None:
        _play_on(from_id, from_seq, position_text, db, agents, p0, p1, log_path, timeouts, sandbox)
        return
    if from_seq is not None:
        raise click.UsageError("--seq goes with --from (the stored game to play on from)")
    if seed is None:
        raise click.UsageError("Missing option '--seed'.")
    game = registry.get(game_name)
    request = PlayRequest(ruleset, seed, p0, p1, agents, log_path, db, timeouts, tuple(params), best_of)
    seats = ((account, deck), (account1, deck1))
    with usage_errors():
        if any(a is not None or d is not None for a, d in seats):  # a game with accounts plays their decks
            with_accounts = hook("play_accounts", game.name)
            if with_accounts is None:
                raise click.UsageError(f"--account: {game.title} has no accounts")
            if best_of is not None:
                raise click.UsageError("--best-of plays the agents' own decks (not yet an account's)")
            with_accounts(game, request, seats, click.echo, sandbox)
        else:
            play_any(game, request, click.echo, sandbox)


def _play_on(from_id, from_seq, position_text, db, agents, p0, p1, log_path, timeouts, sandbox):
    """--from/--position: agents play on from a position (`locm.tournament.continued.play_on`)."""
    from locm.tournament.continued import ContinueRequest, play_on

    ctx = click.get_current_context()
    explicit = [ctx.get_parameter_source(k) is not click.core.ParameterSource.DEFAULT for k in ("p0", "p1")]
    chosen = tuple(agents.split(",")) if agents else (p0, p1) if any(explicit) else None
    if from_id is not None and (from_seq is None or position_text is not None):
        raise click.UsageError("--from takes --seq (and no --position)")
    with usage_errors():
        play_on(ContinueRequest(position_text, from_id, from_seq, db, chosen, log_path, timeouts), click.echo,
                sandbox=sandbox)


def _sandbox(no_sandbox, bot_limits, bot_network, bot_binds, agents, db, expected):
    return make_sandbox(agents, no_sandbox, bot_limits, bot_network, bot_binds, db, expected)


__all__ = ["play"]
