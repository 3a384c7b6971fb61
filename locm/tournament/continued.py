"""Continue from here: a stored game's position as a string (`position_text`, `locm position`), and a game played
on from one by built-in agents, a person or bots and stored (`play_on`, `locm play --from ID --seq S` and ``--position``), for
any game (`engine.position`; LOCM's positions carry its inputs only, through its definition's ``resume``).

The game played on is stored with its meta naming where it came from (``continued_from``: the game's id, the
position's seq and the agents that played up to it). Played on by the agents that played the game, it is that
game again (the same id; a store that holds it stores nothing new); by others, its created event names them
(`GameDef.continue_as`) and its id covers its inputs (`GameDef.continued_id`: LOCM's ``cont-`` ids).

A seat kept by the built-in agent that played it plays on as it would have: the game's agents are played
again from its opening up to the position (`warmed`), so that one with a generator of its own (``random``) has
drawn there what it drew; the same agents on every seat give the game played from the start, event for event.
A new agent starts at the position as at a game's start, seeded from the game's seed and its seat; so does
every seat where the game was not played by built-in agents that play its log again (a bot's game).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from locm.engine.position import Position, PositionError, cut, decode, encode, position, rebuild, ref_of

Echo = Callable[..., None]


@dataclass(frozen=True)
class ContinueRequest:
    """What `locm play --from/--position` was asked: a stored game and seq, or a position string; the agents
    (None: the ones that played the game); the store to read (and store the game in), the log file."""

    position: str | None = None
    game_id: str | None = None
    seq: int | None = None
    db: Path | None = None
    agents: tuple[str, ...] | None = None
    log_path: Path | None = None
    timeouts: str | None = None
    """Bots' time limits (`locm.runner.bots.TimeLimits.parse`)."""


def position_text(db: Path, game_id: str, seq: int, reveal: bool = False, seat: int | None = None) -> str:
    """The position string of stored game ``game_id`` after event ``seq``: redacted for ``seat`` (default: the
    seat to move there) unless ``reveal``."""
    from locm.engine import registry

    gid, events = _stored(db, game_id)
    game = registry.get(_game_of(db, gid))
    if not reveal and seat is None:
        end = cut(game.upcast(list(events)), seq)
        seat = max(game.to_move(game.fold(events[:end + 1])), 0)
    return encode(position(game, events, seq, gid, None if reveal else seat))


def show_position(text: str) -> list[str]:
    """What `locm position --show` says of a position string: what it names and the board it holds (a full
    one rebuilt, a redacted one as its seat sees it)."""
    from locm.engine import registry

    p = decode(text)
    game = registry.get(p.game)
    rules = f" #{p.rules_hash[:12]}" if p.rules_hash else ""
    head = (f"{game.title} {p.ruleset}{rules}, {'game ' + p.game_id if p.game_id else 'a stored game'}, after seq "
            f"{p.seq}, behaviour {p.behaviour}, agents {', '.join(p.agents)}")
    if p.redacted:
        try:
            board = game.board_text(p.view or {})
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:  # a forged view
            raise PositionError(f"the position's view is not one of {game.title}'s: {exc!r}") from None
        return [head, f"redacted for seat {p.seat}: what it sees", board]
    match = rebuild(game, p)
    return [head, "full (every seat's hidden cards, the seeds)", game.board_text(game.view(match.state, None))]


def rebuilt(text: str | None = None, game_id: str | None = None, seq: int | None = None, db: Path | None = None):
    """``(game, position, match)``: the live match of a position string (``text``), or of stored game
    ``game_id`` after event ``seq`` in ``db``. A string whose game ``db`` holds is rebuilt from the stored log
    and checked against it (a redacted one can only be rebuilt so)."""
    from locm.engine import registry

    stored = None
    if text is not None:
        p = decode(text)
        game = registry.get(p.game)
        if db is not None and (p.redacted or (p.game_id is not None and _has(db, p.game_id))):
            gid = p.game_id or _by_ref(db, p)
            stored = _stored(db, gid)[1]
            match = rebuild(game, p, stored)  # the stored log is the one the position's prefix names
            return game, position(game, stored, p.seq, gid) if p.redacted else p, match
    else:
        if db is None or game_id is None or seq is None:
            raise PositionError("a stored game's position needs its store, its id and a seq")
        gid, stored = _stored(db, game_id)
        game = registry.get(_game_of(db, gid))
        p = position(game, stored, seq, gid)
    return game, p, rebuild(game, p, stored)


