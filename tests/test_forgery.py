"""Tried as a forger would: edited logs with every checksum recomputed are refused at each door (import,
migrate) and named by every reader; a store knows what it should hold."""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import sqlite3
import sys
import zlib

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.locm.rulesets import RULES_12, rules_hash
from locm.errors import ImportFormatError
from locm.events.locm.codec import from_jsonl, to_jsonl
from locm.engine.locm.gameid import game_id
from locm.games.locm.play import play_one
from locm.store.eventstore import GameExtras, open_store
from tests.forge import games_of, reforge, replace_event
from tests.test_store_cli import ROOT, locm
from locm.engine.locm.definition import GAME as LOCM_GAME

GAMES = [("1.2", 7, ("greedy", "random")), ("constructed", 3, ("greedy", "pass"))]


@pytest.fixture(scope="module")
def export() -> bytes:
    """An export of two real games (a 1.2 game of seed 7, a constructed one)."""
    with open_store(":memory:") as store:
        for ruleset, seed, agents in GAMES:
            store.append_game(LOCM_GAME, GameExtras(game_id=game_id(ruleset, seed, agents)), play_one(ruleset, seed, agents).log)
        buf = io.BytesIO()
        store.export_jsonl(None, buf)
    return buf.getvalue()


def import_error(data: bytes) -> ImportFormatError:
    from locm.games.registry import checker

    with open_store(":memory:", checker=checker()) as store:
        with pytest.raises(ImportFormatError) as info:
            store.import_jsonl(io.BytesIO(data))
        assert store.count() == 0  # all or none
    return info.value


def flip_winner(events):
    end = events[-1]
    return events[:-1] + [msgspec.structs.replace(end, winner=1 - end.winner)]


def edit_rules(events):
    rules = events[0].rules.replace(start_health=20)
    return [msgspec.structs.replace(events[0], rules=rules, rules_hash=rules_hash(rules))] + events[1:]


def test_the_forgers_file_passes_every_checksum(export):
    """The tool is sound: unedited, its output is the same file byte for byte; edited, every check of the
    format passes (chain, records, totals), so only the rules and the ids are left to catch it."""
    assert reforge(export) == export
    with open_store(":memory:") as store:
        assert store.import_jsonl(io.BytesIO(reforge(export, flip_winner, game=1)), check=False).games == 2


def test_import_refuses_a_flipped_winner_naming_the_game_the_seq_and_the_event(export):
    gid = game_id(*GAMES[1])
    n = len(games_of(export)[1][1])
    exc = import_error(reforge(export, flip_winner, game=1))
    first_game_lines = len(games_of(export)[0][1]) + 1
    assert exc.line == 1 + first_game_lines + 1 + n  # the game_ended line: after the header, game 1, a record
    assert str(exc).startswith(f"line {exc.line}: game {gid!r}: re-decided from its inputs, seq {n - 1}: the event "
                               'differs from what the rules give; the log has {"type":"game_ended"')
    assert '"winner":' in str(exc).split("the rules give ")[1]


def test_import_refuses_edited_rules(export):
    exc = import_error(reforge(export, edit_rules))
    assert f"game {game_id(*GAMES[0])!r}: " in str(exc) and "seq " in str(exc)


def test_import_refuses_edited_rules_even_when_the_game_was_replayed_under_them(export, monkeypatch):
    """The forger plays the game again under the edited rules: every event is what those rules give, but the
    game says it is a 1.2 game of seed 7 under another game's id. (`Game.new` refuses such rules, named 1.2
    with other values; the forger's own tool does not check them.)"""
    monkeypatch.setattr("locm.engine.locm.setup.check_rules", lambda *a, **k: None)
    forged = play_one(RULES_12.replace(start_health=20), 7, GAMES[0][2]).log
    monkeypatch.undo()
    exc = import_error(reforge(export, lambda events: forged))
    assert str(exc).endswith(f"the id is not what its content gives: its game_created gives "
                             f"'{game_id(RULES_12.replace(start_health=20), 7, GAMES[0][2])}'")


@pytest.mark.parametrize("what", ["the id of the seed-1 game", "a renamed agent"])
def test_import_refuses_a_game_under_an_id_its_content_does_not_give(export, what):
    if what == "a renamed agent":
        data = reforge(export, lambda ev: [msgspec.structs.replace(ev[0], agents=("greedy", "pass"))] + ev[1:])
        gid = game_id(*GAMES[0])
    else:
        gid = game_id("1.2", 1, GAMES[0][2])  # a seed-7 game under the id a tournament gives seed 1
        data = reforge(export, game_id=gid)
    exc = import_error(data)
    assert str(exc).startswith(f"line 3: game {gid!r}: the id is not what its content gives: its game_created "
                               "gives '1.2-7-"), str(exc)


