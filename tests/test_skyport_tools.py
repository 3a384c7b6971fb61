"""Skyport's tools over the viewer shell: the SVG board of `locm html` (replay.skyport.board)."""

from __future__ import annotations

import json
import math
import re
import subprocess
from html.parser import HTMLParser

import msgspec
import pytest

from locm.engine.skyport.commands import EndTurn, laser, move
from locm.engine.skyport.rules import RULES_2013
from locm.engine.skyport.definition import GAME, hex_text
from locm.engine.skyport.hexmap import DIRECTIONS, step
from locm.events.skyport.catalog import GameCreated, Hit, LaserFired
from locm.replay.game import Replay
from locm.replay.html import render_html
from locm.replay.skyport.board import H, board_data, centre, reach, score_chart
from tests.skyport_helpers import act, of, scenario
from tests.test_replay_html import BROWSER

# slot 0 at (0, 0), slot 1 at (0, 3), slot 2 at (0, 5); a rock at (1, 4)
ROCKY = ["SGGSGS", "GGGGOG"] + ["GGGGGG"] * 4
NAMES = ("alpha", "bravo", "charlie")


def _lined_up():
    """alpha at (1, 1) fires right-down: the beam hits bravo at (1, 3) and stops at the rock on (1, 4)."""
    g = scenario(ROCKY, NAMES, rules=msgspec.structs.replace(RULES_2013, turn_limit=9))
    act(g, move("down"))
    act(g, move("left-down"))
    act(g, move("left-down"))
    events = act(g, laser("right-down"), move("up"))
    while not g.over:  # the others pass until the turn limit
        g.submit(EndTurn(g.state.current))
    return g, events


def test_hexes_of_neighbouring_tiles_touch_in_every_direction():
    """Flat-topped hexagons: each of the six neighbours' centres is √3·side away (and none further)."""
    for d in DIRECTIONS:
        (x0, y0), (x1, y1) = centre((5, 5), 11), centre(step((5, 5), d), 11)
        assert math.isclose(math.hypot(x1 - x0, y1 - y0), 2 * H, rel_tol=1e-9), d


def test_the_laser_reach_stops_at_the_rock():
    g, _ = _lined_up()
    r = Replay(g.log, game=GAME)
    seq = next(e.seq for e in g.log if type(e).__name__ == "LaserFired") - 2  # alpha to move, at (1, 1)
    v = r.view(seq)
    assert v["to_move"] == [0] and tuple(v["robots"][0]["position"]) == (1, 1)
    ranges = reach(v, 0, g.state.rules)
    assert (1, 2) in ranges["laser"] and (1, 3) in ranges["laser"] and (1, 4) not in ranges["laser"]
    assert (1, 5) not in ranges["laser"]  # behind the rock


def test_the_shot_its_path_and_its_hit_are_kept_for_the_hit_event():
    g, events = _lined_up()
    r = Replay(g.log, game=GAME)
    fired = of(events, LaserFired)[0]
    hit = of(events, Hit)[0]
    assert fired.path == ((1, 2), (1, 3))
    data = board_data(r, list(range(len(r.events))))
    kind, player, points, boom, hits = data["shots"][data["frames"][str(hit.seq)][3]]
    assert (kind, player, boom) == ("laser", 0, None)
    assert points == [[1, 1], [1, 2], [1, 3]]  # the shooter's tile and the two of the path
    assert hits == [["hit", [1, 3], f"-{hit.amount}"]]
    assert data["frames"][str(fired.seq - 1)][3] == -1  # before the shot, in its turn: no shot drawn


def test_a_reach_is_kept_once_per_position_and_loadout():
    """Every frame's reach is `reach` of its robot to move; the table holds each distinct one once."""
    g, _ = _lined_up()
    r = Replay(g.log, game=GAME)
    data = board_data(r, list(range(len(r.events))))
    size = data["size"]
    moving = 0
    for seq in range(len(r.events)):
        seat, area = data["frames"][str(seq)][2], data["frames"][str(seq)][4]
        if seat < 0:
            assert area == -1
            continue
        moving += 1
        want = reach(r.view(seq), seat, g.state.rules)
        assert {w: sorted(divmod(t, size) for t in tiles) for w, tiles in data["reaches"][area]} == \
            {w: sorted(ts) for w, ts in want.items()}, seq
    assert len(data["reaches"]) < moving / 2  # robots stand still for many events of a turn


