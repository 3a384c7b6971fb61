"""The `locm` command line: a thin layer over the library. Every command has an example in its help;
project errors become one-line messages and a non-zero exit, never a traceback."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import signal
import sys
from pathlib import Path

import click

from locm.engine.errors import LocmError
from locm import report_cli

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
            value = super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
            sys.stdout.flush()  # a full disk under standard output is reported here, not at exit
            return value
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
        except OSError as exc:
            if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
                _internal_error(exc)
            _silence_stdout()
            click.echo(f"locm: error: cannot write standard output: {exc.strerror}", err=True)
            sys.exit(EXIT_ERROR)
        except Exception as exc:  # a bug: still one line, the traceback on demand
            _internal_error(exc)


_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO}
"""Errors of a write to standard output that are the output's fault (a full disk, a file-size limit)."""


def _internal_error(exc: Exception):
    if os.environ.get("LOCM_DEBUG"):
        raise exc
    click.echo(f"locm: internal error: {type(exc).__name__}: {exc} (set LOCM_DEBUG=1 for the "
               "traceback)", err=True)
    sys.exit(70)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered for it is dropped at exit instead
    of failing again there."""
    with contextlib.suppress(OSError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)


@click.group(cls=LocmGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="locm", message="%(prog)s %(version)s")
def cli():
    """Legends of Code and Magic: an event-sourced rules engine for the 1.2 and constructed rulesets.

    \b
    Example:
      locm play --ruleset 1.2 --seed 7 --p0 greedy --p1 random --log game.jsonl
    """


RULESET = click.option("--ruleset", "-r", default="1.2", show_default=True,
                       help="1.2 (draft), constructed (alias 1.5), or a ruleset variant file (TOML, see "
                            "examples/variants/).")


def _check_ruleset(name: str):
    """The `Rules` meant by a --ruleset value (a built-in name or a variant file): `locm.variants`."""
    from locm.variants import resolve_ruleset

    return resolve_ruleset(name)


# --- play -------------------------------------------------------------------------------------------------


AGENT_HELP = ("random, pass, greedy, lookahead, or a bot's command line in quotes, e.g. \"python3 examples/bot.py\" "
              "(one process per game speaking the referee protocol on stdin/stdout).")
TIMEOUTS = click.option("--timeouts", metavar="SPEC",
                        help="Bots' time limits: a multiplier of the referee's (x3) and/or NAME=MS items, names "
                             "draft_first, draft, construct, battle_first, battle (default 1000, 100, 4000, "
                             "1000, 200 ms); e.g. 'x2,battle=500'.")
DB_OPTION = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"),
                         show_default=True, help="The event store (an SQLite file).")


@cli.command()
@RULESET
@click.option("--seed", type=int, required=True, help="The game's seed (R-SEEDS).")
@click.option("--p0", default="greedy", show_default=True, help="Agent in seat 0: " + AGENT_HELP)
@click.option("--p1", default="random", show_default=True, help="Agent in seat 1, as --p0.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write the event log here (JSON lines); - for standard output (the summary then goes to "
                   "standard error).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="Also store the game in this event store (created if missing); its id is printed.")
@TIMEOUTS
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A referee parameter, e.g. shufflePlayer0Seed=5 (repeatable).")
def play(ruleset, seed, p0, p1, log_path, db, timeouts, params):
    """Play one game and print the winner and a short summary.

    The same seed and the same built-in agents give a byte-identical event log. With --db the game is stored
    under a deterministic id (ruleset, seed and a hash of the agents and parameters); storing it twice is
    refused.

    \b
    Example:
      locm play --ruleset constructed --seed 42 --p0 greedy --p1 random --log g.jsonl
      locm play --seed 7 --p0 "python3 examples/bot.py" --p1 greedy --db games.db --timeouts x2
    """
    from locm.engine.game import Game
    from locm.events.catalog import HardError
    from locm.events.codec import to_jsonl
    from locm.bots import TimeLimits, check_agent
    from locm.play import summarize
    from locm.store import DuplicateGameError, open_store
    from locm.tournament import game_id, run_game

    ruleset = _check_ruleset(ruleset)
    agents = (check_agent(p0), check_agent(p1))
    limits = TimeLimits.parse(timeouts)
    params = _parse_params(params)
    Game.new(ruleset, seed, params)  # a bad seed or parameter is refused before a store is created
    to_stdout = log_path is not None and str(log_path) == "-"
    if log_path and not to_stdout:
        _check_output(log_path)  # before playing, not after
    store = open_store(db) if db else None
    try:
        with _sigterm_as_interrupt():
            gid = game_id(ruleset, seed, agents, params)
            if store is not None and store.has_game(gid):
                raise DuplicateGameError(gid)
            played = run_game(ruleset, seed, agents, params, limits)
            if store is not None:
                store.append_game(played.extras, played.game.log)
    finally:
        if store is not None:
            store.close()
    game = played.game
    say = functools.partial(click.echo, err=to_stdout)  # the log, if it goes to stdout, has it to itself
    for line in summarize(game).lines(agents):
        say(line)
    for e in game.log:
        if type(e) is HardError:
            say(f"hard error: player {e.player} ({agents[e.player]}): {e.reason}")
    x = played.extras
    for seat, (text, failed) in enumerate(((x.stderr0, x.error0 or x.timeout0), (x.stderr1, x.error1 or x.timeout1))):
        if failed and text.strip():  # a bot that lost by an error: its traceback, usually
            say(f"stderr of player {seat} ({agents[seat]}), last lines:")
            for line in text.rstrip().splitlines()[-STDERR_TAIL_LINES:]:
                say(f"  | {line}")
    if store is not None:
        say(f"stored: {gid} in {db}")
    if log_path:
        _write_bytes(log_path, to_jsonl(game.log))  # after the summary: a full disk still shows the game
        if not to_stdout:
            say(f"log: {log_path}")


STDERR_TAIL_LINES = 10
"""Lines of a failed bot's stderr that `locm play` shows (its traceback, usually)."""


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM raises KeyboardInterrupt for the duration, so that `finally` blocks kill bots and workers."""
    def terminated(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _n(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _parse_params(items) -> dict:
    from locm.engine.errors import GameParamError

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
    """Write ``data`` to ``path`` whole (through a .tmp file renamed when complete, removed on failure) or to
    standard output for ``-``."""
    if str(path) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", str(path)) from None


def _check_output(path: Path) -> None:
    """Refuse an output path that cannot be written (no such directory, not writable, a directory), before
    any work is done for it."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory", str(path))
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: no directory {parent}", str(path))
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise OutputError(f"cannot write {path}: permission denied or read-only", str(path))


