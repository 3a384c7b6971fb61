"""Charts (matplotlib, drawn off-screen to PNG files)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from locm.analysis.stats import wilson  # noqa: E402


def games_per_ruleset(games: dict[str, int]) -> str:
    """'N games per ruleset', or each ruleset's count where they differ: for a chart's title."""
    if len(set(games.values())) == 1:
        return f"{next(iter(games.values()))} games per ruleset"
    return ", ".join(f"{rs}: {n} games" for rs, n in games.items())


def win_rate_chart(results: dict[str, list[tuple[str, int, int]]], lengths: dict[str, list[int]],
                   path: str | Path, lengths_of: str = "") -> Path:
    """Left: each agent's win rate with its 95% Wilson interval, one group of bars per ruleset.
    Right: the distribution of game lengths (turns) per ruleset, of the games ``lengths_of`` names (its title).
    `results`: ruleset -> [(agent, wins, games)]."""
    path = Path(path)
    rulesets = sorted(results)
    agents = sorted({a for rows in results.values() for a, _, _ in rows})
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / max(len(rulesets), 1)
    for k, rs in enumerate(rulesets):
        by_agent = {a: (w, n) for a, w, n in results[rs]}
        xs, ys, lo, hi = [], [], [], []
        for i, a in enumerate(agents):
            w, n = by_agent.get(a, (0, 0))
            p = w / n if n else 0.0
            a_lo, a_hi = wilson(w, n)
            xs.append(i + (k - (len(rulesets) - 1) / 2) * width)
            ys.append(100 * p)
            lo.append(100 * max(0.0, p - a_lo))
            hi.append(100 * max(0.0, a_hi - p))
        left.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=rs)
    left.set_xticks(range(len(agents)), agents)
    left.set_ylabel("win rate, % (95% Wilson interval)")
    left.set_ylim(0, 100)
    left.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    left.set_title("Win rate per agent, round robin (mirrored seeds)\n" + games_per_ruleset(
        {rs: sum(n for _, _, n in results[rs]) // 2 for rs in rulesets}))
    left.legend()
    top = max((max(v) for v in lengths.values() if v), default=1)
    bins = range(0, top + 2)
    for rs in rulesets:
        right.hist(lengths.get(rs, []), bins=bins, alpha=0.6, label=rs)
    right.set_xlabel("game length (turns, both players)")
    right.set_ylabel("games")
    right.set_title(f"Game length\n{lengths_of}" if lengths_of else "Game length")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
