"""The card-balance report as one self-contained HTML page: charts embedded as base64 PNG, tables sortable by
a few lines of inline JavaScript, no network access, no server."""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from locm.analysis.stats import wilson

CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px;background:#fff}
h1{margin:0 0 4px;font-size:28px} h2{margin-top:40px;border-bottom:2px solid #eee;padding-bottom:4px}
.lead{color:#555;margin-top:0} .facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;
background:#f3f6fa;border:1px solid #dde4ee;border-radius:6px;padding:12px 16px}
.facts b{color:#444} .note{background:#fff8e1;border-left:4px solid #f2b600;padding:8px 12px;margin:14px 0}
figure{margin:22px 0} figure img{max-width:100%;border:1px solid #eee} figcaption{color:#555;font-size:14px}
table{border-collapse:collapse;font-size:13px;margin:10px 0;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap;vertical-align:top}
th{white-space:normal;vertical-align:bottom;min-width:3.5em}
th:first-child,td:first-child{text-align:left} th{background:#f3f3f3;position:sticky;top:0}
table.sortable th{cursor:pointer} table.sortable th:hover{background:#e6ecf5}
th[data-dir=asc]::after{content:" \\25B2"} th[data-dir=desc]::after{content:" \\25BC"}
.ci{color:#888;font-size:11px;display:block;line-height:1.1} .na{color:#aaa} .scroll{max-height:640px;overflow:auto;border:1px solid #eee}
nav a{margin-right:14px}
.flag{background:#fdecea;border-left:6px solid #c62828;padding:10px 14px;margin:14px 0;color:#611a15}
.ok{background:#edf7ed;border-left:6px solid #2e7d32;padding:10px 14px;margin:14px 0;color:#1e4620}
dl.notes dt{font-weight:600;margin-top:6px} dl.notes dd{margin-left:18px;color:#333}
h3 .pairing{font-weight:normal;color:#555;font-size:15px}
td.text{text-align:left;white-space:normal;min-width:14em} table.pairs td{text-align:left}
details.folded summary{cursor:pointer}
"""

JS = """
document.querySelectorAll('table.sortable th').forEach((th, i) => th.addEventListener('click', () => {
  const body = th.closest('table').tBodies[0], desc = th.dataset.dir !== 'desc';
  th.closest('tr').querySelectorAll('th').forEach(h => delete h.dataset.dir);
  th.dataset.dir = desc ? 'desc' : 'asc';
  const val = r => r.cells[i].dataset.v ?? r.cells[i].textContent;
  [...body.rows].sort((a, b) => {
    const x = val(a), y = val(b);
    if (x === '' || y === '') return (x === '') - (y === '');
    const nx = parseFloat(x), ny = parseFloat(y);
    const c = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
    return desc ? -c : c;
  }).forEach(r => body.appendChild(r));
}));
"""


def _pct(v) -> str:
    return "" if v is None else f"{100 * v:.1f}%"


def _rate_cell(row: dict, m: str) -> str:
    wr, ci = row[f"{m}_wr"], row[f"{m}_ci"]
    if wr is None:
        return f'<td data-v="" class="na" title="n={row[f"{m}_n"]}: not enough data">n/a</td>'
    return (f'<td data-v="{wr}" title="{row[f"{m}_wins"]} wins of {row[f"{m}_n"]}">{_pct(wr)} '
            f'<span class="ci">[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]</span></td>')


def _num(v, fmt="{}") -> str:
    return '<td data-v="" class="na">-</td>' if v is None else f'<td data-v="{v}">{fmt.format(v)}</td>'


def card_table(rows: list[dict], names: dict[int, str]) -> str:
    feature = bool(rows) and "feature" in rows[0]
    head = ["feature" if feature else "card", "in deck n", "deck WR", "in hand n", "in-hand WR", "not seen n",
            "not-seen WR", "IIH", "in-hand WR &minus; baseline", "q", "IIH &minus; its mean", "q", "opening WR",
            "drawn WR", "played n", "played WR", "pick rate", "avg pick",
            "turn played", "turns held"]
    out = ['<div class="scroll"><table class="sortable"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
           + "</tr></thead><tbody>"]
    for r in rows:
        if feature:
            first = f'<td>{escape(r["feature"])}</td>'
        else:
            first = f'<td data-v="{r["base_id"]:04d}">#{r["base_id"]} {escape(names.get(r["base_id"], ""))}</td>'
        iih = r["iih"]
        out.append("<tr>" + first + _num(r["deck_n"]) + _rate_cell(r, "deck") + _num(r["in_hand_n"])
                   + _rate_cell(r, "in_hand") + _num(r["not_seen_n"]) + _rate_cell(r, "not_seen")
                   + ('<td data-v="" class="na">n/a</td>' if iih is None else
                      f'<td data-v="{iih}">{100 * iih:+.1f} pp</td>')
                   + _centred_cells(r, "in_hand") + _centred_cells(r, "iih")
                   + _rate_cell(r, "opening_hand") + _rate_cell(r, "drawn") + _num(r["played_n"])
                   + _rate_cell(r, "played")
                   + ('<td data-v="" class="na">-</td>' if r["pick_rate"] is None else
                      f'<td data-v="{r["pick_rate"]}">{_pct(r["pick_rate"])}</td>')
                   + _num(r["avg_pick"]) + _num(r["avg_turn_played"]) + _num(r["avg_turns_held"]) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _centred_cells(row: dict, metric: str) -> str:
    """A tested metric minus its baseline (starred when it differs from it after Benjamini-Hochberg) and its
    q-value."""
    c, q = row[f"{metric}_centred"], row[f"{metric}_q"]
    if c is None:
        return '<td data-v="" class="na">n/a</td><td data-v="" class="na">-</td>'
    star = " *" if row[f"{metric}_significant"] else ""
    return f'<td data-v="{c}">{100 * c:+.1f}{star}</td><td data-v="{q}">{q:.3f}</td>'


def baseline_line(stratum) -> str:
    """The baselines of one pairing's rows and how many rows differ from them, in one sentence."""
    b = stratum.baselines
    if not b or b["in_hand"]["baseline"] is None:
        return "<p class=lead>No row has enough data to be tested against a baseline.</p>"
    i, h = b["in_hand"], b["iih"]
    text = (f"Baselines measured on these games: in-hand WR {100 * i['baseline']:.1f}% (the mean of its "
            f"{i['tested']} rows; {i['significant']} differ from it)")
    if h["baseline"] is not None:
        text += (f"; IIH {100 * h['baseline']:+.1f} points (the mean of {h['tested']} rows: the selection bias "
                 f"of in-hand against not-seen on these games; {h['significant']} differ from it)")
    return (f"<p class=lead>{text}. * : the interval excludes the baseline and the Benjamini-Hochberg q-value "
            f"over the rows tested is at most {i['fdr']:g}.</p>")


def _cell(wins: int, n: int) -> str:
    if not n:
        return "<td class=na>-</td>"
    lo, hi = wilson(wins, n)
    return (f'<td data-v="{wins / n:.4f}">{100 * wins / n:.1f}% <span class="ci">[{100 * lo:.1f}, '
            f'{100 * hi:.1f}] n={n}</span></td>')


def matrix_table(m: dict) -> str:
    agents = m["agents"]
    out = ["<table><thead><tr><th>row agent's win rate against &rarr;</th>"
           + "".join(f"<th>{escape(a)}</th>" for a in agents) + "<th>overall</th></tr></thead><tbody>"]
    for a in agents:
        cells, tw, tn = [], 0, 0
        for b in agents:
            if a == b:
                cells.append('<td class="na">mirror</td>')
                continue
            w, n = m["cells"].get((a, b), (0, 0))
            tw, tn = tw + w, tn + n
            cells.append(_cell(w, n))
        out.append(f"<tr><td>{escape(a)}</td>" + "".join(cells) + _cell(tw, tn) + "</tr>")
    out.append("</tbody></table>")
    k, n = m["mirrored"]
    out.append(f"<p class=lead>{k} of {n} (seed, seating) pairs between different agents were also played with "
               "the seats swapped (mirrored seeds).</p>")
    return "\n".join(out)


def summary_table(summary: dict[str, dict]) -> str:
    sources = sorted({k for s in summary.values() for k in s["damage"]})
    head = ["ruleset", "games", "first player WR", "mean length (turns)"] + [f"damage: {s}" for s in sources] + \
           ["drain healed"]
    out = ["<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for rs, s in summary.items():
        total = sum(s["damage"].values()) or 1
        mean = sum(s["turns"]) / len(s["turns"]) if s["turns"] else 0
        out.append(f"<tr><td>{escape(rs)}</td><td>{s['games']}</td>" + _cell(s["seat0_wins"], s["games"])
                   + f"<td>{mean:.1f}</td>"
                   + "".join(f"<td>{100 * s['damage'].get(k, 0) / total:.1f}%</td>" for k in sources)
                   + f"<td>{s['drain']}</td></tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def folded_pairing(stratum, body: str) -> str:
    """A lopsided pairing's table, folded under one line that says so and how many of its rows have a rate."""
    rated = sum(r["in_hand_wr"] is not None for r in stratum.cards)
    return (f"<details class=folded><summary class=note><b>Lopsided pairing</b>: {escape(stratum.agent)} wins "
            f"{100 * stratum.wins / stratum.player_games:.1f}% against {escape(stratum.opponent)}: its rates tell "
            f"who takes a card; {rated} of {len(stratum.cards)} rows have a rate (open)</summary>" + body + "</details>")


def pairings_table(data) -> str:
    """Every pairing of the report with its player-games, the agent's win rate against the opponent (both
    seats) and whether it is lopsided."""
    out = ["<table class=pairs><thead><tr><th>ruleset</th><th>pairing (rows' agent vs opponent)</th>"
           "<th>player-games</th><th>agent's win rate against the opponent</th><th>data</th></tr></thead><tbody>"]
    for rs, d in data.rulesets.items():
        for s in d.strata:
            if s.mirrored_decks:
                verdict = (f"<b>mirrored decks</b>: self-play, but both seats had the same deck in {s.same_decks} of "
                           f"{s.player_games // 2} games: a card is held by both seats or by neither, so its deck "
                           "rate is about 50% whatever it does")
            elif s.selfplay:
                verdict = "self-play: equal strength by construction"
            elif s.lopsided:
                verdict = (f"<b>lopsided</b>: more than {100 * (0.5 + data.max_imbalance):.0f}% for one side; "
                           "its card rates say more about the agents than about the cards")
            else:
                verdict = f"balanced (within {100 * data.max_imbalance:.0f} points of 50%)"
            strength = "<td class=na>-</td>" if s.selfplay else _cell(s.wins, s.player_games)
            out.append(f"<tr><td>{escape(rs)}</td><td>{escape(s.label)}</td><td>{s.player_games}</td>"
                       + strength + f"<td class=text>{verdict}</td></tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def quality_box(data) -> str:
    """The loud part: which pairings are lopsided or mirrored, or that the data is self-play / balanced."""
    out = ""
    for rs, s in data.mirrored:
        out += (f"<div class=flag><b>Mirrored decks.</b> {escape(rs)}, {escape(s.label)}: both seats built the same "
                f"deck in {s.same_decks} of {s.player_games // 2} games (a deterministic agent sees the same offers "
                "twice). A card is then held by both seats or by neither, so its deck win rate is about 50% whatever "
                "it does, and a card's value to its holder cannot be measured on those games. Use an agent whose "
                "seats build different decks (lookahead's seeded jitter) for balance data.</div>")
    return out + _strength_box(data, bool(out))


def _strength_box(data, flagged: bool) -> str:
    bad = data.lopsided
    if bad:
        return f"<p class=note>{lopsided_note(data)}</p>"
    if flagged:  # mirrored decks: not "balanced data", whatever the strengths
        return ""
    return ("<div class=ok><b>Balanced data.</b> Every pairing is self-play or within "
            f"{100 * data.max_imbalance:.0f} points of 50%. The rates below still carry selection bias "
            "(see How to read these numbers).</div>")


def lopsided_note(data) -> str:
    """The lopsided pairings in one line: how many, the threshold, and what to read instead."""
    bad = data.lopsided
    total = sum(len(d.strata) for d in data.rulesets.values())
    return (f'<b>Lopsided data</b>: <a href="#pairings">{len(bad)} of {total} pairings</a> (one agent wins over '
            f"{100 * (0.5 + data.max_imbalance):.0f}%) say who takes a card; read the self-play tables.")


def facts_source(facts: dict | None) -> str:
    """Where the games' facts came from: stored with their events, or projected from the events by this report."""
    if not facts:
        return "projected from the events"
    parts = []
    if facts["stored"]:
        parts.append(f"{facts['stored']} games' as stored beside their events (derived data: <code>locm "
                     "verify</code> recomputes them from the events and names any that differ)")
    if facts["from_events"]:
        parts.append(f"{facts['from_events']} games' projected from their events by this report, each game's hash "
                     "chain checked")
    return "; ".join(parts)


def render(data, charts) -> str:
    from locm.engine.locm.carddata import cardlist_12
    from locm.analysis.locm.cardnotes import METRIC_NOTES, SELECTION_NOTE

    names = {b: c.name for b, c in cardlist_12().items()}
    cov = data.coverage
    f = data.filters
    filt = ", ".join(f"{k} = {v}" for k, v in f.items() if v is not None) or "none (every game counted, both seats)"
    seeds = cov["seeds"]
    facts = [
        ("games", f"{cov['games']:,}".replace(",", " ") + " (" + ", ".join(f"{k}: {v}" for k, v in
                                                                         cov["rulesets"].items()) + ")"),
        ("agents", ", ".join(f"{escape(a)} ({n} player-games)" for a, n in cov["agents"].items())),
        ("seeds", f"{seeds['count']} distinct, {seeds['min']} to {seeds['max']}"),
        ("filters", escape(filt)),
        *([("not counted", escape(cov["left_out"]))] if cov.get("left_out") else []),
        ("minimum sample", f"{data.min_n} player-games: a rate on fewer is shown as n/a (not enough data), "
                           "never as a number"),
        ("definitions", f"version <b>{escape(data.version)}</b> of data/ANALYTICS.md as implemented in "
                        "analysis/locm/cardfacts.py and analysis/locm/cardmetrics.py"),
        ("card facts", facts_source(cov.get("facts"))),
        ("source", escape(str(data.db))),
    ]
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=device-width, initial-scale=1'>",
             f"<title>Card-balance report ({escape(', '.join(data.rulesets))})</title><style>{CSS}</style></head>",
             "<body><main>", "<h1>Card-balance report</h1>",
             "<p class=lead>Legends of Code and Magic, computed from the stored event logs alone. Every rate has "
             "its sample size and a 95% interval (Wilson; for constructed buckets, clustered by game), per "
             "pairing of agents.</p>",
             "<div class=facts>" + "".join(f"<b>{k}</b><span>{v}</span>" for k, v in facts) + "</div>",
             quality_box(data),
             f"<p class=note>{escape(SELECTION_NOTE)}</p>",
             "<nav>" + "".join(f'<a href="#cards-{escape(rs)}">{escape(rs)} cards</a>' for rs in data.rulesets)
             + '<a href="#read">how to read</a><a href="#games">games</a><a href="#agents">agents</a>'
             + '<a href="#defs">definitions</a><a href="cards.json">cards.json</a>'
             + '<a href="cards.csv">cards.csv</a></nav>',
             '<h2 id="pairings">Pairings of agents</h2>',
             "<p class=lead>Every rate below is given per pairing: the player-games of one agent against one "
             "opponent. Rates of different pairings are not comparable.</p>",
             pairings_table(data),
             '<h2 id="read">How to read these numbers</h2><dl class=notes>'
             + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in METRIC_NOTES) + "</dl>",
             "<h2>Charts</h2>"]
    for c in charts:
        png = Path(c.path).read_bytes()
        b64 = base64.b64encode(png).decode()
        parts.append(f'<figure><img alt="{escape(c.title)}" src="data:image/png;base64,{b64}">'
                     f"<figcaption><b>{escape(c.title)}.</b> {escape(c.caption)}</figcaption></figure>")
    for rs, d in data.rulesets.items():
        what = "per card feature bucket" if d.constructed else "per card (base id)"
        parts.append(f'<h2 id="cards-{escape(rs)}">{escape(rs)}: cards, {what}</h2>')
        if d.constructed:
            parts.append("<p class=lead>Constructed cards are generated anew for every game, so a base id means a "
                         "different card in each game; rows are feature buckets over (player-game, card) pairs. "
                         "The pairs of one game share its outcome, so each interval is clustered by game (an "
                         "effective number of independent pairs). Pick rate: cards of the pool chosen into the "
                         "deck.</p>")
        parts.append("<p class=lead>Click a column to sort. WR = win rate of the player-games where the card "
                     "was in the deck / in the opening hand / drawn later / in hand / never seen / played; "
                     "IIH = in-hand WR minus not-seen WR (percentage points).</p>")
        for s in d.strata:
            strength = ("" if s.selfplay else f", {escape(s.agent)} wins {100 * s.wins / s.player_games:.1f}%")
            parts.append(f"<h3>{escape(rs)}: {escape(s.label)} <span class=pairing>({s.player_games} "
                         f"player-games{strength})</span></h3>")
            if s.lopsided:  # folded: its rates tell which cards each agent takes, not what a card does
                parts.append(folded_pairing(s, baseline_line(s) + card_table(s.cards, names)))
                continue
            parts.append(baseline_line(s))
            parts.append(card_table(s.cards, names))
    parts.append('<h2 id="games">Games: first player, length, damage</h2>')
    parts.append(summary_table(data.seat_summary()))
    parts.append('<h2 id="agents">Agents</h2>')
    for rs, m in data.agents.items():
        parts.append(f"<h3>{escape(rs)}: win rate between agents (both seats)</h3>" + matrix_table(m))
    if data.comparison:
        c = data.comparison
        parts.append(f"<h3>1.2 and constructed side by side</h3><p class=lead>The {c['keys']} games played by "
                     "the same agents on the same seeds and seats under both rulesets.</p>")
        parts.append(summary_table({"1.2": c["1.2"], "constructed": c["constructed"]}))
        for rs in ("1.2", "constructed"):
            parts.append(f"<h4>{rs}, those games</h4>" + matrix_table(c[rs]["matrix"]))
    else:
        parts.append("<p class=lead>No ruleset comparison: the report does not hold the same agents and seeds "
                     "under both rulesets.</p>")
    parts.append('<h2 id="defs">Definitions</h2><ul>'
                 "<li>Each player-game counts once per card in every rate (two copies count once).</li>"
                 "<li>Opening hand: 4 cards for the first player, 5 for the second; drawn: after the opening "
                 "hand; in hand: either; not seen: in the deck, never in hand.</li>"
                 "<li>Played: a copy summoned (Area copies excluded) or used. Turn played: mean own-turn number "
                 "of the plays (1 = the player's first turn). Turns held: own turns in hand before the play.</li>"
                 "<li>Pick rate: picks / draft rounds in which it was offered (1.2); average pick: 1..30.</li>"
                 "<li>Wilson score interval, 95%; charts show it as error bars.</li></ul>")
    parts.append(f"<script>{JS}</script></main></body></html>")
    return "\n".join(parts)
