#!/usr/bin/env python3
"""A my-card-game bot, to copy: one line of JSON in (its view and its legal actions), one line out.

    locm play --game mcg --ruleset standard --seed 7 --p0 "python3 examples/mcg/bot.py" --p1 greedy

The protocol (engine/mcg/protocol.py, data/mcg/RULES.md R-ANSWER): each time the bot is to move it reads
{"game":"mcg","protocol":1,"seat":S,"view":{...},"legal":[{"do":"play","id":7},...]} and answers one of the
legal actions, as is. This one attacks the enemy player when it can, else plays or attacks with the first
action listed, and ends its turn when nothing else is left (the end is always legal in the main phase).
"""

import json
import sys


def choose(legal: list[dict]) -> dict:
    at_player = [a for a in legal if a["do"] == "attack" and a.get("target") in (0, 1)]
    if at_player:
        return at_player[0]
    for verb in ("start", "mulligan", "play", "attack"):
        for action in legal:
            if action["do"] == verb:
                return action
    return next((a for a in legal if a["do"] == "end"), legal[0])


for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps(choose(message["legal"])), flush=True)
