"""Skyport's board in the viewer shell (`replay.match_html`): an SVG hex map per event.

Each event's board is two layers: the tiles (rock, void, spawn, the three resources, grass; a depleted tile
turns to grass, so the page keeps each distinct tile layer once) and the overlay of that event: the robots
(slot, health bar, score, weapons in their title), the shot the event belongs to (a laser's path to where it
stopped, a mortar's arc to its target, a droid's walk) with the tiles it hit and the six around an impact
that took area damage, and the reach of the robot to move (its weapons' ranges from where it stands: the
laser's six rays as far as rock and the edge let it, the mortar's distance, and the droid's at most `range`
steps). A score chart gives every player's points at each turn's start.

Geometry: the map's rows are ``j + k`` from the top, and a row runs from the largest ``j`` to the smallest
(`engine.skyport.hexmap`), so a tile's centre is ``x = 1.5·s·(k - j)``, ``y = (√3/2)·s·(j + k)`` for
flat-topped hexagons of side ``s``.

Every text from the log (a robot's name) is escaped before it enters the SVG; numbers are the only other
content.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from locm.engine.skyport.hexmap import DIRECTIONS, ROCK, distance, mortar_distance, on_map, step
from locm.events.skyport.catalog import (AreaHit, DroidFired, GameCreated, Hit, HitAbsorbed, LaserFired,
                                         MortarFired, TurnStarted)
from locm.replay.match import MatchReplay

S = 14.0
"""A hexagon's side, in SVG units."""
H = math.sqrt(3) / 2 * S

TILE_FILL = {"G": "#cfe8b0", "V": "#20232a", "S": "#f3e6a0", "E": "#f08a4b", "R": "#d46ad8", "C": "#9aa4ad",
             "O": "#6b5b4b"}
TILE_NAME = {"G": "grass", "V": "void", "S": "spawn", "E": "explosium", "R": "rubidium", "C": "scrap",
             "O": "rock"}
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b")
SHOTS = (LaserFired, MortarFired, DroidFired)


def centre(pos: tuple[int, int] | list[int], size: int) -> tuple[float, float]:
    j, k = pos
    return 1.5 * S * (k - j) + 1.5 * S * (size - 1) + S + 4, H * (j + k) + H + 4


def _hexagon(x: float, y: float, s: float = S) -> str:
    return " ".join(f"{x + s * math.cos(math.pi / 3 * i):.1f},{y + s * math.sin(math.pi / 3 * i):.1f}"
                    for i in range(6))


def extent(size: int) -> tuple[float, float]:
    return 3 * S * (size - 1) + 2 * S + 8, H * 2 * (size - 1) + 2 * H + 8


def _use(symbol: str, cls: str, pos: tuple[int, int] | list[int], size: int) -> str:
    x, y = centre(pos, size)
    return f'<use href="#{symbol}" class="{cls}" x="{x:.1f}" y="{y:.1f}"/>'


def tiles_svg(rows: list[str]) -> str:
    """The tiles of `rows`, and the shapes the overlays reuse (`_use`): a small and a large hexagon at 0, 0."""
    size = len(rows)
    out = [f'<defs><polygon id="hs" points="{_hexagon(0, 0, S * 0.55)}"/><polygon id="hl" '
           f'points="{_hexagon(0, 0, S - 2)}"/></defs>']
    for j, row in enumerate(rows):
        for k, t in enumerate(row):
            x, y = centre((j, k), size)
            out.append(f'<polygon class="t{t}" points="{_hexagon(x, y, S - 0.6)}"><title>{j}, {k} '
                       f'{TILE_NAME.get(t, "?")}</title></polygon>')
    return "".join(out)


