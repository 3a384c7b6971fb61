"""Skyport clients started from command lines, each in the bot sandbox, and the one entry point that plays a
game with them: `play_skyport` ("these seats, this map and seed: the event log").

A seat is one of:

- a built-in agent's name (``random``, ``hunter``): it plays inside the server's process;
- a client's command line, which locm starts, with the placeholders ``{host}``, ``{port}``, ``{name}`` (a
  suggested player name, ``player<slot>``), ``{seed}`` (a seed of its own, as a built-in agent in that seat
  would get) and ``{slot}``;
- `OPEN` (``-``): a client that connects to the server's TCP port by itself (``locm serve``).

**How a sandboxed client without a network reaches its server.** The sandbox (`locm.runner.sandbox.bwrap`) gives a client
no network but a loopback of its own. The server listens for that seat on a Unix socket in a private folder;
the sandbox is shown that one socket file (a read-only bind: connecting to a socket needs no write access to
its mount) and runs, before the client, ``socat`` listening on 127.0.0.1:54321 of the sandbox's loopback and
relaying the connection to the socket; the client starts once the relay listens (`RELAY`). So ``{host}`` is
``127.0.0.1`` and ``{port}`` ``54321``, the official port: a 2013 client that assumes them runs unchanged.
The client can reach nothing else: no other socket is shown to it, and its network namespace has only its
own loopback, on which only the relay listens (``tests/test_skyport_server.py`` runs a sandboxed client that
tries the host's ports and the other seats' sockets). One connection per seat: the relay takes one.

Unconfined (``--no-sandbox``), and sandboxed with the host's network (``--bot-network``: its clients share
the host's loopback, where one relay port would collide), each command seat gets a TCP port of its own on the
host's 127.0.0.1, so that slots never depend on which client connects first.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import shutil
import signal
import tempfile
import uuid
from typing import Any, Callable, Sequence

from locm.runner.processes import TOKEN_VAR, become_subreaper, reap_escaped, unconfined, wait_gone
from locm.engine.skyport.definition import SERVED
from locm.engine.skyport.agents import AGENT_NAMES, agent_seed, make_agent
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import spawn_tiles
from locm.engine.skyport.rules import RULES_2013
from locm.errors import AgentSpecError, JoinError, ServeError
from locm.events.skyport.rules import GameMap, SkyportRules
from locm.runner.sandbox import cgroup
from locm.runner.sandbox.bwrap import Sandbox, build, child_pid, require, wait_child_pid
from locm.runner.sandbox.views import unreadable
from locm.games.skyport.server import (LOCAL, OPEN, RESERVED, Bounds, SeatSpec, SkyportServer, Timing,
                                 TimingName, Transcript, timing as make_timing)

OPEN_SEAT = "-"
SANDBOX_HOST, SANDBOX_PORT = "127.0.0.1", 54321
OUTPUT_KEEP = 16 * 1024
EXIT_GRACE_S = 1.0
RELAY = r"""port=$1 sock=$2; shift 2
socat -lpsocat TCP4-LISTEN:"$port",bind=127.0.0.1,reuseaddr,nodelay UNIX-CONNECT:"$sock" &
hex=$(printf '%04X' "$port"); v6=""
if grep -q " lo$" /proc/net/if_inet6 2>/dev/null; then
  v6=1; socat -lpsocat TCP6-LISTEN:"$port",bind=[::1],ipv6only=1,reuseaddr,nodelay UNIX-CONNECT:"$sock" &
fi
i=0
while ! grep -q ":$hex 00000000:0000 0A" /proc/net/tcp || { [ -n "$v6" ] && ! grep -q ":$hex 0\{32\}:0000 0A" /proc/net/tcp6; }; do
  i=$((i + 1)); if [ "$i" -gt 500 ]; then echo "locm relay: socat did not listen" >&2; exit 97; fi; sleep 0.01
