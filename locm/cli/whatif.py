"""`locm rerun` and `locm whatif`: a game re-run under other rules, through the game seam (`locm.tournament.rerun`);
LOCM's own, its wing's hooks ``rerun`` and ``whatif`` (`locm.games.locm.whatif_cli`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from locm.cli.options import GAME_NAMES
from locm.engine import registry
from locm.tournament.backends import backend_options


@click.command()
@click.argument("source")
@click.option("--ruleset", "-r", "ruleset", required=True,
              help="Ruleset B: 1.2, constructed, or a ruleset variant file (TOML).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="Read SOURCE as a stored game id (or a unique prefix of one) in this store; without --db "
                   "SOURCE is a JSON-lines log written by 'locm play --log'.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def rerun(source, ruleset, db, as_json):
    """Re-play a recorded game under ruleset B, with the same seeds and the same agents deciding again
    (built-in agents; a bot's command line is run again as a process), and show where it first diverges:
    the seq, the event under A and under B, the rule of that event and the changed settings, both boards
    just before it, and the outcome under each. A game that never diverges says "no divergence". A bot whose
    files changed since the game was played is named, and a divergence is then not laid on the rules. A log
    read from a file is re-decided first: one that does not follow the rules is compared all the same, with a
    first line saying where it departs, and exit status 1.

    \b
    Example:
      locm play --seed 7 --log g.jsonl && locm rerun g.jsonl --ruleset examples/variants/low-health.toml
      locm rerun 1.2-7 --db t.db --ruleset constructed.toml --json
      locm rerun m.jsonl --ruleset examples/mcg/singleton-sudden-death.toml   # a my-card-game game

    A game of another registered game (my-card-game, Skyport; told by its log or its stored row) is re-run
    through the game seam: the same report, its boards and rules by its own definition, the ruleset its own
    (a built-in name or a variant file of that game).
    """
    from locm.games.registry import hook

    if db is not None and not db.exists():
        raise click.UsageError(f"--db {db}: no such store")
    game = _game_of(source, db)
    code = hook("rerun", game.name, _rerun_any)(game, source, db, ruleset, as_json)
    if code:
        sys.exit(code)


def _game_of(source, db):
    """The registered game of a rerun's SOURCE: its stored row's (a unique prefix of its id) or its log's; the
    default game's for an official log or an id that names no one game (whose rerun then says why)."""
    from locm.replay.sources import game_of_line, sniff

    if db is not None:
        from locm.store.eventstore import open_store

        with open_store(db, create=False, readonly=True) as store:
            found = store.ids_named(source)
            return registry.get(store.game(found[0]).game if len(found) == 1 else registry.DEFAULT)
    kind, data = sniff(source)
    if kind != "match":
        return registry.get(registry.DEFAULT)
    return game_of_line(next(line for line in data.splitlines() if line.strip()))


def _rerun_any(game, source, db, ruleset, as_json) -> int:
    """`locm rerun` of a game of any registered game, through the core (`locm.tournament.rerun`); the exit status."""
    from locm.tournament.rerun import rerun_match
    from locm.replay import open_game
    from locm.common.rulesets import game_rules

    rules_b = game_rules(game, ruleset)
    r = open_game(db=db, game_id=source) if db is not None else open_game(source)
    gid = r.source.rsplit(" ", 1)[1] if db is not None else Path(source).name
    report = rerun_match(game, gid, r.events, rules_b, warning=r.warning)
    if as_json:
        if r.warning:
            click.echo(r.warning, err=True)
        click.echo(json.dumps(report.as_json(), indent=1))
    else:
        for line in report.lines():
            click.echo(line)
    return 1 if r.warning else 0


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The event store: its games are re-run, and the re-runs are stored in it.")
@click.option("--ruleset", "-r", "ruleset", required=True,
              help="Ruleset B: 1.2, constructed, or a ruleset variant file (TOML).")
@click.option("--ruleset-a", "ruleset_a",
              help="Re-run only the stored games of this ruleset (default: B's base): a built-in, a variant "
                   "file (only its games with exactly its values) or the name of a variant with stored games.")
@click.option("--agents", "-a", "agents", multiple=True, metavar="AGENT",
              help="Only games whose two agents are among these built-in agents (repeatable).")
@click.option("--games", "-n", type=click.IntRange(min=1), help="At most this many games (the first stored).")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes re-running games (the main process stores them).")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
              help="Cards listed whose in-hand win rate moves most.")
@click.option("--min-n", type=click.IntRange(min=1), default=20, show_default=True,
              help="A card is listed only when held in at least this many games under both rulesets (paired: "
                   "by at least this many holders).")
