"""A game from outside (issue 30): Nim, in a package of its own under tests/outside_game/, registered only by
its entry point (group ``locm.games``), is installed by this test with pip into a folder of its own and driven
through locm's command line, as a user who installed it would: play (two and three seats), tournament
(built-in agents, and an external command-line bot in the sandbox), verify, export, import into a fresh store,
games, show, replay, audit, html, and its Gymnasium and PettingZoo environments through locm.rl. Nothing in
locm names it.

Entry points that do not give a game (a module that does not import, a name taken by a built-in game, a value
that is no `GameDef`, a definition of another name) are real installed metadata too (a ``.dist-info`` folder
beside the game): each is one line naming its package, and every built-in game still plays.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_reliability import one_line_error, run_locm

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tests" / "outside_game"
BOT = f"{sys.executable} {PACKAGE / 'bot.py'}"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The outside game installed by pip (a wheel built from a copy of its folder, so the checkout gets no
    build files) into a folder that only this test's commands see (PYTHONPATH)."""
    tmp = tmp_path_factory.mktemp("outside")
    source = tmp / "src"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = tmp / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                        str(source)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "outside_nim-0.1.0.dist-info" / "entry_points.txt").is_file()
    return target


def env_with(*paths: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


@pytest.fixture(scope="module")
def locm(site):
    """`locm` as a user of the installed game runs it."""
    env = env_with(site)

    def run(*args, timeout=180):
        return run_locm(*args, env=env, timeout=timeout)

    return run


def ok(r) -> str:
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout


def test_without_the_package_locm_knows_no_nim():
    line = one_line_error(run_locm("play", "--game", "nim", "--seed", "1"), start="locm play: error: ")
    assert "unknown game 'nim'" in line


def test_the_installed_game_is_listed_with_its_package(locm):
    out = ok(locm("--version"))
    assert out.splitlines()[1] == "games: locm, mcg (my-card-game), skyport, nim (outside-nim) from outside-nim 0.1.0"
    assert "[locm|mcg|skyport|nim|" in ok(locm("play", "--help"))


def test_play_verify_show_replay_audit_html_and_import_of_a_log(locm, tmp_path):
    db, log = tmp_path / "n.db", tmp_path / "n.jsonl"
    out = ok(locm("play", "--game", "nim", "--ruleset", "standard", "--seed", "3", "--agents", "greedy,random,first",
                  "--log", log, "--db", db))
    assert out.startswith("Nim standard, seed 3: P") and "P2 first: place" in out and "stored: nim-standard-3-" in out
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["type"] == "nim_created" and events[0]["agents"] == ["greedy", "random", "first"]
    assert events[-1]["type"] == "nim_ended" and len(events) > 6
    gid = out.split("stored: ")[1].split()[0]
    ok(locm("play", "--game", "outside-nim", "--seed", "4", "--p0", "random", "--p1", "greedy", "--db", db))  # alias

    assert ok(locm("verify", "--db", db, log)).endswith("3 games checked: 3 good, 0 bad\n")
    lines = log.read_text().splitlines(keepends=True)
    k = next(i for i, e in enumerate(events) if e["type"] == "nim_took")
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join([*lines[:k], lines[k].replace('"count":', '"count":1'), *lines[k + 1:]]))
    r = locm("verify", forged)
    assert r.returncode == 1 and f"departs from the rules at seq {k}" in r.stdout, r.stdout + r.stderr

    out = ok(locm("show", log))
    assert out.startswith(f"Nim: seq {len(events) - 1} of {len(events) - 1}") and "heap 0:" in out
    out = ok(locm("show", "--db", db, gid, "--seq", "2", "--as", "1"))
    assert out.startswith("Nim: seq 2 of") and "(as P1)" in out
    assert "P0:?" in out and "P2:?" in out  # the other seats' pass tokens are hidden from P1
    out = ok(locm("replay", log, "--all"))
    assert out.count("to move") == sum(e["type"] == "nim_answer" for e in events)
    last = len(events) - 1
    out = ok(locm("audit", log, "--seq", last))
    assert out.startswith(f"seq {last} nim_ended") and "caused by seq" in out and "nim_answer" in out
    page = tmp_path / "n.html"
    assert "Nim)" in ok(locm("html", log, "-o", page))
    data = json.loads(page.read_text(encoding="utf-8").split('id="game-data">')[1].split("</script>")[0])
    assert len(data["events"]) == len(events) and data["meta"]["seats"] == 3  # the shell, with the text board
    assert len(data["boards"]) == len(events) and len(data["boards"]["0"]) == 4  # whole, and from each seat

    fresh = tmp_path / "fresh.db"
    assert ok(locm("import", log, "--db", fresh)) == f"imported game {gid} into {fresh}\n"
    assert "already in the store" in one_line_error(locm("import", log, "--db", fresh))
    assert "does not follow the rules" in one_line_error(locm("import", forged, "--db", tmp_path / "other.db"))
    assert not (tmp_path / "other.db").exists()  # a refused import leaves no store behind


