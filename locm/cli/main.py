"""The `locm` command line: a thin layer over the library. Every command has an example in its help;
project errors become one-line messages and a non-zero exit, never a traceback (`locm.cli.group`).

This module is the group and its commands' registration: each family of commands is a module of its own in
`locm.cli`, and what only one game has is added by its wing (`locm.games.registry`)."""

from __future__ import annotations

import sys

import click

try:
    import locm.engine  # noqa: F401  (a compiled core whose sources changed since its build is refused here)
except ImportError as exc:
    if type(exc).__name__ not in ("StaleCoreError", "CoreChoiceError"):  # a stale build; a bad LOCM_CORE
        raise
    sys.stderr.write(f"locm: error: {exc}\n")
    sys.exit(2)
from locm.cli.group import EXIT_ERROR, LocmGroup, show_version  # noqa: F401  (EXIT_ERROR: re-exported)
from locm.errors import OutputError  # noqa: F401  (re-exported: locm.cli.main.OutputError)


@click.group(cls=LocmGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, _param, value: show_version(ctx, value),
              help="Show the version, which core runs (native C++, compiled or pure Python, with its build's hash; "
                   "LOCM_CORE=native|compiled|pure chooses) and the registered games (with the package of each game "
                   "installed from outside), and exit.")
def cli():
    """Legends of Code and Magic: an event-sourced rules engine for the 1.2 and constructed rulesets.

    \b
    Example:
      locm play --ruleset 1.2 --seed 7 --p0 greedy --p1 random --log game.jsonl
    """


def _register(group: click.Group) -> None:
    from locm.cli import replay, store
    from locm.cli.arena import arena
    from locm.cli.conformance import conformance
    from locm.cli.dataset import dataset
    from locm.cli.exchange import export_cmd, import_cmd
    from locm.cli.games import games
    from locm.cli.keys import key
    from locm.cli.play import play
    from locm.cli.position import position
    from locm.cli.report import report
    from locm.cli.rules import rules
    from locm.cli.sandbox import sandbox
    from locm.cli.tournament import tournament
    from locm.cli.tune import tune
    from locm.cli.verify import verify
    from locm.cli.whatif import rerun, whatif
    from locm.games.registry import add_commands

    for cmd in (play, conformance, report, rules, tournament, sandbox, games, verify, export_cmd, import_cmd, rerun,
                whatif, dataset, arena, key, position, tune):
        group.add_command(cmd)
    replay.register(group)  # show, audit, replay, html
    store.register(group)  # migrate, sql
    add_commands(group)  # each game's own commands (locm.games.registry)


_register(cli)


def main() -> None:
    cli.main()


if __name__ == "__main__":
    main()
