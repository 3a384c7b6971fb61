"""A person playing one seat at a terminal (`Person`, the agent ``person`` of `locm play --from/--position`), for
any game: shown what the seat sees (`GameDef.view`, its `board_text`) and the legal actions, numbered, and
answering with a number, or with a line of the game's own text protocol where the phase lists none (LOCM's
construct phase: ``CHOOSE id`` thirty times, separated by ``;``).

A line that the game's protocol refuses is recorded and loses, as a bot's would (the game's rules say so);
a number out of range is asked again. The end of input (the person left) forfeits the seat."""

from __future__ import annotations

import sys
from typing import Any, Callable

PERSON = "person"
"""The agent name of a person at the terminal."""


def action_text(action: Any) -> str:
    """An action as a person reads it: its text in the game's protocol where it has one (LOCM's
    ``SUMMON 7 0``), else its value."""
    text = getattr(action, "text", None)
    return text() if callable(text) else str(action)


def terminal_line(prompt: str) -> str:
    """A line from standard input after ``prompt`` on standard output (`EOFError` at the end of input)."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


class Person:
    """One seat played by a person: ``read(prompt)`` gives their line (raises `EOFError` when they left),
    ``write(line)`` shows one."""

    name = PERSON

    def __init__(self, game, read: Callable[[str], str] = terminal_line,
                 write: Callable[[str], None] = print) -> None:
        self.game, self.read, self.write = game, read, write

    def play_turn(self, match, seat: int) -> None:
        g = self.game
        self.write(g.board_text(g.view(match.state, seat)))
        actions = list(g.legal_actions(match.state))
        for k, a in enumerate(actions):
            self.write(f"  {k}: {action_text(a)}")
        ask = (f"P{seat} ({g.title}), a number 0..{len(actions) - 1}> " if actions
               else f"P{seat} ({g.title}), your answer in the game's protocol> ")
        while True:
            try:
                line = self.read(ask).strip()
            except EOFError:
                match.forfeit(seat, "the person left (end of input)")
                return
            if actions and line.isdigit() and int(line) < len(actions):
                match.submit(actions[int(line)])
                return
            if not actions and line:
                match.answer(seat, line)
                return
            self.write(f"expected a number 0..{len(actions) - 1}" if actions else "expected an answer line")


__all__ = ["PERSON", "Person", "action_text", "terminal_line"]
