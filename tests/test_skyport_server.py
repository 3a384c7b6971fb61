"""`locm serve --game skyport`: the 2013 protocol over real sockets (locm/games/skyport/server.py), clients started
from command lines in the sandbox (locm/games/skyport/netbots.py), the oracle's games played again through TCP
(locm/games/skyport/wire.py) and a Node.js client written from the protocol text (examples/skyport/client.js)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.skyport.agents import agent_seed, make_agent, play
from locm.engine.skyport.game import SkyportGame, redecide
from locm.engine.skyport.rules import RULES_2013, builtin_map
from locm.events.skyport.codec import from_jsonl
from locm.games.skyport.netbots import play_skyport
from locm.replay.skyport.oracle import read_records
from locm.errors import JoinError
from locm.runner.sandbox.bwrap import Sandbox, probe
from locm.games.skyport.netclient import play as net_play
from locm.games.skyport.server import (FACTS, RESERVED, Bounds, Fast, Faithful, JavaLineReader, SeatSpec, SkyportServer,
                                 Timing)
from locm.games.skyport.wire import replay_log
from tests.skyport_helpers import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
PROBE_BOT = ROOT / "tests" / "bots" / "skyport_probe_bot.py"
NODE_CLIENT = ROOT / "examples" / "skyport" / "client.js"
SANDBOX = probe()


def test_lines_are_read_as_javas_readline_reads_them():
    reader = JavaLineReader(limit=8)
    got = reader.feed(b"a\r") + reader.feed(b"\nb\rc\r\n") + reader.feed("\u00e9".encode()[:1])
    got += reader.feed("\u00e9".encode()[1:] + b"\nlast", ) + reader.feed(b"", final=True)
    assert got == ["a", "b", "c", "\u00e9", "last"]
    long = JavaLineReader(limit=8)
    assert long.feed(b"12345678\n123456789\nnext\n") == ["12345678"] and long.overflow
    assert long.feed(b"more\n") == []


async def _served_by_netclients(seed: int, agents: list[str], turns: int, timing: Timing = Fast(5000)
                                ) -> SkyportGame:
    game_map = builtin_map("duel-2p")
    rules = RULES_2013.replace(turn_limit=turns)
    server = SkyportServer(game_map, [SeatSpec(RESERVED, a) for a in agents], seed, rules, timing)
    ports = [await server.listen_seat_tcp(slot) for slot in range(len(agents))]
    clients = [asyncio.ensure_future(net_play(make_agent(a, agent_seed(seed, i)), f"{a}-{i}", port=ports[i]))
               for i, a in enumerate(agents)]
    try:
        game = await server.run()
    finally:
        await server.close()
    await asyncio.wait_for(asyncio.gather(*clients), 10)
    return game


@pytest.mark.parametrize("seed", [5, 12])
def test_agents_playing_as_network_clients_play_the_game_they_play_in_process(seed):
    agents, turns = ["hunter", "random"], 40
    served = asyncio.run(_served_by_netclients(seed, agents, turns))
    names = tuple(f"{a}-{i}" for i, a in enumerate(agents))
    alone = play(SkyportGame.new(names, seed, builtin_map("duel-2p"), RULES_2013.replace(turn_limit=turns),
                                 tuple(agents)), [make_agent(a, agent_seed(seed, i)) for i, a in enumerate(agents)])
    assert served.state.turn == turns and any(r.score for r in served.state.robots), f"seed {seed}"
    assert [type(e) for e in served.log] == [type(e) for e in alone.log], f"seed {seed}"
    assert served.log == alone.log, f"seed {seed}"


def test_faithful_timing_waits_out_every_turn_and_takes_the_same_actions():
    """The clients send their turn at once; fast timing ends each turn then, faithful after the think time
    (every one of the 8 turns, and the loadout phase): the two games are the same."""
    fast = asyncio.run(_served_by_netclients(3, ["hunter", "hunter"], 8))
    started = time.monotonic()
    faithful = asyncio.run(_served_by_netclients(3, ["hunter", "hunter"], 8, Faithful(150)))
    assert time.monotonic() - started >= 9 * 0.15
    assert faithful.log == fast.log


SPAM = b'{"message":"action","type":"mine"}\n' * 20_000


async def _hostile_game(bounds: Bounds) -> tuple[SkyportServer, SkyportGame]:
    """Seat 0 a built-in hunter; seat 1 a client that stops reading; seat 2 one that sends an endless line;
    seat 3 one that sends 20,000 lines at once."""
    game_map = builtin_map("crossroads-4p")
    names = ("deaf", "flood", "spam")
    server = SkyportServer(game_map, [SeatSpec("local", "hunter", make_agent("hunter", 1))]
                           + [SeatSpec(RESERVED, name) for name in names], 9,
                           RULES_2013.replace(turn_limit=90), Fast(100), bounds)
    ports = [await server.listen_seat_tcp(slot) for slot in (1, 2, 3)]
    run = asyncio.ensure_future(server.run())
    conns = []
    for name, port in zip(names, ports):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # what the kernel holds for it stays small
        sock.connect(("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
        writer.write(json.dumps({"message": "connect", "revision": 1, "name": name}).encode() + b"\n"
                     b'{"message":"loadout","primary-weapon":"laser","secondary-weapon":"mortar"}\n')
        conns.append((reader, writer))
    conns[0][1].transport.pause_reading()  # the deaf client never reads what it is sent
    while b'"turn":1,' not in await conns[1][0].readline():  # once the game has begun: before, the seat is freed
        pass
    conns[1][1].write(b'{"message":"action","type":"move","direction":"' + b"x" * 50_000)
    conns[2][1].write(SPAM)
    drain = asyncio.ensure_future(conns[2][0].read())  # the spammer reads all it is sent
    try:
        game = await asyncio.wait_for(run, 20)
    finally:
        await server.close()
        drain.cancel()
        for _, writer in conns:
            writer.close()
    return server, game


def test_a_client_that_floods_spams_or_never_reads_is_bounded_and_the_game_goes_on():
    bounds = Bounds(line_chars=4096, unsent_bytes=20_000, socket_buffer=4096, lines_per_turn=8,
                    bytes_per_turn=4096)
    server, game = asyncio.run(_hostile_game(bounds))
    assert server.seats[1].gone == "more than 20000 bytes unread"
    assert server.seats[2].gone == "a line longer than 4096 characters"
    spam = server.seats[3]
    assert spam.gone == "" and 0 < spam.consumed <= 91 * 8 * 36 < len(SPAM)  # 8 lines of 36 bytes a turn
    assert game.state.turn == 90 and game.over
    assert redecide(game.log)[1] == -1


def test_oracle_games_replayed_through_tcp_are_byte_identical():
    paths = sorted(SAMPLES.glob("*.jsonl.gz"))[:6]
    for path in paths:
        result = asyncio.run(replay_log(path))
        assert result.identical, f"{path.name}: {result.summary()}"
        assert result.lines > 100 and result.sent > 50


def test_a_server_line_that_differs_from_the_oracles_is_reported_where_it_is():
    path = SAMPLES / "game-s1-0027.jsonl.gz"
    records = read_records(path)
    hit = next(i for i, r in enumerate(records) if r["type"] == "msg" and r["dir"] == "s2c"
               and r["player"] == 1 and '"turn":7,' in r["line"])
    records[hit] = {**records[hit], "line": records[hit]["line"].replace('"turn":7,', '"turn":8,')}
    result = asyncio.run(replay_log(path, records))
    assert not result.identical
    assert result.turn == 6 and result.where == "turn", result.summary()
    # The log check of the same log says the same in the same order: expected the 2013 server's (the log's 8),
    # got locm's (7), as the TCP replay does.
    from locm.replay.skyport.conformance import check_log

    checked = check_log(path, records)
    assert (result.expected, result.got) == (8, 7) == (checked.expected, checked.got), (result.summary(),
                                                                                       checked.summary())
    assert "expected 8   (the 2013 server)" in checked.summary() and "got      7   (locm)" in result.summary()


def test_a_line_the_2013_server_read_across_a_turns_end_is_put_back_there():
    """The log is made to show a mover's last action after its turn's end although the server carried it out
    (what the proxy sees when the 2013 server's reader and game threads race): played as logged it differs;
    the replay finds the one line to read before the end, within the think time, and is then identical."""
    path = SAMPLES / "game-s1-0027.jsonl.gz"
    records = read_records(path)
    state = next(i for i, r in enumerate(records) if r["type"] == "msg" and r["dir"] == "s2c"
                 and r["player"] == 0 and '"turn":9,' in r["line"] and r["line"].startswith('{"players"'))
    mover = json.loads(records[state]["line"])["players"][0]["name"]
    slot = next(p["slot"] for p in records[0]["players"] if p["name"] == mover)
    end = next(i for i in range(state, len(records)) if records[i].get("player") == slot
               and records[i]["line"] == '{"message":"endturn"}')
    line = max(i for i in range(state, end) if records[i].get("player") == slot and records[i]["dir"] == "c2s")
    late = {**records[line], "t": records[end]["t"]}
    records = records[:line] + records[line + 1:end + 1] + [late] + records[end + 1:]
    assert not asyncio.run(replay_log(path, records, races=0)).identical
    result = asyncio.run(replay_log(path, records))
    assert result.identical and result.moved == 1, result.summary()


def _host_port() -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    return listener


@pytest.mark.skipif(not SANDBOX.ok, reason=f"no sandbox here: {SANDBOX.reason}")
@pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")
def test_a_sandboxed_client_reaches_its_server_and_nothing_else(tmp_path):
    """The probe bot tries a port listening on the host's loopback, the other seat's Unix socket and an
    outside address before it plays; its name says what it reached. Unconfined, it reaches the host's port
    (the probe can fail); in the sandbox, nothing but its own server."""
    with _host_port() as listener:
        spec = f"{sys.executable} {PROBE_BOT} {{host}} {{port}} {listener.getsockname()[1]} {{slot}}"
        served = play_skyport([spec, spec], builtin_map("duel-2p"), 3, rules=RULES_2013.replace(turn_limit=4),
                              timing=Fast(3000))
        loose = play_skyport([spec, "hunter"], builtin_map("duel-2p"), 3, rules=RULES_2013.replace(turn_limit=2),
                             timing=Fast(3000), sandbox=Sandbox(enabled=False))
    assert [r.name for r in served.game.state.robots] == ["sealed0", "sealed1"], served.clients
    assert served.game.state.turn == 4 and served.sandbox is not None
    assert loose.game.state.robots[0].name.startswith("leak-H")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_client_plays_a_hunter_through_locm_serve_and_the_log_verifies(tmp_path):
    log = tmp_path / "node.jsonl"
    sandbox = [] if SANDBOX.ok and shutil.which("socat") else ["--no-sandbox"]
    result = CliRunner().invoke(cli, [
        "serve", "--game", "skyport", "--map", "duel-2p", "--turns", "16", "--seed", "4", "--think-ms", "5000",
        "--seat", "hunter", "--seat", f"node {NODE_CLIENT} {{host}} {{port}}", "--log", str(log), *sandbox])
    assert result.exit_code == 0, result.output
    assert "nodebot" in result.output and "re-decided: identical" in result.output
    events = from_jsonl(log.read_bytes())
    assert redecide(events)[1] == -1
    acted = [e for e in events if isinstance(e, FACTS) and e.player == 1]
    assert acted, "the Node.js client did nothing"


SKYBOT = ROOT.parent / "shared" / "skyport-oracle" / "bots" / "skybot.py"


@pytest.mark.skipif(not SKYBOT.is_file(), reason=f"the oracle's bots are not here ({SKYBOT})")
def test_the_oracles_own_bots_play_through_locm_serve_and_the_transcript_conforms(tmp_path):
    """The oracle's bots, unchanged (one of them sends malformed and lenient JSON, a bad handshake and
    loadout, invalid and late actions; one leaves), started by `locm serve`: what each was sent, checked by
    `locm conformance` as it checks the Java server's logs."""
    transcript = tmp_path / "served.jsonl"
    sandbox = [] if SANDBOX.ok and shutil.which("socat") else ["--no-sandbox"]
    seats = []
    for slot, style in enumerate(["chaos", "sloppy", "hunter", "quitter"]):
        seats += ["--seat", f"python3 {SKYBOT} --style {style} --name p{slot}-{style} --host {{host}} "
                            f"--port {{port}} --seed {slot + 1}"]
    served = CliRunner().invoke(cli, ["serve", "--game", "skyport", "--map", "crossroads-4p", "--turns", "30",
                                      "--seed", "11", "--think-ms", "100", "--transcript", str(transcript),
                                      *seats, *sandbox])
    assert served.exit_code == 0, served.output
    checked = CliRunner().invoke(cli, ["conformance", "--game", "skyport", str(transcript)])
    assert checked.exit_code == 0 and "identical: 30 turns" in checked.output, checked.output
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    sent = [r["line"] for r in lines if r.get("dir") == "c2s" and r["player"] == 0]
    assert any("Invalid" in r["line"] or "Unexpected" in r["line"] for r in lines if r.get("dir") == "s2c"), \
        "the chaos bot's errors were not answered"
    assert any(not line.startswith("{") for line in sent) and len(sent) > 10, sent


