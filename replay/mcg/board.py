"""my-card-game's HTML board for the viewer shell (`replay.html.board_page`), named by its definition
(``GameDef.html_board``): each side's monsters as cards (power / toughness / health of max health, whether
it may attack, its effect text), its hand (its cards, or their backs where the view hides them), health,
mana, deck, graveyard and fatigue. Drawn, not the text board.

`compact(view, cards)` turns the whole view (`engine.mcg.views`, both seats) of one position into the small
JSON the page keeps per event; every card's definition goes once into ``cards``. ``BOARD_JS`` defines
``drawBoard(el, data, cards, seat, agents)`` (seat -1: everything; 0 or 1: what that seat saw, the other hand
as backs). Every text reaches the page with ``textContent``: a card or player name cannot become markup.
"""

from __future__ import annotations

from typing import Any


def _card(cards: dict[str, list[Any]], c: dict[str, Any]) -> None:
    key = str(c["card"])
    if key not in cards:
        cards[key] = [c.get("name", ""), c.get("type", "monster"), c.get("cost", ""), c.get("text", "")]


def compact(view: dict[str, Any], cards: dict[str, list[Any]]) -> dict[str, Any]:
    """One position's whole view as the page keeps it."""
    sides = []
    for v in view["seats"]:
        you = v["you"]
        for c in you["hand"]:
            _card(cards, c)
        for m in v["board"]["you"]:
            _card(cards, m)
        sides.append({
            "health": you["health"], "mana": you["mana"], "max_mana": you["max_mana"], "deck": you["deck"],
            "grave": len(you["graveyard"]), "fatigue": you["fatigue"],
            "hand": [[c["id"], c["card"], c.get("power", 0), c.get("toughness", 0), c.get("health", 0)]
                     if c.get("type", "monster") == "monster" else [c["id"], c["card"], None, None, None]
                     for c in you["hand"]],
            "board": [[m["id"], m["card"], m["power"], m["toughness"], m["health"], m["max_health"],
                       1 if m["can_attack"] else 0] for m in v["board"]["you"]]})
    first = view["seats"][0]
    return {"turn": first["turn"], "phase": first["phase"], "to_move": first["to_move"], "sides": sides}


BOARD_CSS = """
.mb{font-family:sans-serif;background:#2d3b2f;color:#eee;padding:8px;border-radius:6px;max-width:1100px}
.side{margin:4px 0;padding:4px;border-radius:4px}.side.tomove{outline:2px solid #fc3}
.bar{font-size:14px;margin:2px 0 4px}.bar b{margin-right:1em}.row{display:flex;gap:6px;min-height:96px;flex-wrap:wrap;
margin:3px 0}.row.hand{min-height:70px}.mid{border-top:1px dashed #8a8;margin:4px 0}
.card{width:112px;background:#f3ead2;color:#222;border-radius:5px;padding:3px;font-size:11px;position:relative;
box-shadow:0 1px 3px #000}.card .n{font-weight:bold;font-size:12px;height:28px;overflow:hidden;padding-left:12px}
.card .c{position:absolute;top:-6px;left:-6px;background:#36c;color:#fff;border-radius:50%;width:18px;height:18px;
text-align:center;line-height:18px;font-weight:bold}.card .t{height:40px;overflow:hidden;color:#555;font-size:10px}
.lab{writing-mode:vertical-rl;transform:rotate(180deg);font-size:11px;color:#bcb;text-align:center;width:14px}
.hand .card{opacity:.93;border:1px dashed #775}.legend{font-size:11px;color:#bcb}
.card .s{display:flex;justify-content:space-between;font-weight:bold;font-size:13px}
.s .p{color:#b40}.s .d{color:#36a}.s .h{color:#292}.card.ready{box-shadow:0 0 0 2px #6c6}.card.spell{background:#dde6f7}
.card.equipment{background:#efe0f3}.back{width:44px;height:64px;background:repeating-linear-gradient(45deg,#853,#853 4px,#642 4px,#642 8px);
border-radius:5px;border:2px solid #ccb}.hp{font-size:18px;color:#f66}.mana{color:#6af}
"""

