"""Golden event logs (STYLE 11): a few seeded games whose logs are committed and must come out byte for byte
the same on any machine. They change only on purpose: `pytest tests/test_golden.py --update-golden`.
A scenario without its golden file fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from locm.events.locm.codec import from_jsonl, to_jsonl
from locm.engine.locm.folding import fold
from locm.games.locm.play import play_one

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = [
    ("1.2", 7, ("greedy", "random")),
    ("1.2", 12700, ("random", "random")),
    ("constructed", 7, ("greedy", "random")),
    ("constructed", 4047, ("random", "greedy")),
]


def _name(ruleset, seed, agents) -> str:
    return f"{ruleset}-seed{seed}-{agents[0]}-vs-{agents[1]}.jsonl"


@pytest.mark.parametrize("ruleset, seed, agents", SCENARIOS, ids=lambda v: str(v))
def test_log_equals_the_golden_file(request, ruleset, seed, agents):
    path = GOLDEN / _name(ruleset, seed, agents)
    log = to_jsonl(play_one(ruleset, seed, agents).log)
    if request.config.getoption("--update-golden"):
        path.write_bytes(log)
    assert path.exists(), f"{path.name} is missing: run pytest {__file__} --update-golden on purpose"
    golden = path.read_bytes()
    assert log == golden, f"{path.name}: the log differs from the golden file (seed {seed})"
    # The golden file is itself a valid log: it decodes and folds to an ended game.
    assert fold(from_jsonl(golden)).winner in (0, 1)


def test_every_golden_file_belongs_to_a_scenario():
    expected = {_name(*s) for s in SCENARIOS}
    assert {p.name for p in GOLDEN.glob("*.jsonl")} == expected
