"""Every reader that turns stored games into a result counts only the games its store may count (issue 32, item
1: played here, or imported from a trusted signed file): a genuine export imported without --trust (the
ordinary import path, an unsigned file) is planted beside the store's own games; each reader leaves it out by
default, says so in one line, and counts it with --include-untrusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.store.eventstore import open_store

NOTE = "2 imported games not counted: untrusted; --include-untrusted to count them"
COUNTED = "2 imported games counted though untrusted (--include-untrusted)"


def locm(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture()
def planted(tmp_path: Path) -> Path:
    """A store that played 2 games of random against random, and holds 2 imported untrusted games of greedy
    against random (a real tournament's export, imported without --trust)."""
    elsewhere, db = tmp_path / "elsewhere.db", tmp_path / "t.db"
    assert locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", elsewhere)[0] == 0
    assert locm("export", "--all", "--db", elsewhere, "-o", tmp_path / "x.jsonl")[0] == 0
    assert locm("tournament", "--agents", "random", "random", "--games", 2, "--db", db)[0] == 0
    code, _, err = locm("import", tmp_path / "x.jsonl", "--db", db)
    assert code == 0 and "kept as untrusted" in err, err
    with open_store(db, create=False, readonly=True) as store:
        assert sorted(c.counted for c in store.provenances().values()) == [False, False, True, True]
    return db


def test_the_store_reads_only_the_counted_games_when_asked(planted):
    with open_store(planted, create=False, readonly=True) as store:
        assert len(store.games()) == 4
        assert {m.agents for m in store.games(counted=True)} == {("random", "random")}
        assert len(store.games(agent="greedy", counted=True)) == 0 and len(store.games(agent="greedy")) == 2
        assert store.left_out(game="locm") == {"imported": 2} and store.left_out(game="mcg") == {}


def test_cards_stats_leaves_the_untrusted_games_out_unless_asked(planted):
    code, out, err = locm("cards", "stats", "--db", planted, "--min-games", 1)
    assert code == 0, err
    assert "greedy" not in out and "random vs random" in out, out
    assert NOTE in out, out
    code, out, err = locm("cards", "stats", "--db", planted, "--min-games", 1, "--include-untrusted")
    assert code == 0, err
    assert "greedy vs random" in out and COUNTED in out, out
    code, out, _ = locm("cards", "stats", "--db", planted, "--min-games", 1)  # the store's own projection again
    assert code == 0 and "greedy" not in out and NOTE in out, out


def test_the_card_report_leaves_the_untrusted_games_out_unless_asked(planted, tmp_path):
    code, out, err = locm("report", "--db", planted, "-o", tmp_path / "r1", "--min-games", 1)
    assert code == 0, err
    assert out.startswith("2 games (1.2: 2)") and NOTE in out, out
    data = json.loads((tmp_path / "r1" / "cards.json").read_text())
    assert "greedy" not in json.dumps(data)
    code, out, err = locm("report", "--db", planted, "-o", tmp_path / "r2", "--min-games", 1, "--include-untrusted")
    assert code == 0, err
    assert out.startswith("4 games (1.2: 4)") and COUNTED in out, out
    assert "greedy" in (tmp_path / "r2" / "cards.json").read_text()


def test_whatif_re_runs_only_the_counted_games_unless_asked(planted):
    variant = Path(__file__).resolve().parents[1] / "examples" / "variants" / "low-health.toml"
    code, out, err = locm("whatif", "--db", planted, "--ruleset", variant, "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["left_out"] == {"counted": False, "imported": 2}
    assert "greedy" not in json.dumps(found.get("agents", {})), found.get("agents")
    code, out, err = locm("whatif", "--db", planted, "--ruleset", variant)
    assert code == 0 and NOTE in out, out
    code, out, err = locm("whatif", "--db", planted, "--ruleset", variant, "--json", "--include-untrusted")
    assert code == 0, err
    found = json.loads(out)
    assert found["left_out"] == {"counted": True, "imported": 2}
    assert "greedy" in json.dumps(found.get("agents", {})), found.get("agents")
