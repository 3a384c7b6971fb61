"""my-card-game accounts kept in the event store (`locm.games.mcg.accounts`): one log per account, checked before it
is stored, only ever extended, and re-decided by `locm verify --db`."""

from __future__ import annotations

import sqlite3
import zlib

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.mcg.economy import BuyPack, DestroyCard, OpenAccount, decide_account, evolve_account, fold_account
from locm.events.mcg.codec import ACCOUNT_CODEC
from locm.store.eventstore import open_store
from locm.games.mcg.accounts import AccountStoreError, account_events, account_names, store_account


def account(name: str = "alice", packs: int = 3, destroy: bool = True) -> list:
    log = decide_account(None, OpenAccount(name, 7))
    state = fold_account(log)

    def do(command):
        nonlocal state
        for e in decide_account(state, command):
            state = evolve_account(state, e)
            log.append(e)

    for _ in range(packs):
        do(BuyPack())
    if destroy:
        do(DestroyCard(next(iter(state.collection))))
    return log


def test_an_account_is_stored_once_and_only_extended(tmp_path):
    log = account()
    with open_store(tmp_path / "a.db") as store:
        assert account_names(store) == []
        assert store_account(store, log[:2]) == ("alice", True)
        assert store_account(store, log) == ("alice", True)
        assert store_account(store, log) == ("alice", False)
        with pytest.raises(AccountStoreError, match="never rewritten"):
            store_account(store, log[:3])
        other = account(packs=4, destroy=False)  # the same account, another history after its third event
        with pytest.raises(AccountStoreError, match="never rewritten"):
            store_account(store, other)
        assert store_account(store, account("bob")) == ("bob", True)
        assert account_names(store) == ["alice", "bob"]
        assert account_events(store, "alice") == log


def test_a_log_the_rules_do_not_give_is_refused(tmp_path):
    log = account()
    richer = msgspec.structs.replace(log[0], gold=log[0].gold + 500)  # gold from nowhere
    with open_store(tmp_path / "a.db") as store:
        with pytest.raises(AccountStoreError, match="account event 0 is not what the rules give"):
            store_account(store, [richer, *log[1:]])
        assert account_names(store) == []


def test_verify_db_rechecks_stored_accounts(tmp_path):
    db = tmp_path / "a.db"
    log = account()
    f = tmp_path / "alice.jsonl"
    f.write_bytes(ACCOUNT_CODEC.to_jsonl(log))
    run = CliRunner().invoke(cli, ["import", str(f), "--db", str(db)])
    assert run.exit_code == 0 and "stored account 'alice' (5 events)" in run.output, run.output
    run = CliRunner().invoke(cli, ["verify", "--db", str(db)])
    assert run.exit_code == 0 and "1 stored account checked: 1 good, 0 bad" in run.output, run.output
    # a log changed in the file: the chain no longer holds
    conn = sqlite3.connect(db)
    lines = zlib.decompress(conn.execute("SELECT data FROM accounts").fetchone()[0]).split(b"\n")
    lines[1] = lines[1].replace(b'"price":100', b'"price":0')
    conn.execute("UPDATE accounts SET data = ?", (zlib.compress(b"\n".join(lines)),))
    conn.commit()
    run = CliRunner().invoke(cli, ["verify", "--db", str(db)])
    assert run.exit_code == 1 and "account alice: account 'alice': its hash chain does not hold" in run.output
    # and re-chained: re-deciding finds the free pack
    from locm.games.mcg.accounts import _head

    conn.execute("UPDATE accounts SET head_hash = ?", (_head(lines),))
    conn.commit()
    conn.close()
    run = CliRunner().invoke(cli, ["verify", "--db", str(db)])
    assert run.exit_code == 1 and "account alice: account event 1 is not what the rules give" in run.output, \
        run.output


def test_a_game_id_names_its_bots_versions(tmp_path):
    """A my-card-game game with a command-line bot records each bot's file hash in its created event (a
    built-in agents' game is written as before), so its id changes when the bot's files do; re-deciding
    the log keeps them."""
    from locm.engine import core, registry
    from locm.engine.mcg.game import McgGame
    from locm.tournament.schedule import seats_schedule

    mcg = registry.get("mcg")
    bot = tmp_path / "bot.py"
    bot.write_text("print('hello')\n")
    cmd = f"python3 {bot}"
    first = seats_schedule("mcg", "standard", ["greedy", cmd], 2)
    assert [j.bots[j.agents.index(cmd)] for j in first] == [first[0].bots[1]] * 2 and len(first[0].bots[1]) == 64
    assert seats_schedule("mcg", "standard", ["greedy", cmd], 2) == first  # the same files: the same ids
    bot.write_text("print('hello, again')\n")
    again = seats_schedule("mcg", "standard", ["greedy", cmd], 2)
    assert {j.game_id for j in again}.isdisjoint(j.game_id for j in first)
    builtin = seats_schedule("mcg", "standard", ["greedy", "random"], 2)
    assert all(j.bots == ("", "") for j in builtin)
    assert b'"bots"' not in mcg.codec.to_json(core.play(mcg, "standard", 1, ("greedy", "random")).log[0])
    # a versioned log re-decides (its bots' versions are part of its creation)
    game = McgGame.new(mcg.rules("standard"), 3, ("greedy", "random"), bots=("ab" * 32, ""))
    players = [mcg.make_agent("greedy", 3, s) for s in (0, 1)]
    while not game.ended:
        players[game.to_move].play_turn(game, game.to_move)
    assert game.log[0].bots == ("ab" * 32, "") and core.verify(mcg, game.log) is None
