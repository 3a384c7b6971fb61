"""Skyport rule scenarios, each citing the rule of data/skyport/RULES.md it pins down. Expected values are worked
out from the rule's text (the server's behaviour), not read off the engine."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from locm.engine.errors import CommandError, GameParamError
from locm.engine.skyport.actions import bonus_damage
from locm.engine.skyport.commands import ChooseLoadout, EndTurn, Act, droid, laser, mine, mortar, move, upgrade
from locm.engine.skyport.game import SkyportGame, redecide
from locm.engine.skyport.hexmap import mortar_distance, distance
from locm.engine.skyport.rules import RULES_2013, VariantError, parse_variant
from locm.engine.skyport.hexmap import MapError
from locm.engine.skyport.setup import draw_spawns_and_order
from locm.engine.skyport.state import ENDED, view
from locm.engine.skyport.hexmap import parse_map
from locm.engine.skyport.protocol import broadcast
from locm.events.skyport.catalog import (
    ActionRejected, AreaHit, Died, DroidFired, GameEnded, Hit, HitAbsorbed, LaserFired, LoadoutRejected, Mined,
    MortarFired, Moved, Penalized, Respawned, Scored, TileDepleted, TurnEnded, TurnSkipped, TurnStarted, Upgraded,
)
from tests.skyport_helpers import SAMPLES, act, of, scenario

# Three spawns on the top row: slot 0 at (0, 0), slot 1 at (0, 3), slot 2 at (0, 5).
ROW3 = ["SGGSGS"] + ["GGGGGG"] * 5
NAMES3 = ("alpha", "bravo", "charlie")


def line_up(game: SkyportGame) -> None:
    """alpha to (1, 1), bravo to (1, 3), charlie to (1, 5): one line in the right-down direction."""
    act(game, move("down"))
    act(game, move("left-down"))
    act(game, move("left-down"))


def test_bonus_table_is_the_servers_rounding():
    """R-BONUS: round(base + 0.2·unused·base), halves up."""
    assert [bonus_damage(d, u, 0.2) for d in (16, 18, 22) for u in (0, 1, 2)] == [16, 19, 22, 18, 22, 25, 22, 26, 31]
    assert [bonus_damage(d, u, 0.2) for d in (20, 25, 18) for u in (1, 2)] == [24, 28, 30, 35, 22, 25]
    assert [bonus_damage(d, u, 0.2) for d in (22, 24, 26, 10) for u in (1, 2)] == [26, 31, 29, 34, 31, 36, 12, 14]


def test_laser_hits_every_robot_on_its_line():
    """R-LASER (every robot on the beam), R-BONUS (first action: two unused), R-POINTS, R-PROTO."""
    g = scenario(ROW3, NAMES3)
    line_up(g)
    events = act(g, laser("right-down"), move("up"))
    fired = of(events, LaserFired)[0]
    assert (fired.start, fired.stop, fired.damage, fired.unused) == ((1, 1), (1, 5), 22, 2)
    assert [(h.player, h.amount, h.health) for h in of(events, Hit)] == [(1, 22, 78), (2, 22, 78)]
    assert g.state.scores == (44, 0, 0)
    assert not of(events, Moved)  # the shot ended the turn: the move after it is dropped (R-ACTIONS)
    out = broadcast(laser("right-down"), "alpha", fired)
    assert out == {"message": "action", "type": "laser", "direction": "right-down", "from": "alpha",
                   "start": "1, 1", "stop": "1, 5"}


def test_laser_stops_before_a_rock_and_crosses_void():
    """R-LASER: stops before rock, crosses void; R-BONUS: the second action has one unused."""
    rows = ["SGGSGS", "GGVGOG"] + ["GGGGGG"] * 4
    g = scenario(rows, NAMES3)
    line_up(g)
    events = act(g, mine(), laser("right-down"))
    fired = of(events, LaserFired)[0]
    assert fired.path == ((1, 2), (1, 3)) and fired.stop == (1, 3) and fired.damage == 19
    assert [h.player for h in of(events, Hit)] == [1]


def test_mortar_lands_on_the_map_edge_and_hurts_its_shooter():
    """R-MORTAR (edge, range formula), R-AOE (shooter included), R-POINTS (none for yourself)."""
    g = scenario(ROW3, NAMES3)
    act(g, move("down"))  # alpha (1, 1)
    act(g, move("left-up"))  # bravo (0, 2)
    act(g, move("left-down"))
    events = act(g, mortar(-2, 0))
    shot = of(events, MortarFired)[0]
    assert (shot.target, shot.exploded, shot.damage, shot.area_damage) == ((0, 1), True, 28, 25)
    assert [(h.player, h.amount) for h in of(events, AreaHit)] == [(1, 25), (0, 25)]
    assert g.state.robots[0].health == 75 and g.state.robots[1].health == 75
    assert g.state.scores == (25, 0, 0)


def test_mortar_range_is_the_servers_formula():
    """R-MORTAR: ceil(sqrt(j² + k² − j·k)); out of range is refused silently."""
    assert [mortar_distance(*v) for v in ((0, 0), (1, 1), (1, -1), (2, -1), (4, 1), (-3, -3))] == [0, 1, 2, 3, 4, 3]
    near = [(j, k) for j in range(-9, 10) for k in range(-9, 10) if distance((0, 0), (j, k)) <= 7]
    assert all(mortar_distance(j, k) == distance((0, 0), (j, k)) for j, k in near)
    assert mortar_distance(-5, 3) == 7 and distance((0, 0), (-5, 3)) == 8  # the formula, not the steps, from 8 on
    g = scenario(ROW3, NAMES3)
    act(g, move("down"))
    act(g, move("left-down"))
    act(g, move("left-down"))
    events = act(g, mortar(2, -1), mortar(2, 1))
    assert [(r.reason, r.error) for r in of(events, ActionRejected)] == [("out-of-range", "")]
    assert of(events, MortarFired)[0].vector == (2, 1)


def test_mortar_on_rock_is_a_shot_without_explosion():
    """R-MORTAR: on rock, void or spawn no explosion, but the shot ends the turn."""
    rows = ["SGGSGS", "GGGGGG", "GGOGGG"] + ["GGGGGG"] * 3
    g = scenario(rows, NAMES3)
    line_up(g)
    events = act(g, mortar(1, 1), move("up"))
    shot = of(events, MortarFired)[0]
    assert shot.target == (2, 2) and not shot.exploded
    assert not of(events, Hit) and not of(events, AreaHit) and of(events, TurnEnded)[0].used == 1


def test_a_mortar_the_server_cannot_read_stops_the_game():
    """R-MORTAR-CRASH: 'j, k' with a space killed the 2013 game thread; a variant refuses it instead."""
    g = scenario(ROW3, NAMES3)
    line_up(g)
    events = act(g, move("down"), mortar_text("1, 1"))
    assert g.over and of(events, GameEnded)[0].reason == "server-crash" and g.state.winner == -1
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(bad_mortar_crashes=False))
    line_up(g)
    events = act(g, mortar_text("a,b"), move("down"))
    assert of(events, ActionRejected)[0].reason == "bad-coordinates" and not g.over and of(events, Moved)


def mortar_text(text: str) -> dict[str, object]:
    return {"message": "action", "type": "mortar", "coordinates": text}


def test_mortar_coordinates_read_like_java():
    """R-MORTAR: Java's split and parseInt: extra parts ignored, a sign allowed."""
    g = scenario(ROW3, NAMES3)
    line_up(g)
    events = act(g, mortar_text("+1,-1,7"))
    assert of(events, MortarFired)[0].vector == (1, -1)


