"""Nim for 2 or 3 players, event-sourced the way locm's games are: tagged events, `decide` and `evolve`.

R-SETUP   the game's created event records its rules, seed, agents, the heaps and each seat's pass token
R-TOKEN   each seat's token is drawn from the seed (recorded, never drawn again on replay); a seat holding one
          may answer PASS once; only that seat sees it
R-ANSWER  every answer is recorded as received, then judged
R-TAKE    an answer ``HEAP COUNT`` takes COUNT stones (1..max_take, 0: any) from a non-empty heap
R-PASS    an answer ``PASS`` by a seat holding its token spends it; the turn goes on to the next seat
R-WIN     whoever takes the last stone wins (misere: loses, and the seat before the taker wins)
R-FORFEIT a refused answer, a timeout or a crash loses: the next seat wins
"""

from __future__ import annotations

import random
import tomllib
from typing import Any, Sequence, Union

import msgspec

from locm.engine.errors import LocmError
from locm.events.base import Event
from locm.events.codec import Codec


class NimRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    heaps: tuple[int, ...] = ()
    """The heaps; empty: three heaps of 1..7 stones drawn from the seed."""
    max_take: int = 0
    misere: bool = False


RULESETS = {"standard": NimRules("standard", (3, 4, 5)), "random": NimRules("random"),
            "misere": NimRules("misere", (3, 4, 5), misere=True)}


class NimCreated(Event, frozen=True, tag="nim_created"):
    rules: NimRules
    seed: int
    agents: tuple[str, ...]
    heaps: tuple[int, ...]
    tokens: tuple[bool, ...]
    bots: tuple[str, ...] = ()


class AnswerReceived(Event, frozen=True, tag="nim_answer"):
    player: int
    text: str


class Took(Event, frozen=True, tag="nim_took"):
    player: int
    heap: int
    count: int


class Passed(Event, frozen=True, tag="nim_passed"):
    player: int


class Forfeited(Event, frozen=True, tag="nim_forfeited"):
    player: int
    reason: str
    text: str = ""


class NimEnded(Event, frozen=True, tag="nim_ended"):
    winner: int
    reason: str
    turn: int


NimEvent = Union[NimCreated, AnswerReceived, Took, Passed, Forfeited, NimEnded]
CODEC: Codec[Any] = Codec(NimEvent, "a nim event")


class Take(msgspec.Struct, frozen=True):
    heap: int
    count: int


class Pass(msgspec.Struct, frozen=True):
    pass


class State:
    """A position: heaps, whose turn, tokens left; ``phase`` is "play" or "ended"."""

    def __init__(self, created: NimCreated) -> None:
        self.rules = created.rules
        self.players = len(created.agents)
        self.heaps = list(created.heaps)
        self.tokens = list(created.tokens)
        self.current = 0
        self.turn = 0
        self.phase = "play"
        self.winner = -1
        self.reason = ""

    def copy(self) -> "State":
        s = object.__new__(State)
        s.__dict__.update(self.__dict__)
        s.heaps, s.tokens = list(self.heaps), list(self.tokens)
        return s


def rules_by_name(name: str) -> NimRules:
    if name not in RULESETS:
        raise LocmError(f"unknown nim ruleset {name!r}: expected one of {', '.join(RULESETS)}")
    return RULESETS[name]


def parse_variant(text: str, source: str) -> NimRules:
    """A variant file (TOML: ``heaps``, ``max_take``, ``misere``), each value checked: one line naming it."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LocmError(f"{source}: not TOML: {exc}") from None
    unknown = sorted(set(doc) - {"name", "heaps", "max_take", "misere"})
    if unknown:
        raise LocmError(f"{source}: {unknown[0]}: not a nim rule (expected name, heaps, max_take, misere)")
    heaps = doc.get("heaps", [3, 4, 5])
    if not (isinstance(heaps, list) and 1 <= len(heaps) <= 8
            and all(type(h) is int and 1 <= h <= 99 for h in heaps)):
        raise LocmError(f"{source}: heaps: expected 1 to 8 integers in 1..99, got {heaps!r}")
    take = doc.get("max_take", 0)
    if type(take) is not int or not 0 <= take <= 99:
        raise LocmError(f"{source}: max_take: expected an integer in 0..99, got {take!r}")
    misere = doc.get("misere", False)
    if type(misere) is not bool:
        raise LocmError(f"{source}: misere: expected true or false, got {misere!r}")
    name = doc.get("name", "variant")
    if not isinstance(name, str) or not name.isidentifier():
        raise LocmError(f"{source}: name: expected a word, got {name!r}")
    return NimRules(name, tuple(heaps), take, misere)


def create(rules: NimRules, seed: int, agents: Sequence[str], bots: Sequence[str] = ()) -> NimCreated:
    """The created event (R-SETUP, R-TOKEN): the seed's draws recorded in it."""
    if not 2 <= len(agents) <= 3:
        raise LocmError(f"nim is played by 2 to 3 players, not {len(agents)}")
    rng = random.Random(seed)
    heaps = rules.heaps or tuple(rng.randint(1, 7) for _ in range(3))
    tokens = tuple(rng.random() < 0.5 for _ in agents)
    return NimCreated(seq=0, cause=-1, rule="R-SETUP", rules=rules, seed=seed, agents=tuple(agents), heaps=heaps,
                      tokens=tokens, bots=tuple(bots) if any(bots) else ())