def test_tournament_export_import_and_games(locm, tmp_path):
    db = tmp_path / "t.db"
    out = ok(locm("tournament", "--game", "nim", "--agents", "greedy", "random", "first", "--games", "4",
                  "--db", db))
    assert "12 games played, 0 stored before: 12 of 12 Nim games" in out
    table = {line.split()[0]: line.split() for line in out.splitlines()[3:6]}
    assert set(table) == {"greedy", "random", "first"} and all(row[1] == "8" for row in table.values())
    out = ok(locm("tournament", "--game", "nim", "--seats", "3", "--agents", "greedy", "random", "first",
                  "--games", "3", "--db", db))
    assert "3 games played, 0 stored before" in out
    assert "0 games played, 12 stored before" in ok(locm("tournament", "--game", "nim", "--agents", "greedy",
                                                          "random", "first", "--games", "4", "--db", db))
    out = ok(locm("games", "--db", db, "--game", "nim", "--seats", "3"))
    assert out.splitlines()[0].split()[:4] == ["game", "id", "ruleset", "heaps"] and out.endswith("3 Nim games\n")
    assert all(" 3-4-5 " in line for line in out.splitlines()[2:-1])

    assert ok(locm("verify", "--db", db)).endswith("15 games checked: 15 good, 0 bad\n")
    export, again = tmp_path / "e.jsonl", tmp_path / "e2.jsonl"
    ok(locm("export", "--all", "--db", db, "-o", export))
    fresh = tmp_path / "fresh.db"
    assert "imported 15 games" in ok(locm("import", export, "--db", fresh))
    ok(locm("export", "--all", "--db", fresh, "-o", again))
    assert again.read_bytes() == export.read_bytes()
    assert ok(locm("verify", "--db", fresh)).endswith("15 games checked: 15 good, 0 bad\n")


def test_a_tournament_with_an_external_bot_in_the_sandbox(locm, tmp_path):
    from locm.runner.sandbox.bwrap import probe

    found = probe()
    if not found.ok:
        pytest.skip(f"no sandbox on this machine: {found.reason}")
    db = tmp_path / "b.db"
    r = locm("tournament", "--game", "nim", "--agents", "random", BOT, "--games", "4", "--db", db)
    out = ok(r)
    assert "locm: sandbox: bubblewrap" in r.stderr and "4 games played" in out
    bot_row = next(line for line in out.splitlines() if line.startswith(BOT))
    assert bot_row.split()[len(BOT.split()):][:2] == ["4", "4"]  # it plays the winning strategy: 4 wins of 4
    export = tmp_path / "b.jsonl"
    ok(locm("export", "--all", "--db", db, "-o", export))
    bot_answers, seat = [], -1
    for doc in map(json.loads, export.read_text().splitlines()):
        if "match" in doc:
            seat = doc["match"]["agents"].index(BOT)
        elif doc.get("event", {}).get("type") == "nim_answer" and doc["event"]["player"] == seat:
            bot_answers.append(doc["event"]["text"])
    assert len(bot_answers) >= 8 and all(len(a.split()) == 2 for a in bot_answers)  # its lines, as received
    assert ok(locm("verify", "--db", db)).endswith("4 games checked: 4 good, 0 bad\n")
    silent = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'garbage_bot.py'}"  # never answers nim's input
    out = ok(locm("play", "--game", "nim", "--seed", "2", "--p0", "greedy", "--p1", silent, "--timeouts", "x0.2"))
    assert "P0 (greedy) wins (timeout)" in out and "(lost by a timeout)" in out