def test_a_hostile_name_stays_data():
    g, _ = _lined_up()
    created = g.log[0]
    bad = GameCreated(seq=0, cause=-1, rule=created.rule, rules=created.rules, map=created.map, seed=0,
                      names=("<script>alert(1)</script>", "b", "c"))
    r = Replay([bad, *g.log[1:]], game=GAME)
    data = board_data(r, list(range(len(r.events))))
    assert "<script>alert(1)</script>" in data["names"]  # text, drawn with textContent (the browser test)
    assert "<script" not in data["tiles"] + data["chart"] + data["key"]  # the SVG made in Python: no log text
    page = render_html(r)
    assert "<script>alert" not in page


def test_the_score_chart_ends_at_the_final_scores():
    g, _ = _lined_up()
    r = Replay(g.log, game=GAME)
    chart = score_chart(r)
    lines = re.findall(r'<polyline[^>]*points="([^"]*)"', chart)
    assert len(lines) == 3
    # alpha scored, the others did not: alpha's last point is higher on the chart (a smaller y)
    last_y = [float(pts.split()[-1].split(",")[1]) for pts in lines]
    assert g.state.scores[0] > 0 and last_y[0] < last_y[1] == last_y[2]


def test_the_page_carries_the_svg_board(tmp_path):
    g, _ = _lined_up()
    page = render_html(Replay(g.log, game=GAME))
    data = json.loads(re.search(r'id="game-data">(.*?)</script>', page, re.S).group(1))
    assert len(data["svg"]["frames"]) == len(g.log) and data["svg"]["tiles"].count('class="tO"') == 1
    # every event in words: the shot, its path and its hit said, no event's fields dumped
    words = {e[0]: e[4] for e in data["events"]}
    fired = next(e for e in g.log if type(e) is LaserFired)
    assert words[fired.seq] == ("P0 alpha fires its level 1 laser right-down from (1, 1) through (1, 2) \u2192 (1, 3), "
                                f"stopping at (1, 3) ({fired.damage} damage)")
    assert not any("=" in w or "{" in w for w in words.values())


class Drawn(HTMLParser):
    """What the page drew: the robots (their data- attributes), the overlay's shapes, the legend's cells."""

    def __init__(self) -> None:
        super().__init__()
        self.robots: list[dict[str, str]] = []
        self.shapes: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.cells: list[str] = []
        self.where: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") in ("overlay", "legend"):
            self.where.append(a["id"])
        elif self.where:
            self.where.append(self.where[-1])
            if self.where[-1] == "overlay":
                if (a.get("class") or "").startswith("robot"):
                    self.robots.append(a)
                self.shapes.append((tag, a))

    def handle_endtag(self, tag):
        if self.where:
            self.where.pop()

    def handle_data(self, data):
        if self.where and self.where[-1] == "overlay":
            self.texts.append(data)
        elif self.where and self.where[-1] == "legend":
            self.cells.append(data)


