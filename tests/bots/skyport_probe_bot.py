#!/usr/bin/env python3
"""A Skyport client that first tries to leave its sandbox, then plays (rev 1); its player name says what it
could reach: ``sealed<slot>`` when nothing, ``leak-...`` otherwise (H: a port listening on the host's
127.0.0.1, U: another seat's Unix socket, N: an outside address).

    skyport_probe_bot.py HOST PORT HOST_PORT SLOT
"""
import glob
import json
import socket
import sys

host, port, host_port, slot = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
reached = ""
try:
    socket.create_connection(("127.0.0.1", host_port), timeout=2).close()
    reached += "H"
except OSError:
    pass
for path in glob.glob("/tmp/locm-skyport-*/seat*.sock") + glob.glob("/tmp/*/seat*.sock"):
    if path.endswith(f"seat{slot}.sock"):
        continue
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect(path)
        reached += "U"
    except OSError:
        pass
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2).close()
    reached += "N"
except OSError:
    pass
name = f"leak-{reached}" if reached else f"sealed{slot}"
sock = socket.create_connection((host, port))
sock.sendall((json.dumps({"message": "connect", "revision": 1, "name": name}) + "\n").encode())
for line in sock.makefile("rb"):
    message = json.loads(line)
    if message.get("message") == "gamestate":
        if message["turn"] == 0:
            sock.sendall(b'{"message":"loadout","primary-weapon":"laser","secondary-weapon":"droid"}\n')
        elif message["players"][0]["name"] == name:
            sock.sendall(b'{"message":"action","type":"move","direction":"up"}\n' * 3)
