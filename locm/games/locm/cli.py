"""LOCM's own commands (added by `locm.games.registry`): `locm bench`, `locm cards` (with `stats` and `rebuild`
on a store's card metrics), `locm cardvalue`, `locm import-referee` and `locm demo` (`locm tune` is generic:
`locm.cli.tune`, LOCM's part the hook ``tune``)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import click

from locm.cli.progress import bar as progress_bar

from locm.cli.options import RULESET, check_output
from locm.games.locm import report_cli


def register(cli: click.Group) -> None:
    """Add LOCM's commands to the `locm` group."""
    from locm.games.locm.cardvalue_cli import cardvalue

    for cmd in (bench, cards, cardvalue, import_referee, demo):
        cli.add_command(cmd)


@click.command()
@RULESET
@click.option("--games", "-n", type=click.IntRange(min=1), default=200, show_default=True,
              help="How many games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the first game.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--core", "which", type=click.Choice(["best", "this"]), default="best", show_default=True,
              help="best: the compiled core of this checkout's .venv-fast/ ('make fast') when this one is pure and "
                   "it is there; this: the core of this install.")
def bench(ruleset, games, seed, as_json, which):
    """Play N seeded random-vs-random games in one process, event log kept, and report the speed and which
    core played them (pure Python or compiled).

    \b
    Example:
      locm bench --ruleset 1.2 --games 500 --json
    """
    from locm.games.locm.bench import bench as run, compiled_beside
    from locm.games.locm.variants import resolve_ruleset

    fast, why_not = compiled_beside() if which == "best" else (None, "")
    if why_not:
        click.echo(f"bench: {why_not}: this pure core plays instead ('make fast' builds the compiled one again)",
                   err=True)
    if fast is not None:
        sys.stdout.flush()
        os.execv(fast, [fast, "bench", "--core", "this", "--ruleset", ruleset, "--games", str(games),
                        "--seed", str(seed), *(["--json"] if as_json else [])])
    ruleset = resolve_ruleset(ruleset)
    if as_json:
        click.echo(json.dumps(run(ruleset, games, seed)))
        return
    with progress_bar(length=games, label="playing") as bar:
        r = run(ruleset, games, seed, bar.update)
    click.echo(f"{r['games']} {ruleset.name} games in {r['seconds']:.2f} s: {r['games_per_s']:.0f} games/s, "
               f"{r['events_per_s']:.0f} events/s ({r['events_per_game']:.0f} events a game)")
    click.echo(f"rebuild a late turn: {r['rebuild_ms']:.2f} ms by a full fold, "
               f"{r['rebuild_snapshot_ms']:.3f} ms from snapshots")
    click.echo(r["core"])



@click.group(invoke_without_command=True)
@RULESET
@click.option("--seed", type=int, help="Game seed: the generated set (constructed) or the draft pool (1.2).")
@click.option("--json", "as_json", is_flag=True, help="Print the cards as JSON.")
@click.pass_context
def cards(ctx, ruleset, seed, as_json):
    """Print a game's card set as a table (constructed: the 120 generated cards); `stats` and `rebuild` work
    on the card metrics of an event store.

    \b
    Example:
      locm cards --ruleset constructed --seed 42
      locm cards stats --db t.db --sort iih
    """
    if ctx.invoked_subcommand is not None:
        return
    import msgspec

    from locm.engine.locm.setup import create
    from locm.events.locm.catalog import CardPoolDefined
    from locm.engine.locm.carddata import cardlist_12
    from locm.games.locm.variants import resolve_ruleset

    rules = resolve_ruleset(ruleset)
    if seed is None and rules.deck_building == "draft":
        pool = list({**cardlist_12(), **{c.base_id: c for c in rules.cards}}.values())
    elif seed is None:
        raise click.UsageError("--seed is needed for the constructed card set")
    else:
        pool = next(e for e in create(rules, seed) if type(e) is CardPoolDefined).cards
    if as_json:
        click.echo(msgspec.json.encode([msgspec.structs.asdict(c) for c in pool]).decode())
    else:
        click.echo(card_table(pool))


cards.add_command(report_cli.stats)
cards.add_command(report_cli.rebuild)


