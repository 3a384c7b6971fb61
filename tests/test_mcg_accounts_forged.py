"""my-card-game accounts under the game's rules (issue 32 item 3; R-ACCOUNT, R-REWARD in data/mcg/RULES.md): an
account's economy and card pool are the game's, not what its opening declares, and its gold from matches comes
only from games the store holds, once each, with the result their log gives. Forged accounts are refused by
`locm import` (a bare account log and an export file) in one line naming the event, and `locm verify --db`
names one already planted in a store.

The forgeries are the ones an attacker built against main 2e50324: starting gold 10^9, a pack pool of only
the six rarest cards, an invented 99/99 card costing 0, and 100 rewards for made-up match ids. Each is a log
the economy's own `decide_account` gives from its (forged) opening, so only the checks of this item refuse it.
"""

from __future__ import annotations

import json
import re
import sqlite3

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.mcg.cards import base_cards, collectible
from locm.engine.mcg.economy import (
    ECONOMY, BuyPack, OpenAccount, RewardMatch, decide_account, evolve_account, fold_account,
)
from locm.engine.errors import LocmError
from locm.engine.mcg.errors import AccountError
from locm.engine.mcg.game import McgGame, play_match
from locm.events.mcg.codec import CODEC
from locm.events.mcg.account import AccountOpened, MatchRewarded
from locm.events.mcg.codec import ACCOUNT_CODEC
from locm.games.mcg.accounts import account_events, account_names, write_account
from locm.store.eventstore import open_store

CARDS = collectible(base_cards())


def locm(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="locm", catch_exceptions=False)


