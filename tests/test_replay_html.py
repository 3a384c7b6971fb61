"""`locm html` in a real browser (headless Chromium): the board drawn at several seqs and perspectives is
exactly what `locm show --json` says; the file is self-contained and small."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.replay import open_game
from tests.helpers import LOG_15

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_12 = ROOT / "tests" / "golden" / "1.2-seed7-greedy-vs-random.jsonl"
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
VOID = {"meta", "input", "br", "img", "link", "hr", "col", "source", "wbr", "area", "base", "embed", "track"}


class Zones(HTMLParser):
    """Cards (``data-id``) per enclosing ``data-zone``, card backs per zone, and the root's ``data-seq``."""

    def __init__(self):
        super().__init__()
        self.stack: list[str | None] = []
        self.cards: dict[str, list[dict]] = {}
        self.backs: dict[str, int] = {}
        self.seq = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "app":
            self.seq = int(a["data-seq"])
        zone = a.get("data-zone") or next((z for z in reversed(self.stack) if z), None)
        if "data-id" in a and zone:
            self.cards.setdefault(zone, []).append(a)
        if "back" in (a.get("class") or "").split() and zone:
            self.backs[zone] = self.backs.get(zone, 0) + 1
        if tag not in VOID:
            self.stack.append(a.get("data-zone"))

    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.stack.pop()


def dump_dom(page: Path, fragment: str, tmp_path: Path) -> Zones:
    res = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri() + fragment],
        capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    z = Zones()
    z.feed(res.stdout)
    return z


def show_json(source, seq, perspective):
    args = ["show", *source, "--seq", str(seq), "--json"] + ([] if perspective is None else ["--as", str(perspective)])
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def card_key(c: dict) -> tuple:
    return (int(c["id"]), int(c["attack"]), int(c["defense"]), c["keywords"])


