"""Conformance of Skyport: replay a log of the official 2013 server (``skyport-oracle/1``) through the engine and
check every message the server sent each client.

The log (one JSON object per line) has a ``header`` (map text, seed, turn limit, players by slot), every line
each client sent and received (``msg``, in order per client), ``connect``/``close`` records, the server's
``stats`` (health, score, the hidden resource counts and weapon levels before each turn) and an ``end``.

The replay, from the header alone: the game is created with the header's map, seed and names; each client's
lines are read by the server's reader (`ClientSession`), which gives its replies, its loadout and its actions.
The actions the server took in turn N are the first three that the player to move sent between its gamestate
N and its endturn N (its inbox is cleared when the gamestate goes out, and read when the turn's time is up).
That is the server's input, and the log can only approximate it: the server's reader thread queues a line when
it gets to run, so on a loaded machine a line sent within a think time of either end of the turn may fall on
the other side. For such a turn only, when the likeliest reading does not give what the GUI's feed shows for
the turn (its re-broadcasts and the next gamestate), the other readings the timing allows are tried, fewest
changed lines first, and the first that gives it is taken; the result says how many turns were read so. The
output is never adjusted: every message is still checked against the engine's.
The engine then predicts, for every client, two streams: the reader's replies (each after the line that
caused it) and the game's messages (gamestates, endturns, errors and re-broadcasts, in order). Every message
the client received must be the next of one of them, compared as JSON values (org.json's key order is a
hash map's); a client that stayed connected must have received all of the game's. The server's ``stats``,
the end's reason, turn, result and final stats are checked too. The first difference is reported with its
turn, player and field.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from locm.engine.errors import LocmError
from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import MapError, parse_map
from locm.engine.skyport.protocol import DEAD, ENDTURN, ClientSession, broadcast, errors, gamestate, java_lines
from locm.engine.skyport.rules import RULES_2013
from locm.engine.skyport.state import ENDED, TURN
from locm.events.skyport.catalog import (
    ActionRejected, CommandReceived, DroidFired, Event, GameEnded, HitAbsorbed, LaserFired, Mined, Moved,
    MortarFired, Penalized, Respawned, Scored, TurnStarted, Upgraded,
)

FORMAT = "skyport-oracle/1"
_FACTS = (Moved, Mined, Upgraded, LaserFired, MortarFired, DroidFired)
STAT_FIELDS = ("health", "score", "rubidium", "explosium", "scrap", "primary-level", "secondary-level")


class OracleLogError(LocmError):
    """A file that is not a readable oracle log: ``path`` and ``line`` (1-based, 0 when not one line)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path, self.line = path, line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


@dataclass
class Result:
    path: str
    identical: bool = False
    turns: int = 0
    messages: int = 0
    stats: int = 0
    end: str = ""
    turn: int = -1
    player: str = ""
    where: str = ""
    expected: Any = None
    got: Any = None
    message: str = ""
    coverage: Counter[str] = field(default_factory=Counter)
    game: SkyportGame | None = field(default=None, repr=False)

    def summary(self) -> str:
        if self.identical:
            late = self.coverage.get("timing:resolved", 0)
            return (f"identical: {self.turns} turns, {self.messages} messages, {self.stats} stats checked, "
                    f"end {self.end}" + (f"; {late} turn(s) read as the GUI saw them" if late else ""))
        at = f" at turn {self.turn}" if self.turn >= 0 else ""
        at += f", player {self.player}" if self.player else ""
        at += f", {self.where}" if self.where else ""
        text = f"MISMATCH{at}: {self.message}"
        if self.expected is not None or self.got is not None:
            text += f"\n    expected {_short(self.expected)}\n    got      {_short(self.got)}"
        return text


class _Mismatch(Exception):
    def __init__(self, message: str, turn: int = -1, player: str = "", where: str = "", expected: Any = None,
                 got: Any = None) -> None:
        super().__init__(message)
        self.turn, self.player, self.where, self.expected, self.got = turn, player, where, expected, got


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


