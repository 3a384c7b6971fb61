"""The one replay viewer (`replay/viewer.html`) of every game in a real browser: Playwright for Python driving
the system Chromium. For LOCM, my-card-game and Skyport: the page opens at the first event, steps by button
and by key, plays by itself and pauses, plays faster at a faster speed, opens the event and the perspective a
URL fragment names, hides the other seat's hand (and the words of its draws) in a seat's view, and shows no
raw JSON; at 800 and 1920 px nothing runs off the page, the header keeps one row of controls and no card name
is cut. Screenshots of each go under $TMPDIR (``locm-viewer-shots/``) for a person to look at."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from locm.engine import core, registry
from locm.replay import open_game
from locm.replay.game import Replay
from locm.replay.html import render_html

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_12 = ROOT / "tests" / "golden" / "1.2-seed7-greedy-vs-random.jsonl"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extras)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no system Chromium on PATH (apt-get install chromium)")
SHOTS = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "locm-viewer-shots"


def _replays() -> dict[str, Replay]:
    mcg, sky = registry.get("mcg"), registry.get("skyport")
    return {"locm": open_game(GOLDEN_12),
            "mcg": Replay(core.play(mcg, "standard", 7, ("greedy", "random")).log, source="mcg seed 7", game=mcg),
            "skyport": Replay(core.play(sky, sky.rules("2013"), 3, ("hunter", "random")).log, source="skyport seed 3",
                              game=sky)}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("viewer")
    found = {}
    for name, r in _replays().items():
        path = out / f"{name}.html"
        path.write_text(render_html(r), encoding="utf-8")
        found[name] = (path.as_uri(), r)
    return found


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # the page forbids eval
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert not errors, errors


GAMES = ("locm", "mcg", "skyport")


def seq(pg) -> int:
    return int(pg.eval_on_selector("#app", "a => a.dataset.seq"))


def shown(pg) -> str:
    return pg.inner_text("#detail")


@pytest.mark.parametrize("game", GAMES)
def test_it_opens_at_the_first_event_and_steps_by_button_and_key(pages, page, game):
    url, r = pages[game]
    page.goto(url)
    assert seq(page) == 0 and page.inner_text("#events li.cur .s") == "0"
    first = shown(page)
    page.click("#nev")
    assert seq(page) == 1 and shown(page) != first and page.url.endswith("#seq=1")
    page.keyboard.press("ArrowRight")
    assert seq(page) == 2
    page.keyboard.press("ArrowLeft")
    page.click("#pev")
    assert seq(page) == 0 and shown(page) == first
    page.click("#nturn")
    assert seq(page) == r.turns()[0].start_seq or seq(page) == next(t.start_seq for t in r.turns() if t.start_seq > 0)
    page.keyboard.press("End")
    assert seq(page) == r.last_seq
    page.keyboard.press("Home")
    assert seq(page) == 0


@pytest.mark.parametrize("game", GAMES)
def test_play_advances_by_itself_pause_stops_it_and_the_speed_sets_the_pace(pages, page, game):
    url, r = pages[game]
    page.goto(url)
    page.select_option("#speed", "50")
    page.click("#play")
    assert page.eval_on_selector("#app", "a => a.dataset.playing") == "1"
    page.wait_for_function("+document.getElementById('app').dataset.seq >= 5", timeout=5000)
    page.keyboard.press(" ")  # space pauses
    assert page.eval_on_selector("#app", "a => a.dataset.playing") == "0"
    stopped = seq(page)
    page.wait_for_timeout(400)
    assert seq(page) == stopped
    # the pace: 1 event a second moves at most 2 in 1.2 s; 20 a second moves at least 10 in 1.2 s
    paces = {}
    for interval in ("1000", "50"):
        page.select_option("#speed", interval)
        assert page.eval_on_selector("#app", "a => a.dataset.interval") == interval
        start = seq(page)
        page.click("#play")
        page.wait_for_timeout(1200)
        page.click("#play")
        paces[interval] = seq(page) - start
    assert paces["1000"] <= 2 and paces["50"] >= 10, paces


@pytest.mark.parametrize("game", GAMES)
def test_the_fragment_opens_the_event_and_the_perspective(pages, page, game):
    url, r = pages[game]
    s = r.last_seq // 2
    page.goto(f"{url}#seq={s}&as=1")
    assert seq(page) == s and page.eval_on_selector("#app", "a => a.dataset.as") == "1"
    assert page.input_value("#as") == "1"
    assert page.inner_text("#events li.cur .s") == str(s)
    assert r.describe(s) in shown(page) or r.wing.words(r, s) in shown(page)


def _battle_seq(r: Replay, game: str) -> int:
    """An event after which the opponent of seat 0 holds cards."""
    for t in r.turns()[3:]:
        v = r.view(t.start_seq, None)
        hands = ([len(p["hand"]) for p in v["players"]] if game == "locm"
                 else [len(s["you"]["hand"]) for s in v["seats"]])
        if hands[1] >= 2:
            return t.start_seq
    raise AssertionError("no turn where seat 1 holds cards")


@pytest.mark.parametrize("game", ("locm", "mcg"))
def test_a_seats_view_hides_the_other_hand_and_what_it_drew(pages, page, game):
    url, r = pages[game]
    s = _battle_seq(r, game)
    page.goto(f"{url}#seq={s}")
    spectator = page.locator("[data-zone=hand1] [data-id]").count()
    assert spectator >= 2 and page.locator("[data-zone=hand1] .back").count() == 0
    page.select_option("#as", "0")
    assert page.url.endswith(f"#seq={s}&as=0")
    assert page.locator("[data-zone=hand1] [data-id]").count() == 0
    assert page.locator("[data-zone=hand1] .back").count() == spectator
    assert page.locator("[data-zone=hand0] [data-id]").count() >= 1  # its own hand stays shown
    # the words of seat 1's draws name no card in seat 0's view, and do in seat 1's
    drawn = next(e for e in r.events if type(e).__name__.endswith("CardDrawn") and e.player == 1 and e.seq > 20)
    words = page.locator("#events li:not(.turnhead) .d").nth(drawn.seq)
    assert words.inner_text() in ("P1 draws a card", "player 1 draws a card")
    page.select_option("#as", "1")
    assert words.inner_text() == r.describe(drawn.seq) and "draws a card" not in words.inner_text()


def test_skyport_offers_every_seat_and_hides_nothing_it_has_not(pages, page):
    """Skyport has no hidden information: each seat's view is offered (and linked) and shows the same robots."""
    url, r = pages["skyport"]
    s = r.last_seq // 2
    page.goto(f"{url}#seq={s}")
    whole = page.inner_text("#legend")
    options = page.eval_on_selector_all("#as option", "os => os.map(o => o.value)")
    assert options == ["", "0", "1"]
    page.select_option("#as", "1")
    assert page.url.endswith(f"#seq={s}&as=1") and page.inner_text("#legend") == whole


