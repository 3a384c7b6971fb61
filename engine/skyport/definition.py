"""Skyport as the core sees it (`engine.seam.GameDef`): its registered definition, 2 to 8 players, scored
by points. The rules stay in this package's modules (byte-exact with the 2013 server).

Its clients speak the server's TCP protocol (`engine.skyport.protocol`, `locm serve`), not the core's one
line each way, so this definition plays built-in agents only; `locm.games.skyport.netbots` serves the games with clients
(`locm play`, `locm tournament`), whose created event records each client's version (``bots``).

A game's id (`game_id`) names its whole created event, except, in a game with clients (``bots`` set), the
players' names: those are what the clients said in their handshakes, unknown until the game is played,
while a tournament computes each game's id before (the seats' agents, command lines included, and the
clients' versions stay in it). A game with a seat taken by a client that connected by itself (`locm serve`'s
open seats, ``remote``) is named by its whole log (`log_id`): its created event does not decide it, and two
such games on the same map and seed must never share an id.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence, cast

import msgspec

from locm.engine.seam import Divergence, GameDef, Outcome, content_id, continued_content_id, diff_rules, diff_tuples
from locm.engine.skyport.agents import AGENT_NAMES, agent_seed, make_agent
from locm.engine.skyport.behaviour import BEHAVIOUR
from locm.engine.skyport.commands import Act, ChooseLoadout, Command, EndTurn
from locm.engine.skyport.evolve import evolve, fold
from locm.engine.skyport.game import SkyportGame, command_of, feed_input, redecide, resume
from locm.engine.skyport.hexmap import spawn_tiles
from locm.engine.skyport.legal import legal_actions
from locm.engine.skyport.protocol import gamestate
from locm.engine.errors import LocmError
from locm.engine.skyport.rules import FIELDS, BUILTIN, WEAPONS, builtin_map, builtin_map_names, parse_variant
from locm.engine.skyport.state import LOADOUT, SkyportState, view
from locm.events.base import Event, tag_of
from locm.events.skyport.catalog import (STOP, AreaHit, CommandReceived, Died, GameCreated, GameEnded, Hit, Penalized,
                                         Scored, TurnStarted, Upgraded)
from locm.events.skyport.codec import CODEC
from locm.events.skyport.rules import GameMap, SkyportRules


def by_name(name: str) -> SkyportRules:
    """A built-in ruleset by name."""
    if name not in BUILTIN:
        raise LocmError(f"unknown Skyport ruleset {name!r}: expected one of {', '.join(BUILTIN)}")
    return BUILTIN[name]


def map_for(rules: SkyportRules, players: int) -> GameMap:
    """The rules' own map, else the built-in map with the fewest spawn tiles that seats `players`."""
    if rules.map:
        return builtin_map(rules.map)
    maps = sorted((len(spawn_tiles(m)), name, m) for name in builtin_map_names() if (m := builtin_map(name)))
    for spawns, _, m in maps:
        if spawns >= players:
            return m
    return maps[-1][2]  # too many players: `create` says how many the largest map takes


def _new(rules: SkyportRules, seed: int, agents: Sequence[str], behaviour: int | None = None) -> SkyportGame:
    return new_on(rules, seed, agents, behaviour=behaviour)


def new_on(rules: SkyportRules, seed: int, agents: Sequence[str], bots: Sequence[str] = (),
           game_map: GameMap | None = None, behaviour: int | None = None) -> SkyportGame:
    """A live game as the definition's ``new`` (no client) or ``new_versioned`` (``bots``: a client's version in
    its seat) makes it, on ``game_map`` (default: `map_for`), under ``behaviour`` (default: the current one):
    names are the server's usernames (R-SETUP), a client's ``playerN`` until its handshake."""
    game_map = game_map or map_for(rules, len(agents))
    if not any(bots):
        return SkyportGame.new(_names(agents), seed, game_map, rules, tuple(agents), behaviour=behaviour)
    return SkyportGame.new(_names(agents), seed, game_map, rules, tuple(agents), tuple(bots), behaviour=behaviour)


def _names(agents: Sequence[str]) -> tuple[str, ...]:
    """The seats' names a game made here (not served) has: a built-in agent's name and its slot, ``playerN``
    for any other seat (a client's until its handshake: a command line is no username, R-SETUP)."""
    return tuple(f"{a}{i}" if a in AGENT_NAMES else f"player{i}" for i, a in enumerate(agents))


class _Agent:
    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self._agent = make_agent(name, seed)

    def play_turn(self, match: SkyportGame, seat: int) -> None:
        match.submit(self._agent.command(match.state, seat))


def _apply(state: SkyportState, events: Sequence[Event]) -> SkyportState:
    for e in events:
        state = evolve(state, e)
    return state


def _to_move(state: SkyportState) -> int:
    seats = state.to_move
    return seats[0] if seats else -1