done
exec "$@"
"""
"""The relay started in a client's sandbox: ``socat`` from the sandbox's 127.0.0.1:PORT (and [::1]:PORT where
its loopback has IPv6: ``localhost`` is both in its ``/etc/hosts``) to the seat's Unix socket, then, once they
listen (seen in the sandbox's own ``/proc/net/tcp`` and ``tcp6``), the client in its place. The seat takes one
connection: a second, through the other relay, is closed by the server."""
JOIN_TAIL_LINES = 8
"""Lines of a client's output a failed join shows (its stderr's end: the cause, not only the runtime's last
word)."""


def seat_kind(spec: str) -> str:
    """``local`` for a built-in agent, ``open`` for `OPEN_SEAT`, ``reserved`` for a command line."""
    if spec in AGENT_NAMES:
        return LOCAL
    if spec == OPEN_SEAT:
        return OPEN
    return RESERVED


def client_argv(spec: str, slot: int, seed: int, host: str, port: int) -> list[str]:
    """A seat's command line with its placeholders filled, as an argv; `AgentSpecError` when it does not parse,
    names an unknown placeholder, or its program is missing."""
    from locm.runner.bots import command_argv

    values = {"host": host, "port": str(port), "name": f"player{slot}", "seed": str(agent_seed(seed, slot)),
              "slot": str(slot)}
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise AgentSpecError(spec, f"the command line does not parse: {exc}", AGENT_NAMES) from None
    try:
        argv = [w.format(**values) for w in words]
    except (KeyError, IndexError, ValueError) as exc:
        raise AgentSpecError(spec, f"unknown placeholder {exc}: expected {{host}}, {{port}}, {{name}}, {{seed}} "
                                   "or {slot}", AGENT_NAMES) from None
    return command_argv(shlex.join(argv), AGENT_NAMES)


@dataclasses.dataclass
class ClientReport:
    """What became of a command seat's process: its command, exit status (None: killed at the end), the end
    of its output (stdout and stderr), and why its connection ended if it did before the game."""

    slot: int
    command: str
    exit: int | None = None
    output: str = ""
    gone: str = ""


@dataclasses.dataclass
class ServedGame:
    """A game served: the game (its event log), each command seat's report, and how the clients were
    confined (`Sandbox.meta`, or None when no client was started)."""

    game: SkyportGame
    clients: list[ClientReport]
    sandbox: dict[str, Any] | None = None


class ClientProcess:
    """One command seat's process, sandboxed or not; its output is kept (the last `OUTPUT_KEEP` bytes)."""

    def __init__(self, slot: int, spec: str, argv: list[str], policy: Sandbox) -> None:
        self.slot, self.spec, self.argv, self.policy = slot, spec, argv, policy
        self.proc: asyncio.subprocess.Process | None = None
        self.sandbox_pid: int | None = None
        self.token = ""
        self.info = -1
        self.output = bytearray()
        self.drain: asyncio.Task[None] | None = None
        self.cgroup: cgroup.BotCgroup | None = None  # its own, where there is one (memory as the kernel counts it)
        self._go = -1  # the gate of a sandbox waiting to be put in its cgroup

    async def start(self, socket_path: str | None) -> None:
        become_subreaper()
        gate = -1
        if self.policy.enabled:
            if socket_path is not None:  # no network: the relay to its seat's socket
                policy = dataclasses.replace(self.policy, binds=self.policy.binds + (socket_path,))
                wrap = ("/bin/sh", "-c", RELAY, "locm-relay", str(SANDBOX_PORT), socket_path)
            else:  # the host's network (--bot-network): its seat's own port there, as unconfined
                policy, wrap = self.policy, ()
            self.cgroup = cgroup.make(policy.limits.mem, policy.limits.procs)
            launch = build(self.argv, policy, wrap=wrap, counted=self.cgroup is not None)
            argv, env, fds = launch.argv, launch.env, launch.pass_fds
            if self.cgroup is not None:  # it runs once its sandbox is in its cgroup (`locm.runner.sandbox.cgroup`)
                gate, self._go = os.pipe()
                argv, fds = argv[:1] + ["--block-fd", str(gate)] + argv[1:], fds + (gate,)
        else:
            launch = None
            self.token = uuid.uuid4().hex
            argv, env, fds = unconfined(self.argv), {**os.environ, TOKEN_VAR: self.token}, ()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, env=env, pass_fds=fds, start_new_session=True)
        except OSError as exc:
            self.output += f"locm: cannot start it: {exc.strerror or exc}".encode()
            if launch is not None:
                launch.close()
            self._release(False)
            if self.cgroup is not None:
                self.cgroup.remove()
                self.cgroup = None
            return
        finally:
            if gate >= 0:
                os.close(gate)
        if launch is not None:
            launch.started()
            self.info = launch.info
        if self.cgroup is not None:
            self.sandbox_pid = await asyncio.to_thread(wait_child_pid, self.info, 5.0)
            try:
                if self.sandbox_pid is None:
                    raise OSError("bubblewrap did not say its sandbox's pid")
                self.cgroup.add(self.sandbox_pid)
            except OSError as exc:  # (an unwritten gate lets bubblewrap go on: the sandbox is killed instead)
                self.output += f"locm: cannot start it (its cgroup: {exc.strerror or exc})".encode()
                for kill in ((lambda: os.kill(self.sandbox_pid, signal.SIGKILL)) if self.sandbox_pid else None,
                             lambda: os.killpg(self.proc.pid, signal.SIGKILL)):
                    try:
                        if kill is not None:
                            kill()
                    except (ProcessLookupError, PermissionError):
                        pass
                self._release(False)
            else:
                self._release(True)
        self.drain = asyncio.ensure_future(self._drain())

    def _release(self, go: bool) -> None:
        """Let a sandbox waiting on ``--block-fd`` run the client (``go``), or just close its gate."""
        if self._go >= 0:
            if go:
                os.write(self._go, b"\n")
            os.close(self._go)
            self._go = -1

    async def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            data = await self.proc.stdout.read(65536)
            if not data:
                return
            self.output += data
            del self.output[:-OUTPUT_KEEP]

    async def stop(self, grace_s: float = EXIT_GRACE_S) -> int | None:
        """Let the process end by itself for `grace_s`, then kill everything it started; its exit status, or
        None when it had to be killed."""
        proc = self.proc
        if proc is None:
            return None
        status: int | None = None
        try:
            status = await asyncio.wait_for(proc.wait(), grace_s)
        except asyncio.TimeoutError:
            pass
        if self.info >= 0 and self.sandbox_pid is None:
            self.sandbox_pid = child_pid(self.info)
        for kill in ((lambda: os.kill(self.sandbox_pid, signal.SIGKILL)) if self.sandbox_pid else None,
                     lambda: os.killpg(proc.pid, signal.SIGKILL)):
            try:
                if kill is not None:
                    kill()
            except (ProcessLookupError, PermissionError):
                pass
        await proc.wait()
        if self.drain is not None:
            try:
                await asyncio.wait_for(self.drain, 2)
            except asyncio.TimeoutError:
                self.drain.cancel()
        if self.token:
            await asyncio.to_thread(reap_escaped, self.token)
        elif self.sandbox_pid is not None:
            await asyncio.to_thread(wait_gone, self.sandbox_pid)
        if self.info >= 0:
            os.close(self.info)
            self.info = -1
        if self.cgroup is not None:
            if self.cgroup.memory_reached():
                self.output += b"\nlocm: its memory reached its limit (the kernel stops it there)"
            self.cgroup.remove()
            self.cgroup = None
        return status


