"""`locm html`: one self-contained page (no network) that replays a game, for every game. `render_html(r)` asks
the game's wing for its page (`replay.wing.Wing.page`): LOCM's wing has its own, richer page
(`replay.locm.html`); every other game gets `board_page`, the viewer shell over its definition.

The shell's board is the game's own at every event, by seat or whole: drawn by the module its definition names
(``GameDef.html_board``, e.g. `replay.mcg.board`), or the picture its wing draws (``Wing.svg_board``, e.g.
`replay.skyport.board`) beside the text board, else the text of `GameDef.board_text` of `GameDef.view`; open
page.html#seq=S&as=P to start at seq S as player P; its event list the game's words (`describe`), each event
with its rule and its cause; step by event or by turn, switch the view.

Every text the log holds reaches the page through JSON inside a ``<script type="application/json">`` element
(``<`` escaped) and is shown with ``textContent``: a card or player name cannot become markup.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from locm.replay.game import Replay


def render_html(r: Replay) -> str:
    """The page of a game: its wing's own (`replay.wing.Wing.page`), else the viewer shell's `board_page`."""
    if r.wing.page:
        return importlib.import_module(r.wing.page).render_html(r)
    return board_page(r)


MAX_BOARDS = 20_000
"""Events whose boards a page holds (one per event and view); a longer game's page keeps each turn's start and
end only, said on the page."""


def text_boards(boards: dict[str, list[str]]) -> tuple[list[str], dict[str, list[list[int]]]]:
    """Text boards kept line by line: each distinct line once (``lines``), a board as its lines' indexes; from
    one event to the next most lines of a board repeat."""
    index: dict[str, int] = {}
    out: dict[str, list[list[int]]] = {}
    for seq, views in boards.items():
        out[seq] = [[index.setdefault(line, len(index)) for line in text.split("\n")] for text in views]
    return list(index), out


def board_page(r: Replay) -> str:
    """The viewer shell's page of a game. A wing's picture board (``Wing.svg_board``, for a board that needs
    more than a view: the shot an event belongs to, a chart over the game) is a module whose
    ``board_data(replay, seqs)`` gives the page the data of its SVG (``frames`` by seq, which its ``SVG_JS``'s
    ``drawSvg(data, seq, layer, overlay, legend)`` draws; ``chart``, ``style`` and ``key`` SVG/HTML without any
    log text; ``width``, ``height``); the text board of the whole view stays beside it, folded."""
    game = r.game
    seats = len(game.agents(r.events[0]))
    turns = [seq for seq, _, _ in game.turn_starts(r.events)]
    hook = bool(r.wing.svg_board) and not game.html_board  # its SVG, and the whole view's text only
    every = len(r.events) * (1 if hook else seats + 1) <= MAX_BOARDS
    keep = range(len(r.events)) if every else sorted({0, r.last_seq, *turns, *(t - 1 for t in turns if t > 0)})
    events = [[e.seq, type(e).__struct_config__.tag, e.rule, e.cause, r.describe(e.seq)] for e in r.events]
    data: dict[str, Any] = {"title": f"{game.title}: {r.source}", "seats": seats, "turns": turns, "events": events,
                            "warning": r.warning, "agents": list(game.agents(r.events[0])), "drawn": False,
                            "note": "" if every else "a long game: the boards of each turn's start and end only"}
    css = js = ""
    if game.html_board:  # the game's own drawn board: one whole view a position, each seat's drawn from it
        board = importlib.import_module(game.html_board)
        cards: dict[str, list[Any]] = {}
        data["boards"] = {str(seq): board.compact(r.view(seq, None), cards) for seq in keep}
        data.update(cards=cards, drawn=True)
        css, js = board.BOARD_CSS, board.BOARD_JS
    elif hook:  # the SVG board; the text board beside it is the whole view only
        board = importlib.import_module(r.wing.svg_board)
        data["svg"] = board.board_data(r, list(keep))
        data["lines"], data["boards"] = text_boards({str(seq): [r.board(seq, None)] for seq in keep})
        data["seats"] = 0
        js = board.SVG_JS
    else:
        data["lines"], data["boards"] = text_boards(
            {str(seq): [r.board(seq, None), *(r.board(seq, s) for s in range(seats))] for seq in keep})
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return _PAGE.replace("__CSS__", css).replace("__BOARD_JS__", js).replace("__DATA__", payload)


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>locm replay</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>
body{font-family:sans-serif;margin:1em}#warn{color:#a00;font-weight:bold}pre{background:#f4f4f4;padding:.6em}
#events{height:40vh;overflow:auto;position:relative;font-family:monospace;font-size:13px}.cur{background:#ffd}
button{margin-right:.3em}
__CSS__
</style></head><body>
<h3 id="title"></h3><div id="warn"></div><div id="note"></div>
<div><button id="prevturn">&lt;&lt; turn</button><button id="prev">&lt; event</button>
<button id="next">event &gt;</button><button id="nextturn">turn &gt;&gt;</button>
<select id="view"></select> <span id="where"></span></div>
<style id="svgstyle"></style><div id="svgkey"></div>
<div id="pic" style="display:flex;gap:1em;align-items:flex-start"><svg id="svgboard" style="flex-shrink:0" xmlns="http://www.w3.org/2000/svg">
<g id="layer"></g><g id="overlay"></g></svg><div><div id="legend"></div><div id="chart"></div><div id="cur"></div></div></div>
<details id="textboard" open><summary>the text board</summary><pre id="board"></pre></details>
<div id="drawn"></div><div id="events"></div>
<script type="application/json" id="game-data">__DATA__</script>
<script>
__BOARD_JS__
const D = JSON.parse(document.getElementById('game-data').textContent);
let seq = D.events.length - 1, view = 0;
const $ = id => document.getElementById(id);
const H = new URLSearchParams(location.hash.slice(1));  // page.html#seq=S&as=P: start at seq S, as player P
if (H.has('seq')) seq = Math.max(0, Math.min(D.events.length - 1, parseInt(H.get('seq'), 10) || 0));
if (H.has('as')) view = Math.max(0, Math.min(D.seats, (parseInt(H.get('as'), 10) || 0) + 1));
$('title').textContent = D.title; $('warn').textContent = D.warning; $('note').textContent = D.note;
if (D.svg) { $('svgstyle').textContent = D.svg.style; $('svgkey').innerHTML = D.svg.key;
  $('chart').innerHTML = D.svg.chart; const b = $('svgboard');
  b.setAttribute('width', D.svg.width); b.setAttribute('height', D.svg.height);
  b.setAttribute('viewBox', '0 0 ' + D.svg.width + ' ' + D.svg.height); $('textboard').open = false;
} else { $('pic').style.display = 'none'; }
const sel = $('view');
['everything', ...Array.from({length: D.seats}, (_, s) => 'as P' + s)].forEach((t, i) => {
  const o = document.createElement('option'); o.value = i; o.textContent = t; sel.appendChild(o); });
sel.value = view; sel.onchange = () => { view = +sel.value; show(); };
const shown = () => { const ks = Object.keys(D.boards).map(Number).filter(k => k <= seq); return Math.max(...ks); };
function show() {
  const at = shown();
  if (D.drawn) { $('board').style.display = 'none'; $('textboard').style.display = 'none'; drawBoard($('drawn'), D.boards[at], D.cards, view - 1, D.agents);
    $('app').setAttribute('data-seq', at); }
  else $('board').textContent = D.boards[at][view].map(i => D.lines[i]).join('\\n');
  if (D.svg) { drawSvg(D.svg, at, $('layer'), $('overlay'), $('legend'));
    const e = D.events[seq]; $('cur').textContent = seq + '  ' + e[2] + '  ' + e[4]; }
  $('where').textContent = 'seq ' + seq + ' of ' + (D.events.length - 1) + (at !== seq ? ' (board of seq ' + at + ')' : '');
  const box = $('events'); box.textContent = '';
  D.events.forEach(([s, type, rule, cause, text]) => {
    const div = document.createElement('div');
    div.textContent = s + '  ' + rule + '  ' + text + (cause >= 0 ? '   (caused by ' + cause + ')' : '');
    if (s === seq) div.className = 'cur';
    div.onclick = () => { seq = s; show(); };
    box.appendChild(div);
  });
  const cur = box.querySelector('.cur');  // the list scrolls, not the page
  if (cur) box.scrollTop = cur.offsetTop - box.clientHeight / 2;
}
$('prev').onclick = () => { seq = Math.max(0, seq - 1); show(); };
$('next').onclick = () => { seq = Math.min(D.events.length - 1, seq + 1); show(); };
$('prevturn').onclick = () => { const t = D.turns.filter(x => x < seq); seq = t.length ? t[t.length - 1] : 0; show(); };
$('nextturn').onclick = () => { const t = D.turns.find(x => x > seq); seq = t === undefined ? D.events.length - 1 : t; show(); };
show();
</script></body></html>
"""

__all__ = ["render_html", "board_page", "MAX_BOARDS"]
