"""Skyport for organisers: `locm tournament --game skyport --map/--timing/--wall-clock`
(locm/games/skyport/tournament.py, netbots.py, server.py). The map is recorded in every game; a game that runs past its wall-clock limit ends
there with a recorded stop (R-WALL-CLOCK: `command_received` kind ``stop``, `game_ended` reason ``wall-clock``)
and re-decides; faithful timing makes every served turn last the think time, so the same clients under the
same wall clock finish by the turn limit with fast timing and are stopped with faithful timing."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from locm.cli.main import cli
from locm.engine.errors import CommandError
from locm.engine.skyport.commands import Act, Stop
from locm.engine.skyport.definition import GAME
from locm.engine.skyport.game import SkyportGame, redecide
from locm.engine.skyport.rules import builtin_map
from locm.events.skyport.catalog import STOP, CommandReceived, GameCreated, GameEnded
from locm.runner.sandbox.bwrap import probe
from locm.store.eventstore import open_store

ROOT = Path(__file__).resolve().parent.parent
PY = f"{sys.executable} {ROOT / 'examples' / 'skyport' / 'client.py'} {{host}} {{port}}"
SANDBOX = probe()
CONFINED = [] if SANDBOX.ok and shutil.which("socat") else ["--no-sandbox"]


def locm(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def stored(db):
    with open_store(db) as store:
        return [(m, store.events(m.game_id)) for m in store.games(game="skyport")]


def test_the_organisers_map_is_recorded_in_every_game_and_names_its_id(tmp_path):
    base = ("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2)
    assert locm(*base, "--db", tmp_path / "a.db").exit_code == 0
    r = locm(*base, "--map", "crossroads-4p", "--db", tmp_path / "b.db")
    assert r.exit_code == 0, r.output
    default, chosen = stored(tmp_path / "a.db"), stored(tmp_path / "b.db")
    assert {type(e[0]) for _, e in chosen} == {GameCreated}
    assert {e[0].map.name for _, e in default} == {"duel-2p"}  # the smallest map that seats two
    assert {e[0].map.name for _, e in chosen} == {"crossroads-4p"} and {e[0].rules.map for _, e in chosen} == {
        "crossroads-4p"}
    assert not {m.game_id for m, _ in default} & {m.game_id for m, _ in chosen}
    assert locm("verify", "--db", tmp_path / "b.db").exit_code == 0
    again = locm(*base, "--map", "crossroads-4p", "--db", tmp_path / "b.db")
    assert again.exit_code == 0 and "2 already stored, 0 to play" in again.output  # the same ids: resumable


def test_a_map_file_is_every_games_map_kept_in_the_schedule_and_verified(tmp_path):
    text = (ROOT / "data" / "skyport" / "maps" / "triangle-3p.skyportmap").read_text()
    path = tmp_path / "mine.skyportmap"
    path.write_text(text)
    db = tmp_path / "m.db"
    args = ("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--map", path, "--db", db)
    r = locm(*args)
    assert r.exit_code == 0, r.output
    games = stored(db)
    assert len(games) == 2 and {e[0].map.name for _, e in games} == {"mine"}  # the file's name, recorded
    assert {m.fields["map"] for m, _ in games} == {"mine"} and {e[0].rules.map for _, e in games} == {""}
    assert {e[0].map.rows for _, e in games} == {builtin_map("triangle-3p").rows}
    checked = locm("verify", "--db", db)  # the schedule's manifest keeps the map: verify rebuilds its ids
    assert checked.exit_code == 0 and "1 tournament schedule complete" in checked.output, checked.output
    assert "2 already stored, 0 to play" in locm(*args).output
    r = locm("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--best-of", 3,
             "--map", path, "--db", tmp_path / "s.db")
    assert r.exit_code == 2 and "not yet a map file" in r.output


def test_a_game_past_its_wall_clock_ends_there_recorded_and_redecides(tmp_path):
    db = tmp_path / "w.db"
    r = locm("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--wall-clock", 0.001,
             "--db", db)
    assert r.exit_code == 0, r.output
    for m, events in stored(db):
        stop, end = events[-2], events[-1]
        assert type(stop) is CommandReceived and stop.kind == STOP and stop.rule == "R-WALL-CLOCK"
        assert stop.text == "wall-clock limit 0.001 s"
        assert type(end) is GameEnded and end.reason == "wall-clock" == m.reason and end.turn < 200
        assert redecide(events)[1] == -1  # the stop is a recorded command: the rules give the same log
    assert locm("verify", "--db", db).exit_code == 0
    plain = tmp_path / "p.db"
    assert locm("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--db",
                plain).exit_code == 0
    assert {m.reason for m, _ in stored(plain)} == {"turn-limit"}


def test_a_stop_comes_only_before_the_turn_of_the_player_to_move():
    game = SkyportGame.new(("alpha0", "beta1"), 3, builtin_map("duel-2p"), agents=("hunter", "random"))
    from locm.engine.skyport.commands import ChooseLoadout

    with pytest.raises(CommandError, match="stopped before the turn of the player to move"):
        game.submit(Stop(0, "too early"))  # the loadouts are not in yet
    game.submit(ChooseLoadout(0, "laser", "mortar"))
    game.submit(ChooseLoadout(1, "laser", "droid"))
    mover = game.state.current
    with pytest.raises(CommandError):
        game.submit(Stop(1 - mover, "not its turn"))
    game.submit(Act(mover, {"message": "action", "type": "move", "direction": "up"}))
    game.submit(Stop(mover, "wall-clock limit 1 s"))
    assert game.ended and GAME.outcome(game.log).reason == "wall-clock"
    from locm.replay.skyport.words import describe

    names = game.log[0].names
    assert describe(game.log[-2], names) == (f"the game is stopped before P{mover} {names[mover]}'s turn: "
                                             "wall-clock limit 1 s")


def test_faithful_timing_makes_every_turn_last_the_think_time(tmp_path):
    args = ("tournament", "--game", "skyport", "--agents", "hunter", PY, "--games", 2, "--think-ms", 100,
            "--wall-clock", 4, *CONFINED)
    fast = locm(*args, "--db", tmp_path / "f.db")
    assert fast.exit_code == 0, fast.output
    assert {m.reason for m, _ in stored(tmp_path / "f.db")} == {"turn-limit"}  # a client that answers at once
    faithful = locm(*args, "--timing", "faithful", "--db", tmp_path / "s.db")
    assert faithful.exit_code == 0, faithful.output
    games = stored(tmp_path / "s.db")
    assert {m.reason for m, _ in games} == {"wall-clock"}  # 200 turns of 100 ms each are more than 4 s
    for m, events in games:
        assert 4 / 0.1 * 0.5 <= m.turns <= 4 / 0.1 + 2, m.turns  # about one turn per think time
        assert redecide(events)[1] == -1


def test_organiser_options_refused_in_one_line(tmp_path):
    r = locm("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--map", "nowhere",
             "--db", tmp_path / "a.db")
    assert r.exit_code == 2 and "--map 'nowhere': expected a built-in map (crossroads-4p, duel-2p" in r.output
    assert "or a .skyportmap file" in r.output
    r = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 2, "--timing", "faithful",
             "--db", tmp_path / "a.db")
    assert r.exit_code == 2 and "my-card-game's games are not served" in r.output
    r = locm("tournament", "--game", "mcg", "--agents", "greedy", "random", "--games", 2, "--map", "duel-2p",
             "--db", tmp_path / "a.db")
    assert r.exit_code == 2 and "--map: my-card-game has no maps" in r.output
    r = locm("tournament", "--game", "skyport", "--agents", "hunter", "random", "--games", 2, "--wall-clock", 0,
             "--db", tmp_path / "a.db")
    assert r.exit_code == 2 and "--wall-clock" in r.output
    assert not (tmp_path / "a.db").exists()
