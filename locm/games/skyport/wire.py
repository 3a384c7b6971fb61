"""Conformance through the real socket path: a game recorded from the official 2013 server (an oracle log,
``skyport-oracle/1``) played again into `locm.games.skyport.server` over TCP, byte for byte.

Each recorded client becomes a TCP connection to the server (a port per seat, so the slots are the log's).
The records are taken in the log's order (the oracle's proxy saw them so): a line a client sent is sent again,
as it was (its exact bytes, ``\\r`` and all); a line a client received must be the next line the server sends
it, **the same text** (org.json's, key order included), compared as JSON values only to say where they differ.

The only thing a replay cannot take from a log is time, so the server is paced by the log instead of a clock
(`Scripted` timing): the gamestate of turn N goes out when the log's first gamestate N is reached, the turn's
deadline comes when its first ``endturn`` is reached, and before either the replay waits until the server has
read every byte sent to it so far. A turn therefore takes exactly the lines the log shows between the
player's gamestate and its endturn; logs in which the 2013 server's reader thread took a line on the other
side of a boundary than the proxy saw it (a timing race of that server, which ``locm conformance`` resolves
with the GUI's feed) cannot be replayed this way and show as a difference.
"""

from __future__ import annotations

import asyncio
import json
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from locm.engine.skyport.hexmap import MapError, parse_map
from locm.engine.skyport.rules import RULES_2013
from locm.replay.skyport.conformance import conformance_report, mismatch_text
from locm.replay.skyport.oracle import OracleLogError, first_difference, read_records
from locm.games.skyport.server import RESERVED, Bounds, SeatSpec, SkyportServer, Timing
from locm.errors import JoinError

WAIT_S = 10.0
MAX_RACES = 8
STALL_S = 0.5
"""How long the server may wait for the replay, with nothing more arriving, before a line it has not sent is
taken as one it will not send."""
"""How long a replay waits for a line the 2013 server sent before it says the server did not send it."""


class Scripted(Timing):
    """Deadlines and gamestates released by the replay (`open`), not by a clock."""

    name = "scripted"

    def __init__(self) -> None:
        super().__init__(0)
        self.opened = {"gamestate": -1, "deadline": -1}
        self.event = asyncio.Event()
        self.parked = False  # the server waits for the replay: it will send nothing more until it opens

    def open(self, kind: str, turn: int) -> None:
        self.opened[kind] = max(self.opened[kind], turn)
        self.event.set()

    async def _until(self, kind: str, turn: int) -> None:
        while self.opened[kind] < turn:
            self.event.clear()
            self.parked = True
            try:
                await self.event.wait()
            finally:
                self.parked = False

    async def before_gamestate(self, server: SkyportServer, turn: int) -> None:
        await self._until("gamestate", turn)

    async def loadouts(self, server: SkyportServer) -> None:
        await self._until("deadline", 0)
        await server.changed(server.all_loadouts)

    async def turn(self, server: SkyportServer, seat: Any) -> None:
        if seat.agent is None and not seat.connected:
            return  # the 2013 server gives a disconnected player no think time
        assert server.game is not None
        await self._until("deadline", server.game.state.turn)


@dataclass
class WireResult:
    path: str
    identical: bool = False
    lines: int = 0  # server lines compared
    sent: int = 0  # client lines sent
    message: str = ""
    player: str = ""
    turn: int = -1
    where: str = ""
    expected: Any = None
    got: Any = None
    moved: int = 0  # lines put on the other side of a turn's end (`replay_log`)
    records: list[dict[str, Any]] = dataclasses.field(default_factory=list, repr=False)

    def summary(self) -> str:
        if self.identical:
            moved = (f" ({self.moved} line{'s' * (self.moved > 1)} read on the other side of a turn's end, as the "
                     "2013 server's reader took it)") if self.moved else ""
            return (f"identical through TCP: {self.lines} server lines byte for byte, {self.sent} client lines "
                    f"sent{moved}")
        return mismatch_text(self)


class _Differs(Exception):
    def __init__(self, message: str, player: str = "", turn: int = -1, where: str = "", expected: Any = None,
                 got: Any = None) -> None:
        super().__init__(message)
        self.player, self.turn, self.where, self.expected, self.got = player, turn, where, expected, got


async def replay_log(path: str | Path, records: list[dict[str, Any]] | None = None,
                     races: int = MAX_RACES) -> WireResult:
    """Replay one oracle log through the server over TCP (see the module docstring). Where the server differs
    at a turn whose mover sent a line within the think time of the turn's end (at `races` turns at most), the
    replay is tried again with that line on the other side of the end (`_race_moves`), and kept when the
    server then agrees with the log for longer."""
    records = read_records(path) if records is None else list(records)
    result = await _attempt(path, records)
    moved = rounds = 0
    while not result.identical and rounds < races:
        rounds += 1
        tries = [(k, await _attempt(path, option)) for k, option in _race_moves(records, result.turn)]
        k, better = max(tries, key=lambda t: (t[1].identical, t[1].lines, -t[0]), default=(0, None))
        if better is None or not (better.identical or better.lines > result.lines):
            break
        moved += k
        records, result = better.records, better
    result.moved = moved
    result.records = []
    return result


