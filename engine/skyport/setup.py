"""A new Skyport game: its first three events (R-SETUP, R-SPAWN, R-ORDER).

The server's only random draws come from one ``java.util.Random(seed)``, in this order: ``Collections.shuffle``
of the map's spawn tiles (listed j-major), of which the player of slot i (connection order) takes the i-th;
then ``Collections.shuffle`` of the players (connection order), which gives the ring of turns. Both are drawn
here with the port of `engine.jrandom` and recorded in the log, so a replay never draws again (STYLE 4).
"""

from __future__ import annotations

import re

import msgspec

from locm.engine.errors import GameParamError
from locm.engine.jrandom import JavaRandom
from locm.engine.skyport.hexmap import spawn_tiles
from locm.engine.skyport.rules import RULES_2013, builtin_map, check_rules
from locm.engine.skyport.behaviour import BEHAVIOUR
from locm.events.skyport.catalog import Event, GameCreated, SpawnsDrawn, TurnOrderDrawn
from locm.events.skyport.rules import GameMap, SkyportRules

_NAME = re.compile(r"[a-zA-Z0-9_+-]+")
"""The server's ``Pattern.matches("[a-zA-Z0-9-_+]+", name)`` (the ``-`` after the range ``0-9`` is a literal)."""


def username_error(name: str) -> str:
    """The server's message refusing a player's name, or "" (R-SETUP)."""
    length = len(name.encode("utf-16-le", "surrogatepass")) // 2  # Java's length(): UTF-16 units
    if length < 3:
        return "Username too short: needs to be 3 characters or longer."
    if length > 16:
        return "Username too long: needs to be 16 characters or less."
    if not _NAME.fullmatch(name):
        return "Username contains invalid characters. May only contain a-z, A-Z, 0-9, -, _, +."
    return ""


def draw_spawns_and_order(game_map: GameMap, players: int, seed: int) -> tuple[list[tuple[int, int]], list[int]]:
    """The server's two draws: each slot's spawn tile, and the ring of turns."""
    rng = JavaRandom(seed)
    spawns = spawn_tiles(game_map)
    rng.shuffle(spawns)
    order = list(range(players))
    rng.shuffle(order)
    return spawns[:players], order


def create(names: tuple[str, ...] | list[str], seed: int, game_map: GameMap | None = None,
           rules: SkyportRules = RULES_2013, agents: tuple[str, ...] = (),
           bots: tuple[str, ...] | None = None, behaviour: int | msgspec.UnsetType | None = None) -> list[Event]:
    """The opening events of a game between `names` (by slot) on `game_map` (default: the rules' map);
    `bots`, each seat's client version, is recorded when given (a game with a client started from a command
    line); ``behaviour``, the behaviour of the rules that decides it (`engine.skyport.behaviour`; None: the
    current one; unset: a log's from before behaviours were recorded, re-decided as behaviour 1 with its
    bytes)."""
    rules = check_rules(rules) if rules is not RULES_2013 else rules
    if game_map is None:
        if not rules.map:
            raise GameParamError("no map: give one, or rules that name a built-in map", "map")
        game_map = builtin_map(rules.map)
    names = tuple(names)
    spawns = spawn_tiles(game_map)
    if not 1 <= len(names) <= len(spawns):
        raise GameParamError(f"expected 1 to {len(spawns)} players on map {game_map.name or '?'} (one per spawn "
                             f"tile), got {len(names)}", "players", len(names))
    for name in names:
        error = username_error(name)
        if error:
            raise GameParamError(f"player name {name!r}: {error}", "names", name)
    if type(seed) is not int or not -(1 << 63) <= seed < (1 << 63):
        raise GameParamError(f"expected a seed in the range of a Java long, got {seed!r}", "seed", seed)
    if agents and len(agents) != len(names):
        raise GameParamError(f"expected one agent per player ({len(names)}), got {len(agents)}", "agents", agents)
    if bots is not None and len(bots) != len(names):
        raise GameParamError(f"expected one bot version per player ({len(names)}), got {len(bots)}", "bots", bots)
    chosen, order = draw_spawns_and_order(game_map, len(names), seed)
    return [
        GameCreated(seq=0, cause=-1, rule="R-SETUP", rules=rules, map=game_map, seed=seed, names=names,
                    agents=tuple(agents), bots=msgspec.UNSET if bots is None else tuple(bots),
                    behaviour=BEHAVIOUR if behaviour is None else behaviour),
        SpawnsDrawn(seq=1, cause=0, rule="R-SPAWN", spawns=tuple(chosen)),
        TurnOrderDrawn(seq=2, cause=0, rule="R-ORDER", order=tuple(order)),
    ]


__all__ = ["username_error", "draw_spawns_and_order", "create"]