def drawn_key(a: dict) -> tuple:
    return (int(a["data-id"]), int(a["data-attack"]), int(a["data-defense"]), a["data-keywords"])


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
@pytest.mark.parametrize("name, source", [("1.2", [str(GOLDEN_12)]), ("1.5", [str(LOG_15), "--game", "3"])])
def test_the_page_draws_what_show_json_says(tmp_path, name, source):
    page = tmp_path / "game.html"
    res = CliRunner().invoke(cli, ["html", *source, "-o", str(page)])
    assert res.exit_code == 0, res.output
    r = open_game(source[0], game=int(source[2]) if len(source) > 2 else None)
    turns = r.turns()
    picks = [(turns[2].start_seq, None), (turns[len(turns) // 2].start_seq + 3, 0),
             (turns[-3].last_seq, 1), (r.last_seq, None)]
    for seq, perspective in picks:
        frag = f"#seq={seq}" + ("" if perspective is None else f"&as={perspective}")
        z = dump_dom(page, frag, tmp_path)
        v = show_json(source, seq, perspective)
        assert z.seq == seq
        for p, pl in enumerate(v["players"]):
            drawn_board = [drawn_key(a) for a in z.cards.get(f"board{p}", [])]
            assert drawn_board == [card_key(c) for lane in pl["board"] for c in lane], (name, seq, p)
            ready = [a["data-can-attack"] == "1" for a in z.cards.get(f"board{p}", [])]
            assert ready == [c["can_attack"] for lane in pl["board"] for c in lane]
            if isinstance(pl["hand"], list):
                assert [drawn_key(a) for a in z.cards.get(f"hand{p}", [])] == [card_key(c) for c in pl["hand"]]
            else:
                assert f"hand{p}" not in z.cards and z.backs.get(f"hand{p}", 0) == pl["hand"]


def test_the_page_is_self_contained_and_small(tmp_path):
    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["html", str(GOLDEN_12), "-o", str(page)]).exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert len(open_game(GOLDEN_12)) >= 300 and len(text.encode()) < 1_000_000
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)
    assert "<link" not in text and "@import" not in text and "fetch(" not in text
    assert text.count('"R-ATTACK"') >= 1 and "dataset.zone" in text


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_buttons_keys_perspective_and_event_clicks_drive_the_page(tmp_path):
    from locm.replay.locm.terminal import stops
    from tests.cdp import Browser

    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["html", str(GOLDEN_12), "-o", str(page)]).exit_code == 0
    r = open_game(GOLDEN_12)
    marks, starts = stops(r), [t.start_seq for t in r.turns()]
    s0 = r.turn_start(3)
    b = Browser(BROWSER, str(tmp_path / "profile"))
    try:
        b.open(page.resolve().as_uri() + f"#seq={s0}")
        seq = lambda: int(b.eval("document.getElementById('app').dataset.seq"))  # noqa: E731
        click = lambda i: b.eval(f"document.getElementById('{i}').click()")  # noqa: E731
        key = lambda k, shift="false": b.eval(  # noqa: E731
            f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{k}', shiftKey: {shift}}}))")
        assert seq() == s0
        click("nact")
        assert seq() == next(s for s in marks if s > s0)
        click("pact")
        assert seq() == s0
        key("ArrowRight", shift="true")  # Shift+arrow: by action; an arrow: by event
        assert seq() == next(s for s in marks if s > s0)
        key("ArrowLeft", shift="true")
        key("ArrowRight")
        assert seq() == s0 + 1
        key("ArrowLeft")
        key(".")
        assert seq() == s0 + 1
        key(",")
        click("nturn")
        assert seq() == next(s for s in starts if s > s0)
        key("[")
        assert seq() == s0
        key("v")
        assert b.eval("document.getElementById('app').dataset.as") == "0"
        assert b.eval("location.hash") == f"#seq={s0}&as=0"
        assert b.eval("document.querySelectorAll('[data-zone=hand1] [data-id]').length") == 0
        backs = b.eval("document.querySelectorAll('[data-zone=hand1] .back').length")
        assert backs == r.view(s0, 0)["players"][1]["hand"]
        key("v"), key("v")
        died = next(e for e in r.events if type(e).__name__ == "CreatureDied")
        b.eval(f"document.querySelectorAll('#events li:not(.turnhead)')[{died.seq}].click()")
        assert seq() == died.seq
        detail = b.eval("document.getElementById('detail').innerText")
        assert f"#{died.seq} creature died" in detail and died.rule in detail
        assert str(r.causes(died.seq)[-1].seq) in detail and "leaves the board" in detail
        key("End")
        assert seq() == r.last_seq and "wins" in b.eval("document.getElementById('table').innerText")
        key("Home")
        assert seq() == 0
    finally:
        b.close()


# --- what a designer reads next: card text, arrows, the draft's picks, the deck being built -----------------


def _open(tmp_path, source: list[str], fragment: str):
    from tests.cdp import Browser

    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["html", *source, "-o", str(page)]).exit_code == 0
    b = Browser(BROWSER, str(tmp_path / "profile"))
    b.open(page.resolve().as_uri() + fragment)
    return b


