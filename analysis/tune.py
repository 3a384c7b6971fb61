"""The game-free part of `locm tune`: objectives, the sequential verdict of one measurement against its band,
the mutations of a card's numeric fields, and the choice among evaluated candidates. Pure: numbers in,
numbers out (the games are played by a game's wing, e.g. `locm.games.locm.tune`).

The method is a greedy local search with paired evaluation, after "Evolving the Hearthstone Meta" (F. de
Mesentier Silva, R. Canaan, S. Lee, M. C. Fontaine, J. Togelius, A. K. Hoover, IEEE CoG 2019), which evolves
card changes toward balanced win rates with as few changes as possible. What is implemented here is smaller
than their evolutionary search: one card at a time, the out-of-band card furthest from the band first; a
(1 + lambda) step that evaluates lambda single-field mutations of the card on the same seeds as the current
ruleset (paired), keeps the best, and repeats from it while the card is still out of its band and the change
budget allows.

Objectives (`Objectives`): every measured card's value within ``band`` of the median of the measured values;
the first player's win rate within 50% +- ``seat_margin``; at most ``max_changes`` changed fields, and among
candidates that do as well, the one changing fewer.

The seat search (`seat_search`) is the same method over a ruleset's rule settings, toward the first player's
win rate within the margin: each round, every single change the game's wing offers (a rule setting, a deck
rule, a card banned or added, an effect added: whatever its variant files allow) is raced on the same seeds as
the current ruleset (successive halving: all on a few seeds, the better half on twice as many, ... up to the
seeds of the base measurement or two candidates left, so games go to the candidates still in the race); the
candidate
closest to 50% is kept when, paired on the same seeds, it is closer than the ruleset as it is and its paired
change's 95% interval excludes none (a change that cannot be told from none is not made: as few changes as
possible); the race's first seeds are sized so that the rounds left fit the budget left. Rounds go on
while the rate lies outside the margin and the change budget (``max_changes`` changes) lasts. It plays
nothing itself: the wing hands it the play (`SeatGame`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from locm.analysis.stats import mean_interval, wilson

HIGH, LOW, IN, OPEN = "too strong", "too weak", "in band", "undecided"


@dataclass(frozen=True)
class Objectives:
    """What balanced means (see the module note). Values are win-rate fractions (0.10: 10 points)."""

    band: float = 0.10
    seat_margin: float = 0.05
    max_changes: int = 3

    @classmethod
    def parse(cls, specs: Iterable[str]) -> "Objectives":
        """Objectives from ``KEY=VALUE`` strings (``band=0.08``, ``seat=0.04``, ``changes=2``); `ValueError`
        with one line for anything else."""
        keys = {"band": ("band", float), "seat": ("seat_margin", float), "changes": ("max_changes", int)}
        values: dict = {}
        for spec in specs:
            key, eq, raw = spec.partition("=")
            if not eq or key.strip() not in keys:
                raise ValueError(f"--objective {spec!r}: expected band=FRACTION, seat=FRACTION or changes=N "
                                 "(e.g. band=0.1)")
            name, kind = keys[key.strip()]
            try:
                v = kind(raw)
            except ValueError:
                raise ValueError(f"--objective {spec!r}: expected a {'number' if kind is float else 'whole number'} "
                                 f"after {key.strip()}=") from None
            if (kind is float and not 0 < v < 0.5) or (kind is int and not 0 <= v <= 50):
                raise ValueError(f"--objective {spec!r}: expected {'a fraction in (0, 0.5)' if kind is float else '0..50'}")
            values[name] = v
        return cls(**values)


@dataclass(frozen=True)
class Estimate:
    """A measured value with its 95% interval (None: too few data for one)."""

    value: float | None
    low: float | None
    high: float | None
    units: int = 0


def verdict(est: Estimate, centre: float, band: float) -> str:
    """Where `est` stands against ``centre +- band``: `HIGH` or `LOW` when its interval lies wholly outside the
    band, `IN` when wholly inside, else `OPEN` (more games would decide it). The sequential rule: a card is
    measured on more seeds only while it is `OPEN`."""
    if est.low is None or est.high is None:
        return OPEN
    if est.low > centre + band:
        return HIGH
    if est.high < centre - band:
        return LOW
    if est.low >= centre - band and est.high <= centre + band:
        return IN
    return OPEN


def centre_of(values: Iterable[float | None]) -> float:
    """The median of the measured values (0 when none is measured)."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else 0.0


