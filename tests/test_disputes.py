"""The classic disputes, each settled by `locm audit` from the log alone (a JSONL log written from the game,
then read back by the command), so that a player who asks "why?" gets the event, its rule, its causes back
to the command, the cards as they were and what changed.

Combat disputes are set up as positions (`tests.scenario.Position`, played with the real `decide`); the rune
break and the Area copy come from the official referee logs.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from locm.engine.locm.commands import Attack, Summon
from locm.events.locm.cards import BREAKTHROUGH, DRAIN, GUARD, LETHAL, WARD
from locm.events.locm.catalog import (
    ActionRejected, CreatureDied, CreatureSummoned, DrawBonus, PlayerDamaged, PlayerHealed, RuneBroken, WardLost,
)
from locm.events.locm.codec import to_jsonl
from locm.cli.main import cli
from locm.replay import open_game
from locm.replay.rules import rule_ids
from tests.helpers import LOG_12, LOG_15
from tests.scenario import Position, card, of


def audit(tmp_path, events, seq):
    """`locm audit LOG --seq S --json` on a log file written from these events. A position's log is made up
    (`tests.scenario`: no game's rules dealt those hands), so audit re-decides it, says that it does not follow
    the rules, exits 1 and still answers."""
    path = tmp_path / "game.jsonl"
    path.write_bytes(to_jsonl(events))
    return audit_source([str(path)], seq, made_up=True)


def audit_source(source, seq, made_up=False):
    res = CliRunner().invoke(cli, ["audit", *source, "--seq", str(seq), "--json"])
    assert res.exit_code == (1 if made_up else 0), res.output
    x = json.loads(res.stdout)
    if made_up:
        assert res.stderr.startswith("WARNING: ") and x["warning"] == res.stderr.strip() and x["departures"]
        x = x["result"]
    check_shape(x, seq)
    return x


def check_shape(x, seq):
    assert x["event"]["seq"] == seq
    assert x["rule"]["id"] == x["event"]["rule"] and x["rule"]["id"] in rule_ids() and x["rule"]["text"]
    seqs = [seq] + [c["seq"] for c in x["causes"]]
    assert seqs == sorted(set(seqs), reverse=True)
    assert x["causes"][-1]["type"] == "action_received" and x["causes"][-1]["cause"] == -1


def command(x) -> str:
    return x["causes"][-1]["text"]


def involved(x, card_id):
    return next(c for c in x["involved"] if c["id"] == card_id)


def test_a_creature_killed_by_lethal(tmp_path):
    pos = Position()
    a = pos.on_board(0, card(1, attack=1, defense=5, keywords=LETHAL))
    d = pos.on_board(1, card(2, attack=0, defense=6))
    game = pos.game()
    died = of(game.submit(Attack(a, d)), CreatureDied)[0]
    x = audit(tmp_path, game.log, died.seq)
    assert x["event"]["type"] == "creature_died" and x["event"]["id"] == d
    assert command(x) == f"ATTACK {a} {d}"
    attacker, defender = involved(x, a), involved(x, d)
    assert "L" in attacker["keywords"] and attacker["attack"] < defender["defense"]  # only Lethal kills here
    assert "Lethal: D dies if damage" in x["rule"]["text"].replace("\n", " ").replace("  ", " ")
    assert [c["id"] for c in x["diff"]["left"]] == [d]


def test_a_ward_that_absorbed_a_hit(tmp_path):
    pos = Position()
    a = pos.on_board(0, card(1, attack=3, defense=3))
    d = pos.on_board(1, card(2, attack=2, defense=2, keywords=WARD))
    game = pos.game()
    lost = of(game.submit(Attack(a, d)), WardLost)[0]
    x = audit(tmp_path, game.log, lost.seq)
    assert x["event"]["type"] == "ward_lost" and command(x) == f"ATTACK {a} {d}"
    assert involved(x, d)["keywords"] == "-----W"
    [change] = x["diff"]["creatures"]
    assert change["id"] == d and change["keywords"] == ["-----W", "------"] and "defense" not in change
    assert "ward is lost" in x["rule"]["text"]


def test_breakthrough_damage(tmp_path):
    pos = Position()
    a = pos.on_board(0, card(1, attack=7, defense=9, keywords=BREAKTHROUGH))
    d = pos.on_board(1, card(2, attack=1, defense=3))
    game = pos.game()
    hit = next(e for e in of(game.submit(Attack(a, d)), PlayerDamaged) if e.source == "breakthrough")
    x = audit(tmp_path, game.log, hit.seq)
    assert x["event"]["amount"] == 7 - 3 and command(x) == f"ATTACK {a} {d}"
    assert "B" in involved(x, a)["keywords"] and involved(x, d)["defense"] == 3
    assert x["diff"]["players"] == [{"player": 1, "health": [30, 26]}]


def test_a_drain_heal(tmp_path):
    pos = Position()
    pos.health = [20, 30]
    a = pos.on_board(0, card(1, attack=5, defense=9, keywords=DRAIN))
    d = pos.on_board(1, card(2, attack=1, defense=2))
    game = pos.game()
    heal = of(game.submit(Attack(a, d)), PlayerHealed)[0]
    x = audit(tmp_path, game.log, heal.seq)
    assert x["event"]["source"] == "drain" and x["event"]["amount"] == 5  # the full attack, not the 2 dealt
    assert "D" in involved(x, a)["keywords"] and command(x) == f"ATTACK {a} {d}"
    assert {"player": 0, "health": [20, 25]} in x["diff"]["players"]
    assert "heals **A's full attack**" in x["rule"]["text"]


def test_a_rejected_attack_that_ignored_a_guard(tmp_path):
    pos = Position()
    a = pos.on_board(0, card(1, attack=3, defense=3))
    guard = pos.on_board(1, card(2, attack=1, defense=4, keywords=GUARD))
    other = pos.on_board(1, card(3, attack=1, defense=1))
    game = pos.game()
    rej = of(game.submit(Attack(a, other)), ActionRejected)[0]
    x = audit(tmp_path, game.log, rej.seq)
    assert x["event"]["type"] == "action_rejected" and "Guard" in x["event"]["reason"]
    assert x["rule"]["id"] == "R-ACTIONS" and "enemy Guard creatures of its lane" in x["rule"]["text"]
    assert involved(x, a)["zone"] == "board" and involved(x, other)["keywords"] == "------"
    assert x["diff"] == {}
    listed = CliRunner().invoke(cli, ["audit", str(tmp_path / "game.jsonl"), "--rejected", "--json"])
    [item] = json.loads(listed.stdout)["result"]  # a made-up position (see `audit`)
    assert item["seq"] == rej.seq and item["line"] == f"ATTACK {a} {other}" and item["player"] == 0
    assert guard != other


def test_a_summon_refused_for_a_full_lane(tmp_path):
    pos = Position()
    for b in (1, 2, 3):
        pos.on_board(0, card(b), lane=1)
    extra = pos.in_hand(0, card(9, cost=1))
    game = pos.game()
    rej = of(game.submit(Summon(extra, 1)), ActionRejected)[0]
    x = audit(tmp_path, game.log, rej.seq)
    assert "lane 1 already holds 3 creatures" in x["event"]["reason"]
    assert "lane with < 3 own creatures" in x["rule"]["text"]
    assert involved(x, extra)["zone"] == "hand" and command(x) == f"SUMMON {extra} 1"
    assert x["diff"] == {}


def test_a_rune_break_giving_a_draw_in_an_official_12_game():
    r = open_game(LOG_12, game=0)
    bonus = next(e for e in r.events if type(e) is DrawBonus and e.source == "rune")
    x = audit_source([str(LOG_12), "--game", "0"], bonus.seq)
    p = bonus.player
    before = x["players_before"][p]
    assert [d for d in x["diff"]["players"] if d["player"] == p][0]["next_draw"] == \
        [before["next_draw"], before["next_draw"] + bonus.amount]
    cmd = x["causes"][-1]["seq"]
    broken = [e for e in r.events[cmd:bonus.seq] if type(e) is RuneBroken and e.player == p]
    assert len(broken) == bonus.amount  # one draw per rune that broke since the command
    y = audit_source([str(LOG_12), "--game", "0"], broken[-1].seq)
    runes = [d for d in y["diff"]["players"] if d["player"] == p][0]["runes"]
    assert broken[-1].rune in runes[0] and broken[-1].rune not in runes[1]
    assert "+1 nextTurnDraw per rune broken" in x["rule"]["text"] or x["rule"]["id"] in ("R-RUNES", "R-DRAW")


def test_an_area_copy_in_an_official_15_game():
    r = open_game(LOG_15, game=0)
    copy = next(e for e in r.events if type(e) is CreatureSummoned and e.copy_of)
    x = audit_source([str(LOG_15), "--game", "0"], copy.seq)
    assert x["event"]["copy_of"] == copy.copy_of and x["event"]["id"] >= 61  # R-DECK: copies from 61 up
    [entered] = x["diff"]["entered"]
    assert entered["id"] == copy.id and entered["base_id"] == involved(x, copy.copy_of)["base_id"]
    assert f"SUMMON {copy.copy_of}" in command(x)
    assert "Area" in x["rule"]["text"]


@pytest.mark.parametrize("ruleset, loss", [("constructed", 10), ("1.2", 5)])
def test_deck_out_damage(tmp_path, ruleset, loss):
    pos = Position(ruleset)
    pos.health = [30, 25]
    pos.in_hand(0, card(1))
    game = pos.game()
    hit = next(e for e in game.end_turn() if type(e) is PlayerDamaged)
    assert hit.source == "deck"
    x = audit(tmp_path, game.log, hit.seq)
    assert x["players_before"][1]["deck"] == 0
    assert x["diff"]["players"][0]["player"] == 1 and x["diff"]["players"][0]["health"] == [25, 25 - loss]
