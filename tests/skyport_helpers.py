"""Helpers for Skyport tests: small hand-drawn maps and games that start where a scenario needs them."""

from __future__ import annotations

from pathlib import Path

from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn
from locm.engine.skyport.game import SkyportGame
from locm.engine.skyport.hexmap import spawn_tiles
from locm.engine.skyport.rules import RULES_2013
from locm.events.skyport.catalog import GameCreated, SpawnsDrawn, TurnOrderDrawn
from locm.events.skyport.rules import GameMap, SkyportRules

DATA = Path(__file__).parent / "data" / "skyport"
SAMPLES = DATA / "samples"
CORPUS = DATA / "oracle"


def oracle_logs() -> list[Path]:
    """Every committed oracle log: the 12 samples of the oracle and the selected fresh games."""
    return sorted(SAMPLES.glob("*.jsonl.gz")) + sorted(CORPUS.glob("*.jsonl.gz"))


def scenario(rows: list[str], names: tuple[str, ...] = ("alpha", "bravo"), first: int = 0,
             loadouts: tuple[tuple[str, str], ...] | None = None, rules: SkyportRules = RULES_2013) -> SkyportGame:
    """A game on the map `rows` (``rows[j][k]``), slot i on the i-th spawn tile (j-major), the ring in slot
    order with slot `first` playing turn 1, loadouts chosen (default laser and mortar for everyone).

    The opening events are written here rather than drawn from a seed, so that a scenario puts each robot
    where it needs it; everything after them is decided by the engine."""
    n = len(names)
    game_map = GameMap(name="scenario", description="", players=n, size=len(rows), rows=tuple(rows))
    order = tuple((first - 1 + i) % n for i in range(n))  # turn 1 belongs to order[1] (R-ORDER)
    log = [GameCreated(seq=0, cause=-1, rule="R-SETUP", rules=rules, map=game_map, seed=0, names=names),
           SpawnsDrawn(seq=1, cause=0, rule="R-SPAWN", spawns=tuple(spawn_tiles(game_map)[:n])),
           TurnOrderDrawn(seq=2, cause=0, rule="R-ORDER", order=order)]
    game = SkyportGame.from_log(log)
    for p in range(n):
        game.submit(ChooseLoadout(p, *(loadouts[p] if loadouts else ("laser", "mortar"))))
    return game


def act(game: SkyportGame, *actions: dict[str, object]) -> list[object]:
    """The player to move sends `actions` (the turn ends by itself after a shot or the last action, or with
    an `EndTurn` when fewer are sent); returns every event."""
    player = game.state.current
    turn = game.state.turn
    events: list[object] = []
    for a in actions:
        events += game.submit(Act(player, a))
        if game.state.turn != turn or game.over:
            return events
    if not game.over and game.state.turn == turn:
        events += game.submit(EndTurn(player))
    return events


def of(events: list[object], cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]
