"""What my-card-game adds to the generic commands (its hooks in `locm.games.registry`): `locm report --game
mcg`, its card win rates by pairing (`locm.games.mcg.report`)."""

from __future__ import annotations

from pathlib import Path


def report(db: Path, *, min_n: int, max_imbalance: float, agent: str | None, backend: str, echo,
           **_options) -> None:
    """`locm report --game mcg`: card win rates by pairing of agents, printed."""
    from locm.errors import UsageProblem
    from locm.games.mcg.report import card_rates, report_lines
    from locm.reports.report import ReportError
    from locm.common.inputs import existing_store
    from locm.store.eventstore import open_store

    if backend != "local":
        raise UsageProblem("--backend ray projects LOCM's card facts only")
    with open_store(existing_store(db), create=False, readonly=True) as store:
        pairings, rates = card_rates(store, min_n, max_imbalance, agent)
    if not pairings:
        raise ReportError(f"{db}: no my-card-game games stored (locm tournament --game mcg ... --db {db})")
    for line in report_lines(pairings, rates, min_n):
        echo(line)


__all__ = ["report"]