@dataclass(frozen=True)
class Field:
    """One numeric field a change may set: its value, its bounds, and the sign of a stronger card (+1: more is
    stronger, e.g. attack; -1: less is stronger, e.g. cost)."""

    name: str
    value: int
    lo: int
    hi: int
    stronger: int


def mutations(fields: Sequence[Field], weaken: bool, distance: float) -> list[dict[str, int]]:
    """Single-field steps toward weaker (``weaken``) or stronger values: for each field, steps of about a
    quarter, a half and three quarters of its value (at least 1, 2 and 3), scaled up when the card is far
    (``distance``, in band widths, above 2), within the field's bounds. Each is ``{field: new value}``."""
    scale = max(1.0, distance / 2)
    out: list[dict[str, int]] = []
    for f in fields:
        sign = -f.stronger if weaken else f.stronger
        steps = sorted({max(k, round(abs(f.value) * frac * scale)) for k, frac in ((1, 0.25), (2, 0.5), (3, 0.75))})
        seen = set()
        for s in steps:
            new = min(f.hi, max(f.lo, f.value + sign * s))
            if new != f.value and new not in seen:
                seen.add(new)
                out.append({f.name: new})
    return out


def choose(evaluated: Sequence[tuple[dict, Estimate]], current: float, centre: float) -> int | None:
    """The index of the best candidate: ``(its changed fields, the paired change it makes to the card's value)``;
    the predicted value is ``current - change``. The best is closest to the centre, then changes fewer fields,
    then comes first; None when no candidate brings the card closer to the centre than it is."""
    best, key = None, None
    for i, (changes, est) in enumerate(evaluated):
        if est.value is None:
            continue
        k = (round(abs(current - est.value - centre), 4), len(changes), i)
        if key is None or k < key:
            best, key = i, k
    if best is None or key[0] >= abs(current - centre):
        return None
    return best


def seat_verdict(wins: int, games: int, low: float, high: float, margin: float) -> str:
    """The first player's win rate (``wins`` of ``games``, its interval ``low..high``) against 50% +- margin."""
    if games == 0:
        return OPEN
    if low > 0.5 + margin:
        return HIGH
    if high < 0.5 - margin:
        return LOW
    if low >= 0.5 - margin and high <= 0.5 + margin:
        return IN
    return OPEN


# --- the seat search ---------------------------------------------------------------------------------------------

SEAT_SEEDS = (40, 2000)
"""The fewest and most seeds of the seat search's base measurement (``budget / (8 * max_changes)`` games
between them)."""
RACE_SEEDS = 10
"""The fewest seeds a race starts its candidates on."""


def race_levels(candidates: int) -> int:
    """The levels of a race of ``candidates``: halved (rounded up) until two are left."""
    levels, k = 1, candidates
    while k > 2:
        k, levels = math.ceil(k / 2), levels + 1
    return levels


@dataclass
class SeatGame:
    """What a game's wing hands `seat_search`. ``play(rulesets, seeds)``: for each ruleset, the first player's
    score on each of the first ``seeds`` seeds (1: the first player won; with two agents, each seed is played in
    both seatings and the score is the mean), playing only what its store lacks (all of them at once: one pool
    of workers for a level of a race). ``candidates(rules)``: the single changes a
    variant of ``rules`` may make, each a JSON-able dict with a ``"label"`` for people. ``apply(rules,
    change)``: the changed rules. ``key(rules)``: the identity of a ruleset (the games used are counted once per
    key, at the most seeds asked). ``games_per_seed``: 1 (self-play) or 2 (both seatings)."""

    play: Callable[[list, int], list[list[float]]]
    candidates: Callable[[Any], list[dict]]
    apply: Callable[[Any, dict], Any]
    key: Callable[[Any], str]
    games_per_seed: int = 1
    used: dict = field(default_factory=dict)

    def measure_all(self, rulesets: list, seeds: int) -> list[list[float]]:
        scores = self.play(rulesets, seeds) if rulesets else []
        for rules in rulesets:
            k = self.key(rules)
            self.used[k] = max(self.used.get(k, 0), seeds * self.games_per_seed)
        return scores

    def measure(self, rules: Any, seeds: int) -> list[float]:
        return self.measure_all([rules], seeds)[0]

    @property
    def games(self) -> int:
        return sum(self.used.values())

    def cost(self, rules: Any, seeds: int) -> int:
        """The games measuring ``rules`` on ``seeds`` seeds would add to `games`."""
        return max(0, seeds * self.games_per_seed - self.used.get(self.key(rules), 0))