def _legal(state: SkyportState) -> list[Command]:
    """The commands of the seat to move: a loadout (two different weapons), or one of its turn's actions
    (`engine.skyport.legal`) or the end of its turn."""
    seat = _to_move(state)
    if seat < 0:
        return []
    if state.phase == LOADOUT:
        return [ChooseLoadout(seat, a, b) for a in WEAPONS for b in WEAPONS if a != b]
    return [*(Act(seat, action) for action in legal_actions(state, seat)), EndTurn(seat)]


def _outcome(events: Sequence[Event]) -> Outcome:
    end = cast(GameEnded, events[-1])
    return Outcome(end.winner, end.reason, end.turn, tuple(float(s) for s in end.scores))


TEXT_TILES = {"G": ".", "V": " ", "S": "s", "E": "E", "R": "R", "C": "C", "O": "#"}
"""A tile's character on the text map: grass ``.``, void blank, spawn ``s``, explosium ``E``, rubidium ``R``,
scrap ``C``, rock ``#``; a robot is its slot's digit (``x`` on a destroyed robot's body)."""


def hex_text(rows: Sequence[str], robots: Sequence[dict[str, Any]] = ()) -> list[str]:
    """The map drawn as the hexagons lie: row ``j + k`` of the drawing, column ``2·(k - j + size - 1)`` (the
    server's own drawing, one character a tile): ``4·size - 3`` columns (73 for the 19-tile 4-player map)."""
    size = len(rows)
    grid = [[" "] * (4 * size - 3) for _ in range(2 * size - 1)]
    for j, row in enumerate(rows):
        for k, t in enumerate(row):
            grid[j + k][2 * (k - j + size - 1)] = TEXT_TILES.get(t, "?")
    for r in robots:
        j, k = r["position"]
        if 0 <= j < size and 0 <= k < size:
            grid[j + k][2 * (k - j + size - 1)] = "x" if r["dead"] else str(r["slot"] % 10)
    return [line.rstrip() for line in ("".join(g) for g in grid)]


def _board_text(v: dict[str, Any]) -> str:
    order = v.get("order") or []
    lines = [f"turn {v['turn']}  phase {v['phase']}  to move {' '.join(f'P{s}' for s in v['to_move']) or '-'}"
             + (f"  order {' '.join(f'P{s}' for s in order)}" if order else "")]
    for r in v["robots"]:
        res = "  " + " ".join(f"{k[0].upper() if k != 'scrap' else 'C'}{r[k]}"
                              for k in ("rubidium", "explosium", "scrap") if k in r)
        lines.append(f"P{r['slot']} {r['name'][:16]:<16} at {r['position'][0]:>2},{r['position'][1]:>2}  "
                     f"hp {r['health']:>3}  score {r['score']:>5}  {r['primary'][0]} {r['primary'][1]} / "
                     f"{r['secondary'][0]} {r['secondary'][1]}" + ("  destroyed" if r["dead"] else "")
                     + (res if res.strip() else ""))
    key = "map: . grass  s spawn  E/R/C explosium/rubidium/scrap  # rock  0-9 robot  x body"
    return "\n".join([*lines, key, *hex_text(v["map"], v["robots"])])


def _describe(state: SkyportState, e: Event) -> str:
    fields = {f: getattr(e, f) for f in type(e).__struct_fields__ if f not in ("seq", "cause", "rule")}
    if type(e) is GameCreated:
        fields = {"seed": e.seed, "names": e.names, "map": e.map.name}
    return f"{tag_of(type(e))} " + " ".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}"
                                            for k, v in fields.items())


def _redecide(events: Sequence[Event]) -> Divergence | None:
    game, at = redecide(list(events))
    if at < 0:
        return None
    mine = CODEC.to_json(events[at]).decode() if at < len(events) else ""
    theirs = CODEC.to_json(game.log[at]).decode() if at < len(game.log) else ""
    return Divergence(at, "the rules give another event" if mine and theirs else
                      ("the rules end the game here" if mine else "the log stops before the game ends"),
                      mine, theirs)


def _message(state: SkyportState, seat: int) -> str:
    return json.dumps(gamestate(state, state.turn, state.turn_list()), separators=(",", ":"))


def _rules_diff(a: SkyportRules, b: SkyportRules) -> list[tuple[str, str, Any, Any]]:
    return diff_tuples(diff_rules(a, b, FIELDS))  # every field but the names has its rule


STATS = ("kills", "deaths", "damage", "penalties", "upgrades")
"""A seat's figures in a game (`seat_stats`): robots it destroyed (R-KILL) and times it was destroyed
(R-DEATH), damage it dealt to other robots (R-DAMAGE, R-AOE; overkill included, as R-POINTS counts it),
points it lost to the idle and spawn penalties (R-IDLE, R-SPAWN-PENALTY; a death's penalty is in its
deaths), upgrades it bought."""


