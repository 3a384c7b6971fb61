"""A game's wing of the replay tools: `Wing`, what a `Replay` asks a game beyond its definition.

One `Replay` serves every game; what differs is a `Wing` (python-chess's variants: a subclass overriding named
hooks, looked up once). A game's definition names its wing (`GameDef.replay_wing`, ``module:NAME``, e.g.
`replay.locm.wing`); a game without one gets this class as it is, which reads everything from the definition:

- reading: ``file_kind`` (a file of the game's other than its event log, by its first line: LOCM's official
  referee logs, my-card-game's account logs) and ``open_file`` (a `Replay` of it, or a one-line refusal);
- trust: ``departures`` (the events the rules would not produce: the core's `verify`, its first one),
  ``cut`` (how much of an event's JSON the warning quotes);
- turns and views: ``turns`` (from ``turn_starts``), ``turn_start``, ``view``, ``describe``, ``board``;
- questions: ``explain`` (the causes and what an event set off, and the game's own ``why``), ``rejected``,
  ``card_life`` (the definition's ``rejections``, ``instance_events``), ``diff``;
- the commands' output: ``show`` (`locm show`, text or JSON), ``audit_lines``, ``all_turns`` (`locm replay
  --all`), ``interactive`` (whether `locm replay` steps in a terminal), ``page_note`` (`locm html`);
- the viewer (`replay.html`, one shell for every game): ``viewer_board`` (the module drawing the game's board),
  ``words`` (an event in the list),
  ``private`` (an event's words that show a seat's hidden information, and what the others read),
  ``stops`` (a step by action) and ``result`` (the line under the title).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from locm.engine import core
from locm.engine.errors import LocmError
from locm.engine.logcheck import causes, consequences
from locm.engine.seam import Divergence, GameDef
from locm.events.base import tag_of

if TYPE_CHECKING:
    from locm.replay.game import Replay


class ReplayError(LocmError):
    """A replay question that cannot be answered: a seq, turn or card the game does not have."""


class ReplaySourceError(LocmError):
    """A source that is not a game: an unreadable or malformed file, an unknown or ambiguous game id."""


@dataclass
class Turn:
    """One turn: ``first_seq`` is the event that starts it, ``start_seq`` the last event of its start (LOCM: its
    draws included), ``last_seq`` its last event. ``commands`` are the player's recorded answers (LOCM); ``events``
    every event of the turn (LOCM)."""

    number: int
    player: int
    first_seq: int
    start_seq: int
    last_seq: int
    commands: list = field(default_factory=list)
    events: list = field(default_factory=list)


class Wing:
    interactive = False
    """Whether `locm replay` in a terminal steps through the game key by key (`replay.locm.terminal`: LOCM's)."""
    cut: int | None = 200
    """The characters of an event's JSON the warning quotes (a created event holds a whole card list or map)."""
    viewer_board: str = ""
    """The module that draws the game's board in the viewer shell (`replay.html`): its ``viewer_data(replay)``
    (the page's data for it) and ``BOARD_JS`` (``drawBoard(table)``), optionally ``BOARD_CSS``; "" for the
    definition's ``html_board``, else the text board (`replay.textboard`)."""

    # --- reading ---------------------------------------------------------------------------------------------

    def file_kind(self, first: bytes) -> str | None:
        """The kind of a file of this game's other than its event log, from its first line (None: not one)."""
        return None

    def open_file(self, kind: str, path: str, data: bytes, index: int | None) -> Replay:
        """A `Replay` of a file of a kind `file_kind` gave (or a `ReplaySourceError` saying what it is)."""
        raise ReplaySourceError(f"{path}: a {kind} file, not a game")

    def refusal(self, kind: str, path: str) -> str:
        """The one line saying a file of `kind` is not a game ("" when it is one `open_file` opens)."""
        return ""

    def unreadable(self, game: GameDef, source: str, exc: object) -> str:
        """The one line for a log that does not fold."""
        return f"{source or 'log'}: not a {game.title} game: {exc}"

    # --- trust -----------------------------------------------------------------------------------------------

    def departures(self, game: GameDef, events: list[Any]) -> list[Divergence]:
        """The events of a log the rules would not produce (`engine.core.verify`: the first one)."""
        found = core.verify(game, events)
        return [] if found is None else [found]

    # --- turns and views -------------------------------------------------------------------------------------

    def turns(self, r: Replay) -> list[Turn]:
        starts = r.game.turn_starts(r.events)
        ends = [seq - 1 for seq, _, _ in starts[1:]] + [r.last_seq]
        return [Turn(number, seat, seq, seq, end) for (seq, number, seat), end in zip(starts, ends)]

    def turn_start(self, r: Replay, number: int) -> int:
        for seq, turn, _ in r.game.turn_starts(r.events):
            if turn == number:
                return seq
        raise ReplayError(f"the game has no turn {number}")

    def action_seqs(self, r: Replay) -> list[int]:
        return [e.seq for t in r.turns() for e in t.commands]

    def view(self, r: Replay, seq: int, seat: int | None) -> dict[str, Any]:
        return r.game.view(r.state_at(seq), seat)

    def describe(self, r: Replay, seq: int, seat: int | None) -> str:
        return r.game.describe(r.final, r.events[seq])

    def board(self, r: Replay, seq: int, seat: int | None) -> str:
        return r.game.board_text(r.view(seq, seat))

    # --- questions -------------------------------------------------------------------------------------------

    def brief(self, r: Replay, seq: int) -> dict[str, Any]:
        e = r.events[seq]
        return {"seq": seq, "type": tag_of(type(e)), "rule": e.rule, "description": r.describe(seq)}

    def explain(self, r: Replay, seq: int) -> dict[str, Any]:
        """Event `seq`: its type, rule, words, the chain of its causes back to a root, and what it set off
        (``consequences``: every event whose causes pass through it, each with its depth: a chain of triggers),
        and the game's own answer (``why``)."""
        return {**self.brief(r, seq), "causes": [self.brief(r, c.seq) for c in causes(r.events, seq)],
                "consequences": [{**self.brief(r, e.seq), "depth": d} for d, e in consequences(r.events, seq)],
                "why": self.why(r, seq)}

    def why(self, r: Replay, seq: int) -> list[str]:
        """The lines that answer the question event `seq` raises (a shot that missed, a penalty); none here."""
        return []

    def rejected(self, r: Replay) -> list[dict[str, Any]]:
        """Every refused input (the definition's ``rejections``), with its rule, words and the input it refused
        (its nearest cause)."""
        if r.game.rejections is None:
            raise ReplayError(f"{r.game.title} does not list its refused inputs")
        out = []
        for seq in r.game.rejections(r.events):
            c = r.events[seq].cause
            out.append({**self.brief(r, seq), "input": self.brief(r, c) if 0 <= c < seq else None})
        return out

    def card_life(self, r: Replay, cid: int) -> list[dict[str, Any]]:
        """Every event about card instance `cid` (the definition's ``instance_events``), each with its cause."""
        if r.game.instance_events is None:
            raise ReplayError(f"{r.game.title} does not follow card instances")
        seqs = r.game.instance_events(r.events, cid)
        if not seqs:
            raise ReplayError(f"no card instance {cid} in this game")
        out = []
        for seq in seqs:
            c = r.events[seq].cause
            out.append({**self.brief(r, seq), "cause": self.brief(r, c) if 0 <= c < seq else None})
        return out

    def diff(self, r: Replay, seq_a: int, seq_b: int) -> dict[str, Any]:
        raise ReplayError(f"{r.game.title} does not say what changed between two states")

    # --- the commands' output --------------------------------------------------------------------------------

    def event_line(self, r: Replay, seq: int) -> str:
        return f"{seq:>5}  {r.events[seq].rule:<14} {r.describe(seq)}"

    def show(self, r: Replay, seq: int, seat: int | None, as_json: bool) -> list[str] | dict[str, Any]:
        """`locm show`: the board after `seq` (as `seat` saw it) and the events of its turn, as lines or one
        JSON object."""
        turn = [t for t in r.game.turn_starts(r.events) if t[0] <= seq]
        first = turn[-1][0] if turn else max(0, seq - 5)
        if as_json:
            return {**r.view(seq, seat), "events": [r.explain(i) | {"causes": None} for i in range(first, seq + 1)],
                    **({"warning": r.warning} if r.warning else {})}
        return ([f"{r.game.title}: seq {seq} of {r.last_seq}" + (f" (as P{seat})" if seat is not None else ""),
                 r.board(seq, seat), "events:"] + [r.event_line(i) for i in range(first, seq + 1)])

    def audit_lines(self, r: Replay, kind: str, out: Any, arg: int | None) -> list[str]:
        """`locm audit`'s text of an answer: ``kind`` ``seq`` (`explain`), ``rejected`` or ``card`` (`card_life`
        of card `arg`)."""
        line = lambda o: f"seq {o['seq']} {o['type']} ({o['rule']}): {o['description']}"  # noqa: E731
        if kind == "seq":
            lines = [line(out)] + [f"  caused by {line(c)}" for c in out["causes"]]
            lines += [f"  why: {w}" for w in out.get("why", [])]  # the game's own answer (`why`)
            if out["consequences"]:
                lines.append("  what it set off (the chain of triggers):")
                lines += ["    " + "  " * (c["depth"] - 1) + "-> " + line(c) for c in out["consequences"]]
            return lines
        if kind == "rejected":
            return [f"{len(out)} refused input(s)"] + [
                line(o) + (f"\n  the input: {line(o['input'])}" if o["input"] else "") for o in out]
        return [f"card instance {arg}: {len(out)} events"] + [
            line(o) + (f"  <- {line(o['cause'])}" if o["cause"] else "") for o in out]

    def all_turns(self, r: Replay, seat: int | None) -> list[str]:
        """`locm replay --all`: every turn's events, then its board."""
        starts = [t[0] for t in r.game.turn_starts(r.events)] + [r.last_seq + 1]
        bounds = [0, *starts] if starts[0] > 0 else starts
        lines = []
        for a, b in zip(bounds, bounds[1:]):
            lines += [r.event_line(i) for i in range(a, b)]
            lines += [r.board(b - 1, seat), ""]
        return lines

    def step(self, r: Replay, seat: int | None) -> None:
        """`locm replay` in a terminal, key by key (a wing whose ``interactive`` is true)."""
        raise ReplayError(f"{r.game.title} has no terminal stepper: use --all")

    def words(self, r: Replay, seq: int) -> str:
        """Event `seq` in the viewer's event list (its words, `describe`, by default)."""
        return r.describe(seq)

    def private(self, r: Replay, seq: int) -> tuple[int, str] | None:
        """When event `seq`'s words show a seat's hidden information (a card it drew): that seat and the words
        every other seat reads instead; None for an event all may read."""
        return None

    def stops(self, r: Replay) -> list[int]:
        """The seqs the viewer's step by action lands on: each input (an event with no cause) after the first."""
        return [e.seq for e in r.events if e.cause == -1 and e.seq > 0]

    def result(self, r: Replay) -> str:
        """The viewer's line under its title: how the game ended (its last event's words)."""
        return r.describe(r.last_seq) if r.final is not None and r.events else ""

    def page_note(self, r: Replay) -> str:
        """What `locm html` says of a page after its size."""
        return f"{len(r.events)} events, {r.game.title}"


def wing_of(game: GameDef) -> Wing:
    """The wing a game's definition names (`GameDef.replay_wing`), else the plain `Wing`."""
    name = getattr(game, "replay_wing", "")
    if not name:
        return Wing()
    module, _, attr = name.partition(":")
    found: ModuleType = importlib.import_module(module)
    return getattr(found, attr or "WING")


__all__ = ["Wing", "Turn", "ReplayError", "ReplaySourceError", "wing_of"]