def play_on(request: ContinueRequest, echo: Echo, read: Callable[[str], str] | None = None,
            sandbox: Callable | None = None) -> str:
    """Play on from a position (a stored game's, or a string's) with built-in agents, a person (the agent
    ``person``: `locm.runner.person.Person`, reading its lines with ``read``, by default from the terminal) or
    command-line bots of a game whose bots speak one line each way (in the sandbox that ``sandbox(bots, db,
    expected)`` makes), say the outcome, and store the game in ``request.db`` if given, its meta naming where
    it came from; returns its id."""
    from locm.common.outputs import check_output, write_output
    from locm.engine import core
    from locm.errors import UsageProblem
    from locm.runner.bots import BotAgent, TimeLimits, command_argv
    from locm.runner.person import PERSON, Person, terminal_line
    from locm.store.eventstore import DuplicateGameError, GameExtras, SeatExtras, open_store, prepare_game
    from locm.tournament.schedule import bot_versions

    r = request
    if r.log_path is not None:
        check_output(r.log_path)
    if r.position is None and (r.db is None or r.game_id is None or r.seq is None):
        raise UsageProblem("--from needs --seq and --db (the store that holds the game)")
    game, p, match = rebuilt(r.position, r.game_id, r.seq, r.db)
    if match.ended:
        raise PositionError(f"the game is over at seq {p.seq}: there is nothing to play on")
    created = match.log[0]
    before = tuple(game.agents(created))
    agents = tuple(r.agents) if r.agents else before
    if len(agents) != len(before):
        raise UsageProblem(f"--agents: the game has {len(before)} seats, not {len(agents)}")
    bots = [a for a in agents if a not in game.agent_names and a != PERSON]
    if bots and game.bots != "lines":
        raise UsageProblem(f"{game.title}'s games are played on by built-in agents or a person, not by {bots[0]!r}")
    for spec in bots:
        command_argv(spec, game.agent_names)  # a command that cannot run: one line, before anything is played
    core.check_seats(game, [a if a in game.agent_names else game.agent_names[0] for a in agents])
    # the same built-in agents on a game its created event names give that game again; else a new one
    same = agents == before and not bots and PERSON not in agents and p.game_id in (None, game.game_id(created))
    if not same:
        if game.continue_as is None or game.continued_id is None:
            raise UsageProblem(f"{game.title}'s games are played on by their own agents only ({', '.join(before)})")
        versions = bot_versions(game, [a if a in bots else game.agent_names[0] for a in agents])
        match = game.from_log([game.continue_as(created, agents, versions), *match.log[1:]])
    policy = sandbox(bots, r.db, game.agent_names) if bots and sandbox is not None else None
    if bots and policy is None:
        raise UsageProblem("a command-line bot plays on in a sandbox: none was given")
    seed = game.index(created).get("seed") or 0
    warm = warmed(game, match.log, before, seed)
    limits = TimeLimits.parse(r.timeouts)
    players = [Person(game, read or terminal_line, echo) if name == PERSON
               else BotAgent(name, limits, sandbox=policy) if name in bots
               else warm[seat] if warm is not None and name == before[seat] else game.make_agent(name, seed, seat)
               for seat, name in enumerate(agents)]
    try:
        while not match.ended:
            seat = match.to_move
            players[seat].play_turn(match, seat)
    finally:
        for pl in players:
            if isinstance(pl, BotAgent):
                pl.stop()
    seats = tuple(SeatExtras(stderr=pl.stderr, think_ms=round(pl.think_ms_total / pl.turns, 4) if pl.turns else None,
                             error=pl.failure is not None and not pl.timed_out, timeout=pl.timed_out)
                  if isinstance(pl, BotAgent) else SeatExtras() for pl in players)
    events = match.log
    gid = game.game_id(events[0]) if same else game.continued_id(events)
    out = game.outcome(events)
    echo(f"{game.title} {p.ruleset}, played on from seq {p.seq} of {p.game_id or 'its position'}: "
         + (f"P{out.winner} ({agents[out.winner]}) wins" if out.winner >= 0 else "no winner")
         + f" ({out.reason}) after {out.turns} turns, {len(events)} events")
    for seat, x in enumerate(seats):
        if x.error or x.timeout:
            echo(f"  P{seat} {agents[seat]} lost by {'a timeout' if x.timeout else 'an error'}"
                 + "".join(f"\n  | {line}" for line in x.stderr.rstrip().splitlines()[-10:]))
    if r.db is not None:
        meta = {"continued_from": {"game": p.game_id, "seq": p.seq, "agents": list(before)}}
        extras = GameExtras(game_id=gid, seats=seats, meta=json.dumps(meta, separators=(",", ":")))
        prepared = prepare_game(game, extras, events)
        with open_store(r.db) as store:
            try:
                store.append_prepared(prepared)
                echo(f"stored: {gid} in {r.db}")
            except DuplicateGameError:
                same_log = store.game(gid).head_hash == prepared.record.head_hash
                echo(f"already stored: {gid} in {r.db}: "
                     + ("the same game, event for event" if same_log else "stored nothing new (its log differs)"))
    if r.log_path is not None:
        write_output(r.log_path, game.codec.to_jsonl(events))
        echo(f"log: {r.log_path}")
    return gid


