"""`locm replay` in a real pseudo-terminal: keys step the game and the board is redrawn."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from locm.events.locm.codec import to_jsonl
from locm.games.locm.play import play_one
from locm.replay import open_game
from locm.replay.locm.terminal import CLEAR, Stepper, stops

pty = pytest.importorskip("pty")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("term") / "g.jsonl"
    path.write_bytes(to_jsonl(play_one("1.2", 7, ("greedy", "random")).log))
    return path


class Term:
    def __init__(self, args):
        self.master, slave = os.openpty()
        os.set_blocking(self.master, True)
        env = dict(os.environ, COLUMNS="160", LINES="60")
        self.proc = subprocess.Popen([sys.executable, "-m", "locm.cli.main", *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=ROOT, env=env, close_fds=True)
        os.close(slave)
        self.out = ""

    def screen_with(self, text, timeout=20.0) -> str:
        """Read until the latest screen (after the last clear) contains ``text``; return that screen."""
        end = time.monotonic() + timeout
        while True:
            screen = self.out.rsplit(CLEAR, 1)[-1]
            if text in screen:
                return screen
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {text!r} on the screen:\n{screen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the program ended; no {text!r} on the screen:\n{screen[-2000:]}")
                self.out += chunk.decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


def test_keys_step_turn_jump_switch_view_and_quit(log_path):
    r = open_game(log_path)
    marks = stops(r)
    term = Term(["replay", str(log_path)])
    try:
        first = term.screen_with(f"seq {marks[0]}/{r.last_seq}")
        assert "[full view]" in first and "lane 0:" in first and "health" in first
        term.send("n")
        term.screen_with(f"seq {marks[1]}/{r.last_seq}")
        term.send("p")
        term.screen_with(f"seq {marks[0]}/{r.last_seq}")
        term.send("N")
        term.screen_with(f"seq {r.turn_start(1)}/{r.last_seq}")
        term.send("t12\r")
        screen = term.screen_with(f"seq {r.turn_start(12)}/{r.last_seq}")
        assert "turn 12" in screen
        term.send("P")
        term.screen_with(f"seq {r.turn_start(11)}/{r.last_seq}")
        term.send("v")
        screen = term.screen_with("[player 0's view]")
        assert "hidden cards" in screen
        term.send("t999\r")
        term.screen_with("cannot jump to turn '999'")
        term.send("q")
        assert term.proc.wait(10) == 0
    finally:
        term.close()


def test_stepper_stays_inside_the_game(log_path):
    r = open_game(log_path)
    st = Stepper(r)
    for _ in range(len(r) + 5):
        st.key("n")
    assert st.seq == r.last_seq
    for _ in range(len(r) + 5):
        st.key("p")
    assert st.seq == stops(r)[0]
    st.key(",")
    assert st.seq == stops(r)[0] - 1
    assert st.key("x") and "unknown key" in st.message
    assert not st.key("q")


def test_long_board_lines_wrap_between_cards_to_the_terminal_width():
    from locm.replay.locm.render import wrap

    hand = "    hand: " + "  ".join(f"#{i} b{100 + i} (3) itemRed -2/-2 ------" for i in range(8))
    lines = wrap(hand, 80)
    assert len(lines) > 1 and all(len(x) <= 80 for x in lines)
    assert lines[0].startswith("    hand: #0 ") and all(x.startswith("        #") for x in lines[1:])
    assert "  ".join(x.strip() for x in lines) == hand.strip()  # nothing lost, cut only between cards
    assert wrap("    lane 0: -", 80) == ["    lane 0: -"]
