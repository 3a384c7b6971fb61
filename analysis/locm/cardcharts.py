"""The card-balance report's charts (matplotlib, off-screen, PNG). Every rate is drawn with its 95% Wilson
interval as an error bar; a rate below the report's minimum sample is left out and the chart says so. A card's
bar is coloured good or bad only where it differs from the baseline measured on the same games after
false-discovery control (`bar_colour`), and each chart's title says what it plots."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from locm.analysis.stats import DEFAULT_FDR, wilson  # noqa: E402

COLORS = {"1.2": "#1f77b4", "constructed": "#d62728"}
SOURCE_COLORS = {"attack": "#4c72b0", "breakthrough": "#8172b2", "item": "#dd8452", "summon": "#55a868",
                 "deck": "#937860", "rune": "#c44e52", "turn_limit": "#8c8c8c"}
plt.rcParams.update({"font.size": 10, "axes.titlesize": 12, "axes.titleweight": "bold",
                     "axes.spines.top": False, "axes.spines.right": False})


class Chart:
    def __init__(self, file: str, title: str, caption: str) -> None:
        self.file, self.title, self.caption = file, title, caption


def _err(wins: int, n: int) -> tuple[float, float, float]:
    p = wins / n
    lo, hi = wilson(wins, n)
    return 100 * p, max(0.0, 100 * (p - lo)), max(0.0, 100 * (hi - p))


def _row_err(row: dict, metric: str) -> tuple[float, float, float]:
    """A row's rate and its interval as error bars (the row's own interval: clustered for a bucket)."""
    p, (lo, hi) = row[f"{metric}_wr"], row[f"{metric}_ci"]
    return 100 * p, max(0.0, 100 * (p - lo)), max(0.0, 100 * (hi - p))


def _save(fig, out: Path, name: str) -> str:
    fig.tight_layout()
    fig.savefig(out / name, dpi=100)
    plt.close(fig)
    return name


def _label(row: dict, names: dict[int, str]) -> str:
    if "feature" in row:
        return row["feature"]
    name = names.get(row["base_id"], "")
    return f"#{row['base_id']} {name}"[:28]


GOOD, BAD, PLAIN = "#2a9d8f", "#e76f51", "#b8b8b8"


def bar_colour(row: dict, metric: str) -> str:
    """A bar's colour: good or bad only when the row differs from its baseline after the false-discovery
    control of `analysis.locm.cardmetrics.against_baseline` (``M_significant``), by the side of the baseline it
    is on; grey otherwise, whatever side its estimate is on."""
    if not row.get(f"{metric}_significant"):
        return PLAIN
    return GOOD if row[f"{metric}_centred"] > 0 else BAD


def _extremes(shown: list[dict], key: str, k: int) -> list[dict]:
    shown = sorted(shown, key=lambda r: r[key], reverse=True)
    pick = shown[:k] + [r for r in shown[-k:] if r not in shown[:k]]
    pick.reverse()
    return pick


def _verdict(rows: list[dict], metric: str, what: str, short: bool = False) -> str:
    """How many of the rows shown differ from the baseline, in words (``short``: for a chart's title)."""
    marked = sum(bool(r.get(f"{metric}_significant")) for r in rows)
    q = f"Benjamini-Hochberg q <= {DEFAULT_FDR:g}"
    if short:
        return (f"none of {len(rows)} differs from the baseline (BH q <= {DEFAULT_FDR:g}): all grey" if not marked
                else f"{marked} of {len(rows)} differ from the baseline (BH q <= {DEFAULT_FDR:g}): coloured")
    if not marked:
        return f"none of the {len(rows)} {what} differs from the baseline ({q}): every bar is grey"
    return f"{marked} of {len(rows)} {what} differ from the baseline ({q}, coloured); the rest are grey"


def best_worst(rows: list[dict], ruleset: str, out: Path, names: dict[int, str], k: int = 10,
               pairing: str = "") -> Chart | None:
    """The k highest and lowest in-hand win rates against the pairing's baseline (the mean in-hand WR of its
    rows), coloured only where they differ from it (`bar_colour`)."""
    shown = [r for r in rows if r["in_hand_wr"] is not None]
    if not shown:
        return None
    base = 100 * shown[0]["in_hand_baseline"]
    pick = _extremes(shown, "in_hand_wr", k)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(pick) + 1.9))
    ys = range(len(pick))
    vals = [_row_err(r, "in_hand") for r in pick]
    ax.barh(list(ys), [v[0] for v in vals], xerr=[[v[1] for v in vals], [v[2] for v in vals]],
            color=[bar_colour(r, "in_hand") for r in pick], capsize=2, error_kw={"elinewidth": 1})
    ax.set_yticks(list(ys), [f"{_label(r, names)}  (n={r['in_hand_n']}"
                             + (f", q={r['in_hand_q']:.2g})" if r["in_hand_q"] is not None else ")") for r in pick])
    ax.axvline(base, color="black", linestyle="--", linewidth=1)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"win rate when in hand (GIH WR), % with its 95% interval\ndashed: the baseline {base:.1f}%, "
                  "the mean of every row with enough data")
    what = "feature buckets" if "feature" in shown[0] else "cards"
    title = (f"{ruleset}: in-hand win rate, the {len(pick)} highest and lowest of {len(shown)} {what}"
             if len(pick) < len(shown) else f"{ruleset}: in-hand win rate of every {what[:-1]} with enough data")
    ax.set_title(title + "\n" + _verdict(shown, "in_hand", what, short=True) + (f"\n{pairing}" if pairing else ""),
                 fontsize=9.5)
    name = _save(fig, out, f"{ruleset}-best-worst.png")
    return Chart(name, title,
                 f"In-hand win rates against the baseline measured on these games ({base:.1f}%, the mean of the "
                 f"{len(shown)} {what} with enough data{', ' + pairing if pairing else ''}); "
                 + _verdict(shown, "in_hand", what) + ". Observational: who holds a card, not what it causes.")