def seat_stats(events: Sequence[Event]) -> list[dict[str, float]]:
    """Each seat's `STATS` in a game's log."""
    out = [dict.fromkeys(STATS, 0.0) for _ in _created(events[0]).names]
    for e in events:
        match e:
            case Scored(reason="kill"):
                out[e.player]["kills"] += 1
            case Died():
                out[e.player]["deaths"] += 1
            case Hit() | AreaHit() if e.by != e.player:
                out[e.by]["damage"] += e.amount
            case Penalized() if e.reason != "death":
                out[e.player]["penalties"] += e.points
            case Upgraded():
                out[e.player]["upgrades"] += 1
            case _:
                pass  # no figure of a seat
    return out


def _created(e: Event) -> GameCreated:
    return cast(GameCreated, e)


def _new_versioned(rules: SkyportRules, seed: int, agents: Sequence[str], bots: Sequence[str]) -> SkyportGame:
    return SkyportGame.new(_names(agents), seed, map_for(rules, len(agents)), rules, tuple(agents), tuple(bots))


def game_id(created: Event) -> str:
    """The id of a game (see the module text): its created event's content, its names left out when it has
    clients (``bots`` set)."""
    c = _created(created)
    if not isinstance(c.bots, msgspec.UnsetType):
        c = msgspec.structs.replace(c, names=())
    return content_id("skyport", c.rules.name, c.seed, CODEC.to_json(c))


SERVED = "remote"
"""The ``agents`` entry of a seat taken by a client that connected by itself (`locm serve`'s open seats)."""


def log_id(events: Sequence[Event]) -> str | None:
    """The id of a game with a seat taken by a client that connected by itself (``remote``): its created event
    does not decide it (another game on the same map, seed and turns may end otherwise), so its id names the
    whole log, ``skyport-RULES-SEED-h`` with h the first 12 hex digits of the SHA-256 of its JSON lines. None
    for any other game (its created event names it: `game_id`)."""
    c = _created(events[0])
    if SERVED not in c.agents:
        return None
    digest = hashlib.sha256(b"".join(CODEC.to_json(e) + b"\n" for e in events)).hexdigest()[:12]
    return f"skyport-{c.rules.name}-{c.seed}-{digest}"


def _runner_command(event: Event) -> Any:
    """A wall-clock stop (R-WALL-CLOCK) is the runner's, not a player's input."""
    return command_of(event) if type(event) is CommandReceived and event.kind == STOP else None


GAME = GameDef(
    name="skyport",
    player="locm.games.skyport.tournament",
    runner_command=_runner_command,
    title="Skyport",
    seats=(2, 8),
    codec=CODEC,
    created=GameCreated,
    ended=GameEnded,
    rules_file="skyport/RULES.md",
    rulesets=tuple(BUILTIN),
    rules=by_name,
    rules_name=lambda rules: rules.name,
    variant=lambda text, source: parse_variant(text, source),
    rules_diff=_rules_diff,
    new=_new,
    behaviour=BEHAVIOUR,
    from_log=SkyportGame.from_log,
    agent_names=AGENT_NAMES,
    make_agent=lambda name, seed, seat: _Agent(name, agent_seed(seed, seat)),
    message=_message,
    bots="served",
    phase=lambda state: state.phase,
    fold=fold,
    apply=_apply,
    copy=lambda state: state.copy(),
    upcast=lambda events: events,
    legal_actions=_legal,
    to_move=_to_move,
    outcome=_outcome,
    view=view,
    board_text=_board_text,
    describe=_describe,
    turn_starts=lambda events: [(e.seq, e.turn, e.player) for e in events if type(e) is TurnStarted],
    redecide=_redecide,
    agents=lambda created: tuple(_created(created).agents),
    game_id=game_id,
    continue_as=lambda created, agents, bots: msgspec.structs.replace(
        _created(created), agents=tuple(agents), bots=tuple(bots) if any(bots) else msgspec.UNSET),
    resume=resume,
    feed=feed_input,
    seated=lambda created: msgspec.structs.replace(_created(created), names=_names(_created(created).agents)),
    continued_id=lambda events: continued_content_id("skyport", _created(events[0]).rules.name,
                                                     _created(events[0]).seed, events, CODEC.to_json),
    log_id=log_id,
    new_versioned=_new_versioned,
    seat_stats=seat_stats,
    index=lambda created: {"ruleset": _created(created).rules.name, "seed": _created(created).seed,
                           "map": _created(created).map.name, "names": list(_created(created).names)},
    listed=("map",),
    replay_wing="locm.replay.skyport.wing:WING",
    rl_adapter="locm.rl.skyport:SkyportSpec",
    rl_envs=(("Skyport-v0", None, "2013"),),
)

__all__ = ["GAME", "by_name", "map_for", "new_on", "hex_text", "TEXT_TILES", "game_id", "log_id", "SERVED", "seat_stats", "STATS"]
