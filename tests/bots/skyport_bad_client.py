#!/usr/bin/env python3
"""A Skyport client that misbehaves in one way (for the tournament's tests):

    skyport_bad_client.py MODE HOST PORT

- ``crash``: exits at once with an error, before connecting;
- ``silent``: connects and never sends a line (no handshake);
- ``garbage``: connects and sends lines that are not the protocol (and bytes that are not UTF-8);
- ``mute``: shakes hands and chooses a loadout, then never acts;
- ``midcrash``: plays its first two turns (one move each), then dies with a traceback.
"""
import json
import socket
import sys
import time

mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "crash":
    sys.exit("bad client: crashing before it connects")
sock = socket.create_connection((host, port))
if mode == "silent":
    time.sleep(3600)
if mode == "garbage":
    while True:
        sock.sendall(b"\xff\xfe not json at all {{{\n" + b"%" * 200 + b"\n")
        time.sleep(0.05)
name = f"bad-{mode}"
sock.sendall((json.dumps({"message": "connect", "revision": 1, "name": name}) + "\n").encode())
turns = 0
for line in sock.makefile("r", encoding="utf-8"):
    msg = json.loads(line)
    if msg.get("message") != "gamestate":
        continue
    if msg["turn"] == 0:
        sock.sendall(b'{"message":"loadout","primary-weapon":"laser","secondary-weapon":"droid"}\n')
    elif mode == "midcrash" and msg["players"][0]["name"] == name:
        turns += 1
        if turns > 2:
            raise RuntimeError("bad client: dying in the middle of the game")
        for direction in ("down", "up", "right-down", "left-up", "left-down", "right-up"):
            sock.sendall((json.dumps({"message": "action", "type": "move", "direction": direction}) + "\n").encode())
        sock.sendall(b'{"message":"endturn"}\n')
