"""Skyport's server: revision 1 of the protocol over sockets, as the official 2013 server speaks it.

`SkyportServer` plays one game. Its seats are filled in slot order by: built-in agents playing in this process
(``local``), clients connecting to a socket of their own (``reserved``: a per-seat TCP port or Unix socket,
how `locm.games.skyport.netbots` runs client command lines), and clients connecting to the shared TCP port (``open``, in
connection order, as the 2013 server numbers its clients). What each connection reads and is answered is the
2013 server's (`engine.skyport.protocol.ClientSession`, org.json's lenient reader); the game is the pure core
(`engine.skyport.game.SkyportGame`), so every game served is an event log, re-decidable like any other.

The game, as the 2013 server runs it (R-PROTO; ``../shared/skyport-oracle/README.md``):

- once every seat has an accepted handshake, the turn-0 gamestate (names only) goes to everyone; once every
  seat has a valid loadout (it may come any time after the handshake), ``endturn``;
- each turn: the inbox of the player to move is emptied, the gamestate goes to everyone, the think time runs
  (none for a player whose connection is gone), ``endturn`` goes to everyone, then the first
  ``actions_per_turn`` action lines the player sent in between are carried out in order: errors to the
  player, each action carried out re-broadcast to everyone with ``from``; a built-in agent acts then, one
  command at a time, on the real state;
- after the last turn (the rules' ``turn_limit``, ``--turns``) or the mortar that stops the 2013 server
  (R-MORTAR-CRASH) nothing more is sent, as in 2013; the connections are then closed.

Every message is written as org.json writes it (`engine.skyport.orgjson.to_json_text`: no spaces, keys in
the order of Java's HashMap), so the bytes are the 2013 server's.

Timing (`Timing`), the one choice the organiser makes:

- ``fast`` (the default): a turn ends at the think time, or as soon as the player has sent its
  ``actions_per_turn`` actions, has sent ``{"message":"endturn"}`` (locm's one addition to the protocol: a
  client that knows it wants fewer actions says so; it gets no reply and is ignored outside the player's own
  turn), has gone, or can no longer be read. A client that sends its three actions never waits, one that
  sends fewer still has the whole think time. Which actions are taken is the same as in ``faithful`` for any
  client that does not send lines after its last action.
- ``faithful``: every turn lasts the think time, as in 2013 (the loadout phase too: checked, then the think
  time slept, until every loadout is in), for clients whose play depends on timing.

Bounds, so that no client can hold up the others (each event loop step does a bounded amount of work per
client): a line longer than `Bounds.line_chars` closes the connection; a client reads at most
`Bounds.lines_per_turn` lines and `Bounds.bytes_per_turn` bytes per turn of the game (then its socket is not
read until the next turn begins: its own backpressure, nobody else's); a client that does not read its
messages until `Bounds.unsent_bytes` wait for it (besides the `Bounds.socket_buffer` its socket's kernel
buffer is held to) is disconnected; a connection without an accepted handshake
after `Bounds.handshake_s` (the protocol text's 10 s) is closed and its seat freed; the game is abandoned
(`JoinError`) if the seats are not all joined with a loadout after `Bounds.join_s`; a game with a wall-clock
limit (`Bounds.wall_s`, from its first turn) that has run out before a turn ends there, recorded (a `Stop`
command, R-WALL-CLOCK: as the 2013 server ends its games by time). A disconnected player is
what it is in 2013: it keeps its turns (without think time) and their penalties, and cannot come back.

Join tokens (``tokens``, `locm serve --tokens`): an open seat is otherwise anyone's who reaches the port first,
and may be held by a stranger until the join deadline. With tokens, each open seat has a secret name
(`join_tokens`: ``s1-`` and 12 random letters and digits, about 71 bits, within the protocol's 16 characters),
and a connection takes a seat only with a handshake that gives that seat's token as its ``name``, the one field
every 2013 client already sends and takes from its command line (``node client.js HOST PORT NAME``), so the
clients need no change. Until then the connection holds no seat: its lines before the handshake are answered as
the 2013 server answers them, a handshake with another name is refused (one error line, then the connection is
closed), and one without a handshake after `Bounds.handshake_s` is closed. The token is then the player's name
in the game, as any name is; it has done its work once the seat is taken.

Where this server differs from the 2013 one, on purpose: it needs no graphics client (the 2013 server waits
for one and tells only it the result); it creates the game when every handshake is in rather than when the
last client connects (so the turn-0 gamestate always has every name); a seat whose connection closes before
its handshake or loadout is freed for another connection instead of blocking the game forever; it never
blocks on a client that does not read (the 2013 server's writes do); and it ends.

`Transcript` (`locm.games.skyport.lines`) writes what each client sent and was sent in the oracle's log format, so
``locm conformance --game skyport`` checks a served game's messages the way it checks the Java server's.

While it is played, a game is published to the live spool of the store the process plays into, if that is on
(`locm.runner.live`, for `locm arena`'s spectators), under a name of its own until its id is known.

Why one module of about 790 lines: `SkyportServer` is one state machine over one event loop (its seats, their
connections, the turn's clock and the game), and each of its steps reads and changes the same seats (a join by
token too: it finds a free seat and hands it the connection); the
parts that stand alone are modules of their own already (the wire format `locm.games.skyport.wire`, the
transcript `locm.games.skyport.lines`, the client processes `locm.games.skyport.netbots`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import secrets
import socket
import string
import time
from pathlib import Path
from typing import Any, Callable, Literal

from locm.engine.skyport.agents import Agent
from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn, Forfeit, Stop
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.orgjson import JSONError, JavaCrash, parse_object, to_json_text
from locm.engine.skyport.protocol import DEAD, ENDTURN, PLAYING, ClientSession, broadcast, errors, gamestate
from locm.engine.skyport.rules import RULES_2013
from locm.engine.skyport.setup import username_error
from locm.engine.skyport.state import TURN
from locm.errors import JoinError, ServeError
from locm.events.skyport.catalog import DroidFired, Event, GameEnded, LaserFired, Mined, Moved, MortarFired, Upgraded
from locm.events.skyport.rules import GameMap, SkyportRules
from locm.games.skyport.lines import JavaLineReader, Transcript

FACTS = (Moved, Mined, Upgraded, LaserFired, MortarFired, DroidFired)
"""The facts whose action the server re-broadcasts (an action carried out)."""
READ_CHUNK = 4096
MAP_MARK = "@map@"
OPEN, RESERVED, LOCAL = "open", "reserved", "local"


# --- settings -------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Bounds:
    """What one client may cost the server (see the module docstring)."""

    line_chars: int = 16 * 1024
    lines_per_turn: int = 64
    bytes_per_turn: int = 64 * 1024
    unsent_bytes: int = 8 << 20
    socket_buffer: int = 256 * 1024
    handshake_s: float = 10.0
    join_s: float = 60.0
    wall_s: float | None = None  # a game's wall-clock limit from its first turn (R-WALL-CLOCK); None: none


TimingName = Literal["fast", "faithful"]
"""How long a served turn lasts (``--timing``): see the module docstring."""

SeatKind = Literal["local", "reserved", "open"]
"""How a seat is filled (`SeatSpec`)."""


class Timing:
    """When a turn's think time ends (``fast`` or ``faithful``, see the module docstring)."""

    name = ""

    def __init__(self, think_ms: int = 3000) -> None:
        if not 0 <= think_ms <= 600_000:
            raise ServeError(f"think time: expected 0 to 600000 ms, got {think_ms}", "think_ms")
        self.think_ms = think_ms

    async def before_gamestate(self, server: "SkyportServer", turn: int) -> None:
        """Return when the gamestate of `turn` may go out (at once, but for a replay that paces the server)."""

    async def loadouts(self, server: "SkyportServer") -> None:
        """Return once every seat has its loadout (the server's deadline bounds the wait)."""
        raise NotImplementedError

    async def turn(self, server: "SkyportServer", seat: "Seat") -> None:
        """Return when the turn of `seat` is over."""
        raise NotImplementedError


