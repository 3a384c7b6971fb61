"""`locm arena` (issue 35): the store in a browser, read-only, live.

Over real stores made by `locm tournament` (LOCM and Skyport games in one file): the pages and the JSON list,
filter and page games; the replay page is the viewer ``locm html`` writes; the API's events are the stored
bytes; games stored while the arena runs reach the live feed and the list page in a real browser; the arena
takes no write lock and writes nothing; the token gate; everything a store holds is escaped.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

starlette = pytest.importorskip("starlette", reason="the arena's web framework is not installed")
from starlette.testclient import TestClient  # noqa: E402

from locm.arena.app import create_app, is_loopback, parse_boards  # noqa: E402
from locm.arena.readmodel import ArenaError, Filters, ReadModel  # noqa: E402

LOCM = [sys.executable, "-m", "locm.cli.main"]


def _locm(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run([*LOCM, *args], capture_output=True, text=True, timeout=300)
    if check:
        assert run.returncode == 0, run.stderr[-2000:]
    return run


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("arena") / "t.db"
    _locm("tournament", "--agents", "greedy", "random", "--games", "60", "--db", str(db))
    _locm("tournament", "--game", "skyport", "--seats", "2", "--agents", "hunter", "random", "--games", "4",
          "--db", str(db))
    return db


@pytest.fixture(scope="module")
def client(store) -> TestClient:
    return TestClient(create_app(store, boards=parse_boards(["sky=game=skyport"]), index=store.with_suffix(".idx")))


def _digest(path: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*"))
                                   if p.is_file())).hexdigest()


def test_the_list_filters_and_pages_like_the_store(client, store):
    with sqlite3.connect(store) as db:
        total = db.execute("SELECT count(*) FROM games").fetchone()[0]
        locm_ids = [r[0] for r in db.execute("SELECT game_id FROM games WHERE game = 'locm' ORDER BY id DESC")]
    seen, before = [], None
    while True:
        page = client.get("/api/games", params={"game": "locm", "limit": 25,
                                                **({"before": before} if before else {})}).json()
        seen += [g["game_id"] for g in page["games"]]
        before = page["next"]
        if before is None:
            break
    assert seen == locm_ids and len(seen) == 60 and total == 64
    with sqlite3.connect(store) as db:
        greedy_won = db.execute("SELECT count(*) FROM games WHERE json_extract(agents, '$[' || winner || ']') = "
                                "'greedy' AND winner >= 0").fetchone()[0]
    won = client.get("/api/games", params={"winner": "greedy", "limit": 1000}).json()["games"]
    assert len(won) == greedy_won > 0 and all(g["winner_agent"] == "greedy" for g in won)
    sky = client.get("/api/games", params={"game": "skyport"}).json()["games"]
    assert len(sky) == 4 and {tuple(sorted(g["agents"])) for g in sky} == {("hunter", "random")}
    html = client.get("/games", params={"agent": "hunter"}).text
    assert html.count('href="/games/') == 4 and "Older games" not in html


def test_standings_count_every_seat_with_intervals(client):
    table = client.get("/api/standings", params={"game": "locm"}).json()
    rows = {r["agent"]: r for r in table["rows"]}
    assert rows["greedy"]["games"] == rows["random"]["games"] == 60
    assert rows["greedy"]["wins"] + rows["random"]["wins"] <= 60
    g = rows["greedy"]
    assert g["low"] <= g["rate"] <= g["high"] and g["rate"] == g["wins"] / 60
    assert {r["agent"] for r in table["ratings"]} == {"greedy", "random"} and table["rated_games"] == 60
    page = client.get("/").text
    assert "Tournaments" in page and 'href="/?game=skyport"' in page  # the saved leaderboard


def test_a_game_page_is_the_viewer_and_the_api_gives_the_stored_bytes(client, store, tmp_path):
    with sqlite3.connect(store) as db:
        gid = db.execute("SELECT game_id FROM games WHERE game = 'locm' LIMIT 1").fetchone()[0]
    page = client.get(f"/games/{gid}")
    assert page.status_code == 200
    out = tmp_path / "g.html"
    _locm("html", "--db", str(store), gid, "-o", str(out))
    assert page.text == out.read_text()
    exported = tmp_path / "e.jsonl"
    _locm("export", "--db", str(store), "-o", str(exported), gid)
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    stored = [line["event"] for line in lines if "event" in line]
    body = client.get(f"/api/games/{gid}").json()
    assert body["events"] == stored and body["record"]["game_id"] == gid
    assert client.get("/games/nope").status_code == 404
    assert client.get("/api/games/nope").json() == {"error": "no game 'nope'"}


def test_bad_filters_are_one_line_errors(client):
    r = client.get("/api/games", params={"seats": "many"})
    assert r.status_code == 400 and r.json()["error"].startswith("seats: expected")
    assert client.get("/api/games", params={"before": "x"}).status_code == 400
    assert client.get("/api/games", params={"limit": "100000"}).status_code == 400
    with pytest.raises(ArenaError):
        parse_boards(["nameless"])
    with pytest.raises(ArenaError):
        ReadModel("/nonexistent/x.db")


def test_what_a_store_holds_is_escaped(store, tmp_path):
    db = tmp_path / "hostile.db"
    shutil.copy(store, db)
    with sqlite3.connect(db) as conn:
        gid = conn.execute("SELECT game_id FROM games WHERE game = 'locm' LIMIT 1").fetchone()[0]
        seats = json.dumps([{"stderr": "<script>alert(1)</script>\u202e", "think_ms": 1.0, "error": True,
                             "timeout": False}] * 2)
        conn.execute("UPDATE games SET seats = ? WHERE game_id = ?", (seats, gid))
    c = TestClient(create_app(db, index=tmp_path / "h.idx"))
    page = c.get("/bots/greedy").text
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_arena_reads_and_takes_no_lock(store, client):
    before = _digest(store)
    for path in ("/", "/games", "/api/games", "/api/standings", "/bots/greedy"):
        assert client.get(path).status_code == 200
    with sqlite3.connect(store, timeout=0.1) as writer:  # a writer gets the lock while the arena holds its reads
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("ROLLBACK")
    assert _digest(store) == before
    model = ReadModel(store)
    with pytest.raises(sqlite3.OperationalError):
        model._db().execute("DELETE FROM games")


def test_beyond_loopback_a_token_is_needed():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")


def test_the_token_gate(store):
    c = TestClient(create_app(store, token="s3cret", index=store.with_suffix(".idx")))
    assert c.get("/api/games").status_code == 401
    assert c.get("/api/games", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/api/games", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    r = c.get("/games?agent=greedy&token=s3cret", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/games?agent=greedy"
    assert c.get("/api/games").status_code == 200  # the cookie the redirect set


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(store, tmp_path):
    """A copy of the store served by uvicorn in a thread, and the URL."""
    import uvicorn

    db = tmp_path / "live.db"
    shutil.copy(store, db)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(db, live_poll=0.1, index=tmp_path / "live.idx"), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield db, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_games_stored_while_it_runs_reach_the_live_feed(served):
    import httpx2 as httpx  # the test extra's HTTP client (Starlette's test client uses it too)

    db, url = served
    with sqlite3.connect(db) as conn:
        last = conn.execute("SELECT max(id) FROM games").fetchone()[0]
    _locm("tournament", "--agents", "greedy", "random", "--games", "2", "--seed", "500", "--db", str(db))
    got = []
    with httpx.stream("GET", f"{url}/live", params={"after": last, "once": "1"}, timeout=20) as r:
        for line in r.iter_lines():
            if line.startswith("data: ") and '"game_id"' in line:
                got.append(json.loads(line[6:]))
    assert [g["key"] for g in got] == [last + 1, last + 2]
    assert {tuple(g["agents"]) for g in got} == {("greedy", "random"), ("random", "greedy")}


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed")
def test_in_a_browser_the_list_filters_and_updates_live(served, tmp_path):
    from tests.cdp import Browser

    db, url = served
    browser = Browser(_chromium(), str(tmp_path / "profile"))
    try:
        browser.open(f"{url}/games?game=locm", ready="document.getElementById('games') !== null")
        browser.wait_for("document.querySelectorAll('#games tbody tr').length === 50")
        assert browser.eval("document.querySelector('#next') !== null")
        browser.eval("document.querySelector('input[name=agent]').value = 'hunter';"
                     "document.querySelector('select[name=game]').value = '';"
                     "document.querySelector('form.filters').submit()")
        browser.wait_for("location.search.includes('agent=hunter')"
                         " && document.querySelectorAll('#games tbody tr').length === 4")
        browser.open(f"{url}/games?game=locm", ready="document.getElementById('games') !== null")
        browser.wait_for("document.querySelectorAll('#games tbody tr').length === 50")
        time.sleep(0.5)  # the page's EventSource is connected
        _locm("tournament", "--agents", "greedy", "random", "--games", "2", "--seed", "900", "--db", str(db))
        browser.wait_for("document.querySelectorAll('#games tbody tr.new').length === 2", timeout=30)
        assert "2 new" in browser.eval("document.getElementById('live-state').textContent")
    finally:
        browser.close()


def _direct(db: Path, where: str, args: tuple = ()) -> list[int]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute(f"SELECT id FROM games WHERE {where} ORDER BY id DESC", args)]


def test_the_index_gives_what_a_scan_of_the_store_gives(store, tmp_path):
    model = ReadModel(store, tmp_path / "i.idx")
    cases = [
        (Filters(game="locm"), "game = 'locm'"),
        (Filters(agent="hunter"), "EXISTS (SELECT 1 FROM json_each(agents) WHERE value = 'hunter')"),
        (Filters(winner="greedy", ruleset="1.2"),
         "ruleset = '1.2' AND winner >= 0 AND json_extract(agents, '$[' || winner || ']') = 'greedy'"),
        (Filters(seats=2, game="skyport"), "game = 'skyport' AND json_array_length(agents) = 2"),
        (Filters(agent="random", game="locm"),
         "game = 'locm' AND EXISTS (SELECT 1 FROM json_each(agents) WHERE value = 'random')"),
    ]
    for f, where in cases:
        assert [g.key for g in model.games(f, limit=1000)] == _direct(store, where), f
    tournament = model.tournaments()[0]["key"]
    assert [g.key for g in model.games(Filters(tournament=tournament), limit=1000)] == _direct(
        store, "json_extract(meta, '$.schedule') = ?", (tournament,))


def test_a_store_replaced_under_the_same_name_is_indexed_again(store, tmp_path):
    db = tmp_path / "s.db"
    shutil.copy(store, db)
    model = ReadModel(db, tmp_path / "s.idx")
    assert len(model.games(Filters(game="locm"), limit=1000)) == 60
    db.unlink()
    _locm("tournament", "--agents", "greedy", "lookahead", "--games", "4", "--db", str(db))
    again = ReadModel(db, tmp_path / "s.idx")
    assert [g.key for g in again.games(Filters(game="locm"), limit=1000)] == _direct(db, "game = 'locm'")
    assert {a for g in again.games(Filters(game="locm"), limit=1000) for a in g.agents} == {"greedy", "lookahead"}


def test_a_bots_think_time_is_kept_turn_by_turn_and_charted_by_turn(tmp_path):
    db = tmp_path / "b.db"
    _locm("play", "--seed", "3", "--p0", f"{sys.executable} examples/bot.py", "--p1", "greedy", "--db", str(db),
          "--no-sandbox")
    with sqlite3.connect(db) as conn:
        meta, seats = conn.execute("SELECT meta, seats FROM games").fetchone()
    turns = json.loads(meta)["think_turn_ms"]
    bot_turns = turns[0]
    assert turns[1] is None and bot_turns and all(ms >= 0 for ms in bot_turns)
    assert json.loads(meta)["turns"][0] == len(bot_turns)  # one time a turn the bot played
    assert abs(sum(bot_turns) / len(bot_turns) - json.loads(seats)[0]["think_ms"]) < 0.05  # the mean it stores
    model = ReadModel(db, index=tmp_path / "b.idx")
    by_turn = model.bot(f"{sys.executable} examples/bot.py")["by_turn"]
    assert [p["turn"] for p in by_turn] == list(range(1, len(bot_turns) + 1))
    assert [p["mean_ms"] for p in by_turn] == [round(ms, 3) for ms in bot_turns]  # one game: its own times
    page = TestClient(create_app(db, index=tmp_path / "c.idx")).get("/bots/" + f"{sys.executable} examples/bot.py")
    assert page.status_code == 200 and 'id="byturn"' in page.text and '"turn": 1' in page.text