def test_locm_import_of_a_forged_file_is_one_line_and_stores_nothing(export, tmp_path):
    (tmp_path / "forged.jsonl").write_bytes(reforge(export, lambda ev: replace_event(ev, "PlayerDamaged", 2,
                                                                                       amount=50)))
    code, out, err = locm("import", tmp_path / "forged.jsonl", "--db", tmp_path / "t.db")
    assert code == 2 and err.count("\n") == 1 and "re-decided from its inputs, seq " in err, err
    assert '"amount":50' in err and not (tmp_path / "t.db").exists()


# --- a store knows what it should hold ---------------------------------------------------------------------


@pytest.fixture
def store_of(tmp_path):
    """A store of ``n`` real games (1.2, greedy vs random, seeds 1..n), made on demand."""
    def make(n: int, name: str = "t.db"):
        path = tmp_path / name
        with open_store(path) as store:
            for seed in range(1, n + 1):
                agents = ("greedy", "random")
                store.append_game(LOCM_GAME, GameExtras(game_id=game_id("1.2", seed, agents)), play_one("1.2", seed, agents).log)
        return path
    return make


def sql(path, *statements):
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def test_verify_names_games_deleted_from_the_store(store_of):
    """A bot deleting its lost games: verify once said "N good"; now the ledger counts what was stored."""
    db = store_of(6)
    sql(db, "DELETE FROM logs WHERE game IN (2, 3, 5)", "DELETE FROM games WHERE id IN (2, 3, 5)")
    code, out, _ = locm("verify", "--db", db)
    lines = out.decode().splitlines()
    assert code == 1
    assert "store: ledger: the ledger records 6 games stored, the store holds 3: 3 deleted; keys missing from the " \
           "games table: 2-3, 5" in lines
    assert lines[-1] == "3 games checked: 3 good, 0 bad"


def test_verify_names_a_deleted_last_game_and_a_game_stored_behind_the_stores_back(store_of):
    db = store_of(3)
    sql(db, "DELETE FROM logs WHERE game = 3", "DELETE FROM games WHERE id = 3")  # no gap: the last row
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and "the ledger records 3 games stored, the store holds 2: 1 deleted" in out.decode()
    other = store_of(4, "other.db")
    sql(other, "DELETE FROM locm_meta WHERE key = 'ledger'")  # a store written before the ledger: all fine
    assert locm("verify", "--db", other)[0] == 0
    with open_store(other) as store:  # its next write makes the ledger over what it holds, then extends it
        agents = ("pass", "pass")
        store.append_game(LOCM_GAME, GameExtras(game_id=game_id("1.2", 9, agents)), play_one("1.2", 9, agents).log)
        assert store.ledger()[0] == 5
    sql(other, "DELETE FROM logs WHERE game = 2", "DELETE FROM games WHERE id = 2")
    code, out, _ = locm("verify", "--db", other)
    assert code == 1 and "the ledger records 5 games stored, the store holds 4: 1 deleted; keys missing from the " \
                         "games table: 2" in out.decode()


def test_verify_catches_a_damaged_index_page(store_of):
    """Bytes of the id index flipped: quick_check does not read index contents, but the games it no longer
    finds are named; --full runs integrity_check, which compares the index with its table."""
    db = store_of(12)
    conn = sqlite3.connect(db)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_games_1'").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    at = (root - 1) * page + page - 200  # inside the page's cells (they fill it from its end)
    data[at:at + 10] = bytes(b ^ 0xFF for b in data[at:at + 10])
    db.write_bytes(data)
    code, out, _ = locm("verify", "--db", db, "--no-redecide")
    assert code == 1
    assert "looking its id up does not find it: an index of the store is damaged" in out.decode(), out.decode()
    code, out, _ = locm("verify", "--db", db, "--full", "--no-redecide")
    assert code == 1 and "store: integrity_check: row " in out.decode() and " missing from index " in out.decode()


# --- verify FILE -------------------------------------------------------------------------------------------


