// LOCM's board in the viewer shell (replay/viewer.html): drawBoard(table, G, seq, as) draws the position after
// event seq (as: null for everything, else the seat whose view it is); the hover text of a card; the arrows.
const TYPES = ["creature", "itemGreen", "itemRed", "itemBlue"];
const KW = {B: "Breakthrough", C: "Charge", D: "Drain", G: "Guard", L: "Lethal", W: "Ward"};
const PHASES = ["setup", "draft", "construct", "battle", "ended"];
const AREAS = ["", "lane", "both lanes"];
const KW_TEXT = {
  B: "Breakthrough: damage beyond what kills the defender goes to the opponent",
  C: "Charge: can attack the turn it is summoned",
  D: "Drain: its owner heals its attack when it deals damage",
  G: "Guard: enemies in its lane must attack it first",
  L: "Lethal: any damage it deals kills the creature",
  W: "Ward: the next damage it would take is ignored, and the Ward is lost"};
const TYPE_TEXT = {creature: "creature", itemGreen: "green item (on your creature)",
                   itemRed: "red item (on an enemy creature)", itemBlue: "blue item (on an enemy creature or the opponent)"};
const ARROW_COLORS = {attack: "#ff6b4a", itemGreen: "#58d36a", itemRed: "#ff4f6d", itemBlue: "#5aa2ff"};
function sign(n) { return n > 0 ? "+" + n : String(n); }

function cardEl(id, atk, def, kw, board) {
  const c = G.cards[id];
  const type = TYPES[c[1]];
  const e = el("div", "card " + type);
  e.dataset.id = id; e.dataset.attack = atk; e.dataset.defense = def; e.dataset.keywords = kw;
  e.appendChild(el("div", "cost", c[2]));
  e.appendChild(el("div", "cid", "#" + id + " \u00b7 b" + c[0]));
  e.appendChild(el("div", "name", c[7] || (type === "creature" ? "creature" : type.replace("item", "") + " item")));
  const kws = el("div", "kw");
  for (const ch of kw) if (ch !== "-") { const k = el("span", "k k-" + ch, ch); k.title = KW[ch]; kws.appendChild(k); }
  e.appendChild(kws);
  const fx = [];
  if (c[3]) fx.push("you " + sign(c[3]));
  if (c[4]) fx.push("opp " + sign(c[4]));
  if (c[5]) fx.push("draw " + sign(c[5]));
  if (c[6]) fx.push("area: " + AREAS[c[6]]);
  e.appendChild(el("div", "fx", fx.join(" \u00b7 ")));
  const st = el("div", "stats");
  st.appendChild(el("span", "atk", type === "creature" ? atk : sign(atk)));
  st.appendChild(el("span", "def", type === "creature" ? def : sign(def)));
  e.appendChild(st);
  if (board) {
    e.dataset.canAttack = board.ready ? "1" : "0";
    if (board.ready) e.classList.add("ready");
    if (board.spent) e.classList.add("spent");
  }
  e.dataset.tip = "card";
  return e;
}

// A card's printed values as one record: from a card instance (G.cards) or a pool card (G.pool).
function printed(id, base) {
  if (id !== null && id !== undefined) {
    const c = G.cards[id];
    return {id: id, base: c[0], type: TYPES[c[1]], cost: c[2], my: c[3], opp: c[4], draw: c[5], area: c[6],
            name: c[7], attack: c[8], defense: c[9], kw: c[10], text: c[11]};
  }
  const c = G.pool[base];
  return {id: null, base: +base, type: TYPES[c[0]], cost: c[1], attack: c[2], defense: c[3], kw: c[4], my: c[5],
          opp: c[6], draw: c[7], area: c[8], name: c[9], text: c[10]};
}

