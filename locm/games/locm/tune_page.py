"""What `locm tune` writes: the tuned variant file (TOML), the evidence as JSON and as an HTML page (each change,
the objectives before and after, every measured card's paired value with its interval, the games used), and
`run_tune`, the one call of the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from locm.analysis.tune import Objectives
from locm.games.locm.tune import tune, tuned_name, variant_toml

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>locm tune: {{ r.ruleset }}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #ddd; vertical-align: middle; }
th { background: #f3f3f3; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { position: relative; height: 14px; width: 220px; background: #fafafa; border: 1px solid #eee; }
.band { position: absolute; top: 0; bottom: 0; background: #dfeedd; }
.ci { position: absolute; top: 5px; height: 4px; background: #555; }
.ci.after { top: 9px; background: #1f5fbf; } .pt.after { top: 6px; background: #1f5fbf; } .ci.before { top: 3px; }
.pt.before { top: 0px; } td.v { white-space: nowrap; }
.pt { position: absolute; top: 2px; width: 4px; height: 10px; margin-left: -2px; background: #222; }
.mid { position: absolute; top: 0; bottom: 0; width: 1px; background: #6a6; }
.out { color: #a40000; font-weight: 600; } .in { color: #2a6a2a; } .muted { color: #666; }
code { background: #f3f3f3; padding: 0 .25em; }
</style></head><body>
<h1>Tuning {{ r.ruleset }} ({{ r.base }})</h1>
<p class="muted">{{ r.agents|join(" vs ") }}; seeds {{ r.first_seed }} onward; {{ r.games_used }} games used of a
budget of {{ r.budget }} ({{ r.games_played_now }} played by this run, the rest read back from the store); {{ r.seconds }} s.
Method: {{ r.method }}.</p>
<h2>Objectives</h2>
<table><tr><th>objective</th><th>before</th><th>after</th></tr>
{% if r.cards %}<tr><td>every measured card's value within {{ pts(r.objectives.band) }} points of the median ({{ pts(r.centre) }})</td>
<td>{{ counts(r.cards, "verdict_before") }}</td>
<td>{{ counts(r.cards, "verdict_after") }}</td></tr>{% endif %}
<tr><td>first player's win rate within 50% &plusmn; {{ pts(r.objectives.seat_margin) }} points (rule settings searched when it lies outside)</td>
<td>{{ seat(r.seat_before) }}</td><td>{{ seat(r.seat_after) }}</td></tr>
<tr><td>at most {{ r.objectives.max_changes }} changed fields</td><td>0</td><td>{{ r.fields_changed }}</td></tr></table>
{% if r.cards %}<h2>Changes</h2>
{% if not r.changes %}<p>No change: no measured card lay outside its band with its whole interval.</p>{% endif %}
{% for c in r.changes %}
<h3>Card {{ c.card }} {{ c.name }}: {% for k, v in c.change.items() %}<code>{{ k }} {{ c["from"][k] }} &rarr; {{ v }}</code> {% endfor %}</h3>
<p>value {{ est(c.value_before) }} before, {{ est(c.value_after) }} after (on {{ c.seeds }} seeds); this change took
{{ est(c.paired_delta) }} from its holders' win rate, paired on the same seeds. The candidates were raced
(successive halving: all on a few seeds, those predicted closest to the median on twice as many):</p>
<table><tr><th>candidate</th><th class="num">seeds</th><th>paired change of the holders' win rate (current minus candidate)</th></tr>
{% for k in c.candidates|sort(attribute="seeds", reverse=true) %}<tr><td>{% for f, v in k.change.items() %}<code>{{ f }} = {{ v }}</code>{% endfor %}</td>
<td class="num">{{ k.seeds }}</td><td>{{ est(k.paired_delta) }}</td></tr>{% endfor %}</table>
{% endfor %}
{% for m in r.cards if m.rejected %}<p>Card {{ m.card }} {{ m.name }}: the best candidate,
{% for k, v in m.rejected.change.items() %}<code>{{ k }} = {{ v }}</code>{% endfor %}, measured {{ est(m.rejected.value_after) }}:
no closer to the median than the card as it was, so it was not kept.</p>{% endfor %}{% endif %}
{% if r.seat_search %}{% set s = r.seat_search %}<h2>Rule settings for the first player's rate</h2>
<p>The first player's rate {{ rate(s.before) }} ({{ s.before.verdict }}) on {{ s.seeds }} seeds, {{ rate(s.after) }}
({{ s.after.verdict }}) after.</p>
{% for c in s.changes %}<h3>{{ loop.index }}. <code>{{ c.change.label }}</code></h3>
<p>{{ rate(c.rate_before) }} before, {{ rate(c.rate_after) }} after; paired on the {{ c.seeds_raced }} seeds it was raced
on it moved the rate by {{ delta(c.paired_delta) }} points.</p>
<table><tr><th>candidate raced</th><th class="num">seeds</th><th>the first player's rate</th></tr>
{% for k in c.candidates|sort(attribute="seeds", reverse=true) %}<tr><td>{{ k.change.label }}</td>
<td class="num">{{ k.seeds }}</td><td>{{ rate(k.rate) }}</td></tr>{% endfor %}</table>{% endfor %}
{% if not s.changes %}<p>No rule setting brought it closer to 50%.</p>{% endif %}{% endif %}
{% if r.cards %}<h2>Measured cards</h2>
<p class="muted">Value: the holders' win rate with the card as it is minus with the vanilla creature of its cost in its
place (same seeds, seats and agents), 95% interval clustered by seed. The green area is the band around the median.
Suspects come from the screen (holders' win rate in the base games, observational); references are the cards held most.</p>
<table><tr><th>card</th><th>role</th><th class="num">seeds</th><th>value before</th><th>verdict</th><th>value after</th>
<th>verdict</th><th>value (&minus;50 to +50 points): before grey, after blue</th></tr>
{% for m in r.cards %}<tr><td>{{ m.card }} {{ m.name }}</td><td>{{ m.role }}</td><td class="num">{{ m.seeds }}</td>
<td class="v">{{ est(m.before) }}</td><td class="{{ cls(m.verdict_before) }}">{{ m.verdict_before }}</td>
{% if m.remeasured %}<td class="v">{{ est(m.after) }}</td><td class="{{ cls(m.verdict_after) }}">{{ m.verdict_after }}</td>
{% else %}<td class="muted" colspan="2">unchanged, not measured again</td>{% endif %}
<td><div class="bar"><div class="band" style="left: {{ x(r.centre - r.objectives.band) }}%; width: {{ x(r.centre + r.objectives.band) - x(r.centre - r.objectives.band) }}%"></div>
<div class="mid" style="left: {{ x(r.centre) }}%"></div>
{% for side, e in (("before", m.before), ("after", m.after if m.remeasured else none)) if e and e.value is not none %}
{% if e.low is not none %}<div class="ci {{ side }}" style="left: {{ x(e.low) }}%; width: {{ x(e.high) - x(e.low) }}%"></div>{% endif %}
<div class="pt {{ side }}" style="left: {{ x(e.value) }}%"></div>{% endfor %}</div></td></tr>
{% endfor %}</table>{% endif %}
</body></html>
"""