def reach(v: dict[str, Any], seat: int, rules: Any) -> dict[str, list[tuple[int, int]]]:
    """The tiles each weapon of robot `seat` reaches from where it stands in view `v` (see the module text)."""
    rows = v["map"]
    size = len(rows)
    robot = next(r for r in v["robots"] if r["slot"] == seat)
    pos = tuple(robot["position"])
    out: dict[str, list[tuple[int, int]]] = {}
    for weapon, level in (robot["primary"], robot["secondary"]):
        table = getattr(rules, weapon, None)
        if table is None or not 1 <= level <= len(table.range):
            continue
        rng = table.range[level - 1]
        tiles: list[tuple[int, int]] = []
        if weapon == "laser":
            for d in DIRECTIONS:
                cur = pos
                for _ in range(rng):
                    nxt = step(cur, d)
                    if not on_map(nxt, size) or rows[nxt[0]][nxt[1]] == ROCK:
                        break
                    cur = nxt
                    tiles.append(cur)
        elif weapon == "mortar":
            tiles = [(j, k) for j in range(size) for k in range(size)
                     if (j, k) != pos and mortar_distance(j - pos[0], k - pos[1]) <= rng]
        else:
            tiles = [(j, k) for j in range(size) for k in range(size)
                     if (j, k) != pos and distance(pos, (j, k)) <= rng]
        out[weapon] = tiles
    return out


def _shot(r: MatchReplay, seq: int) -> tuple[Any, list[Any]]:
    """The shot event `seq` belongs to (the last one fired in its turn up to it) and the hits it caused."""
    shot = None
    for e in reversed(r.events[:seq + 1]):
        if type(e) is TurnStarted:
            break
        if isinstance(e, SHOTS):
            shot = e
            break
    if shot is None:
        return None, []
    hits = []
    for e in r.events[shot.seq + 1:]:
        if isinstance(e, SHOTS) or type(e) is TurnStarted:
            break
        if isinstance(e, (Hit, AreaHit, HitAbsorbed)):
            hits.append(e)
    return shot, hits