// The hover text of a card: what it is and what it does, in words; `now` its current values on the table.
function tipHtml(c, now) {
  const box = el("div");
  box.appendChild(el("h3", null, c.name || (c.type === "creature" ? "Creature" : TYPE_TEXT[c.type])));
  const stats = c.type === "creature" ? c.attack + "/" + c.defense : sign(c.attack) + "/" + sign(c.defense);
  box.appendChild(el("div", "sub", TYPE_TEXT[c.type] + " \u00b7 cost " + c.cost + " \u00b7 " + stats +
                     (c.id !== null ? " \u00b7 #" + c.id : "") + " \u00b7 base " + c.base));
  if (now && (now.attack !== c.attack || now.defense !== c.defense || now.kw !== c.kw))
    box.appendChild(el("div", "sub", "now " + now.attack + "/" + now.defense + " " + now.kw));
  if (c.text) box.appendChild(el("div", "txt", c.text));
  const ul = el("ul");
  for (const ch of (now ? now.kw : c.kw)) if (ch !== "-") {
    ul.appendChild(el("li", null, c.type === "creature" || c.type === "itemGreen" ? KW_TEXT[ch]
                                  : "removes " + KW_TEXT[ch].split(":")[0]));
  }
  const when = c.type === "creature" ? "When summoned: " : "When used: ";
  if (c.type !== "creature" && (c.attack || c.defense)) {
    const what = c.type === "itemGreen" ? "the creature gets " : c.type === "itemBlue" ? "deals " : "the creature gets ";
    ul.appendChild(el("li", null, c.type === "itemBlue" && c.defense < 0 && !c.attack
      ? "deals " + (-c.defense) + " damage to a creature or the opponent"
      : what + sign(c.attack) + "/" + sign(c.defense)));
  }
  if (c.my) ul.appendChild(el("li", null, when + "you " + (c.my > 0 ? "gain " : "lose ") + Math.abs(c.my) + " health"));
  if (c.opp) ul.appendChild(el("li", null, when + "the opponent " + (c.opp > 0 ? "gains " : "loses ") + Math.abs(c.opp) + " health"));
  if (c.draw) ul.appendChild(el("li", null, when + "you draw " + c.draw + " card" + (c.draw > 1 ? "s" : "") + " next turn"));
  if (c.area) ul.appendChild(el("li", null, c.type === "creature"
    ? "Area (" + AREAS[c.area] + "): a copy is summoned " + (c.area === 1 ? "in the same lane" : "in the other lane") + " if there is room"
    : "Area (" + AREAS[c.area] + "): acts on every creature of the target's side in " + (c.area === 1 ? "its lane" : "both lanes")));
  if (ul.children.length) box.appendChild(ul);
  return box;
}

const tip = document.getElementById("tip");
document.addEventListener("mouseover", e => {
  const card = e.target.closest("[data-tip]");
  if (!card) { tip.style.display = "none"; return; }
  const id = card.dataset.id, base = card.dataset.base;
  const c = printed(id !== undefined ? +id : null, base);
  const now = id !== undefined && card.dataset.attack !== undefined
    ? {attack: +card.dataset.attack, defense: +card.dataset.defense, kw: card.dataset.keywords} : null;
  tip.replaceChildren(tipHtml(c, now));
  tip.dataset.for = id !== undefined ? "id" + id : "base" + base;
  const r = card.getBoundingClientRect();
  tip.style.display = "block";
  const left = r.right + 8 + 300 < window.innerWidth ? r.right + 8 : Math.max(4, r.left - 308);
  tip.style.left = left + "px";
  tip.style.top = Math.max(4, Math.min(r.top, window.innerHeight - tip.offsetHeight - 4)) + "px";
});
document.addEventListener("mouseleave", () => { tip.style.display = "none"; });

function offerEl(b, i) {
  const c = G.pool[b];
  const type = TYPES[c[0]];
  const e = el("div", "card " + type);
  e.dataset.base = b;
  e.appendChild(el("div", "cost", c[1]));
  e.appendChild(el("div", "cid", "b" + b));
  e.dataset.tip = "pool";
  e.appendChild(el("div", "name", c[9] || type));
  const kws = el("div", "kw");
  for (const ch of c[4]) if (ch !== "-") { const k = el("span", "k k-" + ch, ch); k.title = KW[ch]; kws.appendChild(k); }
  e.appendChild(kws);
  const fx = [];
  if (c[5]) fx.push("you " + sign(c[5]));
  if (c[6]) fx.push("opp " + sign(c[6]));
  if (c[7]) fx.push("draw " + sign(c[7]));
  e.appendChild(el("div", "fx", fx.join(" \u00b7 ")));
  const st = el("div", "stats");
  st.appendChild(el("span", "atk", type === "creature" ? c[2] : sign(c[2])));
  st.appendChild(el("span", "def", type === "creature" ? c[3] : sign(c[3])));
  e.appendChild(st);
  return e;
}