async def _attempt(path: str | Path, records: list[dict[str, Any]]) -> WireResult:
    result = WireResult(str(path))
    result.records = records
    try:
        await _replay(records, result)
        result.identical = True
    except _Differs as exc:
        result.message = str(exc)
        result.player, result.turn, result.where = exc.player, exc.turn, exc.where
        result.expected, result.got = exc.expected, exc.got
    return result


def _race_moves(records: list[dict[str, Any]], turn: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """The records with lines of the mover of `turn` put on the other side of the turn's end, each with how
    many: its last k lines before the first ``endturn`` of the turn after its own (the server read them too
    late), or its first k lines after its own ``endturn`` before the first (read in time); only lines sent
    within the header's think time of that ``endturn``, as the 2013 server's reader could take them
    (``locm conformance`` allows the same)."""
    header = records[0]
    zone = float(header.get("think_ms") or 100)
    names = [str(p["name"]) for p in sorted(header["players"], key=lambda p: p["slot"])]

    def server_line(i: int) -> Any:
        rec = records[i]
        if rec["type"] != "msg" or rec["dir"] != "s2c" or not isinstance(rec.get("player"), int):
            return None
        try:
            return json.loads(rec["line"])
        except ValueError:
            return None

    states: dict[int, int] = {}  # player -> the index of its gamestate of `turn`
    for i in range(len(records)):
        v = server_line(i)
        if isinstance(v, dict) and v.get("message") == "gamestate" and v.get("turn") == turn:
            states.setdefault(records[i]["player"], i)
    if not states or turn <= 0:
        return []
    start = min(states.values())
    first = server_line(start)
    name = first["players"][0]["name"]
    mover = names.index(name) if name in names else -1
    ends = sorted(next((i for i in range(g, len(records)) if records[i].get("player") == p
                        and server_line(i) == {"message": "endturn"}), len(records)) for p, g in states.items())
    own = next((i for i in range(states.get(mover, len(records)), len(records))
                if records[i].get("player") == mover and server_line(i) == {"message": "endturn"}), None)
    if mover not in states or own is None or ends[0] >= len(records):
        return []
    after = next((i for i in range(own, len(records)) if isinstance(v := server_line(i), dict)
                  and v.get("message") == "gamestate" and v.get("turn") == turn + 1), len(records))
    t_end = float(records[ends[0]].get("t", 0.0))

    def sent(i: int) -> bool:
        rec = records[i]
        return (rec["type"] == "msg" and rec["dir"] == "c2s" and rec.get("player") == mover
                and abs(float(rec.get("t", 0.0)) - t_end) <= zone)

    out = []
    late = [i for i in range(states[mover] + 1, ends[0]) if sent(i)]
    for k in range(1, len(late) + 1):  # its last k lines read after the end
        moved = set(late[-k:])
        out.append((k, [r for i, r in enumerate(records[:own + 1]) if i not in moved]
                    + [records[i] for i in late[-k:]] + records[own + 1:]))
    early = [i for i in range(own + 1, after) if sent(i)]
    for k in range(1, len(early) + 1):  # its first k lines after the end read before it
        moved = set(early[:k])
        out.append((k, records[:ends[0]] + [records[i] for i in early[:k]]
                    + [r for i, r in enumerate(records[ends[0]:], ends[0]) if i not in moved]))
    return out


async def _replay(records: list[dict[str, Any]], result: WireResult) -> None:
    header = records[0]
    try:
        game_map = parse_map(header["map_text"], str(header.get("map", "")), "the header's map_text")
    except MapError as exc:
        raise OracleLogError(result.path, 1, str(exc)) from None
    players = sorted(header["players"], key=lambda p: p["slot"])
    names = [str(p["name"]) for p in players]
    end = next((r for r in reversed(records) if r["type"] == "end"), {})
    limit = header["turns"] or int(end.get("last_turn") or 0)
    timing = Scripted()
    server = SkyportServer(game_map, [SeatSpec(RESERVED, "replay") for _ in players], header["seed"],
                           RULES_2013.replace(turn_limit=max(limit, 1)), timing, Bounds(join_s=3600))
    conns: list[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = []
    run: asyncio.Task[Any] | None = None
    try:
        for slot in range(len(players)):
            port = await server.listen_seat_tcp(slot)
            conns.append(await asyncio.open_connection("127.0.0.1", port, limit=1 << 24))
        run = asyncio.ensure_future(server.run())
        sent = [0] * len(players)
        last = [-1] * len(players)  # the turn of the last gamestate each client received

        async def settled() -> None:
            """Wait until the server has read every byte sent to it (or the game is over)."""
            for _ in range(int(WAIT_S / 0.0005)):
                if all(s.consumed >= n or s.writer is None for s, n in zip(server.seats, sent)) or run.done():
                    return
                await asyncio.sleep(0.0005)
            raise _Differs("the server did not read what was sent to it")

        for rec in records[1:]:
            if run.done() and run.exception() is not None:
                raise _Differs(f"the server stopped: {run.exception()}")
            player = rec.get("player")
            if not isinstance(player, int):
                continue
            conn = conns[player]
            if rec["type"] == "msg" and rec["dir"] == "c2s":
                data = bytes.fromhex(rec["raw_hex"]) if rec.get("raw_hex") else rec["line"].encode("utf-8")
                data += b"" if rec.get("partial") else b"\n"
                if conn is not None:
                    conn[1].write(data)
                    sent[player] += len(data)
                    result.sent += 1
            elif rec["type"] == "msg" and rec["dir"] == "s2c":
                await _expect(rec["line"], conn, player, names[player], last, timing, settled)
                result.lines += 1
            elif rec["type"] == "close" and rec.get("by") == "client" and conn is not None and not run.done():
                await settled()
                conn[1].close()
                conns[player] = None
        try:
            await asyncio.wait_for(asyncio.shield(run), WAIT_S)
        except asyncio.TimeoutError:
            raise _Differs("the game did not end where the log's did", turn=max(last)) from None
        except JoinError as failure:
            raise _Differs(str(failure)) from None
        except Exception as failure:  # the server failed: a difference to report, not a crash of the replay
            raise _Differs(f"the server stopped: {failure!r}") from None
        await server.close()
        for slot, conn in enumerate(conns):
            if conn is not None:
                extra = await asyncio.wait_for(conn[0].read(), WAIT_S)
                if extra:
                    raise _Differs("the server sent more than the 2013 server", names[slot], max(last), "extra",
                                   None, extra.decode("utf-8", "replace")[:300])
    finally:
        if run is not None and not run.done():
            run.cancel()
        await server.close()
        for conn in conns:
            if conn is not None:
                conn[1].close()


async def _expect(line: str, conn: Any, player: int, name: str, last: list[int], timing: Scripted,
                  settled: Callable[[], Any]) -> None:
    try:
        value = json.loads(line)
    except ValueError:
        value = None
    is_state = isinstance(value, dict) and value.get("message") == "gamestate" and isinstance(value.get("turn"), int)
    if is_state:
        await settled()
        timing.open("gamestate", value["turn"])
    elif value == {"message": "endturn"}:
        await settled()
        timing.open("deadline", last[player])
    if conn is None:
        raise _Differs("the log has a line for a client that had left", name, last[player], "", line, None)
    raw = await _next_line(conn[0], timing)
    got = raw.decode("utf-8", "replace").removesuffix("\n")
    if not raw:
        raise _Differs("the server did not send a line the 2013 server sent", name, last[player], "missing", line,
                       None)
    if got != line:
        try:
            where, a, b = first_difference(value, json.loads(got))
        except ValueError:
            where, a, b = "text", line, got
        same = "the same JSON, another text" if a == b else "a line differs from the 2013 server's"
        raise _Differs(same, name, last[player], where, line if a == b else a, got if a == b else b)
    if is_state:
        last[player] = value["turn"]


async def _next_line(reader: asyncio.StreamReader, timing: Scripted) -> bytes:
    """The server's next line to this client, or b"" once it is clear none comes: the server has been
    waiting for the replay (`Scripted.parked`) for `STALL_S` with nothing arriving, or `WAIT_S` passed."""
    loop = asyncio.get_running_loop()
    read = asyncio.ensure_future(reader.readline())
    deadline, parked = loop.time() + WAIT_S, None
    while not read.done():
        await asyncio.wait([read], timeout=0.02)
        now = loop.time()
        parked = (parked or now) if timing.parked else None
        if not read.done() and (now > deadline or (parked is not None and now - parked > STALL_S)):
            read.cancel()
            return b""
    return read.result()


def wire_report(paths: Iterable[str | Path], quiet: bool, echo: Callable[..., Any]) -> int:
    """Replay each log through the server, `echo` one line per log and a summary; exit status 0 when all are
    identical, 1 when one differs, 2 when none could be read."""
    return conformance_report(paths, quiet, echo, lambda path: asyncio.run(replay_log(path)), " through the server")


def main(argv: list[str] | None = None) -> int:
    """``python -m locm.games.skyport.wire [--quiet] LOG...``: `wire_report` on the command line."""
    import argparse

    import click

    ap = argparse.ArgumentParser(prog="python -m locm.games.skyport.wire",
                                 description="Play oracle logs of the 2013 Skyport server into locm's server over "
                                             "TCP and compare every line it sends, byte for byte.",
                                 epilog="example: python -m locm.games.skyport.wire --quiet "
                                        "tests/data/skyport/samples/*.jsonl.gz")
    ap.add_argument("logs", nargs="+", metavar="LOG")
    ap.add_argument("--quiet", action="store_true", help="print only the logs that differ, and the summary")
    a = ap.parse_args(argv)
    return wire_report(a.logs, a.quiet, click.echo)


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["Scripted", "WireResult", "replay_log", "wire_report", "main"]
