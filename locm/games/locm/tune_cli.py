"""`locm tune` for LOCM (the hook ``tune`` of `locm.games.registry`; the command is `locm.cli.tune`): the
ruleset read, then `locm.games.locm.tune_page.run_tune`."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from locm.analysis.tune import Objectives


def run(db: Path, ruleset: str | None, agents: tuple[str, str], budget: int, objectives: Objectives, out: Path,
        seed: int = 1, workers: int = 1, backend: str = "local", address: str | None = None,
        progress: Callable[[str], None] | None = None, target: str = "all") -> tuple[dict, list[str]]:
    """`locm tune` of a LOCM ruleset (1.2 by default): the evidence and its summary lines."""
    from locm.games.locm.tune_page import run_tune, summary_lines
    from locm.games.locm.variants import resolve_ruleset

    result = run_tune(db, resolve_ruleset(ruleset or "1.2"), agents, budget, objectives, out, seed, workers, backend,
                      address, progress=progress, target=target)
    return result, summary_lines(result)


__all__ = ["run"]