# --- reading --------------------------------------------------------------------------------------------------


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of an oracle log (plain or .gz; ``-`` is not accepted: a log is read twice)."""
    p = str(path)
    try:
        with (gzip.open(p, "rt", encoding="utf-8") if p.endswith(".gz") else open(p, encoding="utf-8")) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise OracleLogError(p, 0, "no such file") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise OracleLogError(p, 0, f"cannot read it: {exc}") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            raise OracleLogError(p, number, "not a JSON record") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            raise OracleLogError(p, number, "expected a record with a 'type'")
        records.append(rec)
    if not records or records[0].get("type") != "header" or records[0].get("format") != FORMAT:
        raise OracleLogError(p, 1, f"expected a {FORMAT} header on the first line")
    header = records[0]
    for key, kind in (("map_text", str), ("seed", int), ("players", list), ("turns", int)):
        if not isinstance(header.get(key), kind):
            raise OracleLogError(p, 1, f"expected the header's {key!r} to be a {kind.__name__}")
    return records


class _Stream:
    """One client's lines, both directions, in the order it saw them."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []  # (dir, line)
        self.times: list[float] = []  # the proxy's clock (ms) of each item
        self.closed = False


# --- the check --------------------------------------------------------------------------------------------------


def check_log(path: str | Path, records: list[dict[str, Any]] | None = None) -> Result:
    """Replay one oracle log and check it (see the module docstring). Raises `OracleLogError` only for a file
    that is not an oracle log."""
    records = read_records(path) if records is None else records
    result = Result(str(path))
    try:
        _check(records, result)
        result.identical = True
    except _Mismatch as exc:
        result.message = str(exc)
        result.turn, result.player, result.where = exc.turn, exc.player, exc.where
        result.expected, result.got = exc.expected, exc.got
    return result


