"""A built-in Skyport agent (`engine.skyport.agents`) playing as a network client of any rev-1 server.

`ProtocolPlayer` is the client without input or output: it is fed the server's lines and returns the lines
to send. It knows only what a client is told: the gamestates (map, names, positions, health, scores,
weapons) and the re-broadcast actions, from which it keeps count of what a client can count (its own
resources, the units mined from each resource tile). At its turn it builds a `SkyportState` from that, and
lets the agent choose its actions one by one, each applied to a copy of the state by the rules core itself
(`decide_and_apply`), exactly as the agent plays inside the engine; then it sends them, and
``{"message":"endturn"}`` when it used fewer than the turn's actions (locm's fast timing ends the turn there;
a 2013 server answers it with an error, which is ignored).

Since what it rebuilds is what matters to its own actions, a game of these clients through `locm serve` is the
game the same agents play in one process: `tests/test_skyport_server.py` checks the two logs are the same.

Run one from the command line::

    python -m locm.games.skyport.netclient --agent hunter --name hunter-1 --seed 7 127.0.0.1 54321
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from locm.engine.skyport.agents import AGENT_NAMES, Agent, make_agent
from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn
from locm.engine.skyport.decide import decide_and_apply
from locm.engine.skyport.hexmap import RESOURCE_OF, step
from locm.engine.skyport.rules import RESOURCE_OF_WEAPON, RULES_2013
from locm.engine.skyport.state import LOADOUT, TURN, SkyportState
from locm.events.skyport.rules import GameMap, SkyportRules

ENDTURN_LINE = '{"message":"endturn"}'
LINE_LIMIT = 1 << 24


def _position(text: str) -> tuple[int, int]:
    j, k = text.split(",")
    return int(j), int(k)


class ProtocolPlayer:
    """One client's side of a game (see the module docstring)."""

    def __init__(self, agent: Agent, name: str, rules: SkyportRules = RULES_2013, endturn: bool = True) -> None:
        self.agent, self.name, self.endturn = agent, name, endturn
        self.rules = rules.replace(turn_limit=100_000)  # the client never ends the game itself
        self.state: SkyportState | None = None
        self.index: dict[str, int] = {}  # name -> robot, in the order of the turn-0 list
        self.me = -1
        self.mover = -1  # the robot whose turn it is, for the re-broadcasts that follow its gamestate

    def hello(self) -> list[str]:
        return [json.dumps({"message": "connect", "revision": 1, "name": self.name})]

    def feed(self, line: str) -> list[str]:
        """One line from the server; returns the lines to send."""
        try:
            message = json.loads(line)
        except ValueError:
            return []
        if not isinstance(message, dict):
            return []
        if "error" in message and self.state is None:  # a refused handshake or loadout: say why
            print(f"server says: {message['error']}", file=sys.stderr, flush=True)
        kind = message.get("message")
        if kind == "gamestate":
            return self._gamestate(message)
        if kind == "action" and self.state is not None:
            self._action(message)
        return []

    def _gamestate(self, message: dict[str, Any]) -> list[str]:
        players = message["players"]
        data = message["map"]["data"]
        if message["turn"] == 0:
            names = tuple(p["name"] for p in players)
            rows = tuple("".join(row) for row in data)
            game_map = GameMap(name="", description="", players=len(names), size=len(rows), rows=rows)
            self.state = state = SkyportState(self.rules, game_map, names)
            for i, n in reversed(list(enumerate(names))):
                self.index[n] = i
            self.me = self.index[self.name]
            state.order = tuple(range(len(names)))
            state.phase = LOADOUT
            command = self.agent.command(state, self.me)
            assert isinstance(command, ChooseLoadout)
            return [json.dumps({"message": "loadout", "primary-weapon": command.primary,
                                "secondary-weapon": command.secondary})]
        state = self.state
        assert state is not None
        state.tiles = [list(row) for row in data]
        for p in players:
            robot = state.robots[self.index[p["name"]]]
            robot.position = _position(p["position"])
            if robot.spawn == (-1, -1):
                robot.spawn = robot.position  # the first gamestate shows every robot on its spawn tile
            robot.health, robot.score = p["health"], p["score"]
            robot.primary, robot.primary_level = p["primary-weapon"]["name"], p["primary-weapon"]["level"]
            robot.secondary, robot.secondary_level = p["secondary-weapon"]["name"], p["secondary-weapon"]["level"]
            robot.needs_respawn = robot.has_to_pass = robot.health <= 0
        self.mover = self.index[players[0]["name"]]
        if self.mover != self.me:
            return []
        return self._play(message["turn"])

    def _play(self, turn: int) -> list[str]:
        state = self.state
        assert state is not None
        sim = state.copy()
        sim.phase, sim.turn, sim.current, sim.cursor = TURN, turn, self.me, sim.order.index(self.me)
        sim.used = sim.valid = 0
        sim.seq = 0
        out: list[str] = []
        while sim.phase == TURN and sim.current == self.me and sim.turn == turn:
            command = self.agent.command(sim, self.me)
            if isinstance(command, EndTurn):
                break
            assert isinstance(command, Act)
            out.append(json.dumps(command.action))
            _, sim = decide_and_apply(sim, command)
        if self.endturn and len(out) < self.rules.actions_per_turn:
            out.append(ENDTURN_LINE)
        return out

    def _action(self, message: dict[str, Any]) -> None:
        """A re-broadcast action: follow the mover's position, count what is mined and spent."""
        state = self.state
        assert state is not None
        who = self.index.get(str(message.get("from")), -1)
        if who < 0:
            return
        robot = state.robots[who]
        kind = message.get("type")
        if kind == "move":
            robot.position = step(robot.position, message["direction"])
        elif kind == "mine":
            pos = robot.position
            letter = state.tile(pos)
            if letter not in RESOURCE_OF:
                return
            mined = state.left.get(pos, 0) + 1
            if who == self.me:
                resource = RESOURCE_OF[letter]
                setattr(robot, resource, robot.resource(resource) + 1)
            if mined >= state.rules.tile_resources:
                state.tiles[pos[0]][pos[1]] = "G"
                state.left.pop(pos, None)
            else:
                state.left[pos] = mined
        elif kind == "upgrade" and who == self.me:
            weapon = message["weapon"]
            level = robot.level(weapon)
            if 0 < level <= len(state.rules.upgrade_costs):
                resource = RESOURCE_OF_WEAPON[weapon]
                setattr(robot, resource, robot.resource(resource) - state.rules.upgrade_costs[level - 1])


