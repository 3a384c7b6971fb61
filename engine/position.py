"""A position of a stored game as a short printable string, and the live match it rebuilds (continue from here).

A position names the state of a game after one of its events, for any registered game (`engine.seam.GameDef`):

    locm1:<base64url of the zlib'd canonical JSON>.<first 16 hex digits of the SHA-256 of that JSON>

The JSON holds the game's name, the seq of the position's last event, the stored game's id, the behaviour of
the engine that decided it (``behaviour`` of the created event, 1 where the field is absent), its ruleset's
name and its rules' hash (a variant's differs from the built-in ruleset's), its agents, and ``prefix``, the SHA-256 of the log up to the position (its events' canonical JSON, one
a line). A **full** position also holds what rebuilds that log: the created event (every seed, the rules'
values) and, for a game with a ``resume`` hook (LOCM), only its recorded inputs (the events with cause -1), the
rules deciding everything else again; a game without one carries its whole log up to the position. Rebuilding
checks the rebuilt log against ``prefix``: a position whose inputs were changed, or that another engine
decides differently, is refused in one line, as is a string whose hash does not match its content.

A position ends where a decision ends: asked for an event in the middle of the events one input caused, it
is the position after the last of them (`cut`), the state a player is asked to move in.

**Redacted** (the default of `locm position`), for one seat: the created event and the inputs are left out
(they hold the seeds that fix every future draw and the deck order, and the other seat's picks and hand);
in their place is ``view``, what that seat sees there (`GameDef.view`: its own hand, the other's as a count).
The game's id is left out too (a LOCM id holds its seed): ``ref`` is the SHA-256 of it, which the store that
holds the game finds it by (`ref_of`). A redacted position can be shown and shared with that seat's player; it
cannot be played on by itself: playing on needs the store that holds the game (the organiser's: `locm play
--position STRING --db D` finds it there by ``ref``, rebuilds it and checks the prefix), or the full position
(``--reveal``). The engine does not re-draw the hidden cards from a fresh seed: the game played on
would not be the one the position names.

The hash is a check against damage and careless edits, not a signature: whoever can recompute it can forge a
string, and what they forge is still only a legal game (every input is decided again by the rules). A store's
game is the reference: rebuilt from a store, the prefix is compared with the stored log.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from locm.engine.errors import LocmError
from locm.engine.seam import GameDef, Match, behaviour_of
from locm.events.base import Event

PREFIX = "locm1:"
"""The version prefix of a position string (its format's version 1)."""
VERSION = 1
HASH_HEX = 16
"""Hex digits of the SHA-256 of the JSON that end a position string."""
MAX_BYTES = 1 << 22
"""The most a position's JSON may hold once inflated (a string is hostile until checked)."""


class PositionError(LocmError):
    """A position that cannot be read or played: not a position string, damaged or changed (its hash), of a
    later version or behaviour than this engine's, of a game it does not have, redacted where the whole game
    is needed, or rebuilt into another log than the one it names. ``text`` keeps the offending string's start."""

    def __init__(self, message: str, text: str = "") -> None:
        self.text = text[:40]
        super().__init__(message)


@dataclass(frozen=True)
class Position:
    """A decoded position (see the module docstring); ``seat`` is None for a full one, else the seat it was
    redacted for."""

    game: str
    seq: int
    game_id: str | None
    """The stored game's id (a full position; None for a log that was not stored)."""
    behaviour: int
    ruleset: str
    agents: tuple[str, ...]
    prefix: str
    created: dict[str, Any] | None = None
    inputs: list[dict[str, Any]] | None = None
    events: list[dict[str, Any]] | None = None
    seat: int | None = None
    view: dict[str, Any] | None = field(default=None, compare=False)
    ref: str | None = None
    """A redacted position's game: the SHA-256 (hex) of its id (`ref_of`)."""
    rules_hash: str = ""
    """The hash of the rules' values its created event records ("" for a game that records none): a variant
    is told from the built-in ruleset of its name by it (a full position carries the values themselves)."""

    @property
    def redacted(self) -> bool:
        return self.seat is not None

    def doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"v": VERSION, "game": self.game, "seq": self.seq, "behaviour": self.behaviour,
                             "ruleset": self.ruleset, "agents": list(self.agents), "prefix": self.prefix}
        for k, key in (("game_id", "id"), ("created", "created"), ("inputs", "inputs"), ("events", "events"),
                       ("seat", "seat"), ("view", "view"), ("ref", "ref"), ("rules_hash", "rules_hash")):
            if getattr(self, k) not in (None, ""):
                d[key] = getattr(self, k)
        return d


