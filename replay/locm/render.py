"""Text for the replay commands: a board with its turn's events, an audit, the rejected actions, a card's
life, and every turn of a game in order; and `escape_controls`, which every text for a terminal goes through.
"""

from __future__ import annotations

import textwrap

from locm.replay.game import Replay
from locm.common.terminal_text import escape_controls  # noqa: F401  (re-exported for the replay commands)
from locm.engine.locm.views import board_text, card_label, diff_lines


def show_text(r: Replay, seq: int, perspective: int | None = None) -> list[str]:
    """The board just after ``seq`` and the events of its turn, ``>`` marking ``seq``."""
    board, events, _ = show_parts(r, seq, perspective)
    return board + events


def show_parts(r: Replay, seq: int, perspective: int | None = None) -> tuple[list[str], list[str], int]:
    """`show_text` in its two parts, the board and the events (the first line of the events their heading),
    with the index in the events of the line marking ``seq``."""
    board = board_text(r.view(seq, perspective))
    t = r.turn_of(seq)
    if t is not None:
        events = [f"turn {t.number} (P{t.player}), events {t.first_seq}..{t.last_seq}:"]
        seqs = range(t.first_seq, t.last_seq + 1)
    else:
        events = ["events:"]
        seqs = range(max(0, seq - 5), seq + 1)
    mark = 0
    for i in seqs:
        if i == seq:
            mark = len(events)
        events.append(f" {'>' if i == seq else ' '}{i:5d}  {r.describe(i, perspective)}")
    return board, events, mark


def fit_screen(board: list[str], events: list[str], mark: int, footer: list[str], width: int,
               height: int) -> list[str]:
    """A screen of at most ``height - 1`` lines of at most ``width`` characters (so that nothing scrolls):
    the board first (wrapped between cards), the footer last, and between them as many events as fit, the
    marked one among them; what is left out is counted."""
    def cut(line: str) -> str:
        return line if len(line) <= width else line[: max(width - 1, 0)] + "…"

    top = [cut(part) for line in board for part in wrap(line, width)]
    bottom = [cut(line) for line in footer]
    room = height - 1 - len(top) - len(bottom)
    if room < 2:  # a very small terminal: the board as far as it goes, then the footer
        return top[: max(height - 1 - len(bottom), 0)] + bottom
    head, body = events[0], events[1:]
    mark = max(mark - 1, 0)
    shown = room - 1
    if len(body) > shown:
        shown -= 1  # a line saying what is left out
        start = min(max(mark - shown // 2, 0), len(body) - shown)
        more = f"   ({start} earlier, {len(body) - start - shown} later events of this turn)"
        body = body[start:start + shown] + [more]
    return top + [cut(head)] + [cut(line) for line in body] + bottom


def audit_text(x: dict) -> list[str]:
    e = x["event"]
    lines = [f"event {e['seq']}: {e['type']}  [{e['rule']}]", f"  {e['description']}"]
    lines += [f"  blocked by: {card_label(c)} (Guard, lane {c['lane']})" for c in x.get("blocking", ())]
    lines.append(f"rule {x['rule']['section']}")
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
        lines += [f"       blocked by: {card_label(c)} (Guard, lane {c['lane']})" for c in x.get("blocking", ())]
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