async def _open_seats() -> tuple[SkyportGame, bytes]:
    """Two open seats: a silent connection takes the first, a client the second; the silent one is closed
    after the handshake time, and the next client gets its seat."""
    server = SkyportServer(builtin_map("duel-2p"), [SeatSpec("open"), SeatSpec("open")], 2,
                           RULES_2013.replace(turn_limit=6), Fast(3000), Bounds(handshake_s=0.3))
    port = await server.listen_tcp()
    silent = await asyncio.open_connection("127.0.0.1", port)

    async def join(name: str) -> asyncio.Future[None]:
        client = asyncio.ensure_future(net_play(make_agent("hunter", 1), name, port=port))
        for _ in range(500):
            if any(s.name == name for s in server.seats):
                return client
            await asyncio.sleep(0.01)
        raise AssertionError(f"{name} got no seat: {[s.name for s in server.seats]}")

    clients = [await join("second-in")]
    said = await asyncio.wait_for(silent[0].read(), 5)
    clients.append(await join("third-in"))
    try:
        game = await asyncio.wait_for(server.run(), 10)
    finally:
        await server.close()
        silent[1].close()
    await asyncio.wait_for(asyncio.gather(*clients), 5)
    return game, said


def test_open_seats_go_in_connection_order_and_a_silent_connection_gives_its_seat_up():
    game, said = asyncio.run(_open_seats())
    assert said == b""  # closed without a word after the protocol's 10 s (0.3 s here)
    assert [r.name for r in game.state.robots] == ["third-in", "second-in"]
    assert game.state.turn == 6 and redecide(game.log)[1] == -1