def test_verify_checks_log_files_referee_logs_and_exports(export, tmp_path):
    good = tmp_path / "good.jsonl"
    assert locm("play", "--seed", 4, "--log", good)[0] == 0
    forged = tmp_path / "forged.jsonl"
    events = from_jsonl(good.read_bytes())
    forged.write_bytes(to_jsonl(replace_event(events, "PlayerDamaged", 0, amount=50)))
    k = next(e.seq for e in events if type(e).__name__ == "PlayerDamaged")
    (tmp_path / "export.jsonl").write_bytes(reforge(export, flip_winner, game=1))
    referee = ROOT / "tests" / "data" / "official-1.5-games-00-49.txt.gz"
    code, out, _ = locm("verify", good, forged, referee, tmp_path / "export.jsonl")
    lines = out.decode().splitlines()
    assert code == 1
    assert lines[0].startswith(f"{forged}: re-decided from its inputs, seq {k}: the event differs from what the "
                               'rules give; the log has {"type":"player_damaged"'), lines
    assert lines[1].startswith(f"{tmp_path / 'export.jsonl'} {game_id(*GAMES[1])}: re-decided from its inputs, seq ")
    assert lines[-1] == "54 games checked: 52 good, 2 bad"  # 1 + 1 + 50 + 2
    code, out, _ = locm("verify", "-", input=good.read_bytes())
    assert code == 0 and out.decode() == "1 game checked: 1 good, 0 bad\n"


# --- every reader checks what it reads ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def forged_log(tmp_path_factory):
    """A `locm play --log` file with one event edited (an attack's 5 damage made 50): the game goes on at
    negative health, as the dispute in the issue had it."""
    d = tmp_path_factory.mktemp("forged")
    good = d / "good.jsonl"
    assert locm("play", "--seed", 4, "--log", good)[0] == 0
    events = from_jsonl(good.read_bytes())
    k = next(e.seq for e in events if type(e).__name__ == "PlayerDamaged" and e.amount == 5)
    forged = d / "forged.jsonl"
    forged.write_bytes(to_jsonl(events[:k] + [msgspec.structs.replace(events[k], amount=50)] + events[k + 1:]))
    return good, forged, k


def warning_of(forged, k) -> str:
    return (f"WARNING: {forged}: this log does not follow the rules: it departs from them at seq {k}: the event "
            'differs from what the rules give; the log has {"type":"player_damaged","player":1,"amount":50,')


@pytest.mark.parametrize("command", [["show"], ["show", "--turn", "3"], ["audit", "--rejected"],
                                     ["replay", "--all"]])
def test_a_reader_of_a_forged_log_says_so_on_its_first_line_and_exits_1(forged_log, command):
    good, forged, k = forged_log
    code, out, _ = locm(command[0], forged, *command[1:])
    first = out.decode().splitlines()[0]
    assert code == 1 and first.startswith(warning_of(forged, k)), first
    assert '"amount":5,' in first.split("the rules give ")[1]
    code, out, _ = locm(command[0], good, *command[1:])
    assert code == 0 and not out.startswith(b"WARNING")