@pytest.mark.parametrize("game", GAMES)
def test_no_raw_json_anywhere_on_the_page(pages, page, game):
    url, r = pages[game]
    for s in (0, r.last_seq // 3, r.last_seq // 2, r.last_seq):
        page.goto(f"{url}#seq={s}")
        page.wait_for_function(f"document.getElementById('app').dataset.seq === '{s}'")
        text = page.inner_text("body")
        assert '{"' not in text and '\\"' not in text, (game, s, re.findall(r'.{40}\{".{40}', text)[:2])
        listed = page.inner_text("#events")  # no event printed as its fields (a rule's own text may quote some)
        assert not re.search(r"\b[a-z_]+=\(?['\"(\d]", listed), (game, s)


@pytest.mark.parametrize("width", (800, 1920))
@pytest.mark.parametrize("game", GAMES)
def test_readable_from_800_to_1920_px(pages, browser, game, width):
    url, r = pages[game]
    pg = browser.new_page(viewport={"width": width, "height": 1080 if width > 1000 else 900}, bypass_csp=True)
    try:
        s = _battle_seq(r, game) if game != "skyport" else r.last_seq // 2
        pg.goto(f"{url}#seq={s}")
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"{game}-{width}.png"))
        assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing off the right
        rows = pg.eval_on_selector_all(".controls > *", "es => es.map(e => [e.getBoundingClientRect().top, "
                                                        "e.getBoundingClientRect().bottom])")
        assert max(t for t, _ in rows) < min(b for _, b in rows), rows  # one row of controls: none wraps
        title = pg.eval_on_selector("#title", "e => e.getBoundingClientRect().width")
        assert title > 200  # the title keeps room
        cut = pg.eval_on_selector_all(".card .name", "es => es.filter(e => e.scrollWidth > e.clientWidth + 1)"
                                                     ".map(e => e.textContent)")
        assert cut == [], cut
        wide = pg.eval_on_selector_all("table", "ts => ts.filter(t => t.getBoundingClientRect().right > "
                                                "window.innerWidth).length")
        assert wide == 0
    finally:
        pg.close()