class _Cut(Exception):
    """The replay of a position's log by its agents has reached the position."""


class _Until:
    """A match as the agents replaying a position's log see it: the real one, stopped (`_Cut`) as soon as a
    decision brings its log to ``end`` events."""

    def __init__(self, match, end: int) -> None:
        self._match, self._end = match, end

    def __getattr__(self, name: str):
        return getattr(self._match, name)

    def _after(self, events):
        if len(self._match.log) >= self._end:
            raise _Cut
        return events

    def submit(self, *args, **kwargs):
        return self._after(self._match.submit(*args, **kwargs))

    def answer(self, *args, **kwargs):
        return self._after(self._match.answer(*args, **kwargs))

    def end_turn(self, *args, **kwargs):
        return self._after(self._match.end_turn(*args, **kwargs))

    def forfeit(self, *args, **kwargs):
        return self._after(self._match.forfeit(*args, **kwargs))


def warmed(game, log, agents, seed: int) -> list | None:
    """Each seat's built-in agent as it was at the end of ``log`` (a position's): the agents played again from
    the game's opening, stopped at the position, so that one with a generator of its own has drawn what it
    drew. None when a seat is not a built-in agent or they do not play that log again (a bot played it, or
    other agents played on from an earlier position)."""
    if any(a not in game.agent_names for a in agents):
        return None
    first = next((k for k in range(1, len(log)) if log[k].cause == -1), len(log))
    shadow = game.from_log(log[:first])
    players = [game.make_agent(a, seed, seat) for seat, a in enumerate(agents)]
    until = _Until(shadow, len(log))
    try:
        for _ in range(len(log)):
            if len(shadow.log) >= len(log) or shadow.ended:
                break
            seat = shadow.to_move
            players[seat].play_turn(until, seat)
    except _Cut:
        pass
    except Exception:  # an agent meeting a log it would not have played (an illegal move): not its log
        return None
    return players if game.codec.to_jsonl(shadow.log) == game.codec.to_jsonl(log) else None


def _stored(db: Path, name: str) -> tuple[str, list]:
    """A stored game's id (``name`` exactly or a unique prefix of it) and its log, its hash chain checked."""
    from locm.store.eventstore import open_store
    from locm.tournament.rerun import resolve_game_id

    with open_store(db, create=False) as store:
        gid = resolve_game_id(store, name)
        return gid, store.verified_events(gid)


def _game_of(db: Path, gid: str) -> str:
    from locm.store.eventstore import open_store

    with open_store(db, create=False) as store:
        return store.game(gid).game


def _has(db: Path, gid: str) -> bool:
    from locm.store.eventstore import open_store

    with open_store(db, create=False) as store:
        return store.has_game(gid)


def _by_ref(db: Path, p: Position) -> str:
    from locm.store.eventstore import open_store

    with open_store(db, create=False) as store:
        for gid in store.readable_ids():
            if ref_of(gid) == p.ref:
                return gid
    raise PositionError(f"{db} holds no game of this redacted position (it names its game by a hash of its id)")


__all__ = ["ContinueRequest", "position_text", "show_position", "play_on", "rebuilt"]
