"""The command line is one door for every game (issue 30): no module of `locm/cli/` (nor `locm/errors.py`,
`locm/common/`) imports a game's package; what one game has comes from its wing through `locm.games.registry`,
whose module paths all load; and another installed package adds its commands and hooks through entry points
(a real distribution on the path of a `locm` process, found by `importlib.metadata`)."""

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from locm.engine import registry as games
from locm.games import registry

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("locm.engine", "locm.events", "locm.replay", "locm.analysis", "locm.rl", "locm.games")


def imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def a_game(module: str) -> str | None:
    """The game whose package ``module`` is in (``locm.engine.mcg.rules``: mcg), or None."""
    for layer in LAYERS:
        rest = module.removeprefix(layer + ".")
        if rest != module and rest.split(".")[0] in games.GAMES:
            return rest.split(".")[0]
    return None


def test_the_scan_sees_a_game_import(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text("def f():\n    from locm.games import skyport\n    import locm.engine.mcg.rules\n")
    assert {a_game(m) for m in imported(planted)} >= {"skyport", "mcg"}


def test_no_cli_module_imports_a_game():
    modules = list((ROOT / "locm" / "cli").glob("*.py")) + list((ROOT / "locm" / "common").glob("*.py"))
    modules.append(ROOT / "locm" / "errors.py")
    found = {str(p.relative_to(ROOT)): sorted(g for g in map(a_game, imported(p)) if g) for p in modules}
    assert {p: g for p, g in found.items() if g} == {}


def test_no_cli_module_is_over_450_lines():
    long = {p.name: n for p in (ROOT / "locm" / "cli").glob("*.py") if (n := len(p.read_text().splitlines())) > 450}
    assert long == {}


def test_every_registered_command_and_hook_loads():
    for path in registry.COMMANDS:
        assert callable(registry._load(path)), path
    for name, by_game in registry.HOOKS.items():
        for game, path in by_game.items():
            assert game in games.GAMES, (name, game)
            assert callable(registry._load(path)), (name, path)


def test_a_game_without_a_hook_gets_the_default():
    assert registry.hook("rules_diff", "mcg", len) is len
    assert registry.hook("no-such-hook", "locm") is None
    assert registry.games_with("conformance") == ["locm", "skyport"]


def test_an_installed_package_adds_a_command_and_a_hook(tmp_path):
    pkg = tmp_path / "outsider"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "cli.py").write_text(textwrap.dedent('''
        import click

        @click.command()
        def hello():
            """Say hello.

            Example:
              locm hello
            """
            click.echo("hello from outside")

        def register(group):
            group.add_command(hello)

        def rules_diff(game, left, right, as_json, echo):
            echo(f"outsider's diff of {game.title}: {left} vs {right}")
    '''))
    info = tmp_path / "outsider-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outsider\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[locm.commands]\nhello = outsider.cli:register\n\n"
                                           "[locm.hooks]\nskyport.rules_diff = outsider.cli:rules_diff\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = lambda *args: subprocess.run([sys.executable, "-c", "from locm.cli.main import main; main()", *args],  # noqa: E731
                                       capture_output=True, text=True, env=env, timeout=120)
    out = run("hello")
    assert (out.returncode, out.stdout) == (0, "hello from outside\n"), out.stderr
    assert "hello" in run("--help").stdout
    out = run("rules", "diff", "--game", "skyport", "2013", "2013")
    assert (out.returncode, out.stdout) == (0, "outsider's diff of Skyport: 2013 vs 2013\n"), out.stderr
    out = run("rules", "diff", "--game", "mcg", "standard", "standard")  # a game the package did not hook
    assert out.stdout.endswith("0 rules differ\n"), out.stderr
