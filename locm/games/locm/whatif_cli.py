"""LOCM's own `locm rerun` and `locm whatif` (its hooks ``rerun`` and ``whatif``, `locm.games.registry`): the
work is in `locm.games.locm.rerun` and `locm.games.locm.whatif`."""

from __future__ import annotations

import json
import sys

import click

from locm.cli.whatif import show_summary
from locm.tournament.backends import join


def rerun(game, source, db, ruleset, as_json) -> int:
    """A recorded LOCM game re-played under ruleset B: where it first diverges; the exit status (1 when the
    log does not follow the rules)."""
    from locm.games.locm.variants import resolve_ruleset
    from locm.games.locm.rerun import load_source, rerun_report

    rules_b = resolve_ruleset(ruleset)
    gid, events, warning, recorded = load_source(source, db)
    report = rerun_report(gid, events, rules_b, warning=warning, recorded=recorded)
    if as_json:
        if warning:
            click.echo(warning, err=True)
        click.echo(json.dumps(report.as_json(), indent=1))
    else:
        for line in report.lines():
            click.echo(line)
    return 1 if warning else 0


def whatif(game, db, ruleset, ruleset_a, agents, games, workers, top, min_n, as_json, backend, address) -> None:
    """Stored LOCM games of built-in agents re-run under ruleset B, and what changed."""
    from locm.engine.locm.rulesets import Rules
    from locm.games.locm.variants import resolve_ruleset
    from locm.games.locm.whatif import whatif as run, whatif_lines

    if not db.exists():
        raise click.UsageError(f"--db {db}: no such store")
    rules_b = resolve_ruleset(ruleset)
    rules_a = None
    if ruleset_a:
        from locm.store.eventstore import open_store
        from locm.games.locm.variants import ruleset_or_name

        with open_store(db, create=False, readonly=True) as store:
            rules_a = ruleset_or_name(ruleset_a, store)  # a stored variant's name: its games, whatever values
    if isinstance(rules_a, Rules) and rules_a.deck_building != rules_b.deck_building:
        raise click.UsageError(f"--ruleset-a {rules_a.name} builds decks by {rules_a.deck_building}, --ruleset "
                               f"{rules_b.name} by {rules_b.deck_building}: a game cannot be re-run across them")
    from locm.games.locm.bots import is_builtin

    for a in agents:
        if not is_builtin(a):
            from locm.engine.locm.agents import AGENT_NAMES

            raise click.UsageError(f"--agents {a!r}: expected a built-in agent ({', '.join(AGENT_NAMES)})")
    bar = None

    def announce(n):
        nonlocal bar
        bar = click.progressbar(length=n, label="re-running", file=sys.stderr, show_eta=True, show_pos=True)
        bar.__enter__()

    join(backend, address)
    try:
        result = run(db, rules_b, rules_a, agents or None, games, workers,
                     progress=lambda k: bar.update(k), announce=announce, backend=backend, address=address)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if show_summary(result.summary(top, min_n), result.skipped, whatif_lines, top, as_json):
        return
    if result.selected == 0:
        click.echo("no stored games to re-run (see --ruleset-a and --agents)", err=True)


__all__ = ["rerun", "whatif"]
