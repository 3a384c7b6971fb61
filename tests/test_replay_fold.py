"""`locm show --json` agrees with the events at every seq of stored games of both rulesets.

The check folds each log with a small fold written here from the event catalog alone (not `engine.locm.evolve`,
not `History`): health, mana, deck, hand, and each creature's lane, attack, defense, keywords and readiness.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from locm.events.locm.cards import CHARGE, WARD, keywords_to_str
from locm.cli.main import cli
from locm.games.locm.play import play_one
from locm.store.eventstore import GameExtras, open_store
from locm.replay import open_game
from locm.engine.locm.definition import GAME as LOCM_GAME

GAMES = [("1.2", 11, ("greedy", "random")), ("1.2", 12, ("random", "greedy")),
         ("constructed", 11, ("greedy", "random")), ("constructed", 12, ("random", "greedy"))]


def independent_fold(events):
    """Yield ``(seq, players)`` after each battle event, ``players`` as the fields `locm show` prints."""
    cards, base, deck = {}, {}, ([], [])
    hand, board = ([], []), ([], [])  # ids; board in summon order
    unit: dict[int, dict] = {}
    health, mana, max_mana = [30, 30], [0, 1], [0, 1]
    battle = False
    for e in events:
        t = type(e).__struct_config__.tag
        if t == "card_pool_defined":
            cards = {c.base_id: c for c in e.cards}
        elif t == "deck_ordered":
            deck[e.player][:] = list(e.ids)
            base.update(zip(e.ids, e.base_ids))
        elif t == "card_drawn":
            assert deck[e.player].pop(0) == e.id
            hand[e.player].append(e.id)
        elif t == "turn_started":
            battle = True
            mana[e.player], max_mana[e.player] = e.mana, e.max_mana
            for i in board[e.player]:
                unit[i]["can_attack"] = True
            for i in board[1 - e.player]:
                unit[i]["can_attack"] = False
        elif t == "creature_summoned":
            b = base[e.copy_of] if e.copy_of else base[e.id]
            base[e.id] = b
            c = cards[b]
            if not e.copy_of:
                hand[e.player].remove(e.id)
                mana[e.player] -= e.cost
            unit[e.id] = {"lane": e.lane, "attack": c.attack, "defense": c.defense, "keywords": c.keywords,
                          "can_attack": bool(c.keywords & CHARGE)}
            board[e.player].append(e.id)
        elif t == "item_used":
            hand[e.player].remove(e.id)
            mana[e.player] -= e.cost
        elif t == "creature_attacked":
            unit[e.attacker]["can_attack"] = False
        elif t == "creature_modified":
            unit[e.id].update(attack=e.attack, defense=e.defense, keywords=e.keywords, can_attack=e.can_attack)
        elif t == "ward_lost":
            unit[e.id]["keywords"] &= ~WARD
        elif t == "creature_damaged":
            unit[e.id]["defense"] -= e.amount
        elif t == "creature_died":
            for b in board:
                if e.id in b:
                    b.remove(e.id)
        elif t == "player_damaged":
            health[e.player] -= e.amount
        elif t == "player_healed":
            health[e.player] += e.amount
        if battle:
            yield e.seq, [
                {"health": health[p], "mana": mana[p], "max_mana": max_mana[p], "deck": len(deck[p]),
                 "hand": list(hand[p]),
                 "board": [[(i, unit[i]["attack"], unit[i]["defense"], keywords_to_str(unit[i]["keywords"]),
                             unit[i]["can_attack"]) for i in board[p] if unit[i]["lane"] == lane]
                           for lane in (0, 1)]}
                for p in (0, 1)]


def shown(view):
    return [{"health": p["health"], "mana": p["mana"], "max_mana": p["max_mana"], "deck": p["deck"],
             "hand": [c["id"] for c in p["hand"]],
             "board": [[(c["id"], c["attack"], c["defense"], c["keywords"], c["can_attack"]) for c in lane]
                       for lane in p["board"]]}
            for p in view["players"]]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("fold") / "g.db"
    ids = []
    with open_store(path) as s:
        for ruleset, seed, agents in GAMES:
            gid = f"{ruleset}-{seed}-{agents[0]}"
            s.append_game(LOCM_GAME, GameExtras(game_id=gid), play_one(ruleset, seed, agents).log)
            ids.append(gid)
    return path, ids


def test_the_view_agrees_with_an_independent_fold_at_every_seq(store):
    path, ids = store
    for gid in ids:
        r = open_game(db=path, game_id=gid)
        n = 0
        for seq, expected in independent_fold(r.events):
            assert shown(r.view(seq)) == expected, (gid, seq)
            n += 1
        assert n > 100


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_show_json_agrees_with_the_independent_fold(store, data):
    path, ids = store
    gid = data.draw(st.sampled_from(ids))
    r = open_game(db=path, game_id=gid)
    folds = dict(independent_fold(r.events))
    seq = data.draw(st.sampled_from(sorted(folds)))
    perspective = data.draw(st.sampled_from([None, 0, 1]))
    args = ["show", "--db", str(path), gid, "--seq", str(seq), "--json"]
    if perspective is not None:
        args += ["--as", str(perspective)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    v = json.loads(res.output)
    assert v["seq"] == seq
    expected = folds[seq]
    if perspective is not None:
        other = 1 - perspective
        assert v["players"][other]["hand"] == len(expected[other]["hand"])
        v["players"][other]["hand"] = [{"id": i} for i in expected[other]["hand"]]
    assert shown(v) == expected