@pytest.mark.parametrize("args, message", [
    (["--map", "nowhere"], "--map 'nowhere': expected a built-in map"),
    (["--map", "duel-2p", "--players", "5"], "expected 1 to 2 players on map duel-2p"),
    (["--map", "duel-2p", "--seat", "random", "--seat", "nosuchbot {port}", "--no-sandbox"], "nosuchbot"),
])
def test_bad_serve_input_is_a_one_line_error(args, message):
    result = CliRunner().invoke(cli, ["serve", "--game", "skyport", "--turns", "2", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_a_seat_that_never_joins_ends_the_wait_with_a_one_line_error():
    result = CliRunner().invoke(cli, ["serve", "--game", "skyport", "--map", "duel-2p", "--port", "0",
                                      "--seat", "hunter", "--join-timeout", "1"])
    assert result.exit_code == 2, result.output
    assert "the game could not start within 1 s (seat 1: no connection)" in result.output


def test_a_served_game_is_stored_and_verifies(tmp_path):
    db = tmp_path / "served.db"
    args = ["serve", "--game", "skyport", "--map", "duel-2p", "--turns", "10", "--seed", "6", "--seat", "hunter",
            "--seat", "random", "--db", str(db)]
    first, again = CliRunner().invoke(cli, args), CliRunner().invoke(cli, args)
    assert first.exit_code == 0 and "stored: skyport-" in first.output, first.output
    assert again.exit_code == 0 and "stored nothing new" in again.output, again.output
    verified = CliRunner().invoke(cli, ["verify", "--db", str(db)])
    assert verified.exit_code == 0 and "1 good, 0 bad" in verified.output, verified.output


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_locm_play_seats_a_skyport_client_through_the_server(tmp_path):
    log, db = tmp_path / "p.jsonl", tmp_path / "p.db"
    sandbox = [] if SANDBOX.ok and shutil.which("socat") else ["--no-sandbox"]
    result = CliRunner().invoke(cli, ["play", "--game", "skyport", "--seed", "3", "--p0", "hunter", "--p1",
                                      f"node {NODE_CLIENT} {{host}} {{port}}", "--log", str(log), "--db", str(db),
                                      *sandbox])
    assert result.exit_code == 0, result.output
    assert "after 200 turns" in result.output and "stored: skyport-" in result.output
    events = from_jsonl(log.read_bytes())
    assert redecide(events)[1] == -1 and any(isinstance(e, FACTS) and e.player == 1 for e in events)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.skipif(not (SANDBOX.ok and shutil.which("socat")), reason="no sandbox or no socat here")
def test_an_unchanged_client_that_connects_to_localhost_plays_in_the_sandbox_without_the_network():
    """The Node.js client connects to the name ``localhost`` and the official port, as the 2013 SDK clients
    do: the sandbox's /etc/hosts names its loopback (127.0.0.1 and ::1), where the relay listens on both."""
    served = play_skyport(["hunter", f"node {NODE_CLIENT} localhost 54321"], builtin_map("duel-2p"), 4,
                          rules=RULES_2013.replace(turn_limit=6), timing=Fast(5000))
    assert served.game.state.turn == 6 and served.game.state.robots[1].name == "nodebot", served.clients


@pytest.mark.skipif(not (SANDBOX.ok and shutil.which("socat")), reason="no sandbox or no socat here")
def test_a_client_in_the_sandbox_resolves_localhost_to_both_loopbacks(tmp_path):
    """What the relay serves on the sandbox's ::1 reaches the seat too: a client that connects to [::1]."""
    client = tmp_path / "v6.py"
    client.write_text(
        "import json, socket, sys\n"
        "found = sorted({a[4][0] for a in socket.getaddrinfo('localhost', 54321, type=socket.SOCK_STREAM)})\n"
        "print('localhost is', found, file=sys.stderr, flush=True)\n"
        "s = socket.create_connection(('::1', 54321), timeout=5)\n"
        "s.sendall(json.dumps({'message': 'connect', 'revision': 1, 'name': 'six'}).encode() + b'\\n')\n"
        "s.recv(100)\n")
    client.chmod(0o644)
    tmp_path.chmod(0o755)
    served = play_skyport(["hunter", f"{sys.executable} {client}"], builtin_map("duel-2p"), 4,
                          rules=RULES_2013.replace(turn_limit=2), timing=Fast(2000), forfeits=True,
                          bounds=Bounds(join_s=5))
    assert "localhost is ['127.0.0.1', '::1']" in served.clients[0].output, served.clients
    assert served.game.state.robots[1].name == "six", served.clients


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.skipif(not SANDBOX.ok, reason="no sandbox here")
def test_two_client_seats_with_the_hosts_network_never_share_a_port():
    """With --bot-network the clients share the host's loopback: each seat has a port of its own there (one
    relay port for all made the second seat's relay fail and a client reach the other seat)."""
    spec = f"node {NODE_CLIENT} {{host}} {{port}} {{name}}"
    served = play_skyport([spec, spec], builtin_map("duel-2p"), 4, rules=RULES_2013.replace(turn_limit=4),
                          timing=Fast(5000), sandbox=Sandbox(network=True))
    assert [r.name for r in served.game.state.robots] == ["player0", "player1"], served.clients
    assert served.game.state.turn == 4 and not any(c.gone for c in served.clients), served.clients


def test_a_failed_join_shows_the_end_of_the_clients_stderr_not_only_its_last_line(tmp_path):
    """A client that dies at start says why a few lines before its runtime's last word (Node.js prints its
    version last): the join's one-line error carries those lines."""
    client = tmp_path / "dies.py"
    client.write_text("import sys\nprint('Error: Cannot find module ws', file=sys.stderr)\n"
                      "print('    at Module._resolveFilename', file=sys.stderr)\nprint('Node.js v20.20.2', file=sys.stderr)\n"
                      "sys.exit(1)\n")
    client.chmod(0o644)
    tmp_path.chmod(0o755)
    sandbox = Sandbox() if SANDBOX.ok and shutil.which("socat") else Sandbox(enabled=False)
    with pytest.raises(JoinError) as caught:
        play_skyport(["hunter", f"{sys.executable} {client}"], builtin_map("duel-2p"), 4,
                     rules=RULES_2013.replace(turn_limit=2), timing=Fast(2000), sandbox=sandbox,
                     bounds=Bounds(join_s=3))
    message = str(caught.value)
    assert ("seat 1 said: Error: Cannot find module ws | at Module._resolveFilename | Node.js v20.20.2"
            in message), message
    assert "\n" not in message


@pytest.mark.skipif(not (SANDBOX.ok and shutil.which("socat")), reason="no sandbox or no socat here")
def test_a_client_that_holds_more_memory_than_its_limit_is_stopped_by_the_kernel(tmp_path):
    """A client's memory is counted as the kernel counts it (its cgroup, `locm.runner.sandbox.cgroup`): 1 GB held
    through a shared mapping, which RLIMIT_DATA does not count, against the default 768 MB."""
    from locm.runner.sandbox import cgroup

    if not cgroup.available():
        pytest.skip("no writable cgroup here (RLIMIT_DATA is the fallback)")
    client = tmp_path / "greedy.py"
    client.write_text("import mmap\nm = mmap.mmap(-1, 1 << 30)\nfor i in range(0, 1 << 30, 4096):\n    m[i] = 1\n"
                      "print('held it all', flush=True)\n")
    client.chmod(0o644)
    tmp_path.chmod(0o755)
    served = play_skyport(["hunter", f"{sys.executable} {client}"], builtin_map("duel-2p"), 4,
                          rules=RULES_2013.replace(turn_limit=2), timing=Fast(2000), forfeits=True,
                          bounds=Bounds(join_s=30))
    (report,) = served.clients
    assert "held it all" not in report.output and "its memory reached its limit" in report.output, report


@pytest.mark.skipif(shutil.which("mcs") is None or shutil.which("mono") is None, reason="mono-mcs is not installed")
@pytest.mark.skipif(not (SANDBOX.ok and shutil.which("socat")), reason="no sandbox or no socat here")
def test_a_csharp_client_that_connects_to_localhost_plays_in_the_sandbox_without_the_network(tmp_path):
    """A C# client (Mono) that connects to ``localhost``:54321 as the 2013 C# SDK does, given no address."""
    import subprocess

    exe = tmp_path / "SkyportClient.exe"
    subprocess.run(["mcs", f"-out:{exe}", str(ROOT / "tests" / "bots" / "real" / "SkyportClient.cs")], check=True,
                   capture_output=True, timeout=300)
    exe.chmod(0o755)
    tmp_path.chmod(0o755)
    served = play_skyport(["hunter", f"mono {exe}"], builtin_map("duel-2p"), 4,
                          rules=RULES_2013.replace(turn_limit=6), timing=Fast(5000))
    assert served.game.state.turn == 6 and served.game.state.robots[1].name == "csharpbot", served.clients


async def _served_on_localhost() -> SkyportGame:
    """Two open seats served on ``localhost``: one client connects to 127.0.0.1, the other to ::1."""
    server = SkyportServer(builtin_map("duel-2p"), [SeatSpec("open"), SeatSpec("open")], 2,
                           RULES_2013.replace(turn_limit=4), Fast(3000))
    port = await server.listen_tcp("localhost", 0)
    clients = [asyncio.ensure_future(net_play(make_agent("hunter", 1), "over-v4", host="127.0.0.1", port=port))]
    for _ in range(500):
        if any(s.name == "over-v4" for s in server.seats):
            break
        await asyncio.sleep(0.01)
    clients.append(asyncio.ensure_future(net_play(make_agent("hunter", 2), "over-v6", host="::1", port=port)))
    try:
        game = await asyncio.wait_for(server.run(), 10)
    finally:
        await server.close()
    await asyncio.wait_for(asyncio.gather(*clients), 5)
    return game


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 here")
def test_localhost_is_served_on_both_loopbacks_on_one_port():
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    game = asyncio.run(_served_on_localhost())
    assert sorted(r.name for r in game.state.robots) == ["over-v4", "over-v6"] and game.state.turn == 4


async def _served_game(first: str, second: str) -> SkyportGame:
    """Two open seats taken by clients named alike that connect by themselves, playing ``first`` and
    ``second``: the created event is the same whatever they play."""
    server = SkyportServer(builtin_map("duel-2p"), [SeatSpec("open", "remote"), SeatSpec("open", "remote")], 5,
                           RULES_2013.replace(turn_limit=8), Fast(3000))
    port = await server.listen_tcp("127.0.0.1", 0)
    clients = []
    for name, agent in (("alpha", first), ("beta", second)):
        clients.append(asyncio.ensure_future(net_play(make_agent(agent, 1), name, port=port)))
        for _ in range(500):
            if any(s.name == name for s in server.seats):
                break
            await asyncio.sleep(0.01)
    try:
        game = await asyncio.wait_for(server.run(), 10)
    finally:
        await server.close()
    await asyncio.wait_for(asyncio.gather(*clients), 5)
    return game


def test_two_served_games_alike_in_all_but_their_play_never_share_an_id(tmp_path):
    """Same map, seed, turns, names and seats: the created events are equal, the games are not. Each is
    named by its whole log, stored beside the other, and an import of its log finds the same id."""
    from locm.engine import registry
    from locm.engine.seam import game_id_of
    from locm.games.registry import checker
    from locm.store.eventstore import GameExtras, open_store
    from locm.verify.logimport import import_log

    a = asyncio.run(_served_game("hunter", "random"))
    b = asyncio.run(_served_game("random", "hunter"))
    skyport = registry.get("skyport")
    assert skyport.codec.to_json(a.log[0]) == skyport.codec.to_json(b.log[0])
    assert [e.__class__ for e in a.log] != [e.__class__ for e in b.log] or a.log != b.log
    ids = game_id_of(skyport, a.log), game_id_of(skyport, b.log)
    assert ids[0] != ids[1] and skyport.game_id(a.log[0]) == skyport.game_id(b.log[0])
    with open_store(tmp_path / "s.db", checker=checker()) as store:
        for gid, game in zip(ids, (a, b)):
            store.append_game(skyport, GameExtras(game_id=gid), game.log)
        assert store.count() == 2
    with open_store(tmp_path / "t.db", checker=checker()) as store:
        assert import_log(store, skyport, skyport.codec.to_jsonl(b.log), "b.jsonl") == (ids[1], True)
