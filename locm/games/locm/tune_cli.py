"""`locm tune`, one of LOCM's own commands (added by `locm.games.locm.cli`); the work is in `locm.games.locm.tune`
and `locm.games.locm.tune_page`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from locm.tournament.backends import backend_options, join


@click.command()
@click.option("--ruleset", "-r", default="1.2", show_default=True,
              help="The ruleset to tune: 1.2 or a 1.2 variant file (TOML).")
@click.option("--agents", "-a", "agent", required=True, metavar="AGENT [AGENT]",
              help="The built-in agents: one plays itself (each seed once), two play each seed in both seats.")
@click.option("--budget", "-n", type=click.IntRange(min=40), required=True,
              help="Games the tune may use in all (base games and re-runs, played or read back).")
@click.option("--objective", "objectives", multiple=True, metavar="KEY=VALUE",
              help="band=FRACTION (each card's value within this of the median; default 0.1), seat=FRACTION (the "
                   "first player's win rate within 50% +- this; default 0.05), changes=N (at most N changed "
                   "fields; default 3). Repeatable.")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes playing games (the main process stores them).")
@click.option("--seed", type=int, default=1, show_default=True, help="The first seed.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The event store: every game is stored in it and read back by a second run (it resumes).")
@click.option("--output", "-o", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The tuned variant file to write (TOML); the evidence goes beside it (.html and .json).")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence as one JSON object.")
@backend_options
@click.argument("second", nargs=-1, required=False, metavar="")  # the second agent of --agents A B
def tune(ruleset, agent, budget, objectives, workers, seed, db, out, as_json, backend, address, second):
    """Search card changes that bring a 1.2 ruleset's cards into balance: the cards whose holders win most or
    least are measured causally (replaced by a vanilla creature, same seeds), those outside a band around the
    median get single-field changes evaluated on the same seeds, and the best is kept (a greedy local search with
    paired evaluation, after "Evolving the Hearthstone Meta", 2019). Writes the tuned variant file and its
    evidence page. Interrupted or run again, it resumes from the store.

    \b
    --agents takes one agent (self-play) or two.
    Example:
      locm tune --ruleset my-variant.toml --agents random --budget 6000 --db tune.db -o tuned.toml
      locm tune --ruleset 1.2 --agents lookahead greedy --budget 20000 --workers 2 --db tune.db -o tuned.toml
      locm play --ruleset tuned.toml --seed 7 --p0 greedy --p1 random
    """
    from locm.analysis.tune import Objectives
    from locm.cli.options import check_output
    from locm.games.locm.tune_page import run_tune, summary_lines
    from locm.games.locm.variants import resolve_ruleset

    if len(second) > 1:
        raise click.UsageError(f"--agents: expected one or two agents, got {' '.join((agent, *second))}")
    agents = (agent, second[0] if second else agent)
    try:
        goals = Objectives.parse(objectives)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    for path in (out, out.with_suffix(".json"), out.with_suffix(".html")):
        check_output(path)
    join(backend, address)
    result = run_tune(db, resolve_ruleset(ruleset), agents, budget, goals, out, seed, workers, backend, address,
                      progress=None if as_json else lambda text: click.echo(text, err=True))
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    for line in summary_lines(result):
        click.echo(line)