def test_droid_walks_around_nothing_and_explodes_where_it_stops():
    """R-DROID: too long gets an error and goes with the first steps; robots do not block it; rock does."""
    rows = ["SGGGS", "GGOGG", "GGGGG", "GGGGG", "GGGGG"]
    g = scenario(rows, loadouts=(("droid", "laser"), ("laser", "mortar")))
    act(g, move("down"))  # alpha (1, 1)
    act(g, move("left-down"))  # bravo (1, 4)
    events = act(g, droid(["down", "right-down", "right-down", "up"]))
    shot = of(events, DroidFired)[0]
    assert shot.steps == ("down", "right-down", "right-down") and shot.target == (2, 4)
    assert shot.warning == "Got 4 commands for the droid, but your droids level (1) only supports 3 steps."
    assert (shot.damage, shot.area_damage) == (31, 14)
    assert [(h.player, h.amount) for h in of(events, AreaHit)] == [(1, 14)]
    assert broadcast(droid(["down", "right-down", "right-down", "up"]), "alpha", shot)["sequence"] == [
        "down", "right-down", "right-down"]
    act(g, move("right-up"))  # bravo cannot step back onto its spawn tile (0, 4): it stays on (1, 4)
    events = act(g, droid(["right-down"]))  # alpha at (1, 1): (1, 2) is rock, the droid explodes at once
    shot = of(events, DroidFired)[0]
    assert shot.steps == () and shot.target == (1, 1)
    assert [(h.player, h.amount) for h in of(events, Hit)] == [(0, 31)] and not of(events, Scored)


