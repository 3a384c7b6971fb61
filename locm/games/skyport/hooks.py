"""What Skyport adds to the generic commands (its hooks in `locm.games.registry`): its clients play through its
server (`locm play`, `locm tournament`: `locm.games.skyport.netbots`), and `locm report --game skyport`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from locm.tournament.backends import Backend


def play_seated(rules, seed: int, agents: Sequence[str], sandbox):
    """`locm play --game skyport` with client command lines: through the server (`play_skyport_seated`)."""
    from locm.games.skyport.netbots import play_skyport_seated

    return play_skyport_seated(rules, seed, agents, sandbox)


def served_limits(agents: Sequence[str], sandbox, think_ms: int, join_s: float, timing: str = "fast",
                  wall_s: float | None = None):
    """A tournament's time limits for served games (--think-ms, --join-timeout, --timing, --wall-clock); the
    sandbox checked first (socat missing, a client's files unreadable: one line, before any game)."""
    from locm.games.skyport.netbots import ServeLimits, sandbox_for
    from locm.games.skyport.server import timing as make_timing

    make_timing(timing, think_ms)  # fast or faithful, a think time it takes: one line otherwise
    if sandbox is not None:
        sandbox_for(agents, sandbox)
    return ServeLimits(think_ms, join_s, timing, wall_s)


def report(db: Path, *, min_n: int, backend: Backend, echo, include_untrusted: bool = False, **_options) -> None:
    """`locm report --game skyport`: win and score rates per agent by loadout and by map, printed
    (`locm.games.skyport.report`), over the games the store may count unless ``include_untrusted``."""
    from locm.errors import UsageProblem
    from locm.games.skyport.report import report_lines, summary
    from locm.games.locm.cardreport import ReportError
    from locm.common.inputs import existing_store
    from locm.store.eventstore import open_store
    from locm.store.provenance import left_out_note

    if backend != "local":
        raise UsageProblem("--backend ray projects LOCM's card facts only")
    with open_store(existing_store(db), create=False, readonly=True) as store:
        rows = summary(store, min_n, counted=not include_untrusted)
        note = left_out_note(store.left_out(game="skyport"), include_untrusted)
    if not rows:
        raise ReportError(f"{db}: no Skyport games stored (locm tournament --game skyport ... --db {db})"
                          + (f"; {note}" if note else ""))
    for line in report_lines(rows, min_n):
        echo(line)
    if note:
        echo(note)


def conformance(files, quiet: bool, echo) -> int:
    """`locm conformance --game skyport`: oracle logs of the 2013 Skyport server checked, every gamestate,
    re-broadcast and error (`locm.replay.skyport.conformance`); the exit status."""
    from locm.replay.skyport.conformance import conformance_report

    return conformance_report(files, quiet, echo)


__all__ = ["play_seated", "served_limits", "report", "conformance"]