def _drawn(page, seq, tmp_path):
    res = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p'}",
                          "--virtual-time-budget=5000", "--dump-dom", f"{page.resolve().as_uri()}#seq={seq}"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    d = Drawn()
    d.feed(res.stdout)
    return d, res.stdout


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium (.ci/run installs it)")
def test_the_page_draws_the_robots_the_shot_and_the_reach_the_view_gives(tmp_path):
    """In headless Chromium, on the laser's hit: each robot where the view puts it with its health and score,
    the beam through the shooter's tile and its path, the hit's damage; on the shooter's turn before it, its
    reach as `reach` gives it; a hostile name is text in the tooltip and the table, never markup."""
    g, events = _lined_up()
    created = g.log[0]
    hostile = GameCreated(seq=0, cause=-1, rule=created.rule, rules=created.rules, map=created.map, seed=0,
                          names=("<img src=x onerror=alert(1)>", "bravo", "charlie"))
    log = [hostile, *g.log[1:]]
    r = Replay(log, game=GAME)
    page = tmp_path / "g.html"
    page.write_text(render_html(r), encoding="utf-8")
    hit = of(events, Hit)[0]
    d, dom = _drawn(page, hit.seq, tmp_path)
    v = r.view(hit.seq)
    assert [(int(a["data-slot"]), int(a["data-j"]), int(a["data-k"]), int(a["data-health"]), int(a["data-score"]))
            for a in d.robots] == [(rb["slot"], *rb["position"], rb["health"], rb["score"]) for rb in v["robots"]]
    beam = [a for tag, a in d.shapes if tag == "polyline" and a.get("class") == "shot"]
    assert len(beam) == 1 and beam[0]["points"] == " ".join("%.1f,%.1f" % centre(p, 6) for p in [(1, 1), (1, 2), (1, 3)])
    assert f"-{hit.amount}" in d.texts
    assert "<img src=x onerror=alert(1)>" in d.cells  # the table's cell holds the name as text
    assert "<img" not in dom and "&lt;img src=x onerror=alert(1)&gt;" in dom
    before = next(e.seq for e in events if type(e) is LaserFired) - 1  # alpha to move, at (1, 1)
    d, _ = _drawn(page, before, tmp_path)
    want = reach(r.view(before), 0, g.state.rules)
    for weapon, cls in (("laser", "rl"), ("mortar", "rm")):
        drawn = sorted((float(a["x"]), float(a["y"])) for tag, a in d.shapes if tag == "use" and a["class"] == cls)
        assert drawn == sorted(tuple(float("%.1f" % c) for c in centre(p, 6)) for p in want[weapon]), weapon


def test_the_text_map_draws_the_hexagons_as_they_lie():
    """Row j + k of the drawing, two columns a step of k - j: up is two lines straight above, right-down one
    line down and two columns right; a robot is its digit, a body an x."""
    rows = ["GGG", "GOG", "GGS"]
    lines = hex_text(rows, [{"slot": 1, "position": [0, 0], "dead": False},
                            {"slot": 0, "position": [2, 1], "dead": True}])
    assert lines == ["    1", "  .   .", ".   #   .", "  x   .", "    s"]


def test_the_4_player_board_fits_80_columns():
    from locm.engine.skyport.definition import GAME, map_for

    g = GAME.new(GAME.rules("2013"), 3, ("hunter", "random", "random", "hunter"))
    assert map_for(GAME.rules("2013"), 4).name == "crossroads-4p"
    text = GAME.board_text(GAME.view(g.state, None))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert text.count("\n") > 2 * 19  # the map drawn as hexagons: 37 rows


def test_audit_says_the_rock_stopped_the_laser_before_charlie():
    """charlie stands on the beam's line at (1, 5), behind the rock on (1, 4): the answer names the rock."""
    g, events = _lined_up()
    r = Replay(g.log, game=GAME)
    fired = of(events, LaserFired)[0]
    why = r.explain(fired.seq)["why"]
    assert any("next tile (1, 4) is rock" in line for line in why)
    assert any(line.startswith("It hit P1 on (1, 3)") for line in why)
    assert any(line.startswith("P2 on (1, 5) was on the line, 4 tiles away, behind the rock on (1, 4)")
               for line in why)
    hit = of(events, Hit)[0]
    assert r.explain(hit.seq)["why"] == why  # asked on the hit, the same shot is explained


def test_audit_says_why_minus_10():
    """Turns ended on the spawn tile and without an action: R-SPAWN-PENALTY and R-IDLE, with their cause."""
    g = scenario(ROCKY, NAMES, rules=msgspec.structs.replace(RULES_2013, turn_limit=3))
    while not g.over:  # everyone passes on its spawn tile
        g.submit(EndTurn(g.state.current))
    r = Replay(g.log, game=GAME)
    pens = [e for e in g.log if type(e).__name__ == "Penalized"]
    spawn = next(e for e in pens if e.reason == "spawn")
    idle = next(e for e in pens if e.reason == "idle")
    w = r.explain(spawn.seq)["why"]
    assert w[0].startswith(f"P{spawn.player} lost 10 points: R-SPAWN-PENALTY") and "on its spawn tile" in w[1]
    w = r.explain(idle.seq)["why"]
    assert w[0].startswith(f"P{idle.player} lost 10 points: R-IDLE") and "sent no action" in w[1]