async def play(agent: Agent, name: str, host: str = "127.0.0.1", port: int = 54321, unix: str | None = None,
               rules: SkyportRules = RULES_2013, endturn: bool = True) -> None:
    """Connect (TCP, or the Unix socket `unix`) and play until the server closes the connection."""
    if unix:
        reader, writer = await asyncio.open_unix_connection(unix, limit=LINE_LIMIT)
    else:
        reader, writer = await asyncio.open_connection(host, port, limit=LINE_LIMIT)
    player = ProtocolPlayer(agent, name, rules, endturn)
    try:
        writer.write("".join(line + "\n" for line in player.hello()).encode())
        while True:
            line = await reader.readline()
            if not line:
                break
            out = player.feed(line.decode("utf-8", "replace"))
            if out:
                writer.write("".join(o + "\n" for o in out).encode())
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m locm.games.skyport.netclient",
                                 description="A built-in Skyport agent as a network client (protocol rev 1).",
                                 epilog="example: python -m locm.games.skyport.netclient --agent hunter --name hunter-1 "
                                        "--seed 7 127.0.0.1 54321")
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--agent", choices=AGENT_NAMES, default="random")
    ap.add_argument("--name", default="")
    ap.add_argument("--seed", type=int, default=1, help="the agent's own seed")
    ap.add_argument("--no-endturn", action="store_true", help="never send locm's endturn (a pure 2013 client)")
    a = ap.parse_args(argv)
    asyncio.run(play(make_agent(a.agent, a.seed), a.name or a.agent, a.host, a.port, endturn=not a.no_endturn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
