"""Nim as locm's core sees it: its `GameDef`, which the entry point ``nim = outside_nim.definition:game`` gives."""

from __future__ import annotations

import random
from typing import Any, Sequence

from locm.engine.seam import GameDef, Outcome, content_id
from locm.events.base import Event

from outside_nim.rules import (
    CODEC, RULESETS, AnswerReceived, Forfeited, Match, NimCreated, NimEnded, NimRules, Pass, Passed, State, Take,
    Took, create, evolve, fold, legal, message, parse_variant, redecide, rules_by_name,
)


class Agent:
    """``random``: any legal move (a pass too); ``greedy``: a move to a nim-sum of 0 when there is one (the winning move of
    two-player normal play), else one stone from the largest heap; ``first``: the first legal move."""

    def __init__(self, name: str, seed: int) -> None:
        self.name, self.rng = name, random.Random(seed)

    def play_turn(self, match: Match, seat: int) -> None:
        moves = legal(match.state)
        if self.name == "random":  # a pass now and then, when the seat holds its token
            match.submit(self.rng.choice(moves))
            return
        match.submit(self.choose(match.state, [m for m in moves if type(m) is Take]))

    def choose(self, s: State, moves: list[Take]) -> Take:
        if self.name == "first":
            return moves[0]
        total = 0
        for h in s.heaps:
            total ^= h
        for m in moves:
            if total ^ s.heaps[m.heap] == s.heaps[m.heap] - m.count:
                return m
        big = max(range(len(s.heaps)), key=lambda h: s.heaps[h])
        return Take(big, 1)


def _view(s: State, seat: int | None) -> dict[str, Any]:
    """What `seat` sees: the heaps, whose turn, and its own pass token (the others' are hidden); None: all."""
    tokens = [t if seat is None or i == seat else None for i, t in enumerate(s.tokens)]
    return {"heaps": list(s.heaps), "players": s.players, "to_move": -1 if s.phase == "ended" else s.current,
            "turn": s.turn, "tokens": tokens, "winner": s.winner, "reason": s.reason}


def _board_text(v: dict[str, Any]) -> str:
    lines = [f"heap {i}: {'|' * n} ({n})" for i, n in enumerate(v["heaps"])]
    tokens = " ".join(f"P{i}:{'?' if t is None else ('pass' if t else '-')}" for i, t in enumerate(v["tokens"]))
    head = f"turn {v['turn']}, " + (f"P{v['to_move']} to move" if v["to_move"] >= 0 else
                                     f"over: P{v['winner']} won ({v['reason']})")
    return "\n".join([head, *lines, f"tokens {tokens}"])


def _describe(s: State, e: Event) -> str:
    match e:
        case NimCreated():
            return f"nim for {len(e.agents)}: heaps {list(e.heaps)}, {', '.join(e.agents)}"
        case AnswerReceived():
            return f"P{e.player} answered {e.text!r}"
        case Took():
            return f"P{e.player} took {e.count} from heap {e.heap}"
        case Passed():
            return f"P{e.player} passed (token spent)"
        case Forfeited():
            return f"P{e.player} forfeited: {e.reason}"
        case NimEnded():
            return f"P{e.winner} wins ({e.reason}) after {e.turn} turns"
        case _:
            raise TypeError(f"not a nim event: {e!r}")


def _outcome(events: Sequence[Event]) -> Outcome:
    end = events[-1]
    assert type(end) is NimEnded
    return Outcome(end.winner, end.reason, end.turn)


def _instance_events(events: Sequence[Event], heap: int) -> list[int]:
    """A heap's life: the events that took from heap `heap`."""
    return [e.seq for e in events if type(e) is Took and e.heap == heap]


def _rejections(events: Sequence[Event]) -> list[int]:
    return [e.seq for e in events if type(e) is NimEnded and e.reason == "bad answer"]


def _rules_diff(a: NimRules, b: NimRules) -> list[tuple[str, str, Any, Any]]:
    rule = {"heaps": "R-SETUP", "max_take": "R-TAKE", "misere": "R-WIN"}
    return [(f, rule[f], getattr(a, f), getattr(b, f)) for f in rule if getattr(a, f) != getattr(b, f)]


def _apply(s: State, events: Sequence[Event]) -> State:
    for e in events:
        evolve(s, e)
    return s


def _created(e: Event) -> NimCreated:
    assert type(e) is NimCreated
    return e


GAME = GameDef(
    name="nim", title="Nim", aliases=("outside-nim",), seats=(2, 3), bots="lines",
    codec=CODEC, created=NimCreated, ended=NimEnded, rules_file="",
    rulesets=tuple(RULESETS), rules=rules_by_name, rules_name=lambda r: r.name, variant=parse_variant,
    rules_diff=_rules_diff,
    new=lambda rules, seed, agents: Match([create(rules, seed, agents)]),
    new_versioned=lambda rules, seed, agents, bots: Match([create(rules, seed, agents, bots)]),
    from_log=lambda events: Match(list(events)),
    agent_names=("greedy", "random", "first"),
    make_agent=lambda name, seed, seat: Agent(name, seed * 7 + seat),
    message=message, phase=lambda s: s.phase,
    fold=fold, apply=_apply,
    copy=lambda s: s.copy(), upcast=lambda events: events,
    legal_actions=legal, to_move=lambda s: -1 if s.phase == "ended" else s.current,
    outcome=_outcome, view=_view, board_text=_board_text, describe=_describe,
    turn_starts=lambda events: [(e.seq, k, e.player) for k, e in
                                enumerate(x for x in events if type(x) in (AnswerReceived, Forfeited))],
    redecide=redecide,
    agents=lambda created: _created(created).agents,
    game_id=lambda created: content_id("nim", _created(created).rules.name, _created(created).seed,
                                       CODEC.to_json(created)),
    index=lambda created: {"ruleset": _created(created).rules.name, "seed": _created(created).seed,
                           "heaps": "-".join(map(str, _created(created).heaps))},
    listed=("heaps",),
    rejections=_rejections, instance_events=_instance_events,
    rl_encoder="outside_nim.rl:encoder",
)


def game() -> GameDef:
    """The game's definition: what the entry point names (a function returning it; naming `GAME` does too)."""
    return GAME


__all__ = ["GAME", "game", "Agent", "Pass"]
