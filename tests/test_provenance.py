"""Provenance of every stored game (issue 32, item 1), through the real command line over real stores: a greedy
game relabelled as lookahead's and a game credited to an external bot, each planted under a scheduled id, are
never counted by a tournament and are named by `locm verify`; the provenance of played and imported games is
what happened; verify lists the imported games apart."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.locm.definition import GAME as LOCM_GAME
from locm.errors import TournamentError
from locm.games.registry import checker
from locm.provenance.agents import rerun_agents
from locm.store.eventstore import GameExtras, MemoryStore, open_store
from locm.tournament.run import count_stored
from locm.tournament.schedule import bot_versions
from tests.forge import games_of


def locm(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


def relabelled(export: bytes, swap: dict[str, str], bots: tuple[str, str] | None = None) -> bytes:
    """An export of the first game of ``export`` with its agents renamed (``swap``; ``bots``: the seats' bot
    versions to claim), its id recomputed with locm's own id function, its chain recomputed and its schedule
    fields dropped: what the attacker of issue 32 wrote."""
    record, events = games_of(b"\n".join(line for line in export.splitlines()
                                         if not line.startswith(b'{"schedule"')))[0]
    created = events[0]
    changes = {"agents": tuple(swap.get(a, a) for a in created.agents)}
    if bots is not None:
        changes["bot_sha256"] = bots
    events = [msgspec.structs.replace(created, **changes)] + events[1:]
    forged = MemoryStore()
    forged.append_game(LOCM_GAME, GameExtras(game_id=LOCM_GAME.game_id(events[0]), seats=record.seats), events)
    buf = io.BytesIO()
    forged.export_jsonl(None, buf)
    return buf.getvalue()


def plant(db: Path, data: bytes) -> list[str]:
    """The games of an export put into a store as an import that skipped the content checks would (a locm
    before the agents were re-run, or a file imported by hand): kept as untrusted provenance."""
    with open_store(db, checker=checker()) as store:
        before = set(store.provenances())
        store.import_jsonl(io.BytesIO(data), check=False)
        return [g for g in store.provenances() if g not in before]


@pytest.fixture()
def greedy_export(tmp_path: Path) -> bytes:
    """An export of a played tournament, greedy against random on seeds 1 (both seatings)."""
    db = tmp_path / "played.db"
    code, _, err = locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", db)
    assert code == 0, err
    out = tmp_path / "played.jsonl"
    assert locm("export", "--all", "--db", db, "-o", out)[0] == 0
    return out.read_bytes()


def test_a_relabelled_builtin_game_is_refused_at_import_naming_the_first_differing_decision(tmp_path, greedy_export):
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(relabelled(greedy_export, {"greedy": "lookahead"}))
    code, _, err = locm("import", forged, "--db", tmp_path / "b.db")
    assert code != 0
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "its agents would not play it: decision" in err and "'lookahead' gives" in err, err
    assert not (tmp_path / "b.db").exists()  # nothing kept
    code, out, _ = locm("verify", forged)  # the file itself, as verify reads an export
    assert code == 1 and "its agents would not play it: decision" in out, out


def test_a_relabelled_builtin_game_planted_under_a_scheduled_id_is_not_counted_and_verify_names_it(
        tmp_path, greedy_export):
    db = tmp_path / "b.db"
    [gid] = plant(db, relabelled(greedy_export, {"greedy": "lookahead"}))
    came = open_store(db, create=False, readonly=True).provenance(gid)
    assert (came.kind, came.counted) == ("imported", False)
    code, out, err = locm("tournament", "--agents", "lookahead", "random", "--games", 2, "--db", db)
    assert code != 0 and "stored before" not in out + err
    assert f"the store holds scheduled game {gid}, imported from" in err and "not trusted" in err, err
    code, out, err = locm("tournament", "--agents", "lookahead", "random", "--games", 2, "--db", db, "--sprt",
                          "elo0=0,elo1=20,alpha=0.05,beta=0.05")  # an SPRT run counts it no more
    assert code != 0 and "stored before" not in out + err and f"scheduled game {gid}" in err, err
    code, out, _ = locm("verify", "--db", db)
    assert code == 1
    assert f"{gid}: its agents would not play it: decision" in out, out
    assert "provenance: 1 game imported, not trusted" in out and f"  {gid}: imported from <stream>" in out, out
    code, out, _ = locm("games", "--db", db)
    assert code == 0 and "1 Legends of Code and Magic game, 1 of them not counted" in out, out


def test_a_game_credited_to_an_external_bot_is_kept_untrusted_and_never_counted_as_the_bots(tmp_path, greedy_export):
    bot = tmp_path / "bot.py"
    bot.write_text("print('PASS')\n")
    spec = f"python3 {bot}"
    agents = (spec, "random")
    forged = tmp_path / "evil.jsonl"
    forged.write_bytes(relabelled(greedy_export, {"greedy": spec}, bots=bot_versions(LOCM_GAME, agents)))
    db = tmp_path / "c.db"
    code, out, err = locm("import", forged, "--db", db)  # the bot's inputs are its own: kept, as untrusted
    assert code == 0, err
    assert "imported without --trust: kept as untrusted" in err
    with open_store(db, create=False, readonly=True) as store:
        [(gid, came)] = store.provenances().items()
        assert came.kind == "imported" and not came.counted
        assert came.source.sha256 == hashlib.sha256(forged.read_bytes()).hexdigest()
        assert came.source.file == str(forged.resolve())
        # the bot's seat is the log's word; the random seat beside it re-runs as random's
        assert rerun_agents(LOCM_GAME, store.events(gid)).status == "same"
        from locm.tournament.players import players

        jobs = players("locm").schedule(LOCM_GAME.rules("1.2"), list(agents), 2, 1)
        assert gid in {j.game_id for j in jobs}  # planted under the very id the tournament would give it
        with pytest.raises(TournamentError, match="a tournament counts only the games its store played"):
            count_stored(store, jobs)
    code, out, err = locm("tournament", "--no-sandbox", "--agents", spec, "random", "--games", 2, "--db", db)
    assert code != 0 and "stored before" not in out + err and f"scheduled game {gid}" in err, err
    code, out, _ = locm("verify", "--db", db)
    assert f"  {gid}: imported from {forged.resolve()} (sha256 " in out and "not trusted" in out, out
    assert locm("key", "new", "--db", db)[0] == 0  # provenance does not travel: a signed export says so
    code, _, err = locm("export", "--all", "--db", db, "-o", tmp_path / "again.jsonl")
    assert code == 0 and "warning: 1 game of the file this store did not play nor import under --trust" in err, err


def test_the_provenance_of_played_and_imported_games(tmp_path):
    db = tmp_path / "a.db"
    assert locm("play", "--seed", 3, "--db", db)[0] == 0
    assert locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", db)[0] == 0
    with open_store(db, create=False, readonly=True) as store:
        found = store.provenances()
    assert len(found) == 3 and all(c.kind == "played" and c.counted for c in found.values())
    runs = [c.source.run for c in found.values()]
    assert runs[1] == runs[2] != runs[0]  # one run for the play, one for the tournament
    assert found[list(found)[1]].source.command.startswith("locm tournament --game locm --ruleset 1.2 --agents")
    assert found[list(found)[0]].source.command.startswith("locm play --game locm")
    assert found[list(found)[0]].text().startswith(f"played here by run {runs[0]}")
    # imported, untrusted then trusted (signed by the store that played them)
    assert locm("key", "new", "--db", db)[0] == 0
    public = locm("key", "show", "--db", db)[1].strip()
    out = tmp_path / "all.jsonl"
    assert locm("export", "--all", "--db", db, "-o", out)[0] == 0
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    plain, trusted = tmp_path / "plain.db", tmp_path / "trusted.db"
    assert locm("import", out, "--db", plain)[0] == 0
    assert locm("import", out, "--db", trusted, "--trust", public)[0] == 0
    for path, ok in ((plain, False), (trusted, True)):
        with open_store(path, create=False, readonly=True) as store:
            found = store.provenances()
        assert len(found) == 3
        for came in found.values():
            s = came.source
            assert (came.kind, came.counted, s.trusted, s.sha256, s.file) == ("imported", ok, ok, digest,
                                                                              str(out.resolve()))
            assert s.signer == (public if ok else "")
    code, text, _ = locm("verify", "--db", trusted)
    assert code == 0 and "provenance: 3 games imported from trusted files (counted)" in text, text
    # the untrusted copy's games become the trusted file's when it is imported again under --trust
    code, text, err = locm("import", out, "--db", plain, "--trust", public, "--skip-existing")
    assert code == 0 and "3 already stored, skipped (3 of them now this trusted file's)" in text, text + err
    with open_store(plain, create=False, readonly=True) as store:
        assert all(c.counted and c.source.signer == public for c in store.provenances().values())
    # the trusted copy resumes the tournament: its games count as this store's
    code, text, err = locm("tournament", "--agents", "greedy", "random", "--games", 2, "--db", trusted)
    assert code == 0 and "2 stored before" in text + err, text + err


def test_an_event_log_import_records_its_file(tmp_path):
    log = tmp_path / "g.jsonl"
    assert locm("play", "--seed", 5, "--log", log)[0] == 0
    db = tmp_path / "a.db"
    assert locm("import", log, "--db", db)[0] == 0
    with open_store(db, create=False, readonly=True) as store:
        [came] = store.provenances().values()
    assert came.kind == "imported" and came.source.sha256 == hashlib.sha256(log.read_bytes()).hexdigest()


def test_an_old_store_reads_as_stored_before_provenance_and_a_row_behind_its_back_as_unrecorded(tmp_path):
    db = tmp_path / "a.db"
    for seed in (1, 2):
        assert locm("play", "--seed", seed, "--db", db)[0] == 0
    conn = sqlite3.connect(db)
    conn.executescript("DROP TABLE provenance; DROP TABLE provenance_sources; "
                       "DELETE FROM locm_meta WHERE key = 'provenance_since';")
    conn.close()
    with open_store(db, create=False, readonly=True) as store:
        assert {c.kind for c in store.provenances().values()} == {"before"}
        assert all(c.counted for c in store.provenances().values())
    assert locm("play", "--seed", 3, "--db", db)[0] == 0  # provenance from here on
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM provenance WHERE game = 3")  # as if the game's row were written behind its back
    conn.commit()
    conn.close()
    with open_store(db, create=False, readonly=True) as store:
        kinds = [c.kind for c in store.provenances().values()]
    assert kinds == ["before", "before", "unrecorded"]
    code, out, _ = locm("verify", "--db", db)
    assert "provenance: 1 game without provenance (not counted)" in out, out
    assert "provenance: 2 games stored before this store recorded provenance" in out, out


def test_a_trusted_file_changed_after_its_signature_was_checked_stores_nothing(tmp_path):
    store = MemoryStore(checker=checker())
    from locm.store.provenance import imported_source

    data = b'{"locm_export":1,"store_schema":2,"event_schema":2}\n{"end":{"games":0,"events":0}}\n'
    source = imported_source("x.jsonl", at="2026-12-02T00:00:00Z", trusted=True, signer="ab" * 32,
                             sha256="00" * 32)
    from locm.errors import StoreError

    with pytest.raises(StoreError, match="not the bytes whose signature was checked"):
        store.import_jsonl(io.BytesIO(data), source=source)


def test_every_builtin_agent_of_every_game_re_runs_to_its_own_log():
    from locm.engine import core, registry

    for name in registry.GAMES:
        game = registry.get(name)
        for ruleset in game.rulesets:
            for agent in game.agent_names:
                agents = [agent] + [game.agent_names[-1]] * (game.seats[0] - 1)
                match = core.play(game, ruleset, 11, agents)
                found = rerun_agents(game, match.log)
                assert found.status == "same", (name, ruleset, agents, found)


def test_a_game_relabelled_as_another_builtin_agents_is_found_in_every_game():
    """The forger writes the created event the relabelled agents would have had (LOCM's: the agents' names;
    Skyport's: its players' names too) and keeps every other event."""
    from locm.engine import core, registry

    for name in registry.GAMES:
        game = registry.get(name)
        strong, weak = game.agent_names[-1], game.agent_names[0]
        match = core.play(game, game.rulesets[0], 11, [strong] + [weak] * (game.seats[0] - 1))
        created = match.log[0]
        claimed = (weak,) + tuple(created.agents[1:])
        forged = [game.new(created.rules, 11, claimed).log[0]] + match.log[1:]
        found = rerun_agents(game, forged)
        assert found.status != "same", (name, found)
        if name == "mcg":  # an agent builds its deck: the forged created event's decks are the other agent's,
            continue       # so its log departs from its opening on (found, as above, whichever way)
        assert found.status == "differs" and f"P0 {weak!r} gives" in found.why, (name, found)
        assert 0 < found.seq < len(forged) and found.decision >= 1


def test_a_migrated_store_says_its_games_were_migrated_and_counts_them(tmp_path):
    import gzip

    db = tmp_path / "old.db"
    db.write_bytes(gzip.decompress((Path(__file__).resolve().parent / "data" / "store-v2.db.gz").read_bytes()))
    assert locm("migrate", db)[0] == 0
    with open_store(db, create=False, readonly=True) as store:
        found = store.provenances()
    assert len(found) == 3
    for came in found.values():
        assert came.kind == "migrated" and came.counted and came.source.file == str(db)
        assert came.text().startswith(f"migrated from {db} (") and "did not record provenance" in came.text()


def test_a_source_row_locm_did_not_write_is_not_counted(tmp_path):
    db = tmp_path / "a.db"
    assert locm("play", "--seed", 1, "--db", db)[0] == 0
    assert locm("play", "--seed", 2, "--db", db)[0] == 0
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA ignore_check_constraints = ON")  # what the table's CHECKs refuse, written anyway
    conn.execute("UPDATE provenance_sources SET trusted = 'yes', kind = 'imported'")  # "trusted", says the row
    conn.commit()
    conn.close()
    with open_store(db, create=False, readonly=True) as store:
        assert [(c.kind, c.counted) for c in store.provenances().values()] == [("unrecorded", False)] * 2


def test_a_game_played_on_by_other_agents_is_re_run_with_the_agents_of_each_part():
    """`locm play --from` stores a game whose created event names the agents that played on, with the ones that
    played up to the position in its meta: the re-run takes each part's agents, and a wrong claim is found."""
    from locm.engine import core

    game = LOCM_GAME
    whole = core.play(game, "1.2", 5, ["random", "random"]).log
    later = len(whole) + 10  # a position past the end: every decision was the earlier agents'
    assert rerun_agents(game, whole, (later, ["random", "random"])).status == "same"
    lie = rerun_agents(game, whole, (later, ["greedy", "random"]))
    assert lie.status == "differs" and "P0 'greedy' gives" in lie.why
    assert rerun_agents(game, whole, (later, ["random"])).status == "cannot"


def test_a_runners_own_input_is_given_as_recorded_when_the_agents_are_re_run():
    """A Skyport game stopped by the tournament's wall clock: its last input is the runner's stop, not an
    agent's move; the re-run submits it as recorded, and a stop put where the log had an agent's move is found."""
    from locm.engine.skyport.commands import Stop
    from locm.engine.skyport.definition import GAME as SKYPORT

    match = SKYPORT.new(SKYPORT.rules("2013"), 3, ["hunter", "random"])
    players = [SKYPORT.make_agent(a, 3, s) for s, a in enumerate(["hunter", "random"])]
    for _ in range(6):
        players[match.to_move].play_turn(match, match.to_move)
    match.submit(Stop(match.to_move, "wall-clock limit 1 s"))
    assert match.ended and rerun_agents(SKYPORT, match.log).status == "same"
    assert SKYPORT.runner_command(match.log[-2]) is not None