def _pts(x: float | None) -> str:
    return "n/a" if x is None else f"{round(100 * x, 1) + 0.0:+.1f}"


def _est(e: dict) -> str:
    if e["value"] is None:
        return "n/a"
    ci = "" if e["low"] is None else f" [{_pts(e['low'])}, {_pts(e['high'])}]"
    return f"{_pts(e['value'])} pts{ci}"


def _seat(s: dict) -> str:
    if not s["games"]:
        return "n/a"
    return f"{100 * s['rate']:.1f}% [{100 * s['low']:.1f}, {100 * s['high']:.1f}] of {s['games']} games: {s['verdict']}"


def _rate(e: dict) -> str:
    if e["value"] is None:
        return "n/a"
    return f"{100 * e['value']:.1f}% [{100 * e['low']:.1f}, {100 * e['high']:.1f}]"


def _counts(cards: list[dict], key: str) -> str:
    from collections import Counter

    n = Counter(c[key] for c in cards)
    return ", ".join(f"{n[v]} {v}" for v in ("too strong", "too weak", "undecided", "in band") if n[v]) + \
        f" (of {len(cards)})"


def page(result: dict) -> str:
    """The evidence page (HTML, every value escaped) of a `tune` result without its rules."""
    import jinja2

    env = jinja2.Environment(autoescape=True)
    return env.from_string(_PAGE).render(
        r=result, pts=lambda x: _pts(x).lstrip("+"), est=_est, seat=_seat, rate=_rate,
        delta=lambda e: "n/a" if e["value"] is None else f"{_pts(e['value'])} [{_pts(e['low'])}, {_pts(e['high'])}]",
        counts=_counts,
        cls=lambda v: "out" if v in ("too strong", "too weak") else "in" if v == "in band" else "muted",
        x=lambda v: round(max(0.0, min(100.0, 50 + 100 * v)), 2))


