"""`locm export --all` carries everything a store holds: every registered game's games, the tournament schedules
and the my-card-game accounts; `locm import` checks each (a game re-decided, a schedule's key, an account's log
re-decided) and stores all of a file or none of it; export, import, export gives the same bytes."""

from __future__ import annotations

import io
import json

import msgspec
import pytest

from locm.errors import ImportFormatError, StoreError
from locm.events.mcg.codec import ACCOUNT_CODEC
from locm.tournament.matchplay import run_matches
from locm.tournament.schedule import seats_schedule
from locm.store.eventstore import open_store
from locm.games.mcg.accounts import account_hashes, account_names, store_account
from locm.games.locm.tournament import run_tournament
from tests.test_mcg_account_store import account
from tests.test_store_cli import locm
from locm.engine.locm.definition import GAME as LOCM_GAME


@pytest.fixture(scope="module")
def full_db(tmp_path_factory):
    """A store of each kind of thing: a LOCM tournament, a my-card-game tournament, a Skyport game of three
    players (their schedules), and two accounts."""
    db = tmp_path_factory.mktemp("all") / "all.db"
    with open_store(db) as store:
        run_tournament(store, "1.2", ["greedy", "random"], 2)
        run_matches(store, seats_schedule("mcg", "standard", ["greedy", "random"], 2))
        sky = seats_schedule("skyport", "2013", ["hunter", "random", "random"], 3, seed=4, seats=3)
        store.record_schedule(sky.key, sky.manifest)
        run_matches(store, sky[:1])  # one of its three games: the schedule not finished
        store_account(store, account("alice"))
        store_account(store, account("bob", packs=2, destroy=False))
    return db


def export_of(db) -> bytes:
    buf = io.BytesIO()
    with open_store(db, readonly=True) as store:
        store.export_jsonl(None, buf)
    return buf.getvalue()


def import_into(db, data: bytes):
    from locm.games.registry import checker

    with open_store(db, checker=checker()) as store:
        return store.import_jsonl(io.BytesIO(data))


def test_export_all_round_trips_byte_for_byte_with_every_game_schedule_and_account(full_db, tmp_path):
    data = export_of(full_db)
    kinds = [next(iter(json.loads(line))) for line in data.splitlines()[1:]]
    assert kinds.count("game") == 2 and kinds.count("match") == 3 and kinds.count("schedule") == 3
    assert kinds.count("account") == 2 and kinds[-1] == "end"
    copy = tmp_path / "copy.db"
    summary = import_into(copy, data)
    assert (summary.games, summary.schedules, summary.accounts) == (5, 3, 2)
    assert summary.account_events == sum(len(account(n, **kw)) for n, kw in
                                         (("alice", {}), ("bob", {"packs": 2, "destroy": False})))
    assert export_of(copy) == data
    code, out, _ = locm("verify", "--db", copy)
    text = out.decode()
    assert code == 0 and "5 games checked: 5 good" in text and "2 stored accounts checked: 2 good" in text, text
    assert "2 tournament schedules complete" in text  # the Skyport one has 1 of its 3 games: a note
    with open_store(copy, readonly=True) as store:
        assert account_names(store) == ["alice", "bob"]


def test_the_command_line_says_what_it_wrote_and_read(full_db, tmp_path):
    out_file, copy = tmp_path / "all.jsonl", tmp_path / "copy.db"
    code, _, err = locm("export", "--all", "--db", full_db, "-o", out_file)
    assert code == 0 and "5 games, 3 tournament schedules, 2 accounts written to" in err, err
    code, out, err = locm("import", out_file, "--db", copy)
    assert code == 0 and "imported 5 games" in out.decode() and "; 3 tournament schedules; 2 accounts (" \
        in out.decode(), err
    code, out, _ = locm("verify", out_file)  # the file itself: LOCM's games, the others' (re-decided), accounts
    assert code == 0 and "5 games checked: 5 good, 0 bad" in out.decode(), out


def forge_account(data: bytes, name: str, change) -> bytes:
    """The export with one account's log changed by ``change(events)`` and every hash, its header and the end
    line recomputed to agree, as a forger would."""
    lines = data.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith(b'{"account":{"account":"%s"' % name.encode()))
    n = json.loads(lines[k])["account"]["n_events"]
    events = ACCOUNT_CODEC.from_json_array(b"[" + b",".join(json.dumps(json.loads(x)["event"]).encode()
                                                             for x in lines[k + 1:k + 1 + n]) + b"]")
    events = change(events)
    payloads = [ACCOUNT_CODEC.to_json(e) for e in events]
    hashes = account_hashes(payloads)
    block = [msgspec.json.encode({"account": {"account": name, "n_events": len(payloads),
                                              "head_hash": hashes[-1].hex()}}) + b"\n"]
    block += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n" for p, h in zip(payloads, hashes)]
    out = lines[:k] + block + lines[k + 1 + n:]
    end = json.loads(out[-1])
    end["end"]["account_events"] += len(payloads) - n
    out[-1] = json.dumps(end, separators=(",", ":")).encode() + b"\n"
    return b"".join(out)