# --- conformance ------------------------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print mismatches and the summary only.")
def conformance(files, quiet):
    """Replay official referee logs and check every input byte for byte, and the winner.

    FILES are logs in the official format (one game per line; .gz allowed). A line that is not a game log is
    reported with its line number and the other games are still checked. Exit status 0 only when every game
    is identical.

    \b
    Example:
      locm conformance tests/data/official-1.2-games-00-49.txt.gz
    """
    from locm.replay.conformance import check_game, check_generated_cards, read_log_file

    total = same = bad = 0

    def bad_line(exc):
        nonlocal total, bad
        total, bad = total + 1, bad + 1
        click.echo(f"locm: error: {exc}", err=True)

    for path in files:
        for logged in read_log_file(path, on_bad_line=bad_line):
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
    click.echo(f"{same}/{total} games identical" + (f" ({_n(bad, 'line')} not a game log)" if bad else ""))
    sys.exit(0 if same == total else EXIT_ERROR if bad == total else 1)


# --- bench ------------------------------------------------------------------------------------------------


@cli.command()
@RULESET
@click.option("--games", "-n", type=click.IntRange(min=1), default=200, show_default=True,
              help="How many games to play.")
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
    click.echo(f"{r['games']} {ruleset.name} games in {r['seconds']:.2f} s: {r['games_per_s']:.0f} games/s, "
               f"{r['events_per_s']:.0f} events/s ({r['events_per_game']:.0f} events a game)")
    click.echo(f"rebuild a late turn: {r['rebuild_ms']:.2f} ms by a full fold, "
               f"{r['rebuild_snapshot_ms']:.3f} ms from snapshots")


# --- cards and rules --------------------------------------------------------------------------------------


@cli.group(invoke_without_command=True)
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

    from locm.tables import card_table
    from locm.engine.setup import create
    from locm.events.catalog import CardPoolDefined
    from locm.engine.carddata import cardlist_12

    rules = _check_ruleset(ruleset)
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
cli.add_command(report_cli.report)


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
@click.option("--json", "as_json", is_flag=True, help="Print the differences as a JSON list.")
def rules_diff(left, right, as_json):
    """List every rule that differs between two rulesets (built-in names or variant files), with its R-… id;
    changed cards are listed per card and field.

    \b
    Example:
      locm rules diff 1.2 constructed
      locm rules diff 1.2 examples/variants/low-health.toml --json
    """
    from locm.variants import rules_diff_command

    rules_diff_command(left, right, as_json, click.echo)