def test_a_droid_step_that_is_not_a_direction_refuses_the_shot():
    """R-DROID, R-ERRORS."""
    rows = ["SGGGS", "GGGGG", "GGGGG", "GGGGG", "GGGGG"]
    g = scenario(rows, loadouts=(("droid", "laser"), ("laser", "mortar")))
    act(g, move("down"))
    act(g, move("left-down"))
    events = act(g, droid(["up", "sideways"]), {"message": "action", "type": "droid", "sequence": "up"})
    assert [(r.reason, r.error) for r in of(events, ActionRejected)] == [
        ("bad-sequence", "Invalid shot: unknown direction in droid sequence"),
        ("no-sequence", "Invalid shot: lacks a direction key")]


def test_spawn_tile_protects_and_forbids_shooting():
    """R-SPAWN-SAFE; R-IDLE and R-SPAWN-PENALTY for a turn that ends on the spawn tile with nothing done."""
    g = scenario(ROW3, NAMES3)
    events = act(g, laser("down"), mortar(1, 1))
    assert [r.reason for r in of(events, ActionRejected)] == ["from-spawn", "from-spawn"]
    assert [(p.reason, p.points) for p in of(events, Penalized)] == [("idle", 10), ("spawn", 10)]
    act(g, move("left-down"))  # bravo (1, 3)
    act(g)  # charlie idles on its spawn
    events = act(g, move("down"), laser("right-up"))  # alpha (1, 1) fires at (0, 1): nobody
    assert not of(events, Penalized)
    events = act(g, move("right-up"))  # bravo cannot go back onto its spawn tile
    assert of(events, ActionRejected)[0].error == "Invalid move packet: Invalid move: SPAWN tile is not accessible"


def test_damage_points_kill_death_and_the_body():
    """R-POINTS (overkill counted), R-KILL, R-DEATH, R-BODY, R-RESPAWN."""
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(health=10))
    line_up(g)
    events = act(g, laser("right-down"))
    assert [(h.player, h.amount, h.health) for h in of(events, Hit)] == [(1, 22, 0), (2, 22, 0)]
    assert [d.player for d in of(events, Died)] == [1, 2]
    assert g.state.scores == (22 + 20 + 22 + 20, -40, -40)
    assert [s.player for s in of(events, TurnSkipped)] == [1, 2]  # both lose their next turn
    assert of(events, TurnStarted)[0].player == 0
    events = act(g, move("right-down"), move("right-down"), laser("right-down"))
    assert of(events, ActionRejected)[0].error == "Invalid move packet: Player bravo is already on this tile."
    assert [(a.player, a.reason) for a in of(events, HitAbsorbed)] == [(1, "dead"), (2, "dead")]
    respawned = of(events, Respawned)[0]
    assert (respawned.player, respawned.position, respawned.health) == (1, (0, 3), 10)
    assert g.state.current == 1 and g.state.robots[1].position == (0, 3)


def test_destroying_yourself_costs_the_death_penalty_only():
    """R-POINTS, R-KILL: no points for yourself; R-DEATH."""
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(health=10))
    act(g, move("down"))
    act(g)
    act(g)
    events = act(g, mortar(0, 0))
    assert [d.player for d in of(events, Died)] == [0] and not of(events, Scored)
    assert g.state.scores[0] == -40  # its death; bravo and charlie idled on their spawns: -20 each
    assert g.state.scores[1:] == (-20, -20)