def legal(s: State) -> list[Take | Pass]:
    if s.phase == "ended":
        return []
    limit = s.rules.max_take or 99
    out: list[Take | Pass] = [Take(h, c) for h, n in enumerate(s.heaps) for c in range(1, min(n, limit) + 1)]
    return [*out, Pass()] if s.tokens[s.current] else out


def evolve(s: State, e: Event) -> State:
    match e:
        case Took(player=p, heap=h, count=c):
            s.heaps[h] -= c
            s.current, s.turn = (p + 1) % s.players, s.turn + 1
        case Passed(player=p):
            s.tokens[p] = False
            s.current, s.turn = (p + 1) % s.players, s.turn + 1
        case NimEnded(winner=w, reason=r):
            s.phase, s.winner, s.reason = "ended", w, r
        case NimCreated() | AnswerReceived() | Forfeited():
            pass
        case _:
            raise TypeError(f"not a nim event: {e!r}")
    return s


def fold(events: Sequence[Event]) -> State:
    if not events or type(events[0]) is not NimCreated:
        from locm.engine.errors import InvalidLogError

        raise InvalidLogError("a nim log starts with nim_created")
    s = State(events[0])
    for e in events[1:]:
        evolve(s, e)
    return s


def _parse(s: State, text: str) -> Take | Pass | None:
    words = text.split()
    if words == ["PASS"]:
        return Pass() if s.tokens[s.current] else None
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    take = Take(int(words[0]), int(words[1]))
    return take if take in legal(s) else None


def decide(s: State, seat: int, text: str, seq: int) -> list[Event]:
    """The events of `seat`'s answer `text` at `seq` (R-ANSWER, R-TAKE, R-PASS, R-WIN, R-FORFEIT)."""
    out: list[Event] = [AnswerReceived(seq=seq, cause=-1, rule="R-ANSWER", player=seat, text=text)]
    command = _parse(s, text)
    n = s.players
    if command is None:
        return [*out, NimEnded(seq=seq + 1, cause=seq, rule="R-FORFEIT", winner=(seat + 1) % n,
                               reason="bad answer", turn=s.turn)]
    if type(command) is Pass:
        return [*out, Passed(seq=seq + 1, cause=seq, rule="R-PASS", player=seat)]
    out.append(Took(seq=seq + 1, cause=seq, rule="R-TAKE", player=seat, heap=command.heap, count=command.count))
    if sum(s.heaps) == command.count:
        winner = (seat - 1) % n if s.rules.misere else seat
        out.append(NimEnded(seq=seq + 2, cause=seq + 1, rule="R-WIN", winner=winner, reason="last stone",
                            turn=s.turn + 1))
    return out


def text_of(command: Take | Pass) -> str:
    return "PASS" if type(command) is Pass else f"{command.heap} {command.count}"


class Match:
    """A live game (the core's `Match`, and what locm's bot runner asks of one: ``rules``, ``state.phase``,
    ``input_for``)."""

    def __init__(self, log: list[Event]) -> None:
        self.log = log
        self.state = fold(log)

    @property
    def rules(self) -> NimRules:
        return self.state.rules

    @property
    def ended(self) -> bool:
        return self.state.phase == "ended"

    @property
    def to_move(self) -> int:
        return -1 if self.ended else self.state.current

    def input_for(self, seat: int) -> str:
        return message(self.state, seat)

    def _extend(self, events: list[Event]) -> list[Event]:
        for e in events:
            evolve(self.state, e)
        self.log.extend(events)
        return events

    def answer(self, seat: int, line: str) -> list[Event]:
        if seat != self.to_move:
            raise LocmError(f"nim: seat {seat} answered out of turn (seat {self.to_move} is to move)")
        return self._extend(decide(self.state, seat, line, len(self.log)))

    def submit(self, command: Take | Pass) -> list[Event]:
        return self.answer(self.to_move, text_of(command))

    def forfeit(self, seat: int, reason: str, text: str = "") -> list[Event]:
        seq = len(self.log)
        return self._extend([Forfeited(seq=seq, cause=-1, rule="R-FORFEIT", player=seat, reason=reason, text=text),
                             NimEnded(seq=seq + 1, cause=seq, rule="R-FORFEIT", winner=(seat + 1) % self.state.players,
                                      reason=reason, turn=self.state.turn)])


def message(s: State, seat: int) -> str:
    """What a bot is sent: ``SEAT PLAYERS PASS H0 H1 ...`` and a newline."""
    return " ".join(map(str, (seat, s.players, int(s.tokens[seat]), *s.heaps))) + "\n"


def redecide(events: Sequence[Event]) -> Any:
    """The first event where the log is not what its recorded inputs give (None: it is)."""
    from locm.engine.seam import first_difference

    created = events[0]
    assert type(created) is NimCreated
    m = Match([create(created.rules, created.seed, created.agents, created.bots)])
    for e in events[1:]:
        if m.ended:
            break
        if type(e) is AnswerReceived:
            m.answer(e.player, e.text)
        elif type(e) is Forfeited:
            m.forfeit(e.player, e.reason, e.text)
    return first_difference(m.log, events, CODEC.to_json)