class Faithful(Timing):
    name = "faithful"

    async def loadouts(self, server: "SkyportServer") -> None:
        while not server.all_loadouts():
            await asyncio.sleep(self.think_ms / 1000)

    async def turn(self, server: "SkyportServer", seat: "Seat") -> None:
        if seat.agent is None and not seat.connected:
            return  # the 2013 server's accelerateDeadPlayers
        await asyncio.sleep(self.think_ms / 1000)


class Fast(Timing):
    name = "fast"

    async def loadouts(self, server: "SkyportServer") -> None:
        await server.changed(server.all_loadouts)

    async def turn(self, server: "SkyportServer", seat: "Seat") -> None:
        if seat.agent is not None or seat.done():
            return
        try:
            await asyncio.wait_for(seat.over.wait(), self.think_ms / 1000)
        except asyncio.TimeoutError:
            pass


def timing(name: TimingName, think_ms: int) -> Timing:
    if name == "fast":
        return Fast(think_ms)
    if name == "faithful":
        return Faithful(think_ms)
    raise ServeError(f"timing: expected fast or faithful, got {name!r}", "timing")


# --- seats ----------------------------------------------------------------------------------------------------


TOKEN_CHARS = 12
"""Random letters and digits in a join token (62 ** 12, about 2 ** 71: no client guesses one in a join's time)."""
REFUSED = "Username not accepted: this game's seats are joined by token (connect with the name your seat was given)"