def overlay_svg(r: MatchReplay, seq: int, v: dict[str, Any], base: list[str] | None = None) -> str:
    """The overlay of event `seq` (view `v`): the tiles that differ from the `base` layer's rows (a depleted
    tile), the reach of the robot to move, the event's shot and hits, the robots."""
    size = len(v["map"])
    created = r.events[0]
    assert type(created) is GameCreated
    out: list[str] = []
    if base is not None:
        for j, (now, was) in enumerate(zip(v["map"], base)):
            for k, t in enumerate(now):
                if t != was[k]:
                    x, y = centre((j, k), size)
                    out.append(f'<polygon class="t{t}" points="{_hexagon(x, y, S - 0.6)}"><title>{j}, {k} '
                               f'{TILE_NAME.get(t, "?")} (was {TILE_NAME.get(was[k], "?")})</title></polygon>')
    seat = v["to_move"][0] if v["phase"] == "turn" and v["to_move"] else -1
    if seat >= 0:
        ranges = reach(v, seat, created.rules)
        for weapon, cls in (("droid", "rd"), ("mortar", "rm"), ("laser", "rl")):
            out.extend(_use("hs", cls, pos, size) for pos in ranges.get(weapon, []))
    shot, hits = _shot(r, seq)
    if shot is not None:
        who = COLOURS[shot.player % len(COLOURS)]
        if type(shot) is LaserFired:
            pts = [shot.start, *shot.path] if shot.path else [shot.start, shot.stop]
            line = " ".join("%.1f,%.1f" % centre(p, size) for p in pts)
            out.append(f'<polyline class="shot" stroke="{who}" points="{line}"/>')
        elif type(shot) is MortarFired:
            (x0, y0) = centre(r.history.state_at(shot.seq).robots[shot.player].position, size)
            (x1, y1) = centre(shot.target, size)
            out.append(f'<path class="shot" stroke="{who}" d="M{x0:.1f},{y0:.1f} Q{(x0 + x1) / 2:.1f},'
                       f'{min(y0, y1) - 6 * S:.1f} {x1:.1f},{y1:.1f}"/>')
        else:
            start = r.history.state_at(shot.seq).robots[shot.player].position
            line = " ".join("%.1f,%.1f" % centre(p, size) for p in [start, *shot.path])
            out.append(f'<polyline class="shot droid" stroke="{who}" points="{line}"/>')
        if type(shot) is not LaserFired and (type(shot) is DroidFired or shot.exploded):
            x, y = centre(shot.target, size)
            out.append(f'<circle class="boom" cx="{x:.1f}" cy="{y:.1f}" r="{S * 0.9:.1f}"/>')
        for h in hits:
            x, y = centre(h.position, size)
            cls = "area" if type(h) is AreaHit else ("absorbed" if type(h) is HitAbsorbed else "hit")
            label = f"-{h.amount}" if type(h) is not HitAbsorbed else "0"
            out.append(_use("hl", cls, h.position, size) + f'<text class="dmg" x="{x:.1f}" y="{y - S * 0.9:.1f}">{label}</text>')
    for rb in v["robots"]:
        x, y = centre(rb["position"], size)
        colour = COLOURS[rb["slot"] % len(COLOURS)]
        hp = max(0, min(1, rb["health"] / max(1, created.rules.health)))
        title = escape(f"P{rb['slot']} {rb['name']}: health {rb['health']}, score {rb['score']}, "
                       f"{rb['primary'][0]} {rb['primary'][1]} / {rb['secondary'][0]} {rb['secondary'][1]}"
                       + (", destroyed" if rb["dead"] else ""))
        ring = ' stroke="#000" stroke-width="3"' if rb["slot"] == seat else ' stroke="#fff" stroke-width="1.5"'
        out.append(f'<g class="robot{" dead" if rb["dead"] else ""}"><title>{title}</title>'
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{S * 0.62:.1f}" fill="{colour}"{ring}/>'
                   f'<text class="slot" x="{x:.1f}" y="{y + 4:.1f}">{rb["slot"]}</text>'
                   f'<rect x="{x - S * 0.8:.1f}" y="{y + S * 0.68:.1f}" width="{S * 1.6:.1f}" height="3" fill="#400"/>'
                   f'<rect x="{x - S * 0.8:.1f}" y="{y + S * 0.68:.1f}" width="{S * 1.6 * hp:.1f}" height="3" '
                   f'fill="#2c2"/></g>')
    return "".join(out)


def legend(r: MatchReplay, v: dict[str, Any]) -> str:
    """The side table of the robots, as HTML (names escaped)."""
    rows = []
    for rb in v["robots"]:
        colour = COLOURS[rb["slot"] % len(COLOURS)]
        rows.append(f'<tr><td><span style="color:{colour}">&#9679;</span> P{rb["slot"]}</td>'
                    f'<td>{escape(rb["name"])}</td><td>{rb["health"]}</td><td>{rb["score"]}</td>'
                    f'<td>{escape(rb["primary"][0])} {rb["primary"][1]}</td>'
                    f'<td>{escape(rb["secondary"][0])} {rb["secondary"][1]}</td>'
                    f'<td>{"destroyed" if rb["dead"] else ""}</td></tr>')
    return ('<table class="robots"><tr><th>seat</th><th>name</th><th>health</th><th>score</th><th>primary</th>'
            '<th>secondary</th><th></th></tr>' + "".join(rows) + "</table>")


