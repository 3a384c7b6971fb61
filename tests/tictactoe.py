"""Tic-tac-toe, defined outside the package: a third game that adds nothing to the core (tests/test_seam.py
registers it at run time and runs it through the core's play, verify, History and show).

Rules: seat 0 plays X, seat 1 plays O, X first; a line of three wins; a full board without one is a draw
(winner -1); an answer that is not a free cell's number (0-8) loses.
"""

from __future__ import annotations

import random
from typing import Any, Sequence, Union

import msgspec

from locm.engine.seam import Divergence, GameDef, Outcome, content_id, first_difference
from locm.events.base import Event
from locm.events.codec import Codec

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Created(Event, frozen=True, tag="ttt_created"):
    seed: int
    agents: tuple[str, str]


class AnswerReceived(Event, frozen=True, tag="ttt_answer"):
    player: int
    text: str


class Marked(Event, frozen=True, tag="ttt_marked"):
    player: int
    cell: int


class Ended(Event, frozen=True, tag="ttt_ended"):
    winner: int
    reason: str
    turn: int


CODEC: Codec[Any] = Codec(Union[Created, AnswerReceived, Marked, Ended], "a tic-tac-toe event")


class State:
    def __init__(self) -> None:
        self.board = [-1] * 9
        self.current = 0
        self.turn = 0
        self.ended = False
        self.winner = -1

    def copy(self) -> "State":
        s = State()
        s.board, s.current, s.turn, s.ended, s.winner = list(self.board), self.current, self.turn, self.ended, \
            self.winner
        return s


def evolve(s: State, e: Event) -> State:
    if type(e) is Marked:
        s.board[e.cell] = e.player
        s.current = 1 - e.player
        s.turn += 1
    elif type(e) is Ended:
        s.ended, s.winner = True, e.winner
    return s


def fold(events: Sequence[Event]) -> State:
    s = State()
    for e in events:
        evolve(s, e)
    return s


def decide(s: State, seat: int, text: str, seq: int) -> list[Event]:
    """The events of `seat`'s answer `text`: its record, then its mark and maybe the end, or its loss."""
    out: list[Event] = [AnswerReceived(seq=seq, cause=-1, rule="R-ANSWER", player=seat, text=text)]
    cell = int(text) if text.strip().isdigit() else -1
    if not 0 <= cell < 9 or s.board[cell] != -1:
        return [*out, Ended(seq=seq + 1, cause=seq, rule="R-ANSWER", winner=1 - seat, reason="bad answer",
                            turn=s.turn)]
    out.append(Marked(seq=seq + 1, cause=seq, rule="R-MARK", player=seat, cell=cell))
    board = list(s.board)
    board[cell] = seat
    if any(all(board[i] == seat for i in line) for line in LINES):
        out.append(Ended(seq=seq + 2, cause=seq + 1, rule="R-WIN", winner=seat, reason="line", turn=s.turn + 1))
    elif -1 not in board:
        out.append(Ended(seq=seq + 2, cause=seq + 1, rule="R-WIN", winner=-1, reason="draw", turn=s.turn + 1))
    return out


class Match:
    def __init__(self, log: list[Event]) -> None:
        self.log = log
        self.state = fold(log)

    @property
    def ended(self) -> bool:
        return self.state.ended

    @property
    def to_move(self) -> int:
        return -1 if self.state.ended else self.state.current

    def answer(self, seat: int, line: str) -> list[Event]:
        assert seat == self.to_move
        events = decide(self.state, seat, line, len(self.log))
        for e in events:
            evolve(self.state, e)
        self.log.extend(events)
        return events

    def submit(self, cell: int) -> list[Event]:
        return self.answer(self.to_move, str(cell))

    def forfeit(self, seat: int, reason: str, text: str = "") -> list[Event]:
        return self.answer(seat, "")


class Agent:
    def __init__(self, name: str, seed: int) -> None:
        self.name, self.rng = name, random.Random(seed)

    def play_turn(self, match: Match, seat: int) -> None:
        free = legal(match.state)
        match.submit(free[0] if self.name == "first" else self.rng.choice(free))


def legal(s: State) -> list[int]:
    return [] if s.ended else [i for i in range(9) if s.board[i] == -1]


def redecide(events: Sequence[Event]) -> Divergence | None:
    m = Match(list(events[:1]))
    for e in events[1:]:
        if type(e) is AnswerReceived and not m.ended:
            m.answer(e.player, e.text)
    return first_difference(m.log, events, CODEC.to_json)


def view(s: State, seat: int | None) -> dict[str, Any]:
    return {"board": list(s.board), "to_move": -1 if s.ended else s.current, "winner": s.winner}


def board_text(v: dict[str, Any]) -> str:
    marks = ["XO"[c] if c >= 0 else "." for c in v["board"]]
    return "\n".join("".join(marks[r * 3: r * 3 + 3]) for r in range(3))


GAME = GameDef(
    name="tictactoe", title="tic-tac-toe", aliases=("ttt",), seats=(2, 2),
    codec=CODEC, created=Created, ended=Ended, rules_file="",
    rulesets=("standard",), rules=lambda name: name, rules_name=lambda rules: rules,
    variant=lambda text, source: "standard", rules_diff=lambda a, b: [],
    new=lambda rules, seed, agents: Match([Created(seq=0, cause=-1, rule="R-SETUP", seed=seed,
                                                   agents=(agents[0], agents[1]))]),
    from_log=lambda events: Match(list(events)),
    agent_names=("first", "random"), make_agent=lambda name, seed, seat: Agent(name, seed * 2 + seat),
    message=lambda s, seat: " ".join(map(str, s.board)), phase=lambda s: "ended" if s.ended else "play",
    fold=fold, apply=lambda s, events: fold_on(s, events), copy=lambda s: s.copy(), upcast=lambda events: events,
    legal_actions=legal, to_move=lambda s: -1 if s.ended else s.current,
    outcome=lambda events: Outcome(events[-1].winner, events[-1].reason, events[-1].turn),
    view=view, board_text=board_text,
    describe=lambda s, e: f"{type(e).__name__} {e.seq}",
    turn_starts=lambda events: [(e.seq, k, e.player) for k, e in enumerate(x for x in events
                                                                              if type(x) is AnswerReceived)],
    redecide=redecide,
    agents=lambda created: created.agents,
    game_id=lambda created: content_id("tictactoe", "standard", created.seed, CODEC.to_json(created)),
    index=lambda created: {"seed": created.seed},
)


def fold_on(s: State, events: Sequence[Event]) -> State:
    for e in events:
        evolve(s, e)
    return s


__all__ = ["GAME", "CODEC", "Created", "AnswerReceived", "Marked", "Ended"]
_ = msgspec  # the events are msgspec Structs through `Event`
