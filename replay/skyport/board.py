"""Skyport's board in the viewer shell (`replay.html`, named by its wing: `replay.skyport.wing`): an SVG hex
map at every event, drawn in the page from small tables, so that what repeats is kept once; beside it the
robots' table, the key and the score chart (`viewer_data` and ``BOARD_JS``'s ``drawBoard(table)``).

The page keeps (``board_data``): the map's tiles as created, once, as SVG (the one part drawn here); tables of
the distinct robots (slot, position, health, score, dead, weapons), of the distinct sets of tiles changed since
(a depleted resource turns to grass), of the shots (a laser's path to where it stopped, a mortar's arc to its
target, a droid's walk, each with the tiles it hit and the six around an impact that took area damage) and
of the distinct reaches (a robot's weapons' ranges from one tile: the laser's six rays as far as rock and the
edge let it, the mortar's distance, and the droid's at most `range` steps), each computed here once for each
distinct position and loadout (only a resource tile changes, so a reach depends on nothing else: a forged
log that changes rock gets reaches of its own); and per event one
small frame of indexes into those tables. ``SVG_JS``'s ``drawSvg`` draws a frame: the changed tiles, the
reach of the robot to move, the event's shot and hits, the robots, and the side table. A score chart gives
every player's points at each turn's start. `live_frame` is the board of a game being played (`locm arena`'s
watch page draws it with the same ``BOARD_JS``).

Geometry: the map's rows are ``j + k`` from the top, and a row runs from the largest ``j`` to the smallest
(`engine.skyport.hexmap`), so a tile's centre is ``x = 1.5·s·(k - j)``, ``y = (√3/2)·s·(j + k)`` for
flat-topped hexagons of side ``s`` (`centre`; the page's ``centre`` is the same formula).

Every text from the log (a robot's name, a weapon's) reaches the page as JSON data and is drawn with
``textContent``: it cannot become markup. The SVG made here (tiles, chart) holds numbers and fixed words only.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from locm.engine.skyport.hexmap import DIRECTIONS, ROCK, distance, mortar_distance, on_map, step
from locm.events.skyport.catalog import (AreaHit, DroidFired, GameCreated, Hit, HitAbsorbed, LaserFired,
                                         MortarFired, TurnStarted)
from locm.replay.game import Replay

S = 14.0
"""A hexagon's side, in SVG units."""
H = math.sqrt(3) / 2 * S

TILE_FILL = {"G": "#cfe8b0", "V": "#20232a", "S": "#f3e6a0", "E": "#f08a4b", "R": "#d46ad8", "C": "#9aa4ad",
             "O": "#6b5b4b"}
TILE_NAME = {"G": "grass", "V": "void", "S": "spawn", "E": "explosium", "R": "rubidium", "C": "scrap",
             "O": "rock"}
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b")
SHOTS = (LaserFired, MortarFired, DroidFired)
REACH_ORDER = ("droid", "mortar", "laser")
"""The order the reaches are drawn in (the laser's rays on top)."""


def centre(pos: tuple[int, int] | list[int], size: int) -> tuple[float, float]:
    j, k = pos
    return 1.5 * S * (k - j) + 1.5 * S * (size - 1) + S + 4, H * (j + k) + H + 4


def _hexagon(x: float, y: float, s: float = S) -> str:
    return " ".join(f"{x + s * math.cos(math.pi / 3 * i):.1f},{y + s * math.sin(math.pi / 3 * i):.1f}"
                    for i in range(6))


def extent(size: int) -> tuple[float, float]:
    return 3 * S * (size - 1) + 2 * S + 8, H * 2 * (size - 1) + 2 * H + 8


def tiles_svg(rows: list[str]) -> str:
    """The tiles of `rows`, and the shapes the page's overlays reuse: a small (``hs``) and a large (``hl``)
    hexagon at 0, 0."""
    size = len(rows)
    out = [f'<defs><polygon id="hs" points="{_hexagon(0, 0, S * 0.55)}"/><polygon id="hl" '
           f'points="{_hexagon(0, 0, S - 2)}"/></defs>']
    for j, row in enumerate(rows):
        for k, t in enumerate(row):
            x, y = centre((j, k), size)
            t = t if t in TILE_NAME else "U"  # a forged map's letter is no markup (U: unknown, drawn unfilled)
            out.append(f'<polygon class="t{t}" points="{_hexagon(x, y, S - 0.6)}"><title>{j}, {k} '
                       f'{TILE_NAME.get(t, "?")}</title></polygon>')
    return "".join(out)