def seat_estimate(scores: Sequence[float], games_per_seed: int = 1) -> Estimate:
    """The first player's win rate over per-seed scores with its 95% interval (Wilson with one game a seed,
    else the normal interval of the seeds' means: the two games of a seed are not independent)."""
    if not scores:
        return Estimate(None, None, None, 0)
    if games_per_seed == 1:
        lo, hi = wilson(round(sum(scores)), len(scores))
        return Estimate(sum(scores) / len(scores), lo, hi, len(scores))
    m, lo, hi = mean_interval(list(scores))
    return Estimate(m, max(0.0, lo), min(1.0, hi), len(scores))


def paired_delta(before: Sequence[float], after: Sequence[float]) -> Estimate:
    """The paired change of the first player's score, after minus before on the same seeds, with its 95%
    interval (normal, over seeds)."""
    diffs = [b - a for a, b in zip(before, after)]
    if len(diffs) < 2:
        return Estimate(None, None, None, len(diffs))
    m, lo, hi = mean_interval(diffs)
    return Estimate(m, lo, hi, len(diffs))


def _pct_range(e: Estimate) -> str:
    return f"{100 * e.value:+.1f} [{100 * e.low:+.1f}, {100 * e.high:+.1f}]"


def _off(scores: Sequence[float]) -> float:
    return abs(sum(scores) / len(scores) - 0.5) if scores else math.inf


def _seat(est: Estimate, margin: float) -> dict:
    v = OPEN if est.value is None else seat_verdict(0, est.units, est.low, est.high, margin)
    return {**_est(est), "verdict": v}


def _est(e: Estimate) -> dict:
    return {"value": e.value, "low": e.low, "high": e.high, "units": e.units}