def ref_of(game_id: str) -> str:
    """What a redacted position names its game by: the SHA-256 (hex) of the game's id."""
    return hashlib.sha256(game_id.encode()).hexdigest()


def cut(events: Sequence[Event], seq: int) -> int:
    """The seq a position after event ``seq`` ends at: the last event of the decision holding ``seq`` (the
    event before the next recorded input, an event with cause -1, or the log's last)."""
    if not 0 <= seq < len(events):
        raise PositionError(f"--seq {seq}: the game has events 0..{len(events) - 1}")
    k = seq + 1
    while k < len(events) and events[k].cause != -1:
        k += 1
    return k - 1


def prefix_hash(game: GameDef, events: Sequence[Event]) -> str:
    """The SHA-256 (hex) of a log's events as canonical JSON, one a line."""
    h = hashlib.sha256()
    for e in events:
        h.update(game.codec.to_json(e) + b"\n")
    return h.hexdigest()


def position(game: GameDef, events: Sequence[Event], seq: int, game_id: str | None = None,
             seat: int | None = None) -> Position:
    """The position of a log after event ``seq`` (moved to the end of its decision: `cut`); redacted for
    ``seat`` unless it is None."""
    events = game.upcast(list(events))
    end = cut(events, seq)
    prefix = events[:end + 1]
    created = events[0]
    agents = tuple(game.agents(created))
    base = Position(game=game.name, seq=end, game_id=game_id, behaviour=behaviour_of(created),
                    ruleset=str(game.index(created).get("ruleset", "")), agents=agents,
                    prefix=prefix_hash(game, prefix), rules_hash=str(getattr(created, "rules_hash", "") or ""))
    if seat is not None:
        if not 0 <= seat < len(agents):
            raise PositionError(f"--seat {seat}: the game's seats are 0..{len(agents) - 1}")
        return replace(base, game_id=None, ref=None if game_id is None else ref_of(game_id), seat=seat,
                       view=game.view(game.fold(prefix), seat))

    def doc(e: Event) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(game.codec.to_json(e))
        return value

    if game.resume is not None:
        return replace(base, created=doc(created), inputs=[doc(e) for e in prefix[1:] if e.cause == -1])
    return replace(base, events=[doc(e) for e in prefix])


def encode(p: Position) -> str:
    """A position's string: ``locm1:`` + base64url(zlib(canonical JSON)) + ``.`` + its hash."""
    raw = json.dumps(p.doc(), sort_keys=True, separators=(",", ":")).encode()
    body = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()
    return f"{PREFIX}{body}.{hashlib.sha256(raw).hexdigest()[:HASH_HEX]}"


