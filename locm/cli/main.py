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

try:
    import locm.engine  # noqa: F401  (a compiled core whose sources changed since its build is refused here)
except ImportError as exc:
    if type(exc).__name__ != "StaleCoreError":
        raise
    sys.stderr.write(f"locm: error: {exc}\n")
    sys.exit(2)
from locm.engine.errors import LocmError
from locm.errors import OutputError  # noqa: F401  (re-exported: locm.cli.main.OutputError)
from locm.cli import report as report_cli
from locm.tournament.backends import backend_options, join

EXIT_ERROR = 2


class LocmGroup(click.Group):
    """Turns usage errors into one line: `locm CMD: error: ...`. Standard output is guarded for the command
    (`locm.common.outputs.guard_stdout`): a closed one, a broken pipe or a full disk under it never stops a command
    before its file outputs are written; a closed or full one is reported at the end, in one line."""

    def main(self, args=None, prog_name="locm", **extra):
        from locm.common.outputs import guard_stdout, stdout_problem

        real, real_err = sys.stdout, sys.stderr
        guard = guard_stdout()
        code = 0
        try:
            self._main(args, prog_name, **extra)
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.stdout, sys.stderr = real, real_err
        problem = stdout_problem(guard)
        if guard.problem is not None:
            _silence_stdout()  # what is still buffered for it is dropped at exit, not written again
        if problem and code in (0, None):
            click.echo(f"locm: error: {problem}", err=True)
            code = EXIT_ERROR
        sys.exit(code)

    def _main(self, args, prog_name, **extra):
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
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)


def _version(ctx: click.Context, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from locm.engine.corebuild import core

    click.echo(f"locm {version('locm')}, {core()}")
    ctx.exit()


@click.group(cls=LocmGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda ctx, _param, value: _version(ctx, value),
              help="Show the version and which core runs (pure Python or compiled, with its build's hash), and exit.")
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
    """The `Rules` meant by a --ruleset value (a built-in name or a variant file): `locm.cli.variants`."""
    from locm.cli.variants import resolve_ruleset

    return resolve_ruleset(name)


# --- play -------------------------------------------------------------------------------------------------


AGENT_HELP = ("random, pass, greedy, lookahead, or a bot's command line in quotes, e.g. \"python3 examples/bot.py\" "
              "(one process per game speaking the referee protocol on stdin/stdout).")
TIMEOUTS = click.option("--timeouts", metavar="SPEC",
                        help="Bots' time limits: a multiplier of the referee's (x3) and/or NAME=MS items, names "
                             "draft_first, draft, construct, battle_first, battle (default 1000, 100, 4000, "
                             "1000, 200 ms); e.g. 'x2,battle=500'.")


def sandbox_options(f):
    """--no-sandbox, --bot-limits, --bot-network, --bot-bind: how external bots are confined (`locm.runner.sandbox.bwrap`)."""
    f = click.option("--bot-bind", "bot_binds", multiple=True, metavar="PATH",
                     type=click.Path(exists=True, path_type=str),
                     help="Also show this host file or folder to the bots, read-only (repeatable; recorded "
                          "with each game).")(f)
    f = click.option("--bot-network", is_flag=True,
                     help="Give the bots the host's network (recorded with each game and shown in the "
                          "standings); by default they have none.")(f)
    f = click.option("--bot-limits", metavar="SPEC",
                     help="Bots' resource limits, NAME=VALUE items changing the defaults mem=768m (data memory "
                          "per process), cpu=60 (CPU seconds per process), procs=128, files=256, fsize=64m, "
                          "tmp=64m (private /tmp), vmem=none (address space); 'none' lifts one; e.g. "
                          "'mem=1g,procs=64'.")(f)
    f = click.option("--no-sandbox", is_flag=True,
                     help="Run the bots unconfined, as you, with your files and network: only for bots you "
                          "trust (printed on every run and recorded with each game).")(f)
    return f


def _sandbox(agents, no_sandbox, bot_limits, bot_network, bot_binds, db=None):
    """The `Sandbox` the options ask for, hiding the store and every agent's files from the bots; refused
    (one line) when this machine cannot sandbox and --no-sandbox was not given. Says on stderr what the bots
    of this run may do (only when a bot plays)."""
    from locm.runner.bots import agent_files, command_argv, is_builtin
    from locm.errors import AgentSpecError
    from locm.runner.sandbox.bwrap import BotLimits, Sandbox, require, unreadable

    if no_sandbox and (bot_limits or bot_network or bot_binds):
        raise click.UsageError("--bot-limits, --bot-network and --bot-bind confine sandboxed bots: they do not "
                               "go with --no-sandbox")
    hide = [str(Path(f"{db}{end}").resolve()) for end in ("", "-wal", "-shm", "-journal")] if db else []
    hide += [f for a in agents for f in agent_files(a)]
    policy = Sandbox(BotLimits.parse(bot_limits), bot_network, tuple(bot_binds), tuple(hide), not no_sandbox)
    if not all(is_builtin(a) for a in agents):
        require(policy)
        for agent in agents if policy.enabled else ():
            why = None if is_builtin(agent) else unreadable(command_argv(agent))
            if why:
                raise AgentSpecError(agent, why)
        click.echo(("locm: warning: " if no_sandbox else "locm: ") + policy.describe(), err=True)
    return policy


DB_OPTION = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"),
                         show_default=True, help="The event store (an SQLite file).")


GAME_NAMES = ["locm", "mcg", "my-card-game", "skyport"]
GAME = click.option("--game", "game_name", type=click.Choice(GAME_NAMES), default="locm", show_default=True,
                    help="The game (engine.registry): locm, mcg (alias my-card-game: my-card-game) or skyport.")


