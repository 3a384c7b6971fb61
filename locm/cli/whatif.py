"""`locm rerun` and `locm whatif`: a game re-run under other rules, through the game seam (`locm.tournament.rerun`,
`locm.tournament.whatif`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from locm.cli.options import GAME_NAMES, INCLUDE_UNTRUSTED
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

    A game of any registered game (LOCM, my-card-game, Skyport; told by its log or its stored row) is re-run
    through the one path (`locm.tournament.rerun`): the same report, its boards and rules by its own
    definition, the ruleset its own (a built-in name or a variant file of that game).
    """
    from locm.tournament.rerun import rerun_source

    if db is not None and not db.exists():
        raise click.UsageError(f"--db {db}: no such store")
    report = rerun_source(source, db, ruleset)
    if as_json:
        if report.warning:
            click.echo(report.warning, err=True)
        click.echo(json.dumps(report.as_json(), indent=1))
    else:
        for line in report.lines():
            click.echo(line)
    if report.warning:
        sys.exit(1)


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The event store: its games are re-run, and the re-runs are stored in it.")
@click.option("--ruleset", "-r", "ruleset", required=True,
              help="Ruleset B: 1.2, constructed, or a ruleset variant file (TOML).")
@click.option("--ruleset-a", "ruleset_a",
              help="Re-run only the stored games of this ruleset (default: B's base): a built-in, a variant "
                   "file (only its games with exactly its values) or the name of a variant with stored games.")
@click.option("--agents", "-a", "agents", multiple=True, metavar="AGENT",
              help="Only games whose agents are all among these built-in agents (repeatable).")
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
@INCLUDE_UNTRUSTED
@backend_options
def whatif(db, ruleset, ruleset_a, agents, games, workers, top, min_n, game_name, as_json, include_untrusted, backend,
           address):
    """Re-run stored games of built-in agents under ruleset B (same seeds, same agents) and report, each with
    n and a 95% interval (Wilson for rates; mean +- 1.96 standard errors for lengths and damage): the share
    of games whose winner changes, the first player's win rate, game length and damage by source under A and
    B, the cards whose in-hand win rate moves most, and which cards (1.2) and feature buckets gain or lose:
    the win-rate change of the seat holding more copies of one under A, paired by seed with an interval
    clustered by seed (--json: paired_by_seed). The re-runs are stored as games of B, so running the
    command again reads them back instead of playing them. Only the games of A this store played or imported
    from a trusted file are re-run (--include-untrusted: every one; --json: left_out).

    \b
    Example:
      locm tournament --agents greedy random --games 200 --db t.db
      locm whatif --db t.db --ruleset examples/variants/low-health.toml --workers 2
      locm whatif --db t.db --ruleset examples/variants/low-health.toml --backend ray --address auto
      locm whatif --game mcg --db m.db --ruleset examples/mcg/singleton-sudden-death.toml --workers 2
      locm whatif --game skyport --db s.db --ruleset examples/skyport/glass-cannon.toml --json

    Every game goes the same way (`locm.tournament.whatif`): with --game mcg (or skyport) its stored games of
    built-in agents; besides the figures above, each agent's win rate under A and B with its paired change
    (games with a command-line bot are skipped and counted); each card's holders' change paired by seed
    (--json: cards_paired_by_seed); in a game of points (Skyport) each agent's points and place per game,
    and the game's own figures (Skyport: kills, deaths, damage, penalties, upgrades), under A and B and
    paired B - A with an interval clustered by seed (--json: agents.NAME.figures). Damage by source, in-hand
    win rates and feature buckets are LOCM's. --workers (or --backend ray) re-runs them in worker processes
    (the same result as one).
    """
    from locm.tournament.backends import join
    from locm.tournament.whatif import whatif_store
    from locm.tournament.whatif_text import whatif_lines

    game = registry.get(game_name)
    if not db.exists():
        raise click.UsageError(f"--db {db}: no such store")
    join(backend, address)
    bar = None

    def announce(n):
        nonlocal bar
        from locm.cli.progress import bar as progress_bar

        bar = progress_bar(length=n, label="re-running", show_eta=True, show_pos=True)
        bar.__enter__()

    try:
        result = whatif_store(db, game, ruleset, ruleset_a, agents, games, workers, progress=lambda k: bar.update(k),
                              announce=announce, backend=backend, address=address,
                              include_untrusted=include_untrusted)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    from locm.store.provenance import left_out_note

    summary = result.summary(min_n, top)
    note = left_out_note(result.left_out, include_untrusted)
    if as_json:
        summary["skipped_games"] = [{"game": g, "why": w} for g, w in result.skipped]
        summary["left_out"] = {"counted": include_untrusted, **result.left_out}
        click.echo(json.dumps(summary, indent=1))
        return
    for line in whatif_lines(summary, top, game):
        click.echo(line)
    for g, why in result.skipped[:5]:
        click.echo(f"skipped {g}: {why}", err=True)
    if note:
        click.echo(note)
    if result.selected == 0:
        click.echo(f"no stored games of {result.rules_a} between built-in agents to re-run (see --ruleset-a and "
                   "--agents)", err=True)


__all__ = ["rerun", "whatif"]
