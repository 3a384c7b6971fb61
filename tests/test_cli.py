"""The CLI: help with an example on every command, byte-identical logs, one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from locm.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent


def _commands(group: click.Group, prefix=()):
    for name, cmd in group.commands.items():
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))


@pytest.mark.parametrize("path", [p for p, _ in _commands(cli)], ids=lambda p: " ".join(p))
def test_every_command_has_help_with_an_example(path):
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output and f"locm {' '.join(path)}" in result.output


def run_locm(*args, cwd=None):
    """The real console entry point in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "locm.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT)


@pytest.mark.parametrize("ruleset", ["1.2", "constructed"])
def test_play_writes_a_byte_identical_log_run_after_run(tmp_path, ruleset):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        r = run_locm("play", "--ruleset", ruleset, "--seed", "11", "--p0", "greedy", "--p1", "random",
                     "--log", str(path))
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("winner: player ")
    assert a.read_bytes() == b.read_bytes()
    first = json.loads(a.read_text().splitlines()[0])
    assert first["type"] == "game_created" and first["ruleset"] == ruleset and first["seed"] == 11


@pytest.mark.parametrize("args, message", [
    (["play", "--seed", "x"], "locm play: error: Invalid value for '--seed'"),
    (["play", "--seed", "1", "--p0", "nobody"], "locm: error: unknown agent 'nobody'"),
    (["play", "--seed", "1", "--ruleset", "2.0"], "locm: error: unknown ruleset '2.0'"),
    (["play", "--seed", str(2 ** 63)], "locm: error: seed must be a 64-bit signed integer"),
    (["play", "--seed", "1", "--param", "bogus=1"], "locm: error: unknown game parameter 'bogus'"),
    (["conformance", "/no/such/file.txt"], "locm: error: /no/such/file.txt: no such file"),
    (["bench", "--games", "0"], "locm bench: error: Invalid value for '--games'"),
    (["cards", "--ruleset", "constructed"], "locm cards: error: --seed is needed"),
])
def test_bad_input_gets_one_line_and_a_non_zero_exit(args, message):
    r = run_locm(*args)
    assert r.returncode == 2
    assert r.stderr.startswith(message)
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_conformance_refuses_a_malformed_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not a log\n")
    r = run_locm("conformance", str(bad))
    assert r.returncode == 2 and r.stderr.startswith(f"locm: error: {bad}:1: not an official game log line")


def test_conformance_prints_a_line_per_game_and_the_summary():
    r = run_locm("conformance", "tests/data/official-1.2-games-00-49.txt.gz")
    lines = r.stdout.splitlines()
    assert r.returncode == 0
    assert len(lines) == 51 and lines[-1] == "50/50 games identical"
    assert lines[0].startswith("game 00: identical (")


def test_conformance_exit_status_is_1_on_a_mismatch(tmp_path):
    import gzip

    line = gzip.open(ROOT / "tests/data/official-1.2-games-00-49.txt.gz", "rt").readline()
    obj, end = json.JSONDecoder().raw_decode(line)
    obj["outputs"]["0"] = [("PASS\n" if o and o.startswith("PICK") else o) for o in obj["outputs"]["0"]]
    path = tmp_path / "changed.txt"
    path.write_text(json.dumps(obj) + line[end:])
    r = run_locm("conformance", str(path))
    assert r.returncode == 1
    assert "MISMATCH at frame" in r.stdout and r.stdout.splitlines()[-1] == "0/1 games identical"


def test_bench_json_has_the_promised_keys():
    r = run_locm("bench", "--games", "3", "--json")
    data = json.loads(r.stdout)
    assert {"games_per_s", "events_per_s", "rebuild_ms"} <= data.keys() and data["games"] == 3


def test_rules_diff_is_derived_from_the_rulesets():
    from locm.engine.locm import rulesets

    out = CliRunner().invoke(cli, ["rules", "diff", "1.2", "constructed"]).output
    assert "R-DAMAGEDRAW" in out and "zeroed_fields_quirk" in out
    diffs = rulesets.diff_rulesets(rulesets.RULES_12, rulesets.RULES_12.replace(hand_limit=9))
    assert [(d.field, d.rule, d.left, d.right) for d in diffs] == [("hand_limit", "R-DRAW", 8, 9)]


def test_cards_table_and_json():
    out = CliRunner().invoke(cli, ["cards", "--ruleset", "1.5", "--seed", "1", "--json"]).output
    cards = json.loads(out)
    assert len(cards) == 120 and [c["base_id"] for c in cards] == list(range(120))
    table = CliRunner().invoke(cli, ["cards", "--ruleset", "constructed", "--seed", "1"]).output
    assert len(table.splitlines()) == 122
