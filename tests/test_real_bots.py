"""Real competition bots play unchanged in the sandbox, each finding its runtime with no configuration of its
own: compiled C++ and Rust binaries, Java, Node.js, C# (Mono), Python with numpy from a venv, the system's
Python, pyenv's (through its shim), and a script run by its ``#!/usr/bin/env python3`` line; run by root, each
also plays two games in one sandbox kept across games, as a tournament's workers run it. The bots are the
small ones of tests/bots/real/, built once per test session into a temporary folder; a kind whose compiler
or runtime this machine lacks is skipped, saying which.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from locm.runner.sandbox import kept as sandbox_kept
from locm.runner.bots import TimeLimits
from locm.events.locm.catalog import HardError
from locm.runner.sandbox.bwrap import probe
from locm.games.locm.tournament import run_game

REAL = Path(__file__).resolve().parent / "bots" / "real"
pytestmark = pytest.mark.skipif(not probe().ok, reason=f"no sandbox here: {probe().reason}")


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed here")


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """A folder the sandbox's user can read, for the compiled bots."""
    out = tmp_path_factory.mktemp("real-bots")
    out.chmod(0o755)
    return out


def _build(built: Path, name: str, command: list[str]) -> Path:
    target = built / name
    if not target.exists():
        subprocess.run(command, check=True, capture_output=True, timeout=300)
        for path in [target, *target.rglob("*")] if target.is_dir() else [target]:
            path.chmod(0o755)
    return target


def cpp(built):
    _need("g++")
    return [str(_build(built, "pass_bot_cpp", ["g++", "-O2", "-o", str(built / "pass_bot_cpp"),
                                               str(REAL / "pass_bot.cpp")]))]


def rust(built):
    _need("rustc")
    return [str(_build(built, "pass_bot_rs", ["rustc", "-O", "-o", str(built / "pass_bot_rs"),
                                              str(REAL / "pass_bot.rs")]))]


def java(built):
    _need("javac", "java")
    classes = _build(built, "java", ["javac", "-d", str(built / "java"), str(REAL / "Player.java")])
    return ["java", "-cp", str(classes), "Player"]


def node(built):
    _need("node")
    return ["node", str(REAL / "pass_bot.js")]


def csharp_mono(built):
    _need("mcs", "mono")
    exe = _build(built, "PassBot.exe", ["mcs", "-out:" + str(built / "PassBot.exe"), str(REAL / "PassBot.cs")])
    return ["mono", str(exe)]


def python_venv_numpy(built):
    if subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True).returncode:
        pytest.skip("this Python has no numpy")
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a venv")
    return [sys.executable, str(REAL / "numpy_bot.py")]


def python_system(built):
    if not Path("/usr/bin/python3").exists():
        pytest.skip("no /usr/bin/python3")
    return ["/usr/bin/python3", str(REAL / "plain_bot.py")]


def python_pyenv(built):
    found = shutil.which("python3") or ""
    if "/shims/" not in found:
        pytest.skip(f"python3 on the PATH is not a pyenv shim ({found or 'none'})")
    return ["python3", str(REAL / "plain_bot.py")]


def python_script(built):
    script = built / "script_bot.py"
    if not script.exists():
        script.write_text("#!/usr/bin/env python3\n" + (REAL / "plain_bot.py").read_text())
        script.chmod(0o755)
    return [str(script)]


KINDS = [cpp, rust, java, node, csharp_mono, python_venv_numpy, python_system, python_pyenv, python_script]


@pytest.mark.parametrize("kind", KINDS, ids=[k.__name__ for k in KINDS])
def test_a_real_bot_plays_a_whole_game_in_the_sandbox(built, kind):
    import shlex

    command = shlex.join(kind(built))
    played = run_game("1.2", 3, (command, "greedy"), limits=TimeLimits.parse("x10"))
    errors = [e for e in played.game.log if type(e) is HardError]
    assert errors == [], (errors, played.extras.seats[0].stderr[-1000:])
    assert played.game.ended and played.game.state.end_reason == "health"
    meta = json.loads(played.extras.meta)
    assert meta["turns"][0] > 30  # the 30 draft picks and the battle
    assert meta["sandbox"]["tool"].startswith("bwrap")


@pytest.mark.skipif(os.geteuid() != 0, reason="sandboxes are kept across games only where the runner is root")
@pytest.mark.parametrize("kind", KINDS, ids=[k.__name__ for k in KINDS])
def test_a_real_bot_plays_two_games_in_a_kept_sandbox(built, kind):
    import shlex

    command = shlex.join(kind(built))
    sandbox_kept.keep()
    try:
        for seed in (3, 4):
            played = run_game("1.2", seed, (command, "greedy"), limits=TimeLimits.parse("x10"))
            errors = [e for e in played.game.log if type(e) is HardError]
            assert errors == [], (seed, errors, played.extras.seats[0].stderr[-1000:])
            assert played.game.ended and played.game.state.end_reason == "health"
            assert json.loads(played.extras.meta)["sandbox"]["kept"] is True
        assert sum(box.games for boxes in sandbox_kept._IDLE.values() for box in boxes) == 2  # one sandbox
    finally:
        sandbox_kept.keep(False)
        sandbox_kept.close_all()
