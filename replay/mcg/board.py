"""my-card-game's board in the viewer shell (`replay.html`), named by its definition (``GameDef.html_board``):
each side's monsters as cards (cost, power, toughness, health of max health, whether it may attack, its
effects in words: `replay.mcg.words`), its hand (its cards, or their backs where the view hides them), health,
mana, deck, graveyard and fatigue.

`viewer_data(replay)` keeps the whole view (`engine.mcg.views`, both seats) of every position as small JSON
(``boards``, one per event; each distinct one once, ``at[seq]`` its index), every card's definition once
(``cards``: ``{card: [name, type, cost, effects in words]}``). ``BOARD_JS``'s ``drawBoard(table)`` draws one
as the shell's perspective ``as`` sees it (null: everything; a seat: the other hand as backs). Every text
reaches the page with ``textContent``: a card or player name cannot become markup.
"""

from __future__ import annotations

import json
from typing import Any

from locm.replay.game import Replay
from locm.replay.mcg.words import card_words


def _card(cards: dict[str, list[Any]], c: dict[str, Any], names: dict[int, str]) -> None:
    key = str(c["card"])
    if key not in cards:
        cards[key] = [c.get("name", ""), c.get("type", "monster"), c.get("cost", ""),
                      card_words(c.get("effects", ()), names)]


def compact(view: dict[str, Any], cards: dict[str, list[Any]], names: dict[int, str]) -> dict[str, Any]:
    """One position's whole view as the page keeps it."""
    sides = []
    for v in view["seats"]:
        you = v["you"]
        for c in you["hand"]:
            _card(cards, c, names)
        for m in v["board"]["you"]:
            _card(cards, m, names)
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


def viewer_data(r: Replay) -> dict[str, Any]:
    names = {c.id: c.name for c in getattr(r.events[0], "cards", ())}
    cards: dict[str, list[Any]] = {}
    boards: list[Any] = []
    index: dict[str, int] = {}
    at = []
    for seq in range(len(r.events)):
        b = compact(r.view(seq, None), cards, names)
        key = json.dumps(b, sort_keys=True)
        if key not in index:
            index[key] = len(boards)
            boards.append(b)
        at.append(index[key])
    return {"cards": cards, "boards": boards, "at": at}


BOARD_JS = r"""
function drawBoard(table) {
  // one position of viewer_data (replay/mcg/board.py), from the view `as` (null: everything)
  const d = G.boards[G.at[seq]];
  table.replaceChildren();
  const card = (id, c, stats, ready) => {
    const def = G.cards[String(c)] || ["card " + c, "monster", "", ""];
    const e = el("div", "card " + def[1] + (ready ? " ready" : ""));
    e.dataset.id = id;
    if (stats) { e.dataset.power = stats[0]; e.dataset.toughness = stats[1]; e.dataset.health = stats[2]; }
    if (def[2] !== "") e.appendChild(el("div", "cost", String(def[2])));
    e.appendChild(el("div", "cid", "#" + id));
    e.appendChild(el("div", "name", def[0]));
    e.appendChild(el("div", "text", def[3] || (def[1] === "monster" ? "" : def[1])));
    if (stats) {
      const s = el("div", "stats");
      s.appendChild(el("span", "atk", "\u2694" + stats[0]));
      s.appendChild(el("span", "def", "T" + stats[1]));
      s.appendChild(el("span", "hpv", "\u2665" + stats[2] + (stats[3] !== undefined ? "/" + stats[3] : "")));
      e.appendChild(s);
    }
    e.title = def[0] + " (#" + id + ", " + def[1] + ", cost " + def[2] + ")" + (def[3] ? ": " + def[3] : "");
    return e;
  };
  const bottom = as === null ? 0 : as, order = [1 - bottom, bottom];
  order.forEach((p, i) => {
    const s = d.sides[p];
    const info = el("div", "info" + (d.to_move === p ? " active" : ""));
    const who = el("div", "who", "Player " + p + " ");
    if (G.meta.agents && G.meta.agents[p]) who.appendChild(el("small", null, G.meta.agents[p]));
    info.appendChild(who);
    const hp = el("span", "hp", "\u2665 " + s.health); hp.dataset.face = p; info.appendChild(hp);
    const gems = el("div", "mana");
    for (let k = 0; k < s.max_mana; k++) gems.appendChild(el("span", "gem" + (k < s.mana ? " full" : "")));
    gems.appendChild(el("span", "stat", " " + s.mana + "/" + s.max_mana));
    info.appendChild(gems);
    const counts = [["deck", s.deck], ["hand", s.hand.length], ["graveyard", s.grave], ["fatigue", s.fatigue]];
    for (const [label, n] of counts) {
      const st = el("span", "stat", label + " "); st.appendChild(el("b", null, String(n))); info.appendChild(st);
    }
    const hand = el("div", "hand"); hand.dataset.zone = "hand" + p;
    if (as === null || as === p) s.hand.forEach(([id, c, pw, tg, hv]) =>
      hand.appendChild(card(id, c, pw === null || pw === undefined ? null : [pw, tg, hv], false)));
    else s.hand.forEach(() => hand.appendChild(el("div", "card back")));
    const board = el("div", "lane"); board.dataset.zone = "board" + p;
    s.board.forEach(([id, c, pw, tg, hv, mx, ready]) => board.appendChild(card(id, c, [pw, tg, hv, mx], ready)));
    if (!s.board.length) board.appendChild(el("span", "muted", "no monsters"));
    const wrap = el("div", "pl");
    if (i === 0) wrap.append(info, hand, board); else wrap.append(board, hand, info);
    table.appendChild(wrap);
    if (i === 0) table.appendChild(el("div", "banner", "turn " + d.turn + " \u00b7 " + d.phase +
      (d.to_move >= 0 ? " \u00b7 player " + d.to_move + " to move" : "")));
  });
  table.appendChild(el("div", "muted", "\u2694 power \u00b7 T toughness \u00b7 \u2665 health/max health \u00b7 " +
    "green glow: may attack \u00b7 blue circle: mana cost \u00b7 gold frame: the side to move"));
}
"""

BOARD_CSS = """
.card.spell { background: #dde6f7; } .card.equipment { background: #efe0f3; }
.card { width: 112px; height: auto; min-height: 122px; } .card .text { font-size: 9px; }
.stats .hpv { color: #2a7a2a; }
"""

__all__ = ["compact", "viewer_data", "BOARD_CSS", "BOARD_JS"]