def _go(b, seq: int, perspective=None) -> None:
    b.eval(f"location.hash = '#seq={seq}" + ("" if perspective is None else f"&as={perspective}") + "'")
    b.wait_for(f"document.getElementById('app').dataset.seq === '{seq}'")


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_hovering_a_card_shows_its_text_keywords_and_effects(tmp_path):
    from locm.engine.locm.carddata import cardlist_12
    from locm.events.locm.cards import keywords_to_str

    r = open_game(GOLDEN_12)
    cards = cardlist_12()
    b = _open(tmp_path, [str(GOLDEN_12)], f"#seq={r.turn_start(6)}")
    try:
        checked = 0
        for seq in [t.start_seq for t in r.turns()][4:16]:
            _go(b, seq)
            ids = b.eval("[...document.querySelectorAll('#table .card[data-id]')].map(e => +e.dataset.id)")
            for i in ids:
                card = cards[r.final.units[i].card.base_id]
                b.eval(f"document.querySelector('#table .card[data-id=\"{i}\"]').dispatchEvent("
                       "new MouseEvent('mouseover', {bubbles: true}))")
                text = b.eval("document.getElementById('tip').innerText")
                assert b.eval("getComputedStyle(document.getElementById('tip')).display") == "block"
                assert b.eval("document.getElementById('tip').dataset.for") == f"id{i}"
                assert card.name in text and f"cost {card.cost}" in text and f"base {card.base_id}" in text
                if card.text:
                    assert card.text in text, (i, card.text, text)
                for letter, word in zip("BCDGLW", ("Breakthrough", "Charge", "Drain", "Guard", "Lethal", "Ward")):
                    now = b.eval(f"document.querySelector('#table .card[data-id=\"{i}\"]').dataset.keywords")
                    assert (word in text) == (letter in now.replace("-", "")), (i, word, now, text)
                if card.my_health:
                    assert f"you {'gain' if card.my_health > 0 else 'lose'} {abs(card.my_health)} health" in text
                if card.draw:
                    assert f"draw {card.draw} card" in text
                checked += 1
        assert checked >= 40
        assert keywords_to_str(0) == "------"
    finally:
        b.close()


def _arrow_events(r):
    from locm.events.locm.catalog import CreatureAttacked, ItemUsed

    return [e for e in r.events if type(e) is CreatureAttacked or (type(e) is ItemUsed and e.target != -1)]


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
@pytest.mark.parametrize("name, source", [("1.2", [str(GOLDEN_12)]), ("1.5", [str(LOG_15), "--game", "3"])])
def test_an_attack_or_an_item_is_drawn_as_an_arrow_to_its_target(tmp_path, name, source):
    from locm.events.locm.catalog import CreatureAttacked

    r = open_game(source[0], game=int(source[2]) if len(source) > 2 else None)
    events = _arrow_events(r)[:12]
    assert len(events) >= 6
    b = _open(tmp_path, source, f"#seq={events[0].seq}")
    try:
        for e in events:
            _go(b, e.seq)
            arrows = b.eval("[...document.querySelectorAll('#arrows g')].map(g => [g.dataset.kind, g.dataset.from, "
                            "g.dataset.to])")
            attack = type(e) is CreatureAttacked
            src = e.attacker if attack else e.id
            dst = str(e.target) if e.target != -1 else f"face{1 - e.player}"
            kind = "attack" if attack else ("itemGreen", "itemRed", "itemBlue")[r.final.units[e.id].card.type - 1]
            assert arrows == [[kind, str(src), dst]], (name, e.seq, arrows)
            # the head touches the target: the creature's card, or the health of the player attacked
            target = (f'[data-face="{1 - e.player}"]' if e.target == -1 else f'#table .card[data-id="{e.target}"]')
            inside = b.eval(
                "(() => { const p = document.querySelector('#arrows polygon').getAttribute('points').split(',')"
                ".map(Number); const t = document.getElementById('table'), o = t.getBoundingClientRect();"
                f" const r = document.querySelector({json.dumps(target)}).getBoundingClientRect();"
                " const x = p[0] + o.left - t.scrollLeft, y = p[1] + o.top - t.scrollTop;"
                " return x >= r.left - 1 && x <= r.right + 1 && y >= r.top - 1 && y <= r.bottom + 1; })()")
            assert inside, (name, e.seq)
        # an event of no attack and no item: no arrow
        quiet = next(e for e in r.events if type(e).__name__ == "TurnStarted" and e.seq > events[0].seq)
        _go(b, quiet.seq)
        assert b.eval("document.querySelectorAll('#arrows g').length") == 0
    finally:
        b.close()


