"""`locm show` of a my-card-game log: the board's head line says who is to move, and a finished game is over
(it used to print "to move P-1")."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from locm.cli.main import cli


def test_show_says_who_moves_and_that_a_finished_game_is_over(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    r = CliRunner().invoke(cli, ["play", "--game", "mcg", "--ruleset", "standard", "--seed", "7", "--p0", "greedy",
                                 "--p1", "random", "--log", str(log)])
    assert r.exit_code == 0, r.output
    end = CliRunner().invoke(cli, ["show", str(log)])
    assert end.exit_code == 0, end.output
    head = end.stdout.splitlines()[1]
    assert "game over" in head and "P-1" not in end.stdout
    early = CliRunner().invoke(cli, ["show", str(log), "--turn", "2"])
    assert early.exit_code == 0, early.output
    assert "to move P" in early.stdout.splitlines()[1] and "game over" not in early.stdout.splitlines()[1]
