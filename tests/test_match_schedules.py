"""The other games' tournament schedules are recorded as LOCM's are (`locm.tournament.schedule.SeatsRoundRobin`): a
my-card-game or Skyport tournament keeps its manifest in the store, each game says its place, and `locm verify
--db` names a scheduled game deleted behind the store's back by its place; running the tournament again plays
it again."""

from __future__ import annotations

import json

import pytest

from locm.tournament.matchplay import run_matches
from locm.tournament.schedule import SeatsRoundRobin, seats_schedule
from locm.store.eventstore import GameExtras, open_store
from tests.test_forgery import sql
from tests.test_store_cli import locm


def delete_game(db, game_id):
    sql(db, f"DELETE FROM logs WHERE game IN (SELECT id FROM games WHERE game_id = '{game_id}')",
        f"DELETE FROM games WHERE game_id = '{game_id}'")


@pytest.fixture(scope="module")
def mcg_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("mcg") / "m.db"
    code, out, err = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 4, "--db", db)
    assert code == 0, err
    return db


def test_a_my_card_game_tournament_records_its_schedule_and_each_games_place(mcg_db):
    jobs = seats_schedule("mcg", "standard", ["greedy", "random"], 4)
    with open_store(mcg_db, readonly=True) as store:
        [(key, manifest)] = store.schedules()
        assert key == jobs.key and manifest == jobs.manifest and len(manifest) < 2000
        again = SeatsRoundRobin.from_manifest(manifest)
        assert list(again) == list(jobs) and again.key == key
        for m in store.games(game="mcg"):
            meta = json.loads(m.meta)
            assert meta["schedule"] == key and jobs[meta["place"]].game_id == m.game_id
    code, out, _ = locm("verify", "--db", mcg_db)
    assert code == 0 and "1 tournament schedule complete" in out.decode(), out


def test_a_my_card_game_deleted_from_its_tournament_is_named_by_place_and_played_again(mcg_db, tmp_path):
    db = tmp_path / "m.db"
    db.write_bytes(mcg_db.read_bytes())
    jobs = seats_schedule("mcg", "standard", ["greedy", "random"], 4)
    lost = jobs[2]
    delete_game(db, lost.game_id)
    code, out, _ = locm("verify", "--db", db)
    text = out.decode()
    assert code == 1 and "the ledger records 4 games stored, the store holds 3: 1 deleted" in text, text
    assert (f"store: schedule {jobs.key} (my-card-game standard, 2 agents, 2 seats, seeds 1..2, 4 games): 1 of its "
            f"4 games missing (never played, or among the games the ledger says were deleted): place 2 "
            f"{lost.game_id}") in text, text
    code, out, err = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 4, "--db", db)
    assert code == 0 and "1 game played, 3 stored before: 4 of 4" in out.decode(), err
    with open_store(db, readonly=True) as store:
        meta = json.loads(store.game(lost.game_id).meta)  # its place, and the seat that started (mcg's player)
        assert meta == {"schedule": jobs.key, "place": 2, "starter": meta["starter"]} and meta["starter"] in (0, 1)
    code, out, _ = locm("verify", "--db", db)  # the place is filled; the ledger still says a game was lost
    assert code == 1 and "schedule" not in out.decode() and "1 deleted" in out.decode()


def test_an_unfinished_skyport_tournament_is_a_note_and_a_finished_one_complete(tmp_path):
    db = tmp_path / "s.db"
    jobs = seats_schedule("skyport", "2013", ["hunter", "random", "random"], 3, seed=4, seats=3)
    with open_store(db) as store:
        store.record_schedule(jobs.key, jobs.manifest)
        run_matches(store, jobs[:1])  # a plain list: the schedule is the one recorded
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and (f"store: note: schedule {jobs.key} (Skyport 2013, 3 agents, 3 seats, seeds 4..4, 3 games):"
                          f" not finished: 1 played, 2 to play") in out.decode(), out
    with open_store(db) as store:
        run = run_matches(store, jobs)
    assert (run.played, run.already) == (2, 1)
    code, out, _ = locm("verify", "--db", db)
    assert code == 0 and "1 tournament schedule complete" in out.decode(), out


def test_a_variants_schedule_rebuilds_from_its_manifest_with_the_variants_rules():
    from locm.engine import registry

    game = registry.get("mcg")
    rules = game.variant('base = "standard"\nname = "short"\nmax_copies = 2\n', "short.toml")
    jobs = seats_schedule("mcg", rules, ["greedy", "random"], 2, seed=9)
    again = SeatsRoundRobin.from_manifest(jobs.manifest)
    assert list(again) == list(jobs) and again.key == jobs.key
    assert jobs.key != seats_schedule("mcg", "standard", ["greedy", "random"], 2, seed=9).key


def test_a_game_claiming_a_place_of_another_games_schedule_is_named(mcg_db, tmp_path):
    """A game of the right kind stored with a meta that says it is place 0 of the schedule, whose game is
    another; and a schedule whose manifest was edited."""
    from locm.engine import registry
    from locm.tournament.matchplay import play_seated

    db = tmp_path / "m.db"
    db.write_bytes(mcg_db.read_bytes())
    game = registry.get("mcg")
    with open_store(db) as store:
        key = store.schedules()[0][0]
        match, seats = play_seated(game, game.rules("standard"), 30, ("greedy", "random"))
        extra = game.game_id(match.log[0])
        store.append_game(game, GameExtras(game_id=extra, seats=tuple(seats),
                                           meta=json.dumps({"schedule": key, "place": 0})), match.log)
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and f"store: game {extra} says it is place 0 of schedule {key}, whose game there is " \
                         in out.decode(), out
    sql(db, "UPDATE schedules SET manifest = replace(manifest, '\"seed\":1', '\"seed\":2')")
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and f"store: schedule {key}: its manifest is not the one its key names" in out.decode(), out