def join_tokens(kinds: list[SeatKind]) -> tuple[str, ...]:
    """A fresh join token for each open seat (``s{slot}-`` and `TOKEN_CHARS` random letters and digits: a
    name the protocol accepts, R-SETUP), "" for the other seats."""
    alphabet = string.ascii_letters + string.digits
    return tuple(f"s{slot}-" + "".join(secrets.choice(alphabet) for _ in range(TOKEN_CHARS)) if kind == OPEN else ""
                 for slot, kind in enumerate(kinds))


class Seat:
    """One player: a connection (or a built-in agent), what its reader accepted, its inbox and its budget."""

    def __init__(self, slot: int, kind: SeatKind, label: str, agent: Agent | None = None, name: str = "") -> None:
        self.slot, self.kind, self.label, self.agent = slot, kind, label, agent
        self.name = name
        self.loadout: tuple[str, str] | None = None
        self.session = ClientSession()
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task[None] | None = None
        self.connected = False  # the 2013 server's isAlive: a connection whose end has not been read
        self.inbox: list[dict[str, Any]] = []
        self.window = False  # the player's own turn, between its gamestate and its deadline
        self.over = asyncio.Event()  # fast timing: nothing more is worth waiting for this turn
        self.lines_left = self.bytes_left = 0
        self.refilled = asyncio.Event()
        self.consumed = 0  # bytes read and acted upon
        self.gone = ""  # why the connection ended, once it has
        self.exited = False  # its client's process has ended (a seat whose client locm started)
        self.forfeit = ""  # why it forfeits (R-FORFEIT: what its client lacked at the join deadline)

    def done(self) -> bool:
        """Nothing more can come from this seat this turn (fast timing)."""
        return self.over.is_set() or not self.connected or self.session.phase == DEAD

    def reset(self) -> None:
        """Free the seat for another connection (before the game is created)."""
        self.name, self.loadout, self.session = "", None, ClientSession()
        self.writer, self.task, self.connected, self.gone = None, None, False, ""
        self.consumed = 0


@dataclasses.dataclass(frozen=True)
class SeatSpec:
    """How a seat is filled: ``local`` (`agent` plays in this process), ``reserved`` (a client connects to a
    socket of this seat's), ``open`` (the next client to connect to the shared port). `label` is what the
    game's ``agents`` record says of it."""

    kind: SeatKind
    label: str = ""
    agent: Agent | None = None


# --- the server ------------------------------------------------------------------------------------------------