def test_report_flags_thin_cells_and_says_above_only_outside_the_interval():
    from locm.games.skyport.report import rates

    rows = ([("hunter", "laser+mortar", "duel-2p", True, 100.0)] * 40
            + [("hunter", "droid+mortar", "duel-2p", False, -50.0 + i) for i in range(40)]
            + [("hunter", "mortar+laser", "crossroads-4p", True, 80.0)] * 3)
    by = {(r.by, r.key): r for r in rates(rows, min_games=30)}
    assert by[("loadout", "mortar+laser")].verdict == "thin" and by[("map", "crossroads-4p")].verdict == "thin"
    assert by[("loadout", "laser+mortar")].verdict == "wins above, scores above"
    assert by[("loadout", "droid+mortar")].verdict == "wins below, scores below"
    assert by[("map", "duel-2p")].verdict == "wins within, scores within"  # 80 of the 83 games: the baseline


def test_report_reads_each_seats_loadout_from_the_log():
    from types import SimpleNamespace

    from locm.games.skyport.report import player_games

    g, _ = _lined_up()
    match = SimpleNamespace(game_id="x", agents=("a", "b", "c"), winner=0, scores=g.state.scores)
    store = SimpleNamespace(games=lambda game, counted=True: [match], events=lambda _id: g.log)
    assert list(player_games(store)) == [("a", "laser+mortar", "scenario", True, float(g.state.scores[0])),
                                         ("b", "laser+mortar", "scenario", False, float(g.state.scores[1])),
                                         ("c", "laser+mortar", "scenario", False, float(g.state.scores[2]))]


def test_the_8_player_map_is_fair_and_connected():
    """octagon-8p: eight spawns, point-symmetric (the tile opposite through the centre is the same kind), each
    spawn 6 steps from its neighbours, every walkable tile reachable; 7 and 8 players get it."""
    from locm.engine.skyport.definition import map_for
    from locm.engine.skyport.hexmap import WALKABLE, distance, neighbours, spawn_tiles
    from locm.engine.skyport.rules import builtin_map

    m = builtin_map("octagon-8p")
    n = m.size
    assert all(m.rows[j][k] == m.rows[n - 1 - j][n - 1 - k] for j in range(n) for k in range(n))
    spawns = spawn_tiles(m)
    assert len(spawns) == 8 and m.players == 8
    assert sorted(min(distance(a, b) for b in spawns if b != a) for a in spawns) == [6] * 8
    walk = {(j, k) for j in range(n) for k in range(n) if m.rows[j][k] in WALKABLE or m.rows[j][k] == "S"}
    seen, todo = {spawns[0]}, [spawns[0]]
    while todo:
        for q in neighbours(todo.pop(), n):
            if q in walk and q not in seen:
                seen.add(q)
                todo.append(q)
    assert seen == walk
    assert map_for(GAME.rules("2013"), 7).name == map_for(GAME.rules("2013"), 8).name == "octagon-8p"
    assert GAME.seats == (2, 8)



def test_a_4_player_200_turn_page_stays_light():
    """What repeats is kept once (the map, a reach per position and loadout, a text board's lines): the page of
    a 4-player game of 200 turns holds every event's board in well under 2 MB (10.4 MB when each event's board
    was drawn in full)."""
    from locm.engine import core

    events = core.play(GAME, GAME.rules("2013"), 3, ("hunter", "random", "random", "hunter")).log
    assert len(events) > 1000
    r = Replay(events, game=GAME)
    page = render_html(r)
    data = json.loads(re.search(r'id="game-data">(.*?)</script>', page, re.S).group(1))
    assert len(data["svg"]["frames"]) == len(events)
    assert len(page.encode()) < 1_000_000
