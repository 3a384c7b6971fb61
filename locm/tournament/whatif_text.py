"""A what-if summary (`locm.tournament.whatif.Whatif.summary`) as text, for every game: the counts, the winner
changes, a table of the figures under A and under B, each agent's paired win rate and figures, the cards whose
holders gain or lose most, and what the game's hook ``whatif_lines`` adds (LOCM's damage rows, in-hand win
rates and paired cards and buckets)."""

from __future__ import annotations

from locm.engine.seam import GameDef
from locm.analysis.paired import STAR
from locm.tournament.rerun import game_hook


def pct(r: dict) -> str:
    """A rate with its interval and n."""
    if not r["n"]:
        return "n=0"
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}%, {100 * r['high']:.1f}%] (n={r['n']})"


def avg(m: dict, sign: str = "") -> str:
    """A mean with its interval and n."""
    if not m["n"]:
        return "n=0"
    f = f"{sign}.2f"
    if m["low"] is None:
        return f"{m['mean']:{f}} (n={m['n']}, no interval)"
    return f"{m['mean']:{f}} [{m['low']:{f}}, {m['high']:{f}}] (n={m['n']})"


def whatif_lines(s: dict, top: int = 10, game: GameDef | None = None) -> list[str]:
    """A summary as text: the counts, the winner changes, a table of the figures under A and under B (the
    rows the game's ``whatif_lines`` adds among them), each agent's paired win rate and figures, the cards
    whose holders gain or lose most, then the game's own lines."""
    from locm.common.tables import table
    from locm.engine.registry import get

    game = game or get(s["game"])
    a, b = s["ruleset_a"], s["ruleset_b"]["name"]
    n = s["games"]
    out = [f"{game.title}: {n} game{'' if n == 1 else 's'} of {a} re-run under {b} (same seeds, same agents; "
           f"{s['rerun_now']} played now, {s['reused_from_store']} already stored, {s['skipped']} skipped) in "
           f"{s['seconds']:.1f} s", f"question: {s['question']}"]
    if not s["enough"]:
        out.append(f"not enough data: {n} games < --min-n {s['min_n']}; the figures below are shown with their "
                   "intervals but say little")
    out.append(f"winner changes: {pct(s['winner_changed'])}")
    if s["winner_changed_games"]:
        out.append("  e.g. " + ", ".join(s["winner_changed_games"][:3]) + " (see 'locm rerun GAME_ID --db DB "
                   "--ruleset B')")
    t = s["game_length_turns"]
    rows = [("first player wins", pct(s["first_player_win_rate"]["a"]), pct(s["first_player_win_rate"]["b"])),
            ("game length (turns)", avg(t["a"]), avg(t["b"])),
            ("game length, paired B - A", "", avg(t["paired_delta"], "+"))]
    own = game_hook("whatif_lines", game, None)
    more_rows, more = own(s, top) if own is not None else ([], [])
    out += ["", table(("95% intervals", f"under {a}", f"under {b}"), rows + more_rows), ""]
    out.append("win rate by agent under A; under B; paired B - A (the same seats, clustered by seed, 95%):")
    for name, r in s["agents"].items():
        delta = _paired(r) if r["enough"] else f"not enough data (n={r['units']} < {s['min_n']})"
        out.append(f"  {name}: {_wr(r['win_rate_a'])}; {_wr(r['win_rate_b'])}; {delta}")
    if s.get("figures"):
        out.append("per agent and game, under A; under B; paired B - A (the same seats, clustered by seed, 95%; "
                   "* : the interval excludes 0):")
        width = max(len(k) for k in s["figures"])
        for name, r in s["agents"].items():
            out.append(f"  {name}:")
            for key, f in r["figures"].items():
                digits = 1 if key == "points" else 2
                if f["constant"] is not None:
                    out.append(f"    {key:<{width}}  {f['constant']:.{digits}f} in every game under A and B "
                               f"(n={f['units']})")
                    continue
                delta = (_diff(f, digits) + (" *" if f["excludes_zero"] else "")) if f["enough"] else \
                    f"not enough data (n={f['units']} < {s['min_n']})"
                out.append(f"    {key:<{width}}  {_ci(f['a'], digits)}; {_ci(f['b'], digits)}; {delta}")
    rows = s["cards_paired_by_seed"]
    if s["cards_considered"]:
        out.append(f"cards whose holders gain or lose most (a holder: the seat whose deck held more copies under A; "
                   f"paired B - A clustered by seed; {len(rows)} of {s['cards_considered']} cards held in "
                   f"{s['min_n']} units at least; {STAR}):")
        gain = [r for r in rows if r["delta"] > 0][:top]
        lose = [r for r in reversed(rows) if r["delta"] < 0][:top]
        for title, part in (("gain most", gain), ("lose most", lose)):
            for r in part:
                out.append(f"  {title}: {r['card']}: {_paired(r)}, q={r['q']}" + (" *" if r["significant"] else ""))
        if not gain and not lose:
            out.append("  none moves (or none held in enough units)")
    return out + more


def _ci(m: dict, digits: int) -> str:
    """A mean with its interval."""
    if m["mean"] is None:
        return "n=0"
    if m["low"] is None:
        return f"{m['mean']:.{digits}f}"
    return f"{m['mean']:.{digits}f} [{m['low']:.{digits}f}, {m['high']:.{digits}f}]"


def _diff(r: dict, digits: int) -> str:
    """A paired difference B - A with its interval, n and seeds."""
    if r["delta"] is None:
        return "n=0"
    if r["low"] is None:
        return f"{r['delta']:+.{digits}f} (n={r['units']}, too few seeds for an interval)"
    return (f"{r['delta']:+.{digits}f} [{r['low']:+.{digits}f}, {r['high']:+.{digits}f}] (n={r['units']} in "
            f"{r['clusters']} seeds)")


def _wr(r: dict) -> str:
    if not r["n"]:
        return "n=0"
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}] (n={r['n']})"


def _paired(r: dict) -> str:
    if r["delta"] is None:
        return "n=0"
    if r["low"] is None:
        return f"{100 * r['delta']:+.1f} pts (n={r['units']}, too few seeds for an interval)"
    return (f"{100 * r['delta']:+.1f} pts [{100 * r['low']:+.1f}, {100 * r['high']:+.1f}] (n={r['units']} in "
            f"{r['clusters']} seeds)")


__all__ = ["whatif_lines", "pct", "avg"]