class SkyportServer:
    """One game served (see the module docstring). Listen (`listen_tcp`, `listen_seat_tcp`, `listen_seat_unix`),
    then `run`; `close` ends every connection and listener."""

    def __init__(self, game_map: GameMap, seats: list[SeatSpec], seed: int, rules: SkyportRules = RULES_2013,
                 timing: Timing | None = None, bounds: Bounds = Bounds(), transcript: Transcript | None = None,
                 progress: Callable[[int, int], None] | None = None, bots: tuple[str, ...] | None = None,
                 forfeits: bool = False, tokens: tuple[str, ...] | None = None) -> None:
        if not seats:
            raise ServeError("a game needs at least one seat", "players")
        self.tokens = _checked_tokens(tokens, seats)  # each open seat's join token (None: the port is open)
        self._joining: set[asyncio.StreamWriter] = set()  # connections whose token handshake is not in yet
        self.map, self.seed, self.rules = game_map, seed, rules
        self.bots = bots  # each seat's client version, recorded in the game (a game with started clients)
        self.forfeits = forfeits  # a seat that does not join in time forfeits (R-FORFEIT) instead of JoinError
        self.timing = timing or Fast()
        self.bounds = bounds
        self.transcript = transcript
        self.progress = progress
        self.seats = [Seat(i, s.kind, s.label or s.kind, s.agent, f"{s.label}-{i}" if s.kind == LOCAL else "")
                      for i, s in enumerate(seats)]
        self.game: SkyportGame | None = None
        self.servers: list[asyncio.AbstractServer] = []
        self.started = time.monotonic()
        self._changed = asyncio.Event()
        self._closing = False
        self._map_rows: tuple[str, ...] = ()
        self._map_text = ""

    # --- listening ------------------------------------------------------------------------------------------

    async def listen_tcp(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen for the open seats' clients; returns the port. ``localhost`` is the loopback of both IPv4 and
        IPv6 on one port (127.0.0.1, and ::1 where the machine has it): a client that resolves the name to
        either (Node.js 17 and later try ::1 first) reaches the game."""
        if host != "localhost":
            return await self._listen(lambda: asyncio.start_server(self._accept, host, port), f"{host}:{port}")
        port = await self._listen(lambda: asyncio.start_server(self._accept, "127.0.0.1", port), f"127.0.0.1:{port}")
        if socket.has_ipv6:
            try:
                self.servers.append(await asyncio.start_server(self._accept, "::1", port))
            except OSError:  # no IPv6 loopback here: IPv4 only, as before
                pass
        return port

    async def listen_seat_tcp(self, slot: int, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen for the client of reserved seat `slot` on a port of its own; returns the port."""
        return await self._listen(lambda: asyncio.start_server(self._acceptor(slot), host, port), f"{host}:{port}")

    async def listen_seat_unix(self, slot: int, path: str) -> None:
        """Listen for the client of reserved seat `slot` on the Unix socket `path` (any local user may
        connect: the sandboxed client runs as a user of its own)."""
        await self._listen(lambda: asyncio.start_unix_server(self._acceptor(slot), path), path)
        Path(path).chmod(0o666)

    async def _listen(self, start: Callable[[], Any], where: str) -> int:
        try:
            server = await start()
        except OSError as exc:
            raise ServeError(f"cannot listen on {where}: {exc.strerror or exc}", "port") from None
        self.servers.append(server)
        sock = server.sockets[0] if server.sockets else None
        name = sock.getsockname() if sock is not None else None
        return int(name[1]) if isinstance(name, tuple) else 0

    def _acceptor(self, slot: int) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any]:
        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await self._accept(reader, writer, slot)
        return accept

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, slot: int | None = None
                      ) -> None:
        if slot is None:
            seat = next((s for s in self.seats if s.kind == OPEN and s.writer is None and not s.name), None)
        else:
            seat = self.seats[slot]
            seat = seat if seat.writer is None and not seat.name else None
        if seat is None or self._closing:  # every seat is taken (2013: the acceptor has stopped)
            writer.close()
            return
        if slot is None and self.tokens is not None:
            await self._join_by_token(reader, writer)
            return
        await self._take(seat, reader, writer)

    async def _join_by_token(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A connection to the shared port when seats are joined by token: it holds no seat until its handshake
        names a free open seat's token (see the module docstring), then it is that seat's, its handshake and
        anything sent after it read as the seat's."""
        session, lines, read = ClientSession(), JavaLineReader(self.bounds.line_chars), 0
        self._joining.add(writer)

        def answer(message: dict[str, Any]) -> None:
            writer.write(to_json_text(message).encode("utf-8", "replace") + b"\n")

        try:
            async with asyncio.timeout(self.bounds.handshake_s):
                while not lines.overflow and read < self.bounds.bytes_per_turn:
                    data = await reader.read(READ_CHUNK)
                    read += len(data)
                    got = lines.feed(data, final=not data)
                    for k, line in enumerate(got):
                        reading = session.feed(line)
                        if reading.name is None:  # not a handshake yet: answered as 2013 answers it
                            for reply in reading.replies:
                                answer(reply)
                            continue
                        seat = self._token_seat(reading.name)
                        if seat is None or self._closing or self.game is not None:
                            answer({"error": REFUSED})
                            data = b""  # the error line is sent, then the connection ends
                            break
                        self._joining.discard(writer)
                        await self._take(seat, reader, writer, lines, got[k:])
                        return
                    if not data:
                        break
        except (TimeoutError, ConnectionError, OSError):
            pass
        finally:
            self._joining.discard(writer)
        writer.close()

    def _token_seat(self, name: str) -> Seat | None:
        """The free open seat whose token `name` is (compared in constant time), or None."""
        found = None
        for s in self.seats:
            token = self.tokens[s.slot] if self.tokens is not None else ""
            if token and hmac.compare_digest(token.encode(), name.encode("utf-8", "replace")):
                found = s
        return found if found is not None and found.writer is None and not found.name else None

    async def _take(self, seat: Seat, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    lines: JavaLineReader | None = None, pending: list[str] | None = None) -> None:
        """The connection is `seat`'s: read it (`lines`, `pending`: what its token's handshake left unread)."""
        sock = writer.get_extra_info("socket")
        if sock is not None:  # the kernel's share of what a client leaves unread is bounded too
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.bounds.socket_buffer)
        seat.writer, seat.connected = writer, True
        seat.lines_left, seat.bytes_left = self.bounds.lines_per_turn, self.bounds.bytes_per_turn
        if self.transcript:
            self.transcript.record({"type": "connect", "player": seat.slot})
        seat.task = asyncio.current_task()
        asyncio.get_running_loop().call_later(self.bounds.handshake_s, self._handshake_due, seat, writer)
        try:
            await self._read(seat, reader, writer, lines, pending)
        except asyncio.CancelledError:
            pass  # the connection was ended by the server (asyncio would report a cancelled handler as an error)

    def _handshake_due(self, seat: Seat, writer: asyncio.StreamWriter) -> None:
        if seat.writer is writer and not seat.name and self.game is None:
            self._drop(seat, "no handshake")

    # --- reading ----------------------------------------------------------------------------------------------

    async def _read(self, seat: Seat, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    lines: JavaLineReader | None = None, pending: list[str] | None = None) -> None:
        lines = lines if lines is not None else JavaLineReader(self.bounds.line_chars)
        pending = pending or []
        size = 0
        try:
            while seat.writer is writer:
                for line in pending:
                    while seat.lines_left <= 0:
                        seat.refilled.clear()
                        await seat.refilled.wait()
                    seat.lines_left -= 1
                    self._line(seat, line)
                    if seat.writer is not writer:
                        return
                seat.consumed += size
                pending, size = [], 0
                if lines.overflow:
                    self._drop(seat, f"a line longer than {self.bounds.line_chars} characters")
                    return
                while seat.bytes_left <= 0:
                    seat.refilled.clear()
                    await seat.refilled.wait()
                data = await reader.read(min(READ_CHUNK, seat.bytes_left))
                if not data:
                    for line in lines.feed(b"", final=True):
                        self._line(seat, line)
                    break
                seat.bytes_left -= len(data)
                size = len(data)
                pending = lines.feed(data)
        except (ConnectionError, OSError):
            pass
        if seat.writer is writer:
            self._eof(seat)

    def _line(self, seat: Seat, line: str) -> None:
        """One line read from `seat` (the 2013 server's ``AIClientHandler``)."""
        if isinstance(self.timing, Fast) and seat.session.phase == PLAYING and "endturn" in line \
                and _is_endturn(line):
            if self.transcript:
                self.transcript.record({"type": "endturn-request", "player": seat.slot, "line": line})
            if seat.window:
                seat.over.set()
            return
        if self.transcript:
            self.transcript.msg(seat.slot, "c2s", line)
        reading = seat.session.feed(line)
        for reply in reading.replies:
            self._send(seat, reply)
        if reading.name is not None:
            seat.name = reading.name
            self._changed.set()
        if reading.loadout is not None:
            seat.loadout = reading.loadout
            self._changed.set()
        if reading.action is not None and seat.window and len(seat.inbox) < self.rules.actions_per_turn:
            seat.inbox.append(reading.action)
            if len(seat.inbox) >= self.rules.actions_per_turn:
                seat.over.set()
        if seat.session.phase == DEAD:
            seat.over.set()

    def _eof(self, seat: Seat) -> None:
        """The client closed its side."""
        if self.transcript:
            self.transcript.record({"type": "close", "player": seat.slot, "by": "client"})
        self._end_connection(seat, "closed by the client", by_client=True)

    def _drop(self, seat: Seat, why: str) -> None:
        """Close a connection on the server's side (a bound was passed)."""
        if self.transcript:
            self.transcript.record({"type": "close", "player": seat.slot, "by": "server", "why": why})
        self._end_connection(seat, why, by_client=False)

    def _end_connection(self, seat: Seat, why: str, by_client: bool) -> None:
        """Before the game is created, the seat is freed for another connection. After, its player is
        disconnected for the rest of the game (2013: ``isAlive`` false; but a client whose reader had died is
        never noticed: it keeps its think time)."""
        writer, task = seat.writer, seat.task
        if writer is not None:
            if by_client:
                writer.close()
            else:
                writer.transport.abort()
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if self.game is None:
            seat.reset()
        else:
            seat.gone = why
            seat.writer, seat.task = None, None
            seat.connected = by_client and seat.session.phase == DEAD
            seat.over.set()
        self._changed.set()

    # --- writing ----------------------------------------------------------------------------------------------

    def _send(self, seat: Seat, message: dict[str, Any]) -> None:
        text = to_json_text(message)
        self._write(seat, text, text.encode("utf-8", "replace") + b"\n")

    def _broadcast(self, message: dict[str, Any]) -> None:
        self._broadcast_text(to_json_text(message))

    def _gamestate_text(self, state: Any, turn: int) -> str:
        """The gamestate's text (`protocol.gamestate` written by org.json), its map's text kept from the last
        turn while no tile changes: most of a gamestate is its map, and writing it is most of a turn's work."""
        message = gamestate(state, turn, state.turn_list())
        rows = tuple("".join(row) for row in message["map"]["data"])
        if rows != self._map_rows:
            self._map_rows, self._map_text = rows, to_json_text(message["map"])
        message["map"] = MAP_MARK  # "@" is in no name (R-SETUP) nor any other string of a gamestate
        return to_json_text(message).replace(to_json_text(MAP_MARK), self._map_text, 1)

    def _broadcast_text(self, text: str) -> None:
        data = text.encode("utf-8", "replace") + b"\n"  # Java's getBytes: '?' for what UTF-8 cannot encode
        for seat in self.seats:
            self._write(seat, text, data)

    def _write(self, seat: Seat, text: str, data: bytes) -> None:
        writer = seat.writer
        if writer is None or not seat.connected:
            return
        if self.transcript:
            self.transcript.msg(seat.slot, "s2c", text if text.isascii() else data[:-1].decode("utf-8"))
        writer.write(data)
        if writer.transport.get_write_buffer_size() > self.bounds.unsent_bytes:
            self._drop(seat, f"more than {self.bounds.unsent_bytes} bytes unread")

    # --- the game ---------------------------------------------------------------------------------------------

    def all_loadouts(self) -> bool:
        """Whether every seat has its loadout (or forfeits); `JoinError` once a player without one has left
        (when seats do not forfeit)."""
        self._check_lost()
        return all(s.loadout is not None or s.forfeit for s in self.seats)

    def client_exited(self, slot: int) -> None:
        """The process of seat `slot`'s client has ended (told by whoever started it)."""
        self.seats[slot].exited = True
        self._changed.set()

    async def changed(self, condition: Callable[[], bool]) -> None:
        """Return once `condition()` holds (checked after every join, loadout and disconnection)."""
        while not condition():
            self._changed.clear()
            await self._changed.wait()

    def _check_lost(self) -> None:
        if self.game is not None:
            lost = {s.slot: "loadout" for s in self.seats
                    if s.loadout is None and s.agent is None and not s.connected and not s.forfeit}
            if lost and self.forfeits:
                for slot in lost:
                    self.seats[slot].forfeit = "its client left before choosing its loadout"
            elif lost:
                raise JoinError(lost, self.bounds.join_s, ": a player left before choosing its loadout")

    def _cannot_join(self, seat: Seat) -> bool:
        """A seat without a handshake that can no longer get one: its client's process has ended and no
        connection of it is open (forfeiting seats only)."""
        return self.forfeits and seat.exited and seat.writer is None and not seat.name

    def _missing(self) -> dict[int, str]:
        out = {}
        for s in self.seats:
            if s.agent is not None:
                continue  # a built-in agent chooses its loadout once the game is created
            if s.writer is None and not s.name:
                out[s.slot] = "connection"
            elif not s.name:
                out[s.slot] = "handshake"
            elif s.loadout is None:
                out[s.slot] = "loadout"
        return out

    async def run(self) -> SkyportGame:
        """Play the game; returns it (its log is `SkyportGame.log`). Raises `JoinError` when it cannot start
        (unless seats forfeit)."""
        if self.forfeits:
            await self._start_forfeiting()
        else:
            try:
                await asyncio.wait_for(self._start(), self.bounds.join_s)
            except asyncio.TimeoutError:
                raise JoinError(self._missing(), self.bounds.join_s) from None
        game = self.game
        assert game is not None
        wall = self.bounds.wall_s
        stop_at = None if wall is None else time.monotonic() + wall
        with self._published(game):
            while game.state.phase == TURN:
                if stop_at is not None and time.monotonic() >= stop_at:  # checked before each turn, as in 2013
                    game.submit(Stop(game.state.current, f"wall-clock limit {wall:g} s"))
                    break
                await self._turn(game)
        ended = game.log[-1]
        assert isinstance(ended, GameEnded)
        if self.transcript:
            result = None
            if ended.reason != "server-crash":
                result = "Tie!" if ended.winner < 0 else f"{game.state.robots[ended.winner].name} wins!"
            self.transcript.record({"type": "end", "reason": "server-crash" if ended.reason == "server-crash"
                                    else "game-over", "last_turn": ended.turn, "result": result})
        return game

    def _published(self, game: SkyportGame) -> Any:
        """Its turns published to the live spool of the store the process plays into (`locm.runner.live`, for
        `locm arena`'s spectators), under a name of its own: its id may name its whole log. Skyport hides
        nothing, so the spectators read everything."""
        from locm.engine.seam import game_id_of
        from locm.engine.skyport.definition import GAME
        from locm.runner.live import live_name, watching

        return watching(GAME, live_name(GAME.name), [s.label for s in self.seats], game.log,
                        final_id=lambda: game_id_of(GAME, game.log))

    async def _start(self) -> None:
        await self.changed(lambda: all(s.name for s in self.seats))
        await self._open()
        await self.timing.loadouts(self)
        self._choose()

    async def _start_forfeiting(self) -> None:
        """`_start` for seats that forfeit (R-FORFEIT): the handshakes are awaited until the join deadline (a
        seat whose client has ended is not awaited), the seats without one forfeit and get a name of their
        own; then the loadouts until the deadline, but at least a think time after the turn-0 gamestate; the
        seats without one forfeit too. A forfeiting seat's connection, if any, is closed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.bounds.join_s
        try:
            await asyncio.wait_for(self.changed(lambda: all(s.name or self._cannot_join(s) for s in self.seats)),
                                   self.bounds.join_s)
        except asyncio.TimeoutError:
            pass
        for seat in self.seats:
            if not seat.name:
                what = "its client ended before its handshake" if seat.exited else \
                    f"no handshake within {self.bounds.join_s:g} s"
                if seat.writer is not None:
                    self._drop(seat, "no handshake by the join deadline")
                seat.forfeit, seat.name = what, f"absent{seat.slot}"
        await self._open()
        wait = max(deadline - loop.time(), self.timing.think_ms / 1000)
        try:
            await asyncio.wait_for(self.timing.loadouts(self), wait)
        except asyncio.TimeoutError:
            pass
        for seat in self.seats:
            if seat.loadout is None and not seat.forfeit:
                seat.forfeit = f"no loadout within {self.bounds.join_s:g} s"
                if seat.writer is not None:
                    self._drop(seat, "no loadout by the join deadline")
        self._choose()

    async def _open(self) -> None:
        """Create the game from the seats' names, send the turn-0 gamestate, the built-in agents choose."""
        names = tuple(s.name for s in self.seats)
        self.game = game = SkyportGame.new(names, self.seed, self.map, self.rules, tuple(s.label for s in self.seats),
                                           self.bots)
        if self.transcript:
            self.transcript.start(self, names)
        state = game.state
        await self.timing.before_gamestate(self, 0)
        self._broadcast_text(self._gamestate_text(state, 0))
        for seat in self.seats:
            if seat.agent is not None:
                command = seat.agent.command(game.state, seat.slot)
                assert isinstance(command, ChooseLoadout)
                seat.loadout = (command.primary, command.secondary)

    def _choose(self) -> None:
        """Every seat's loadout into the game (a forfeiting seat's `Forfeit`), then ``endturn``."""
        game = self.game
        assert game is not None
        for seat in self.seats:
            if seat.forfeit:
                game.submit(Forfeit(seat.slot, seat.forfeit))
            else:
                assert seat.loadout is not None
                game.submit(ChooseLoadout(seat.slot, *seat.loadout))
        self._broadcast(dict(ENDTURN))

    async def _turn(self, game: SkyportGame) -> None:
        state = game.state
        player, turn = state.current, state.turn
        seat = self.seats[player]
        for s in self.seats:  # every client's budget is renewed each turn
            s.lines_left, s.bytes_left = self.bounds.lines_per_turn, self.bounds.bytes_per_turn
            s.refilled.set()
        await self.timing.before_gamestate(self, turn)
        seat.inbox = []  # 2013: the inbox is emptied just before the gamestate goes out
        seat.over.clear()
        seat.window = True
        self._broadcast_text(self._gamestate_text(state, turn))
        await self.timing.turn(self, seat)
        seat.window = False
        actions, seat.inbox = seat.inbox, []
        self._broadcast(dict(ENDTURN))
        if seat.agent is not None:
            while game.state.phase == TURN and game.state.current == player and game.state.turn == turn:
                command = seat.agent.command(game.state, player)
                self._messages(seat, command.action if isinstance(command, Act) else None, game.submit(command))
        else:
            for action in actions[:self.rules.actions_per_turn]:
                self._messages(seat, action, game.submit(Act(player, action)))
                if game.state.phase != TURN or game.state.turn != turn:
                    break
            else:
                self._messages(seat, None, game.submit(EndTurn(player)))
        if self.progress:
            self.progress(turn, self.rules.turn_limit)
        await asyncio.sleep(0)  # let the readers and writers run even when no turn waited

    def _messages(self, seat: Seat, action: dict[str, Any] | None, events: list[Event]) -> None:
        """What the game thread sends for one command's events: errors to the player, each action carried
        out re-broadcast to everyone."""
        first = events[0].seq if events else -1
        for e in events:
            for message in errors(e):
                self._send(seat, message)
            if action is not None and isinstance(e, FACTS) and e.cause == first:
                self._broadcast(broadcast(action, seat.name, e))

    async def close(self) -> None:
        """Stop listening and end every connection (what was written is still sent, briefly)."""
        self._closing = True
        for server in self.servers:
            server.close()
        for joining in list(self._joining):  # no seat of theirs to end: the game is over
            joining.transport.abort()
        writers = [s.writer for s in self.seats if s.writer is not None]
        tasks = [s.task for s in self.seats if s.task is not None and s.task is not asyncio.current_task()]
        for seat in self.seats:
            seat.writer = None
            seat.connected = False
        for writer in writers:
            writer.close()
        for writer in writers:
            try:
                await asyncio.wait_for(writer.wait_closed(), 2)
            except (asyncio.TimeoutError, ConnectionError, OSError):
                writer.transport.abort()
        for task in tasks:
            task.cancel()
        for server in self.servers:
            try:
                await asyncio.wait_for(server.wait_closed(), 2)
            except asyncio.TimeoutError:
                pass
        if self.transcript:
            self.transcript.close()


