"""What several `locm` commands share: their common options (--ruleset, --timeouts, the sandbox's, --db,
--game), the sandbox the options ask for, and small helpers turning a library's refusal into a usage error."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from locm.common.tables import plural as n  # noqa: F401  (the commands' ``n(2, 'game')``)
from locm.engine import registry
from locm.errors import LocmError, UsageProblem
from locm.runner.sandbox.limits import BotLimits, limits_help

RULESET = click.option("--ruleset", "-r", default="1.2", show_default=True,
                       help="1.2 (draft), constructed (alias 1.5), or a ruleset variant file (TOML, see "
                            "examples/variants/).")



INCLUDE_UNTRUSTED = click.option(
    "--include-untrusted", is_flag=True,
    help="Also count the games this store neither played nor imported from a trusted (signed, --trust) file; "
         "by default a result counts only those, and says how many it left out (locm verify lists them).")


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
                     help=f"Bots' resource limits, NAME=VALUE items changing the defaults {BotLimits().spec()}; "
                          f"'none' lifts one (not tmp); e.g. 'mem=1g,procs=64'. {limits_help()}.")(f)
    f = click.option("--no-sandbox", is_flag=True,
                     help="Run the bots unconfined, as you, with your files and network: only for bots you "
                          "trust (printed on every run and recorded with each game).")(f)
    return f



def make_sandbox(agents, no_sandbox, bot_limits, bot_network, bot_binds, db=None, expected=()):
    """The `Sandbox` the options ask for, hiding the store and every agent's files from the bots; refused
    (one line) when this machine cannot sandbox and --no-sandbox was not given. Says on stderr what the bots
    of this run may do (only when a bot plays). ``expected``: the game's built-in agents, for a bot refused."""
    from locm.runner.bots import agent_files, command_argv, is_builtin
    from locm.errors import AgentSpecError
    from locm.runner.sandbox.bwrap import Sandbox, require
    from locm.runner.sandbox.views import unreadable

    if no_sandbox and (bot_limits or bot_network or bot_binds):
        raise click.UsageError("--bot-limits, --bot-network and --bot-bind confine sandboxed bots: they do not "
                               "go with --no-sandbox")
    hide = [str(Path(f"{db}{end}").resolve()) for end in ("", "-wal", "-shm", "-journal")] if db else []
    hide += [f for a in agents for f in agent_files(a, expected)]
    policy = Sandbox(BotLimits.parse(bot_limits), bot_network, tuple(bot_binds), tuple(hide), not no_sandbox)
    if not all(is_builtin(a, expected) for a in agents):
        require(policy)
        for agent in agents if policy.enabled else ():
            why = None if is_builtin(agent, expected) else unreadable(command_argv(agent, expected))
            if why:
                raise AgentSpecError(agent, why, expected)
        click.echo(("locm: warning: " if no_sandbox else "locm: ") + policy.describe(), err=True)
    return policy


DB_OPTION = click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=Path("locm.db"),
                         show_default=True, help="The event store (an SQLite file).")


class _GameHelp(click.Option):
    """--game, its help naming the registered games (`engine.registry`) when it is shown, not when the CLI is
    built: a command about one game loads no other game's definition."""

    @property
    def help(self) -> str:
        named = []
        for name in registry.GAMES:
            aliases = [a for a, g in registry.ALIASES.items() if g == name]
            named.append(f"{name} (alias {', '.join(aliases)}: {registry.get(name).title})" if aliases else name)
        listed = ", ".join(named[:-1]) + " or " + named[-1] if len(named) > 1 else named[0]
        return f"The game (engine.registry): {listed}."

    @help.setter
    def help(self, value) -> None:  # click sets it when the option is made: the registry's text stands
        pass


class GameName(click.ParamType):
    """A registered game's name or alias (`engine.registry`: the built-in games and those other installed
    packages register through their ``locm.games`` entry points), checked when the command line is read; the
    names are read from the registry when they are shown (``--help``), not when this module is imported."""

    name = "game"

    def get_metavar(self, param, ctx=None):
        return f"[{'|'.join(registry.names())}]"

    def convert(self, value, param, ctx):
        if value in registry.GAMES or value in registry.ALIASES:  # a built-in game: no entry point read
            return value
        if value not in registry.names():  # an outside game's alias is known once its definition loads
            try:
                registry.get(value)
            except LocmError as exc:
                self.fail(str(exc), param, ctx)
        return value


GAME_NAMES = GameName()
"""--game's type: every registered game and alias, those of other installed packages included."""
GAME = click.option("--game", "game_name", type=GAME_NAMES, default=registry.DEFAULT, show_default=True,
                    cls=_GameHelp)


@contextlib.contextmanager
def usage_errors():
    """A library's `UsageProblem` (options that do not go together) as the command's usage error."""
    try:
        yield
    except UsageProblem as exc:
        raise click.UsageError(str(exc)) from None


def check_output(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done for it
    (`locm.common.outputs.check_output`)."""
    from locm.common.outputs import check_output as check

    check(path)


__all__ = ["RULESET", "INCLUDE_UNTRUSTED", "AGENT_HELP", "TIMEOUTS", "DB_OPTION", "GAME", "GAME_NAMES", "GameName", "sandbox_options",
           "make_sandbox", "usage_errors", "n", "check_output"]