def decode(text: str) -> Position:
    """The position a string holds, checked: its prefix, its encoding, its hash and its fields (one line
    saying what is wrong otherwise; the string is hostile until checked)."""
    text = text.strip()
    if not text.startswith(PREFIX):
        other = text.split(":", 1)[0] + ":" if ":" in text[:12] else ""
        raise PositionError(f"not a position: expected a string starting {PREFIX!r}, got "
                            + (f"{other!r} (a later version?)" if other else repr(text[:20])), text)
    body, dot, digest = text[len(PREFIX):].rpartition(".")
    if not dot:
        raise PositionError("a damaged position: its hash (after the last '.') is missing", text)
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_BYTES)
        if inflater.unconsumed_tail or not inflater.eof:
            raise ValueError("truncated or too large")
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise PositionError(f"a damaged position: its content cannot be read ({exc})", text) from None
    if hashlib.sha256(raw).hexdigest()[:HASH_HEX] != digest:
        raise PositionError("a changed or damaged position: its content does not match its hash", text)
    try:
        d = json.loads(raw)
        if d.get("v") != VERSION:
            raise PositionError(f"a position of version {d.get('v')!r}: this engine reads version {VERSION}")
        p = Position(game=_typed(d, "game", str), seq=_typed(d, "seq", int), game_id=d.get("id"),
                     behaviour=_typed(d, "behaviour", int), ruleset=_typed(d, "ruleset", str),
                     agents=tuple(_typed(d, "agents", list)), prefix=_typed(d, "prefix", str),
                     created=d.get("created"), inputs=d.get("inputs"), events=d.get("events"), seat=d.get("seat"),
                     view=d.get("view"), ref=d.get("ref"), rules_hash=d.get("rules_hash", ""))
    except (ValueError, AttributeError, TypeError) as exc:
        raise PositionError(f"a damaged position: {exc}", text) from None
    if not all(type(a) is str for a in p.agents):
        raise PositionError("a damaged position: 'agents' should be names", text)
    kinds = (("id", p.game_id, str), ("ref", p.ref, str), ("rules_hash", p.rules_hash, str), ("seat", p.seat, int), ("created", p.created, dict),
             ("inputs", p.inputs, list), ("events", p.events, list), ("view", p.view, dict))
    for key, value, kind in kinds:
        if value is not None and type(value) is not kind:
            raise PositionError(f"a damaged position: {key!r} should be a {kind.__name__}", text)
    if p.seat is None and p.created is None and p.events is None:
        raise PositionError("a damaged position: it holds neither a game nor a seat's view", text)
    return p


def _typed(d: dict[str, Any], key: str, kind: type) -> Any:
    value = d.get(key)
    if type(value) is not kind:
        raise PositionError(f"a damaged position: {key!r} should be a {kind.__name__}, got {value!r}")
    return value


def rebuild(game: GameDef, p: Position, stored: Sequence[Event] | None = None) -> Match:
    """The live match a position names, its log the position's (checked against its prefix hash). A redacted
    position needs ``stored``, the stored game's log (the organiser's store), which it is rebuilt from; a full
    one is rebuilt from what it carries (and compared with ``stored`` where given)."""
    if p.game != game.name:
        raise PositionError(f"a position of {p.game!r}, not of {game.name!r}")
    current = getattr(game, "behaviour", 1)
    if p.behaviour > current:
        raise PositionError(f"the position was decided under behaviour {p.behaviour} of {game.title}'s rules; "
                            f"this engine decides up to behaviour {current}")
    if p.redacted and stored is None:
        raise PositionError(f"the position is redacted for seat {p.seat}: playing on needs the store that holds "
                            f"its game (--db) or the full position (locm position GAME_ID --seq {p.seq} --reveal)")
    if stored is not None:
        log = game.upcast(list(stored))
        if p.seq >= len(log) or prefix_hash(game, log[:p.seq + 1]) != p.prefix:
            raise PositionError(f"the stored game is not the one the position names: its events 0..{p.seq} "
                                "differ")
        return _matched(game, game.from_log(log[:p.seq + 1]), p)
    try:
        created = game.codec.from_json(json.dumps(p.created).encode()) if p.created is not None else None
        if created is not None and behaviour_of(created) != p.behaviour:
            raise PositionError(f"a damaged position: it says behaviour {p.behaviour}, its created event "
                                f"{behaviour_of(created)}")
        if p.inputs is not None and created is not None and game.resume is not None:
            match = game.resume(created, game.codec.from_json_array(json.dumps(p.inputs).encode()))
        elif p.events is not None:
            match = game.from_log(game.codec.from_json_array(json.dumps(p.events).encode()))
        else:
            raise PositionError("a damaged position: it holds no inputs or events to rebuild")
    except PositionError:
        raise
    except (LocmError, ValueError, TypeError, KeyError) as exc:  # hostile content the codec or rules refuse
        raise PositionError(f"the position cannot be rebuilt: {exc}") from None
    return _matched(game, match, p)


def _matched(game: GameDef, match: Match, p: Position) -> Match:
    if len(match.log) != p.seq + 1 or prefix_hash(game, match.log) != p.prefix:
        raise PositionError(f"the position does not rebuild the game it names: the rules give another log up to "
                            f"seq {p.seq}")
    return match


__all__ = ["Position", "PositionError", "PREFIX", "position", "encode", "decode", "rebuild", "cut", "prefix_hash",
           "behaviour_of", "ref_of"]