def reach(v: dict[str, Any], seat: int, rules: Any) -> dict[str, list[tuple[int, int]]]:
    """The tiles each weapon of robot `seat` reaches from where it stands in view `v` (see the module text)."""
    robot = next(r for r in v["robots"] if r["slot"] == seat)
    return _reach(v["map"], tuple(robot["position"]), (robot["primary"], robot["secondary"]), rules)


def _reach(rows: list[str], pos: tuple[int, int], weapons: Any, rules: Any) -> dict[str, list[tuple[int, int]]]:
    size = len(rows)
    out: dict[str, list[tuple[int, int]]] = {}
    for weapon, level in weapons:
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


def _reach_rows(ranges: dict[str, list[tuple[int, int]]], size: int) -> list[list[Any]]:
    """A reach as the page keeps it: ``[weapon, tiles]`` in `REACH_ORDER`, a tile as ``j·size + k``."""
    return [[w, [j * size + k for j, k in ranges[w]]] for w in REACH_ORDER if w in ranges]


class _Table:
    """Distinct values, each kept once; `add` gives a value's index."""

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self._index: dict[Any, int] = {}

    def add(self, key: Any, make: Callable[[], Any] | None = None) -> int:
        """The index of `key`, kept as `make()` (else as itself) the first time it is seen."""
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.rows)
            self.rows.append(key if make is None else make())
        return i


def shots(r: Replay) -> tuple[list[list[Any]], list[int]]:
    """Every shot of the game as the page draws it, and per event the index of the shot it belongs to (the
    last one fired in its turn up to it; -1 for none). A shot is ``[kind, player, points, boom, hits]``:
    ``points`` the tiles of its line (a laser's shooter and path, or its stop when the path is empty; a
    mortar's shooter and target; a droid's start and walk), ``boom`` the tile of an explosion or null,
    ``hits`` ``[class, tile, label]`` (``hit``, ``area``, ``absorbed``); tiles as ``[j, k]`` (a forged log's
    may lie off the map)."""
    tile = lambda p: [p[0], p[1]]  # noqa: E731
    out: list[list[Any]] = []
    of: list[int] = []
    current = -1
    for e in r.events:
        t = type(e)
        if t is TurnStarted:
            current = -1
        elif t in SHOTS:
            current = len(out)
            if t is LaserFired:
                points = [e.start, *e.path] if e.path else [e.start, e.stop]
                boom = None
            else:
                start = r.history.state_at(e.seq).robots[e.player].position
                points = [start, e.target] if t is MortarFired else [start, *e.path]
                boom = tile(e.target) if t is DroidFired or e.exploded else None
            out.append(["laser" if t is LaserFired else "mortar" if t is MortarFired else "droid", e.player,
                        [tile(p) for p in points], boom, []])
        elif t in (Hit, AreaHit, HitAbsorbed) and current >= 0:
            cls = "area" if t is AreaHit else ("absorbed" if t is HitAbsorbed else "hit")
            out[current][4].append([cls, tile(e.position), "0" if t is HitAbsorbed else f"-{e.amount}"])
        of.append(current)
    return out, of