def test_same_name_is_yourself():
    """R-POINTS: "yourself" is any robot with your name (the server compares names)."""
    g = scenario(ROW3, ("alpha", "alpha", "charlie"))
    line_up(g)
    events = act(g, laser("right-down"))
    assert [s.victim for s in of(events, Scored)] == [2]


def test_an_invalid_action_still_uses_its_place():
    """R-ACTIONS: the k-th action has 3 - k unused, valid or not; an unknown type is named, a missing one not."""
    g = scenario(ROW3, NAMES3)
    line_up(g)
    events = act(g, {"message": "action", "type": "teleport"}, {"message": "action"}, laser("right-down"))
    assert [(r.reason, r.error) for r in of(events, ActionRejected)] == [
        ("unknown-type", "Invalid action: teleport"), ("no-type", "")]
    assert of(events, LaserFired)[0].damage == 16


def test_the_turn_ends_after_its_last_action():
    """R-ACTIONS: a fourth action is not the same turn's."""
    g = scenario(ROW3, NAMES3)
    for d in ("down", "right-down", "left-up"):
        g.submit(Act(0, move(d)))
    assert g.state.current == 1
    with pytest.raises(CommandError, match="not player 0's turn"):
        g.submit(Act(0, move("down")))


def test_mining_depletes_a_tile_into_grass_and_upgrades_cost_resources():
    """R-MINE, R-TILES, R-UPGRADE (4, then 5), R-ERRORS (failed upgrades are silent)."""
    rows = ["SRRS", "GGGG", "GGGG", "GGGG"]
    g = scenario(rows)
    events = act(g, move("right-down"), mine(), mine())
    assert [(m.left, m.total) for m in of(events, Mined)] == [(1, 1), (0, 2)]
    assert of(events, TileDepleted)[0].position == (0, 1) and g.state.tiles[0][1] == "G"
    act(g)
    events = act(g, mine(), move("right-down"), mine())
    assert [r.error for r in of(events, ActionRejected)] == ["Tried to mine while not on a resource tile!"]
    act(g)
    events = act(g, mine(), upgrade("laser"), upgrade("droid"))
    assert g.state.robots[0].rubidium == 4 - 4 and of(events, Upgraded)[0].level == 2
    assert [(r.reason, r.error) for r in of(events, ActionRejected)] == [("weapon-not-carried", "")]


def test_a_weapon_stops_at_its_top_level():
    """R-UPGRADE: one level per cost; at the top, refused silently."""
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(upgrade_costs=(0, 0)))
    events = act(g, upgrade("mortar"), upgrade("mortar"), upgrade("mortar"))
    assert [u.level for u in of(events, Upgraded)] == [2, 3]
    assert [(r.reason, r.error) for r in of(events, ActionRejected)] == [("max-level", "")]


def test_idle_penalty_only_without_a_valid_action():
    """R-IDLE: all refused or none sent: -10; one valid action: nothing."""
    g = scenario(ROW3, NAMES3)
    events = act(g, move("down"), mine(), mine())
    assert not of(events, Penalized)
    events = act(g, mine(), mine(), mine())
    assert [p.reason for p in of(events, Penalized)] == ["idle", "spawn"]


def test_the_game_ends_at_the_turn_limit_and_ranks_by_points():
    """R-END, R-RANK: the first by slot with the highest score wins; another name with it makes a tie."""
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(turn_limit=3))
    line_up(g)
    assert g.over and g.log[-1].turn == 3 and g.log[-1].reason == "turn-limit"
    assert g.state.winner == -1 and g.state.ranking == (0, 1, 2)
    with pytest.raises(CommandError, match="the game is over"):
        g.submit(EndTurn(0))
    for names, winner in ((("alpha", "alpha", "charlie"), 0), (NAMES3, -1)):
        g = scenario(ROW3, names, rules=RULES_2013.replace(turn_limit=3))
        act(g, move("down"))
        act(g, move("left-down"))
        act(g)  # charlie idles on its spawn: -20; the two others lead with 0
        assert g.state.scores == (0, 0, -20) and g.state.winner == winner, names


