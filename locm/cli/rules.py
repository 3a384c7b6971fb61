"""`locm rules`: a game's rulesets as data (`locm rules diff`: the game's own, its wing's hook ``rules_diff``, or
`locm.common.rulesets.rules_diff`)."""

from __future__ import annotations

import click

from locm.cli.options import GAME, usage_errors


@click.group()
def rules():
    """The two rulesets as data.

    \b
    Example:
      locm rules diff 1.2 constructed
    """



@rules.command("diff")
@GAME
@click.argument("left", default="1.2")
@click.argument("right", default="constructed")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as a JSON list.")
def rules_diff(game_name, left, right, as_json):
    """List every rule that differs between two rulesets (built-in names or variant files), with its R-… id;
    changed cards are listed per card and field.

    \b
    Example:
      locm rules diff 1.2 constructed
      locm rules diff 1.2 examples/variants/low-health.toml --json
      locm rules diff --game mcg standard examples/mcg/singleton-sudden-death.toml
    """
    from locm.common.rulesets import rules_diff as rules_diff_any
    from locm.engine import registry
    from locm.games.registry import hook

    game = registry.get(game_name)
    with usage_errors():
        hook("rules_diff", game.name, rules_diff_any)(game, left, right, as_json, click.echo)


__all__ = ["rules"]
