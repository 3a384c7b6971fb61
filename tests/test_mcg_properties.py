"""Properties of my-card-game over random play and random variants (STYLE 10).

`McgMachine` is a Hypothesis `RuleBasedStateMachine`: it draws a variant (the fields a variant may change, an
added card with random stats and effects, an end-phase effect, banned cards) through the same validation a
variant file goes through, a seed and the agents, then plays legal actions, arbitrary commands (each checked:
`problem` finds nothing exactly for the listed legal ones), bot answer lines (well-formed, illegal, garbage),
built-in agents' turns, surrender and timeouts. After every step: the fold of the log equals the live state;
seqs and causes are in order; every instance id is in exactly one place; hands, boards, health, mana,
fatigue and mulligans stay within their rules; every event cites a rule of RULES.md. At the end the game is
played out: it ends, every event round-trips the codec, and its commands re-decide to the same log.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, reject, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from locm.engine.mcg.agents import make_agent
from locm.engine.mcg.bounds import bounds
from locm.engine.mcg.cards import base_pool
from locm.engine.mcg.commands import Attack, ChooseStarter, EndTurn, Mulligan, Play, Surrender
from locm.engine.mcg.evolve import fold
from locm.engine.mcg.game import McgGame, redecide
from locm.engine.mcg.legal import legal_actions, problem
from locm.engine.mcg.rules import STANDARD, copies_allowed, deck_problem, pool
from locm.engine.mcg.state import MAIN
from locm.engine.mcg.variants import VariantError, variant_from_dict
from locm.events.mcg.catalog import (
    TURN_LIMIT, CardDrawn, EffectFizzled, FatigueTaken, MonsterDamaged, MulliganChosen, PlayerDamaged, TurnStarted,
)
from locm.events.mcg.codec import from_json, to_json
from tests.mcg_helpers import Position, monster

ROOT = Path(__file__).resolve().parent.parent
RULE_IDS = set(re.findall(r"(R-[A-Z][A-Z-]*[A-Z])", (ROOT / "data" / "mcg" / "RULES.md").read_text()))
COLLECTIBLE = sorted(c.id for c in base_pool().values() if not c.token)
TOKENS = sorted(c.id for c in base_pool().values() if c.token)
SELECTORS = ("own_player", "enemy_player", "both_players", "all_monsters", "enemy_monsters", "own_monsters",
             "enemy_characters", "random_enemy_monster")


@st.composite
def effects(draw: st.DrawFn, on: str) -> dict[str, object]:
    do = draw(st.sampled_from(["damage", "heal", "draw", "destroy", "summon", "buff", "reduce_toughness",
                               "raise_max_health"]))
    players = ["own_player", "enemy_player", "both_players"]
    monsters = ["all_monsters", "enemy_monsters", "own_monsters", "random_enemy_monster"]
    to = {"draw": players, "summon": ["own_player", "enemy_player"], "damage": list(SELECTORS),
          "heal": list(SELECTORS)}.get(do, monsters)
    e: dict[str, object] = {"do": do, "to": draw(st.sampled_from(to))}
    if on:
        e["on"] = on
    if do in ("damage", "heal", "reduce_toughness", "raise_max_health"):
        e["amount"] = draw(st.integers(1, 6))
    elif do == "draw":
        e["amount"] = draw(st.integers(1, 3))
    elif do == "buff":
        e["power"], e["toughness"] = draw(st.integers(1, 3)), draw(st.integers(0, 2))
    elif do == "summon":
        e["card"], e["count"] = draw(st.sampled_from(TOKENS)), draw(st.integers(1, 3))
    return e


@st.composite
def variant_docs(draw: st.DrawFn) -> dict[str, object]:
    doc: dict[str, object] = {"base": "standard", "name": "drawn"}
    if draw(st.booleans()):
        doc["max_copies"] = draw(st.integers(1, 3))
        doc["max_copies_rare"] = draw(st.integers(0, 1))
        doc["rare_threshold"] = draw(st.floats(30, 75))
    if draw(st.booleans()):
        doc["banned"] = draw(st.lists(st.sampled_from(COLLECTIBLE), max_size=8, unique=True))
    # R-CAP: a cap at least what a game of the rules can reach (a lower one is refused: test_mcg_variants);
    # left out, it rises to that bound by itself
    for cap, values in (("turn_limit", [None, None, 2000, 100_000]), ("chain_limit", [None, None, 1000, 100_000])):
        value = draw(st.sampled_from(values))
        if value is not None:
            doc[cap] = value
    doc["rejection_limit"] = draw(st.integers(4, 30))
    if draw(st.booleans()):
        doc["cards"] = [{
            "id": 2001, "name": "Drawn", "type": "monster", "cost": draw(st.integers(0, 4)), "rarity": 5.0,
            "power": draw(st.integers(0, 8)), "toughness": draw(st.integers(0, 5)), "health": draw(st.integers(1, 8)),
            "effects": draw(st.lists(st.sampled_from(["summon", "death", "turn", "turn_start", "main_start"])
                                     .flatmap(effects), max_size=2)),
        }]
        if draw(st.booleans()):  # a spell that waits for a phase (R-FX-DELAY)
            wait = {**draw(effects("")), "at": draw(st.sampled_from(["end_phase", "turn_start"]))}
            doc["cards"].append({"id": 2002, "name": "Drawn Spell", "type": "spell", "cost": draw(st.integers(0, 3)),
                                 "rarity": 5.0, "effects": [draw(effects("")), wait]})
    if draw(st.booleans()):
        doc["end_phase"] = [{"from_turn": draw(st.integers(1, 12)), **draw(effects(""))}]
    return doc


class McgMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.game: McgGame
        self.agents: list = []

    @initialize(doc=variant_docs(), seed=st.integers(-(2 ** 63), 2 ** 63 - 1),
                names=st.tuples(st.sampled_from(["random", "greedy"]), st.sampled_from(["random", "greedy"])),
                first=st.sampled_from([None, 0, 1]))
    def new_game(self, doc, seed, names, first):
        try:
            rules = variant_from_dict(doc, "drawn.toml")
        except VariantError as exc:  # a drawn pool can leave no legal deck: refused, as it must be
            note(str(exc))
            reject()
        note(f"variant {doc!r} seed {seed} agents {names} first {first}")
        self.game = McgGame.new(rules, seed, names, first=first)
        self.agents = [make_agent(names[i], seed + i) for i in (0, 1)]

    @property
    def s(self):
        return self.game.state

    @rule(data=st.data())
    def legal_action(self, data):
        if self.game.ended:
            return
        self.game.submit(data.draw(st.sampled_from(legal_actions(self.s))))

    @rule(kind=st.sampled_from(["play", "attack", "start", "mulligan", "end"]), a=st.integers(-2, 70),
          b=st.integers(-2, 70), c=st.integers(-2, 70))
    def any_command(self, kind, a, b, c):
        """`problem` accepts exactly the listed legal actions; an illegal one is rejected with its reason."""
        if self.game.ended:
            return
        p = self.s.current
        command = {"play": Play(p, a, b), "attack": Attack(p, a, b), "start": ChooseStarter(p, a % 3),
                   "mulligan": Mulligan(p, tuple(sorted({a, b, c} if a > 0 else ()))), "end": EndTurn(p)}[kind]
        legal = legal_actions(self.s)
        assert (problem(self.s, command) is None) == (command in legal)
        self.game.submit(command)

    @rule(data=st.data())
    def legal_answer_line(self, data):
        """A bot's line holding a legal action, as the protocol writes it (spaces and key order its own)."""
        if not self.game.ended:
            action = data.draw(st.sampled_from(legal_actions(self.s))).action()
            keys = data.draw(st.permutations(sorted(action)))
            self.game.answer(self.s.current, "{" + ", ".join(f'"{k}": {json.dumps(action[k])}' for k in keys) + "}")

    @rule(line=st.one_of(
        st.sampled_from(['{"do":"end"}', '{"do":"play","id":5}', '{"do":"attack","id":3,"target":1}',
                         '{"do":"mulligan","ids":[]}', '{"do":"start","first":0}']),
        st.builds(lambda i, t: f'{{"do":"play","id":{i},"target":{t}}}', st.integers(0, 70), st.integers(-1, 70))),
        bad=st.sampled_from(["", '{"do":"dance"}', '{"do":"end","do":"end"}', "null", '{"do":"play","id":1e3}',
                             "\x00", '{"do":"end"} x']), chance=st.integers(0, 255))
    def answer_line(self, line, bad, chance):
        """Well-formed answers (often illegal: rejected), and now and then one that is not an answer (lost)."""
        if not self.game.ended:
            self.game.answer(self.s.current, bad if chance % 16 == 5 else line)

    @rule(turns=st.integers(1, 6))
    def agent_turns(self, turns):
        last = self.s.turn + turns
        while not self.game.ended and self.s.turn < last:
            p = self.s.current
            self.game.submit(self.agents[p].act(self.s, p))

    @rule(seat=st.integers(0, 1), timeout=st.booleans(), chance=st.integers(0, 255))
    def give_up(self, seat, timeout, chance):
        """Surrender by either seat at any time, or inactivity (now and then: a game should also play on)."""
        if not self.game.ended and chance % 16 == 5:
            self.game.timeout(seat) if timeout else self.game.submit(Surrender(seat))

    @invariant()
    def fold_equals_live_state(self):
        assert fold(self.game.log).snapshot() == self.s.snapshot()

    @invariant()
    def log_is_in_order_and_cites_rules(self):
        for i, e in enumerate(self.game.log):
            assert e.seq == i and -1 <= e.cause < i
            assert e.rule in RULE_IDS, e.rule

    @invariant()
    def every_instance_is_in_one_place(self):
        s = self.s
        places = Counter()
        for p in s.players:
            places.update(p.deck + p.hand + p.graveyard + p.board)
        assert set(places) == set(s.card_of) and max(places.values()) == 1
        assert set(s.monsters) == {i for p in s.players for i in p.board}
        assert s.next_id == 2 + len(s.card_of)

    @invariant()
    def players_within_their_rules(self):
        s, rules = self.s, self.s.rules
        for p in s.players:
            assert len(p.hand) <= rules.hand_limit
            assert len(p.board) <= rules.board_size
            assert 0 <= p.mana <= p.max_mana <= rules.max_mana
        for m in s.monsters.values():
            assert m.health <= m.max_health and m.toughness >= 0 and m.power >= 0
        for seat in (0, 1):
            fatigue = [e.amount for e in self.game.log if type(e) is FatigueTaken and e.player == seat]
            assert fatigue == list(range(1, len(fatigue) + 1))
            assert sum(1 for e in self.game.log if type(e) is MulliganChosen and e.player == seat) <= 1
        if s.phase == MAIN:
            turns = [e for e in self.game.log if type(e) is TurnStarted]
            assert turns[-1].turn == s.turn and turns[-1].player == s.current

    def teardown(self):
        if not hasattr(self, "game"):
            return
        game = self.game
        for _ in range(20000):
            if game.ended:
                break
            p = game.state.current
            game.submit(self.agents[p].act(game.state, p))
        assert game.ended, "the game did not end"
        assert game.state.turn <= game.state.rules.turn_limit
        # R-CAP, R-VARIANT: no cap cuts a rule of the text short (unless the pool has no bound: a token loop)
        chain, turns = bounds(game.state.rules, pool(game.state.rules))
        if turns is not None:
            assert game.state.end_reason != TURN_LIMIT, "the turn cap ended a game the text's rules would go on with"
        if chain is not None:
            assert not [e for e in game.log if type(e) is EffectFizzled and e.reason == "chain limit"]
        for e in game.log:
            assert from_json(to_json(e)) == e
        assert redecide(game.log)[1] == -1