def seat_search(game: SeatGame, rules0: Any, objectives: Objectives, budget: int,
                progress: Callable[[str], None] | None = None) -> tuple[Any, dict]:
    """The seat search of the module note: ``(the tuned rules, the evidence)``; the evidence holds the first
    player's rate before and after, every kept change with the candidates raced for it (their rates and seeds),
    and the games used, at most ``budget``. `ValueError` when the budget cannot pay for the base measurement."""
    say = progress or (lambda text: None)
    gps = game.games_per_seed
    n_full = max(SEAT_SEEDS[0], min(SEAT_SEEDS[1], budget // (8 * gps * max(1, objectives.max_changes))))
    if game.cost(rules0, n_full) > budget:
        raise ValueError(f"--budget {budget}: expected at least {n_full * gps} games (the base measurement)")
    say(f"measuring the first player's win rate on {n_full} seeds")
    base = game.measure(rules0, n_full)
    before = seat_estimate(base, gps)
    rules, current, steps, rejected = rules0, base, [], None
    margin = objectives.seat_margin
    while len(steps) < objectives.max_changes and _off(current) > margin:
        cands = game.candidates(rules)
        if not cands:
            break
        # each level of the race costs about its first (seeds x candidates): size the first so that the rounds
        # left fit what is left of the budget
        per_round = (budget - game.games) // ((objectives.max_changes - len(steps)) * race_levels(len(cands)))
        n = max(RACE_SEEDS, min(n_full, per_round // (gps * len(cands))))
        if game.games + sum(game.cost(game.apply(rules, c), n) for c in cands) > budget:
            say("the budget left cannot race another round")
            break
        alive = list(range(len(cands)))
        scores: dict[int, list[float]] = {}
        seeds_of: dict[int, int] = {}
        stop = False
        while True:
            level, spend = [], game.games
            for i in alive:
                changed = game.apply(rules, cands[i])
                if spend + game.cost(changed, n) > budget:
                    stop = True  # the budget is spent: the race ends at the seeds each got
                    continue
                spend += game.cost(changed, n)
                level.append((i, changed))
            say(f"racing {len(level)} candidate{'s' * (len(level) != 1)} on {n} seeds")
            for (i, _), got in zip(level, game.measure_all([c for _, c in level], n)):
                scores[i], seeds_of[i] = got, n
            if stop or n >= n_full or len(alive) <= 2:
                break
            alive = sorted(alive, key=lambda i: (_off(scores[i]), i))[:max(2, math.ceil(len(alive) / 2))]
            n = min(n_full, n * 2)
        top = max(seeds_of[i] for i in alive)
        finalists = [i for i in alive if seeds_of[i] == top]
        best = min(finalists, key=lambda i: (_off(scores[i]), i))
        race = [{"change": {k: v for k, v in cands[i].items()}, "seeds": seeds_of[i],
                 "rate": _est(seat_estimate(scores[i], gps))} for i in range(len(cands)) if i in scores]
        mine = scores[best]
        if _off(mine) >= _off(current[:len(mine)]):
            rejected = {"change": cands[best], "seeds": len(mine), "rate": _est(seat_estimate(mine, gps)),
                        "current": _est(seat_estimate(current[:len(mine)], gps)), "candidates": race}
            say(f"no change brings the rate closer to 50% than {cands[best]['label']}, which does not either")
            break
        delta = paired_delta(current[:len(mine)], mine)
        toward = 1 if sum(current) / len(current) < 0.5 else -1  # the sign of a change toward 50%
        if delta.low is None or (delta.low if toward > 0 else -delta.high) <= 0:
            rejected = {"change": cands[best], "seeds": len(mine), "rate": _est(seat_estimate(mine, gps)),
                        "current": _est(seat_estimate(current[:len(mine)], gps)), "candidates": race,
                        "why": f"paired on the same seeds, its change ({_pct_range(delta)} points) cannot be told "
                               "from none"}
            say(f"{cands[best]['label']} is the best of the race, but its paired change cannot be told from none")
            break
        new = game.apply(rules, cands[best])
        if game.games + game.cost(new, n_full) > budget:
            rejected = {"change": cands[best], "seeds": len(mine), "rate": _est(seat_estimate(mine, gps)),
                        "current": _est(seat_estimate(current[:len(mine)], gps)), "candidates": race,
                        "why": "the budget left cannot measure it on the base seeds"}
            break
        say(f"kept {cands[best]['label']}; measuring it on {n_full} seeds")
        after = game.measure(new, n_full)
        steps.append({"change": cands[best], "paired_delta": _est(delta), "seeds_raced": len(mine),
                      "rate_before": _est(seat_estimate(current, gps)), "rate_after": _est(seat_estimate(after, gps)),
                      "candidates": race})
        rules, current = new, after
        if stop:
            break
    return rules, {"seeds": n_full, "games_per_seed": gps, "margin": margin,
                   "before": _seat(before, margin), "after": _seat(seat_estimate(current, gps), margin),
                   "changes": steps, "rejected": rejected, "games_used": game.games}


_SEAT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>locm tune: {{ r.ruleset }} seat balance</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #ddd; vertical-align: middle; }
th { background: #f3f3f3; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { position: relative; height: 14px; width: 260px; background: #fafafa; border: 1px solid #eee; }
.band { position: absolute; top: 0; bottom: 0; background: #dfeedd; }
.mid { position: absolute; top: 0; bottom: 0; width: 1px; background: #6a6; }
.ci { position: absolute; top: 5px; height: 4px; background: #555; }
.pt { position: absolute; top: 2px; width: 4px; height: 10px; margin-left: -2px; background: #222; }
.kept td { font-weight: 600; background: #f4f8ff; }
.out { color: #a40000; font-weight: 600; } .in { color: #2a6a2a; } .muted { color: #666; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; } code { background: #f3f3f3; padding: 0 .25em; }
</style></head><body>
<h1>Seat balance of {{ title }} {{ r.ruleset }}</h1>
<p class="muted">{{ r.agents|join(" vs ") }}; seeds {{ r.first_seed }} onward; {{ r.games_used }} games used of a budget
of {{ r.budget }} ({{ r.games_played_now }} played by this run, the rest read back from the store); {{ r.seconds }} s.
Method: {{ r.method }}.</p>
<h2>Objectives</h2>
<table><tr><th>objective</th><th>before</th><th>after</th><th>the rate (0 to 100%), its interval; green: 50% &plusmn; the margin</th></tr>
<tr><td>the first player's win rate within 50% &plusmn; {{ pct(s.margin) }} points</td>
<td class="{{ cls(s.before.verdict) }}">{{ rate(s.before) }}: {{ s.before.verdict }}</td>
<td class="{{ cls(s.after.verdict) }}">{{ rate(s.after) }}: {{ s.after.verdict }}</td>
<td>{{ bar(s.before) }}{{ bar(s.after) }}</td></tr>
<tr><td>at most {{ r.objectives.max_changes }} changes, as few as do</td><td>0</td><td>{{ s.changes|length }}</td><td></td></tr>
</table>
<p class="muted">Each rate on {{ s.seeds }} seeds ({{ s.games_per_seed }} game{{ "s" if s.games_per_seed > 1 else "" }} a seed),
the same seeds before and after.</p>
<h2>Changes</h2>
{% if not s.changes %}<p>No change{% if s.before.verdict == "in band" %}: the rate lies within the margin{% endif %}.</p>{% endif %}
{% for c in s.changes %}
<h3>{{ loop.index }}. {{ c.change.label }}</h3>
<p>The first player's rate {{ rate(c.rate_before) }} before, {{ rate(c.rate_after) }} after (on {{ s.seeds }} seeds);
paired on the {{ c.seeds_raced }} seeds it was raced on, the change moved it by {{ delta(c.paired_delta) }} points.</p>
<table><tr><th>candidate raced</th><th class="num">seeds</th><th>the first player's rate</th><th></th></tr>
{% for k in c.candidates|sort(attribute="seeds", reverse=true) %}<tr{% if k.change.label == c.change.label %} class="kept"{% endif %}>
<td>{{ k.change.label }}</td><td class="num">{{ k.seeds }}</td><td>{{ rate(k.rate) }}</td><td>{{ bar(k.rate) }}</td></tr>{% endfor %}</table>
{% endfor %}
{% if s.rejected %}<p>Not kept: {{ s.rejected.change.label }}, the best of the last race ({{ rate(s.rejected.rate) }} on
{{ s.rejected.seeds }} seeds, against {{ rate(s.rejected.current) }} as it is){% if s.rejected.why %}: {{ s.rejected.why }}{% else %}:
no closer to 50%{% endif %}.</p>{% endif %}
<h2>The tuned variant</h2>
<p><code>{{ r.tuned_variant.path }}</code> ({{ r.tuned_variant.name }}):</p>
<pre>{{ r.tuned_variant.toml }}</pre>
</body></html>
"""


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def seat_page(result: dict, title: str) -> str:
    """The evidence page (HTML, every value escaped) of a seat search's result (``result["seat"]`` as
    `seat_search` gives it, with the run's facts around it); ``title``: the game's name for people."""
    import jinja2
    from markupsafe import Markup

    def rate(e: dict) -> str:
        if e["value"] is None:
            return "n/a"
        return f"{_pct(e['value'])}% [{_pct(e['low'])}, {_pct(e['high'])}]"

    def delta(e: dict) -> str:
        if e["value"] is None:
            return "n/a"
        return f"{100 * e['value']:+.1f} [{100 * e['low']:+.1f}, {100 * e['high']:+.1f}]"

    def x(v: float) -> float:
        return round(max(0.0, min(100.0, 100 * v)), 2)

    margin = result["seat"]["margin"]

    def bar(e: dict) -> Markup:
        inner = (f'<div class="band" style="left: {x(0.5 - margin)}%; width: {x(0.5 + margin) - x(0.5 - margin)}%">'
                 f'</div><div class="mid" style="left: 50%"></div>')
        if e["value"] is not None:
            inner += (f'<div class="ci" style="left: {x(e["low"])}%; width: {x(e["high"]) - x(e["low"])}%"></div>'
                      f'<div class="pt" style="left: {x(e["value"])}%"></div>')
        return Markup(f'<div class="bar">{inner}</div>')  # numbers only: nothing of the result's text

    env = jinja2.Environment(autoescape=True)
    return env.from_string(_SEAT_PAGE).render(
        r=result, s=result["seat"], title=title, pct=_pct, rate=rate, delta=delta, bar=bar,
        cls=lambda v: "out" if v in (HIGH, LOW) else "in" if v == IN else "muted")


def seat_lines(result: dict) -> list[str]:
    """A seat search's result in a few lines for the terminal."""
    s = result["seat"]

    def rate(e: dict) -> str:
        return "n/a" if e["value"] is None else f"{_pct(e['value'])}% [{_pct(e['low'])}, {_pct(e['high'])}]"

    out = [f"tune {result['ruleset']}: {result['games_used']} games used of {result['budget']} "
           f"({result['games_played_now']} played now); the first player's win rate on {s['seeds']} seeds, "
           f"within 50% +- {_pct(s['margin'])} points wanted"]
    out.append(f"  before: {rate(s['before'])} {s['before']['verdict']}")
    for c in s["changes"]:
        out.append(f"  changed: {c['change']['label']} -> {rate(c['rate_after'])}")
    if not s["changes"]:
        out.append("  no change")
    out.append(f"  after: {rate(s['after'])} {s['after']['verdict']}")
    if "tuned_variant" in result:
        out.append(f"wrote {result['tuned_variant']['path']} ({result['tuned_variant']['name']}), "
                   f"{result['evidence']['html']}, {result['evidence']['json']}")
    return out


__all__ = ["Objectives", "Estimate", "Field", "verdict", "centre_of", "mutations", "choose", "seat_verdict",
           "HIGH", "LOW", "IN", "OPEN", "SeatGame", "seat_search", "seat_estimate", "paired_delta",
           "seat_page", "seat_lines"]
