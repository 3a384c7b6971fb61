"""`locm tournament --game skyport` with clients started from command lines (locm/games/skyport/netbots.py through
locm/tournament/matchplay.py): the schedule's ids are the stored games' (the command line and the client's version name a
seat, the handshake's name is recorded beside it), a rerun stores nothing twice, `verify` is clean, and a
client that crashes, stays silent or sends garbage loses (R-FORFEIT, or as a client that left) while the
tournament finishes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.errors import CommandError
from locm.engine.seam import content_id
from locm.engine.skyport.commands import ChooseLoadout, Forfeit
from locm.engine.skyport.definition import GAME
from locm.engine.skyport.game import SkyportGame, redecide
from locm.engine.skyport.rules import builtin_map
from locm.events.skyport.catalog import FORFEIT, CommandReceived, LoadoutChosen
from locm.events.skyport.codec import CODEC
from locm.tournament.schedule import seats_schedule
from locm.runner.sandbox.bwrap import probe
from locm.store.eventstore import open_store

ROOT = Path(__file__).resolve().parent.parent
NODE = f"node {ROOT / 'examples' / 'skyport' / 'client.js'} {{host}} {{port}}"
PY = f"{sys.executable} {ROOT / 'examples' / 'skyport' / 'client.py'} {{host}} {{port}}"
BAD = ROOT / "tests" / "bots" / "skyport_bad_client.py"
SANDBOX = probe()
CONFINED = [] if SANDBOX.ok and shutil.which("socat") else ["--no-sandbox"]


def bad(mode: str) -> str:
    return f"{sys.executable} {BAD} {mode} {{host}} {{port}}"


def _variant(tmp_path: Path, turns: int) -> Path:
    path = tmp_path / "short.toml"
    path.write_text(f'base = "2013"\nname = "short"\nturn_limit = {turns}\n', encoding="utf-8")
    return path


def _tournament(tmp_path: Path, agents: list[str], games: int, seats: int, *extra: str):
    args = ["tournament", "--game", "skyport", "--ruleset", str(_variant(tmp_path, 30)), "--seats", str(seats),
            "--agents", *agents, "--games", str(games), "--db", str(tmp_path / "s.db"), *extra, *CONFINED]
    return CliRunner().invoke(cli, args)


def test_a_game_with_clients_is_named_by_its_seats_and_versions_not_by_its_handshakes():
    """With ``bots`` recorded, the names (the clients' handshakes) are out of the id; a game of built-in
    agents keeps the id of its whole created event, as before."""
    rules = GAME.rules("2013")
    plain = GAME.new(rules, 5, ("hunter", "random")).log[0]
    assert GAME.game_id(plain) == content_id("skyport", "2013", 5, CODEC.to_json(plain))
    assert b'"bots"' not in CODEC.to_json(plain)  # logs of built-in agents keep their bytes
    served = GAME.new_versioned(rules, 5, ("hunter", "python3 c.py {host} {port}"), ("", "ab" * 32)).log[0]
    renamed = msgspec.structs.replace(served, names=("hunter-0", "pybot"))
    assert GAME.game_id(served) == GAME.game_id(renamed)
    other = msgspec.structs.replace(served, bots=("", "cd" * 32))  # another version of the client
    assert GAME.game_id(other) != GAME.game_id(served)
    moved = msgspec.structs.replace(served, agents=("hunter", "python3 d.py {host} {port}"))
    assert GAME.game_id(moved) != GAME.game_id(served)


def test_a_forfeit_gives_the_default_loadout_and_replays():
    game = SkyportGame.new(("alpha", "absent1"), 7, builtin_map("duel-2p"))
    game.submit(ChooseLoadout(0, "droid", "mortar"))
    events = game.submit(Forfeit(1, "no handshake within 60 s"))
    record, chosen = events[0], events[1]
    assert type(record) is CommandReceived and record.kind == FORFEIT and record.text == "no handshake within 60 s"
    assert type(chosen) is LoadoutChosen and (chosen.primary, chosen.secondary, chosen.rule) == \
        ("laser", "mortar", "R-FORFEIT")
    assert game.state.phase == "turn" and redecide(game.log)[1] == -1
    with pytest.raises(CommandError):
        game.submit(Forfeit(1, "again"))  # only in the loadout phase, once


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_tournament_of_the_node_and_python_clients_stores_the_schedule_once_and_verifies(tmp_path):
    agents = ["hunter", NODE, PY]
    result = _tournament(tmp_path, agents, 2, 2, "--think-ms", "2000")
    assert result.exit_code == 0, result.output
    assert "6 games played, 0 stored before: 6 of 6 Skyport games" in result.output
    jobs = seats_schedule("skyport", GAME.variant(_variant(tmp_path, 30).read_text(), "short"), agents, 2, 1, 2)
    with open_store(tmp_path / "s.db") as store:
        stored = {m.game_id: m for m in store.games(game="skyport")}
        assert set(stored) == {j.game_id for j in jobs}  # the ids scheduled are the games played
        for job in jobs:
            created = store.events(job.game_id)[0]
            assert created.agents == job.agents  # a seat is its command line
            assert created.bots == job.bots and all(created.bots[s] for s, a in enumerate(job.agents) if a != "hunter")
            named = dict(zip(created.agents, created.names))  # the handshakes' names, beside the seats
            assert named.get(NODE, "nodebot") == "nodebot" and named.get(PY, "pybot") == "pybot"
            record = stored[job.game_id]
            assert not any(x.error for x in record.seats), record
            assert record.scores is not None and len(set(record.scores)) > 1  # the clients played
    table = result.output.split("agent ", 1)[1]
    assert "mean score [95%]" in table and "rating" in result.output
    again = _tournament(tmp_path, agents, 4, 2, "--think-ms", "2000")  # two more seeds: the first two kept
    assert again.exit_code == 0, again.output
    assert "6 games played, 6 stored before: 12 of 12 Skyport games" in again.output
    check = CliRunner().invoke(cli, ["verify", "--db", str(tmp_path / "s.db")])
    assert check.exit_code == 0 and "12 games checked: 12 good, 0 bad" in check.output, check.output


def test_crashed_silent_and_garbage_clients_lose_and_the_tournament_finishes(tmp_path):
    """Five seats on one map, every rotation: a client that crashes before it connects, one that connects and
    says nothing, one that sends garbage (all three forfeit: their seat is played as a client that left),
    one that dies after two turns (a client that left); the hunter wins every game."""
    agents = ["hunter", bad("crash"), bad("silent"), bad("garbage"), bad("midcrash")]
    result = _tournament(tmp_path, agents, 5, 5, "--think-ms", "1000", "--join-timeout", "2", "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "5 games played, 0 stored before: 5 of 5 Skyport games" in result.output
    why = {bad("crash"): "its client ended before its handshake", bad("silent"): "no handshake within 2 s",
           bad("garbage"): "no handshake within 2 s"}
    with open_store(tmp_path / "s.db") as store:
        games = store.games(game="skyport")
        assert len(games) == 5
        for m in games:
            events = store.events(m.game_id)
            forfeits = {e.player: e.text for e in events if type(e) is CommandReceived and e.kind == FORFEIT}
            seat = {a: s for s, a in enumerate(m.agents)}
            assert forfeits == {seat[a]: text for a, text in why.items()}, m.game_id
            assert [m.seats[seat[a]].error for a in agents] == [False, True, True, True, True], m.game_id
            assert m.places[seat["hunter"]] == 0, m.game_id
            died = seat[bad("midcrash")]
            moves = [e for e in events if type(e).__name__ == "Moved" and e.player == died]
            assert 1 <= len(moves) <= 6, m.game_id  # it played its first turns, then left
            assert "dying in the middle" in m.seats[died].stderr and "locm: closed by the client" in \
                m.seats[died].stderr
    standings = result.output.split("mean score [95%]", 1)[1].split("\n\n", 1)[0]
    rows = {line.split("  ")[0]: line for line in standings.splitlines()[2:]}
    assert rows["hunter"].split()[1:3] == ["5", "5"]  # 5 games, 5 wins
    for a in agents[1:]:
        assert rows[a].rstrip().endswith(" 5"), rows[a]  # every game lost by an error
    check = CliRunner().invoke(cli, ["verify", "--db", str(tmp_path / "s.db")])
    assert check.exit_code == 0 and "5 games checked: 5 good, 0 bad" in check.output, check.output
    shown = CliRunner().invoke(cli, ["games", "--db", str(tmp_path / "s.db"), "--stderr", games[0].game_id])
    assert shown.exit_code == 0 and "locm: forfeited: no handshake within 2 s" in shown.output, shown.output
    assert "bad client: crashing before it connects\nlocm: forfeited: its client ended before" in shown.output