def board_data(r: Replay, keep: list[int]) -> dict[str, Any]:
    """The page's SVG boards at the seqs `keep`, as tables and frames (see the module text). A frame is
    ``[changed tiles, robots, seat to move, shot, reach]``: indexes into ``changes`` (lists of ``[tile, now,
    was]``), ``robots`` (one index a robot; a robot ``[slot, name, j, k, health, score, dead, primary, level,
    secondary, level]``, its texts indexes into ``names``), ``shots`` (`shots`) and ``reaches`` (lists of
    ``[weapon, tiles]`` in `REACH_ORDER`); -1 for no seat, shot or reach; a tile of a change or a reach is
    ``j·size + k``."""
    created = r.events[0]
    assert type(created) is GameCreated
    base = r.view(0, None)["map"]
    size = len(base)
    tile = lambda p: p[0] * size + p[1]  # noqa: E731
    names, robots, changes, reaches = _Table(), _Table(), _Table(), _Table()
    shot_list, shot_of = shots(r)
    frames: dict[str, list[Any]] = {}
    for seq in keep:
        v = r.view(seq, None)
        changed = tuple((tile((j, k)), t, was[k]) for j, (now, was) in enumerate(zip(v["map"], base))
                        for k, t in enumerate(now) if t != was[k])
        rows = []
        for rb in v["robots"]:
            (pw, pl), (sw, sl) = rb["primary"], rb["secondary"]
            j, k = rb["position"]  # off the map before the spawns are drawn
            rows.append(robots.add((rb["slot"], names.add(rb["name"]), j, k, rb["health"], rb["score"],
                                    int(rb["dead"]), names.add(pw), pl, names.add(sw), sl)))
        seat = v["to_move"][0] if v["phase"] == "turn" and v["to_move"] else -1
        area = -1
        if seat >= 0:
            rb = next(x for x in v["robots"] if x["slot"] == seat)
            weapons = (tuple(rb["primary"]), tuple(rb["secondary"]))
            key = (tuple(rb["position"]), weapons, tuple(c for c in changed if ROCK in c[1:]))  # rock: never, legally
            area = reaches.add(key, lambda: _reach_rows(_reach(v["map"], key[0], weapons, created.rules), size))
        frames[str(seq)] = [changes.add(changed, lambda: [list(c) for c in changed]), rows, seat, shot_of[seq],
                            area]
    w, h = extent(size)
    return {"width": round(w), "height": round(h), "size": size, "side": S, "health": created.rules.health,
            "tiles": tiles_svg(base), "names": names.rows, "robots": [list(x) for x in robots.rows],
            "changes": changes.rows, "reaches": reaches.rows, "shots": shot_list, "frames": frames,
            "colours": list(COLOURS), "tile_names": TILE_NAME, "chart": score_chart(r), "style": STYLE,
            "key": KEY}


def viewer_data(r: Replay) -> dict[str, Any]:
    """The board's part of the viewer's data: `board_data` at every event, as ``svg``."""
    return {"svg": board_data(r, list(range(len(r.events))))}


LIVE_FRAMES = 40
"""At most this many frames in one of `live_frame`'s answers (the newest: a fast game's board skips ahead)."""


def live_frame(r: Replay, since: int = -1) -> dict[str, Any]:
    """The boards of a game being played after each event past ``since`` (at most the newest `LIVE_FRAMES`),
    for `locm arena`'s watch page, which draws them one after another with ``BOARD_JS``, as the viewer does
    (each shot and its hits as they happened): `board_data` at those events (``svg``) and their ``seqs``.
    Skyport hides nothing, so a spectator is shown the whole board."""
    seqs = list(range(max(since + 1, r.last_seq + 1 - LIVE_FRAMES, 0), r.last_seq + 1))
    return {"svg": board_data(r, seqs), "seqs": seqs}


