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
        assert store.left_out(agent="greedy") == {"imported": 2} and store.left_out(agent="pass") == {}


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


def test_the_arena_standings_ratings_and_bot_pages_leave_an_untrusted_import_out(tmp_path):
    """Standings and ratings read before and after an untrusted import are the same (but for the key they are
    as of, and the note); the page says how many it left out; --include-untrusted counts them."""
    from starlette.testclient import TestClient

    from locm.arena.app import create_app

    elsewhere, db = tmp_path / "elsewhere.db", tmp_path / "t.db"
    assert locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", elsewhere)[0] == 0
    assert locm("export", "--all", "--db", elsewhere, "-o", tmp_path / "x.jsonl")[0] == 0
    assert locm("tournament", "--agents", "random", "pass", "--games", 2, "--db", db)[0] == 0
    arena = TestClient(create_app(db, index=tmp_path / "a.idx", spectate=False))
    before = arena.get("/api/standings").json()
    assert {r["agent"] for r in before["rows"]} == {"random", "pass"}
    assert locm("import", tmp_path / "x.jsonl", "--db", db)[0] == 0
    after = arena.get("/api/standings").json()
    assert after["as_of"] > before["as_of"]
    for key in ("rows", "ratings", "rated_games"):
        assert after[key] == before[key], key
    assert before["left_out_note"] is None and after["left_out"] == {"imported": 2} and after["left_out_note"] == NOTE
    page = arena.get("/").text
    assert NOTE in page and "/bots/greedy" not in page
    bot = arena.get("/bots/random").text
    assert "2 newest counted games looked at" in bot and NOTE in bot, bot
    assert "0 newest counted games looked at" in arena.get("/bots/greedy").text
    assert len(arena.get("/api/games").json()["games"]) == 4  # the list shows every game
    every = TestClient(create_app(db, index=tmp_path / "b.idx", spectate=False, include_untrusted=True))
    counted = every.get("/api/standings").json()
    assert {r["agent"] for r in counted["rows"]} == {"random", "pass", "greedy"}
    assert counted["left_out_note"] == COUNTED and "4 newest games looked at" in every.get("/bots/random").text


def test_the_arena_index_follows_a_change_of_what_counts(planted, tmp_path):
    """A source row marked untrusted behind the arena's back (games already indexed) is left out at the next
    game stored: the index's table of uncounted keys is made again under the store's scope now."""
    import sqlite3

    from locm.arena.readmodel import Filters, ReadModel

    model = ReadModel(planted, index=tmp_path / "c.idx")
    assert [r["agent"] for r in model.standings(Filters())["rows"]] == ["random"]
    assert model.left_out(Filters()) == {"imported": 2}
    with sqlite3.connect(planted) as conn:
        conn.execute("UPDATE provenance_sources SET kind = 'imported' WHERE kind = 'played'")
    assert locm("tournament", "--agents", "pass", "pass", "--games", 2, "--db", planted)[0] == 0
    assert model.left_out(Filters()) == {"imported": 4}
    assert [r["agent"] for r in model.standings(Filters())["rows"]] == ["pass"]


def test_dataset_exports_only_the_counted_games_unless_asked(planted, tmp_path):
    pytest.importorskip("numpy")
    code, out, err = locm("dataset", "--db", planted, "--phase", "battle", "-o", tmp_path / "d1.npz")
    assert code == 0, err
    assert "from 2 games" in out and NOTE in out, out
    code, out, err = locm("dataset", "--db", planted, "--phase", "battle", "--agent", "greedy", "-o", tmp_path / "d2.npz")
    assert code == 0, err
    assert "0 rows from 0 games" in out and NOTE in out, out
    code, out, err = locm("dataset", "--db", planted, "--phase", "battle", "--include-untrusted", "-o", tmp_path / "d3.npz")
    assert code == 0, err
    assert "from 4 games" in out and COUNTED in out, out
    code, out, err = locm("dataset", "--db", planted, "--phase", "battle", "--agent", "random", "--seat", "0",
                          "-o", tmp_path / "d4.npz")
    assert code == 0 and "from 2 games" in out and NOTE in out, out  # random plays a seat of the imported games too


def test_the_arena_reads_a_sequential_test_over_the_counted_games_only(tmp_path, monkeypatch):
    """A run's games made an untrusted source's behind its back: the arena's reading of its test counts none."""
    import sqlite3

    from starlette.testclient import TestClient

    from locm.arena.app import create_app
    from locm.runner import live

    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "sprt.db"
    live.spool_of(db).mkdir()
    code, out, err = locm("tournament", "--agents", "greedy", "pass", "--games", 8, "--db", db,
                          "--sprt", "elo0=0,elo1=1,alpha=0.01,beta=0.01")
    assert code == 0, err
    arena = TestClient(create_app(db, index=tmp_path / "s.idx"))
    assert [t["pairs"] for t in arena.get("/api/sprt").json()["sprt"]] == [4]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE provenance_sources SET kind = 'imported' WHERE kind = 'played'")
    arena = TestClient(create_app(db, index=tmp_path / "s2.idx"))
    assert [t["pairs"] for t in arena.get("/api/sprt").json()["sprt"]] == [0]