def _checked_tokens(tokens: tuple[str, ...] | None, seats: list[SeatSpec]) -> tuple[str, ...] | None:
    """`SkyportServer`'s ``tokens``, checked: one a seat, a name the protocol accepts and unique for each open
    seat (`ServeError` otherwise)."""
    if tokens is None:
        return None
    if len(tokens) != len(seats):
        raise ServeError(f"join tokens: expected one for each of the {len(seats)} seats, got {len(tokens)}",
                         "tokens")
    wanted = [t for t, s in zip(tokens, seats) if s.kind == OPEN]
    for token in wanted:
        if not token or username_error(token):
            raise ServeError(f"join token {token!r}: {username_error(token) or 'empty'}", "tokens")
    if len(set(wanted)) != len(wanted):
        raise ServeError("join tokens: two open seats have the same token", "tokens")
    return tuple(tokens)


def _is_endturn(line: str) -> bool:
    try:
        obj = parse_object(line)
    except (JSONError, JavaCrash):
        return False
    return obj.get("message") == "endturn"


__all__ = ["Bounds", "Timing", "Fast", "Faithful", "timing", "join_tokens", "JavaLineReader", "Seat", "SeatSpec",
           "SkyportServer", "Transcript", "OPEN", "RESERVED", "LOCAL", "FACTS"]
