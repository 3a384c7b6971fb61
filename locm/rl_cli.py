"""The `locm dataset` command (registered in `locm.cli`); the work is in `locm.rl.dataset`."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The event store to read (tournaments, locm play, environments' stored episodes).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The NumPy file to write (.npz).")
@click.option("--ruleset", "-r", default="1.2", show_default=True,
              help="The games' ruleset: 1.2, constructed, or a variant file (TOML); other games are left out.")
@click.option("--phase", "phases", multiple=True, type=click.Choice(["draft", "construct", "battle"]),
              help="The phases to encode, as the environment learning them does (repeatable; default: every "
                   "phase of the ruleset, as LOCM-v0).")
@click.option("--agent", "-a", help="Only this agent's decisions (its seat in each game where it plays).")
@click.option("--seat", type=click.Choice(["0", "1", "both"]), default="both", show_default=True,
              help="Whose decisions.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many games.")
def dataset(db, output, ruleset, phases, agent, seat, limit):
    """Export (observation, mask, action, reward, outcome) rows from stored games, for behaviour cloning.

    Each decision of a seat is one row, encoded as the environment with the same phases encodes it
    (LOCM-battle-v0: --phase battle), so a policy cloned from the rows plays there as it is. A bot's
    answer line gives one row per action it played. Needs the extra locm[rl] (NumPy, Gymnasium).

    \b
    Example:
      locm tournament --agents greedy lookahead --games 200 --db t.db
      locm dataset --db t.db --phase battle --agent lookahead -o lookahead-battle.npz
    """
    from locm.engine.errors import LocmError

    if not Path(db).exists():
        raise LocmError(f"no event store at {db}")
    import locm.rl  # noqa: F401  (the one-line error when the extra is missing)
    from locm.rl.dataset import export
    from locm.rl.locm_game import LocmSpec
    from locm.variants import resolve_ruleset

    rules = resolve_ruleset(ruleset)
    names = [p.name for p in LocmSpec(rules).phases]
    for p in phases:
        if p not in names:
            raise click.BadParameter(f"{rules.name} has no {p} phase (its phases: {', '.join(names)})",
                                     param_hint="--phase")
    seats = (0, 1) if seat == "both" else (int(seat),)
    from locm.store import open_store

    with open_store(db, create=False, readonly=True) as store:
        total = len(store.games(ruleset=rules.name, agent=agent, limit=limit))
    with click.progressbar(length=total, label="encoding", file=sys.stderr, show_pos=True) as bar:
        summary = export(db, output, ruleset=ruleset, phases=phases or None, seats=seats, agent=agent,
                         limit=limit, progress=bar.update)
    for gid, why in summary.skipped:
        click.echo(f"{gid}: skipped: {why}", err=True)
    click.echo(f"{output}: {summary.rows} rows from {summary.games} games"
               + (f" ({len(summary.skipped)} skipped)" if summary.skipped else ""))
