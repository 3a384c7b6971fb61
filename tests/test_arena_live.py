"""The arena's live parts (issue 35): a game being played watched as a spectator (the runner's live spool,
`locm.runner.live`, read by `locm.arena.live`), hidden information hidden or revealed after a delay, the state
of a sequential test (SPRT) from the store, and the card report served.

The games watched are real games of the engine, published by the runner's own hook (`watching`), played in a
thread at a spectator's pace (a built-in agent's game is over in milliseconds); the SPRT is a real
`locm tournament --sprt` run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the arena's web framework is not installed")
from starlette.testclient import TestClient  # noqa: E402

from locm.arena.app import create_app  # noqa: E402
from locm.arena.live import Feed, Spool  # noqa: E402
from locm.engine import registry  # noqa: E402
from locm.replay.game import Replay  # noqa: E402
from locm.runner import live  # noqa: E402

LOCM = [sys.executable, "-m", "locm.cli.main"]


def _locm(*args: str) -> subprocess.CompletedProcess:
    run = subprocess.run([*LOCM, *args], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return run


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("live") / "t.db"
    _locm("tournament", "--agents", "greedy", "random", "--games", "4", "--db", str(db))
    return db


class Paced:
    """A real my-card-game match (its draws are hidden) published by the runner's hook while a thread plays
    it, one decision every ``pause`` seconds."""

    def __init__(self, db: Path, pause: float = 0.05, seed: int = 3) -> None:
        self.game = registry.get("mcg")
        self.agents = ("greedy", "random")
        self.match = self.game.new(self.game.rules("standard"), seed, self.agents)
        self.players = [self.game.make_agent(a, seed, s) for s, a in enumerate(self.agents)]
        self.game_id = self.game.game_id(self.match.log[0])
        self.pause = pause
        live.enable(db)
        self.thread = threading.Thread(target=self._play, daemon=True)

    def _play(self) -> None:
        with live.watching(self.game, self.game_id, self.agents, self.match.log):
            while not self.match.ended:
                self.players[self.match.to_move].play_turn(self.match, self.match.to_move)
                time.sleep(self.pause)

    def __enter__(self) -> "Paced":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.thread.join(60)


@pytest.fixture
def spooled(store, tmp_path, monkeypatch):
    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "s.db"
    shutil.copy(store, db)
    yield db


def _file(db: Path, game_id: str) -> Path | None:
    """The live file of a game being played (as the arena finds it)."""
    return next((Spool(db).path / g["file"] for g in Spool(db).games() if g["game_id"] == game_id), None)


def _wait(predicate, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_nothing_is_published_without_the_spool(spooled):
    with Paced(spooled, pause=0.02) as p:
        time.sleep(0.6)
        assert not live.spool_of(spooled).exists() and Spool(spooled).games() == []
    assert p.match.ended


def test_a_spool_this_process_may_not_look_into_publishes_nowhere(spooled, monkeypatch):
    """A process that inherited another user's spool (a bot's runner as nobody under root's store) plays on,
    publishing nothing: looking at the spool is refused, not raised."""
    Spool(spooled).make()
    monkeypatch.setenv(live.ENV, str(live.spool_of(spooled).resolve()))
    assert live._spool() == live.spool_of(spooled).resolve()

    def refused(self):
        raise PermissionError(13, "Permission denied", str(self))

    with monkeypatch.context() as m:
        m.setattr(Path, "is_dir", refused)
        assert live._spool() is None


def test_a_spectator_reads_every_event_without_the_hidden_information(spooled):
    Spool(spooled).make()
    with Paced(spooled) as p:
        path = _wait(lambda: _file(spooled, p.game_id))
        listed = Spool(spooled).games()
        assert [(g["game_id"], g["agents"]) for g in listed] == [(p.game_id, ["greedy", "random"])]
        feed, got, polls = Feed(path), [], 0
        while not feed.ended:
            new, shown = feed.poll()
            got += new
            polls += bool(new)
            assert shown == []  # nothing revealed without --reveal-after
            time.sleep(0.1)
    assert polls > 3  # it came in while the game was played, not at its end
    assert not path.exists()  # the file goes when the game is over
    full = Replay(p.match.log, game=p.game)
    assert [e[0] for e in got] == list(range(len(p.match.log)))
    private = [s for s in range(len(full.events)) if full.wing.private(full, s) is not None]
    assert private  # the game drew cards: hidden information to hide
    for seq in private:
        secret, public = full.wing.words(full, seq), full.wing.private(full, seq)[1]
        assert got[seq][4] == public != secret
    assert "seed" not in got[0][4] and str(3) not in got[0][4].split(":")[-1]
    for seq in set(range(len(got))) - set(private) - {0}:
        assert got[seq][4] == full.wing.words(full, seq)


def test_revealed_after_the_delay(spooled):
    Spool(spooled).make()
    with Paced(spooled, pause=0.03) as p:
        path = _wait(lambda: _file(spooled, p.game_id))
        feed = Feed(path, reveal_after=0.5)
        sent, shown, early = [], {}, []
        while not feed.ended or feed.revealed < feed.sent:
            t = time.time()
            new, revealed = feed.poll()
            sent += new
            for seq, text in revealed:
                shown[seq] = text
                early.append(t - feed.times[seq])
            time.sleep(0.1)
    full = Replay(p.match.log, game=p.game)
    assert sorted(shown) == list(range(len(p.match.log)))
    assert all(shown[s] == full.wing.words(full, s) for s in shown)
    assert min(early) >= 0.5  # never before the delay


def test_a_hostile_spool_file_is_refused_in_one_line(spooled):
    spool = Spool(spooled)
    spool.make()
    bad = spool.path / "x.jsonl"
    bad.write_text(json.dumps({"live": 1, "game_id": "x", "game": "mcg", "agents": ["a"], "pid": os.getpid()})
                   + "\n{not json\n")
    assert [g["game_id"] for g in spool.games()] == ["x"]
    with pytest.raises(ValueError):
        Feed(bad).poll()
    (spool.path / "y.jsonl").write_text("<script>\n")
    (spool.path / "z.jsonl").write_text(json.dumps({"live": 1, "game_id": "z", "game": "mcg", "agents": [],
                                                    "pid": 2 ** 22 + 12345}) + "\n")  # no such process
    assert [g["game_id"] for g in spool.games()] == ["x"]
    c = TestClient(create_app(spooled, index=spooled.with_suffix(".idx"), live_secret=b"k" * 16))
    with c.stream("GET", f"/live/games/{Spool(spooled, b'k' * 16).handle('x')}/events") as r:
        text = "".join(r.iter_text())
    assert "event: failed" in text and "Traceback" not in text
    assert c.get("/live/games/x/events").status_code == 404  # a game is not named by its id while played
    import sqlite3

    with sqlite3.connect(spooled) as conn:
        key = conn.execute("SELECT key FROM schedules").fetchone()[0]
    (spool.path / "sprt-bad.json").write_text(json.dumps({"schedule": key, "test": "elo0=nonsense", "pid": 1}))
    assert c.get("/").status_code == 200 and c.get("/api/sprt").json() == {"sprt": []}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(spooled, tmp_path):
    import uvicorn

    port = _free_port()
    app = create_app(spooled, live_poll=0.1, index=tmp_path / "live.idx", reveal_after=1.0)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait(lambda: server.started)
    yield spooled, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed")
def test_in_a_browser_a_game_being_played_is_watched_live(served, tmp_path):
    from tests.cdp import Browser

    db, url = served
    assert live.spool_of(db).is_dir()  # the arena made it
    browser = Browser(_chromium(), str(tmp_path / "profile"))
    try:
        with Paced(db, pause=0.15) as p:
            browser.open(f"{url}/live/games", ready="document.getElementById('live') !== null")
            browser.wait_for("document.querySelector('#live a') !== null", timeout=20)
            browser.wait_for("+document.body.dataset.polled > 0", timeout=20)  # it follows /api/live
            assert browser.eval("document.querySelectorAll('#live tbody tr[data-handle]').length") == 1
            assert p.game_id not in browser.eval("document.body.innerHTML")  # its id names its seed
            browser.eval("location.href = document.querySelector('#live a').href")
            browser.wait_for("document.getElementById('feed') !== null && +document.getElementById('feed')"
                             ".dataset.events > 0", timeout=20)
            first = browser.eval("+document.getElementById('feed').dataset.events")
            browser.wait_for(f"+document.getElementById('feed').dataset.events > {first}", timeout=20)
            assert not p.match.ended  # it grew while the game was being played
            assert "live:" in browser.eval("document.getElementById('state').textContent")
            browser.wait_for("document.querySelector('#feed li[data-revealed]') !== null", timeout=20)
        browser.wait_for("document.getElementById('replay') !== null", timeout=20)
        assert browser.eval("document.getElementById('when').textContent") == "Over."
        assert browser.eval("document.getElementById('replay').getAttribute('href')") == f"/games/{p.game_id}"
        n = browser.eval("document.querySelectorAll('#feed li').length")
        assert n == len(p.match.log)
        texts = browser.eval("JSON.stringify([...document.querySelectorAll('#feed li')].map(li => "
                             "[li.children[1].textContent, li.dataset.revealed || '']))")
        full = Replay(p.match.log, game=p.game)
        for seq, (text, revealed) in enumerate(json.loads(texts)):
            hidden = full.wing.private(full, seq)
            if hidden is not None and not revealed:
                assert text == hidden[1]
            if revealed and seq:
                assert text == full.wing.words(full, seq)
    finally:
        browser.close()


def _sprt_text(stdout: str) -> tuple[str, float, str]:
    m = re.search(r"SPRT (\S+): (H[01]) accepted at pair (\d+).*\n\s+LLR (-?[\d.]+)", stdout)
    assert m, stdout
    return m.group(2), float(m.group(4)), m.group(3)


def test_the_state_of_a_sequential_test_from_the_store(tmp_path, monkeypatch):
    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "sprt.db"
    live.spool_of(db).mkdir()
    run = _locm("tournament", "--agents", "greedy", "random", "--games", "400", "--db", str(db),
                "--sprt", "elo0=0,elo1=150,alpha=0.05,beta=0.05")
    verdict, llr, at = _sprt_text(run.stdout)
    published = list(live.spool_of(db).glob("sprt-*.json"))
    assert len(published) == 1
    c = TestClient(create_app(db, index=tmp_path / "i.idx"))
    tests = c.get("/api/sprt").json()["sprt"]
    assert len(tests) == 1
    t = tests[0]
    assert (t["state"], t["verdict"], round(t["llr"], 3), str(t["pairs_at_verdict"])) == (verdict, verdict,
                                                                                          llr, at)
    assert t["agents"] == ["greedy", "random"] and t["scheduled_pairs"] == 200 and t["test"].startswith("elo0=0")
    assert c.get("/api/standings").json()["sprt"] == tests
    page = c.get("/").text
    assert 'id="sprt"' in page and f"{verdict} accepted at pair {at}" in page
    # a run whose process is alive and whose test has no verdict yet is running
    doc = json.loads(published[0].read_text())
    doc.update(test="elo0=0,elo1=1,alpha=0.01,beta=0.01", pid=os.getpid())
    published[0].write_text(json.dumps(doc))
    t = c.get("/api/sprt").json()["sprt"][0]
    assert t["state"] == "running" and t["verdict"] is None and t["pairs"] >= int(at)
    assert '<span class="verdict running">running</span>' in c.get("/").text


def test_the_card_report_is_served(store, tmp_path, monkeypatch):
    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "c.db"
    shutil.copy(store, db)
    out = tmp_path / "report"
    _locm("report", "--db", str(db), "-o", str(out))
    c = TestClient(create_app(db, index=tmp_path / "c.idx", cards=out))
    r = c.get("/cards", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/cards/"
    page = c.get("/cards/")
    assert page.status_code == 200 and page.text == (out / "index.html").read_text()
    assert c.get("/cards/cards.json").json() == json.loads((out / "cards.json").read_text())
    bare = TestClient(create_app(db, index=tmp_path / "c.idx", spectate=False))
    assert bare.get("/cards").status_code == 404 and "locm report --db" in bare.get("/cards").text
    assert not live.spool_of(db).exists() or live.spool_of(db).is_dir()


SLOW_BOT = '''
import sys, time
def turn():  # one turn of the referee's protocol (R-INPUT), read and dropped
    if not sys.stdin.readline():
        return False
    sys.stdin.readline()
    _, n = map(int, sys.stdin.readline().split())
    for _ in range(n):
        sys.stdin.readline()
    for _ in range(int(sys.stdin.readline())):
        sys.stdin.readline()
    return True
while turn():
    time.sleep(0.06)
    print("PASS", flush=True)
'''


def test_a_tournament_publishes_its_games_being_played_from_its_workers(tmp_path, monkeypatch, request):
    """The whole path: `locm tournament` (a sandboxed bot, so the games are played by worker processes) into a
    store whose spool the arena made; the arena lists the LOCM game being played and its feed grows."""
    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "t.db"
    where = Path(tempfile.mkdtemp(prefix="locm-arena-bot-"))  # the sandbox runs bots as their own user
    where.chmod(0o755)
    bot = where / "slow.py"
    bot.write_text(SLOW_BOT)
    bot.chmod(0o644)
    request.addfinalizer(lambda: shutil.rmtree(where, ignore_errors=True))
    _locm("tournament", "--agents", "greedy", "random", "--games", "2", "--db", str(db))
    c = TestClient(create_app(db, index=tmp_path / "t.idx", live_secret=b"s" * 16))
    assert live.spool_of(db).is_dir()
    spec = f"{sys.executable} {bot}"
    run = subprocess.Popen([*LOCM, "tournament", "--agents", spec, "greedy", "--games", "2", "--seed", "40",
                            "--timeouts", "x20", "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        listed = _wait(lambda: c.get("/api/live").json()["games"] or run.poll() is not None and [{}], timeout=60)
        assert run.poll() is None, run.communicate()
        assert listed[0]["game"] == "locm" and set(listed[0]["agents"]) == {spec, "greedy"}
        assert "game_id" not in listed[0]
        feed = Feed(_wait(lambda: next(iter(live.spool_of(db).glob("*.jsonl")), None)))
        sizes, got = [], []
        while not feed.ended:
            got += feed.poll()[0]
            sizes.append(len(got))
            time.sleep(0.2)
        assert len(set(sizes)) > 2  # it grew while played
        assert [e[0] for e in got] == list(range(len(got))) and len(got) > 50
        draws = [e for e in got if e[1] == "card_drawn"]
        assert draws and all(re.fullmatch(r"P[01] draws a card", e[4]) for e in draws)
    finally:
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err[-2000:]
    assert c.get("/api/games", params={"agent": spec}).json()["games"]  # stored, and the spool emptied
    assert list(live.spool_of(db).glob("*.jsonl")) == []


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed")
def test_in_a_browser_the_standings_follow_a_running_test(tmp_path, monkeypatch):
    """The standings page polls the tests while one runs: a run's published test that the stored pairs leave
    open shows "running"; when what it publishes says otherwise the page shows the verdict, without a reload."""
    import uvicorn

    from tests.cdp import Browser

    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "sprt.db"
    live.spool_of(db).mkdir()
    run = _locm("tournament", "--agents", "greedy", "random", "--games", "400", "--db", str(db),
                "--sprt", "elo0=0,elo1=150,alpha=0.05,beta=0.05")
    verdict, _, at = _sprt_text(run.stdout)
    published = next(live.spool_of(db).glob("sprt-*.json"))
    done = published.read_text()
    doc = json.loads(done)
    published.write_text(json.dumps({**doc, "test": "elo0=0,elo1=1,alpha=0.01,beta=0.01", "pid": os.getpid()}))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(db, index=tmp_path / "i.idx"), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait(lambda: server.started)
    browser = Browser(_chromium(), str(tmp_path / "profile"))
    try:
        browser.open(f"http://127.0.0.1:{port}/", ready="document.getElementById('sprt') !== null")
        assert browser.eval("document.querySelector('#sprt .verdict').textContent") == "running"
        browser.eval("window.notReloaded = true")
        published.write_text(done)
        browser.wait_for("document.querySelector('#sprt .verdict').textContent.startsWith('H')", timeout=20)
        assert browser.eval("document.querySelector('#sprt .verdict').textContent") == \
            f"{verdict} accepted at pair {at}"
        assert browser.eval("window.notReloaded === true")
    finally:
        browser.close()
        server.should_exit = True
        thread.join(10)
