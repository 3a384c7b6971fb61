"""Skyport games played through its server, watched live (issue 33 item 7, issue 35's live view): a game with a
client seat (`locm play --game skyport` starting a client, `locm serve` with a client that connects by itself)
is published to the store's live spool while it runs, under a name of its own (its id, which may name its
whole log, is known only at its end and is then said); `locm arena` lists it and streams it, with the board
the viewer draws (Skyport hides nothing: every event and the whole board are shown).

The clients are real: examples/skyport/client.py, slowed down to a spectator's pace (it thinks ``DELAY``
seconds a turn), started by locm as a seat's command or connecting to `locm serve`'s port.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the arena's web framework is not installed")
from starlette.testclient import TestClient  # noqa: E402

from locm.arena.app import create_app  # noqa: E402
from locm.arena.live import Feed  # noqa: E402
from locm.engine import registry  # noqa: E402
from locm.replay.game import Replay  # noqa: E402
from locm.runner import live  # noqa: E402
from locm.store.eventstore import open_store  # noqa: E402

LOCM = [sys.executable, "-m", "locm.cli.main"]
CLIENT = Path(__file__).resolve().parents[1] / "examples" / "skyport" / "client.py"
SLOW_CLIENT = f'''
import sys, time
sys.path.insert(0, {str(CLIENT.parent)!r})
import client
played = client.Bot.turn
def turn(self, players):
    time.sleep({{delay}})
    return played(self, players)
client.Bot.turn = turn
client.main()
'''


def _slow_client(where: Path, delay: float) -> Path:
    path = where / "slow_client.py"
    path.write_text(SLOW_CLIENT.replace("{delay}", str(delay)))
    return path


def _wait(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """A store with one Skyport game in it (the arena serves an existing store)."""
    monkeypatch.delenv(live.ENV, raising=False)
    db = tmp_path / "sky.db"
    run = subprocess.run([*LOCM, "serve", "--game", "skyport", "--map", "duel-2p", "--turns", "4", "--seed", "1",
                          "--seat", "hunter", "--seat", "random", "--db", str(db)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return db


def _stored_ids(db: Path) -> set[str]:
    with open_store(db, create=False, readonly=True) as s:
        return {g.game_id for g in s.games(game="skyport")}


def test_a_skyport_game_with_a_client_seat_is_watched_while_it_is_played(store, tmp_path):
    """`locm play --game skyport` with a client started by locm: the arena lists the game while it is played,
    its feed grows, every event in words as it will be stored (nothing is hidden), the board has both robots,
    and its end says the id it was stored under."""
    c = TestClient(create_app(store, index=tmp_path / "i.idx", live_secret=b"k" * 16))
    assert live.spool_of(store).is_dir()
    spec = f"{sys.executable} {_slow_client(tmp_path, 0.04)} {{host}} {{port}}"
    before = _stored_ids(store)
    run = subprocess.Popen([*LOCM, "play", "--game", "skyport", "--seed", "5", "--p0", "hunter", "--p1", spec,
                            "--no-sandbox", "--db", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        listed = _wait(lambda: c.get("/api/live").json()["games"] or run.poll() is not None and [{}], timeout=60)
        assert run.poll() is None, run.communicate()
        assert listed[0]["game"] == "skyport" and listed[0]["agents"] == ["hunter", spec]
        assert c.get(f"/live/games/{listed[0]['handle']}").status_code == 200
        path = _wait(lambda: next(iter(live.spool_of(store).glob("skyport-live-*.jsonl")), None))
        feed = Feed(path)
        got, sizes, frames = [], [], []
        while not feed.ended:
            got += feed.poll()[0]
            sizes.append(len(got))
            frame = feed.frame()
            if frame is not None:
                frames.append(frame)
            time.sleep(0.2)
    finally:
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err[-2000:]
    assert len(set(sizes)) > 3  # it came in while the game was played, not at its end
    stored = _stored_ids(store) - before
    assert len(stored) == 1 and feed.stored_id in stored and f"stored: {feed.stored_id}" in out + err
    with open_store(store, create=False, readonly=True) as s:
        events = list(s.events(feed.stored_id))
    assert [e[0] for e in got] == list(range(len(events)))
    full = Replay(events, game=registry.get("skyport"))
    assert all(full.wing.private(full, seq) is None for seq in range(len(events)))  # Skyport hides nothing
    assert [e[4] for e in got[1:]] == [full.wing.words(full, seq) for seq in range(1, len(events))]
    assert got[0][4] == f"Skyport: hunter vs {spec}"
    assert any(e[1] in ("laser_fired", "mortar_fired", "droid_fired") for e in got)  # shots were streamed
    assert len(frames) > 3
    last = frames[-1]
    board = last["svg"]
    assert last["seqs"][-1] == len(events) - 1 and list(board["frames"]) == [str(q) for q in last["seqs"]]
    drawn = [q for f in frames for q in f["seqs"]]
    assert drawn == sorted(set(drawn))  # each event's board once, in order
    robots = [board["robots"][i] for i in board["frames"][str(len(events) - 1)][1]]
    names = [board["names"][r[1]] for r in robots]
    assert [r[0] for r in robots] == [0, 1] and names == [rb.name for rb in full.history.state_at(len(events) - 1)
                                                              .robots]
    assert [r[4] for r in robots] == [rb.health for rb in full.history.state_at(len(events) - 1).robots]
    assert list(live.spool_of(store).glob("*.jsonl")) == []  # the file goes when the game is over


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed")
def test_in_a_browser_a_served_skyport_game_is_watched_on_its_board(store, tmp_path):
    """`locm serve --game skyport` with a seat that a client takes by itself (the game's id names its whole
    log): the live list shows it, the watch page draws the hex map and both robots with their names and
    health, shots as they happen, and at its end links the replay under the id it was stored under."""
    import uvicorn

    from tests.cdp import Browser

    port = _free_port()
    app = create_app(store, live_poll=0.1, index=tmp_path / "w.idx")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait(lambda: server.started)
    url = f"http://127.0.0.1:{port}"
    game_port = _free_port()
    serve = subprocess.Popen([*LOCM, "serve", "--game", "skyport", "--map", "duel-2p", "--turns", "120", "--seed", "8",
                              "--seat", "hunter", "--port", str(game_port), "--db", str(store)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client = None
    browser = Browser(_chromium(), str(tmp_path / "profile"))
    try:
        assert "waiting for 1 client(s)" in serve.stderr.readline() + serve.stderr.readline()
        client = subprocess.Popen([sys.executable, str(_slow_client(tmp_path, 0.1)), "127.0.0.1", str(game_port),
                                   "watched"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        browser.open(f"{url}/live/games", ready="document.getElementById('live') !== null")
        browser.wait_for("document.querySelector('#live a') !== null", timeout=30)
        assert browser.eval("document.querySelector('#live tbody tr td:nth-child(2)').textContent") == "skyport"
        browser.eval("location.href = document.querySelector('#live a').href")
        browser.wait_for("document.querySelectorAll('#svgboard .robot').length === 2", timeout=30)
        assert "hides nothing" in browser.eval("document.querySelector('.panel p').textContent")
        robots = json.loads(browser.eval("JSON.stringify([...document.querySelectorAll('#svgboard .robot')].map("
                                         "g => [g.dataset.slot, g.dataset.health, g.querySelector('title')"
                                         ".textContent]))"))
        assert sorted(r[0] for r in robots) == ["0", "1"]
        titles = " ".join(r[2] for r in robots)
        assert "watched" in titles and "hunter" in titles
        assert all(re.fullmatch(r"-?\d+", r[1]) for r in robots)
        assert browser.eval("document.querySelectorAll('#layer polygon').length") > 20  # the hex map
        assert "health" in browser.eval("document.querySelector('#legend table').textContent")
        first = int(browser.eval("+document.getElementById('table').dataset.seq"))
        browser.wait_for(f"+document.getElementById('table').dataset.seq > {first}", timeout=30)
        assert serve.poll() is None  # the board moved on while the game was played
        browser.wait_for("+document.getElementById('table').dataset.shots > 0", timeout=60)  # shots, as they happen
        browser.wait_for("document.getElementById('replay') !== null", timeout=120)
        out, err = serve.communicate(timeout=60)
        assert serve.returncode == 0, err[-2000:]
        stored = re.search(r"stored: (\S+) in", err).group(1)
        assert re.fullmatch(r"skyport-\S+-8-[0-9a-f]{12}", stored)  # named by its whole log
        assert browser.eval("document.getElementById('replay').getAttribute('href')") == f"/games/{stored}"
        n = browser.eval("document.querySelectorAll('#feed li').length")
        with open_store(store, create=False, readonly=True) as s:
            assert n == len(list(s.events(stored)))
    finally:
        browser.close()
        for p in (serve, client):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        server.should_exit = True
        thread.join(10)


def test_a_forged_map_in_a_spool_file_draws_no_markup(tmp_path):
    """The spool's files are hostile: a map letter that is a quote or a bracket does not reach the board's
    SVG (which the page puts in with innerHTML) as markup."""
    import msgspec

    game = registry.get("skyport")
    match = game.new(game.rules("2013").replace(turn_limit=6), 3, ("hunter", "random"))
    players = [game.make_agent(a, 3, s) for s, a in enumerate(("hunter", "random"))]
    while not match.ended:
        players[match.to_move].play_turn(match, match.to_move)
    created = match.log[0]
    rows = list(created.map.rows)
    rows[0] = rows[0][:8] + '"/><b x'
    forged = msgspec.structs.replace(created, map=msgspec.structs.replace(created.map, rows=tuple(rows)))
    path = tmp_path / "forged.jsonl"
    header = {"live": 1, "game_id": "forged", "game": "skyport", "agents": ["a", "b"], "pid": os.getpid(),
              "started": time.time()}
    events = b",".join(game.codec.to_json(e) for e in [forged, *match.log[1:]])
    path.write_bytes(json.dumps(header).encode() + b"\n" + b'{"t":1,"events":[' + events + b"]}\n")
    feed = Feed(path)
    assert len(feed.poll()[0]) == len(match.log)
    frame = feed.frame()
    assert frame is not None
    tiles = frame["svg"]["tiles"]
    assert '"/><b' not in tiles and "<b" not in tiles
    assert set(re.findall(r'class="t(.)"', tiles)) <= set("GVSERCOU")
    feed.close()