# --- tournaments and the event store ----------------------------------------------------------------------


@cli.command()
@RULESET
@click.option("--agents", "-a", "first", multiple=True, metavar="AGENT",
              help="The agents: " + AGENT_HELP + " Write them after --agents, "
                   "e.g. --agents greedy random \"python3 examples/bot.py\"; an agent given twice also "
                   "plays itself (--agents greedy greedy).")
@click.argument("more", nargs=-1, metavar="[AGENT]...")
@click.option("--games", "-n", type=click.IntRange(min=2), required=True,
              help="Games per pair of agents, both seats together: an even number (N/2 seeds, each played "
                   "in both seats).")
@DB_OPTION
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes playing games (the main process stores them).")
@click.option("--seed", type=int, default=1, show_default=True, help="The first seed; seeds are consecutive.")
@TIMEOUTS
@click.option("--busy-timeout", type=click.FloatRange(min=0), metavar="SECONDS",
              help="How long to wait, saying so, while another writer holds the store's lock (default 600, "
                   "or $LOCM_BUSY_TIMEOUT).")
@click.option("--allow-changed-bots", is_flag=True,
              help="Resume even if a bot's files changed since its stored games (mixing its versions).")
def tournament(ruleset, first, more, games, db, workers, seed, timeouts, busy_timeout, allow_changed_bots):
    """Round robin: every pair of agents plays N games on mirrored seeds; results go to an event store.

    Each pair plays seeds S .. S+N/2-1, each seed once in each seating; an odd N is refused. An agent
    given twice also plays itself: seeds S .. S+N-1, each once (with the same agent in both seats, the
    swapped seating is the same game), its results in two rows, one per seat. Games are
    stored one by one under deterministic ids, so a tournament that was interrupted or killed is finished
    by running the same command again: stored games are skipped, none is stored twice. At the end: a table
    per agent (games, wins, win rate with its 95% Wilson interval, hard errors, timeouts, average think time
    per turn) and the head-to-head results.

    \b
    Example:
      locm tournament --ruleset 1.2 --agents greedy random pass --games 100 --db t.db --workers 2
      locm tournament --agents greedy "python3 examples/bot.py" --games 20 --db t.db --timeouts x2
      locm tournament --ruleset constructed --agents greedy greedy --games 200 --db self.db
    """
    from locm.bots import TimeLimits, check_agent
    from locm.store import open_store
    from locm.tables import table
    from locm.errors import TournamentError
    from locm.tournament import (PAIR_HEADERS, STANDINGS_HEADERS, changed_bots, count_stored, pair_rows, play_jobs,
                                 schedule, standings, standings_rows, to_play)

    ruleset = _check_ruleset(ruleset)
    agents = [check_agent(a) for a in (*first, *more)]
    limits = TimeLimits.parse(timeouts)
    jobs = schedule(ruleset, agents, games, seed)
    store = open_store(db, busy_timeout=busy_timeout)
    try:
        with _sigterm_as_interrupt():
            for bot, n in [] if allow_changed_bots else changed_bots(store, agents)[:1]:
                raise TournamentError(f"bot {bot!r} changed since {_n(n, 'stored game')} with it (its files "
                                      "differ): pass --allow-changed-bots to mix its versions, or use a new --db")
            pending, todo = to_play(store, jobs)
            used = min(workers, max(todo, 1))
            click.echo(f"{_n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, {todo} to play "
                       f"with {_n(used, 'worker')}", err=True)
            bar = click.progressbar(length=todo, label="playing", file=sys.stderr, show_eta=True, show_pos=True)
            with bar if todo else contextlib.nullcontext(bar):  # nothing to play: no empty 0/0 bar
                run = play_jobs(store, pending, workers=workers, limits=limits,
                                progress=bar.update, scheduled=len(jobs), count=todo)
        records = [r for r in store.games(ruleset=ruleset.name) if jobs.holds(r)]
    except KeyboardInterrupt:
        done = count_stored(store, jobs)
        click.echo(f"\nlocm: interrupted: {done} of {_n(len(jobs), 'game')} stored in {db}; run the same "
                   "command again to play the rest", err=True)
        sys.exit(130)
    finally:
        store.close()
    click.echo(f"{_n(run.played, 'game')} played in {run.seconds:.1f} s, {run.already} stored before"
               + (f", {run.duplicates} stored meanwhile by another run" if run.duplicates else "")
               + f": {len(records)} of {_n(len(jobs), 'game')} in {db}")
    click.echo(table(STANDINGS_HEADERS, standings_rows(standings(records, agents))))
    click.echo("")
    click.echo(table(PAIR_HEADERS, pair_rows(records, agents)))
    for gid, message in run.failed:
        click.echo(f"locm: error: game {gid} failed: {message}", err=True)
    if run.failed:
        sys.exit(1)