def test_audit_of_the_forged_event_names_it_and_json_carries_the_departures(forged_log):
    _, forged, k = forged_log
    code, out, _ = locm("audit", forged, "--seq", k)
    lines = out.decode().splitlines()
    assert code == 1 and lines[1].startswith("this event is not what the rules give: the event differs")
    r = CliRunner().invoke(cli, ["show", str(forged), "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1 and r.stderr.startswith(warning_of(forged, k))
    assert data["departures"][0]["seq"] == k and '"amount":5,' in data["departures"][0]["rules_give"]


def test_show_of_a_forged_log_on_standard_input(forged_log):
    _, forged, k = forged_log
    code, out, _ = locm("show", "-", input=forged.read_bytes())
    assert code == 1 and out.decode().startswith(f"WARNING: <stdin>: this log does not follow the rules: it "
                                                 f"departs from them at seq {k}: ")


def test_a_stored_game_whose_chain_does_not_hold_is_shown_re_decided(store_of):
    db = store_of(1)
    gid = game_id("1.2", 1, ("greedy", "random"))
    k = tamper_stored(db)
    code, out, _ = locm("show", "--db", db, gid)
    first = out.decode().splitlines()[0]
    assert code == 1 and first.startswith(f"WARNING: {db} {gid}: its stored hash chain does not hold ")
    assert f"this log does not follow the rules: it departs from them at seq {k}: " in first


# --- bots have versions ------------------------------------------------------------------------------------


def test_rerun_of_a_game_whose_bot_changed_names_the_bot_not_the_rules(tmp_path):
    for name in ("botlib.py", "good_bot.py"):
        shutil.copy(ROOT / "tests" / "bots" / name, tmp_path / name)
    tmp_path.chmod(0o755)  # run by root, a bot's sandbox user reads its folder as others do
    bot = shlex.join([sys.executable, str(tmp_path / "good_bot.py")])
    log = tmp_path / "g.jsonl"
    assert locm("play", "--seed", 4, "--p0", bot, "--p1", "greedy", "--timeouts", "x20", "--log", log)[0] == 0
    code, out, err = locm("rerun", log, "--ruleset", "1.2")
    assert code == 0 and "no divergence" in out.decode() and "changed since" not in out.decode(), out + err.encode()
    source = (tmp_path / "good_bot.py").read_text()  # the new version summons into lane 1
    (tmp_path / "good_bot.py").write_text(source.replace("answer(good_answer(turn))",
                                                         "answer(good_answer(turn).replace(' 0', ' 1'))"))
    code, out, err = locm("rerun", log, "--ruleset", "1.2")
    text = out.decode()
    assert code == 0, err
    assert f"bot {bot!r} (player 0) changed since the game was played: its files hash to " in text
    assert "first divergence at seq " in text and "an earlier change led here" not in text
    assert "no setting changed: the bot changed since the game was played" in text


# --- tournament schedules ----------------------------------------------------------------------------------


AGENTS3 = ["greedy", "random", "pass"]


@pytest.fixture
def tournament_db(tmp_path):
    db = tmp_path / "t.db"
    code, out, err = locm("tournament", "--agents", *AGENTS3, "--games", 4, "--db", db)
    assert code == 0, err
    return db


def test_a_tournament_records_its_schedule_and_each_games_place(tournament_db):
    from locm.games.locm.tournament import RoundRobin, schedule

    with open_store(tournament_db, readonly=True) as store:
        [(key, manifest)] = store.schedules()
        jobs = RoundRobin.from_manifest(manifest)
        assert key == jobs.key == schedule(RULES_12, AGENTS3, 4).key and len(manifest) < 2000
        for r in store.games():
            meta = json.loads(r.meta)
            assert meta["schedule"] == key and jobs[meta["place"]].game_id == r.game_id
    code, out, _ = locm("verify", "--db", tournament_db)
    assert code == 0 and "1 tournament schedule complete" in out.decode()


def test_games_a_player_deleted_are_named_by_place(tournament_db):
    """The issue's bot deleting its lost games: the ledger says how many, the schedule which."""
    with open_store(tournament_db, readonly=True) as store:
        lost = [r.game_id for r in store.games() if "random" in r.agents and r.agents[r.winner] != "random"]
    assert lost
    ids = ", ".join(f"'{g}'" for g in lost)
    sql(tournament_db, f"DELETE FROM logs WHERE game IN (SELECT id FROM games WHERE game_id IN ({ids}))",
        f"DELETE FROM games WHERE game_id IN ({ids})")
    code, out, _ = locm("verify", "--db", tournament_db)
    text = out.decode()
    assert code == 1 and f"the ledger records 12 games stored, the store holds {12 - len(lost)}: {len(lost)} " \
                         "deleted" in text
    line = next(x for x in text.splitlines() if x.startswith("store: schedule "))
    assert f"{len(lost)} of its 12 games missing (never played, or among the games the ledger says were deleted)" \
        in line and all(g in line for g in lost[:5])


def test_an_unfinished_tournament_is_a_note_not_a_fault(tmp_path):
    from locm.games.locm.tournament import schedule
    from locm.tournament.run import play_jobs, record_schedule

    db = tmp_path / "t.db"
    jobs = schedule("1.2", AGENTS3, 4)
    with open_store(db) as store:
        record_schedule(store, jobs)
        play_jobs(store, list(jobs)[:5])
    code, out, _ = locm("verify", "--db", db)
    assert code == 0, out
    assert f"store: note: schedule {jobs.key} (1.2, 3 agents, seeds 1..2, 12 games): not finished: 5 played, 7 to " \
           "play" in out.decode()


def test_a_game_under_a_scheduled_id_is_never_skipped_as_played(tmp_path):
    """The skip-forever case: a seed-7 game stored (behind the import's back) under the id the schedule gives
    seed 1. The tournament refuses to resume over it; verify names it."""
    from locm.games.locm.tournament import schedule

    db = tmp_path / "t.db"
    jobs = schedule("1.2", ["greedy", "random"], 2)
    squatted = jobs[0]
    with open_store(db) as store:
        store.append_game(LOCM_GAME, GameExtras(game_id=squatted.game_id), play_one("1.2", 7, ("greedy", "random")).log)
    code, _, err = locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", db)
    assert code == 2 and f"the store holds another game under the id of scheduled game {squatted.game_id}" in err
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and f"{squatted.game_id}: the id is not what its content gives: its game_created gives " \
                         f"'{game_id('1.2', 7, ('greedy', 'random'))}'" in out.decode()


def test_a_game_claiming_a_place_that_is_another_games_is_named(tournament_db):
    """An extra game: stored with a meta that says it is place 0 of the schedule, whose game is another."""
    with open_store(tournament_db) as store:
        key = store.schedules()[0][0]
        agents = ("greedy", "random")
        extra = game_id("1.2", 30, agents)
        store.append_game(LOCM_GAME, GameExtras(game_id=extra, meta=json.dumps({"schedule": key, "place": 0})),
                          play_one("1.2", 30, agents).log)
    code, out, _ = locm("verify", "--db", tournament_db)
    assert code == 1 and f"store: game {extra} says it is place 0 of schedule {key}, whose game there is " \
                         in out.decode()


def tamper_stored(db, game=1):
    """An attack's damage raised in a stored log, behind the store's back (its chain then does not hold)."""
    conn = sqlite3.connect(db)
    lines = zlib.decompress(conn.execute("SELECT data FROM logs WHERE game = ?", (game,)).fetchone()[0]).split(b"\n")
    k = next(i for i, line in enumerate(lines) if b'"type":"player_damaged"' in line)
    lines[k] = re.sub(rb'"amount":\d+', b'"amount":50', lines[k])
    with conn:
        conn.execute("UPDATE logs SET data = ? WHERE game = ?", (zlib.compress(b"\n".join(lines)), game))
    conn.close()
    return k


def test_a_report_is_not_made_from_a_game_whose_chain_does_not_hold(store_of, tmp_path):
    db = store_of(3)
    tamper_stored(db, game=2)
    code, _, err = locm("report", "--db", db, "-o", tmp_path / "report")
    assert code == 2 and err.count("\n") == 1, err
    assert f"game '{game_id('1.2', 2, ('greedy', 'random'))}': head of chain: expected hash " in err
    assert f"locm verify --db {db} names every such game" in err


def test_play_of_a_game_whose_bot_changed_stores_it_as_a_new_game_and_says_why(tmp_path):
    for name in ("botlib.py", "good_bot.py"):
        shutil.copy(ROOT / "tests" / "bots" / name, tmp_path / name)
    tmp_path.chmod(0o755)  # run by root, a bot's sandbox user reads its folder as others do
    bot = shlex.join([sys.executable, str(tmp_path / "good_bot.py")])
    db = tmp_path / "t.db"
    args = ["play", "--seed", 4, "--p0", bot, "--p1", "greedy", "--timeouts", "x20", "--db", db]
    code, out, err = locm(*args)
    assert code == 0, err
    first = out.decode().splitlines()[-1].removeprefix("stored: ").split()[0]
    with (tmp_path / "good_bot.py").open("a") as f:
        f.write("# a new version\n")
    code, out, err = locm(*args, "--log", tmp_path / "again.jsonl")
    text = out.decode()
    assert code == 0, err
    assert f"bot {bot!r} changed since this game was played as {first} (its files differ): this is a new game, " \
           "under its own id" in text
    second = next(x for x in text.splitlines() if x.startswith("stored: ")).split()[1]
    assert second != first and (tmp_path / "again.jsonl").exists()
    with open_store(db, readonly=True) as store:
        assert [r.game_id for r in store.games()] == [first, second]
        versions = [store.events(g)[0].bot_sha256[0] for g in (first, second)]
    assert versions[0] != versions[1]


def test_verify_names_a_record_column_edited_behind_the_stores_back(store_of):
    """A player renamed in the games table (what `locm games` and the standings read): its log and chain are
    untouched, its record no longer says what its events say."""
    db = store_of(2)
    sql(db, "UPDATE games SET agents = json_set(agents, '$[1]', 'greedy'), winner = 1 - winner WHERE id = 2")
    code, out, _ = locm("verify", "--db", db, "--no-redecide")
    assert code == 1
    assert f"{game_id('1.2', 2, ('greedy', 'random'))}: the record says agents ('greedy', 'greedy'), its events say " \
           "('greedy', 'random')" in out.decode().splitlines()


def test_verify_ties_each_scheduled_place_to_its_games_content(tmp_path):
    """A game under a scheduled place's id whose record is another game (its seeds changed, record and id
    recomputed to agree, as a forger who found a hash collision would leave it): the place check names it."""
    from locm.games.locm.tournament import schedule
    from locm.tournament.run import record_schedule

    db = tmp_path / "t.db"
    jobs = schedule("1.2", ["greedy", "random"], 2)
    with open_store(db) as store:
        record_schedule(store, jobs)
        job = jobs[0]
        other = play_one("1.2", job.seed, (job.agent0, job.agent1), {"shufflePlayer0Seed": 5}).log
        store.append_game(LOCM_GAME, GameExtras(game_id=job.game_id), other)  # the id is the place's, the game is not
        store.append_game(LOCM_GAME, GameExtras(game_id=jobs[1].game_id), play_one("1.2", 1, (jobs[1].agent0,
                                                                                   jobs[1].agent1)).log)
    code, out, _ = locm("verify", "--db", db, "--no-redecide")
    assert code == 1 and f"store: schedule {jobs.key}: place 0 is game {job.game_id}, whose record is another " \
                         "game: its shuffle_player0_seed is 5, the schedule's " in out.decode()


def test_verify_names_a_game_whose_stored_facts_were_forged(store_of, tmp_path):
    """The facts a game is stored with are what the card report counts instead of folding its log: a forger
    who rewrites them (a loss made a win, the blob re-encoded so that it reads) is named by verify, field and
    both values, and the report made after ``--rebuild`` is the one of the events again."""
    import numpy as np

    from locm.analysis.locm.packedfacts import FACTS_VERSION, card_ints, encode, unpack

    db = store_of(3)
    code, _, err = locm("report", "--db", db, "-o", tmp_path / "honest")
    assert code == 0, err
    conn = sqlite3.connect(db)
    data = conn.execute("SELECT data FROM game_facts WHERE game = 2 AND version = ?", (FACTS_VERSION,)).fetchone()[0]
    facts = unpack(data)
    cards = card_ints(facts)
    cards[2] = 1 - cards[2]  # the first card row's "won"
    forged = msgspec.structs.replace(facts, cards=np.array(cards, dtype="<i4").tobytes())
    with conn:
        conn.execute("UPDATE game_facts SET data = ? WHERE game = 2", (encode(forged),))
    conn.close()
    code, out, _ = locm("verify", "--db", db)
    lines = out.decode().splitlines()
    gid = game_id("1.2", 2, ("greedy", "random"))
    assert code == 1 and f"{gid}: its stored card facts are not what its events give (card row 0, won: stored " \
        f"{cards[2]}, the events give {1 - cards[2]}): locm report counts them; locm report --rebuild recomputes " \
        "them from the events" in lines, lines
    assert lines[-1] == "3 games checked: 2 good, 1 bad"
    code, _, err = locm("report", "--db", db, "-o", tmp_path / "rebuilt", "--rebuild")
    assert code == 0, err
    assert (tmp_path / "rebuilt" / "cards.json").read_bytes() == (tmp_path / "honest" / "cards.json").read_bytes()
    code, out, _ = locm("verify", "--db", db)
    assert code == 0, out


def test_a_report_counts_no_stored_facts_of_a_log_edited_behind_the_stores_back(store_of, tmp_path):
    """The facts are bound to the log's bytes: a log edited after its facts were stored (here with the game's
    head hash rewritten to match, so that its chain holds) is projected from its events again, the edit
    included, and verify names the game (its events are no game of the rules)."""
    db = store_of(2)
    k = tamper_stored(db, game=2)
    conn = sqlite3.connect(db)
    lines = zlib.decompress(conn.execute("SELECT data FROM logs WHERE game = 2").fetchone()[0]).split(b"\n")
    head = bytes(32)
    import hashlib

    for line in lines:
        head = hashlib.sha256(head + line).digest()
    with conn:
        conn.execute("UPDATE games SET head_hash = ? WHERE id = 2", (head,))
    conn.close()
    code, out, err = locm("report", "--db", db, "-o", tmp_path / "r")
    assert code == 0, err
    assert "card facts: 1 games' as stored beside their events (locm verify recomputes them), 1 games' projected " \
           "from their events" in out.decode()
    code, out, _ = locm("verify", "--db", db)
    assert code == 1 and f"re-decided from its inputs, seq {k}: the event differs" in out.decode()
