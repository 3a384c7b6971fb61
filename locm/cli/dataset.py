"""`locm dataset`: behaviour-cloning rows from stored games (`locm.rl.dataset`); LOCM's from its store, its wing's
hook ``dataset``; another game's from the episode logs its environment stored."""

from __future__ import annotations

from pathlib import Path

import click

from locm.cli.options import INCLUDE_UNTRUSTED
from locm.engine import registry


@click.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The event store to read (tournaments, locm play, environments' stored episodes).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The NumPy file to write (.npz).")
@click.option("--ruleset", "-r", default="1.2", show_default=True,
              help="The games' ruleset: 1.2, constructed, or a variant file (TOML); other games are left out.")
@click.option("--phase", "phases", multiple=True,
              help="The phases to encode, as the environment learning them does (repeatable; LOCM: draft, "
                   "construct, battle; mcg: choose, mulligan, main; skyport: loadout, turn; default: every "
                   "phase of the ruleset, as LOCM-v0).")
@click.option("--game", type=click.Choice(list(registry.GAMES)), default=registry.DEFAULT, show_default=True,
              help="mcg, skyport: read the episodes an environment stored in --logs (a folder of JSONL logs).")
@click.option("--logs", type=click.Path(file_okay=False, path_type=Path),
              help="With --game mcg or skyport: the folder the environment's store= option named.")
@click.option("--agent", "-a", help="Only this agent's decisions (its seat in each game where it plays).")
@click.option("--seat", type=click.Choice(["0", "1", "both"]), default="both", show_default=True,
              help="Whose decisions.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many games.")
@INCLUDE_UNTRUSTED
def dataset(db, output, ruleset, phases, game, logs, agent, seat, limit, include_untrusted):
    """Export (observation, mask, action, reward, outcome) rows from stored games, for behaviour cloning.

    Each decision of a seat is one row, encoded as the environment with the same phases encodes it
    (LOCM-battle-v0: --phase battle), so a policy cloned from the rows plays there as it is. A bot's
    answer line gives one row per action it played. Needs the extra locm[rl] (NumPy, Gymnasium).
    From a store, only the games it played or imported from a trusted file (--include-untrusted: all), and a
    line says how many it left out; an environment's episode logs (--logs) are read as they are.

    \b
    Example:
      locm tournament --agents greedy lookahead --games 200 --db t.db
      locm dataset --db t.db --phase battle --agent lookahead -o lookahead-battle.npz
      locm dataset --game mcg --logs episodes/ --phase main -o mcg-main.npz
    """
    from locm.games.registry import hook

    seats = (0, 1) if seat == "both" else (int(seat),)
    hook("dataset", game, _from_logs)(game, db, output, ruleset, phases, logs, agent, seats, limit,
                                      include_untrusted)


def _from_logs(game, db, output, ruleset, phases, logs, agent, seats, limit, include_untrusted=False) -> None:
    """The rows of the episodes an environment of ``game`` stored in the folder ``logs``."""
    from locm.engine.errors import LocmError

    if logs is None or not logs.is_dir():
        raise LocmError(f"--game {game} reads a folder of episode logs: give --logs FOLDER")
    import locm.rl  # noqa: F401  (the one-line error when the extra is missing)
    from locm.rl import game_spec
    from locm.rl.dataset import export_logs

    default = registry.get(game).rulesets[0]
    spec = game_spec(game, default if ruleset == "1.2" else ruleset)
    check_phases(phases, [p.name for p in spec.phases], game)
    summary = export_logs(game, logs, output, ruleset=spec.rules, phases=phases or None, seats=seats)
    say_summary(summary, output)


def check_phases(phases, names, what) -> None:
    for p in phases:
        if p not in names:
            raise click.BadParameter(f"{what} has no {p} phase (its phases: {', '.join(names)})",
                                     param_hint="--phase")


def say_summary(summary, output, note: str | None = None) -> None:
    """The summary line (and ``note``, the line about the stored games not counted, when there is one)."""
    for gid, why in summary.skipped:
        click.echo(f"{gid}: skipped: {why}", err=True)
    click.echo(f"{output}: {summary.rows} rows from {summary.games} games"
               + (f" ({len(summary.skipped)} skipped)" if summary.skipped else ""))
    if note is not None:
        click.echo(note)


__all__ = ["dataset", "check_phases", "say_summary"]