def iih_chart(rows: list[dict], ruleset: str, out: Path, names: dict[int, str], k: int = 10,
              pairing: str = "") -> Chart | None:
    """The k highest and lowest IIH centred on the pairing's mean IIH (the selection bias measured on these
    games), coloured only where they differ from it (`bar_colour`)."""
    shown = [r for r in rows if r["iih"] is not None]
    if not shown:
        return None
    bias = 100 * shown[0]["iih_baseline"]
    pick = _extremes(shown, "iih_centred", k)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(pick) + 1.9))
    vals = [100 * r["iih_centred"] for r in pick]
    lo = [max(0.0, 100 * (r["iih"] - r["iih_ci"][0])) for r in pick]
    hi = [max(0.0, 100 * (r["iih_ci"][1] - r["iih"])) for r in pick]
    ax.barh(range(len(pick)), vals, xerr=[lo, hi], capsize=2, color=[bar_colour(r, "iih") for r in pick],
            error_kw={"elinewidth": 1})
    ax.set_yticks(range(len(pick)), [_label(r, names) + (f"  (q={r['iih_q']:.2g})" if r["iih_q"] is not None
                                                         else "") for r in pick])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(f"IIH minus its mean here, percentage points (95% CI)\nthe mean, {bias:+.1f} points, is the "
                  "selection bias measured on these games")
    what = "feature buckets" if "feature" in shown[0] else "cards"
    title = f"{ruleset}: IIH (improvement in hand) minus its mean, {len(pick)} of {len(shown)} {what}"
    ax.set_title(title + "\n" + _verdict(shown, "iih", what, short=True) + (f"\n{pairing}" if pairing else ""),
                 fontsize=9.5)
    name = _save(fig, out, f"{ruleset}-iih.png")
    return Chart(name, title,
                 f"In-hand WR minus not-seen WR, minus its mean over the {len(shown)} {what} of these games "
                 f"({bias:+.1f} points: the selection bias measured here, which every row carries)"
                 f"{' (' + pairing + ')' if pairing else ''}; intervals by Newcombe's method from the two rates' "
                 f"intervals; " + _verdict(shown, "iih", what) + ".")