def test_the_gymnasium_and_pettingzoo_environments_through_locm_rl(site, tmp_path):
    pytest.importorskip("gymnasium")
    episodes = tmp_path / "episodes"
    code = f"""
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
env = gym.make("locm.rl:Game-v0", game="nim", ruleset="standard", opponent="greedy", store={str(episodes)!r})
check_env(env.unwrapped, skip_render_check=True)
for seed in (1, 2, 3):
    obs, info = env.reset(seed=seed)
    done, reward = False, 0.0
    while not done:
        action = int(info["action_mask"].nonzero()[0][-1])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(seed, reward, env.observation_space.shape[0], env.action_space.n)
import warnings
from pettingzoo.test import api_test
import locm.rl.pz
warnings.simplefilter("ignore")
api_test(locm.rl.pz.env("nim"), num_cycles=50)
print("pettingzoo ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                       env=env_with(site, ROOT), timeout=180)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "pettingzoo ok"  # its AEC environment passes PettingZoo's own API test
    rows = [line.split() for line in lines if len(line.split()) == 4]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert all(float(row[1]) in (1.0, -1.0) for row in rows)
    assert {(row[2], row[3]) for row in rows} == {("5", "16")}  # 3 heaps + token + players; 3x5 takes + pass
    logs = sorted(episodes.glob("*.jsonl"))
    assert len(logs) == 3
    r = run_locm("verify", *logs, env=env_with(site))
    assert r.returncode == 0 and r.stdout.endswith("3 games checked: 3 good, 0 bad\n"), r.stdout + r.stderr


def test_without_its_package_a_store_of_its_games_is_refused_in_one_line_and_kept(locm, tmp_path):
    db = tmp_path / "n.db"
    ok(locm("play", "--game", "nim", "--seed", "6", "--db", db))
    r = run_locm("verify", "--db", db)  # the package is not installed here
    assert r.returncode == 1 and "unknown game 'nim'" in r.stdout and "Traceback" not in r.stdout + r.stderr
    export = tmp_path / "e.jsonl"
    assert ok(run_locm("export", "--all", "--db", db, "-o", export)) == ""
    assert '"game":"nim"' in export.read_text()  # nothing is lost: with the package back, it checks again
    assert ok(locm("verify", "--db", db)).endswith("1 game checked: 1 good, 0 bad\n")


# --- entry points that do not give a game --------------------------------------------------------------------


def dist_info(site: Path, name: str, version: str, points: dict[str, str]) -> None:
    """An installed distribution's metadata, as pip writes it: what importlib.metadata reads."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (folder / "entry_points.txt").write_text("[locm.games]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))


@pytest.fixture(scope="module")
def broken(site, tmp_path_factory):
    """Beside the game: packages whose entry points are broken or take names already taken."""
    more = tmp_path_factory.mktemp("broken")
    dist_info(more, "broken-chess", "1.0", {"chess": "no_such_module.definition:GAME"})
    dist_info(more, "name-taker", "2.0", {"mcg": "outside_nim.definition:GAME", "my-card-game": "json:loads"})
    dist_info(more, "odd-values", "0.3", {"sep": "os:sep", "dumps": "json:dumps",
                                           "othername": "outside_nim.definition:GAME"})
    env = env_with(site, more)

    def run(*args):
        return run_locm(*args, env=env)

    return run


def test_a_broken_entry_point_is_one_line_naming_its_package(broken):
    line = one_line_error(broken("play", "--game", "chess", "--seed", "1"))
    assert "package broken-chess 1.0: its locm.games entry point chess = no_such_module.definition:GAME does not " \
           "load: ModuleNotFoundError" in line
    for name, why in (("sep", "gives a str, not an engine.seam.GameDef"),
                      ("dumps", "does not load: TypeError"),
                      ("othername", "gives the game 'nim', not 'othername'")):
        line = one_line_error(broken("play", "--game", name, "--seed", "1"))
        assert f"package odd-values 0.3: its locm.games entry point {name} = " in line and why in line, line


def test_a_broken_or_conflicting_entry_point_hides_no_game(broken, tmp_path):
    r = broken("--version")
    assert ok(r).splitlines()[1] == ("games: locm, mcg (my-card-game), skyport, nim (outside-nim) from "
                                     "outside-nim 0.1.0")
    warnings = r.stderr.splitlines()
    assert "locm: warning: package name-taker 2.0: its locm.games entry point 'mcg' is left out: that name is " \
           "already a game's (built in)" in warnings
    assert any("'my-card-game' is left out" in w and "an alias of mcg" in w for w in warnings)
    assert any(w.startswith("locm: warning: package broken-chess 1.0:") for w in warnings)
    log = tmp_path / "m.jsonl"
    out = ok(broken("play", "--game", "mcg", "--ruleset", "standard", "--seed", "2", "--log", log))
    assert out.startswith("my-card-game standard, seed 2")
    assert ok(broken("show", log)).startswith("my-card-game: seq ")
    ok(broken("play", "--seed", "2", "--p0", "greedy", "--p1", "random"))
    assert ok(broken("play", "--game", "nim", "--seed", "2")).startswith("Nim standard, seed 2")