def sandbox_for(seats: Sequence[str], policy: Sandbox) -> Sandbox:
    """`policy` with every command seat's files hidden from the others; refused (one line) when the machine
    cannot sandbox, ``socat`` is missing, or a client's files cannot be read by its sandbox's user."""
    from locm.runner.bots import agent_files

    commands = [s for s in seats if seat_kind(s) == RESERVED]
    if not commands or not policy.enabled:
        return policy
    require(policy)
    if shutil.which("socat") is None and not policy.network:
        raise ServeError("socat is not installed (apt-get install socat): a sandboxed Skyport client reaches its "
                         "server through it; or pass --no-sandbox to run the clients unconfined", "socat")
    hide = [f for s in commands for f in agent_files(s, AGENT_NAMES)]
    for spec in commands:
        why = unreadable(client_argv(spec, 0, 0, SANDBOX_HOST, SANDBOX_PORT))
        if why:
            raise AgentSpecError(spec, why, AGENT_NAMES)
    return dataclasses.replace(policy, hide=tuple(policy.hide) + tuple(hide))


def clients_wanted(seats: Sequence[str]) -> bool:
    return any(seat_kind(s) == RESERVED for s in seats)


def check_seats(seats: Sequence[str], game_map: GameMap) -> None:
    """Refuse (one line) seats that cannot make a game on `game_map`."""
    spawns = len(spawn_tiles(game_map))
    if not 1 <= len(seats) <= spawns:
        raise ServeError(f"expected 1 to {spawns} players on map {game_map.name or '?'} (one per spawn tile), got "
                         f"{len(seats)}", "players")
    for slot, spec in enumerate(seats):
        if seat_kind(spec) == RESERVED:
            client_argv(spec, slot, 0, SANDBOX_HOST, SANDBOX_PORT)


