"""Golden event logs of my-card-game (STYLE 11): seeded matches whose logs are committed and must come out byte
for byte the same on any machine (every random draw seeded, every float the same IEEE operation). They change
only on purpose: `pytest tests/test_mcg_golden.py --update-golden`. A scenario without its file fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from locm.engine.mcg.evolve import fold
from locm.engine.mcg.game import play_match, redecide
from locm.engine.mcg.rules import STANDARD
from locm.engine.mcg.variants import parse_variant
from locm.events.mcg.codec import from_jsonl, to_jsonl

GOLDEN = Path(__file__).parent / "golden" / "mcg"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mcg" / "singleton-sudden-death.toml"
SCENARIOS = [("standard", 7, ("greedy", "random")), ("standard", 12700, ("random", "random")),
             ("singleton-sudden-death", 3, ("random", "greedy"))]


def _rules(name: str):
    return STANDARD if name == "standard" else parse_variant(EXAMPLE.read_text(), EXAMPLE.name)


def _name(rules: str, seed: int, agents: tuple[str, str]) -> str:
    return f"{rules}-seed{seed}-{agents[0]}-vs-{agents[1]}.jsonl"


@pytest.mark.parametrize("rules, seed, agents", SCENARIOS, ids=lambda v: str(v))
def test_log_equals_the_golden_file(request, rules, seed, agents):
    path = GOLDEN / _name(rules, seed, agents)
    log = to_jsonl(play_match(_rules(rules), seeds=seed, agents=agents).log)
    if request.config.getoption("--update-golden"):
        path.write_bytes(log)
    assert path.exists(), f"{path.name} is missing: run pytest {__file__} --update-golden on purpose"
    golden = path.read_bytes()
    assert log == golden, f"{path.name}: the log differs from the golden file (seed {seed})"
    events = from_jsonl(golden)
    assert fold(events).winner in (0, 1) and redecide(events)[1] == -1


def test_every_golden_file_belongs_to_a_scenario():
    assert {p.name for p in GOLDEN.glob("*.jsonl")} == {_name(*s) for s in SCENARIOS}