def _check(records: list[dict[str, Any]], result: Result) -> None:
    header = records[0]
    try:
        game_map = parse_map(header["map_text"], str(header.get("map", "")))
    except MapError as exc:
        raise _Mismatch(f"the header's map does not read: {exc}") from None
    slots = sorted(header["players"], key=lambda p: p["slot"])
    names = tuple(str(p["name"]) for p in slots)
    end = next((r for r in reversed(records) if r["type"] == "end"), {})
    limit = header["turns"] or int(end.get("last_turn") or 0)
    streams = [_Stream() for _ in slots]
    stats: dict[int, dict[str, Any]] = {}
    for rec in records:
        player = rec.get("player")
        if rec["type"] == "msg" and isinstance(player, int) and 0 <= player < len(slots):
            streams[player].items.append((rec["dir"], rec["line"]))
            streams[player].times.append(float(rec.get("t", 0.0)))
        elif rec["type"] == "close" and isinstance(player, int) and 0 <= player < len(slots):
            streams[player].closed = True
        elif rec["type"] == "stats":
            stats[rec["before_turn"]] = rec
    gui = _gui_turns(records)
    zone = float(header.get("think_ms") or 100)
    clients = [_Client(i, names[i], s) for i, s in enumerate(streams)]
    found: list[tuple[tuple[int, int], _Mismatch]] = []  # (when, mismatch): the earliest is reported
    for c in clients:
        if c.name_seen != names[c.slot]:
            raise _Mismatch(f"the server accepted the name {c.name_seen!r}, the header says {names[c.slot]!r}",
                            player=names[c.slot], where="handshake")
    if any(c.loadout is None for c in clients):
        raise _Mismatch("a client never sent a valid loadout: the game cannot start", where="loadout")
    try:
        game = SkyportGame.new(names, header["seed"], game_map, RULES_2013.replace(turn_limit=max(limit, 1)))
    except LocmError as exc:
        raise _Mismatch(f"the engine cannot create the game: {exc}") from None
    result.game = game
    state = game.state
    everyone = range(len(clients))
    _send(clients, everyone, gamestate(state, 0, state.turn_list()))
    for c in clients:
        assert c.loadout is not None
        game.submit(ChooseLoadout(c.slot, *c.loadout))
    _send(clients, everyone, dict(ENDTURN))
    last_turn = 0
    while game.state.phase == TURN:
        state = game.state
        turn, player = state.turn, state.current
        last_turn = turn
        _later(found, lambda: _check_stats(stats.get(turn), game, turn, respawned=_respawned(game.log)))
        _send(clients, everyone, gamestate(state, turn, state.turn_list()))
        _send(clients, everyone, dict(ENDTURN))
        options = clients[player].window(turn, zone)
        chosen = options[0]
        if len(options) > 1 and gui:
            chosen = next((o for o in options if _agrees(game, o, gui, clients[player])), chosen)
            if chosen is not options[0]:
                result.coverage["timing:resolved"] += 1
        for action, events in _play_turn(game, player, chosen):
            _messages(clients, player, action, events, result.coverage)
        result.turns += 1
    ended = game.log[-1]
    assert isinstance(ended, GameEnded)
    result.coverage[f"game_ended:{ended.reason}"] += 1
    for c in clients:
        result.messages += len(c.received)
        _later(found, c.compare)
        result.coverage.update(_reply_kind(reply) for _, reply in c.replies)
        if c.dead:
            result.coverage["client:reader-stopped"] += 1
        if c.stream.closed and c.gamestates and max(c.gamestates) < last_turn:
            result.coverage["client:disconnected"] += 1
    if ended.reason != "server-crash":
        _later(found, lambda: _check_stats(stats.get(last_turn + 1), game, last_turn + 1, respawned=()))
    _later(found, lambda: _check_end(end, game, ended, last_turn))
    if found:
        raise min(found, key=lambda f: f[0])[1]
    result.stats = len(stats)
    result.end = f"{ended.reason} after turn {last_turn}"


def _play_turn(game: SkyportGame, player: int, actions: list[dict[str, Any]]
               ) -> list[tuple[dict[str, Any] | None, list[Event]]]:
    """Play one turn: the actions the server took (at most the turn's number; a shot ends it), then the end
    of the turn if they did not end it. Returns each command's action (None for the end) and events."""
    turn = game.state.turn
    out: list[tuple[dict[str, Any] | None, list[Event]]] = []
    for action in actions[:game.state.rules.actions_per_turn]:
        out.append((action, game.submit(Act(player, action))))
        if game.state.phase != TURN or game.state.turn != turn:
            return out
    out.append((None, game.submit(EndTurn(player))))
    return out