@cli.command()
@DB_OPTION
@click.option("--ruleset", "-r", help="Only games of this ruleset (a name, an alias or a variant file).")
@click.option("--agent", help="Only games with this agent in either seat (exactly as stored).")
@click.option("--winner", type=click.IntRange(0, 1), help="Only games won by this seat (0 or 1).")
@click.option("--winner-agent", metavar="AGENT", help="Only games won by this agent, in either seat.")
@click.option("--limit", type=click.IntRange(min=0), help="At most this many games.")
@click.option("--stderr", "stderr_of", metavar="GAME_ID",
              help="Instead of the table, print what the bots of this stored game wrote on stderr.")
def games(db, ruleset, agent, winner, winner_agent, limit, stderr_of):
    """List the stored games as a table, in the order they were stored. ``turns`` are the battle turns
    begun, both players counted (as `locm play` says them).

    \b
    Example:
      locm games --db t.db --ruleset 1.2 --agent greedy --winner 0 --limit 20
      locm games --db t.db --winner-agent "python3 examples/bot.py"
      locm games --db t.db --stderr 1.2-7-0123456789ab
    """
    from locm.play import turns_played
    from locm.store import open_store
    from locm.tables import table
    from locm.tournament import stored_stderr
    from locm.variants import ruleset_name, rules_identities

    with open_store(db, create=False, readonly=True) as store:
        if stderr_of is not None:
            for seat, agent_name, text, failed in stored_stderr(store, stderr_of):
                click.echo(f"== player {seat} ({agent_name}){' (lost by an error)' if failed else ''}: "
                           + ("stderr:" if text else "nothing on stderr"))
                if text:
                    click.echo(text.rstrip("\n"))
            return
        ruleset = ruleset_name(ruleset, store) if ruleset else None
        records = store.games(ruleset=ruleset, agent=agent, winner=winner, limit=limit, winner_agent=winner_agent)
        rules_of = rules_identities(store, [r.game_id for r in records])
    rows = []
    for r in records:
        notes = [f"p{s} {what}" for s in (0, 1) for what, flag in (("error", getattr(r, f"error{s}")),
                                                                   ("timeout", getattr(r, f"timeout{s}")))
                 if flag]
        rows.append((r.game_id, r.ruleset, r.seed, r.agent0, r.agent1, r.winner, r.reason, turns_played(r.turns),
                     r.n_events, r.created[:19] + "Z", ", ".join(notes), rules_of.get(r.game_id, "")))
    click.echo(table(("game id", "ruleset", "seed", "agent 0", "agent 1", "winner", "reason", "turns", "events",
                      "created", "notes", "rules (base #hash)"), rows))
    click.echo(_n(len(rows), "game"))


@cli.command()
@DB_OPTION
@click.option("--redecide/--no-redecide", default=True, show_default=True,
              help="Also rebuild each game from its game_created, feed every recorded input through the rules "
                   "again and compare the events byte for byte (--no-redecide: the chain and the fold only).")
def verify(db, redecide):
    """Check every stored game: its hash chain is intact, the fold of its events ends the game with the
    recorded winner, and (by default) re-deciding its recorded inputs gives exactly its events, so a log that
    was edited and re-chained is caught at the first event the rules would not produce. Prints a line per bad
    game and a summary; exit status 1 if any game is bad.

    \b
    Example:
      locm verify --db t.db
      locm verify --db t.db --no-redecide    # faster: hash chain and fold only
    """
    from locm.store import open_store
    from locm.tournament import check_stored_game

    bad = total = 0
    with open_store(db, create=False, readonly=True) as store:
        records = store.games()
        # The bar goes to stderr and only to a terminal: the report lines on stdout stay as they are.
        with click.progressbar(records, label="verifying", file=sys.stderr, show_pos=True,
                               show_eta=True) as bar:
            for record in bar:
                total += 1
                problem = check_stored_game(store, record, redecide)
                if problem:
                    bad += 1
                    click.echo(f"{record.game_id}: {problem.removeprefix(f'game {record.game_id!r}: ')}")
    click.echo(f"{_n(total, 'game')} checked: {total - bad} good, {bad} bad")
    sys.exit(1 if bad else 0)


