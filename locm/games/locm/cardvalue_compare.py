"""Where `locm whatif` and `locm cardvalue` disagree on a card, why (issue 34: a card weakened on purpose
showed +14.3 points in whatif and -17.1* in cardvalue, and nothing said which to believe).

They answer two questions (`locm.tournament.whatif.QUESTION`, `locm.games.locm.cardvalue.QUESTION`): whatif,
what changed for a card's holders across the games re-run under the whole ruleset B; cardvalue, what the card
causes for its holder, the card alone replaced by its baseline. Both take as a card's holders the seats whose
decks held more copies of it under A, and both pair the same seeds, so with the same change (cardvalue
``--baseline B.toml``) and the same base games they differ only by:

- **sign**: whatif reports B - A, cardvalue A - B (the card as it is minus its baseline): +14.3 and -17.1 say
  the same thing, that the holders did better after the change;
- **the other changes**: whatif re-runs every change of B at once, cardvalue this card's alone;
- **the agents' new decisions**: holders under A that did not hold the card under B (``lost_edge``) took
  other cards instead, so a weakened card can make its holders win more;
- **chance**: one interval excludes 0, the other does not, or one is starred after Benjamini-Hochberg over its
  own rows and the other is not;
- **whatif's in-hand move**, a different, observational figure: the win rate of the seats that had the card in
  hand, compared across games rather than the same seats.

`compare` reads the two commands' JSON (``locm whatif --json``, ``locm cardvalue --json``) and gives a row per
card both measured where they disagree: their numbers point opposite ways (signed alike when both measure the
same change, as printed when not), or one is starred and the other not, or the in-hand move points the other
way; `compare_lines` gives a line per row with both numbers and the
reasons, the first reason the one that accounts for the difference.
"""

from __future__ import annotations

from locm.analysis.paired import pts


def _whatif_rows(whatif: dict) -> dict[str, dict]:
    rows = {r["key"]: r for r in whatif.get("paired_by_seed", []) if r.get("kind", "card") == "card"}
    for r in whatif.get("cards_paired_by_seed", []):
        rows.setdefault(r["card"], r)
    return rows


def _interval(r: dict, sign: int = 1) -> str:
    if r.get("low") is None:
        return "no interval"
    lo, hi = sorted((sign * r["low"], sign * r["high"]))
    return f"[{pts(lo)}, {pts(hi)}]"


def compare(whatif: dict, cardvalue: dict) -> list[dict]:
    """The cards both measured where they disagree, each ``{card, whatif, cardvalue, aligned, reasons}``:
    whatif's paired change (B - A) and its star, cardvalue's value (A - B) and its star, cardvalue's value in
    whatif's direction when both measure the same change (``aligned``, else None), and the reasons (the module
    note), most telling first."""
    b_name = whatif.get("ruleset_b", {}).get("name")
    same_change = [r for r in cardvalue["cards"] if r["baseline"] == b_name]
    w_rows, moves = _whatif_rows(whatif), {m["card"]: m for m in whatif.get("cards_in_hand_win_rate_moves", [])}
    out = []
    for c in cardvalue["cards"]:
        w = w_rows.get(c["card"])
        if w is None or c["value"] is None or w["delta"] is None:
            continue
        wd, cv = w["delta"], c["value"]
        ws, cs = bool(w.get("significant")), bool(c.get("significant"))
        move = moves.get(c["card"])
        move_other_way = move is not None and move["move"] * wd < 0 and abs(move["move"]) >= 0.005
        same = c["baseline"] == b_name
        aligned = -cv if same else None
        if not ((wd * (aligned if same else cv) < 0) or ws != cs or move_other_way):
            continue
        reasons = []
        if not same:
            reasons.append(f"different changes: cardvalue replaced the card by {c['baseline']}, whatif re-ran "
                           f"{b_name}; compare them with locm cardvalue --baseline {b_name}.toml")
        elif wd * cv < 0:
            reasons.append(f"sign: whatif is B - A, cardvalue A - B; in whatif's direction cardvalue is "
                           f"{pts(aligned)} pts, the same direction: they agree")
        elif wd * aligned < 0:
            reasons.append("they point opposite ways for the same change")
        if same and len(same_change) > 1 and c.get("rerun_under", b_name) != b_name:
            reasons.append(f"other changes: whatif re-ran the {len(same_change)} cards {b_name} changes at once, "
                           "cardvalue this card's change alone")
        if same and c.get("units") and c.get("lost_edge"):
            share = c["lost_edge"] / c["units"]
            if share >= 0.25:
                reasons.append(f"the agents' new decisions: {c['lost_edge']} of its {c['units']} holders under A "
                               f"did not hold it under B ({100 * share:.0f}%): they took other cards, and both "
                               "numbers include what they took instead")
        if ws != cs:
            starred, other = ("whatif", "cardvalue") if ws else ("cardvalue", "whatif")
            reasons.append(f"chance: {starred} stars it, {other} does not (whatif {_interval(w)}, cardvalue "
                           f"{_interval(c)}; each starred after Benjamini-Hochberg over its own rows)")
        if move_other_way:
            reasons.append(f"whatif's in-hand win rate moved {pts(move['move'])} pts: seats that had the card in "
                           "hand, compared across games, not the same seats: it is not what the card causes")
        out.append({"card": c["card"], "whatif": {"change": wd, "low": w.get("low"), "high": w.get("high"),
                                                  "significant": ws},
                    "cardvalue": {"value": cv, "low": c["low"], "high": c["high"], "significant": cs},
                    "aligned": aligned, "reasons": reasons})
    return out


def compare_lines(rows: list[dict]) -> list[str]:
    """A line per disagreeing card: both numbers, then the reasons."""
    if not rows:
        return ["whatif and cardvalue agree on every card both measured"]
    out = [f"where whatif (what changed across the re-run games, B - A) and cardvalue (what the card causes, "
           f"A - B) disagree: {len(rows)} card{'s' * (len(rows) != 1)}"]
    for r in rows:
        w, c = r["whatif"], r["cardvalue"]
        out.append(f"{r['card']}: whatif {pts(w['change'])}{'*' if w['significant'] else ''}, cardvalue "
                   f"{pts(c['value'])}{'*' if c['significant'] else ''}: " + "; ".join(r["reasons"]))
    return out


__all__ = ["compare", "compare_lines"]
