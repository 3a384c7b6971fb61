"""The viewer (`replay/viewer.html`) shows the command that plays on from the event being viewed, and that
command, run as shown, plays on from there (Playwright for Python driving the system Chromium)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from locm.engine import core, registry
from locm.engine.position import cut
from locm.replay.html import render_html
from locm.replay.sources import open_stored
from locm.store.eventstore import GameExtras, open_store

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extras)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium on PATH (apt-get install chromium)")


def test_the_viewer_shows_the_command_to_play_on_from_the_event_viewed(tmp_path):
    game = registry.get("locm")
    db = tmp_path / "g.db"
    log = core.play(game, "1.2", 13, ("greedy", "random")).log
    gid = game.game_id(log[0])
    with open_store(db) as store:
        store.append_game(game, GameExtras(game_id=gid), log)
    page = tmp_path / "g.html"
    page.write_text(render_html(open_stored(db, gid)), encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pg = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        pg.goto(page.as_uri() + "#seq=150")
        shown = pg.inner_text("#detail code.cont")
        browser.close()
    assert shown == f"locm play --from {gid} --seq 150 --db {db} --agents greedy,random"
    argv = shlex.split(shown)[1:]
    argv[argv.index("--agents") + 1] = "greedy,lookahead"  # another player on seat 1
    r = subprocess.run([sys.executable, "-m", "locm.cli.main", *argv], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert f"played on from seq {cut(log, 150)} of {gid}" in r.stdout and "stored: cont-1.2-13-" in r.stdout
