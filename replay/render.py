"""Text for the replay commands: a board with its turn's events, an audit, the rejected actions, a card's
life, and every turn of a game in order; and `escape_controls`, which every text for a terminal goes through.
"""

from __future__ import annotations

import textwrap

from locm.replay.game import Replay
from locm.terminal_text import escape_controls  # noqa: F401  (re-exported for the replay commands)
from locm.replay.views import board_text, diff_lines


def show_text(r: Replay, seq: int, perspective: int | None = None) -> list[str]:
    """The board just after ``seq`` and the events of its turn, ``>`` marking ``seq``."""
    lines = board_text(r.view(seq, perspective))
    t = r.turn_of(seq)
    if t is not None:
        lines.append(f"turn {t.number} (P{t.player}), events {t.first_seq}..{t.last_seq}:")
        seqs = range(t.first_seq, t.last_seq + 1)
    else:
        lines.append("events:")
        seqs = range(max(0, seq - 5), seq + 1)
    for i in seqs:
        mark = ">" if i == seq else " "
        lines.append(f" {mark}{i:5d}  {r.describe(i, perspective)}")
    return lines


def audit_text(x: dict) -> list[str]:
    e = x["event"]
    lines = [f"event {e['seq']}: {e['type']}  [{e['rule']}]", f"  {e['description']}",
             f"rule {x['rule']['section']}"]
    lines += ["  " + line for line in x["rule"]["text"].splitlines()]
    lines.append("causes (nearest first, back to the command):")
    if not x["causes"]:
        lines.append("  none: this is a root event")
    for c in x["causes"]:
        lines.append(f"  {c['seq']:5d}  {c['type']:<18} [{c['rule']}]  {c['description']}")
    if x["involved"]:
        lines.append("cards involved, just before:")
        for c in x["involved"]:
            ready = (" can attack" if c.get("can_attack") else "") if c["zone"] == "board" else ""
            lines.append(f"  #{c['id']} b{c['base_id']} P{c['owner']} {c['zone']}: {c['type']} "
                         f"{c['attack']}/{c['defense']} {c['keywords']}{ready}")
    for p in x.get("players_before", []):
        extra = f"runes {p['runes']}" if "runes" in p else f"damage {p['damage_counter']}"
        lines.append(f"  P{p['player']} before: health {p['health']}, mana {p['mana']}/{p['max_mana']}, deck "
                     f"{p['deck']}, hand {p['hand_size']}, {extra}, next draw {p['next_draw']}")
    lines.append("what it changed:")
    lines += ["  " + line for line in diff_lines(x["diff"])] or ["  nothing on the board"]
    return lines


def rejected_text(items: list[dict]) -> list[str]:
    if not items:
        return ["no rejected actions and no hard errors"]
    lines = []
    for x in items:
        turn = f"turn {x['turn']}" if x["turn"] is not None else "before the battle"
        lines.append(f"{x['seq']:5d}  P{x['player']} {turn}: {x['type']} {x['action']!r}: {x['reason']}  "
                     f"[{x['rule']}]")
        if x["line"] and x["line"] != x["action"]:
            lines.append(f"       in the answer {x['line']!r}")
    lines.append(f"{len(items)} rejected")
    return lines


def card_life_text(card_id: int, items: list[dict]) -> list[str]:
    lines = [f"card #{card_id}:"]
    for x in items:
        cause = x.get("nearest_cause")
        because = f"  <- {cause['seq']} {cause['description']}" if cause else ""
        lines.append(f"{x['seq']:5d}  {x['description']}  [{x['rule']}]{because}")
    return lines


def all_turns_text(r: Replay, perspective: int | None = None) -> list[str]:
    """Every battle turn: the board at its start and its events, then the final board."""
    lines = []
    for t in r.turns():
        lines.append(f"=== turn {t.number}: P{t.player} (events {t.first_seq}..{t.last_seq})")
        lines += board_text(r.view(t.start_seq, perspective))
        for e in t.events:
            lines.append(f"  {e.seq:5d}  {r.describe(e.seq, perspective)}")
    lines.append("=== end")
    lines += board_text(r.view(r.last_seq, perspective))
    return lines


def wrap(text: str, width: int) -> list[str]:
    """A board line cut to `width` between its items (a hand's cards are two spaces apart), the rest indented
    under its start; an item longer than a line is cut at spaces."""
    if len(text) <= width:
        return [text]
    body = text.lstrip(" ")
    lead = text[: len(text) - len(body)]
    indent = lead + "    "
    items = body.split("  ")
    lines, line = [], lead + items[0]
    for item in items[1:]:
        if len(line) + 2 + len(item) <= width:
            line += "  " + item
        else:
            lines.append(line)
            line = indent + item
    lines.append(line)
    out: list[str] = []
    for one in lines:
        rest = one.lstrip(" ")
        out += textwrap.wrap(rest, width, initial_indent=one[: len(one) - len(rest)], subsequent_indent=indent,
                             break_long_words=False) or [one]
    return out
