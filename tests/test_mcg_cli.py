"""`locm mcg ...` and `locm play --game mcg --account`: the collection economy of my-card-game driven through
the real command line over a real SQLite store (R-ACCOUNT … R-PLAYDECK, R-STARTER in data/mcg/RULES.md): the
whole loop (a new account, packs, destroying, crafting, a deck, a match with it, its gold credited once) and
each rule of the text refused in one line."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.mcg.cards import base_cards, collectible, tier

CARDS = {c.id: c for c in collectible(base_cards())}
DESTROY = (5, 10, 20, 50, 100, 200, 400)  # the text's tiers, Basic … Legendary (R-DESTROY)
SEED = 5


def locm(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="locm", catch_exceptions=False)


def ok(*args):
    r = locm(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def shown(db, name):
    return json.loads(ok("mcg", "show", name, "--json", "--db", db))


def refused(args, message):
    r = locm(*args)
    assert r.exit_code != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    assert re.match(r"locm( [a-z ]+)?: error: ", lines[0]), lines[0]  # a usage error names its command
    assert re.search(message, lines[0]), lines[0]
    return lines[0]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "games.db"
    ok("mcg", "account", "new", "alice", "--seed", SEED, "--db", path)
    return path


def test_a_new_account_has_gold_a_starter_collection_and_a_starter_deck(db):
    a = shown(db, "alice")
    assert (a["gold"], a["material"]) == (1000, 0)
    starter = sorted(CARDS.values(), key=lambda c: (c.rarity, c.id))[:15]  # R-STARTER: the 15 commonest, twice
    assert a["collection"] == {str(c.id): 2 for c in sorted(starter, key=lambda c: c.id)}
    assert all(tier(c.rarity) == 0 for c in starter)
    assert a["decks"] == {"0": sorted(c.id for c in starter for _ in range(2))}
    assert [e["type"] for e in a["history"]] == ["mcg_account_opened", "mcg_starter_granted", "mcg_deck_saved"]
    assert "deck 0 'starter': 30 cards" in ok("mcg", "show", "alice", "--db", db)
    ok("verify", "--db", db)


def test_the_whole_loop_new_buy_destroy_craft_deck_play_credited_once(db, tmp_path):
    out = ok("mcg", "buy", "alice", "--packs", 2, "--db", db)
    packs = [line for line in out.splitlines() if line.startswith("pack ")]
    assert len(packs) == 2 and all(line.count(",") == 4 for line in packs), out
    a = shown(db, "alice")
    assert a["gold"] == 800 and sum(a["collection"].values()) == 40
    assert [e["type"] for e in a["history"]].count("mcg_pack_opened") == 2
    opened = Counter(cid for e in a["history"] if e["type"] == "mcg_pack_opened" for cid in e["cards"])

    # destroy the rarest copy no deck needs (a pack's: the starter deck holds both starter copies)
    in_deck = Counter(a["decks"]["0"])
    extra = max((int(cid) for cid, n in a["collection"].items() if n > in_deck[int(cid)]),
                key=lambda cid: (CARDS[cid].rarity, cid))
    assert extra in opened
    value = DESTROY[tier(CARDS[extra].rarity)]
    out = ok("mcg", "destroy", "alice", extra, "--db", db)
    assert f"+{value} material" in out
    a = shown(db, "alice")
    assert a["material"] == value and a["collection"].get(str(extra), 0) == opened[extra] + in_deck[extra] - 1

    # craft the cheapest card not owned: four times its destroy value (R-CRAFT)
    target = min((c for c in CARDS.values() if str(c.id) not in a["collection"]), key=lambda c: (c.rarity, c.id))
    cost = 4 * DESTROY[tier(target.rarity)]
    assert cost <= value
    ok("mcg", "craft", "alice", target.name.upper(), "--db", db)  # by name, any case
    a = shown(db, "alice")
    assert a["material"] == value - cost and a["collection"][str(target.id)] == 1

    # a deck of the crafted card and the collection, saved from a file, by ids and names
    deck = list(a["decks"]["0"])
    deck.remove(1)
    deck.append(target.id)
    path = tmp_path / "deck.txt"
    path.write_text("# my deck\n" + "\n".join(CARDS[c].name if i % 2 else str(c) for i, c in enumerate(deck)) + "\n")
    ok("mcg", "deck", "alice", 3, "--file", path, "--name", "mine", "--db", db)
    a = shown(db, "alice")
    assert a["decks"]["3"] == sorted(deck) and a["deck_names"]["3"] == "mine"

    # a match with that deck for seat 0; the stored game credits its gold once
    log = tmp_path / "m.jsonl"
    out = ok("play", "--game", "mcg", "--seed", 7, "--account", "alice", "--deck", 3, "--p1", "random", "--db", db,
             "--log", log)
    created = json.loads(log.read_text().splitlines()[0])
    assert sorted(created["decks"][0]) == sorted(deck)
    won = "P0 (greedy) wins" in out
    gold = a["gold"] + (30 if won else 10)
    assert f"credited: account alice +{30 if won else 10} gold" in out
    assert shown(db, "alice")["gold"] == gold
    out = ok("play", "--game", "mcg", "--seed", 7, "--account", "alice", "--deck", 3, "--p1", "random", "--db", db)
    assert "already stored" in out and "credited nothing" in out
    a = shown(db, "alice")
    assert a["gold"] == gold and [e["type"] for e in a["history"]].count("mcg_match_rewarded") == 1
    ok("verify", "--db", db)

    # the same deck deleted: slot 3 is empty again
    ok("mcg", "deck", "alice", 3, "--delete", "--db", db)
    assert "3" not in shown(db, "alice")["decks"]


def test_two_accounts_play_each_other_the_winner_gets_30_the_loser_10(db):
    ok("mcg", "account", "new", "bob", "--seed", 9, "--db", db)
    out = ok("play", "--game", "mcg", "--seed", 3, "--account", "alice", "--account1", "bob", "--deck1", 0,
             "--p1", "greedy", "--db", db)
    winner = 0 if "P0 (greedy) wins" in out else 1
    gold = [shown(db, n)["gold"] for n in ("alice", "bob")]
    assert gold[winner] == 1030 and gold[1 - winner] == 1010


def test_a_game_without_accounts_plays_as_before(tmp_path):
    out = ok("play", "--game", "mcg", "--seed", 7, "--p1", "random", "--db", tmp_path / "g.db")
    assert "stored:" in out and "credited" not in out


THIRTY = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15]
PHOENIX = 68  # rarity 77: Mythical


def _deck(cards):
    return ",".join(map(str, cards))


@pytest.mark.parametrize("args, message", [
    (["mcg", "deck", "alice", 1, "--cards", "1,2,3"], r"expected 30 cards, got 3 \(R-DECK\)"),
    (["mcg", "deck", "alice", 1, "--cards", _deck([1, 1] + THIRTY[:28])], r"4 copies of card 1 .*at most 3"),
    (["mcg", "deck", "alice", 1, "--cards", _deck([PHOENIX, PHOENIX] + THIRTY[:28])],
     r"2 copies of card 68 \(Phoenix\): at most 1"),
    (["mcg", "deck", "alice", 1, "--cards", _deck([1] + THIRTY[:29])],
     r"3 copies of card 1 \(Village Guard\), the collection holds 2"),
    (["mcg", "deck", "alice", 9, "--cards", _deck(THIRTY)], r"a deck slot is 0\.\.8, got 9"),
    (["mcg", "deck", "alice", 1, "--cards", _deck(THIRTY[:29] + [999])], r"unknown card '999'"),
    (["mcg", "deck", "alice", 1, "--delete"], r"deck slot 1 is empty"),
    (["mcg", "buy", "alice", "--packs", 11], r"not enough gold: 11 packs cost 1100 gold, account 'alice' has 1000"),
    (["mcg", "buy", "alice", "--packs", 0], r"--packs: expected 1\.\.1000"),
    (["mcg", "craft", "alice", 999], r"unknown card '999'"),
    (["mcg", "craft", "alice", "Storm Dragon"], r"crafting Storm Dragon costs 800 material, the account has 0"),
    (["mcg", "destroy", "alice", "No Such Card"], r"unknown card 'No Such Card'"),
    (["mcg", "destroy", "alice", PHOENIX], r"owns 0 of card 68 \(Phoenix\), cannot destroy 1"),
    (["mcg", "destroy", "alice", 1], r"deck 0 \('starter'\) holds 2 of card 1"),
    (["mcg", "show", "carol"], r"no account 'carol'"),
    (["mcg", "account", "new", "alice"], r"account 'alice' already exists"),
    (["play", "--game", "mcg", "--seed", 1, "--account", "carol"], r"no account 'carol'"),
    (["play", "--game", "mcg", "--seed", 1, "--account", "alice", "--deck", 4], r"deck slot 4 is empty"),
    (["play", "--game", "mcg", "--seed", 1, "--account", "alice", "--account1", "alice"], r"in both seats"),
    (["play", "--game", "mcg", "--seed", 1, "--deck", 0], r"--deck names a deck slot of an account"),
    (["play", "--game", "skyport", "--seed", 1, "--account", "alice"], r"Skyport has no accounts"),
])
def test_each_rule_is_a_one_line_error_and_stores_nothing(db, args, message):
    before = shown(db, "alice")
    refused([*args, "--db", db], message)
    assert shown(db, "alice") == before


def test_a_match_needs_a_deck(db):
    ok("mcg", "deck", "alice", 0, "--delete", "--db", db)
    refused(["play", "--game", "mcg", "--seed", 1, "--account", "alice", "--db", db],
            r"account 'alice' has no deck: save one in a slot \(0\.\.8\) first; a match needs one \(R-PLAYDECK\)")


def test_an_account_needs_its_store(tmp_path):
    refused(["play", "--game", "mcg", "--seed", 1, "--account", "alice"], r"give --db")
    refused(["mcg", "show", "alice", "--db", tmp_path / "none.db"], r"none\.db")
    refused(["mcg", "deck", "alice", 0, "--db", tmp_path / "none.db"], r"one of --cards, --file and --delete")
