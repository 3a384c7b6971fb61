"""Game-level metrics from stored events alone (ANALYTICS.md, "Beyond cards"): per ruleset, the first
player's win rate with its interval, game length, and damage by source, from each game's facts (the one fold,
`analysis.locm.cardfacts.project`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from locm.analysis.locm.cardfacts import GameFacts, project
from locm.analysis.stats import rate_text, wilson

DAMAGE_SOURCES = ("attack", "breakthrough", "item", "summon", "deck", "turn_limit")


@dataclass
class RulesetOverview:
    ruleset: str
    games: int = 0
    seat0_wins: int = 0
    turns: list[int] = field(default_factory=list)
    damage: Counter = field(default_factory=Counter)
    drain: int = 0
    end_reasons: Counter = field(default_factory=Counter)

    @property
    def seat0_interval(self) -> tuple[float, float]:
        return wilson(self.seat0_wins, self.games)

    @property
    def mean_turns(self) -> float:
        return sum(self.turns) / len(self.turns) if self.turns else 0.0


def overview(logs) -> dict[str, RulesetOverview]:
    """`logs`: an iterable of (ruleset, events) for complete games; each game's facts are the one fold's
    (`analysis.locm.cardfacts.project`)."""
    out: dict[str, RulesetOverview] = {}
    for ruleset, events in logs:
        add(out.setdefault(ruleset, RulesetOverview(ruleset)), project(events))
    return out


def add(o: RulesetOverview, g: GameFacts) -> None:
    """One game's facts into its ruleset's overview: length is the last turn's number + 1."""
    o.games += 1
    o.damage.update(g.damage)
    o.drain += g.drain
    o.seat0_wins += g.winner == 0
    o.end_reasons[g.reason] += 1
    o.turns.append(g.last_turn + 1)


def overview_text(result: dict[str, RulesetOverview]) -> str:
    lines = []
    for name, o in sorted(result.items()):
        total = sum(o.damage.values()) or 1
        lines.append(f"{name}: {o.games} games, mean length {o.mean_turns:.1f} turns")
        lines.append(f"  first player (seat 0) wins {rate_text(o.seat0_wins, o.games)}")
        parts = [f"{s} {100 * o.damage[s] / total:.0f}%" for s in DAMAGE_SOURCES if o.damage[s]]
        lines.append(f"  damage to players by source: {', '.join(parts)}; drain healed {o.drain}")
    return "\n".join(lines)


def by_turn(result: dict[str, RulesetOverview]) -> dict[str, Counter]:
    return {name: Counter(o.turns) for name, o in result.items()}


__all__ = ["overview", "overview_text", "RulesetOverview", "by_turn", "add", "defaultdict"]