function eventIds(ev) {
  const m = ev[4].match(/#(\d+)/g) || [];
  return new Set(m.map(s => +s.slice(1)));
}

function playerBlock(v, p, hot) {
  const d = v[4 + p];
  const [health, mana, maxMana, deck, nextDraw, extra, hand] = d;
  const wrap = el("div", "pl");
  const info = el("div", "info" + (v[1] === p && PHASES[v[2]] === "battle" ? " active" : ""));

  const who = el("div", "who", "Player " + p + " ");
  const agent = (G.meta.agents || [])[p];
  if (agent) who.appendChild(el("small", null, agent));
  info.appendChild(who);
  const hp = el("span", "hp", "\u2665 " + health);
  hp.dataset.face = p;
  info.appendChild(hp);
  const gems = el("div", "mana");
  for (let i = 0; i < maxMana; i++) gems.appendChild(el("span", "gem" + (i < mana ? " full" : "")));
  gems.appendChild(el("span", "stat", " " + mana + "/" + maxMana));
  info.appendChild(gems);
  const s = el("span", "stat"); s.innerHTML = "deck <b>" + deck + "</b> &middot; hand <b>" + hand.length +
    "</b> &middot; " + (G.locm.ruleset === "1.2" ? "next rune <b>" + extra + "</b>" : "damage <b>" + extra + "</b>") +
    " &middot; next draw <b>" + nextDraw + "</b>";
  info.appendChild(s);
  const handEl = el("div", "hand");
  handEl.dataset.zone = "hand" + p;
  if (as !== null && as !== p) {
    for (let i = 0; i < hand.length; i++) handEl.appendChild(el("div", "card back"));
  } else {
    for (const h of hand) { const c = cardEl(h[0], h[1], h[2], h[3]); if (hot.has(h[0])) c.classList.add("hot"); handEl.appendChild(c); }
  }
  return [wrap, info, handEl];
}

function boardRow(v, p, hot) {
  const row = el("div", "boardrow");
  row.dataset.zone = "board" + p;
  const lanes = [el("div", "lane"), el("div", "lane")];
  lanes.forEach((l, i) => { l.dataset.lane = i; row.appendChild(l); });
  for (const u of v[4 + p][7]) {
    const c = cardEl(u[0], u[2], u[3], u[4], {ready: u[5] === 1, spent: u[6] === 1});
    if (hot.has(u[0])) c.classList.add("hot");
    lanes[u[1]].appendChild(c);
  }
  return row;
}

// The cards a player has taken so far (draft picks, or the constructed deck): a mana curve and the list.
function deckPanel(v, p) {
  const picks = v[7][p];
  const box = el("div", "deck");
  box.dataset.zone = "picks" + p;
  const full = PHASES[v[2]] === "draft" ? "draft" : "deck";
  const hidden = as !== null && as !== p;
  box.appendChild(el("h4", null, "Player " + p + (PHASES[v[2]] === "draft" ? ": picks so far " : ": deck ") +
                     "(" + picks.length + ")" + (hidden ? " \u00b7 hidden from player " + as : "")));
  if (hidden || !picks.length) {
    if (!picks.length) box.appendChild(el("div", "muted", full === "draft" ? "no pick yet" : "not chosen yet"));
    return box;
  }
  const byCost = new Array(8).fill(0);
  for (const b of picks) byCost[Math.min(G.pool[b][1], 7)] += 1;
  const top = Math.max(...byCost, 1);
  const curve = el("div", "curve");
  byCost.forEach((n, i) => {
    const bar = el("div");
    bar.style.height = (100 * n / top) + "%";
    bar.appendChild(el("b", null, n ? String(n) : ""));
    bar.appendChild(el("span", null, i === 7 ? "7+" : String(i)));
    curve.appendChild(bar);
  });
  box.appendChild(curve);
  const list = el("div", "decklist");
  const counts = new Map();
  for (const b of picks) counts.set(b, (counts.get(b) || 0) + 1);
  const lastPick = PHASES[v[2]] === "draft" ? picks[picks.length - 1] : null;
  for (const b of [...counts.keys()].sort((x, y) => G.pool[x][1] - G.pool[y][1] || x - y)) {
    const c = G.pool[b];
    const m = el("span", "mini " + TYPES[c[0]]);
    m.dataset.base = b; m.dataset.count = counts.get(b); m.dataset.tip = "pool";
    if (b === lastPick) m.classList.add("new");
    const i = el("i", null, String(c[1]));
    const kw = c[4].replace(/-/g, "");
    m.append(i, (c[9] || TYPES[c[0]]) + " " + (c[0] === 0 ? c[2] + "/" + c[3] : sign(c[2]) + "/" + sign(c[3])) +
             (kw ? " " + kw : "") + (counts.get(b) > 1 ? " \u00d7" + counts.get(b) : ""));
    list.appendChild(m);
  }
  box.appendChild(list);
  return box;
}

// The arrows of the decision that made the current event: attacks and item uses, from the attacker (or the
// player's hand) to the target creature (or the player), or to the lane where it stood once it died.
function drawArrows(table) {
  const old = document.getElementById("arrows");
  if (old) old.remove();
  const all = G.arrows[G.root[seq]] || [];
  const done = all.filter(a => a[0] <= seq);
  const list = done.length ? [done[done.length - 1]] : all.slice(0, 1);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.id = "arrows";
  svg.setAttribute("width", table.scrollWidth); svg.setAttribute("height", table.scrollHeight);
  const base = table.getBoundingClientRect();
  const centre = node => {
    const r = node.getBoundingClientRect();
    return [r.left + r.width / 2 - base.left + table.scrollLeft, r.top + r.height / 2 - base.top + table.scrollTop];
  };
  const find = (id, player, lane, hand) => {
    if (id >= 0) {
      const n = table.querySelector('.card[data-id="' + id + '"]');
      if (n) return n;
      if (lane >= 0) return table.querySelector('[data-zone="board' + player + '"] [data-lane="' + lane + '"]');
    }
    return table.querySelector(hand ? '[data-zone="hand' + player + '"]' : '[data-face="' + player + '"]');
  };
  list.forEach((a, k) => {
    const [, kind, from, to, toPlayer, toLane, fromLane, actor] = a;
    const src = kind === "attack" ? find(from, actor, fromLane, false) : find(-1, actor, -1, true);
    const dst = find(to, toPlayer, toLane, false);
    if (!src || !dst) return;
    const [x1, y1] = centre(src), [x2, y2] = centre(dst);
    const colour = ARROW_COLORS[kind] || "#ffffff";
    const g = document.createElementNS(svg.namespaceURI, "g");
    g.dataset.kind = kind; g.dataset.from = from;
    g.dataset.to = to >= 0 ? String(to) : "face" + toPlayer;
    const mx = (x1 + x2) / 2 + (y2 - y1) * 0.15, my = (y1 + y2) / 2 - (x2 - x1) * 0.15;
    const path = document.createElementNS(svg.namespaceURI, "path");
    path.setAttribute("d", "M" + x1 + "," + y1 + " Q" + mx + "," + my + " " + x2 + "," + y2);
    path.setAttribute("stroke", colour);
    path.setAttribute("filter", "drop-shadow(0 0 2px #000)");
    // the head: a triangle along the curve's last direction (control point to end)
    const dx = x2 - mx, dy = y2 - my, len = Math.hypot(dx, dy) || 1, ux = dx / len, uy = dy / len;
    const head = document.createElementNS(svg.namespaceURI, "polygon");
    const bx = x2 - 18 * ux, by = y2 - 18 * uy;
    head.setAttribute("points", [x2, y2, bx - 9 * uy, by + 9 * ux, bx + 9 * uy, by - 9 * ux].join(","));
    head.setAttribute("fill", colour);
    head.setAttribute("stroke", "#000"); head.setAttribute("stroke-width", "1");
    g.append(path, head);
    svg.appendChild(g);
  });
  table.appendChild(svg);
}

function drawBoard(table) {
  const v = G.views[G.at[seq]];
  const hot = eventIds(G.events[seq]);
  table.replaceChildren();
  const bottom = as === null ? 0 : as, top = 1 - bottom;
  const [tw, ti, th] = playerBlock(v, top, hot);
  tw.append(ti, th);
  table.appendChild(tw);
  const phase = PHASES[v[2]];
  const building = !!v[7];
  table.appendChild(building ? deckPanel(v, top) : boardRow(v, top, hot));
  if (phase === "draft" || phase === "construct" || phase === "setup" || building) {
    const box = el("div", "offer");
    if (v[6]) {
      box.appendChild(el("div", "banner", "Draft round " + v[6][0] + ": player " + v[1] + " picks one of"));
      const row = el("div", "hand");
      v[6][1].forEach((b, i) => row.appendChild(offerEl(b, i)));
      box.appendChild(row);
    } else {
      box.appendChild(el("div", "banner", phase === "construct" ? "Deck building: each player chooses " +
                         "its 30 cards from the same pool" : phase === "battle" ? "The decks are built: the battle " +
                         "begins" : phase + " phase"));
    }
    table.appendChild(box);
  } else {
    const mid = el("div", "midline");
    mid.append(el("div", null, "lane 0"), el("div", null, "lane 1"));
    table.appendChild(mid);
  }
  table.appendChild(building ? deckPanel(v, bottom) : boardRow(v, bottom, hot));
  const [bw, bi, bh] = playerBlock(v, bottom, hot);
  bw.append(bh, bi);
  table.appendChild(bw);
  if (v[3] >= 0 && PHASES[v[2]] === "ended") {
    table.appendChild(el("div", "banner", "Player " + v[3] + " wins (" + G.locm.reason + ")"));
  }
  drawArrows(table);
}