@cli.command("export")
@click.argument("game_ids", nargs=-1, metavar="[GAME_ID]...")
@click.option("--all", "all_games", is_flag=True, help="Export every stored game.")
@DB_OPTION
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write here instead of standard output (only once complete); - is standard output.")
@click.option("--salvage", is_flag=True,
              help="From a damaged store: write every game that still reads and verifies, name the others "
                   "on stderr (exit status 1 if any).")
def export_cmd(game_ids, all_games, db, output, salvage):
    """Write games as JSON lines: a header, each game's record and its events with their hashes, totals.

    `locm import` reads the file back exactly (export, import, export gives the same bytes).

    \b
    Example:
      locm export --all --db t.db > games.jsonl
      locm export 1.2-7-0123456789ab --db t.db -o one.jsonl
      locm export --all --salvage --db damaged.db -o rescued.jsonl
    """
    from locm.store import open_store

    if bool(game_ids) == all_games:
        raise click.UsageError("give GAME_ID arguments or --all (one of the two)")
    bad = []

    def on_bad(gid, exc):
        bad.append(gid)
        click.echo(f"locm: left out game {gid}: {str(exc).removeprefix(f'game {gid!r}: ')}", err=True)

    with open_store(db, create=False, readonly=True, salvage=salvage) as store:
        ids = None if all_games else list(dict.fromkeys(game_ids))
        for gid in ids or ():
            store.game(gid)  # an unknown id is refused before anything is written
        kw = {"on_bad": on_bad} if salvage else {}
        if output is None or str(output) == "-":
            with click.open_file("-", "wb") as out:
                n = store.export_jsonl(ids, out, **kw)
                out.flush()
        else:
            tmp = output.with_name(output.name + ".tmp")
            try:
                with open(tmp, "wb") as f:
                    n = store.export_jsonl(ids, f, **kw)
                tmp.replace(output)
            except OSError as exc:
                raise OutputError(f"cannot write {output}: {exc.strerror or exc}", str(output)) from None
            finally:
                tmp.unlink(missing_ok=True)
            click.echo(f"{_n(n, 'game')} written to {output}", err=True)
    if bad:
        click.echo(f"locm: {_n(len(bad), 'damaged game')} left out, {_n(n, 'game')} saved", err=True)
        sys.exit(1)


@cli.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@DB_OPTION
@click.option("--skip-existing", is_flag=True, help="Skip games already stored identically instead of refusing.")
def import_cmd(file, db, skip_existing):
    """Store the games of an export file, all or none: a malformed, truncated or tampered file is refused
    with the number of its first wrong line, and nothing is written. FILE may be - for standard input.

    \b
    Example:
      locm import games.jsonl --db copy.db
    """
    from locm.errors import ImportFormatError, InputFileError
    from locm.store import open_store

    existed = db.exists()
    store = open_store(db)
    ok = False
    try:
        with click.open_file(str(file), "rb") as stream:
            summary = store.import_jsonl(stream, skip_existing=skip_existing)
        ok = True
    except ImportFormatError as exc:
        raise InputFileError(str(file), exc) from None
    except OSError as exc:
        raise InputFileError(str(file), exc.strerror or exc) from None
    finally:
        store.close()
        if not ok and not existed:  # leave no empty store behind a refused import
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    click.echo(f"imported {_n(summary.games, 'game')} ({_n(summary.events, 'event')}) into {db}"
               + (f"; {summary.skipped} already stored, skipped" if summary.skipped else ""))


@cli.command()
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

    from locm.demo import run_demo

    if chart == "-":
        raise click.UsageError("--chart: give a file name for the PNG (standard output carries the demo's text)")
    _check_output(Path(chart))  # before playing, not after
    workers = workers_old or workers

    @contextlib.contextmanager
    def progress(length, label):
        with click.progressbar(length=length, label=label, file=sys.stderr, show_eta=True) as bar:
            yield bar

    run_demo(db, games, workers, chart, click.echo, progress)


from locm import replay_cli  # noqa: E402  (show, audit, replay, html, import-referee)

replay_cli.register(cli)

from locm.whatif_cli import rerun, whatif  # noqa: E402  (what-if re-runs: locm/rerun.py, locm/whatif.py)

cli.add_command(rerun)
cli.add_command(whatif)

from locm.cardvalue_cli import cardvalue  # noqa: E402  (causal card value: locm/cardvalue.py)

cli.add_command(cardvalue)

from locm import store_cli  # noqa: E402  (migrate, sql: locm/store_cli.py)

store_cli.register(cli)


def main() -> None:
    cli.main()


if __name__ == "__main__":
    main()
