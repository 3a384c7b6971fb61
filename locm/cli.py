"""The `locm` command line: a thin layer over the library. Every command has an example in its help;
project errors become one-line messages and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from engine.errors import LocmError

EXIT_ERROR = 2


class OutputError(LocmError):
    """An output file the CLI was asked to write cannot be written."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)


class LocmGroup(click.Group):
    """Turns usage errors into one line: `locm CMD: error: ...`."""

    def main(self, args=None, prog_name="locm", **extra):
        try:
            return super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # pragma: no cover - click >= 8.2
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.UsageError as exc:
            cmd = exc.ctx.command_path if exc.ctx else "locm"
            hint = f" (see '{cmd} --help')"
            click.echo(f"{cmd}: error: {exc.format_message()}{hint}", err=True)
            sys.exit(EXIT_ERROR)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("locm: aborted", err=True)
            sys.exit(130)
        except LocmError as exc:
            click.echo(f"locm: error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as exc:  # a bug: still one line, the traceback on demand
            if os.environ.get("LOCM_DEBUG"):
                raise
            click.echo(f"locm: internal error: {type(exc).__name__}: {exc} (set LOCM_DEBUG=1 for the "
                       "traceback)", err=True)
            sys.exit(70)


@click.group(cls=LocmGroup, context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """Legends of Code and Magic: an event-sourced rules engine for the 1.2 and constructed rulesets.

    \b
    Example:
      locm play --ruleset 1.2 --seed 7 --p0 greedy --p1 random --log game.jsonl
    """


RULESET = click.option("--ruleset", "-r", default="1.2", show_default=True,
                       help="1.2 (draft) or constructed (alias 1.5).")


def _check_ruleset(name: str) -> str:
    from engine.rulesets import by_name

    return by_name(name).name


# --- play -------------------------------------------------------------------------------------------------


@cli.command()
@RULESET
@click.option("--seed", type=int, required=True, help="The game's seed (R-SEEDS).")
@click.option("--p0", default="greedy", show_default=True, help="Agent in seat 0: random, pass, greedy.")
@click.option("--p1", default="random", show_default=True, help="Agent in seat 1.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the event log here (JSON lines).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A referee parameter, e.g. shufflePlayer0Seed=5 (repeatable).")
def play(ruleset, seed, p0, p1, log_path, params):
    """Play one game and print the winner and a short summary.

    \b
    Example:
      locm play --ruleset constructed --seed 42 --p0 greedy --p1 random --log g.jsonl
    """
    from events.codec import to_jsonl
    from locm.play import play_one, summarize

    ruleset = _check_ruleset(ruleset)
    game = play_one(ruleset, seed, (p0, p1), _parse_params(params))
    if log_path:
        _write_bytes(log_path, to_jsonl(game.log))
    for line in summarize(game).lines((p0, p1)):
        click.echo(line)
    if log_path:
        click.echo(f"log: {log_path}")


def _parse_params(items) -> dict:
    from engine.errors import GameParamError

    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise GameParamError(f"--param expects NAME=VALUE, got {item!r}", item)
        if name == "predefinedDraftIds":
            out[name] = value
            continue
        try:
            out[name] = int(value)
        except ValueError:
            raise GameParamError(f"--param {name}: expected an integer, got {value!r}", name, value) from None
    return out


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None


# --- conformance ------------------------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print mismatches and the summary only.")
def conformance(files, quiet):
    """Replay official referee logs and check every input byte for byte, and the winner.

    FILES are logs in the official format (one game per line; .gz allowed). Exit status 0 only when every
    game is identical.

    \b
    Example:
      locm conformance tests/data/official-1.2-games-00-49.txt.gz
    """
    from replay.conformance import check_game, check_generated_cards, read_log_file

    total = same = 0
    for path in files:
        for logged in read_log_file(path):
            result = check_game(logged)
            cards_problem = check_generated_cards(logged)
            if result.identical and cards_problem:
                result.identical = False
                result.message = cards_problem
            total += 1
            same += result.identical
            if not (quiet and result.identical):
                prefix = f"{path}: " if len(files) > 1 else ""
                click.echo(prefix + result.summary())
    click.echo(f"{same}/{total} games identical")
    sys.exit(0 if same == total else 1)


# --- bench ------------------------------------------------------------------------------------------------


@cli.command()
@RULESET
@click.option("--games", "-n", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the first game.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench(ruleset, games, seed, as_json):
    """Play N seeded random-vs-random games in one process, event log kept, and report the speed.

    \b
    Example:
      locm bench --ruleset 1.2 --games 500 --json
    """
    from locm.bench import bench as run

    ruleset = _check_ruleset(ruleset)
    if as_json:
        click.echo(json.dumps(run(ruleset, games, seed)))
        return
    with click.progressbar(length=games, label="playing", file=sys.stderr) as bar:
        r = run(ruleset, games, seed, bar.update)
    click.echo(f"{r['games']} {ruleset} games in {r['seconds']:.2f} s: {r['games_per_s']:.0f} games/s, "
               f"{r['events_per_s']:.0f} events/s ({r['events_per_game']:.0f} events a game)")
    click.echo(f"rebuild a late turn: {r['rebuild_ms']:.2f} ms by a full fold, "
               f"{r['rebuild_snapshot_ms']:.3f} ms from snapshots")


# --- cards and rules --------------------------------------------------------------------------------------


@cli.command()
@RULESET
@click.option("--seed", type=int, help="Game seed: the generated set (constructed) or the draft pool (1.2).")
@click.option("--json", "as_json", is_flag=True, help="Print the cards as JSON.")
def cards(ruleset, seed, as_json):
    """Print a game's card set as a table (constructed: the 120 generated cards).

    \b
    Example:
      locm cards --ruleset constructed --seed 42
    """
    import msgspec

    from locm.tables import card_table
    from engine.rulesets import by_name
    from engine.setup import create
    from events.catalog import CardPoolDefined
    from engine.carddata import cardlist_12

    rules = by_name(ruleset)
    if seed is None and rules.deck_building == "draft":
        pool = list(cardlist_12().values())
    elif seed is None:
        raise click.UsageError("--seed is needed for the constructed card set")
    else:
        pool = next(e for e in create(rules, seed) if type(e) is CardPoolDefined).cards
    if as_json:
        click.echo(msgspec.json.encode([msgspec.structs.asdict(c) for c in pool]).decode())
    else:
        click.echo(card_table(pool))


@cli.group()
def rules():
    """The two rulesets as data.

    \b
    Example:
      locm rules diff 1.2 constructed
    """


@rules.command("diff")
@click.argument("left", default="1.2")
@click.argument("right", default="constructed")
def rules_diff(left, right):
    """List every rule that differs between two rulesets, with its R-… id.

    \b
    Example:
      locm rules diff 1.2 constructed
    """
    from engine.rulesets import by_name, diff_rulesets
    from locm.tables import table

    a, b = by_name(left), by_name(right)
    rows = [(d.rule, d.field, _show(d.left), _show(d.right), d.doc) for d in diff_rulesets(a, b)]
    click.echo(table(("rule", "setting", f"{a.name} ({a.version})", f"{b.name} ({b.version})", "meaning"), rows))
    click.echo(f"{len(rows)} differences")


def _show(v) -> str:
    if isinstance(v, tuple):
        return ",".join(map(str, v)) or "none"
    return str(v)


def main() -> None:
    cli.main()


if __name__ == "__main__":
    main()