def run_tune(db: Path, rules, agents: tuple[str, str], budget: int, objectives: Objectives, out: Path,
             seed: int = 1, workers: int = 1, backend: str = "local", address: str | None = None,
             progress: Callable[[str], None] | None = None, target: str = "all") -> dict:
    """`locm tune`: `locm.games.locm.tune.tune`, then the variant file at `out`, the evidence beside it
    (``<out stem>.json`` and ``.html``); the evidence with the paths written."""
    result = tune(db, rules, agents, budget, objectives, seed, workers, backend, address, progress, target=target)
    tuned = result.pop("rules")
    name = tuned_name(rules)
    out.write_text(variant_toml(tuned, name), encoding="utf-8")
    result["tuned_variant"] = {"path": str(out), "name": name}
    json_path, html_path = out.with_suffix(".json"), out.with_suffix(".html")
    result["evidence"] = {"json": str(json_path), "html": str(html_path)}
    json_path.write_text(json.dumps(result, indent=1), encoding="utf-8")
    html_path.write_text(page(result), encoding="utf-8")
    return result


def summary_lines(r: dict) -> list[str]:
    """The result in a few lines for the terminal."""
    out = [f"tune {r['ruleset']}: {r['games_used']} games used of {r['budget']} ({r['games_played_now']} played now)"
           + (f", band {_pts(r['objectives']['band']).lstrip('+')} pts around the median {_pts(r['centre'])}"
              if r["cards"] else "")]
    for m in r["cards"]:
        out.append(f"  card {m['card']} {m['name']} ({m['role']}): {_est(m['before'])} {m['verdict_before']}"
                   + (f" -> {_est(m['after'])} {m['verdict_after']}" if m["after"] != m["before"] else ""))
    for c in r["changes"]:
        out.append(f"  changed card {c['card']} {c['name']}: " +
                   ", ".join(f"{k} {c['from'][k]} -> {v}" for k, v in c["change"].items()))
    for c in (r.get("seat_search") or {}).get("changes", []):
        out.append(f"  changed the rules: {c['change']['label']} (first player {_rate(c['rate_before'])} -> "
                   f"{_rate(c['rate_after'])})")
    if not r["changes"] and not (r.get("seat_search") or {}).get("changes"):
        out.append("  no change")
    out.append(f"  first player: {_seat(r['seat_before'])} -> {_seat(r['seat_after'])}")
    out.append(f"wrote {r['tuned_variant']['path']} ({r['tuned_variant']['name']}), {r['evidence']['html']}, "
               f"{r['evidence']['json']}")
    return out


__all__ = ["run_tune", "page", "summary_lines"]