def _shown_picks(b, p: int) -> list[int]:
    return b.eval(f"[...document.querySelectorAll('[data-zone=picks{p}] [data-base]')]"
                  ".flatMap(e => Array(+e.dataset.count).fill(+e.dataset.base))")


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_the_draft_shows_each_players_picks_so_far_and_hides_the_other_players(tmp_path):
    r = open_game(GOLDEN_12)
    picked = [e for e in r.events if type(e).__name__ == "CardPicked"]
    b = _open(tmp_path, [str(GOLDEN_12)], f"#seq={picked[0].seq}")
    try:
        for e in (picked[0], picked[21], picked[40], picked[-2]):
            _go(b, e.seq)
            for p in (0, 1):
                assert sorted(_shown_picks(b, p)) == sorted(r.state_at(e.seq).players[p].picks), (e.seq, p)
            _go(b, e.seq, perspective=0)
            assert sorted(_shown_picks(b, 0)) == sorted(r.state_at(e.seq).players[0].picks)
            assert _shown_picks(b, 1) == [] and "hidden from player 0" in b.eval(
                "document.querySelector('[data-zone=picks1]').innerText")
            b.eval("document.querySelector('[data-zone=picks0] [data-base]').dispatchEvent("
                   "new MouseEvent('mouseover', {bubbles: true}))")
            assert b.eval("document.getElementById('tip').dataset.for").startswith("base")
    finally:
        b.close()


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_constructed_deck_building_shows_the_chosen_deck_not_a_wall_of_choose(tmp_path):
    r = open_game(str(LOG_15), game=3)
    chosen = [e for e in r.events if type(e).__name__ == "DeckChosen"]
    b = _open(tmp_path, [str(LOG_15), "--game", "3"], f"#seq={chosen[0].seq}")
    try:
        assert sorted(_shown_picks(b, 0)) == sorted(chosen[0].base_ids) and _shown_picks(b, 1) == []
        _go(b, chosen[1].seq)
        assert [sorted(_shown_picks(b, p)) for p in (0, 1)] == [sorted(c.base_ids) for c in chosen]
        line = b.eval(f"document.querySelectorAll('#events li:not(.turnhead)')[{chosen[0].seq - 1}].innerText")
        assert "30 CHOOSE (the deck is on the table)" in line and len(line) < 100
    finally:
        b.close()


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_the_page_of_a_forged_log_has_a_banner_and_marks_each_forged_event(tmp_path):
    """One event of a log edited (an attack's damage raised): the page says so at the top, marks that event
    and, in its detail, gives what the rules give instead."""
    import msgspec

    from locm.events.locm.codec import from_jsonl, to_jsonl

    events = from_jsonl(GOLDEN_12.read_bytes())
    k = next(e.seq for e in events if type(e).__name__ == "CreatureDamaged")
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(to_jsonl(events[:k] + [msgspec.structs.replace(events[k], amount=events[k].amount + 1)]
                                + events[k + 1:]))
    page = tmp_path / "forged.html"
    res = CliRunner().invoke(cli, ["html", str(forged), "-o", str(page)])
    assert res.exit_code == 1 and res.stdout.startswith("WARNING: ")
    assert "marked as not what the rules give" in res.stdout
    dom = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri() + f"#seq={k}"],
        capture_output=True, text=True, timeout=120).stdout
    banner = re.search(r'<div class="warning" id="warning">([^<]*)</div>', dom)
    assert banner and banner.group(1).startswith(f"WARNING: {forged}: this log does not follow the rules: it departs "
                                                 f"from them at seq {k}")
    marked = re.findall(r'<li class="[^"]*forged[^"]*"><span class="s">(\d+)</span>', dom)
    assert marked and int(marked[0]) == k and len(marked) == len(open_game(forged).departures)
    assert "Not what the rules give: the event differs from what the rules give; the rules give " in dom
    clean = tmp_path / "clean.html"
    assert CliRunner().invoke(cli, ["html", str(GOLDEN_12), "-o", str(clean)]).exit_code == 0
    assert "forged" not in re.sub(r"<style>.*?</style>|<script.*?</script>", "", clean.read_text(), flags=re.S)
