#!/usr/bin/env python3
"""A small Skyport AI client (protocol rev 1) in Python, standard library only: it would play the 2013 server
as it plays `locm serve`.

    python3 examples/skyport/client.py HOST PORT [NAME]
    locm tournament --game skyport --seats 2 --agents hunter "python3 examples/skyport/client.py {host} {port}" \
        --games 4 --db s.db

It takes the mortar and the droid. On its turn: a mortar shell at an enemy in range (two tiles away at
least, so that the blast spares it), else a droid along the shortest walkable path to an enemy in range, else
up to three steps toward the nearest enemy. Robots on a spawn tile cannot be hurt, so they are not targets
(but it walks toward them: they have to leave it).
"""

from __future__ import annotations

import json
import socket
import sys

DIRECTIONS = {"up": (-1, -1), "down": (1, 1), "left-up": (0, -1), "left-down": (1, 0), "right-up": (-1, 0),
              "right-down": (0, 1)}
WALKABLE = set("GERC")  # grass and the three resources
MORTAR_RANGE, DROID_RANGE = (2, 3, 4), (3, 4, 5)


def steps(dj: int, dk: int) -> int:
    """Moves between two tiles: "up" and "down" change both coordinates at once."""
    return max(abs(dj), abs(dk)) if (dj >= 0) == (dk >= 0) else abs(dj) + abs(dk)


def position(text: str) -> tuple[int, int]:
    j, k = text.split(",")
    return int(j), int(k)


class Bot:
    def __init__(self, name: str) -> None:
        self.name = name
        self.tiles: list[list[str]] = []

    def tile(self, j: int, k: int) -> str:
        return self.tiles[j][k] if 0 <= j < len(self.tiles) and 0 <= k < len(self.tiles[j]) else ""

    def path(self, start: tuple[int, int], goals: set[tuple[int, int]], blocked: set[tuple[int, int]]) -> list[str]:
        """The directions of a shortest walk from `start` to a tile of `goals` (empty when none is reachable)."""
        seen = {start: []}
        frontier = [start]
        while frontier:
            after = []
            for j, k in frontier:
                for d, (dj, dk) in DIRECTIONS.items():
                    t = (j + dj, k + dk)
                    if t in seen:
                        continue
                    if t in goals:
                        return seen[(j, k)] + [d]
                    if self.tile(*t) in WALKABLE and t not in blocked:
                        seen[t] = seen[(j, k)] + [d]
                        after.append(t)
            frontier = after
        return []

    def turn(self, players: list[dict]) -> list[dict]:
        me, others = players[0], [p for p in players[1:] if "position" in p]
        here = position(me["position"])
        levels = {me[w]["name"]: me[w]["level"] for w in ("primary-weapon", "secondary-weapon")}
        targets = {position(p["position"]) for p in others
                   if p["health"] > 0 and self.tile(*position(p["position"])) != "S"}
        bodies = {position(p["position"]) for p in others}
        if self.tile(*here) != "S":  # nobody fires from a spawn tile
            for j, k in sorted(targets):
                if 2 <= steps(j - here[0], k - here[1]) <= MORTAR_RANGE[levels["mortar"] - 1]:
                    return [{"type": "mortar", "coordinates": f"{j - here[0]},{k - here[1]}"}]
            walk = self.path(here, targets, bodies)
            if walk and len(walk) <= DROID_RANGE[levels["droid"] - 1]:
                return [{"type": "droid", "sequence": walk}]
        alive = {position(p["position"]) for p in others if p["health"] > 0}  # on a spawn tile too: it leaves
        walk = self.path(here, {(j + dj, k + dk) for j, k in alive for dj, dk in DIRECTIONS.values()}, bodies)
        return [{"type": "move", "direction": d} for d in walk[:3]]


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    bot = Bot(sys.argv[3] if len(sys.argv) > 3 else "pybot")
    with socket.create_connection((host, port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        out = sock.makefile("w", encoding="utf-8", newline="\n")

        def send(message: dict) -> None:
            out.write(json.dumps(message) + "\n")
            out.flush()

        send({"message": "connect", "revision": 1, "name": bot.name})
        for line in sock.makefile("r", encoding="utf-8"):
            msg = json.loads(line)
            if "error" in msg:
                print("server says:", msg["error"], file=sys.stderr)
            elif msg.get("message") == "gamestate":
                bot.tiles = msg["map"]["data"]
                if msg["turn"] == 0:
                    send({"message": "loadout", "primary-weapon": "mortar", "secondary-weapon": "droid"})
                elif msg["players"][0]["name"] == bot.name:
                    actions = bot.turn(msg["players"])
                    for action in actions:
                        send({"message": "action", **action})
                    if len(actions) < 3:  # locm's addition: end the turn now rather than at the think time
                        send({"message": "endturn"})


if __name__ == "__main__":
    main()