def card_table(cards) -> str:
    """A card set as a terminal table (generated cards have no names: no name column then)."""
    from locm.common.tables import table
    from locm.events.locm.cards import AREA_NAMES, TYPE_NAMES, keywords_to_str

    named = any(c.name for c in cards)  # generated (1.5) cards have no names
    headers = ("id", "type", "cost", "att", "def", "keywords", "my", "opp", "draw", "area") + (("name",) if named else ())
    rows = [(c.base_id, TYPE_NAMES[c.type], c.cost, c.attack, c.defense, keywords_to_str(c.keywords),
             c.my_health, c.opp_health, c.draw, AREA_NAMES[c.area]) + ((c.name,) if named else ()) for c in cards]
    return table(headers, rows)


@click.command("import-referee")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"), show_default=True,
              help="The event store (created if missing).")
@click.option("--skip-existing", is_flag=True, help="Skip games already stored instead of refusing the file.")
def import_referee(files, db, skip_existing):
    """Store the games of official referee logs as event games, each replayed through the engine exactly as
    'locm conformance' does and checked as 'locm verify' checks a game. A file is stored all or none: one game
    that does not replay identically refuses the whole file. The log's scores and parameters are kept in each
    game's meta; its id names its content (its seeds and its answers).

    \b
    Example:
      locm import-referee tests/data/official-1.2-games-00-49.txt.gz --db official.db
    """
    from locm.verify.checks import content_problem
    from locm.engine.locm.definition import GAME
    from locm.store.eventstore import GameExtras, open_store, prepare_game
    from locm.replay.game import ReplaySourceError
    from locm.replay.locm.referee import referee_game, referee_game_id, referee_logs
    from locm.errors import DuplicateGameError

    from locm.games.registry import checker
    from locm.store.provenance import imported_source
    from locm.store.records import utc_timestamp

    existed = db.exists()
    store = open_store(db, checker=checker())
    stored = 0
    try:
        for path in files:
            logs = referee_logs(path)
            prepared = []
            with progress_bar(logs, label=f"replaying {path.name}") as bar:
                for logged in bar:
                    older = referee_game_id(logged)  # a store made before ids named their content
                    if store.has_game(older) and skip_existing:
                        continue
                    g = referee_game(logged, path)
                    for gid in (g.game_id, older):
                        if store.has_game(gid):
                            if skip_existing:
                                break
                            raise DuplicateGameError(gid)
                    else:
                        verdict = content_problem(g.game_id, g.events)
                        if not verdict.ok:  # the engine's own replay: only an engine bug gets here
                            raise ReplaySourceError(f"{path}: game {logged.index}: {verdict.problem}")
                        extras = GameExtras(game_id=g.game_id, meta=json.dumps(g.meta, sort_keys=True))
                        prepared.append(prepare_game(GAME, extras, g.events))
            store.append_games(prepared, source=imported_source(  # provenance: the referee's, not played here
                str(path.resolve()), at=utc_timestamp(), sha256=hashlib.sha256(path.read_bytes()).hexdigest()))
            stored += len(prepared)
            click.echo(f"{path}: {len(prepared)} games stored" +
                       (f", {len(logs) - len(prepared)} already there" if len(prepared) < len(logs) else ""))
    finally:
        store.close()
        if not stored and not existed:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    click.echo(f"{stored} games stored in {db}")


@click.command()
@click.option("--db", default="locm-demo.db", show_default=True, type=click.Path(dir_okay=False),
              help="The SQLite event store to play into (resumed if it exists).")
@click.option("--games", "-n", type=click.IntRange(min=2), default=100, show_default=True,
              help="Games per pair of agents and ruleset (even: each seed in both seats).")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Worker processes playing games.")
@click.option("-w", "workers_old", type=click.IntRange(min=1), hidden=True)  # the old spelling, still read
@click.option("--chart", default="locm-demo.png", show_default=True, type=click.Path(dir_okay=False),
              help="Where to draw the chart (PNG).")
def demo(db, games, workers, workers_old, chart):
    """Play a round robin of the built-in agents in both rulesets into a local SQLite file, then show the
    standings, the first-player advantage, game length and damage by source, side by side, and a chart.

    \b
    Example:
      locm demo --db locm-demo.db --games 100
    """
    import contextlib

    from locm.games.locm.demo import run_demo

    if chart == "-":
        raise click.UsageError("--chart: give a file name for the PNG (standard output carries the demo's text)")
    check_output(Path(chart))  # before playing, not after
    workers = workers_old or workers

    @contextlib.contextmanager
    def progress(length, label):
        with progress_bar(length=length, label=label, show_eta=True) as bar:
            yield bar

    run_demo(db, games, workers, chart, click.echo, progress)


__all__ = ["register", "bench", "cards", "card_table", "import_referee", "demo"]