def first_pairings(data) -> str:
    """The pairing each ruleset's per-pairing charts show (its first: self-play first), once where every
    ruleset's is the same: for the charts' titles."""
    labels = {rs: d.strata[0].label for rs, d in data.rulesets.items() if d.strata}
    if len(set(labels.values())) == 1:
        return next(iter(labels.values()))
    return "; ".join(f"{rs}: {label}" for rs, label in labels.items())


def all_games(summary: dict[str, dict]) -> str:
    """What the whole-ruleset charts count: every game of every pairing, with each ruleset's number."""
    return "every pairing's games (" + ", ".join(f"{rs}: {s['games']}" for rs, s in summary.items()) + ")"


def by_cost(data, out: Path) -> Chart | None:
    fig, ax = plt.subplots(figsize=(9, 4.5))
    drawn = False
    for i, (rs, d) in enumerate(data.rulesets.items()):
        pts = [(c, n, w) for c, n, w in d.by_cost if n >= data.min_n]
        if not pts:
            continue
        labels = [c for c, _, _ in d.by_cost]
        xs = [labels.index(c) + (i - 0.5) * 0.12 for c, _, _ in pts]
        vals = [_err(w, n) for _, n, w in pts]
        ax.errorbar(xs, [v[0] for v in vals], yerr=[[v[1] for v in vals], [v[2] for v in vals]], marker="o",
                    capsize=3, label=rs, color=COLORS.get(rs))
        ax.set_xticks(range(len(labels)), labels)
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("mana cost of the card")
    ax.set_ylabel("in-hand win rate, % (95% Wilson)")
    ax.set_title(f"Win rate by mana cost (cards that reached the hand)\n{first_pairings(data)}")
    ax.legend(title="ruleset")
    return Chart(_save(fig, out, "cost.png"), "Win rate by mana cost",
                 "Per (player-game, card) that reached the hand, grouped by the card's cost, in each ruleset's "
                 "first pairing (" + "; ".join(f"{rs}: {d.strata[0].label}" for rs, d in data.rulesets.items())
                 + ").")


def pick_vs_win(rows: list[dict], ruleset: str, out: Path, names: dict[int, str],
                pairing: str = "") -> Chart | None:
    pts = [r for r in rows if r["pick_rate"] is not None and r["in_hand_wr"] is not None]
    if len(pts) < 3:
        return None
    fig, ax = plt.subplots(figsize=(8, 5.5))
    vals = [_err(r["in_hand_wins"], r["in_hand_n"]) for r in pts]
    ax.errorbar([100 * r["pick_rate"] for r in pts], [v[0] for v in vals],
                yerr=[[v[1] for v in vals], [v[2] for v in vals]], fmt="o", markersize=4, alpha=0.7,
                elinewidth=0.7, color=COLORS.get(ruleset))
    ranked = sorted(pts, key=lambda r: r["in_hand_wr"])
    placed: list[tuple[float, float]] = []
    for r in (pts if len(pts) <= 20 else ranked[:4] + ranked[-4:]):
        x, y = 100 * r["pick_rate"], 100 * r["in_hand_wr"]
        near = sum(1 for px, py in placed if abs(px - x) < 8 and abs(py - y) < 4)  # stack, don't overlap
        placed.append((x, y))
        ax.annotate(_label(r, names), (x, y), fontsize=8, xytext=(5, 3 + 11 * near), textcoords="offset points",
                    color="#333", arrowprops={"arrowstyle": "-", "color": "#bbb"} if near else None)
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("pick rate, % (picks / times offered)")
    ax.set_ylabel("in-hand win rate, % (95% Wilson)")
    ax.set_title(f"{ruleset}: pick rate against in-hand win rate" + (f"\n{pairing}" if pairing else ""))
    return Chart(_save(fig, out, f"{ruleset}-pick-vs-win.png"),
                 f"{ruleset}: pick rate against in-hand win rate" + (f", {pairing}" if pairing else ""),
                 "Cards above the dotted line win more than half their games when drawn; cards far right are "
                 "picked often. A card high and to the left is undervalued by the drafters; the highest and "
                 "lowest are named.")