@click.option("--game", "game_name", type=GAME_NAMES, default=registry.DEFAULT,
              show_default=True, help="The game whose stored games are re-run (mcg: my-card-game; skyport).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@backend_options
def whatif(db, ruleset, ruleset_a, agents, games, workers, top, min_n, game_name, as_json, backend, address):
    """Re-run stored games of built-in agents under ruleset B (same seeds, same agents) and report, each with
    n and a 95% interval (Wilson for rates; mean +- 1.96 standard errors for lengths and damage): the share
    of games whose winner changes, the first player's win rate, game length and damage by source under A and
    B, the cards whose in-hand win rate moves most, and which cards (1.2) and feature buckets gain or lose:
    the win-rate change of the seat holding more copies of one under A, paired by seed with an interval
    clustered by seed (--json: paired_by_seed). The re-runs are stored as games of B, so running the
    command again reads them back instead of playing them.

    \b
    Example:
      locm tournament --agents greedy random --games 200 --db t.db
      locm whatif --db t.db --ruleset examples/variants/low-health.toml --workers 2
      locm whatif --db t.db --ruleset examples/variants/low-health.toml --backend ray --address auto
      locm whatif --game mcg --db m.db --ruleset examples/mcg/singleton-sudden-death.toml --workers 2
      locm whatif --game skyport --db s.db --ruleset examples/skyport/glass-cannon.toml --json

    With --game mcg (or skyport), through the game seam: the stored games of built-in agents under ruleset A
    (--ruleset-a a ruleset's name; default B's base) re-run one by one under B and stored; the share of games
    whose winner changes, player 0's win rate under A and B, the game's length under A and B and paired
    (B - A, the same game), and each agent's win rate under A and B with its paired change, every figure with
    n and a 95% interval (games with a command-line bot are skipped and counted); each card's holders'
    change paired by seed; in a game of points (Skyport) each agent's points and place per game, and the
    game's own figures (Skyport: kills, deaths, damage, penalties, upgrades), under A and B and paired B - A
    with an interval clustered by seed (--json: agents.NAME.figures). --workers re-runs them in worker
    processes (the same result as one); --backend is LOCM's (another game's re-runs play on this machine).
    """
    from locm.engine import registry
    from locm.games.registry import hook

    game = registry.get(game_name)
    hook("whatif", game.name, _whatif_any)(game, db, ruleset, ruleset_a, agents, games, workers, top, min_n, as_json,
                                            backend, address)


def show_summary(summary: dict, skipped: list, lines, top: int, as_json: bool) -> bool:
    """Print a what-if summary (as JSON, with the skipped games, or as text lines and the first skipped games
    on stderr); True when it went out as JSON (nothing more to say)."""
    if as_json:
        summary["skipped_games"] = [{"game": g, "why": w} for g, w in skipped]
        click.echo(json.dumps(summary, indent=1))
        return True
    for line in lines(summary, top):
        click.echo(line)
    for g, why in skipped[:5]:
        click.echo(f"skipped {g}: {why}", err=True)
    return False


def _whatif_any(game, db, ruleset, ruleset_a, agents, games, workers, top, min_n, as_json, backend, address):
    """`locm whatif` of any registered game through the game seam (`locm.tournament.rerun.match_whatif`)."""
    from locm.tournament.rerun import match_whatif, whatif_lines
    from locm.store.eventstore import open_store
    from locm.common.rulesets import game_rules

    if backend != "local" or address is not None:
        raise click.UsageError("--backend and --address are LOCM's: another game's re-runs play on this machine")
    if not db.exists():
        raise click.UsageError(f"--db {db}: no such store")
    if agents:
        raise click.UsageError("--agents is LOCM's: with --game, every stored game of built-in agents is re-run")
    rules_b = game_rules(game, ruleset)
    bar = None

    def announce(n):
        nonlocal bar
        bar = click.progressbar(length=n, label="re-running", file=sys.stderr, show_eta=True, show_pos=True)
        bar.__enter__()

    try:
        with open_store(db) as store:
            result = match_whatif(store, game, rules_b, ruleset_a, games, progress=lambda k: bar.update(k),
                                  announce=announce, workers=workers)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if show_summary(result.summary(min_n, top), result.skipped, whatif_lines, top, as_json):
        return
    if not result.pairs:
        click.echo(f"no stored games of {result.rules_a} between built-in agents to re-run (see --ruleset-a)",
                   err=True)


__all__ = ["rerun", "whatif", "show_summary"]