def ok(*args):
    r = locm(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def refused_line(r) -> str:
    """The one line of a refusal (exit 2, as a forged game's import), never a traceback."""
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    assert lines[0].startswith("locm: error: "), lines[0]
    return lines[0]


def forged(name: str, opened_with: dict, packs: int = 3) -> list:
    """An account opened with the values `opened_with` changes (the economy, the pool, ...), then `packs` packs
    bought and drawn from its pool exactly as the economy's rules draw them."""
    honest = decide_account(None, OpenAccount(name, 11))[0]
    log = [msgspec.structs.replace(honest, **opened_with)]
    state = fold_account(log)
    for _ in range(packs):
        for e in decide_account(state, BuyPack()):
            state = evolve_account(state, e)
            log.append(e)
    return log


RICH = msgspec.structs.replace(ECONOMY, start_gold=10**9)
RAREST = tuple(sorted(CARDS, key=lambda c: (-c.rarity, c.id))[:6])
GOLEM = msgspec.structs.replace(CARDS[0], id=999, name="Invented Golem", cost=0, power=99, toughness=99, health=99,
                                rarity=1.0, effects=())
FORGERIES = {
    "gold": ({"economy": RICH, "gold": 10**9}, r"account event 0 .*start_gold: expected 1000, the log declares "
                                               r"1000000000"),
    "rarest": ({"cards": RAREST}, rf"account event 0 .*the card pool leaves out {len(CARDS) - 6} of the game's "
                                  rf"{len(CARDS)} cards"),
    "golem": ({"cards": (*CARDS, GOLEM)}, r"account event 0 .*card 999 \(Invented Golem\) is not a card of the game"),
}


def invented_rewards(name: str = "mallory", n: int = 100) -> list:
    """An honest opening, then `n` wins of matches nobody played."""
    log = decide_account(None, OpenAccount(name, 11))
    state = fold_account(log)
    for i in range(n):
        for e in decide_account(state, RewardMatch(f"made-up-{i}", "win")):
            state = evolve_account(state, e)
            log.append(e)
    assert state.gold == 1000 + 30 * n  # the economy alone takes any string as a match id
    return log


def plant(db, log) -> None:
    """Write an account's row straight into a store file, past every check (an attacker with the file)."""
    conn = sqlite3.connect(db)
    with conn:
        write_account(conn, log[0].account, [ACCOUNT_CODEC.to_json(e) for e in log])
    conn.close()


@pytest.mark.parametrize("kind", sorted(FORGERIES))
def test_a_forged_economy_or_pool_is_refused_at_import_and_named_by_verify(tmp_path, kind):
    change, message = FORGERIES[kind]
    log = forged("mallory", change)
    path = tmp_path / "mallory.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(log))
    db = tmp_path / "t.db"
    ok("mcg", "account", "new", "alice", "--seed", 5, "--db", db)
    line = refused_line(locm("import", path, "--db", db))
    assert re.search(message, line), line
    with open_store(db) as store:
        assert account_names(store) == ["alice"]  # nothing of mallory's stored

    plant(db, log)
    r = locm("verify", "--db", db)
    assert r.exit_code == 1, r.output
    assert re.search("account mallory: " + message, r.output), r.output
    assert "2 stored accounts checked: 1 good, 1 bad" in r.output, r.output
    for use in (["mcg", "show", "mallory"], ["mcg", "buy", "mallory"],
                ["play", "--game", "mcg", "--seed", 1, "--account", "mallory"]):
        line = refused_line(locm(*use, "--db", db))  # a planted account is of no use
        assert "account 'mallory' in " in line and re.search(f"does not verify: {message}", line), line

    # the same account in an export file (its chain intact): refused naming the account and the event
    dump = tmp_path / "all.jsonl"
    ok("export", "--all", "--db", db, "-o", dump)
    r = locm("import", dump, "--db", tmp_path / "copy.db")
    line = refused_line(r)
    assert "account 'mallory'" in line and re.search(message, line), line
    assert not (tmp_path / "copy.db").exists()


def test_invented_rewards_give_no_gold(tmp_path):
    log = invented_rewards()
    path = tmp_path / "mallory.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(log))
    db = tmp_path / "t.db"
    ok("mcg", "account", "new", "alice", "--seed", 5, "--db", db)
    line = refused_line(locm("import", path, "--db", db))
    assert "account event 1: a reward for match 'made-up-0', which is not a my-card-game game the store holds" \
        in line, line
    plant(db, log)
    r = locm("verify", "--db", db)
    assert r.exit_code == 1 and "account mallory: account event 1: a reward for match 'made-up-0'" in r.output, \
        r.output


@pytest.fixture
def played(tmp_path):
    """A store where alice (seat 0) and bob (seat 1) played one match, its gold credited: the store, the match
    id, the winner's seat."""
    db = tmp_path / "played.db"
    ok("mcg", "account", "new", "alice", "--seed", 5, "--db", db)
    ok("mcg", "account", "new", "bob", "--seed", 9, "--db", db)
    log = tmp_path / "m.jsonl"
    out = ok("play", "--game", "mcg", "--seed", 3, "--account", "alice", "--account1", "bob", "--p1", "greedy",
             "--db", db, "--log", log)
    created = json.loads(log.read_text().splitlines()[0])
    assert created["accounts"] == ["alice", "bob"]  # the game's log names who played it
    winner = 0 if "P0 (greedy) wins" in out else 1
    with open_store(db) as store:
        gid = next(e.match for e in account_events(store, "alice") if type(e) is MatchRewarded)
    return db, gid, winner


def _copy_with_game(tmp_path, db, gid):
    """A fresh store holding only the match `gid` of store `db`."""
    one = tmp_path / "one.jsonl"
    ok("export", gid, "--db", db, "-o", one)
    other = tmp_path / "other.db"
    ok("import", one, "--db", other)
    return other


def test_a_held_game_credits_its_accounts_once_with_its_result(played, tmp_path):
    db, gid, winner = played
    with open_store(db) as store:
        alice = account_events(store, "alice")
    reward = next(e for e in alice if type(e) is MatchRewarded)
    assert reward.result == ("win" if winner == 0 else "loss")
    other = _copy_with_game(tmp_path, db, gid)

    # the honest log: its reward is for a game this store holds, with the result its log gives
    honest = tmp_path / "alice.jsonl"
    honest.write_bytes(ACCOUNT_CODEC.to_jsonl(alice))
    assert "stored account 'alice'" in ok("import", honest, "--db", other)

    # the same reward twice: once only
    again = [*alice, msgspec.structs.replace(reward, seq=len(alice))]
    path = tmp_path / "twice.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(again))
    line = refused_line(locm("import", path, "--db", tmp_path / "third.db"))
    assert f"account event {len(alice)} is not what the rules give: match {gid!r} has already been rewarded" \
        in line, line

    # another account claiming that match: the game's log names alice and bob only
    claim = [*invented_rewards("carol", 0), MatchRewarded(seq=1, cause=-1, rule="R-REWARD", match=gid, result="win",
                                                          gold=30)]
    path = tmp_path / "carol.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(claim))
    line = refused_line(locm("import", path, "--db", other))
    assert f"account event 1: a reward for match {gid!r}, whose log does not name account 'carol' (its accounts: " \
           "'alice', 'bob'; R-REWARD)" in line, line

    # the honest log in a store without the game: not credited
    line = refused_line(locm("import", honest, "--db", tmp_path / "empty.db"))
    assert f"a reward for match {gid!r}, which is not a my-card-game game the store holds" in line, line


def test_a_reward_whose_result_is_not_the_games_is_refused(played, tmp_path):
    db, gid, winner = played
    with open_store(db) as store:
        bob = account_events(store, "bob")
    at = next(i for i, e in enumerate(bob) if type(e) is MatchRewarded)
    lost = bob[at].result
    flipped = "win" if lost == "loss" else "loss"
    bob[at] = msgspec.structs.replace(bob[at], result=flipped, gold=ECONOMY.win_gold if flipped == "win" else
                                      ECONOMY.loss_gold)
    path = tmp_path / "bob.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(bob))
    line = refused_line(locm("import", path, "--db", _copy_with_game(tmp_path, db, gid)))
    assert f"account event {at}: a reward for a {flipped} in match {gid!r}, whose log gives account 'bob' a " \
           f"{lost} (R-REWARD)" in line, line


def test_an_export_of_accounts_and_their_games_imports_whole(played, tmp_path):
    """The file's own matches count as held: they are stored with its accounts, all or nothing."""
    db, gid, _ = played
    dump = tmp_path / "all.jsonl"
    ok("export", "--all", "--db", db, "-o", dump)
    copy = tmp_path / "copy.db"
    out = ok("import", dump, "--db", copy)
    assert "1 game" in out and "2 accounts" in out, out
    assert "2 stored accounts checked: 2 good, 0 bad" in ok("verify", "--db", copy)
    ok("export", "--all", "--db", copy, "-o", tmp_path / "again.jsonl")
    assert (tmp_path / "again.jsonl").read_bytes() == dump.read_bytes()


def test_a_variant_may_tighten_the_deck_rules_never_loosen_them():
    """R-VARIANT: rules may be added, never subtracted: an economy whose decks hold fewer copies is the
    game's with a rule added; one that allows more, or a different price, is not the game's."""
    tighter = msgspec.structs.replace(ECONOMY, max_copies=2, max_copies_rare=0, rare_threshold=50.0)
    assert type(decide_account(None, OpenAccount("ann", 1, tighter))[0]) is AccountOpened
    for change, message in [({"max_copies": 4}, "max_copies: expected 1..3 (a variant may tighten it), the log "
                                                "declares 4"),
                            ({"pack_price": 1}, "pack_price: expected 100, the log declares 1"),
                            ({"win_gold": 3000}, "win_gold: expected 30, the log declares 3000")]:
        with pytest.raises(AccountError, match=re.escape(message)):
            decide_account(None, OpenAccount("ann", 1, msgspec.structs.replace(ECONOMY, **change)))


def test_a_match_naming_an_account_credits_it_only_if_it_played_a_saved_deck(tmp_path):
    """R-PLAYDECK: a match of the account's is played with one of its saved decks. A match that names carol
    but was played with a deck of the agents' own (any log a forger can make and verify) credits her
    nothing."""
    game = play_match(seeds=4, agents=("greedy", "random"), accounts=("carol", ""))
    assert game.log[0].accounts == ("carol", "")
    log = tmp_path / "g.jsonl"
    log.write_bytes(CODEC.to_jsonl(game.log))
    db = tmp_path / "t.db"
    gid = ok("import", log, "--db", db).split()[2]
    claim = [*invented_rewards("carol", 0), MatchRewarded(seq=1, cause=-1, rule="R-REWARD", match=gid,
                                                          result="win" if game.log[-1].winner == 0 else "loss",
                                                          gold=30 if game.log[-1].winner == 0 else 10)]
    path = tmp_path / "carol.jsonl"
    path.write_bytes(ACCOUNT_CODEC.to_jsonl(claim))
    line = refused_line(locm("import", path, "--db", db))
    assert f"account event 1: a reward for match {gid!r}, played with a deck account 'carol' had not saved " \
           "(R-PLAYDECK)" in line, line


def test_a_match_names_two_different_accounts():
    with pytest.raises(LocmError, match="two different accounts"):
        McgGame.new(seeds=1, accounts=("alice", "alice"))
    assert McgGame.new(seeds=1).log[0].accounts is msgspec.UNSET  # a match without accounts: its log unchanged