def by_turn(data, out: Path) -> Chart | None:
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    drawn = False
    for i, (rs, d) in enumerate(data.rulesets.items()):
        total = sum(n for _, n, _ in d.by_turn) or 1
        pts = [(t, n, w) for t, n, w in d.by_turn if n >= data.min_n]
        if pts:
            vals = [_err(w, n) for _, n, w in pts]
            top.errorbar([t + (i - 0.5) * 0.15 for t, _, _ in pts], [v[0] for v in vals],
                         yerr=[[v[1] for v in vals], [v[2] for v in vals]], marker="o", capsize=3, label=rs,
                         color=COLORS.get(rs))
            drawn = True
        bottom.bar([t + (i - 0.5) * 0.4 for t, _, _ in d.by_turn], [100 * n / total for _, n, _ in d.by_turn],
                   width=0.4, label=rs, color=COLORS.get(rs))
    if not drawn:
        plt.close(fig)
        return None
    top.axhline(50, color="grey", linestyle=":", linewidth=1)
    top.set_ylabel("win rate, % (95% Wilson)")
    top.set_title(f"Win rate by the own turn a card was first played\n{first_pairings(data)}")
    top.legend(title="ruleset")
    bottom.set_ylabel("share of first plays, %")
    bottom.set_xlabel("the player's own turn (1 = its first turn)")
    bottom.set_title("Popularity by turn")
    return Chart(_save(fig, out, "turn-played.png"), "Win rate and popularity by turn played",
                 "Each (player-game, card) counted at the own turn of its first play, in each ruleset's first "
                 "pairing (" + "; ".join(f"{rs}: {d.strata[0].label}" for rs, d in data.rulesets.items()) + ").")


def seat_chart(summary: dict[str, dict], out: Path) -> Chart:
    fig, ax = plt.subplots(figsize=(6, 3.8))
    names = list(summary)
    vals = [_err(s["seat0_wins"], s["games"]) if s["games"] else (0, 0, 0) for s in summary.values()]
    ax.bar(names, [v[0] for v in vals], yerr=[[v[1] for v in vals], [v[2] for v in vals]], capsize=5,
           color=[COLORS.get(n, "#777") for n in names], width=0.5)
    for i, (v, s) in enumerate(zip(vals, summary.values())):
        ax.text(i, 3, f"{v[0]:.1f}%\nn={s['games']}", ha="center", va="bottom", color="white", fontweight="bold")
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.set_ylim(0, 100)
    ax.set_ylabel("first player's win rate, % (95% Wilson)")
    ax.set_xlabel("ruleset")
    ax.set_title(f"First player's win rate\n{all_games(summary)}")
    return Chart(_save(fig, out, "seat.png"), f"First player's win rate, {all_games(summary)}",
                 "Win rate of the player who moves first (seat 0), per ruleset, over every game of the report "
                 "(every pairing plays both seats on the same seeds).")


def length_damage(summary: dict[str, dict], out: Path) -> Chart:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    top = max((max(s["turns"]) for s in summary.values() if s["turns"]), default=1)
    for rs, s in summary.items():
        left.hist(s["turns"], bins=range(0, top + 2), alpha=0.55, label=rs, color=COLORS.get(rs))
    left.set_xlabel("game length (turns, both players)")
    left.set_ylabel("games")
    left.set_title("Game length")
    fig.suptitle(f"Game length and damage by source, {all_games(summary)}", fontweight="bold")
    left.legend(title="ruleset")
    sources = [k for k in SOURCE_COLORS if any(s["damage"].get(k) for s in summary.values())]
    sources += sorted({k for s in summary.values() for k in s["damage"]} - set(sources))
    names = list(summary)
    bottom = [0.0] * len(names)
    for src in sources:
        vals = [100 * s["damage"].get(src, 0) / (sum(s["damage"].values()) or 1) for s in summary.values()]
        right.bar(names, vals, bottom=bottom, label=src, color=SOURCE_COLORS.get(src), width=0.5)
        bottom = [b + v for b, v in zip(bottom, vals)]
    right.set_ylabel("share of damage to players, %")
    right.set_xlabel("ruleset")
    right.set_title("Damage by source")
    right.legend(loc="center left", bbox_to_anchor=(1, 0.5), fontsize=9)
    return Chart(_save(fig, out, "length-damage.png"), f"Game length and damage by source, {all_games(summary)}",
                 "Drain healing is listed in the table below; 'deck' is deck-out damage, 'rune' rune damage.")