@cli.command()
@GAME
@RULESET
@click.option("--seed", type=int, required=True, help="The game's seed (R-SEEDS).")
@click.option("--p0", default="greedy", show_default=True, help="Agent in seat 0: " + AGENT_HELP)
@click.option("--p1", default="random", show_default=True, help="Agent in seat 1, as --p0.")
@click.option("--agents", metavar="A,B,...", help="Another game's built-in agents, one per seat (Skyport: 2 to 8), "
                                                   "instead of --p0/--p1.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write the event log here (JSON lines); - for standard output (the summary then goes to "
                   "standard error).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="Also store the game in this event store (created if missing); its id is printed.")
@TIMEOUTS
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A referee parameter, e.g. shufflePlayer0Seed=5 (repeatable).")
@sandbox_options
def play(game_name, ruleset, seed, p0, p1, agents, log_path, db, timeouts, params, no_sandbox, bot_limits,
         bot_network, bot_binds):
    """Play one game and print the winner and a short summary.

    The same seed and the same built-in agents give a byte-identical event log. With --db the game is stored
    under its id, which names its content (ruleset, seed, agents and the versions of bots' files,
    parameters); a game already stored is played and shown again, and nothing new is stored. A bot whose
    files changed since it played this game is said so (its game is a new one).

    \b
    Example:
      locm play --ruleset constructed --seed 42 --p0 greedy --p1 random --log g.jsonl
      locm play --seed 7 --p0 "python3 examples/bot.py" --p1 greedy --db games.db --timeouts x2
      locm play --game mcg --ruleset standard --seed 7 --p0 greedy --p1 random --log m.jsonl
      locm play --game skyport --ruleset 2013 --seed 3 --agents hunter,random,random --db games.db
    """
    if game_name != "locm":
        return _play_other(game_name, ruleset, seed, agents.split(",") if agents else [p0, p1], log_path, db,
                           timeouts, (no_sandbox, bot_limits, bot_network, bot_binds))
    if agents:
        raise click.UsageError("--agents is for another game's players: LOCM's are --p0 and --p1")
    from locm.engine.locm.game import Game
    from locm.events.locm.catalog import HardError
    from locm.events.locm.codec import to_jsonl
    from locm.runner.bots import TimeLimits, check_agent
    from locm.runner.play import summarize
    from locm.store.eventstore import DuplicateGameError, open_store, prepare_game
    from locm.games.locm.tournament import other_versions, run_game

    ruleset = _check_ruleset(ruleset)
    agents = (check_agent(p0), check_agent(p1))
    limits = TimeLimits.parse(timeouts)
    params = _parse_params(params)
    Game.new(ruleset, seed, params)  # a bad seed or parameter is refused before a store is created
    sandbox = _sandbox(agents, no_sandbox, bot_limits, bot_network, bot_binds, db)
    to_stdout = log_path is not None and str(log_path) == "-"
    if log_path and not to_stdout:
        _check_output(log_path)  # before playing, not after
    store = open_store(db) if db else None
    stored = same = None
    earlier = []
    try:
        with _sigterm_as_interrupt():
            played = run_game(ruleset, seed, agents, params, limits, sandbox=sandbox)
            if store is not None:
                gid = played.game_id
                earlier = other_versions(store, played.game.created, gid)
                prepared = prepare_game(played.extras, played.game.log)
                try:
                    store.append_prepared(prepared)
                    stored = True
                except DuplicateGameError:
                    stored = False
                    same = store.game(gid).head_hash == prepared.record.head_hash
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
    for record, bots in earlier[:3]:
        say(f"bot {', '.join(repr(b) for b in bots)} changed since this game was played as {record.game_id} "
            f"(its files differ): this is a new game, under its own id")
    if stored:
        say(f"stored: {played.game_id} in {db}")
    elif stored is False:
        say(f"already stored: {played.game_id} in {db}: stored nothing new"
            + ("" if same else " (this play's log differs from the stored one: a bot answered or timed out "
                               "differently)"))
    if log_path:
        _write_bytes(log_path, to_jsonl(game.log))  # after the summary: a full disk still shows the game
        if not to_stdout:
            say(f"log: {log_path}")


def _game_rules(game, spec: str):
    """Another game's rules from --ruleset (`locm.cli.variants.game_rules`), a bad one as a usage error."""
    from locm.cli.variants import RulesetChoiceError, game_rules

    try:
        return game_rules(game, spec)
    except RulesetChoiceError as exc:
        raise click.UsageError(str(exc)) from None


def _play_other(name, ruleset, seed, agents, log_path, db, timeouts, sandbox_args):
    """`locm play` of a registered game other than LOCM, through the core: its built-in agents or, for a game
    whose bots speak one line each way (my-card-game), command-line bots in the sandbox; its log and its
    stored row (`EventStore.append_match`)."""
    from locm.runner.bots import TimeLimits, command_argv
    from locm.engine import core, registry
    from locm.tournament.matchplay import play_seated
    from locm.store.eventstore import DuplicateGameError, GameExtras, open_store

    game = registry.get(name)
    rules = _game_rules(game, ruleset)
    bots = [a for a in agents if a not in game.agent_names]
    for spec in bots:
        command_argv(spec)  # a command that cannot run: one line, before anything is played
    core.check_seats(game, [a if a in game.agent_names else game.agent_names[0] for a in agents])
    limits = TimeLimits.parse(timeouts)
    sandbox = _sandbox(bots, *sandbox_args, db) if bots else None
    to_stdout = log_path is not None and str(log_path) == "-"
    if log_path and not to_stdout:
        _check_output(log_path)
    with _sigterm_as_interrupt():
        if name == "skyport" and bots:  # its bots speak the server's protocol: locm serve's (locm/games/skyport/netbots.py)
            from locm.games.skyport.netbots import play_skyport_seated

            match, seats = play_skyport_seated(rules, seed, agents, sandbox)
        else:
            match, seats = play_seated(game, rules, seed, agents, limits, sandbox)
    say = functools.partial(click.echo, err=to_stdout)
    out = game.outcome(match.log)
    gid = game.game_id(match.log[0])
    places = out.places(len(agents))
    say(f"{game.title} {game.rules_name(rules)}, seed {seed}: "
        + (f"P{out.winner} ({agents[out.winner]}) wins" if out.winner >= 0 else "no winner")
        + f" ({out.reason}) after {out.turns} turns, {len(match.log)} events")
    for seat, agent in enumerate(agents):
        score = f", score {out.scores[seat]:g}" if out.scores is not None else ""
        failed = seats[seat].error or seats[seat].timeout
        say(f"  P{seat} {agent}: place {places[seat] + 1}{score}"
            + (f" (lost by {'a timeout' if seats[seat].timeout else 'an error'})" if failed else ""))
        if failed and seats[seat].stderr.strip():
            for line in seats[seat].stderr.rstrip().splitlines()[-STDERR_TAIL_LINES:]:
                say(f"  | {line}")
    if db:
        with open_store(db) as store:
            try:
                store.append_match(game, GameExtras(game_id=gid), match.log, seats)
                say(f"stored: {gid} in {db}")
            except DuplicateGameError:
                say(f"already stored: {gid} in {db}: stored nothing new")
    if log_path:
        _write_bytes(log_path, game.codec.to_jsonl(match.log))
        if not to_stdout:
            say(f"log: {log_path}")


STDERR_TAIL_LINES = 10
"""Lines of a failed bot's stderr that `locm play` shows (its traceback, usually)."""


from locm.runner.processes import sigterm_as_interrupt as _sigterm_as_interrupt  # noqa: E402


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
    """Write ``data`` to what ``path`` names (`locm.common.outputs.write_output`: a file whole or not at all, a device
    or FIFO as it is, a symlink's target, ``-`` standard output)."""
    from locm.common.outputs import write_output

    write_output(path, data)


def _check_output(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done for it
    (`locm.common.outputs.check_output`)."""
    from locm.common.outputs import check_output

    check_output(path)


# --- conformance ------------------------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="Print mismatches and the summary only.")
@click.option("--game", type=click.Choice(["locm", "skyport"]), default="locm", show_default=True,
              help="The game the logs are of (skyport: logs of the official 2013 Skyport server).")
def conformance(files, quiet, game):
    """Replay official referee logs and check every input byte for byte, and the winner.

    FILES are logs in the official format (one game per line; .gz allowed). A line that is not a game log is
    reported with its line number and the other games are still checked. Exit status 0 only when every game
    is identical. With --game skyport, FILES are oracle logs of the 2013 Skyport server (one game per file):
    every gamestate, re-broadcast and error it sent each client is checked, and the first difference is
    reported with its turn, player and field.

    \b
    Example:
      locm conformance tests/data/official-1.2-games-00-49.txt.gz
      locm conformance --game skyport tests/data/skyport/*.jsonl.gz
    """
    if game == "skyport":
        from locm.replay.skyport.conformance import conformance_report

        sys.exit(conformance_report(files, quiet, click.echo))
    from locm.replay.locm.conformance import check_game, check_generated_cards, read_log_file

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

    fast, why_not = compiled_beside() if which == "best" else (None, "")
    if why_not:
        click.echo(f"bench: {why_not}: this pure core plays instead ('make fast' builds the compiled one again)",
                   err=True)
    if fast is not None:
        sys.stdout.flush()
        os.execv(fast, [fast, "bench", "--core", "this", "--ruleset", ruleset, "--games", str(games),
                        "--seed", str(seed), *(["--json"] if as_json else [])])
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
    click.echo(r["core"])


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

    from locm.common.tables import card_table
    from locm.engine.locm.setup import create
    from locm.events.locm.catalog import CardPoolDefined
    from locm.engine.locm.carddata import cardlist_12

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
    if game_name != "locm":
        import json as json_mod

        from locm.engine import registry
        from locm.common.tables import table

        game = registry.get(game_name)
        a, b = _game_rules(game, left), _game_rules(game, right)
        found = game.rules_diff(a, b)
        import msgspec

        shown = lambda v: v if isinstance(v, str) else json_mod.dumps(msgspec.to_builtins(v))  # noqa: E731
        if as_json:
            click.echo(json_mod.dumps([{"field": f, "rule": r, "left": shown(x), "right": shown(y)}
                                       for f, r, x, y in found], indent=1))
        else:
            click.echo(table(("field", "rule", game.rules_name(a), game.rules_name(b)),
                             [(f, r, shown(x)[:60], shown(y)[:60]) for f, r, x, y in found]))
            click.echo(f"{len(found)} rule{'s' * (len(found) != 1)} differ")
        return
    from locm.cli.variants import rules_diff_command

    rules_diff_command(left, right, as_json, click.echo)


# --- tournaments and the event store ----------------------------------------------------------------------


@cli.command()
@GAME
@RULESET
@click.option("--seats", type=click.IntRange(min=2), help="Players in each game of another game (Skyport: 2 to 8; "
              "default: the game's fewest): every combination of that many agents plays, in every seat.")
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
@click.option("--think-ms", type=click.IntRange(0, 600_000), default=3000, show_default=True,
              help="Skyport: a client's think time per turn (fast timing: its turn ends once it sent its "
                   "actions or endturn).")
@click.option("--join-timeout", type=click.FloatRange(1, 86_400), default=60, show_default=True,
              help="Skyport: seconds a client has to connect, shake hands and choose its loadout; one that "
                   "has not (or has ended before) forfeits its seat and plays as a client that left.")
@click.option("--sprt", metavar="TEST",
              help="Two agents: stop as soon as a sequential test over mirrored seed pairs is conclusive "
                   "(--games is then the cap), e.g. 'elo0=0,elo1=5,alpha=0.05,beta=0.05' (these are the "
                   "defaults of the items left out): H0 the first agent is elo0 logistic Elo stronger, H1 elo1.")
@backend_options
@sandbox_options
def tournament(game_name, ruleset, seats, first, more, games, db, workers, seed, timeouts, busy_timeout,
               allow_changed_bots, think_ms, join_timeout, sprt, backend, address, no_sandbox, bot_limits,
               bot_network, bot_binds):
    """Round robin: every pair of agents plays N games on mirrored seeds; results go to an event store.

    Each pair plays seeds S .. S+N/2-1, each seed once in each seating; an odd N is refused. An agent
    given twice also plays itself: seeds S .. S+N-1, each once (with the same agent in both seats, the
    swapped seating is the same game), its results in two rows, one per seat. Games are
    stored one by one under deterministic ids, so a tournament that was interrupted or killed is finished
    by running the same command again: stored games are skipped, none is stored twice. At the end: a table
    per agent (games, wins, win rate with its 95% Wilson interval, hard errors, timeouts, average think time
    per turn), ratings with 95% intervals (openskill, Plackett-Luce) and the head-to-head results.

    With --sprt and two agents, seeds are played pair by pair (both seatings) until a sequential probability
    ratio test over the pairs' pentanomial counts accepts H0 or H1, or --games is reached; the verdict is
    the one at the first conclusive pair in seed order, whatever the workers (games already in hand are
    stored too).

    \b
    Example:
      locm tournament --ruleset 1.2 --agents greedy random pass --games 100 --db t.db --workers 2
      locm tournament --agents lookahead greedy --games 2000 --db s.db --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05
      locm tournament --agents greedy random --games 100000 --db big.db --backend ray --address auto
      locm tournament --agents greedy "python3 examples/bot.py" --games 20 --db t.db --timeouts x2
      locm tournament --ruleset constructed --agents greedy greedy --games 200 --db self.db
      locm tournament --game mcg --ruleset standard --agents greedy random --games 20 --db m.db
      locm tournament --game skyport --ruleset 2013 --seats 3 --agents hunter random hunter --games 6 --db s.db
      locm tournament --game skyport --seats 2 --agents hunter "node examples/skyport/client.js {host} {port}" \\
          "python3 examples/skyport/client.py {host} {port}" --games 4 --db s.db
    """
    if game_name != "locm":
        if sprt is not None:
            raise click.UsageError(f"--sprt plays LOCM's mirrored seed pairs only for now, not {game_name}")
        join(backend, address)
        return _tournament_other(game_name, ruleset, seats, [*first, *more], games, db, workers, seed, busy_timeout,
                                 timeouts, (no_sandbox, bot_limits, bot_network, bot_binds), backend, address,
                                 (think_ms, join_timeout))
    from locm.runner.bots import TimeLimits, check_agent
    from locm.store.eventstore import open_store
    from locm.common.tables import table
    from locm.errors import TournamentError
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.tournament.sequential import ratings, schedule_order, sprt_text
    from locm.games.locm.tournament import changed_bots, schedule
    from locm.tournament.run import count_stored, play_jobs, record_schedule, to_play
    from locm.tournament.standings import (PAIR_HEADERS, STANDINGS_HEADERS, pair_rows, sandbox_lines, standings,
                                           standings_rows)

    ruleset = _check_ruleset(ruleset)
    agents = [check_agent(a) for a in (*first, *more)]
    limits = TimeLimits.parse(timeouts)
    jobs = schedule(ruleset, agents, games, seed)
    if backend == "ray" and sprt is not None:
        raise click.UsageError("--sprt runs on local workers only (a sequential test plays pair by pair)")
    test = None
    if sprt is not None:
        from locm.analysis.sprt import Sprt
        from locm.tournament.sequential import check_pairs
        test = Sprt.parse(sprt)
        check_pairs(jobs)
    sandbox = _sandbox(agents, no_sandbox, bot_limits, bot_network, bot_binds, db)
    join(backend, address)  # before the store is touched: no Ray, or no cluster there, is one line
    store = open_store(db, busy_timeout=busy_timeout)
    try:
        with _sigterm_as_interrupt():
            for bot, n in [] if allow_changed_bots else changed_bots(store, agents)[:1]:
                raise TournamentError(f"bot {bot!r} changed since {_n(n, 'stored game')} with it (its files "
                                      "differ): pass --allow-changed-bots to mix its versions, or use a new --db")
            record_schedule(store, jobs)  # the store knows what it should hold: locm verify checks it
            pending, todo = to_play(store, jobs)
            used = min(workers, max(todo, 1))
            click.echo(f"{_n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, "
                       f"{'at most ' if test else ''}{todo} to play "
                       + ("on Ray" if backend == "ray" else f"with {_n(used, 'worker')}"), err=True)
            bar = click.progressbar(length=todo, label="playing", file=sys.stderr, show_eta=True, show_pos=True)
            options = dict(workers=workers, limits=limits, progress=bar.update, scheduled=len(jobs), count=todo,
                           sandbox=sandbox, on_incident=lambda line: click.echo(f"\nlocm: warning: {line}", err=True))
            with bar if todo else contextlib.nullcontext(bar):  # nothing to play: no empty 0/0 bar
                if backend == "ray":
                    from locm.tournament.ray_backend import play_jobs_ray
                    options.pop("workers"), options.pop("on_incident")
                    run, verdict = play_jobs_ray(store, pending, address=address, **options), None
                elif test is None:
                    run, verdict = play_jobs(store, pending, **options), None
                else:
                    from locm.tournament.sequential import play_sequential
                    run, state = play_sequential(store, jobs, test, **options)
                    verdict = state.summary()
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
    for line in sandbox_lines(records):
        click.echo(line)
    click.echo("")
    click.echo(table(RATING_HEADERS, rating_rows(ratings(sorted(records, key=schedule_order(jobs)), agents))))
    click.echo("")
    click.echo(table(PAIR_HEADERS, pair_rows(records, agents)))
    if verdict is not None:
        click.echo("")
        click.echo(sprt_text(verdict, agents))
    for gid, message in run.failed:
        click.echo(f"locm: error: game {gid} failed: {message}", err=True)
    if run.failed:
        sys.exit(1)


def _tournament_other(name, ruleset, seats, agents, games, db, workers, seed, busy_timeout, timeouts,
                      sandbox_args, backend="local", address=None, serve=(3000, 60.0)):
    """`locm tournament` of a registered game other than LOCM (`locm.tournament.matchplay`): built-in agents and command-
    line bots in the sandbox (my-card-game's, one line each way; Skyport's clients through its server, with
    ``serve``'s think time and join time), 2 to N seats, standings by places."""
    from locm.runner.bots import TimeLimits
    from locm.engine import registry
    from locm.analysis.ratings import RATING_HEADERS, rating_rows
    from locm.tournament.matchplay import run_matches
    from locm.tournament.schedule import seats_schedule
    from locm.tournament.standings import MATCH_HEADERS, match_rows, match_standings
    from locm.tournament.sequential import match_ratings
    from locm.store.eventstore import open_store
    from locm.common.tables import table

    game = registry.get(name)
    ruleset = _game_rules(game, ruleset)
    jobs = seats_schedule(name, ruleset, agents, games, seed, seats)
    bots = [a for a in dict.fromkeys(agents) if a not in game.agent_names]
    sandbox = _sandbox(bots, *sandbox_args, db) if bots else None
    limits = TimeLimits.parse(timeouts)
    if game.bots == "served":
        from locm.games.skyport.netbots import ServeLimits, sandbox_for

        limits = ServeLimits(*serve)
        if sandbox is not None:
            sandbox_for(agents, sandbox)  # socat missing, a client's files unreadable: one line, before any game
    with open_store(db, busy_timeout=busy_timeout) as store:
        with _sigterm_as_interrupt():
            todo = sum(1 for j in jobs if not store.has_game(j.game_id))
            click.echo(f"{_n(len(jobs), 'game')} scheduled, {len(jobs) - todo} already stored, {todo} to play",
                       err=True)
            bar = click.progressbar(length=todo, label="playing", file=sys.stderr, show_eta=True, show_pos=True)
            try:
                with bar if todo else contextlib.nullcontext(bar):
                    run = run_matches(store, jobs, workers, bar.update, limits, sandbox,
                                      on_incident=lambda line: click.echo(f"\nlocm: warning: {line}", err=True),
                                      backend=backend, address=address)
            except KeyboardInterrupt:
                click.echo(f"\nlocm: interrupted: run the same command again to play the rest", err=True)
                sys.exit(130)
        ids = set(run.ids)
        records = [m for m in store.matches(game=game.name) if m.game_id in ids]
    click.echo(f"{_n(run.played, 'game')} played, {run.already} stored before: {len(records)} of "
               f"{_n(len(jobs), game.title + ' game')} in {db}")
    click.echo(table(MATCH_HEADERS, match_rows(match_standings(records, agents))))
    click.echo("")
    click.echo(table(RATING_HEADERS, rating_rows(match_ratings(records, agents))))
    for gid, why in run.failed:
        click.echo(f"locm: error: game {gid} failed (not stored; the same command again retries it): {why}",
                   err=True)
    if run.failed:
        sys.exit(1)


@cli.group()
def sandbox():
    """The sandbox external bots run in (bubblewrap): see the README's threat model.

    \b
    Example:
      locm sandbox check
    """


@sandbox.command("check")
@click.option("--bot-limits", metavar="SPEC", help="Check these limits instead of the defaults (as for "
                                                    "tournament, e.g. 'mem=1g,procs=64').")
@click.option("--bot-network", is_flag=True, help="Check the policy that gives bots the network.")
def sandbox_check(bot_limits, bot_network):
    """Say what the sandbox enforces on this machine: each namespace, the uid, what a bot can see and write,
    the keyrings and each resource limit, tried live by a probe in a real sandbox (about 10 seconds); then all
    of it again in a sandbox kept across games, as a tournament's workers run bots (run by a user: where a
    game can have a user namespace of its own), and that nothing of a game reaches the next there. Exit
    status 0 if everything holds, 1 if something does not, 2 if there is no sandbox here (with the fix).

    \b
    Example:
      locm sandbox check
      locm sandbox check --bot-limits mem=1g,procs=64
    """
    from locm.runner.sandbox.bwrap import BotLimits, Sandbox, require
    from locm.runner.sandbox.check import header, run_checks

    policy = Sandbox(BotLimits.parse(bot_limits), bot_network)
    require(policy)  # no sandbox here: one line saying why and the fix, before anything is printed
    click.echo(header())
    mark = {True: "ok", False: "FAIL", None: "--"}
    checks = run_checks(policy, progress=lambda c: click.echo(f"  {mark[c.ok]:<5} {c.name:<21} {c.detail}"))
    failed = [c.name for c in checks if c.ok is False]
    tried = [c for c in checks if c.ok is not None]
    click.echo(f"{len(tried) - len(failed)} of {len(tried)} checks hold" + (f"; failed: {', '.join(failed)}"
                                                                         if failed else ""))
    if failed:
        sys.exit(1)


@cli.command()
@DB_OPTION
@GAME
@click.option("--ruleset", "-r", help="Only games of this ruleset (a name, an alias or a variant file).")
@click.option("--agent", help="Only games with this agent in any seat (exactly as stored).")
@click.option("--winner", type=int, metavar="SEAT",
              help="Only games won by this seat, 0 for the first (LOCM and my-card-game: 0 or 1; Skyport: 0 to 7); "
                   "-1: games without a winner (a draw, or a tie for first on points).")
@click.option("--winner-agent", metavar="AGENT", help="Only games won by this agent, in any seat.")
@click.option("--seats", type=int, metavar="N", help="Only games of N players (Skyport: 2 to 8).")
@click.option("--place", type=int, metavar="K",
              help="With --agent: only games where that agent finished K-th (1: first, alone or shared).")
@click.option("--field", "fields", multiple=True, metavar="NAME=VALUE",
              help="Another game's: only games whose index field NAME is VALUE, e.g. --field map=octagon-8p "
                   "(Skyport); repeatable.")
@click.option("--limit", type=click.IntRange(min=0), help="At most this many games.")
@click.option("--stderr", "stderr_of", metavar="GAME_ID",
              help="Instead of the table, print what the bots of this stored game wrote on stderr.")
def games(db, game_name, ruleset, agent, winner, winner_agent, seats, place, fields, limit, stderr_of):
    """List the stored games as a table, in the order they were stored. ``turns`` are the battle turns
    begun, both players counted (as `locm play` says them).

    Another game's table has a row per game with every seat's agent, place (1 first; a tie shares it) and, in
    a game of points, score, in seat order; the winner is its seat and agent ("-": none). With --agent, that
    agent's seat, place and score are columns of their own.

    \b
    Example:
      locm games --db t.db --ruleset 1.2 --agent greedy --winner 0 --limit 20
      locm games --db t.db --winner-agent "python3 examples/bot.py"
      locm games --db t.db --stderr 1.2-7-0123456789ab
      locm games --db t.db --game skyport --agent hunter
      locm games --db t.db --game skyport --seats 4 --agent hunter --place 1
      locm games --db t.db --game skyport --winner 5 --field map=octagon-8p
    """
    from locm.engine import registry
    from locm.store.eventstore import open_store
    from locm.tournament.run import stored_stderr

    _check_seat_filters(registry.get(game_name), winner, seats, place, agent)
    wanted = {}
    for item in fields:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise click.UsageError(f"--field {item!r}: expected NAME=VALUE, e.g. map=octagon-8p")
        wanted[name] = value
    if stderr_of is not None:  # a game of any game
        with open_store(db, create=False, readonly=True) as store:
            for seat, agent_name, text, failed in stored_stderr(store, stderr_of):
                click.echo(f"== player {seat} ({agent_name}){' (lost by an error)' if failed else ''}: "
                           + ("stderr:" if text else "nothing on stderr"))
                if text:
                    click.echo(text.rstrip("\n"))
        return
    if game_name != "locm":
        return _games_other(db, game_name, ruleset, agent, winner, limit, winner_agent, seats, place, wanted)
    if wanted:
        raise click.UsageError("--field filters another game's index fields: LOCM's have columns and options")
    from locm.runner.play import turns_played
    from locm.common.tables import table
    from locm.cli.variants import ruleset_name, rules_identities

    with open_store(db, create=False, readonly=True) as store:
        ruleset = ruleset_name(ruleset, store) if ruleset else None
        if place is None:
            records = store.games(ruleset=ruleset, agent=agent, winner=winner, limit=limit, winner_agent=winner_agent)
        else:  # an agent's place: read from the rows every game has (its places), then as LOCM's records
            from locm.store.eventstore import locm_record

            records = [locm_record(m) for m in store.matches(
                game="locm", ruleset=ruleset, agent=agent, winner=winner, limit=limit, winner_agent=winner_agent,
                place=place - 1)]
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


def _check_seat_filters(game, winner, seats, place, agent) -> None:
    """`locm games`' seat filters against the game's number of seats (one line each: `click.UsageError`)."""
    lo, hi = game.seats
    counts = f"{lo} to {hi}" if lo != hi else str(lo)
    if winner is not None and not -1 <= winner < hi:
        raise click.UsageError(f"--winner {winner}: {game.title} has {counts} seats: expected a seat 0..{hi - 1}, "
                               "or -1 for games without a winner")
    if seats is not None and not lo <= seats <= hi:
        raise click.UsageError(f"--seats {seats}: {game.title} is played by {counts} players")
    if place is not None and agent is None:
        raise click.UsageError("--place K needs --agent: the place is that agent's")
    if place is not None and not 1 <= place <= hi:
        raise click.UsageError(f"--place {place}: {game.title} has {counts} seats: expected a place 1..{hi}")


def _games_other(db, name, ruleset, agent, winner, limit, winner_agent=None, seats=None, place=None, fields=None):
    """`locm games` of another registered game: its rows (`EventStore.matches`), any number of seats: each
    seat's agent, place and score in seat order, the game's listed index fields (`GameDef.listed`), and with
    ``agent`` that agent's own columns."""
    from locm.engine import registry
    from locm.store.eventstore import open_store
    from locm.common.tables import table

    game = registry.get(name)
    with open_store(db, create=False, readonly=True) as store:
        if fields:
            known = {k for m in store.matches(game=game.name, limit=1) for k in m.fields}
            unknown = sorted(set(fields) - known)
            if known and unknown:
                raise click.UsageError(f"--field {unknown[0]}: {game.title}'s stored games have the index fields "
                                       f"{', '.join(sorted(known))}")
        rows = store.matches(game=game.name, ruleset=ruleset, agent=agent, winner=winner, limit=limit,
                             seats=seats, winner_agent=winner_agent, place=None if place is None else place - 1,
                             fields=fields)
    points = any(m.scores is not None for m in rows)
    mine = ("seat", "place") + (("score",) if points else ()) if agent is not None else ()
    headers = ("game id", "ruleset", *game.listed, "seed", "seats", *mine, "winner",
               "agents (place" + (", score" if points else "") + ") by seat", "reason", "turns", "events", "created")
    click.echo(table(headers, [(m.game_id, m.ruleset, *(m.fields.get(f, "") for f in game.listed), m.seed,
                                len(m.agents), *_agent_columns(m, agent, points),
                                "-" if m.winner < 0 else f"{m.winner} {m.agents[m.winner]}", _seat_results(m),
                                m.reason, m.turns, m.n_events, m.created[:19] + "Z") for m in rows]))
    click.echo(_n(len(rows), f"{game.title} game"))


def _seat_results(m) -> str:
    """Every seat's agent, place (1 first, ``=`` where shared) and score: ``hunter 1 (814) | random 3 (-150)``."""
    shared = {p for p in m.places if m.places.count(p) > 1}
    parts = []
    for seat, (a, p) in enumerate(zip(m.agents, m.places)):
        text = f"{a} {p + 1}{'=' if p in shared else ''}"
        if m.scores is not None:
            text += f" ({m.scores[seat]:g})"
        parts.append(text)
    return " | ".join(parts)


def _agent_columns(m, agent, points: bool) -> tuple:
    """The seat(s), place(s) and score(s) of ``agent`` in a game (nothing without an agent)."""
    if agent is None:
        return ()
    seats = [s for s, a in enumerate(m.agents) if a == agent]
    cols = (",".join(map(str, seats)), ",".join(str(m.places[s] + 1) for s in seats))
    if points:
        cols += ("-" if m.scores is None else ",".join(f"{m.scores[s]:g}" for s in seats),)
    return cols


@cli.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, allow_dash=True))
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event store to check (default locm.db when no FILE is given).")
@click.option("--redecide/--no-redecide", default=True, show_default=True,
              help="Also rebuild each game from its game_created, feed every recorded input through the rules "
                   "again and compare the events byte for byte (--no-redecide: the chain and the fold only).")
@click.option("--full", is_flag=True,
              help="Run SQLite's full integrity_check on the store (every index against its table) instead of "
                   "the quick_check.")
def verify(files, db, redecide, full):
    """Check games and everything a store holds; exit status 1 if anything is wrong.

    A store: SQLite's integrity check (quick by default, full with --full), its ledger (every game ever
    stored is still there, in order: a deleted row is named), its tournaments' schedules (every scheduled game
    is there, and every game that says it is scheduled is the game of its place), and every game: its hash
    chain, its id (what
    its game_created gives), the fold of its events ends the game with the recorded winner, and (by default)
    re-deciding its recorded inputs gives exactly its events, so a log edited and re-chained is caught at the
    first event the rules would not produce. FILES: event logs (locm play --log, of any registered game: its
    game is told by its first line), my-card-game account logs (re-decided, every card traced to a pack or a
    craft), official referee logs (each game replayed as 'locm conformance' does) and store exports, checked
    the same way; - is standard input. A store's games of other games are checked by the core (chain, record,
    re-decided log). Prints a line per bad game and a summary.

    \b
    Example:
      locm verify --db t.db
      locm verify --db t.db --full --no-redecide    # the whole file, then chains, ids and folds only
      locm verify game.jsonl official.txt.gz games.jsonl
    """
    from locm.verify.checks import check_file, match_problem, store_checks, stored_problem
    from locm.store.eventstore import open_store

    bad = total = accounts = bad_accounts = 0

    def report(label: str, verdict) -> None:
        nonlocal bad, total
        total += 1
        if not verdict.ok:
            bad += 1
            click.echo(f"{label}: {verdict.problem.removeprefix(f'game {label!r}: ')}")
        elif verdict.note:
            click.echo(f"{label}: good; note: {verdict.note}")

    for path in files:
        for checked in check_file(str(path), redecide):
            report(checked.label, checked.verdict)
    store_bad = False
    if db is not None or not files:
        with open_store(db or Path("locm.db"), create=False, readonly=True) as store:
            found = store_checks(store, full)
            for line in found.problems:
                click.echo(f"store: {line}")
            for line in found.notes:
                click.echo(f"store: note: {line}")
            # The bar goes to stderr and only to a terminal: the report lines on stdout stay as they are.
            with click.progressbar(found.records, label="verifying", file=sys.stderr, show_pos=True,
                                   show_eta=True) as bar:
                for record in bar:
                    report(record.game_id, stored_problem(store, record, redecide))
            for m in store.matches():  # the other registered games' (the core's checks)
                if m.game != "locm":
                    report(m.game_id, match_problem(store, m, redecide))
            from locm.games.mcg.accounts import AccountStoreError, account_events, account_names, account_problem

            for name in account_names(store):  # my-card-game accounts: the chain, then re-decided and traced
                try:
                    problem, _ = account_problem(account_events(store, name))
                except AccountStoreError as exc:
                    problem = str(exc)
                accounts += 1
                if problem:
                    bad_accounts += 1
                    click.echo(f"account {name}: {problem}")
            store_bad = not found.ok
            if found.ok:
                click.echo(f"store: {found.summary()}")
    click.echo(f"{_n(total, 'game')} checked: {total - bad} good, {bad} bad")
    if accounts:
        click.echo(f"{_n(accounts, 'stored account')} checked: {accounts - bad_accounts} good, {bad_accounts} bad")
    sys.exit(1 if bad or store_bad or bad_accounts else 0)


@cli.command("export")
@click.argument("game_ids", nargs=-1, metavar="[GAME_ID]...")
@click.option("--all", "all_games", is_flag=True, help="Export every stored game.")
@DB_OPTION
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              help="Write here instead of standard output (only once complete); - is standard output.")
@click.option("--salvage", is_flag=True,
              help="From a damaged store: write every game that still reads and verifies through any view of "
                   "its files (as it is; its -wal's valid frames; its main file alone), name the others on "
                   "stderr (exit status 1 if any).")
def export_cmd(game_ids, all_games, db, output, salvage):
    """Write games as JSON lines: a header, each game's record and its events with their hashes, totals.

    With --all: the games of every registered game (LOCM, my-card-game, Skyport), the store's tournament
    schedules and its my-card-game accounts (each account's log with its hashes). `locm import` reads the file
    back exactly (export, import, export gives the same bytes).

    \b
    Example:
      locm export --all --db t.db > games.jsonl
      locm export 1.2-7-0123456789ab --db t.db -o one.jsonl
      locm export --all --salvage --db damaged.db -o rescued.jsonl
    """
    from locm.common.outputs import output_file
    from locm.store.eventstore import open_store

    if bool(game_ids) == all_games:
        raise click.UsageError("give GAME_ID arguments or --all (one of the two)")
    bad, extra = [], []
    ids = None if all_games else list(dict.fromkeys(game_ids))

    def on_bad(gid, exc):
        bad.append(gid)
        click.echo(f"locm: left out game {gid}: {str(exc).removeprefix(f'game {gid!r}: ')}", err=True)

    def on_view(what, n):
        click.echo(f"locm: salvage: {what}: " + ("does not open" if n < 0 else f"{_n(n, 'game')} read"), err=True)

    if salvage:
        from locm.store.salvage import salvage_jsonl

        if not db.exists():
            open_store(db, create=False, readonly=True)  # the one-line "no store here"
        with output_file(output or "-") as out:
            n = salvage_jsonl(db, ids, out, on_bad=on_bad, on_view=on_view)
    else:
        with open_store(db, create=False, readonly=True) as store:
            for gid in ids or ():
                store.game(gid)  # an unknown id is refused before anything is written
            with output_file(output or "-") as out:
                n = store.export_jsonl(ids, out)
            if ids is None:  # --all: the store's tournament schedules and my-card-game accounts too
                from locm.games.mcg.accounts import account_names

                extra = [(len(store.schedules()), "tournament schedule"), (len(account_names(store)), "account")]
    if output is not None and str(output) != "-":
        click.echo(f"{_n(n, 'game')}" + "".join(f", {_n(k, what)}" for k, what in extra if k)
                   + f" written to {output}", err=True)
    if bad:
        click.echo(f"locm: {_n(len(bad), 'damaged game')} left out, {_n(n, 'game')} saved", err=True)
        sys.exit(1)


@cli.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@DB_OPTION
@click.option("--skip-existing", is_flag=True, help="Skip games already stored identically instead of refusing.")
def import_cmd(file, db, skip_existing):
    """Store the games of an export file, all or none: a malformed, truncated or tampered file is refused
    with the number of its first wrong line, and nothing is written. Each game is checked as 'locm verify'
    checks a stored game: its id is what its game_created gives, and re-deciding its recorded inputs gives
    exactly its events, so a forged game whose hash chain was recomputed is refused naming the game, the seq
    and the first event the rules would not produce. The file's tournament schedules are kept (each key what
    its manifest gives) and its my-card-game accounts too: each account's log re-decided as 'locm verify'
    checks one (a forged one is refused naming the account and the seq), and an account already stored must
    have its log extended, never rewritten. FILE may be - for standard input.

    FILE may also be an event log (`locm play --log`): its game is checked (re-deciding its inputs gives
    exactly its events) and stored under the id `locm play --db` would have given it.

    \b
    Example:
      locm import games.jsonl --db copy.db
      locm import game.jsonl --db t.db        # an event log from locm play --log
      locm import alice.jsonl --db t.db       # a my-card-game account's log (checked; it may only grow)

    FILE may be a my-card-game account's log: it is checked as 'locm verify' checks one and kept as its
    account's one log (stored again, it must extend the stored log: an account's history is never rewritten).
    """
    from locm.errors import ImportFormatError, InputFileError
    from locm.events.locm.codec import MAX_LINE
    from locm.store.eventstore import open_store

    existed = db.exists()
    store = open_store(db)
    ok = False
    try:
        with click.open_file(str(file), "rb") as stream:
            first = stream.readline(MAX_LINE + 1)
            if b'"mcg_account_opened"' in first[:200]:  # a my-card-game account's log: one row per account
                from locm.events.mcg.codec import ACCOUNT_CODEC
                from locm.replay.sources import MAX_FILE
                from locm.games.mcg.accounts import store_account

                from locm.events.codec import DecodeError

                try:
                    events = ACCOUNT_CODEC.from_jsonl(first + stream.read(MAX_FILE))
                except DecodeError as exc:
                    raise InputFileError(str(file), f"not a my-card-game account log: {exc}") from None
                name, changed = store_account(store, events)
                ok = True
                click.echo(f"stored account {name!r} ({_n(len(events), 'event')}) in {db}" if changed else
                           f"account {name!r} already stored with this log, unchanged")
                return
            if _is_event_log_line(first):
                from locm.runner.play import import_event_log
                from locm.replay.sources import MAX_FILE

                data = first + stream.read(MAX_FILE)
                gid, stored = import_event_log(store, data, str(file), skip_existing=skip_existing)
                ok = True
                click.echo(f"imported game {gid} into {db}" if stored else f"game {gid} already stored, skipped")
                return
            size = os.fstat(stream.fileno()).st_size if str(file) != "-" and sys.stderr.isatty() else 0
            bar = click.progressbar(length=size or 1, label="importing", file=sys.stderr)
            with bar if size else contextlib.nullcontext(bar):  # a bar only where someone watches a terminal
                summary = store.import_jsonl(_Counted(first, stream, bar.update if size else None),
                                             skip_existing=skip_existing)
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
               + (f"; {summary.skipped} already stored, skipped" if summary.skipped else "")
               + (f"; {_n(summary.schedules, 'tournament schedule')}" if summary.schedules else "")
               + (f"; {_n(summary.accounts, 'account')} ({_n(summary.account_events, 'event')})"
                  if summary.accounts else ""))


def _is_event_log_line(line: bytes) -> bool:
    """Whether a file's first line is an event log's `game_created` (not an export's header)."""
    import msgspec

    class Kind(msgspec.Struct):
        type: object = None

    try:
        return msgspec.json.decode(line, type=Kind).type == "game_created"
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return False


class _Counted:
    """A binary stream whose first line was read already (`readline` gives it back first), telling ``update``
    how many bytes each line is (a progress bar's), if given. Lines are read with the reader's limit
    (`events.locm.codec.bounded_lines`)."""

    def __init__(self, first: bytes, stream, update) -> None:
        self._first, self._stream, self._update = first, stream, update

    def readline(self, limit: int = -1) -> bytes:
        if self._first:
            line, self._first = self._first, b""
        else:
            line = self._stream.readline(limit)
        if self._update is not None:
            self._update(len(line))
        return line


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

    from locm.cli.demo import run_demo

    if chart == "-":
        raise click.UsageError("--chart: give a file name for the PNG (standard output carries the demo's text)")
    _check_output(Path(chart))  # before playing, not after
    workers = workers_old or workers

    @contextlib.contextmanager
    def progress(length, label):
        with click.progressbar(length=length, label=label, file=sys.stderr, show_eta=True) as bar:
            yield bar

    run_demo(db, games, workers, chart, click.echo, progress)


from locm.cli import replay as replay_cli  # noqa: E402  (show, audit, replay, html, import-referee)

replay_cli.register(cli)

from locm.cli.whatif import rerun, whatif  # noqa: E402  (what-if re-runs: locm/games/locm/rerun.py, locm/games/locm/whatif.py)

cli.add_command(rerun)
cli.add_command(whatif)

from locm.cli.cardvalue import cardvalue  # noqa: E402  (causal card value: locm/games/locm/cardvalue.py)

cli.add_command(cardvalue)

from locm.cli import store as store_cli  # noqa: E402  (migrate, sql: locm/cli/store.py)
from locm.cli.dataset import dataset  # noqa: E402  (behaviour-cloning rows from stored games: locm/rl/dataset.py)

cli.add_command(dataset)

store_cli.register(cli)

from locm.cli import serve as serve_cli  # noqa: E402  (locm serve --game skyport: locm/games/skyport/server.py, netbots.py)

serve_cli.register(cli, sandbox_options)


def main() -> None:
    cli.main()


if __name__ == "__main__":
    main()