def test_mcg_machine():
    run_state_machine_as_test(McgMachine, settings=settings(
        max_examples=120, stateful_step_count=50, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


@settings(max_examples=60, deadline=None)
@given(ap=st.integers(0, 12), at=st.integers(0, 8), ah=st.integers(1, 15), dp=st.integers(0, 12),
       dt=st.integers(0, 8), dh=st.integers(1, 15))
def test_the_damage_formula_and_its_reflection(ap, at, ah, dp, dt, dh):
    """R-ATTACK: the defender loses power - toughness when positive, the attacker its absolute value when
    negative, nothing at zero; no counter-attack; at 0 health a monster dies (R-DEATH)."""
    pos = Position()
    a = pos.on_board(0, monster(ap, at, ah))
    d = pos.on_board(1, monster(dp, dt, dh))
    game = pos.game()
    events = game.submit(Attack(0, a, d))
    damage = ap - dt
    expected = [] if damage == 0 else [(d, damage) if damage > 0 else (a, -damage)]
    assert [(e.id, e.amount) for e in events if type(e) is MonsterDamaged] == expected
    left_a, left_d = ah - max(0, -damage), dh - max(0, damage)
    assert (a in game.state.monsters) == (left_a > 0) and (d in game.state.monsters) == (left_d > 0)
    assert not [e for e in events if type(e) is PlayerDamaged]


@settings(max_examples=80, deadline=None)
@given(deck=st.lists(st.sampled_from(COLLECTIBLE + TOKENS[:1]), min_size=28, max_size=32),
       copies=st.integers(1, 3), rare=st.integers(0, 1), threshold=st.sampled_from([60.0, 75.0]))
def test_deck_limits_by_rarity(deck, copies, rare, threshold):
    """R-DECK: exactly 30 cards, no token, at most `max_copies` of a card and `max_copies_rare` of a card of
    rarity >= the threshold (75, Mythical, in the text)."""
    rules = STANDARD.replace(max_copies=copies, max_copies_rare=rare, rare_threshold=threshold)
    cards = pool(rules)
    counts = Counter(deck)
    legal = len(deck) == 30 and all(
        not cards[c].token and n <= (rare if cards[c].rarity >= threshold else copies) for c, n in counts.items())
    assert (deck_problem(rules, deck, cards) is None) == legal
    assert all(copies_allowed(rules, cards[c]) == (0 if cards[c].token else rare if cards[c].rarity >= threshold
                                                   else copies) for c in counts)


def test_the_hand_burn_happens_in_real_games():
    """R-HAND: over whole games of the built-in agents no hand ever exceeds 12 (the machine checks every
    step); this seed's game reaches a full hand and burns."""
    from locm.engine.mcg.game import play_match
    from locm.events.mcg.catalog import CardBurned

    rules = STANDARD.replace(turn_limit=40)
    burned = []
    for seed in range(40):
        game = play_match(rules, seeds=seed, agents=("random", "random"))
        burned += [e for e in game.log if type(e) is CardBurned]
        if burned:
            break
    assert burned, "no game of 40 burned a card"
    assert all(type(e) is not CardDrawn or e.id != burned[0].id for e in game.log)


@pytest.mark.parametrize("names", [("random", "random"), ("greedy", "random"), ("greedy", "greedy")])
def test_built_in_agents_play_whole_games_that_re_decide(names):
    from locm.engine.mcg.game import play_match

    wins = Counter()
    for seed in range(6):
        game = play_match(seeds=seed, agents=names)
        assert game.ended and redecide(game.log)[1] == -1
        wins[game.state.winner] += 1
        again = play_match(seeds=seed, agents=names)
        assert again.log == game.log  # the same seeds and agents give the same log
    if names == ("greedy", "random"):
        assert wins[0] >= 5  # greedy is the stronger agent