async def play_skyport_async(seats: Sequence[str], game_map: GameMap, seed: int,
                             rules: SkyportRules = RULES_2013, timing: Timing | None = None,
                             bounds: Bounds = Bounds(), sandbox: Sandbox = Sandbox(), host: str = "127.0.0.1",
                             port: int = 0, transcript: Transcript | None = None,
                             progress: Callable[[int, int], None] | None = None,
                             listening: Callable[[int], None] | None = None,
                             bots: Sequence[str] | None = None, forfeits: bool = False,
                             tokens: Sequence[str] | None = None) -> ServedGame:
    """Play one Skyport game with these seats (see the module docstring) and return it. `listening` is told
    the TCP port of the open seats once the server listens (when there are any). Raises `JoinError` when the
    game cannot start (the clients' last output is in its message), unless seats forfeit (`forfeits`: a seat
    whose client has not joined by the deadline, or has ended before, forfeits, R-FORFEIT). When a seat is a
    command line, the game records each seat's client version (`bots`, default: its files hashed now).
    ``tokens``: each seat's join token (`locm.games.skyport.server.join_tokens`; None: the open seats are
    anyone's who connects first)."""
    check_seats(seats, game_map)
    policy = sandbox_for(seats, sandbox)
    if bots is None and clients_wanted(seats):
        bots = versions(seats)
    specs = []
    for slot, spec in enumerate(seats):
        kind = seat_kind(spec)
        agent = make_agent(spec, agent_seed(seed, slot)) if kind == LOCAL else None
        specs.append(SeatSpec(kind, spec if kind != OPEN else SERVED, agent))
    server = SkyportServer(game_map, specs, seed, rules, timing, bounds, transcript, progress,
                           tuple(bots) if bots is not None else None, forfeits,
                           tuple(tokens) if tokens is not None else None)
    clients: list[ClientProcess] = []
    watchers: list[asyncio.Future[None]] = []
    folder = tempfile.mkdtemp(prefix="locm-skyport-") if policy.enabled and clients_wanted(seats) else ""
    try:
        if folder:
            os.chmod(folder, 0o755)  # the sandboxed client runs as a user of its own
        if any(s.kind == OPEN for s in specs):
            open_port = await server.listen_tcp(host, port)
            if listening is not None:
                listening(open_port)
        for slot, spec in enumerate(seats):
            if seat_kind(spec) != RESERVED:
                continue
            path = None
            if policy.enabled and not policy.network:
                path = os.path.join(folder, f"seat{slot}.sock")
                await server.listen_seat_unix(slot, path)
                argv = client_argv(spec, slot, seed, SANDBOX_HOST, SANDBOX_PORT)
            else:
                argv = client_argv(spec, slot, seed, "127.0.0.1", await server.listen_seat_tcp(slot))
            client = ClientProcess(slot, spec, argv, policy)
            clients.append(client)
            await client.start(path)
            watchers.append(asyncio.ensure_future(_tell_exit(client, server)))
        try:
            game = await server.run()
        except JoinError as exc:
            said = ""
            for c in clients:
                if c.slot in exc.missing:
                    await c.stop(0)
                    tail = [line.strip()[:200] for line in c.output.decode("utf-8", "replace").splitlines()
                            if line.strip()][-JOIN_TAIL_LINES:] or ["(no output)"]
                    said += f"; seat {c.slot} said: {' | '.join(tail)}"
            raise JoinError(exc.missing, exc.waited, exc.detail + said) from None
        reports = []
        await server.close()
        for c in clients:
            status = await c.stop()
            seat = server.seats[c.slot]
            reports.append(ClientReport(c.slot, c.spec, status, c.output.decode("utf-8", "replace"),
                                        f"forfeited: {seat.forfeit}" if seat.forfeit else seat.gone))
        meta = policy.meta() if clients else None
        return ServedGame(game, reports, meta)
    finally:
        await server.close()
        for c in clients:
            await c.stop(0)
        for w in watchers:
            w.cancel()
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


