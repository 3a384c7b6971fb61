"""`locm sandbox`: the sandbox external bots run in (`locm.runner.sandbox`)."""

from __future__ import annotations

import sys

import click


@click.group()
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
    from locm.runner.sandbox.bwrap import Sandbox, require
    from locm.runner.sandbox.limits import BotLimits
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


__all__ = ["sandbox"]
