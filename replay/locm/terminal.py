"""`locm replay` in a terminal: one key per step, the board redrawn after each.

Keys: ``n``/``space``/right arrow next action, ``p``/left arrow previous action, ``.``/``,`` next/previous
event, ``N``/``]`` next turn, ``P``/``[`` previous turn, ``t`` jump to a turn (type its number, Enter),
``v`` switch the view (full, player 0, player 1), ``q`` quit. The terminal is put in cbreak mode (keys are
read one at a time, without echo) and restored on exit, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import sys
import termios
import tty
from bisect import bisect_left, bisect_right

from locm.replay.game import Replay, ReplayError
from locm.replay.locm.render import escape_controls, fit_screen, show_parts

CLEAR = "\x1b[H\x1b[2J"
HELP = "n/p action  ./, event  N/P turn  t jump  v view  q quit"
VIEWS = (None, 0, 1)


def stops(r: Replay) -> list[int]:
    """The seqs a step by action lands on: every turn's start and the state after each command's effects."""
    turns = r.turns()
    first = turns[0].start_seq if turns else 0
    out = {t.start_seq for t in turns} | {r.last_seq}
    out |= {s - 1 for s in r.action_seqs() if s - 1 >= first}
    return sorted(out)


class Stepper:
    """Where the viewer is (``seq``, ``perspective``) and how each key moves it; no terminal I/O here."""

    def __init__(self, r: Replay, perspective: int | None = None) -> None:
        self.r = r
        self.stops = stops(r)
        self.seq = self.stops[0]
        self.perspective = perspective
        self.message = ""

    def key(self, k: str) -> bool:
        """Apply one key; False means quit."""
        r, s = self.r, self.seq
        self.message = ""
        if k in ("q", "\x03", "\x04"):
            return False
        if k in ("n", " ", "RIGHT"):
            i = bisect_right(self.stops, s)
            self.seq = self.stops[min(i, len(self.stops) - 1)]
        elif k in ("p", "LEFT"):
            i = bisect_left(self.stops, s) - 1
            self.seq = self.stops[max(i, 0)] if i >= 0 else s
        elif k == ".":
            self.seq = min(s + 1, r.last_seq)
        elif k == ",":
            self.seq = max(s - 1, 0)
        elif k in ("N", "]", "P", "["):
            turns = r.turns()
            starts = [t.start_seq for t in turns]
            if k in ("N", "]"):
                i = bisect_right(starts, s)
                self.seq = starts[i] if i < len(starts) else r.last_seq
            else:
                i = bisect_left(starts, s) - 1
                self.seq = starts[i] if i >= 0 else s
        elif k == "v":
            self.perspective = VIEWS[(VIEWS.index(self.perspective) + 1) % len(VIEWS)]
        else:
            self.message = f"unknown key {k!r}: {HELP}"
        return True

    def jump(self, text: str) -> None:
        try:
            self.seq = self.r.turn_start(int(text))
        except (ValueError, ReplayError) as exc:  # a bad number is a message, never an exit
            self.message = f"cannot jump to turn {text!r}: {exc}"

    def screen(self) -> str:
        """The whole screen, fitted to the terminal (`fit_screen`: nothing scrolls off, however long the
        turn), every text from the log escaped."""
        who = "full view" if self.perspective is None else f"player {self.perspective}'s view"
        size = shutil.get_terminal_size()
        board, events, mark = show_parts(self.r, self.seq, self.perspective)
        footer = [f"[{who}]  seq {self.seq}/{self.r.last_seq}   {HELP}"] + ([self.message] if self.message else [])
        lines = fit_screen([escape_controls(x) for x in board], [escape_controls(x) for x in events], mark,
                           footer, size.columns, size.lines)
        return CLEAR + "\r\n".join(lines)


def _read_key(fd: int) -> str:
    ch = os.read(fd, 1).decode("latin-1")
    if ch == "\x1b":
        rest = os.read(fd, 2).decode("latin-1")
        return {"[C": "RIGHT", "[D": "LEFT", "[A": "P", "[B": "N"}.get(rest, "ESC")
    return ch


def interactive(r: Replay, perspective: int | None = None) -> None:
    fd_in = sys.stdin.fileno()
    out = getattr(sys.stdout, "_stream", sys.stdout)  # the terminal itself: the screen's text is escaped above
    st = Stepper(r, perspective)
    saved = termios.tcgetattr(fd_in)
    try:
        tty.setcbreak(fd_in)
        while True:
            out.write(st.screen())
            out.flush()
            k = _read_key(fd_in)
            if k == "t":
                out.write("   turn: ")
                out.flush()
                text = ""
                while (c := _read_key(fd_in)) not in ("\r", "\n"):
                    if c in ("\x7f", "\b"):
                        text = text[:-1]
                    elif c == "\x1b" or c == "ESC":
                        text = None
                        break
                    else:
                        text += c
                    out.write(escape_controls(c))
                    out.flush()
                if text:
                    st.jump(text)
                continue
            if not st.key(k):
                break
    finally:
        termios.tcsetattr(fd_in, termios.TCSADRAIN, saved)
        out.write("\r\n")
        out.flush()
