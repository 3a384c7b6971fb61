"""Reading a log of the official 2013 Skyport server (``skyport-oracle/1``), for `replay.skyport.conformance`.

The log (one JSON object per line) has a ``header`` (map text, seed, turn limit, players by slot, think time),
every line each client sent and received (``msg``, in order per client, with the proxy's clock ``t``),
``connect``/``close`` records, the server's ``stats`` before each turn and an ``end``. `ClientLog` is one
client's side of it as the server saw it: its lines read by the server's reader (`ClientSession`: the replies
owed, the name, the loadout, the actions queued), the messages it received, and where its turns begin and end.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from locm.engine.errors import LocmError
from locm.engine.skyport.protocol import DEAD, ClientSession, java_lines

FORMAT = "skyport-oracle/1"


class OracleLogError(LocmError):
    """A file that is not a readable oracle log: ``path`` and ``line`` (1-based, 0 when not one line)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path, self.line = path, line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class Mismatch(Exception):
    """A difference between the log and the engine: where (turn, player, field) and both values: ``server``
    what the 2013 server's log has, ``engine`` what locm gives. Reported as everywhere else (the TCP replay
    too): expected the 2013 server's, got locm's (`expected`, `got`)."""

    def __init__(self, message: str, turn: int = -1, player: str = "", where: str = "", *, engine: Any = None,
                 server: Any = None) -> None:
        super().__init__(message)
        self.turn, self.player, self.where, self.engine, self.server = turn, player, where, engine, server

    @property
    def expected(self) -> Any:
        return self.server

    @property
    def got(self) -> Any:
        return self.engine


# --- records --------------------------------------------------------------------------------------------------


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
        if records:
            problem = _record_problem(rec, len(records[0]["players"]))
            if problem:
                raise OracleLogError(p, number, f"{rec['type']} record: expected {problem}")
        elif rec["type"] != "header" or rec.get("format") != FORMAT:
            raise OracleLogError(p, number, f"expected a {FORMAT} header on the first line")
        else:
            problem = _header_problem(rec)
            if problem:
                raise OracleLogError(p, number, f"header: expected {problem}")
        records.append(rec)
    if not records:
        raise OracleLogError(p, 1, f"expected a {FORMAT} header on the first line")
    return records


def _header_problem(h: dict[str, Any]) -> str:
    for key, kind in (("map_text", str), ("seed", int), ("players", list), ("turns", int)):
        if type(h.get(key)) is not kind:
            return f"{key!r} to be a {kind.__name__}"
    if not -(1 << 63) <= h["seed"] < (1 << 63) or h["turns"] < 0:
        return "a seed that is a Java long and turns >= 0"
    slots = [p.get("slot") if isinstance(p, dict) else None for p in h["players"]]
    if sorted(s for s in slots if type(s) is int) != list(range(len(slots))) or not slots:
        return "players with the slots 0, 1, ..."
    if not all(isinstance(p.get("name"), str) for p in h["players"]):
        return "a name for every player"
    if "think_ms" in h and type(h["think_ms"]) not in (int, float):
        return "'think_ms' to be a number"
    return ""


def _record_problem(rec: dict[str, Any], players: int) -> str:
    """What a record lacks for the checker to read it, or ""."""
    kind = rec["type"]
    player = rec.get("player")
    known_player = player == "gui" or (type(player) is int and 0 <= player < players)
    if kind == "msg":
        if not known_player:
            return f"a player from 0 to {players - 1} or 'gui'"
        if rec.get("dir") not in ("s2c", "c2s") or not isinstance(rec.get("line"), str):
            return "'dir' s2c or c2s and a 'line' string"
        if type(rec.get("t", 0)) not in (int, float):
            return "'t' to be a number"
    elif kind in ("connect", "close"):
        if not known_player:
            return f"a player from 0 to {players - 1} or 'gui'"
    elif kind == "stats":
        if type(rec.get("before_turn")) is not int or not isinstance(rec.get("players"), list) \
                or not all(isinstance(x, dict) for x in rec["players"]):
            return "'before_turn' and a list of 'players'"
    elif kind == "end":
        if rec.get("last_turn") is not None and type(rec["last_turn"]) is not int:
            return "'last_turn' to be a number"
        final = rec.get("final_stats")
        if final is not None and not (isinstance(final, list) and all(isinstance(x, dict) for x in final)):
            return "'final_stats' to be a list of players"
    return ""


class Stream:
    """One client's lines, both directions, in the order it saw them."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []  # (dir, line)
        self.times: list[float] = []  # the proxy's clock (ms) of each item
        self.closed = False


def gui_turns(records: list[dict[str, Any]]) -> dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]:
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


def reply_kind(reply: dict[str, Any]) -> str:
    """A reply of the server's reader as a coverage key: ``reply:connected`` or the error's first words."""
    if "error" not in reply:
        return "reply:connected"
    words = str(reply["error"]).replace(":", " ").split()
    return "reply:" + " ".join(words[:3])


class ClientLog:
    """One client of the log: its lines read by the server's reader, the replies that reader owes it, and the
    game's messages the engine predicts for it."""

    def __init__(self, slot: int, name: str, stream: Stream) -> None:
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
            except (ValueError, RecursionError):
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
            turn = turn_of(game, g)
            where, a, b = first_difference(expected, got)
            raise Mismatch("a message differs from the server's" if expected is not None else
                            "the server sent a message the engine does not", turn, self.name, where, engine=a,
                            server=b)
        if g < len(game) and not self.stream.closed:
            raise Mismatch("the server did not send a message the engine expects", turn_of(game, g), self.name,
                            "missing", engine=game[g], server=None)
        return len(self.received)


def turn_of(messages: list[dict[str, Any]], upto: int) -> int:
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


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any]:
    """The path of the first difference between two JSON values and the values there (whole messages when
    they are not even the same kind of message)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.get("message") == b.get("message"):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b or not same_json(a[k], b[k]):
                return first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same_json(x, y):
                return first_difference(x, y, f"{path}[{i}]")
    return path or "message", a, b


__all__ = ["FORMAT", "OracleLogError", "Mismatch", "read_records", "Stream", "ClientLog", "gui_turns",
           "reply_kind", "same_json", "first_difference", "turn_of"]