def _gui_turns(records: list[dict[str, Any]]) -> dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The GUI's feed by turn: its gamestate and the re-broadcasts that followed (the GUI gets every game
    message but the errors, and nothing from the readers)."""
    out: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    current: list[dict[str, Any]] = []
    for rec in records:
        if rec["type"] != "msg" or rec.get("player") != "gui" or rec.get("dir") != "s2c":
            continue
        try:
            value = json.loads(rec["line"])
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        if value.get("message") == "gamestate" and isinstance(value.get("turn"), int):
            current = []
            out[value["turn"]] = (value, current)
        elif value.get("message") == "action":
            current.append(value)
    return out


def _agrees(game: SkyportGame, actions: list[dict[str, Any]],
            gui: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]], client: "_Client") -> bool:
    """Whether taking `actions` this turn gives what the log shows of it: the GUI's re-broadcasts and next
    gamestate (where a refused action's idle penalty shows), and the errors the player got after its endturn
    (those its reader owes it aside)."""
    turn = game.state.turn
    trial = SkyportGame(game.state.copy(), list(game.log))
    said: list[dict[str, Any]] = []
    errs: list[dict[str, Any]] = []
    for action, events in _play_turn(trial, game.state.current, actions):
        for e in events:
            errs += errors(e)
            if isinstance(e, _FACTS) and action is not None and e.cause == events[0].seq:
                said.append(broadcast(action, client.name, e))
    if turn not in gui or not same_json(said, gui[turn][1]):
        return False
    got = client.errors_after_endturn(turn)
    if got is not None and not same_json(errs, got):
        return False
    if trial.state.phase != TURN or turn + 1 not in gui:
        return True
    seen = gui[turn + 1][0]
    expected = gamestate(trial.state, turn + 1, trial.state.turn_list())
    return same_json(expected["players"], [{k: v for k, v in p.items() if k != "alive"} for p in seen["players"]])


def _later(found: list[tuple[tuple[int, int], _Mismatch]], check: Any) -> None:
    """Run a check; keep its mismatch, ordered by turn (a stats record before turn N follows turn N - 1's
    messages; the end follows everything)."""
    try:
        check()
    except _Mismatch as exc:
        when = (exc.turn - 1, 1) if exc.where.startswith("stats") else (exc.turn, 0)
        if exc.where.startswith("end"):
            when = (1 << 30, 0)
        found.append((when, exc))


def _respawned(log: list[Event]) -> tuple[int, ...]:
    """Robots respawned by the decision that started the current turn (the server's stats come before it)."""
    out = []
    for e in reversed(log):
        if isinstance(e, Respawned):
            out.append(e.player)
        elif isinstance(e, CommandReceived):
            break
    return tuple(out)


def _check_stats(rec: dict[str, Any] | None, game: SkyportGame, turn: int, respawned: Iterable[int]) -> None:
    if rec is None:
        return
    got = rec.get("players", [])
    robots = game.state.robots
    if len(got) != len(robots):
        raise _Mismatch(f"the server's stats list {len(got)} players", turn, where="stats")
    for robot, entry in zip(robots, got):
        health = 0 if robot.slot in respawned else robot.health
        expected = {"name": robot.name, "health": health, "score": robot.score, "rubidium": robot.rubidium,
                    "explosium": robot.explosium, "scrap": robot.scrap, "primary-level": robot.primary_level,
                    "secondary-level": robot.secondary_level}
        for key, value in expected.items():
            if entry.get(key) != value:
                raise _Mismatch("the server's stats before this turn differ", turn, robot.name,
                                f"stats.{key}", value, entry.get(key))


def _check_end(end: dict[str, Any], game: SkyportGame, ended: GameEnded, last_turn: int) -> None:
    if not end:
        return
    reason = {"turn-limit": "game-over", "server-crash": "server-crash"}[ended.reason]
    if end.get("reason") != reason:
        raise _Mismatch("the game ended otherwise", last_turn, where="end.reason", expected=reason,
                        got=end.get("reason"))
    if end.get("last_turn") != last_turn:
        raise _Mismatch("the last turn differs", last_turn, where="end.last_turn", expected=last_turn,
                        got=end.get("last_turn"))
    if reason == "game-over":
        robots = game.state.robots
        text = "Tie!" if ended.winner < 0 else f"{robots[ended.winner].name} wins!"
        if end.get("result") != text:
            raise _Mismatch("the announced result differs", last_turn, where="end.result", expected=text,
                            got=end.get("result"))
        final = end.get("final_stats")
        if final is not None:
            _check_stats({"players": final}, game, last_turn + 1, respawned=())


def _messages(clients: list["_Client"], player: int, action: dict[str, Any] | None, events: list[Event],
              coverage: Counter[str]) -> None:
    """The game thread's messages for one action's events: errors to the player, the re-broadcast to all."""
    everyone = range(len(clients))
    for e in events:
        coverage[_cover(e)] += 1
        for message in errors(e):
            _send(clients, (player,), message)
        if isinstance(e, _FACTS) and action is not None and e.cause == events[0].seq:
            _send(clients, everyone, broadcast(action, clients[player].name, e))


def _cover(e: Event) -> str:
    tag = type(e).__struct_config__.tag
    if isinstance(e, ActionRejected):
        return f"{tag}:{e.reason}"
    if isinstance(e, (Penalized, Scored)):
        return f"{tag}:{e.reason}"
    if isinstance(e, HitAbsorbed):
        return f"{tag}:{e.reason}"
    if isinstance(e, MortarFired) and not e.exploded:
        return f"{tag}:no-explosion"
    if isinstance(e, DroidFired) and e.warning:
        return f"{tag}:too-long"
    if isinstance(e, TurnStarted):
        return tag
    return str(tag)


def _reply_kind(reply: dict[str, Any]) -> str:
    """A reply of the server's reader as a coverage key: ``reply:connected`` or the error's first words."""
    if "error" not in reply:
        return "reply:connected"
    words = str(reply["error"]).replace(":", " ").split()
    return "reply:" + " ".join(words[:3])


def _send(clients: list["_Client"], to: Iterable[int], message: dict[str, Any]) -> None:
    for p in to:
        clients[p].expected_game.append(message)


class _Client:
    """One client of the log: its lines read by the server's reader, the replies that reader owes it, and the
    game's messages the engine predicts for it."""

    def __init__(self, slot: int, name: str, stream: _Stream) -> None:
        self.slot, self.name, self.stream = slot, name, stream
        self.expected_game: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []  # (index of the line that caused it, reply)
        self.actions: list[tuple[int, dict[str, Any]]] = []  # (index of the line, action queued)
        self.received: list[tuple[int, Any]] = []  # (index, parsed server line)
        self.gamestates: dict[int, int] = {}  # turn -> index of its gamestate in the stream
        self.endturns: list[int] = []
        self.name_seen: str | None = None
        self.loadout: tuple[str, str] | None = None
        session = ClientSession()
        self.dead = False
        for index, (direction, line) in enumerate(stream.items):
            if direction == "c2s":
                for text in java_lines(line) or [""]:
                    reading = session.feed(text)
                    self.replies.extend((index, r) for r in reading.replies)
                    if reading.name is not None:
                        self.name_seen = reading.name
                    if reading.loadout is not None:
                        self.loadout = reading.loadout
                    if reading.action is not None:
                        self.actions.append((index, reading.action))
                self.dead = session.phase == DEAD
                continue
            try:
                value = json.loads(line)
            except ValueError:
                value = line
            self.received.append((index, value))
            if isinstance(value, dict) and value.get("message") == "gamestate" and isinstance(value.get("turn"), int):
                self.gamestates[value["turn"]] = index
            elif value == {"message": "endturn"}:
                self.endturns.append(index)

    def window(self, turn: int, zone: float) -> list[list[dict[str, Any]]]:
        """The actions the server may have queued for this player in `turn`, as alternatives, the likeliest
        first. The likeliest: what it sent after its gamestate and before its endturn (or its
        disconnection). The server empties the inbox just before the gamestate goes out and reads it just
        after the endturn, but its reader thread adds a line only when it gets to run: on a loaded machine a
        line sent shortly before the gamestate may still count, one sent shortly before the endturn may not.
        So the alternatives are the other runs of consecutive lines that differ from the likeliest only in
        lines within `zone` ms (the proxy's clock) of either end, fewest differences first."""
        start = self.gamestates.get(turn)
        if start is None:
            return [[]]
        stop = next((i for i in self.endturns if i > start), len(self.stream.items))
        times = self.stream.times
        t_start, t_stop = times[start], times[stop] if stop < len(times) else float("inf")
        early = [a for i, a in self.actions if i < start and times[i] >= t_start - zone]
        firm = [a for i, a in self.actions if start < i < stop and times[i] < t_stop - zone]
        late = [(i < stop, a) for i, a in self.actions if i > start and t_stop - zone <= times[i] <= t_stop + zone]
        before = sum(1 for inside, _ in late if inside)
        likeliest = firm + [a for _, a in late[:before]]
        options = [(0, 0, likeliest)]
        for a in range(len(early) + 1):
            for b in range(len(late) + 1):
                option = early[len(early) - a:] + firm + [x for _, x in late[:b]]
                options.append((a + abs(b - before), len(options), option))
        out: list[list[dict[str, Any]]] = []
        for _, _, option in sorted(options, key=lambda o: (o[0], o[1])):
            if option not in out:
                out.append(option)
        return out

    def errors_after_endturn(self, turn: int) -> list[dict[str, Any]] | None:
        """The errors this client got between its endturn of `turn` and its next gamestate, less those its
        reader owes it for lines sent in the turn; None when it got no endturn (it had left)."""
        start = self.gamestates.get(turn)
        if start is None:
            return None
        end = next((i for i in self.endturns if i > start), None)
        if end is None:
            return None
        stop = min((i for i in self.gamestates.values() if i > end), default=len(self.stream.items))
        got = [v for i, v in self.received if end < i < stop and isinstance(v, dict) and list(v) == ["error"]]
        for i, reply in self.replies:
            if start < i < stop and reply in got:
                got.remove(reply)
        return got

    def compare(self) -> int:
        """Match every message received against the two predicted streams; returns how many were checked."""
        game, replies = self.expected_game, self.replies
        g = r = 0
        for index, got in self.received:
            if r < len(replies) and replies[r][0] < index and same_json(replies[r][1], got):
                r += 1
                continue
            if g < len(game) and same_json(game[g], got):
                g += 1
                continue
            expected = game[g] if g < len(game) else replies[r][1] if r < len(replies) else None
            turn = _turn_of(game, g)
            where, a, b = _first_difference(expected, got)
            raise _Mismatch("a message differs from the server's" if expected is not None else
                            "the server sent a message the engine does not", turn, self.name, where, a, b)
        if g < len(game) and not self.stream.closed:
            raise _Mismatch("the server did not send a message the engine expects", _turn_of(game, g), self.name,
                            "missing", game[g], None)
        return len(self.received)


def _turn_of(messages: list[dict[str, Any]], upto: int) -> int:
    for m in reversed(messages[:upto + 1]):
        if m.get("message") == "gamestate":
            turn: int = m["turn"]
            return turn
    return 0


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value (org.json writes 1.0 as 1), never a boolean for a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any]:
    """The path of the first difference between two JSON values and the values there (whole messages when
    they are not even the same kind of message)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.get("message") == b.get("message"):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b or not same_json(a[k], b[k]):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same_json(x, y):
                return _first_difference(x, y, f"{path}[{i}]")
    return path or "message", a, b


def check_files(paths: Iterable[str | Path]) -> Iterable[Result]:
    for path in paths:
        yield check_log(path)


def conformance_report(paths: Iterable[str | Path], quiet: bool, echo: Any) -> int:
    """Check each log, `echo` one line per log (mismatches only when `quiet`) and a summary; the exit status:
    0 when every log is identical, 1 when one differs, 2 when none could be read."""
    paths = list(paths)
    same = bad = 0
    for path in paths:
        try:
            result = check_log(path)
        except OracleLogError as exc:
            bad += 1
            echo(f"locm: error: {exc}", err=True)
            continue
        same += result.identical
        if not (quiet and result.identical):
            echo(f"{path}: {result.summary()}")
    echo(f"{same}/{len(paths)} games identical" + (f" ({bad} not an oracle log)" if bad else ""))
    return 0 if same == len(paths) else 2 if bad == len(paths) else 1


__all__ = ["FORMAT", "OracleLogError", "Result", "read_records", "check_log", "check_files", "same_json",
           "conformance_report"]
