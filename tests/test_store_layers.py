"""The house rules of the store and verify, read from their own imports (`ast`: every import, those inside
functions too; `if TYPE_CHECKING:` blocks aside): they name no game and no higher layer, and the edges' rooms
(store, verify, tournament, runner, the games' wings, the replay's sources) import one another in no circle.
What a game adds comes through its definition (``GameDef.edges``) and what a higher layer adds is handed in
(the store's checker, verify's schedules)."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from locm.engine import registry
from locm.engine.locm.definition import GAME as LOCM_GAME

ROOT = Path(__file__).resolve().parent.parent
GAMES = tuple(registry.GAMES)
TOP = {"engine": "locm.engine", "events": "locm.events", "replay": "locm.replay", "analysis": "locm.analysis",
       "locm": "locm"}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    base = TOP[parts[0]].split(".") + parts[1:]
    return ".".join(base[:-1] if base[-1] == "__init__" else base)


def imports(path: Path) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved), inside functions too."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                found.add(mod)
                found.update(f"{mod}.{a.name}" for a in child.names)
            walk(child)

    walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def game_named(name: str) -> str | None:
    """The game a module name belongs to (its wing), or None."""
    for layer in ("locm.engine", "locm.events", "locm.replay", "locm.analysis", "locm.rl"):
        for game in GAMES:
            if under(name, f"{layer}.{game}"):
                return game
    if under(name, "locm.games"):
        return "a game's edges (locm.games)"
    return None


HIGHER = {
    "store": ("locm.verify", "locm.runner", "locm.tournament", "locm.cli", "locm.reports", "locm.rl",
              "locm.analysis", "locm.replay"),
    "verify": ("locm.tournament", "locm.runner", "locm.cli", "locm.reports", "locm.rl",
               "locm.analysis"),
}


@pytest.mark.parametrize("room", sorted(HIGHER))
def test_the_store_and_verify_import_no_game_and_no_higher_layer(room):
    files = sorted((ROOT / "locm" / room).rglob("*.py"))
    assert files
    wrong = []
    for path in files:
        for name in sorted(imports(path)):
            game = game_named(name)
            if game:
                wrong.append(f"{path.relative_to(ROOT)} imports {name} (game {game})")
            higher = next((h for h in HIGHER[room] if under(name, h)), None)
            if higher:
                wrong.append(f"{path.relative_to(ROOT)} imports {name} (the higher layer {higher})")
    assert not wrong, "\n".join(wrong)


def test_the_edges_rooms_import_one_another_in_no_circle():
    rooms = [ROOT / "locm" / r for r in ("store", "verify", "tournament", "runner", "games")]
    files = [p for r in rooms for p in r.rglob("*.py")] + [ROOT / "replay" / "sources.py"]
    known = {module_name(p): p for p in files}
    graph = {}
    for name, path in known.items():
        targets = set()
        for imp in imports(path):
            while imp and imp not in known:
                imp = imp.rpartition(".")[0]
            if imp and imp != name:
                targets.add(imp)
        graph[name] = targets
    # a circle is a module that reaches itself
    circles = []
    for start in graph:
        seen, stack = set(), [(start, [start])]
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join(trail + [start]))
                    stack.clear()
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, trail + [nxt]))
    assert not circles, "\n".join(sorted(circles)[:10])


def test_an_import_needs_the_checker_its_caller_hands_the_store():
    from locm.errors import StoreError
    from locm.games.registry import checker
    from locm.store.eventstore import GameExtras, open_store, prepare_game
    from locm.games.locm.play import play_one

    events = play_one("1.2", 3, ("greedy", "pass")).log
    from locm.engine.locm.gameid import created_id

    with open_store(":memory:") as source:
        source.append_game(LOCM_GAME, GameExtras(game_id=created_id(events[0])), events)
        buf = io.BytesIO()
        source.export_jsonl(None, buf)
    with open_store(":memory:") as bare:
        with pytest.raises(StoreError, match="checker"):
            bare.import_jsonl(io.BytesIO(buf.getvalue()))
        assert bare.count() == 0
    with open_store(":memory:", checker=checker()) as checked:
        assert checked.import_jsonl(io.BytesIO(buf.getvalue())).games == 1
    assert prepare_game(LOCM_GAME, GameExtras(game_id=created_id(events[0])), events).facts is not None  # LOCM's edges


def test_a_game_without_edges_keeps_no_projection(monkeypatch):
    """The facts beside a game come from the module its definition names: a definition naming none keeps none
    (the same LOCM log, stored as a game whose definition has no edges)."""
    import dataclasses

    from locm.store.records import GameExtras, prepare_game
    from locm.games.locm.play import play_one

    events = play_one("1.2", 3, ("greedy", "pass")).log
    bare = dataclasses.replace(registry.get("locm"), edges="")
    assert prepare_game(bare, GameExtras(game_id="x"), events).facts is None
