"""Skyport's events: one union, one codec that round-trips every event and refuses what is not one; every rule
an event or the code cites is a section of data/skyport/RULES.md and every section is applied somewhere; the
core stays pure when a Skyport game is played."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from locm.engine.skyport.agents import make_agent, play
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.rules import builtin_map
from locm.events.skyport.catalog import EVENT_TYPES, TAGS
from locm.events.skyport.codec import DecodeError, from_json, from_jsonl, to_json, to_jsonl
from locm.replay.skyport.conformance import check_log
from tests.skyport_helpers import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "data" / "skyport" / "RULES.md").read_text(encoding="utf-8")
SECTIONS = set(re.findall(r"^## (R-[A-Z-]+)", RULES, re.M))


def _games() -> list[SkyportGame]:
    out = []
    for path in sorted(SAMPLES.glob("*.jsonl.gz"))[:6]:
        game = check_log(path).game
        assert game is not None
        out.append(game)
    game = SkyportGame.new(["alpha", "bravo", "carla", "delta"], 9, builtin_map("crossroads-4p"))
    out.append(play(game, [make_agent(n, i) for i, n in enumerate(("hunter", "random", "hunter", "random"))]))
    return out


def test_every_event_round_trips_through_the_codec():
    seen = set()
    for game in _games():
        for e in game.log:
            assert from_json(to_json(e)) == e
            seen.add(type(e))
        assert from_jsonl(to_jsonl(game.log)) == game.log
    assert seen >= set(EVENT_TYPES) - {TAGS["loadout_rejected"]}, set(EVENT_TYPES) - seen


def test_tags_are_unique_and_decoding_refuses_strangers():
    assert len(TAGS) == len(EVENT_TYPES)
    with pytest.raises(DecodeError):
        from_json(b'{"type":"moved","seq":1,"cause":0,"rule":"R-MOVE","player":0,"direction":"up","origin":[1,1],'
                  b'"to":[0,0],"extra":1}')
    with pytest.raises(DecodeError):
        from_json(b'{"type":"creature_summoned","seq":1,"cause":0,"rule":"R-X"}')


def test_rules_cited_exist_and_every_rule_is_applied():
    cited = set()
    for folder in ("engine/skyport", "events/skyport"):
        for path in (ROOT / folder).glob("*.py"):
            cited |= set(re.findall(r"\bR-[A-Z]+(?:-[A-Z]+)*\b", path.read_text(encoding="utf-8")))
    assert cited <= SECTIONS, cited - SECTIONS
    assert SECTIONS <= cited, SECTIONS - cited
    for game in _games():
        assert {e.rule for e in game.log} <= SECTIONS


def test_playing_skyport_loads_no_impure_module():
    code = (
        "import sys\n"
        "from locm.engine.skyport.game import SkyportGame\nfrom locm.engine.skyport.agents import make_agent, play\n"
        "from locm.engine.skyport.rules import builtin_map\nimport locm.events.skyport.codec\n"
        "g = SkyportGame.new(['alpha', 'bravo'], 5, builtin_map('duel-2p'))\n"
        "play(g, [make_agent('random', 1), make_agent('hunter', 2)])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sqlite3', 'sqlite_utils', 'matplotlib', 'click', 'subprocess', 'multiprocessing', 'socket'} "
        "or m.startswith('locm.') and m.split('.')[1] not in ('engine', 'events', 'data'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_built_in_agents_are_deterministic():
    def run() -> bytes:
        game = SkyportGame.new(["alpha", "bravo", "carla"], 4, builtin_map("triangle-3p"))
        play(game, [make_agent("random", 1), make_agent("hunter", 2), make_agent("random", 3)])
        return to_jsonl(game.log)

    assert run() == run()
