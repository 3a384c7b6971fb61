"""What the core does with any registered game (`engine.seam.GameDef`), knowing none: play a match between
built-in agents, verify a log, show a position.

    >>> from locm.engine import registry, core
    >>> mcg = registry.get("mcg")
    >>> match = core.play(mcg, "standard", 7, ("greedy", "random"))
    >>> core.verify(mcg, match.log) is None                 # well formed, and what the rules give
    True
"""

from __future__ import annotations

from typing import Any, Sequence

from locm.engine.errors import LocmError
from locm.engine.logcheck import check_log
from locm.engine.seam import Divergence, GameDef, Match, Outcome
from locm.events.base import Event


class CoreError(LocmError):
    """A request the game cannot take (seats out of its range, an agent it does not have)."""


def check_seats(game: GameDef, agents: Sequence[str]) -> None:
    lo, hi = game.seats
    if not lo <= len(agents) <= hi:
        span = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise CoreError(f"{game.title} is played by {span} players, not {len(agents)}")
    for name in agents:
        if name not in game.agent_names:
            raise CoreError(f"{game.title} has no agent {name!r}: expected one of {', '.join(game.agent_names)}")


def play(game: GameDef, rules: Any, seed: int, agents: Sequence[str], max_steps: int = 1_000_000,
         behaviour: int | None = None) -> Match:
    """A match of `game` between built-in agents (by name, one per seat), played to its end. ``rules`` is a
    rules value or a built-in ruleset's name; ``behaviour`` the behaviour of the rules that decides it (None:
    the game's current one, `GameDef.behaviour`; an earlier one is kept selectable). The same arguments give
    the same log (byte for byte)."""
    check_seats(game, agents)
    if isinstance(rules, str):
        rules = game.rules(rules)
    if behaviour is None or behaviour == game.behaviour:
        match = game.new(rules, seed, tuple(agents))
    elif 1 <= behaviour < game.behaviour:
        match = game.new(rules, seed, tuple(agents), behaviour=behaviour)  # type: ignore[call-arg]
    else:
        known = "1" if game.behaviour == 1 else f"1..{game.behaviour}"
        raise CoreError(f"{game.title}: no behaviour {behaviour}: this engine knows {known}")
    players = [game.make_agent(name, seed, seat) for seat, name in enumerate(agents)]
    for _ in range(max_steps):
        if match.ended:
            return match
        seat = match.to_move
        players[seat].play_turn(match, seat)
    raise CoreError(f"{game.title}: the match did not end in {max_steps} decisions")


def verify(game: GameDef, events: Sequence[Event]) -> Divergence | None:
    """None when `events` is a complete, well-formed log of `game` (`engine.logcheck`) that re-deciding its
    recorded inputs gives exactly, under the behaviour of the rules its created event names; else where it
    first departs. A malformed log raises `InvalidLogError` (`UnknownBehaviourError` for a behaviour this
    engine does not know)."""
    events = game.upcast(list(events))
    check_log(game, events)
    return game.redecide(events)


def outcome(game: GameDef, events: Sequence[Event]) -> Outcome:
    """The outcome of a complete log (checked first)."""
    check_log(game, events)
    return game.outcome(events)


def board(game: GameDef, events: Sequence[Event], seat: int | None = None) -> str:
    """The position after the last event, as text, as `seat` sees it (None: everything)."""
    return game.board_text(game.view(game.fold(game.upcast(list(events))), seat))


__all__ = ["CoreError", "check_seats", "play", "verify", "outcome", "board"]