def test_respawned_robots_play_on_from_their_spawn():
    """R-RESPAWN: skipped once, then back with full health on the spawn tile, and the turn counts on."""
    g = scenario(ROW3, NAMES3, rules=RULES_2013.replace(health=10))
    line_up(g)
    act(g, laser("right-down"))
    turns = [e.turn for e in g.log if isinstance(e, TurnStarted)]
    assert turns == [1, 2, 3, 4, 5]
    act(g)
    assert g.state.current == 1 and g.state.robots[1].health == 10


def test_loadouts():
    """R-LOADOUT: two distinct weapons of the three; refused with the server's text; chosen once."""
    g = SkyportGame.new(["alpha", "bravo"], 7, parse_map(DUEL))
    events = g.submit(ChooseLoadout(0, "laser", "laser"))
    assert of(events, LoadoutRejected)[0].error == "Invalid loadout: Can't have the same weapon twice."
    events = g.submit(ChooseLoadout(0, "bfg", "laser"))
    assert of(events, LoadoutRejected)[0].error == "Invalid primary weapon: 'bfg'"
    g.submit(ChooseLoadout(0, "laser", "droid"))
    with pytest.raises(CommandError):
        g.submit(ChooseLoadout(0, "laser", "mortar"))
    with pytest.raises(CommandError, match="not player 0's turn"):
        g.submit(EndTurn(0))
    events = g.submit(ChooseLoadout(1, "droid", "mortar"))
    assert of(events, TurnStarted)[0].turn == 1


DUEL = 'players 2\nsize 2\ndescription "tiny"\n__/S \\__\n/G \\__/S \\\n\\__/G \\__/\n'


def test_names_and_players_are_checked():
    """R-SETUP: names as the server's handshake accepts them; one robot per spawn tile at most."""
    m = parse_map(DUEL)
    with pytest.raises(GameParamError, match="Username too short"):
        SkyportGame.new(["ab", "bravo"], 1, m)
    with pytest.raises(GameParamError, match="expected 1 to 2 players"):
        SkyportGame.new(["alpha", "bravo", "carla"], 1, m)


def test_spawns_and_turn_order_are_the_servers_draws():
    """R-SPAWN, R-ORDER: the turn-0 list and the turn-1 positions of every sample game of the server."""
    for path in sorted(SAMPLES.glob("*.jsonl.gz")):
        records = [json.loads(line) for line in gzip.open(path, "rt")]
        header = records[0]
        names = [p["name"] for p in sorted(header["players"], key=lambda p: p["slot"])]
        states = [json.loads(r["line"]) for r in records if r["type"] == "msg" and r["player"] == "gui"
                  and r["dir"] == "s2c" and '"gamestate"' in r["line"]]
        turn0 = next(s for s in states if s["turn"] == 0)
        turn1 = next(s for s in states if s["turn"] == 1)
        spawns, order = draw_spawns_and_order(parse_map(header["map_text"]), len(names), header["seed"])
        assert [p["name"] for p in turn0["players"]] == [names[i] for i in order], path.name
        assert {p["name"]: p["position"] for p in turn1["players"]} == {
            names[i]: f"{j}, {k}" for i, (j, k) in enumerate(spawns)}, path.name


def test_a_player_sees_only_its_own_resources():
    """R-VIEW."""
    g = scenario(["SRRS", "GGGG", "GGGG", "GGGG"])
    act(g, move("right-down"), mine())
    mine_view, other_view = view(g.state, 0), view(g.state, 1)
    assert mine_view["robots"][0]["rubidium"] == 1 and "rubidium" not in mine_view["robots"][1]
    assert "rubidium" not in other_view["robots"][0] and "tiles_left" not in other_view
    assert view(g.state)["tiles_left"] == {"0, 1": 1}


def test_a_log_is_what_its_commands_decide():
    """A game's log re-decides to itself from its seed and its recorded commands."""
    g2 = SkyportGame.new(["alpha", "bravo"], 3, parse_map(DUEL))
    for p in (0, 1):
        g2.submit(ChooseLoadout(p, "mortar", "droid"))
    while not g2.over:
        g2.submit(EndTurn(g2.state.current))
    assert g2.state.phase == ENDED and redecide(g2.log)[1] == -1


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "skyport" / "glass-cannon.toml"


