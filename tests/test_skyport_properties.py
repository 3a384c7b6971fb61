"""Properties of Skyport over random play, random maps and random variants (STYLE 10).

`SkyportMachine` is a Hypothesis `RuleBasedStateMachine`: it draws a variant (every field a variant may change,
through the same validation a variant file goes through), a map (a built-in one or a random rhombus) and the
players, then plays loadouts, legal actions, arbitrary action objects (refusals, mistyped fields, the crash), the
built-in agents and early ends of turns. After every step: the fold of the log equals the live state; health,
resources, levels and turn counters stay in bounds; every robot stands on its spawn tile or on a walkable tile,
never two on one; every event's rule exists. At the end the game is played out: it ends, and its commands
re-decide to the same log.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, note, settings, strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test,
)

from locm.engine.skyport.agents import make_agent
from locm.engine.skyport.commands import Act, ChooseLoadout, EndTurn
from locm.engine.skyport.evolve import fold
from locm.engine.skyport.game import SkyportGame, redecide
from locm.engine.skyport.hexmap import SPAWN, WALKABLE, format_map, parse_map
from locm.engine.skyport.legal import legal_actions
from locm.engine.skyport.rules import builtin_map, builtin_map_names, variant_from_dict
from locm.engine.skyport.state import ENDED, LOADOUT, TURN, view
from locm.events.skyport.codec import from_json, to_json
from locm.events.skyport.rules import GameMap

ROOT = Path(__file__).resolve().parent.parent
RULE_IDS = set(re.findall(r"^## (R-[A-Z-]+)", (ROOT / "data" / "skyport" / "RULES.md").read_text(), re.M))
WEAPONS = ("laser", "mortar", "droid")
DIRECTIONS = ("up", "down", "left-up", "left-down", "right-up", "right-down")


@st.composite
def variants(draw: st.DrawFn) -> dict[str, object]:
    levels = draw(st.integers(1, 4))
    doc: dict[str, object] = {
        "name": "drawn", "health": draw(st.integers(1, 150)), "actions_per_turn": draw(st.integers(1, 5)),
        "turn_limit": draw(st.integers(1, 40)), "action_bonus": draw(st.sampled_from([0, 0.2, 0.5, 1.25])),
        "upgrade_costs": draw(st.lists(st.integers(0, 3), min_size=levels - 1, max_size=levels - 1)),
        "tile_resources": draw(st.integers(1, 3)), "kill_points": draw(st.integers(0, 30)),
        "death_penalty": draw(st.integers(0, 50)), "spawn_penalty": draw(st.integers(0, 20)),
        "idle_penalty": draw(st.integers(0, 20)), "bad_mortar_crashes": draw(st.booleans()),
    }
    for weapon, top in (("laser", 9), ("mortar", 5), ("droid", 7)):
        table = {"damage": draw(st.lists(st.integers(0, 60), min_size=levels, max_size=levels)),
                 "range": draw(st.lists(st.integers(0, top), min_size=levels, max_size=levels))}
        if weapon != "laser":
            table["area"] = draw(st.lists(st.integers(0, 30), min_size=levels, max_size=levels))
        doc[weapon] = table
    return doc


@st.composite
def maps(draw: st.DrawFn, players: int) -> GameMap:
    if draw(st.booleans()):
        fitting = [n for n in builtin_map_names() if sum(r.count("S") for r in builtin_map(n).rows) >= players]
        return builtin_map(draw(st.sampled_from(fitting)))
    size = draw(st.integers(max(2, players), 7))
    cells = [[draw(st.sampled_from("GGGGVOERC")) for _ in range(size)] for _ in range(size)]
    for p in draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), min_size=players,
                           max_size=players + 2, unique=True)):
        cells[p[0]][p[1]] = SPAWN
    drawn = GameMap(name="drawn", description="a drawn map", players=players, size=size,
                    rows=tuple("".join(r) for r in cells))
    assert parse_map(format_map(drawn), "drawn") == drawn  # the writer and the reader agree
    return drawn


def junk_actions() -> st.SearchStrategy[dict[str, object]]:
    value = st.one_of(st.none(), st.booleans(), st.integers(-9, 9), st.floats(-3, 3, allow_nan=False),
                      st.sampled_from(DIRECTIONS + WEAPONS + ("", "UP", "0,0", "1,-1", "2,1", "1, 1", "a,b", "7")),
                      st.lists(st.sampled_from(DIRECTIONS + ("sideways",)), max_size=7))
    return st.fixed_dictionaries(
        {"message": st.just("action")},
        optional={"type": st.one_of(st.sampled_from(("move", "laser", "mortar", "droid", "mine", "upgrade", "warp")),
                                    value),
                  "direction": value, "coordinates": value, "sequence": value, "weapon": value})


class SkyportMachine(RuleBasedStateMachine):
    game: SkyportGame

    @initialize(data=st.data(), players=st.integers(1, 4), seed=st.integers(-(1 << 63), (1 << 63) - 1))
    def create(self, data: st.DataObject, players: int, seed: int) -> None:
        doc = data.draw(variants(), label="variant")
        rules = variant_from_dict(doc, "drawn")
        game_map = data.draw(maps(players), label="map")
        names = [f"p{i}-bot" for i in range(players)]
        note(f"seed {seed}, map {game_map.rows}, rules {rules}")
        self.game = SkyportGame.new(names, seed, game_map, rules)

    @precondition(lambda self: self.game.state.phase == LOADOUT)
    @rule(data=st.data())
    def loadout(self, data: st.DataObject) -> None:
        player = data.draw(st.sampled_from(self.game.state.to_move))
        a, b = data.draw(st.sampled_from(WEAPONS + ("bfg",))), data.draw(st.sampled_from(WEAPONS))
        self.game.submit(ChooseLoadout(player, a, b))

    @precondition(lambda self: self.game.state.phase == TURN)
    @rule(data=st.data())
    def legal(self, data: st.DataObject) -> None:
        state = self.game.state
        options = legal_actions(state, state.current)
        if options:
            action = data.draw(st.sampled_from(options))
            before = len(self.game.log)
            self.game.submit(Act(state.current, action))
            assert not any(type(e).__name__ == "ActionRejected" for e in self.game.log[before:]), action

    @precondition(lambda self: self.game.state.phase == TURN)
    @rule(action=junk_actions())
    def anything(self, action: dict[str, object]) -> None:
        self.game.submit(Act(self.game.state.current, action))

    @precondition(lambda self: self.game.state.phase == TURN)
    @rule()
    def end_turn(self) -> None:
        self.game.submit(EndTurn(self.game.state.current))

    @precondition(lambda self: self.game.state.phase in (TURN, LOADOUT))
    @rule(name=st.sampled_from(("random", "hunter")), seed=st.integers(0, 1000), steps=st.integers(1, 12))
    def agent(self, name: str, seed: int, steps: int) -> None:
        agent = make_agent(name, seed)
        for _ in range(steps):
            state = self.game.state
            if state.phase == ENDED:
                return
            player = state.to_move[0]
            self.game.submit(agent.command(state, player))

    @rule(data=st.data())
    def a_view_hides_the_others_resources(self, data: st.DataObject) -> None:
        player = data.draw(st.integers(0, len(self.game.state.robots) - 1))
        shown = view(self.game.state, player)["robots"]
        assert all(("rubidium" in r) == (r["slot"] == player) for r in shown)

    # --- invariants ---------------------------------------------------------------------------------------

    @invariant()
    def fold_equals_live(self) -> None:
        assert fold(self.game.log).key() == self.game.state.key()

    @invariant()
    def values_in_bounds(self) -> None:
        s = self.game.state
        rules = s.rules
        seen = set()
        for r in s.robots:
            assert 0 <= r.health <= rules.health
            assert min(r.rubidium, r.explosium, r.scrap) >= 0
            assert 1 <= r.primary_level <= rules.levels and 1 <= r.secondary_level <= rules.levels
            tile = s.tile(r.position)
            assert (r.position == r.spawn and tile == SPAWN) or tile in WALKABLE, (r, tile)
            assert r.position not in seen
            seen.add(r.position)
        assert 0 <= s.used <= rules.actions_per_turn and s.valid <= s.used
        assert 0 <= s.turn <= rules.turn_limit
        assert all(0 < n < rules.tile_resources and s.tiles[j][k] in "REC" for (j, k), n in s.left.items())

    @invariant()
    def events_cite_rules_and_round_trip(self) -> None:
        for e in self.game.log[-30:]:
            assert e.rule in RULE_IDS, e
            assert from_json(to_json(e)) == e

    def teardown(self) -> None:
        game = getattr(self, "game", None)
        if game is None:
            return
        agents = [make_agent("random", 7 + i) for i in range(len(game.state.robots))]
        budget = (game.state.rules.turn_limit + 1) * (game.state.rules.actions_per_turn + 1) + 10
        while not game.over and budget:
            state = game.state
            player = state.to_move[0]
            game.submit(agents[player].command(state, player))
            budget -= 1
        assert game.over, "the game did not end within its turn limit"
        assert redecide(game.log)[1] == -1


def test_skyport_machine() -> None:
    run_state_machine_as_test(SkyportMachine, settings=settings(
        max_examples=25, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]))


@pytest.mark.parametrize("name", builtin_map_names())
def test_built_in_maps_read_back_and_play(name: str) -> None:
    game_map = builtin_map(name)
    assert parse_map(format_map(game_map), name) == game_map
    players = sum(r.count("S") for r in game_map.rows)
    game = SkyportGame.new([f"p{i}-hunter" for i in range(players)], 5, game_map)
    from locm.engine.skyport.agents import play

    play(game, [make_agent("hunter", i) for i in range(players)])
    assert game.over and game.log[-1].turn == 200
    assert sum(type(e).__name__ in ("Hit", "AreaHit") for e in game.log) > 10  # robots meet and fight
