"""Conformance of Skyport: replay a log of the official 2013 server (``skyport-oracle/1``, read by
`replay.skyport.oracle`) through the engine and check every message the server sent each client.

The replay, from the header alone: the game is created with the header's map, seed and names; each client's
lines are read by the server's reader (`ClientSession`), which gives its replies, its loadout and its actions.
The actions the server took in turn N are the first three that the player to move sent between its gamestate
N and its endturn N (its inbox is cleared when the gamestate goes out, and read when the turn's time is up).

The engine then predicts, for every client, two streams: the reader's replies (each after the line that
caused it) and the game's messages (gamestates, endturns, errors and re-broadcasts, in order). Every message
the client received must be the next of one of them, compared as JSON values (org.json's key order is a
hash map's); a client that stayed connected must have received all of the game's. The server's ``stats``
(the hidden resource counts included), the end's reason, turn, result and final stats are checked too. The
first difference is reported with its turn, player and field.

Which lines the server took is its input, and the log can only approximate it: the server's reader thread
queues a line when it gets to run, so on a loaded machine a line sent within a think time of either end of
the turn may fall on the other side. For such a turn only, when the likeliest reading does not give what the
log shows of the turn (the GUI feed's re-broadcasts and next gamestate, the player's errors), the other
readings the timing allows are tried, fewest changed lines first, and the first that gives it is taken; the
result says how many turns were read so. The output is never adjusted: every message is still checked.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from locm.engine.errors import LocmError
from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import MapError, parse_map
from locm.engine.skyport.protocol import ENDTURN, broadcast, errors, gamestate
from locm.engine.skyport.rules import RULES_2013
from locm.engine.skyport.state import TURN
from locm.replay.skyport.oracle import (
    FORMAT, ClientLog, Mismatch, OracleLogError, Stream, gui_turns, read_records, reply_kind, same_json,
)
from locm.events.skyport.catalog import (
    ActionRejected, CommandReceived, DroidFired, Event, GameEnded, HitAbsorbed, LaserFired, Mined, Moved,
    MortarFired, Penalized, Respawned, Scored, TurnStarted, Upgraded,
)

_FACTS = (Moved, Mined, Upgraded, LaserFired, MortarFired, DroidFired)
STAT_FIELDS = ("health", "score", "rubidium", "explosium", "scrap", "primary-level", "secondary-level")


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
        return mismatch_text(self)


def mismatch_text(r: Any) -> str:
    """The first difference of a replay (this module's `Result`, or the TCP replay's): where (turn, player,
    field), what, and the values shortened: expected what the 2013 server sent, got what locm gives (the same
    order for the log check and the TCP replay)."""
    at = f" at turn {r.turn}" if r.turn >= 0 else ""
    at += f", player {r.player}" if r.player else ""
    at += f", {r.where}" if r.where else ""
    text = f"MISMATCH{at}: {r.message}"
    if r.expected is not None or r.got is not None:
        text += (f"\n    expected {_short(r.expected)}   (the 2013 server)\n    got      {_short(r.got)}   (locm)")
    return text


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


# --- the check --------------------------------------------------------------------------------------------------


def check_log(path: str | Path, records: list[dict[str, Any]] | None = None) -> Result:
    """Replay one oracle log and check it (see the module docstring). Raises `OracleLogError` only for a file
    that is not an oracle log."""
    records = read_records(path) if records is None else records
    result = Result(str(path))
    try:
        _check(records, result)
        result.identical = True
    except Mismatch as exc:
        result.message = str(exc)
        result.turn, result.player, result.where = exc.turn, exc.player, exc.where
        result.expected, result.got = exc.expected, exc.got
    return result


def _check(records: list[dict[str, Any]], result: Result) -> None:
    header = records[0]
    try:
        game_map = parse_map(header["map_text"], str(header.get("map", "")), "the header's map_text")
    except MapError as exc:
        raise OracleLogError(result.path, 1, str(exc)) from None
    slots = sorted(header["players"], key=lambda p: p["slot"])
    names = tuple(str(p["name"]) for p in slots)
    end = next((r for r in reversed(records) if r["type"] == "end"), {})
    limit = header["turns"] or int(end.get("last_turn") or 0)
    streams = [Stream() for _ in slots]
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
    gui = gui_turns(records)
    zone = float(header.get("think_ms") or 100)
    clients = [ClientLog(i, names[i], s) for i, s in enumerate(streams)]
    found: list[tuple[tuple[int, int], Mismatch]] = []  # (when, mismatch): the earliest is reported
    for c in clients:
        if c.name_seen != names[c.slot]:
            raise Mismatch(f"the server accepted the name {c.name_seen!r}, the header says {names[c.slot]!r}",
                            player=names[c.slot], where="handshake")
    if any(c.loadout is None for c in clients):
        raise Mismatch("a client never sent a valid loadout: the game cannot start", where="loadout")
    try:
        game = SkyportGame.new(names, header["seed"], game_map, RULES_2013.replace(turn_limit=max(limit, 1)))
    except LocmError as exc:
        raise OracleLogError(result.path, 1, f"the header does not give a game: {exc}") from None
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
        result.coverage.update(reply_kind(reply) for _, reply in c.replies)
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


def _agrees(game: SkyportGame, actions: list[dict[str, Any]],
            gui: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]], client: "ClientLog") -> bool:
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


def _later(found: list[tuple[tuple[int, int], Mismatch]], check: Any) -> None:
    """Run a check; keep its mismatch, ordered by turn (a stats record before turn N follows turn N - 1's
    messages; the end follows everything)."""
    try:
        check()
    except Mismatch as exc:
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
        raise Mismatch(f"the server's stats list {len(got)} players", turn, where="stats")
    for robot, entry in zip(robots, got):
        health = 0 if robot.slot in respawned else robot.health
        expected = {"name": robot.name, "health": health, "score": robot.score, "rubidium": robot.rubidium,
                    "explosium": robot.explosium, "scrap": robot.scrap, "primary-level": robot.primary_level,
                    "secondary-level": robot.secondary_level}
        for key, value in expected.items():
            if entry.get(key) != value:
                raise Mismatch("the server's stats before this turn differ", turn, robot.name,
                                f"stats.{key}", engine=value, server=entry.get(key))


def _check_end(end: dict[str, Any], game: SkyportGame, ended: GameEnded, last_turn: int) -> None:
    if not end:
        return
    reason = {"turn-limit": "game-over", "server-crash": "server-crash"}[ended.reason]
    if end.get("reason") != reason:
        raise Mismatch("the game ended otherwise", last_turn, where="end.reason", engine=reason,
                        server=end.get("reason"))
    if end.get("last_turn") != last_turn:
        raise Mismatch("the last turn differs", last_turn, where="end.last_turn", engine=last_turn,
                        server=end.get("last_turn"))
    if reason == "game-over":
        robots = game.state.robots
        text = "Tie!" if ended.winner < 0 else f"{robots[ended.winner].name} wins!"
        if end.get("result") != text:
            raise Mismatch("the announced result differs", last_turn, where="end.result", engine=text,
                            server=end.get("result"))
        final = end.get("final_stats")
        if final is not None:
            _check_stats({"players": final}, game, last_turn + 1, respawned=())


def _messages(clients: list["ClientLog"], player: int, action: dict[str, Any] | None, events: list[Event],
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


def _send(clients: list["ClientLog"], to: Iterable[int], message: dict[str, Any]) -> None:
    for p in to:
        clients[p].expected_game.append(message)


def check_files(paths: Iterable[str | Path]) -> Iterable[Result]:
    for path in paths:
        yield check_log(path)


def conformance_report(paths: Iterable[str | Path], quiet: bool, echo: Any, check: Any = None,
                       through: str = "") -> int:
    """Check each log with `check` (default `check_log`; any callable returning a result with ``identical`` and
    ``summary()``), `echo` one line per log (mismatches only when `quiet`) and a summary ending in `through`;
    the exit status: 0 when every log is identical, 1 when one differs, 2 when none could be read."""
    check = check or check_log
    paths = list(paths)
    same = bad = 0
    for path in paths:
        try:
            result = check(path)
        except OracleLogError as exc:
            bad += 1
            echo(f"locm: error: {exc}", err=True)
            continue
        same += result.identical
        if not (quiet and result.identical):
            echo(f"{path}: {result.summary()}")
    echo(f"{same}/{len(paths)} games identical{through}" + (f" ({bad} not an oracle log)" if bad else ""))
    return 0 if same == len(paths) else 2 if bad == len(paths) else 1


__all__ = ["FORMAT", "OracleLogError", "Result", "read_records", "check_log", "check_files", "same_json",
           "conformance_report"]