def test_a_variant_file_plays():
    """Variants as data: the example file reads, names its map, and a game under it plays to its limit."""
    rules = parse_variant(EXAMPLE.read_text(), str(EXAMPLE))
    assert (rules.name, rules.base, rules.health, rules.actions_per_turn) == ("glass-cannon", "2013", 60, 4)
    assert rules.laser.damage == (20, 24, 30) and rules.laser.range == (5, 6, 7) and rules.levels == 3
    g = SkyportGame.new(["alpha", "bravo", "carla", "delta"], 1, rules=rules)
    from locm.engine.skyport.agents import make_agent, play

    play(g, [make_agent("hunter", i) for i in range(4)])
    assert g.log[-1].turn == 240 and g.log[0].map.name == "crossroads-4p"
    assert max(e.health for e in g.log if isinstance(e, Respawned)) == 60


@pytest.mark.parametrize("text, message", [
    ("hp = 5", "v.toml: hp: expected a field of the Skyport rules (base, name, map, upgrade_costs, health, "
               "actions_per_turn, turn_limit, action_bonus, tile_resources, kill_points, death_penalty, "
               "spawn_penalty, idle_penalty, bad_mortar_crashes, laser, mortar, droid)"),
    ("health = 0", "v.toml: health: expected an integer in 1..10000, got 0"),
    ("health = 1.5", "v.toml: health: expected an integer in 1..10000, got 1.5"),
    ("actions_per_turn = 11", "v.toml: actions_per_turn: expected an integer in 1..10, got 11"),
    ("base = '2014'", "v.toml: base: expected one of 2013, got '2014'"),
    ("[laser]\ndamage = [1, 2]", "v.toml: laser.damage: expected a list of 3 integers in 0..10000 (one per level: 3 "
                                 "levels), got [1, 2]"),
    ("upgrade_costs = [1]\n[mortar]\nrange = [2, 3, 4]", "v.toml: mortar.range: expected a list of 2 integers in "
                                                         "0..20 (one per level: 2 levels), got [2, 3, 4]"),
    ("upgrade_costs = [1, 1, 1]", "v.toml: laser.damage: expected a list of 4 integers in 0..10000 (one per level: 4 "
                                  "levels); the base has 3 levels"),
    ("[laser]\narea = [1, 1, 1]", "v.toml: laser.area: expected one of damage, range"),
    ("map = 'moon'", "v.toml: map: expected one of crossroads-4p, duel-2p, hexagon-6p, octagon-8p, triangle-3p, got 'moon'"),
    ("health = ", "v.toml: expected a TOML document ("),
])
def test_a_bad_variant_is_refused_in_one_line(text, message):
    with pytest.raises(VariantError) as err:
        parse_variant(text, "v.toml")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert str(err.value) == message or message.endswith("(")


def test_a_bad_map_is_refused_in_one_line():
    """R-MAP: the reader says where and why."""
    bad = {
        'players 2\nsize 2\ndescription "x"\n S\nGX\n G\n': "m:5: expected tiles G, V, S, E, R, C or O, got 'X'",
        'players 2\nsize 2\ndescription "x"\n S\nGGG\n G\n': "m:5: expected row 2 of the map to have 2 tiles, got 3",
        'players 2\nsize 2\ndescription "x"\n S\nGS\n': "m: expected 3 rows of tiles for size 2, got 2",
        'players two\nsize 2\n': "m:1: expected 'players N', got 'players two'",
        'players 2\nsize 100\ndescription "x"\n': "m:2: expected a size from 2 to 99, got 100",
        'players 2\nsize 2\ndescription x\n S\nGS\n G\n': "m:3: expected the description in double quotes, got 'x'",
        'players 2\nsize 2\ndescription "x"\n G\nGG\n G\n': "m: expected at least one spawn tile (S), got none",
        'players 2\nsize 2\ndescription "x"\n S\nGS\n G\nG\n': "m:7: expected nothing after the 3 rows of the map, "
                                                              "got 'G'",
    }
    for text, message in bad.items():
        with pytest.raises(MapError) as err:
            parse_map(text, source="m")
        assert str(err.value) == message


def test_a_variant_with_fewer_levels_keeps_the_first_ones():
    rules = parse_variant("upgrade_costs = [6]", "v.toml")
    assert rules.levels == 2 and rules.laser.damage == (16, 18) and rules.droid.area == (10, 10)