async def _tell_exit(client: ClientProcess, server: SkyportServer) -> None:
    """Tell `server` when the client's process ends (a seat whose client has ended cannot join any more)."""
    if client.proc is not None:
        await client.proc.wait()
    server.client_exited(client.slot)


def versions(seats: Sequence[str]) -> tuple[str, ...]:
    """Each seat's client version: the SHA-256 of its command's files (`locm.tournament.schedule.bot_fingerprint`), ""
    for a built-in agent or an open seat."""
    from locm.tournament.schedule import bot_fingerprint

    return tuple(bot_fingerprint(s) or "" if seat_kind(s) == RESERVED else "" for s in seats)


def play_skyport(seats: Sequence[str], game_map: GameMap, seed: int, **options: Any) -> ServedGame:
    """`play_skyport_async` in an event loop of its own (for callers without one)."""
    return asyncio.run(play_skyport_async(seats, game_map, seed, **options))


@dataclasses.dataclass(frozen=True)
class ServeLimits:
    """The time a served game gives its clients (`locm tournament --game skyport`): ``think_ms`` a turn,
    ``join_s`` to connect, shake hands and choose a loadout, the ``timing`` of its turns (``fast``: a turn ends
    early once its player is done; ``faithful``: every turn lasts the think time, as in 2013) and the game's
    wall-clock limit (``wall_s``, R-WALL-CLOCK; None: none). `as_dict` is what a supervised worker's watchdog
    reads (`locm.tournament.run._pool`: the longest wait without a turn played)."""

    think_ms: int = 3000
    join_s: float = 60.0
    timing: TimingName = "fast"
    wall_s: float | None = None

    @property
    def served(self) -> bool:
        """Whether every game must go through the server, built-in agents only too (a clock to keep)."""
        return self.timing != "fast" or self.wall_s is not None

    def as_dict(self) -> dict[str, float]:
        return {"think_ms": float(self.think_ms), "join_ms": self.join_s * 1000 + self.think_ms}


def play_skyport_seated(rules: SkyportRules, seed: int, agents: Sequence[str], sandbox: Sandbox | None = None,
                        bots: Sequence[str] | None = None, limits: ServeLimits | None = None,
                        forfeits: bool = False, progress: Callable[[int, int], None] | None = None,
                        game_map: GameMap | None = None) -> tuple[SkyportGame, list[Any]]:
    """One game for the generic runner (`locm play --game skyport`, `locm tournament --game skyport`): `agents`
    are built-in agents' names and client command lines, on ``game_map`` (default: the rules' map, else the
    smallest built-in map that seats them), `limits`' timing and think time (default fast, the 2013 think
    time) and wall-clock limit; `bots` the clients' versions to record (default: their files hashed now);
    `forfeits`: a client that does not join in time forfeits its seat (R-FORFEIT) instead of the game failing. Returns the game and each seat's
    `locm.store.eventstore.SeatExtras` (a client's output as its stderr; a client whose connection ended early, or that
    forfeited, lost by an error)."""
    from locm.engine.skyport.definition import map_for
    from locm.store.eventstore import SeatExtras

    limits = limits or ServeLimits()
    served = play_skyport(list(agents), game_map or map_for(rules, len(agents)), seed, rules=rules,
                          sandbox=sandbox if sandbox is not None else Sandbox(),
                          timing=make_timing(limits.timing, limits.think_ms),
                          bounds=Bounds(join_s=limits.join_s, wall_s=limits.wall_s), bots=bots, forfeits=forfeits,
                          progress=progress)
    reports = {c.slot: c for c in served.clients}
    seats = [SeatExtras(stderr=_stderr(reports[slot]), error=bool(reports[slot].gone))
             if slot in reports else SeatExtras() for slot in range(len(agents))]
    return served.game, seats


def _stderr(report: ClientReport) -> str:
    """What the store keeps of a client's output: its end, and why its connection ended early, if it did."""
    tail = report.output[-4096:]
    return tail + (f"{chr(10) if tail and not tail.endswith(chr(10)) else ''}locm: {report.gone}" if report.gone
                   else "")


__all__ = ["play_skyport_seated", "ServeLimits", "versions", "OPEN_SEAT", "SANDBOX_HOST", "SANDBOX_PORT", "RELAY", "seat_kind", "client_argv", "ClientReport",
           "ServedGame", "ClientProcess", "sandbox_for", "check_seats", "play_skyport_async", "play_skyport"]