def features_chart(features: dict[str, list[dict]], out: Path, pairing: str = "") -> Chart | None:
    fams = [(f, rows) for f, rows in features.items() if rows]
    if not fams:
        return None
    fig, axes = plt.subplots(len(fams), 1, figsize=(9, sum(0.3 * len(r) + 0.9 for _, r in fams) + 0.5))
    axes = [axes] if len(fams) == 1 else list(axes)
    for ax, (family, rows) in zip(axes, fams):
        rows = list(reversed(rows))
        labels = [f"{r['feature'].partition(': ')[2]}  (n={r['in_hand_n']})" for r in rows]
        vals = [_row_err(r, "in_hand") if r["in_hand_wr"] is not None else None for r in rows]
        ys = range(len(rows))
        ax.barh(list(ys), [v[0] if v else 0 for v in vals],
                xerr=[[v[1] if v else 0 for v in vals], [v[2] if v else 0 for v in vals]], capsize=2,
                color=[bar_colour(r, "in_hand") if v else "#eeeeee" for r, v in zip(rows, vals)],
                error_kw={"elinewidth": 1})
        ax.set_yticks(list(ys), [lb if v else lb + " - not enough data" for lb, v in zip(labels, vals)])
        base = next((r["in_hand_baseline"] for r in rows if r["in_hand_baseline"] is not None), None)
        if base is not None:
            ax.axvline(100 * base, color="black", linestyle="--", linewidth=1)
        ax.set_xlim(0, 100)
        ax.set_title(f"by {family}", loc="left", fontsize=11)
    axes[-1].set_xlabel("in-hand win rate, % (95% interval clustered by game), per (player-game, card) with the "
                        "feature\ndashed: the mean of the buckets; coloured: differs from it (BH q <= 0.05)")
    fig.suptitle("constructed: in-hand win rate by card feature" + (f"\n{pairing}" if pairing else ""),
                 fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(out / "constructed-features.png", dpi=100)
    plt.close(fig)
    return Chart("constructed-features.png", "constructed: in-hand win rate by card feature",
                 "Constructed cards are generated anew each game, so they are grouped by feature. A bucket is "
                 "coloured only where its interval excludes the buckets' mean after Benjamini-Hochberg control "
                 "over the buckets tested.")


def draw_all(data, out: Path) -> list[Chart]:
    from locm.engine.locm.carddata import cardlist_12

    names = {b: c.name for b, c in cardlist_12().items()}
    charts: list[Chart | None] = []
    for rs, d in data.rulesets.items():
        first = d.strata[0]  # the pairing the charts show: self-play first (`locm.games.locm.cardreport._ruleset_data`)
        label = f"{first.label}, {first.player_games} player-games"
        charts.append(best_worst(first.cards, rs, out, names, pairing=label))
        charts.append(iih_chart(first.cards, rs, out, names, pairing=label))
        if not d.constructed:
            charts.append(pick_vs_win(first.cards, rs, out, names, pairing=label))
        else:
            charts.append(features_chart(d.features, out, label))
    charts.append(by_cost(data, out))
    charts.append(by_turn(data, out))
    summary = data.seat_summary()
    charts.append(seat_chart(summary, out))
    charts.append(length_damage(summary, out))
    charts = [c for c in charts if c is not None]
    for c in charts:
        c.path = out / c.file
    return charts
