"""`locm html` for the games other than LOCM: one self-contained page (no network), the viewer shell over a
game's definition. Its board is the game's own (`GameDef.board_text` of `GameDef.view`, by seat or whole) at
every event, its event list the game's words (`describe`), each event with its rule and its cause; step by
event or by turn, switch the view. LOCM keeps its own richer page (`replay.html`).

Every text the log holds reaches the page through JSON inside a ``<script type="application/json">`` element
(``<`` escaped) and is shown with ``textContent``: a card or player name cannot become markup.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from locm.replay.match import MatchReplay

BOARD_HOOKS: dict[str, str] = {"skyport": "locm.replay.skyport.board"}
"""A game's picture board, by game name: a module whose ``board_data(replay, seqs)`` gives the page its SVG
layers (``layers``: distinct background SVG, ``frames``: per seq its layer, overlay SVG and legend HTML,
``chart``, ``style``, ``key``, ``width``, ``height``), built from the log with every log text escaped. The
text board stays beside it."""

MAX_BOARDS = 20_000
"""Events whose boards a page holds (one per event and view); a longer game's page keeps each turn's start and
end only, said on the page."""


def render_match_html(r: MatchReplay) -> str:
    game = r.game
    seats = len(game.agents(r.events[0]))
    turns = [seq for seq, _, _ in game.turn_starts(r.events)]
    every = len(r.events) * (seats + 1) <= MAX_BOARDS
    keep = range(len(r.events)) if every else sorted({0, r.last_seq, *turns, *(t - 1 for t in turns if t > 0)})
    boards = {str(seq): [r.board(seq, None), *(r.board(seq, s) for s in range(seats))] for seq in keep}
    events = [[e.seq, type(e).__struct_config__.tag, e.rule, e.cause, r.describe(e.seq)] for e in r.events]
    data: dict[str, Any] = {"title": f"{game.title}: {r.source}", "seats": seats, "turns": turns, "events": events,
                            "boards": boards, "warning": r.warning,
                            "note": "" if every else "a long game: the boards of each turn's start and end only"}
    hook = BOARD_HOOKS.get(game.name)
    if hook:
        data["svg"] = importlib.import_module(hook).board_data(r, list(keep))
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return _PAGE.replace("__DATA__", payload)


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>locm replay</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>
body{font-family:sans-serif;margin:1em}#warn{color:#a00;font-weight:bold}pre{background:#f4f4f4;padding:.6em}
#events{height:30vh;overflow:auto;font-family:monospace;font-size:13px}.cur{background:#ffd}
button{margin-right:.3em}
</style></head><body>
<h3 id="title"></h3><div id="warn"></div><div id="note"></div>
<div><button id="prevturn">&lt;&lt; turn</button><button id="prev">&lt; event</button>
<button id="next">event &gt;</button><button id="nextturn">turn &gt;&gt;</button>
<select id="view"></select> <span id="where"></span></div>
<style id="svgstyle"></style><div id="svgkey"></div>
<div id="pic" style="display:flex;gap:1em;align-items:flex-start"><svg id="svgboard" xmlns="http://www.w3.org/2000/svg">
<g id="layer"></g><g id="overlay"></g></svg><div><div id="legend"></div><div id="chart"></div><div id="cur"></div></div></div>
<details id="textboard" open><summary>the text board</summary><pre id="board"></pre></details><div id="events"></div>
<script type="application/json" id="game-data">__DATA__</script>
<script>
const D = JSON.parse(document.getElementById('game-data').textContent);
let seq = D.events.length - 1, view = 0;
const $ = id => document.getElementById(id);
const at0 = /seq=([0-9]+)/.exec(location.hash); if (at0) seq = Math.min(+at0[1], seq);
$('title').textContent = D.title; $('warn').textContent = D.warning; $('note').textContent = D.note;
if (D.svg) { $('svgstyle').textContent = D.svg.style; $('svgkey').innerHTML = D.svg.key;
  $('chart').innerHTML = D.svg.chart; const b = $('svgboard');
  b.setAttribute('width', D.svg.width); b.setAttribute('height', D.svg.height);
  b.setAttribute('viewBox', '0 0 ' + D.svg.width + ' ' + D.svg.height);   $('textboard').open = false; } else { $('pic').style.display = 'none'; }
const sel = $('view');
['everything', ...Array.from({length: D.seats}, (_, s) => 'as P' + s)].forEach((t, i) => {
  const o = document.createElement('option'); o.value = i; o.textContent = t; sel.appendChild(o); });
sel.onchange = () => { view = +sel.value; show(); };
const shown = () => { const ks = Object.keys(D.boards).map(Number).filter(k => k <= seq); return Math.max(...ks); };
function show() {
  const at = shown();
  $('board').textContent = D.boards[at][view];
  if (D.svg) { const f = D.svg.frames[at]; $('layer').innerHTML = D.svg.layers[f[0]]; $('overlay').innerHTML = f[1];
    $('legend').innerHTML = f[2]; const e = D.events[seq]; $('cur').textContent = seq + '  ' + e[2] + '  ' + e[4]; }
  $('where').textContent = 'seq ' + seq + ' of ' + (D.events.length - 1) + (at !== seq ? ' (board of seq ' + at + ')' : '');
  const box = $('events'); box.textContent = '';
  D.events.forEach(([s, type, rule, cause, text]) => {
    const div = document.createElement('div');
    div.textContent = s + '  ' + rule + '  ' + text + (cause >= 0 ? '   (caused by ' + cause + ')' : '');
    if (s === seq) div.className = 'cur';
    div.onclick = () => { seq = s; show(); };
    box.appendChild(div);
  });
  const cur = box.querySelector('.cur');
  if (cur) box.scrollTop = cur.offsetTop - box.offsetTop - box.clientHeight / 2;
}
$('prev').onclick = () => { seq = Math.max(0, seq - 1); show(); };
$('next').onclick = () => { seq = Math.min(D.events.length - 1, seq + 1); show(); };
$('prevturn').onclick = () => { const t = D.turns.filter(x => x < seq); seq = t.length ? t[t.length - 1] : 0; show(); };
$('nextturn').onclick = () => { const t = D.turns.find(x => x > seq); seq = t === undefined ? D.events.length - 1 : t; show(); };
show();
</script></body></html>
"""

__all__ = ["render_match_html", "MAX_BOARDS"]
