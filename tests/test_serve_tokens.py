"""`locm serve --tokens` (issue 32 item 5): each open seat has a join token, the name its client connects with;
a connection without a free seat's token is refused and holds no seat, so nobody who merely reaches the port
can keep a seat until the join deadline. Unchanged 2013 clients join: the token goes in the handshake's name,
which they take from their command line (examples/skyport/client.py, client.js)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.skyport.agents import make_agent
from locm.engine.skyport.game import redecide
from locm.engine.skyport.rules import RULES_2013, builtin_map
from locm.engine.skyport.setup import username_error
from locm.errors import ServeError
from locm.games.skyport.netclient import play as net_play
from locm.games.skyport.server import (OPEN, REFUSED, Bounds, Fast, SeatSpec, SkyportServer, join_tokens)

ROOT = Path(__file__).resolve().parent.parent
HANDSHAKE = '{{"message":"connect","revision":{rev},"name":"{name}"}}\n'


def test_join_tokens_are_names_the_protocol_takes_one_per_open_seat_and_fresh():
    kinds = ["local", OPEN, "reserved", OPEN]
    tokens = join_tokens(kinds)
    assert tokens[0] == tokens[2] == "" and tokens[1].startswith("s1-") and tokens[3].startswith("s3-")
    for t in (tokens[1], tokens[3]):
        assert username_error(t) == "" and len(t) <= 16
    assert set(join_tokens(kinds)).isdisjoint({tokens[1], tokens[3]})  # new ones each game


@pytest.mark.parametrize("tokens, message", [
    (("s0-aaaaaaaaaaaa",), "expected one for each of the 2 seats, got 1"),
    (("s0-aaaaaaaaaaaa", "x"), "Username too short"),
    (("s0-aaaaaaaaaaaa", "bad token!"), "invalid characters"),
    (("s0-aaaaaaaaaaaa", "s0-aaaaaaaaaaaa"), "two open seats have the same token"),
])
def test_bad_tokens_are_refused_in_one_line(tokens, message):
    with pytest.raises(ServeError, match=message):
        SkyportServer(builtin_map("duel-2p"), [SeatSpec(OPEN), SeatSpec(OPEN)], 1, tokens=tokens)


async def _read_all(reader: asyncio.StreamReader, within: float = 5) -> list[dict]:
    data = await asyncio.wait_for(reader.read(), within)
    return [json.loads(line) for line in data.decode().splitlines()]


async def _seated(server: SkyportServer, name: str) -> None:
    for _ in range(500):
        if any(s.name == name for s in server.seats):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{name} got no seat: {[s.name for s in server.seats]}")


async def _intruders_and_players():
    """Two open seats with tokens. Before the players come: a silent connection, one with a made-up name, one
    that guesses a token's form, one that gets the handshake wrong first. Then the players join with their
    tokens, the second player's first; a reused token is refused."""
    tokens = join_tokens([OPEN, OPEN])
    server = SkyportServer(builtin_map("duel-2p"), [SeatSpec(OPEN), SeatSpec(OPEN)], 2,
                           RULES_2013.replace(turn_limit=6), Fast(3000), Bounds(handshake_s=4), tokens=tokens)
    port = await server.listen_tcp("127.0.0.1", 0)
    silent = await asyncio.open_connection("127.0.0.1", port)
    intruder = await asyncio.open_connection("127.0.0.1", port)
    intruder[1].write(HANDSHAKE.format(rev=1, name="intruder").encode())
    guesser = await asyncio.open_connection("127.0.0.1", port)
    guesser[1].write(HANDSHAKE.format(rev=1, name="s1-" + "a" * 12).encode())
    refused = [await _read_all(intruder[0], 2.5), await _read_all(guesser[0], 2.5)]  # at once, not at 4 s
    assert all(s.writer is None and not s.name for s in server.seats)  # none of them holds a seat
    # a client that first sends a wrong revision is answered as 2013 answers it, then joins with its token
    late = await asyncio.open_connection("127.0.0.1", port)
    late[1].write((HANDSHAKE.format(rev=2, name=tokens[1]) + HANDSHAKE.format(rev=1, name=tokens[1])).encode())
    await _seated(server, tokens[1])
    reused = await asyncio.open_connection("127.0.0.1", port)
    reused[1].write(HANDSHAKE.format(rev=1, name=tokens[1]).encode())
    refused.append(await _read_all(reused[0], 2.5))
    late[1].close()  # the seat is freed before its loadout: its token's client comes again
    await asyncio.sleep(0.1)
    clients = [asyncio.ensure_future(net_play(make_agent("hunter", 1), tokens[1], port=port))]
    await _seated(server, tokens[1])
    clients.append(asyncio.ensure_future(net_play(make_agent("random", 2), tokens[0], port=port)))
    try:
        game = await asyncio.wait_for(server.run(), 10)
        said = await asyncio.wait_for(silent[0].read(), 10)
    finally:
        await server.close()
        silent[1].close()
    await asyncio.wait_for(asyncio.gather(*clients), 5)
    return tokens, game, refused, said


def test_a_connection_without_its_seats_token_is_refused_and_holds_no_seat():
    tokens, game, refused, said = asyncio.run(_intruders_and_players())
    assert refused == [[{"error": REFUSED}]] * 3
    assert said == b""  # closed without a word after the handshake time
    assert [r.name for r in game.state.robots] == list(tokens)  # each token's seat, whoever came first
    assert game.state.turn == 6 and redecide(game.log)[1] == -1


async def _unchanged_clients(commands: list[list[str]]):
    tokens = join_tokens([OPEN] * len(commands))
    server = SkyportServer(builtin_map("duel-2p"), [SeatSpec(OPEN)] * len(commands), 4,
                           RULES_2013.replace(turn_limit=6), Fast(3000), tokens=tokens)
    port = await server.listen_tcp("127.0.0.1", 0)
    procs = [await asyncio.create_subprocess_exec(*argv, "127.0.0.1", str(port), token,
                                                  stdout=asyncio.subprocess.DEVNULL,
                                                  stderr=asyncio.subprocess.DEVNULL)
             for argv, token in zip(commands, tokens)]
    try:
        game = await asyncio.wait_for(server.run(), 20)
    finally:
        await server.close()
        for p in procs:
            await asyncio.wait_for(p.wait(), 5)
    return tokens, game


def test_unchanged_2013_clients_join_with_their_token_as_their_name():
    python = [sys.executable, str(ROOT / "examples" / "skyport" / "client.py")]
    node = ["node", str(ROOT / "examples" / "skyport" / "client.js")] if shutil.which("node") else python
    tokens, game = asyncio.run(_unchanged_clients([python, node]))
    assert [r.name for r in game.state.robots] == list(tokens) and game.state.turn == 6
    assert redecide(game.log)[1] == -1


def test_serve_prints_each_open_seats_token():
    result = CliRunner().invoke(cli, ["serve", "--game", "skyport", "--map", "duel-2p", "--port", "0",
                                      "--seat", "hunter", "--tokens", "--join-timeout", "1"])
    assert result.exit_code == 2, result.output  # nobody came: the join deadline's one-line error
    lines = [line for line in result.output.splitlines() if ": join token " in line]
    assert len(lines) == 1 and lines[0].startswith("locm serve: seat 1: join token s1-"), result.output
    assert username_error(lines[0].rsplit(" ", 1)[1]) == ""
    assert "each connecting with its seat's join token as its name" in result.output
    help_text = CliRunner().invoke(cli, ["serve", "--help"]).output
    assert "--tokens" in help_text and "join token" in help_text
