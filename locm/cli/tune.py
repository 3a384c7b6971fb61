"""`locm tune`: a search for a ruleset in balance, for any game with the hook ``tune`` (`locm.games.registry`):
LOCM's cards (and its seat, by rule settings) and my-card-game's seat balance. The work is the game's wing's
(`locm.games.locm.tune`, `locm.games.mcg.tune`) over the generic search of `locm.analysis.tune`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from locm.engine import registry
from locm.games.registry import games_with, hook
from locm.tournament.backends import backend_options, join


@click.command()
@click.option("--game", type=click.Choice(games_with("tune")), default=registry.DEFAULT, show_default=True,
              help="The game to tune: locm (1.2 cards, then the first player's rate by rule settings) or mcg "
                   "(the first player's rate, by what its variant files allow).")
@click.option("--ruleset", "-r", default=None,
              help="The ruleset to tune: a built-in (locm: 1.2; mcg: standard, the default of each) or a variant "
                   "file (TOML).")
@click.option("--agents", "-a", "agent", required=True, metavar="AGENT [AGENT]",
              help="The built-in agents: one plays itself (each seed once), two play each seed in both seats.")
@click.option("--budget", "-n", type=click.IntRange(min=40), required=True,
              help="Games the tune may use in all (played or read back from --db).")
@click.option("--objective", "objectives", multiple=True, metavar="KEY=VALUE",
              help="band=FRACTION (each card's value within this of the median; default 0.1), seat=FRACTION (the "
                   "first player's win rate within 50% +- this; default 0.05), changes=N (at most N changes; "
                   "default 3). Repeatable.")
@click.option("--target", type=click.Choice(["all", "cards", "seat"]), default="all", show_default=True,
              help="What to balance: cards (LOCM 1.2's cards; constructed's keyword buckets, by the card "
                   "generator's keyword costs), seat (the first player's win rate, by rule "
                   "settings) or all (the cards, then the seat when it lies outside the margin).")
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
def tune(game, ruleset, agent, budget, objectives, target, workers, seed, db, out, as_json, backend, address, second):
    """Search changes that bring a ruleset into balance, with as few changes as possible, every candidate
    evaluated on the same seeds as the ruleset as it is (paired), and write the tuned variant file and its
    evidence page. LOCM: the cards whose holders win most or least are measured causally (replaced by a
    vanilla creature), those outside a band around the median get single-field changes; then, if the first
    player's win rate lies outside 50% +- the margin, rule settings are raced for it. my-card-game: the first
    player's win rate, by the deck rules, bans and end-phase effects its variant files allow. A greedy search
    after "Evolving the Hearthstone Meta" (2019). Interrupted or run again, it resumes from the store.

    \b
    --agents takes one agent (self-play) or two.
    Example:
      locm tune --game mcg --agents greedy --budget 20000 --workers 2 --db tune.db -o tuned.toml
      locm play --game mcg --ruleset tuned.toml --seed 7 --p0 greedy --p1 greedy
      locm tune --ruleset my-variant.toml --agents random --budget 6000 --db tune.db -o tuned.toml
      locm tune --ruleset 1.2 --agents lookahead greedy --budget 20000 --workers 2 --db tune.db -o tuned.toml
      locm tune --ruleset constructed --target seat --agents random --budget 8000 --db tune.db -o tuned.toml
      locm tune --ruleset constructed --target cards --agents random --budget 8000 --db tune.db -o tuned.toml
    """
    from locm.analysis.tune import Objectives
    from locm.cli.options import check_output

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
    result, lines = hook("tune", game)(db, ruleset, agents, budget, goals, out, seed, workers, backend, address,
                                       progress=None if as_json else lambda text: click.echo(text, err=True),
                                       target=target)
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    for line in lines:
        click.echo(line)


__all__ = ["tune"]