def score_chart(r: MatchReplay) -> str:
    """Every player's score at each turn's start and at the end, as an SVG line chart."""
    starts = [seq for seq, _, _ in r.game.turn_starts(r.events)] + [r.last_seq]
    series: list[list[int]] = []
    for seq in starts:
        robots = r.history.state_at(seq).robots
        series.append([rb.score for rb in robots])
    if not series or not series[0]:
        return ""
    w, h, pad = 520.0, 200.0, 34.0
    lo = min(0, *(s for row in series for s in row))
    hi = max(1, *(s for row in series for s in row))
    n = max(1, len(series) - 1)
    X = lambda i: pad + (w - pad - 8) * i / n  # noqa: E731
    Y = lambda s: h - pad + 8 - (h - pad) * (s - lo) / (hi - lo)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" class="chart">',
           f'<line x1="{pad}" y1="{Y(0):.1f}" x2="{w - 8}" y2="{Y(0):.1f}" stroke="#999"/>',
           f'<text x="2" y="{Y(hi) + 4:.1f}">{hi}</text><text x="2" y="{Y(lo):.1f}">{lo}</text>',
           f'<text x="{pad}" y="{h - 4}">score at each player-turn\'s start (to the end: {len(series) - 1} '
           f'player-turns)</text>']
    for p in range(len(series[0])):
        pts = " ".join(f"{X(i):.1f},{Y(row[p]):.1f}" for i, row in enumerate(series))
        out.append(f'<polyline fill="none" stroke="{COLOURS[p % len(COLOURS)]}" stroke-width="1.5" '
                   f'points="{pts}"/>')
    out.append("</svg>")
    return "".join(out)


STYLE = """
.tG{fill:#cfe8b0}.tV{fill:#20232a}.tS{fill:#f3e6a0}.tE{fill:#f08a4b}.tR{fill:#d46ad8}.tC{fill:#9aa4ad}
.tO{fill:#6b5b4b}polygon[class^=t]{stroke:#fff;stroke-width:.6}
.rl{fill:none;stroke:#e00;stroke-width:1.4}.rm{fill:#06c;fill-opacity:.18;stroke:#06c;stroke-width:1.6;stroke-dasharray:2 2}
.rd{fill:none;stroke:#080;stroke-width:1;stroke-dasharray:1 3}
.shot{fill:none;stroke-width:3.5;stroke-linecap:round;opacity:.85}.droid{stroke-dasharray:6 3}
.boom{fill:#ff0;opacity:.5;stroke:#f80;stroke-width:2}.hit{fill:#f00;opacity:.55}.area{fill:#f90;opacity:.5}
.absorbed{fill:#fff;opacity:.6}.dmg{font:bold 11px sans-serif;fill:#b00;text-anchor:middle;paint-order:stroke;
stroke:#fff;stroke-width:2}.slot{font:bold 11px sans-serif;fill:#fff;text-anchor:middle}.dead circle{opacity:.35}
.robots td,.robots th{padding:1px 6px;font-size:13px;text-align:left}.chart text{font:11px sans-serif}
#svgkey span{display:inline-block;margin-right:1em;font-size:12px}
"""

KEY = ('<div id="svgkey">' + "".join(f'<span><svg width="14" height="12"><rect width="14" height="12" '
                                     f'fill="{TILE_FILL[t]}"/></svg> {TILE_NAME[t]}</span>' for t in "GERCSOV")
       + '<span style="color:#e00">&#9711; laser reach</span><span style="color:#06c">&#9711; mortar reach</span>'
       '<span style="color:#080">&#9711; droid (at most its range in steps)</span>'
       '<span style="color:#f00">&#9632; hit</span><span style="color:#f90">&#9632; area hit</span></div>')


def board_data(r: MatchReplay, keep: list[int]) -> dict[str, Any]:
    """The page's SVG boards at the seqs `keep`: the map's tiles as created (one layer), then per seq (layer,
    overlay, legend); a tile that changed since (depleted) is drawn in its overlay."""
    base = r.view(0, None)["map"]
    frames: dict[str, list[Any]] = {}
    for seq in keep:
        v = r.view(seq, None)
        frames[str(seq)] = [0, overlay_svg(r, seq, v, base), legend(r, v)]
    w, h = extent(len(base))
    return {"width": round(w), "height": round(h), "layers": [tiles_svg(base)], "frames": frames,
            "chart": score_chart(r), "style": STYLE, "key": KEY}


__all__ = ["board_data", "overlay_svg", "tiles_svg", "reach", "score_chart", "centre"]