BOARD_JS = r"""
function drawBoard(el, d, cards, seat, agents) {
  el.textContent = '';
  const mk = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text; return e; };
  const root = mk('div', 'mb'); root.id = 'app';
  const card = (id, c, stats, ready) => {
    const def = cards[String(c)] || ['card ' + c, 'monster', '', ''];
    const e = mk('div', 'card ' + def[1] + (ready ? ' ready' : ''));
    e.setAttribute('data-id', id);
    if (stats) { e.setAttribute('data-power', stats[0]); e.setAttribute('data-toughness', stats[1]);
      e.setAttribute('data-health', stats[2]); }
    if (def[2] !== '') e.appendChild(mk('div', 'c', String(def[2])));
    e.appendChild(mk('div', 'n', def[0] + ' #' + id));
    e.appendChild(mk('div', 't', def[3]));
    if (stats) { const s = mk('div', 's');
      s.appendChild(mk('span', 'p', '\u2694' + stats[0])); s.appendChild(mk('span', 'd', 'T' + stats[1]));
      s.appendChild(mk('span', 'h', '\u2665' + stats[2] + (stats[3] !== undefined ? '/' + stats[3] : '')));
      e.appendChild(s); }
    e.title = def[0] + ' (#' + id + '): ' + def[3];
    return e; };
  const bottom = seat === 1 ? 1 : 0, order = [1 - bottom, bottom];
  order.forEach((p, i) => {
    const s = d.sides[p], box = mk('div', 'side' + (d.to_move === p ? ' tomove' : ''));
    const bar = mk('div', 'bar');
    bar.appendChild(mk('b', '', 'P' + p + (agents && agents[p] ? ' ' + agents[p] : '')));
    bar.appendChild(mk('b', 'hp', '\u2665 ' + s.health)); box.setAttribute('data-health' + p, s.health);
    bar.appendChild(mk('b', 'mana', 'mana ' + s.mana + '/' + s.max_mana));
    bar.appendChild(mk('b', '', 'deck ' + s.deck));
    bar.appendChild(mk('b', '', 'graveyard ' + s.grave));
    bar.appendChild(mk('b', '', 'fatigue ' + s.fatigue));
    bar.appendChild(mk('b', '', 'hand ' + s.hand.length));
    const hand = mk('div', 'row hand'); hand.setAttribute('data-zone', 'hand' + p); hand.appendChild(mk('div', 'lab', 'hand'));
    if (seat === -1 || seat === p) s.hand.forEach(([id, c, pw, tg, hp]) =>
      hand.appendChild(card(id, c, pw === null || pw === undefined ? null : [pw, tg, hp], false)));
    else s.hand.forEach(() => hand.appendChild(mk('div', 'back')));
    const board = mk('div', 'row'); board.setAttribute('data-zone', 'board' + p); board.appendChild(mk('div', 'lab', 'monsters'));
    s.board.forEach(([id, c, pw, tg, hp, mx, ready]) => board.appendChild(card(id, c, [pw, tg, hp, mx], ready)));
    if (!s.board.length) board.appendChild(mk('span', '', '(no monsters)'));
    if (i === 0) { box.appendChild(bar); box.appendChild(hand); box.appendChild(board); }
    else { box.appendChild(board); box.appendChild(hand); box.appendChild(bar); }
    root.appendChild(box);
    if (i === 0) root.appendChild(mk('div', 'mid'));
  });
  const foot = mk('div', 'bar', 'turn ' + d.turn + ' \u00b7 ' + d.phase + (d.to_move >= 0 ? ' \u00b7 P' + d.to_move + ' to move' : ''));
  root.insertBefore(foot, root.firstChild);
  root.appendChild(mk('div', 'legend', '\u2694 power \u00b7 T toughness \u00b7 \u2665 health/max health \u00b7 ' +
    'green edge: may attack \u00b7 blue circle: mana cost \u00b7 yellow frame: the side to move'));
  el.appendChild(root);
}
"""

__all__ = ["compact", "BOARD_CSS", "BOARD_JS"]