def score_chart(r: Replay) -> str:
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
    Y = lambda s: h - pad + 8 - (h - pad) * ((s - lo) / (hi - lo))  # noqa: E731  (ints first: a forged score
    # past a float's range still divides exactly)
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
.tO{fill:#6b5b4b}.tU{fill:none}polygon[class^=t]{stroke:#fff;stroke-width:.6}
.rl{fill:none;stroke:#e00;stroke-width:1.4}.rm{fill:#06c;fill-opacity:.18;stroke:#06c;stroke-width:1.6;stroke-dasharray:2 2}
.rd{fill:none;stroke:#080;stroke-width:1;stroke-dasharray:1 3}
.shot{fill:none;stroke-width:3.5;stroke-linecap:round;opacity:.85}.droid{stroke-dasharray:6 3}
.boom{fill:#ff0;opacity:.5;stroke:#f80;stroke-width:2}.hit{fill:#f00;opacity:.55}.area{fill:#f90;opacity:.5}
.absorbed{fill:#fff;opacity:.6}.dmg{font:bold 11px sans-serif;fill:#b00;text-anchor:middle;paint-order:stroke;
stroke:#fff;stroke-width:2}.slot{font:bold 11px sans-serif;fill:#fff;text-anchor:middle}.dead circle{opacity:.35}
.chart text{font:11px sans-serif;fill:#cfd3cc}.chart{background:rgba(0,0,0,.18);border-radius:8px}
"""

KEY = ('<div class="swatches" id="svgkey">' + "".join(f'<span><i style="background:{TILE_FILL[t]}"></i>'
                                                     f'{TILE_NAME[t]}</span>' for t in "GERCSOV")
       + '<span><i style="border:2px solid #e00"></i>laser reach</span><span><i style="background:#06c8">'
       '</i>mortar reach</span><span><i style="border:2px dotted #080"></i>droid (at most its range in steps)'
       '</span><span><i style="background:#f00"></i>hit</span><span><i style="background:#f90"></i>area hit</span>'
       '</div>')

SVG_JS = r"""
function drawSvg(G, at, layer, overlay, legend) {
  // one frame of board_data (replay/skyport/board.py): changed tiles, the reach of the robot to move, the
  // event's shot and hits, the robots; the side table. Texts from the log go in with textContent only.
  const NS = 'http://www.w3.org/2000/svg', S = G.side, Hh = Math.sqrt(3) / 2 * S, n = G.size;
  const f1 = v => v.toFixed(1);
  const at2 = (j, k) => [1.5 * S * (k - j) + 1.5 * S * (n - 1) + S + 4, Hh * (j + k) + Hh + 4];
  const ctr = t => Array.isArray(t) ? at2(t[0], t[1]) : at2(Math.floor(t / n), t % n);  // [j, k] or j·size + k
  const hex = (x, y, s) => [0, 1, 2, 3, 4, 5].map(i =>
    f1(x + s * Math.cos(Math.PI / 3 * i)) + ',' + f1(y + s * Math.sin(Math.PI / 3 * i))).join(' ');
  const mk = (tag, attrs, parent, title) => { const e = document.createElementNS(NS, tag);
    for (const a in attrs) e.setAttribute(a, attrs[a]);
    if (title !== undefined) { const t = document.createElementNS(NS, 'title'); t.textContent = title; e.appendChild(t); }
    parent.appendChild(e); return e; };
  const use = (sym, cls, t) => { const [x, y] = ctr(t); mk('use', {href: '#' + sym, class: cls, x: f1(x), y: f1(y)}, overlay); };
  const colour = p => G.colours[p % G.colours.length];
  if (!layer.firstChild) layer.innerHTML = G.tiles;  // the map as created: numbers and fixed words only
  overlay.textContent = '';
  const [changed, robots, seat, shot, area] = G.frames[at];
  for (const [t, now, was] of G.changes[changed]) {
    const [x, y] = ctr(t);
    mk('polygon', {class: 't' + now, points: hex(x, y, S - 0.6)}, overlay, Math.floor(t / n) + ', ' + (t % n) + ' ' +
       (G.tile_names[now] || '?') + ' (was ' + (G.tile_names[was] || '?') + ')');
  }
  if (area >= 0) for (const [weapon, tiles] of G.reaches[area]) {
    const cls = {droid: 'rd', mortar: 'rm', laser: 'rl'}[weapon];
    if (cls) tiles.forEach(t => use('hs', cls, t));
  }
  if (shot >= 0) {
    const [kind, player, points, boom, hits] = G.shots[shot];
    const pts = points.map(t => ctr(t).map(f1).join(',')).join(' ');
    if (kind === 'mortar') {
      const [[x0, y0], [x1, y1]] = [ctr(points[0]), ctr(points[1])];
      mk('path', {class: 'shot', stroke: colour(player), d: 'M' + f1(x0) + ',' + f1(y0) + ' Q' + f1((x0 + x1) / 2) + ',' +
         f1(Math.min(y0, y1) - 6 * S) + ' ' + f1(x1) + ',' + f1(y1)}, overlay);
    } else mk('polyline', {class: kind === 'droid' ? 'shot droid' : 'shot', stroke: colour(player), points: pts}, overlay);
    if (boom) { const [x, y] = ctr(boom); mk('circle', {class: 'boom', cx: f1(x), cy: f1(y), r: f1(S * 0.9)}, overlay); }
    for (const [cls, t, label] of hits) {
      use('hl', cls, t); const [x, y] = ctr(t);
      mk('text', {class: 'dmg', x: f1(x), y: f1(y - S * 0.9)}, overlay).textContent = label;
    }
  }
  legend.textContent = '';
  const table = document.createElement('table'), body = document.createElement('tbody');
  table.className = 'grid robots'; table.appendChild(body); legend.appendChild(table);
  const row = (cells, tag) => { const tr = document.createElement('tr'); body.appendChild(tr);
    return cells.map(c => { const td = document.createElement(tag); td.textContent = c; tr.appendChild(td); return td; }); };
  row(['seat', 'name', 'health', 'score', 'primary', 'secondary', ''], 'th');
  for (const i of robots) {
    const [slot, name, j, k, health, score, dead, pw, pl, sw, sl] = G.robots[i];
    const [x, y] = at2(j, k), hp = Math.max(0, Math.min(1, health / Math.max(1, G.health)));
    const g = mk('g', {class: dead ? 'robot dead' : 'robot', 'data-slot': slot, 'data-j': j, 'data-k': k, 'data-health': health,
                       'data-score': score}, overlay,
                 'P' + slot + ' ' + G.names[name] + ': health ' + health + ', score ' + score + ', ' + G.names[pw] + ' ' + pl +
                 ' / ' + G.names[sw] + ' ' + sl + (dead ? ', destroyed' : ''));
    mk('circle', {cx: f1(x), cy: f1(y), r: f1(S * 0.62), fill: colour(slot), stroke: slot === seat ? '#000' : '#fff',
                  'stroke-width': slot === seat ? 3 : 1.5}, g);
    mk('text', {class: 'slot', x: f1(x), y: f1(y + 4)}, g).textContent = slot;
    mk('rect', {x: f1(x - S * 0.8), y: f1(y + S * 0.68), width: f1(S * 1.6), height: 3, fill: '#400'}, g);
    mk('rect', {x: f1(x - S * 0.8), y: f1(y + S * 0.68), width: f1(S * 1.6 * hp), height: 3, fill: '#2c2'}, g);
    const cells = row([' P' + slot, G.names[name], health, score, G.names[pw] + ' ' + pl, G.names[sw] + ' ' + sl,
                       dead ? 'destroyed' : ''], 'td');
    const dot = document.createElement('span'); dot.setAttribute('style', 'color:' + colour(slot)); dot.textContent = '\u25cf';
    cells[0].prepend(dot);
    if (slot === seat) cells[0].parentNode.className = 'tomove';
    if (dead) cells[0].parentNode.className = 'gone';
  }
}

function drawBoard(table) {
  // the map at event `seq`, the robots' table, the key and the score chart (replay/skyport/board.py)
  const S = G.svg, NS = 'http://www.w3.org/2000/svg';
  if (!table.dataset.ready) {
    table.replaceChildren();
    const style = el('style'); style.textContent = S.style; table.appendChild(style);
    const pic = el('div', 'pic');
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + S.width + ' ' + S.height); svg.id = 'svgboard';
    svg.style.flex = '1 1 ' + S.width + 'px'; svg.style.maxWidth = (1.6 * S.width) + 'px';  // grows on a wide screen
    for (const id of ['layer', 'overlay']) { const g = document.createElementNS(NS, 'g'); g.id = id; svg.appendChild(g); }
    const side = el('div'); side.style.flex = '1 1 320px'; side.style.minWidth = '0';
    const legend = el('div'); legend.id = 'legend';
    const key = el('div'); key.innerHTML = S.key;  // fixed words only (board.py's KEY)
    const chart = el('div'); chart.id = 'svgchart';
    side.append(legend, key, chart);
    pic.append(svg, side);
    table.appendChild(pic);
    table.dataset.ready = '1';
  }
  const chart = document.getElementById('svgchart');  // a live game's board gets a new chart with each frame
  if (chart.drawnFrom !== S) { chart.innerHTML = S.chart; chart.drawnFrom = S; }  // numbers and fixed words only
  drawSvg(S, String(seq), document.getElementById('layer'), document.getElementById('overlay'),
          document.getElementById('legend'));
}
"""

BOARD_JS = SVG_JS


__all__ = ["board_data", "viewer_data", "live_frame", "LIVE_FRAMES", "shots", "tiles_svg", "reach", "score_chart",
           "centre", "SVG_JS",
           "BOARD_JS", "STYLE", "KEY"]
