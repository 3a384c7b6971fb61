"""The options that choose where games are played (``--backend``, ``--address``), shared by the commands that
play or re-run many games: `locm tournament`, `locm whatif`, `locm cardvalue`, `locm report`."""

from __future__ import annotations

from typing import Literal, get_args

import click

Backend = Literal["local", "ray"]
"""Where many games are played: this machine's worker processes, or a Ray cluster."""

BACKENDS: tuple[Backend, ...] = get_args(Backend)


def backend_options(f):
    """``--backend local|ray`` and ``--address`` (the Ray cluster to join)."""
    f = click.option("--address", metavar="ADDRESS",
                     help="The Ray cluster to join with --backend ray (e.g. 10.0.0.5:6379, or auto); default: "
                          "start one on this machine.")(f)
    return click.option("--backend", type=click.Choice(BACKENDS), default="local", show_default=True,
                        help="Where the work runs: local worker processes, or a Ray cluster (pip install "
                             "'locm[ray]'; the store's path and bots' files must be the same on every node); "
                             "either way this process writes the one store.")(f)


def join(backend: Backend, address: str | None) -> None:
    """Check the options and join the cluster before any store is touched: Ray missing, or no cluster at
    ``address``, is one line (`locm.tournament.ray_backend.RayUnavailableError`)."""
    if address is not None and backend != "ray":
        raise click.UsageError("--address is for --backend ray")
    if backend == "ray":
        from locm.tournament.ray_cluster import connect

        connect(address)


__all__ = ["Backend", "BACKENDS", "backend_options", "join"]
