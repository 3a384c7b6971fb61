"""Properties of whole games, for both rulesets (STYLE 10).

`GameMachine` is a Hypothesis `RuleBasedStateMachine`: it creates a game from a drawn seed, builds the decks
(single draft picks, a random or PASS-filled draft, a random, Area-heavy or PASS constructed deck; through
`Game.submit` or through `Game.answer`), then plays battle steps: one legal action, one illegal action, the
end of a turn, one answer line, a whole random, greedy or look-ahead turn, or many random turns. After every step the
invariants hold:

- folding the whole log gives the live state;
- the log is numbered 0..n-1, every cause points backwards, and only root records have cause -1;
- 0 <= mana <= max mana <= the ruleset's max mana (+1 while the bonus token is held); hand <= its hand limit;
  <= its lane size a lane;
- every instance id is in at most one zone of one player, and ids are never reused (1.5 Area copies too);
- board creatures have defense > 0; in 1.2 every remaining rune is below health unless the game is over;
- a game_ended event appears at most once, last, and exactly when the state says the game is over.

At teardown the game is played to its end by random agents and the end-of-game properties are checked: it
ends, within the hard cap (R-CAP), and re-deciding its inputs gives its events.

The machine runs under the two built-in rulesets and under **random variants** (`GameMachineVariant`: each
example draws a variant file from every field's accepted range, `tests/variant_strategies.py`), with the
same invariants, every bound read from the game's rules.

`test_random_game` plays whole random games from a drawn seed: one winner, the fold equals the live state,
the same seed gives a byte-identical JSON lines log, and that log decodes and folds to the same state;
`test_random_game_under_a_random_variant` does the same under drawn variants, with drawn built-in agents.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test,
)

from locm.events.locm import codec
from locm.events.locm.cards import CREATURE
from locm.events.locm.catalog import (
    ActionReceived, ActionRejected, CardPicked, CreatureAttacked, CreatureSummoned, DeckChosen, DeckOrdered,
    GameCreated, GameEnded, HardError, ItemUsed, TurnEnded, TurnStarted,
)
from locm.engine.locm.agents import GreedyAgent, PassAgent, RandomAgent
from locm.engine.locm.playing import play
from locm.engine.locm.legal import legal_actions
from locm.engine.locm.lookahead import LookaheadAgent
from locm.engine.locm.commands import Attack, BuildDeck, EndTurn, Pick, Summon, Use
from locm.engine.locm.construct import fill_deck
from locm.engine.errors import CommandError
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.drawing import CAP_EVENTS, CAP_TURNS
from locm.engine.locm.rulesets import IDS_12, IDS_COG2022, deck_cards
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT
from tests.variant_strategies import variants

RULESETS = ("1.2", "constructed")
ROOTS = (GameCreated, ActionReceived)  # the only records without a cause
FIXED_SEEDS = (0, 1, 42, 12700, -1, -(2**63), 2**63 - 1)
SEEDS = st.one_of(st.sampled_from(FIXED_SEEDS), st.integers(-(2**63), 2**63 - 1))
AGENT_SEEDS = st.integers(-(2**63), 2**63 - 1)


STATE_KEY = ("rules", "phase", "seq", "player 0", "player 1", "units", "current", "turn", "round", "offer",
             "next_id", "winner", "end_reason")
PLAYER_KEY = ("health", "max_mana", "mana", "bonus", "runes", "next_draw", "draw_shown", "damage_counter",
              "deck", "hand", "board", "actions", "turns", "picks")


def _difference(folded, live) -> str:
    """Where two states differ, for the failure message of a fold that does not give the live state."""
    out = []
    for name, a, b in zip(STATE_KEY, folded.key(), live.key()):
        if a != b:
            if name.startswith("player"):
                out += [f"{name} {f}: folded {x!r}, live {y!r}" for f, x, y in zip(PLAYER_KEY, a, b) if x != y]
            else:
                out.append(f"{name}: folded {a!r}, live {b!r}")
    return "; ".join(out)[:2000]


def assert_fold_is_live(game: Game) -> None:
    folded = fold(game.log)
    assert folded == game.state, _difference(folded, game.state)


def _key_without_seq(state) -> tuple:
    k = state.key()
    return k[:2] + k[3:]  # key() is (rules, phase, seq, ...)


class GameMachine(RuleBasedStateMachine):
    RULESET = "1.2"  # a built-in name, or None: a random variant for each example

    def __init__(self) -> None:
        super().__init__()
        self.game: Game | None = None
        self.seed = 0

    # --- set-up and deck building -----------------------------------------------------------------------

    @initialize(seed=SEEDS, data=st.data())
    def new_game(self, seed, data):
        self.seed = seed
        rules = self.RULESET or data.draw(variants(), label="variant")
        self.game = Game.new(rules, seed)

    @property
    def state(self):
        return self.game.state

    @precondition(lambda self: self.state.phase == DRAFT)
    @rule(index=st.integers(0, 2), how=st.sampled_from(["submit", "PICK", "CHOOSE", "PASS"]))
    def pick(self, index, how):
        state = self.state
        p, offer = state.current, state.offer
        if how == "submit":
            events = self.game.submit(Pick(p, index))
        else:
            if how == "PASS":
                index = 0
            events = self.game.answer(p, {"PICK": f"PICK {index}", "CHOOSE": f"CHOOSE {offer[index]}"}.get(how, how))
        picked = [e for e in events if type(e) is CardPicked]
        assert len(picked) == 1 and picked[0].player == p and picked[0].base_id == offer[index], events
        assert HardError not in map(type, events)

    @precondition(lambda self: self.state.phase == DRAFT)
    @rule(seed=st.one_of(st.none(), AGENT_SEEDS))
    def finish_draft(self, seed):
        """The rest of the draft: random picks from `seed`, or PASS (the first card) when it is None."""
        agent = PassAgent() if seed is None else RandomAgent(seed)
        while self.state.phase == DRAFT:
            agent.play_turn(self.game, self.state.current)
        assert self.state.phase == BATTLE
        rounds = self.state.rules.draft_rounds
        assert [len(pl.picks) for pl in self.state.players] == [rounds, rounds]

    @precondition(lambda self: self.state.phase == CONSTRUCT)
    @rule(kind=st.sampled_from(["random", "area", "pass"]), how=st.sampled_from(["submit", "answer"]),
          data=st.data())
    def build_deck(self, kind, how, data):
        state = self.state
        p, pool, size, copies = state.current, len(state.cards), state.rules.deck_size, state.rules.max_copies
        if kind == "random":
            slots = data.draw(st.lists(st.integers(0, copies * pool - 1), unique=True, min_size=size,
                                       max_size=size), label="slots")
            deck = [k // copies for k in slots]  # at most `copies` copies of each baseId
        else:
            deck = []
            if kind == "area":  # Area creatures first, then Area items, two of each: many copies and sweeps
                cards = sorted(state.cards.values(), key=lambda c: c.base_id)
                creatures = [c.base_id for c in cards if c.area and c.type == CREATURE]
                items = [c.base_id for c in cards if c.area and c.type != CREATURE]
                order = data.draw(st.permutations(creatures), label="area creatures") + items
                deck = [b for b in order for _ in range(copies)][:size]
            fill_deck(deck, pool, size, state.rules.max_copies)  # what a PASS does
        if how == "submit":
            events = self.game.submit(BuildDeck(p, tuple(deck)))
        elif kind == "pass":
            events = self.game.answer(p, "PASS")
        else:
            events = self.game.answer(p, ";".join(f"CHOOSE {b}" for b in deck))
        chosen = [e for e in events if type(e) is DeckChosen]
        assert len(chosen) == 1 and chosen[0].player == p and list(chosen[0].base_ids) == deck, events

    # --- battle ---------------------------------------------------------------------------------------------

    def _ends_for_a_death_at_turn_start(self, events) -> bool:
        """R-WIN as the referee runs it: a player killed by its own turn-start draws still answers, and its
        first command ends the game (the other player wins) before anything of it is carried out. True when
        `events` were that case (and checked)."""
        state = self.state
        if not any(type(e) is GameEnded for e in events) or type(events[1]) is not GameEnded:
            return False
        assert [type(e) for e in events] == [ActionReceived, GameEnded], events
        dead = [p for p in (0, 1) if state.players[p].health <= 0]
        assert dead, events
        acting = events[0].player
        assert events[1].winner == (acting if 1 - acting in dead else 1 - acting)
        return True

    @precondition(lambda self: self.state.phase == BATTLE and legal_actions(self.state))
    @rule(data=st.data())
    def legal_action(self, data):
        state = self.state
        acts = legal_actions(state)
        action = acts[data.draw(st.integers(0, len(acts) - 1), label="action index")]
        note(f"action: {action.text()}")
        p = state.current
        events = self.game.submit(action)
        if self._ends_for_a_death_at_turn_start(events):
            return
        kinds = [type(e) for e in events]
        assert ActionRejected not in kinds, events
        fact = events[1]
        if type(action) is Summon:
            assert type(fact) is CreatureSummoned and (fact.id, fact.lane, fact.copy_of) == (action.id, action.lane, 0)
        elif type(action) is Attack:
            assert type(fact) is CreatureAttacked and (fact.attacker, fact.target) == (action.id, action.target)
        else:
            assert type(fact) is ItemUsed and (fact.id, fact.target) == (action.id, action.target)
        assert fact.player == p

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule(verb=st.sampled_from([Summon, Attack, Use]), a=st.integers(-2, 130), b=st.integers(-2, 3))
    def illegal_action(self, verb, a, b):
        """An action outside the legal set is rejected and changes nothing but the log."""
        state = self.state
        action = verb(a, b)
        if action in legal_actions(state):
            return
        before = _key_without_seq(state)
        events = self.game.submit(action)
        if self._ends_for_a_death_at_turn_start(events):
            return
        assert [type(e) for e in events] == [ActionReceived, ActionRejected], events
        assert events[1].action == action.text() and events[1].reason
        assert _key_without_seq(self.state) == before

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule()
    def end_turn(self):
        p = self.state.current
        events = self.game.end_turn()
        if self._ends_for_a_death_at_turn_start(events):
            return
        assert type(events[1]) is TurnEnded and events[1].player == p
        if not self.game.ended:
            started = [e for e in events if type(e) is TurnStarted]
            assert len(started) == 1 and started[0].player == 1 - p and self.state.current == 1 - p

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule(data=st.data())
    def answer_line(self, data):
        """A protocol line of actions legal now; items that became illegal on the way are rejected."""
        state = self.state
        acts = legal_actions(state)
        chosen = data.draw(st.lists(st.sampled_from(acts), max_size=6), label="actions") if acts else []
        p = state.current
        events = self.game.answer(p, ";".join(a.text() for a in chosen))
        assert HardError not in map(type, events)
        assert self.game.ended or self.state.current == 1 - p

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule()
    def greedy_turn(self):
        GreedyAgent().play_turn(self.game, self.state.current)

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule()
    def lookahead_turn(self):
        """A whole look-ahead turn: its copies of the state (`copy_for_one_action`) leave the live one as the
        log says (the fold invariant)."""
        LookaheadAgent().play_turn(self.game, self.state.current)

    @precondition(lambda self: self.state.phase == BATTLE)
    @rule(seed=AGENT_SEEDS, turns=st.integers(1, 20))
    def random_turns(self, seed, turns):
        agent = RandomAgent(seed)
        for _ in range(turns):
            if self.game.ended:
                break
            agent.play_turn(self.game, self.state.current)

    @precondition(lambda self: not self.game.ended)
    @rule(seed=AGENT_SEEDS)
    def advance(self, seed):
        """One random move in any phase: a pick, a deck or a whole random turn."""
        RandomAgent(seed).play_turn(self.game, self.state.current)

    @precondition(lambda self: self.game.ended)
    @rule()
    def nothing_after_the_end(self):
        n = len(self.game.log)
        with pytest.raises(CommandError):
            self.game.end_turn()
        with pytest.raises(CommandError):
            self.game.answer(self.state.current, "PASS")
        assert len(self.game.log) == n

    # --- invariants -------------------------------------------------------------------------------------------

    @invariant()
    def fold_equals_live_state(self):
        assert_fold_is_live(self.game)

    @invariant()
    def kept_legal_list_is_the_fresh_one(self):
        """The legal list the game keeps between events (engine.locm.legal.LegalCache) is what the state gives."""
        assert self.game.legal_actions() == legal_actions(self.state)

    @invariant()
    def log_is_well_formed(self):
        log = self.game.log
        assert type(log[0]) is GameCreated
        ended = 0
        for i, e in enumerate(log):
            assert e.seq == i, (i, e)
            if isinstance(e, ROOTS):
                assert e.cause == -1, e
            else:
                assert 0 <= e.cause < e.seq, e
            if type(e) is GameEnded:
                ended += 1
        assert self.state.seq == len(log)
        assert ended == (1 if self.game.ended else 0)
        if ended:
            last = log[-1]
            assert type(last) is GameEnded and last.winner in (0, 1) and last.winner == self.game.winner, last

    @invariant()
    def players_within_bounds(self):
        state = self.state
        rules = state.rules
        assert state.current in (0, 1)
        if state.phase == BATTLE:
            assert state.current == state.turn % 2, (state.current, state.turn)
        for pl in state.players:
            assert 0 <= pl.mana <= pl.max_mana <= rules.max_mana + pl.bonus, (pl.index, pl.mana, pl.max_mana)
            assert len(pl.hand) <= rules.hand_limit, (pl.index, len(pl.hand))
            for lane in (0, 1):
                assert pl.lane_count(lane) <= rules.lane_size, (pl.index, lane, pl.board)
            for u in pl.board:
                assert u.lane in (0, 1) and u.defense > 0 and u.attack >= 0, u
            if rules.runes:
                assert list(pl.runes) == sorted(pl.runes, reverse=True) and set(pl.runes) <= set(rules.runes)
                if not self.game.ended:
                    assert all(r < pl.health for r in pl.runes), (pl.index, pl.health, pl.runes)
            else:
                assert not pl.runes

    @invariant()
    def ids_are_unique(self):
        state = self.state
        seen: dict[int, str] = {}
        for pl in state.players:
            for zone, units in (("deck", pl.deck), ("hand", pl.hand), ("board", pl.board)):
                for u in units:
                    where = f"player {pl.index} {zone}"
                    assert u.id not in seen, f"id {u.id} in {seen[u.id]} and in {where}"
                    seen[u.id] = where
                    assert state.units[u.id] is u and u.owner == pl.index, (where, u)
                    if zone != "board":
                        assert u.lane == -1, (where, u)
        # Ids are never reused over the game: deck ids and Area copies all distinct (R-DECK).
        introduced: list[int] = []
        copies: list[int] = []
        decks = {}
        for e in self.game.log:
            if type(e) is DeckOrdered:
                introduced += e.ids
                decks[e.player] = e.ids
            elif type(e) is CreatureSummoned and e.copy_of:
                introduced.append(e.id)
                copies.append(e.id)
        assert len(set(introduced)) == len(introduced), sorted(introduced)
        scheme, n = state.rules.id_scheme, deck_cards(state.rules)
        if scheme == IDS_12:
            assert state.rules.area or not copies
            assert copies == list(range(2 * n + 1, 2 * n + 1 + len(copies))), copies
            for p, ids in decks.items():
                assert sorted(ids) == [2 * i + p + 1 for i in range(n)]
        elif scheme == IDS_COG2022:
            assert copies == list(range(2 * n + 1, 2 * n + 1 + len(copies))), copies
            for p, ids in decks.items():
                assert sorted(ids) == list(range(1 + n * p, n + 1 + n * p))

    # --- the end ----------------------------------------------------------------------------------------------

    def teardown(self):
        """Play the game out with random agents, then check the end of the game."""
        if self.game is None:
            return
        seeds = (self.seed ^ 0x1234, self.seed ^ 0x5678)
        note(f"teardown plays on with RandomAgent{seeds[0]} and RandomAgent{seeds[1]}")
        play(self.game, (RandomAgent(seeds[0]), RandomAgent(seeds[1])))
        log = self.game.log
        assert self.game.ended and self.game.winner in (0, 1)
        assert_within_the_cap(self.game)
        assert type(log[-1]) is GameEnded and log[-1].winner == self.game.winner
        assert sum(1 for e in log if type(e) is GameEnded) == 1
        self.fold_equals_live_state()
        self.log_is_well_formed()
        self.players_within_bounds()
        self.ids_are_unique()
        # The log is the whole truth: its recorded inputs, decided again, give exactly its events.
        from locm.engine.locm.redecide import redecide

        result = redecide(log)
        assert result.ok and result.strict, str(result.divergence)


class GameMachine12(GameMachine):
    RULESET = "1.2"


class GameMachineConstructed(GameMachine):
    RULESET = "constructed"


class GameMachineVariant(GameMachine):
    RULESET = None


MACHINES = {"1.2": GameMachine12, "constructed": GameMachineConstructed, "variant": GameMachineVariant}
EXAMPLES = {"1.2": 30, "constructed": 30, "variant": 100}


@pytest.mark.parametrize("ruleset", list(MACHINES))
def test_game_machine(ruleset):
    run_state_machine_as_test(
        MACHINES[ruleset],
        settings=settings(max_examples=EXAMPLES[ruleset], stateful_step_count=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow]),
    )


def assert_within_the_cap(game: Game) -> None:
    """R-CAP: no battle turn 1000 begins, and a decision begun at 50,000 events ends the game: the log holds
    at most what one last decision adds (an answer line of a bot's longest line of actions)."""
    assert game.state.turn < CAP_TURNS
    assert len(game.log) < CAP_EVENTS + 2000, len(game.log)
    if game.state.end_reason == "cap":
        assert game.log[-1].rule == "R-CAP"


# --- whole random games ---------------------------------------------------------------------------------------


def _random_game(ruleset: str, seed: int) -> Game:
    game = Game.new(ruleset, seed)
    play(game, (RandomAgent(seed), RandomAgent(seed)))
    return game


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(deadline=None, max_examples=50)
@given(seed=SEEDS)
def test_random_game(ruleset, seed):
    game = _random_game(ruleset, seed)
    log = game.log
    assert game.ended and game.winner in (0, 1)
    ended = [e for e in log if type(e) is GameEnded]
    assert len(ended) == 1 and log[-1] is ended[0] and ended[0].winner == game.winner
    assert_fold_is_live(game)
    raw = codec.to_jsonl(log)
    assert codec.to_jsonl(_random_game(ruleset, seed).log) == raw  # the same seed, the same bytes
    assert fold(codec.from_jsonl(raw)) == game.state  # the stored log replays to the same state


AGENT_PAIRS = st.tuples(*[st.sampled_from(["random", "greedy", "pass"])] * 2)


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(rules=variants(), seed=SEEDS, agents=AGENT_PAIRS)
def test_random_game_under_a_random_variant(rules, seed, agents):
    check_random_variant_game(rules, seed, agents)


def check_random_variant_game(rules, seed, agents) -> None:
    """Any variant the validator accepts plays to an end with any built-in agents: one winner, within the cap,
    fold == live, the same seeds give the same bytes, the log decodes to the same state and re-decides."""
    from locm.engine.locm.agents import make_agent
    from locm.engine.locm.redecide import redecide

    def played() -> Game:
        game = Game.new(rules, seed)
        play(game, (make_agent(agents[0], seed), make_agent(agents[1], seed ^ 1)))
        return game

    game = played()
    log = game.log
    assert game.ended and game.winner in (0, 1)
    assert_within_the_cap(game)
    assert sum(1 for e in log if type(e) is GameEnded) == 1 and type(log[-1]) is GameEnded
    assert_fold_is_live(game)
    raw = codec.to_jsonl(log)
    assert codec.to_jsonl(played().log) == raw
    assert fold(codec.from_jsonl(raw)) == game.state
    result = redecide(log)
    assert result.ok and result.strict, str(result.divergence)