def test_a_forged_account_is_refused_naming_the_account_and_the_seq_and_nothing_is_stored(full_db, tmp_path):
    data = export_of(full_db)

    def richer(events):  # gold from nowhere in the account's first pack's price
        return [events[0], msgspec.structs.replace(events[1], price=events[1].price - 40), *events[2:]]

    forged = forge_account(data, "bob", richer)
    copy = tmp_path / "copy.db"
    with pytest.raises(ImportFormatError) as info:
        import_into(copy, forged)
    line = next(i for i, x in enumerate(forged.splitlines(), 1) if x.startswith(b'{"account":{"account":"bob"'))
    assert info.value.line == line + 2 and "account 'bob': account event 1 is not what the rules give" \
        in str(info.value), info.value
    with open_store(copy, readonly=True) as store:  # all or none: not even the games before the account
        assert store.count() == 0 and account_names(store) == [] and store.schedules() == []
    path = tmp_path / "forged.jsonl"
    path.write_bytes(forged)
    code, _, err = locm("import", path, "--db", tmp_path / "cli.db")
    assert code == 2 and f"line {line + 2}: account 'bob': account event 1 is not what the rules give" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "cli.db").exists()


def test_an_account_hash_or_count_that_does_not_hold_is_refused(full_db, tmp_path):
    data = export_of(full_db)
    lines = data.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith(b'{"account":{"account":"alice"'))
    bad = lines[:k + 2] + [lines[k + 2].replace(b'"hash":"', b'"hash":"00', 1).replace(b'", "', b'","')] \
        + lines[k + 3:]
    with pytest.raises(ImportFormatError, match=f"line {k + 3}: "):
        import_into(tmp_path / "a.db", b"".join(bad))
    end = json.loads(lines[-1])
    end["end"]["accounts"] = 3
    wrong_end = b"".join(lines[:-1]) + json.dumps(end, separators=(",", ":")).encode() + b"\n"
    with pytest.raises(ImportFormatError, match="end line says 3 schedules, 3 accounts"):
        import_into(tmp_path / "b.db", wrong_end)


def test_an_account_already_stored_is_only_extended(full_db, tmp_path):
    data = export_of(full_db)
    copy = tmp_path / "copy.db"
    with open_store(copy) as store:
        store_account(store, account("alice")[:2])  # a shorter history of the same account: extended
        store_account(store, account("bob", packs=3, destroy=False))  # another history: refused
    with pytest.raises(ImportFormatError, match="account 'bob': the file's log does not extend the stored one"):
        import_into(copy, data)
    other = tmp_path / "other.db"
    with open_store(other) as store:
        store_account(store, account("alice")[:2])
        store_account(store, account("bob", packs=2, destroy=False))  # the file's, exactly: unchanged
    summary = import_into(other, data)
    assert (summary.accounts, summary.games) == (1, 5)  # alice extended; bob already stored as it is


def test_a_schedule_whose_key_is_not_its_manifests_is_refused(full_db):
    data = export_of(full_db)
    lines = data.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith(b'{"schedule"'))
    doc = json.loads(lines[k])
    doc["schedule"]["manifest"] = doc["schedule"]["manifest"].replace('"seed":1', '"seed":5')
    lines[k] = json.dumps(doc, separators=(",", ":")).encode() + b"\n"
    with pytest.raises(ImportFormatError, match=f"line {k + 1}: schedule {doc['schedule']['key']}: its manifest "
                                                "gives the key "):
        import_into(":memory:", b"".join(lines))


def test_a_forged_game_of_another_game_is_refused_at_the_first_event_the_rules_do_not_give(full_db):
    """A my-card-game game whose damage was raised, every hash and its record recomputed to agree."""
    from locm.engine import registry
    from locm.store.eventstore import GameExtras, SeatExtras, prepare_game
    from locm.store.records import _verify

    data = export_of(full_db)
    lines = data.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith(b'{"match":{"game_id":"mcg-'))
    record = json.loads(lines[k])["match"]
    n = record["n_events"]
    game = registry.get("mcg")
    events = [game.codec.from_json(json.dumps(json.loads(x)["event"], separators=(",", ":")).encode())
              for x in lines[k + 1:k + 1 + n]]
    j = next(i for i, e in enumerate(events) if type(e).__name__ == "PlayerDamaged")
    events[j] = msgspec.structs.replace(events[j], amount=events[j].amount + 1)
    seats = msgspec.convert(record["seats"], type=tuple[SeatExtras, ...])
    prepared = prepare_game(game, GameExtras(game_id=record["game_id"], created=record["created"], seats=seats,
                                             meta=record["meta"]), events)
    payloads = [game.codec.to_json(e) for e in events]
    block = [b'{"match":' + msgspec.json.encode(prepared.record) + b"}\n"]
    block += [b'{"hash":"' + h.hex().encode() + b'","event":' + p + b"}\n"
              for p, h in zip(payloads, _verify(record["game_id"], payloads))]
    forged = b"".join(lines[:k] + block + lines[k + 1 + n:])
    with pytest.raises(ImportFormatError) as info:
        import_into(":memory:", forged)
    assert f"game {record['game_id']!r}: it departs from the rules at seq " in str(info.value), info.value
    assert info.value.line <= k + 2 + j


def test_a_memory_store_keeps_no_account(full_db):
    with pytest.raises(StoreError, match="accounts are kept in a store file"):
        import_into(":memory:", export_of(full_db))


def test_a_store_of_locm_games_alone_exports_as_before():
    """No schedule, no account, no other game: the header, the game lines and the end line of before."""
    from locm.games.locm.play import play_one
    from locm.engine.locm.gameid import game_id
    from locm.store.eventstore import GameExtras

    with open_store(":memory:") as store:
        store.append_game(LOCM_GAME, GameExtras(game_id=game_id("1.2", 3, ("greedy", "random"))),
                          play_one("1.2", 3, ("greedy", "random")).log)
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    lines = buf.getvalue().splitlines()
    assert lines[0] == b'{"locm_export":1,"store_schema":2,"event_schema":2}'
    assert lines[1].startswith(b'{"game":{') and lines[-1] == b'{"end":{"games":1,"events":%d}}' % (len(lines) - 3)
