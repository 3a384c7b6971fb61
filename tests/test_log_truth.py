"""The log is the whole truth: it carries its rules, fold refuses a log with a hole in it, records say how to
read them, re-deciding a log gives exactly its events, legality has one source, and logs of schema 1 still
load (through the upcaster)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from locm.events.locm.catalog import (
    ACTION, END_TURN, LINE, SCHEMA_VERSION, ActionReceived, CardDrawn, CreatureSummoned, DrawBonus, GameCreated,
    PlayerDamaged, RuneBroken, TurnStarted,
)
from locm.events.locm.codec import from_jsonl, to_json, to_jsonl
from locm.engine.locm.agents import PassAgent, RandomAgent
from locm.engine.locm.playing import play
from locm.engine.locm.commands import Attack, EndTurn, Pass, Summon, Use
from locm.engine.locm.decide import decide
from locm.engine.errors import InvalidLogError
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.history import History
from locm.engine.locm.definition import GAME as LOCM
from locm.engine.locm.legal import legal_actions, problem
from locm.engine.locm.redecide import redecide
from locm.engine.locm.rulesets import RULES_12, RULES_CONSTRUCTED, by_name
from locm.engine.locm.state import BATTLE
from locm.engine.locm.upcast import upcast
from locm.games.locm.play import play_one
from tests.scenario import Position, card
from locm.engine.locm.definition import GAME as LOCM_GAME

GOLDEN = Path(__file__).parent / "golden"
RULESETS = ("1.2", "constructed")
_replace = msgspec.structs.replace


def _played(ruleset="1.2", seed=5, agents=("greedy", "random")) -> Game:
    return play_one(ruleset, seed, agents)


# --- the ruleset travels in the log ---------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_game_created_carries_the_full_resolved_rules(ruleset):
    game = _played(ruleset)
    created = game.log[0]
    assert created.rules == by_name(ruleset) and created.schema_version == SCHEMA_VERSION
    decoded = from_jsonl(to_jsonl(game.log))
    assert decoded[0].rules == by_name(ruleset)


def test_a_custom_ruleset_is_honoured_by_game_new_and_every_later_fold():
    mine = RULES_12.replace(name="house rules", start_health=20, runes=(15, 10, 5), hand_limit=6)
    game = Game.new(mine, seed=11, agents=("random", "random"))
    assert [p.health for p in game.state.players] == [20, 20]
    play(game, (RandomAgent(1), RandomAgent(2)))
    assert max(len(p.hand) for p in game.state.players) <= 6
    log = from_jsonl(to_jsonl(game.log))  # through the codec, as a stored log
    assert log[0].rules == mine and log[0].ruleset == "house rules"
    folded = fold(log)
    assert folded == game.state and folded.rules == mine  # no lookup of "house rules" by name (it would raise)
    history = History(LOCM, log)
    first_turn = next(e.seq for e in log if type(e) is TurnStarted)
    assert [p.health for p in history.state_at(first_turn).players] == [20, 20]
    assert Game.from_log(log).state == game.state
    result = redecide(log)
    assert result.ok and result.strict, result.divergence


def test_a_changed_rule_in_the_log_changes_the_fold_not_the_builtin_ruleset():
    game = _played("1.2", 3)
    created = game.log[0]
    log = [_replace(created, rules=created.rules.replace(start_health=25))] + game.log[1:]
    first_turn = next(e.seq for e in log if type(e) is TurnStarted)
    assert History(LOCM, log).state_at(first_turn).players[0].health == 25
    # and re-deciding that log shows where the changed rule makes the recorded events wrong (or the end)
    assert not redecide(log).ok


# --- fold checks what it folds ----------------------------------------------------------------------------


def test_fold_refuses_a_log_with_one_event_dropped():
    log = _played().log
    k = 200
    with pytest.raises(InvalidLogError, match=f"^seq {k + 1}: expected seq {k} here") as info:
        fold(log[:k] + log[k + 1:])
    assert info.value.seq == k + 1


def test_fold_refuses_a_log_with_two_events_swapped():
    log = _played().log
    k = 150
    swapped = log[:k] + [log[k + 1], log[k]] + log[k + 2:]
    with pytest.raises(InvalidLogError, match=f"^seq {k + 1}: expected seq {k} here"):
        fold(swapped)
    with pytest.raises(InvalidLogError):
        History(LOCM, swapped).final()


def test_fold_refuses_a_cause_that_is_not_an_earlier_event():
    log = _played().log
    k = 120
    for bad in (k, k + 5, -2):
        with pytest.raises(InvalidLogError, match=f"^seq {k}: its cause {bad} is not an earlier event"):
            fold(log[:k] + [_replace(log[k], cause=bad)] + log[k + 1:])


def test_fold_refuses_a_log_not_starting_with_game_created():
    log = _played().log
    with pytest.raises(InvalidLogError, match="must start with a game_created"):
        fold(log[1:])
    with pytest.raises(InvalidLogError, match="log is empty"):
        fold([])


# --- records say how to read them; re-deciding gives exactly the log ----------------------------------------


def test_records_of_agents_and_of_bots_are_distinguishable():
    game = _played("1.2", 9, ("random", "greedy"))
    kinds = {e.kind for e in game.log if type(e) is ActionReceived}
    assert kinds == {ACTION, END_TURN}
    ends = [e for e in game.log if type(e) is ActionReceived and e.kind == END_TURN]
    assert ends and all(e.text == "PASS" for e in ends)
    # an answer line "PASS" (a bot ending its turn) is a line record; an action PASS is an action record
    game = Game.new("1.2", 9)
    while game.phase != BATTLE:
        game.answer(game.to_move, "PASS")
    line = game.answer(game.to_move, "PASS")[0]
    action = game.submit(Pass())[0]
    assert (line.kind, line.text) == (LINE, "PASS") and (action.kind, action.text) == (ACTION, "PASS")
    assert len(game.submit(EndTurn())) > 2 and game.log[action.seq + 1].kind == END_TURN


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_played_game_redecides_byte_for_byte(ruleset, seed):
    for agents in (("greedy", "random"), ("random", "random"), ("pass", "greedy")):
        result = redecide(play_one(ruleset, seed, agents).log)
        assert result.ok and result.strict and result.inputs > 0, result.divergence


def test_redecide_names_the_first_event_the_rules_do_not_give():
    log = _played("constructed", 4).log
    k = next(i for i, e in enumerate(log) if type(e) is PlayerDamaged and e.source == "attack")
    cheat = log[:k] + [_replace(log[k], amount=log[k].amount + 3)] + log[k + 1:]
    result = redecide(cheat)
    assert not result.ok and result.divergence.seq == k
    assert result.divergence.stored == to_json(cheat[k]).decode()
    assert result.divergence.decided == to_json(log[k]).decode()
    assert str(result.divergence).startswith(f"seq {k}: the event differs from what the rules give")


def test_redecide_refuses_events_that_no_input_caused_and_logs_cut_short():
    log = _played("1.2", 4).log
    extra = _replace(log[-1], seq=len(log), cause=-1)
    assert "not caused by a recorded input" in str(redecide(log[:-1] + [_replace(log[-1], cause=-1)]).divergence) \
        or not redecide(log[:-1] + [_replace(log[-1], cause=-1)]).ok
    assert "the game is over here" in str(redecide(log + [extra]).divergence)
    k = max(i for i, e in enumerate(log) if type(e) is ActionReceived)
    cut = redecide(log[:k])
    assert not cut.ok and "the log ends before the game does" in str(cut.divergence)


def test_redecide_replays_a_timeout_and_a_hard_error():
    game = Game.new("constructed", 8)
    game.answer(0, "PASS")
    game.forfeit(1, "timeout")
    assert redecide(game.log).ok
    game = Game.new("1.2", 8)
    game.answer(0, "PICK 7")
    assert game.ended and redecide(game.log).ok


# --- schema 1 logs still load -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((GOLDEN / "v1").glob("*.jsonl")), ids=lambda p: p.stem)
def test_schema_1_golden_logs_are_upcast_and_agree_with_schema_2(path):
    old = from_jsonl(path.read_bytes())
    assert old[0].schema_version == 1 and old[0].rules is None
    new = from_jsonl((GOLDEN / path.name).read_bytes())
    assert new[0].schema_version == SCHEMA_VERSION
    up = upcast(old)
    assert [e.seq for e in up] == [e.seq for e in old]
    assert up[0].rules == by_name(old[0].ruleset)
    assert fold(old) == fold(new)  # the same game, read from either schema
    # schema 1 cannot tell a built-in agent's pick or end of turn from a bot's line; read as lines they decide
    # to the same events. One battle action of an agent is told apart (no turn end among its facts).
    up_kinds = {e.seq: e.kind for e in up if type(e) is ActionReceived}
    new_kinds = {e.seq: e.kind for e in new if type(e) is ActionReceived}
    assert up_kinds.keys() == new_kinds.keys()
    assert {s for s, k in up_kinds.items() if k == ACTION} <= {s for s, k in new_kinds.items() if k == ACTION}
    assert all(k == LINE for s, k in up_kinds.items() if new_kinds[s] == END_TURN)
    assert [e.can_attack for e in up if type(e) is CreatureSummoned] == \
           [e.can_attack for e in new if type(e) is CreatureSummoned]
    assert [(e.ready, e.cleared) for e in up if type(e) is TurnStarted] == \
           [(e.ready, e.cleared) for e in new if type(e) is TurnStarted]
    result = redecide(old)
    assert result.ok and not result.strict and result.schema == 1, result.divergence


# --- decided values travel in the events ------------------------------------------------------------------


def test_evolve_applies_the_readiness_the_event_carries():
    pos = Position()
    charger = pos.in_hand(0, card(10, cost=1, attack=2, defense=2, keywords=2))  # Charge
    game = pos.game()
    events = game.submit(Summon(charger, 0))
    summoned = next(e for e in events if type(e) is CreatureSummoned)
    assert summoned.can_attack is True and game.state.units[charger].can_attack
    # evolve follows the event, not the keyword: the same log with the fact changed folds to that fact
    log = [e if e is not summoned else _replace(e, can_attack=False) for e in game.log]
    assert not fold(log).units[charger].can_attack


def test_turn_start_names_the_creatures_it_readies_and_clears():
    pos = Position()
    mine = pos.on_board(0, card(11, attack=1, defense=3))
    theirs = pos.on_board(1, card(12, attack=1, defense=3))
    game = pos.game()
    game.submit(Attack(mine, -1))
    started = next(e for e in game.end_turn() if type(e) is TurnStarted)
    assert (started.player, started.ready, started.cleared) == (1, (theirs,), (mine,))
    assert game.state.units[theirs].can_attack and not game.state.units[mine].has_attacked


def test_the_last_pick_ends_the_draft_in_the_event():
    game = Game.new("1.2", 5)
    while game.phase != BATTLE:
        game.answer(game.to_move, "PICK 0")
    picks = [e for e in game.log if type(e).__name__ == "CardPicked"]
    assert [e.ends_phase for e in picks] == [False] * 59 + [True]


# --- one source for legality ------------------------------------------------------------------------------


def test_legal_actions_is_an_immutable_value_and_decide_never_writes_the_state():
    game = _battle_game()
    acts = game.legal_actions()
    assert isinstance(acts, tuple) and acts
    with pytest.raises((TypeError, AttributeError)):
        acts.clear()  # type: ignore[attr-defined]
    before = game.state.key()
    copy = game.state.copy()
    for action in acts:
        decide(game.state, action)
    assert game.state.key() == before and game.state == copy
    assert not [name for name in dir(game.state) if "legal" in name]  # the position knows nothing of legality


def _kept_is_fresh(game: Game) -> None:
    assert game.legal_actions() == legal_actions(game.state), game.state.seq


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_list_a_game_keeps_between_events_is_the_fresh_one_after_every_input(ruleset):
    """The game's `LegalCache` against the list built from the state alone, after every command, every answer
    line (several actions, some refused by their turn) and every turn of the greedy and look-ahead agents."""
    import random

    from locm.engine.locm.agents import GreedyAgent
    from locm.engine.locm.lookahead import LookaheadAgent

    for seed in range(12):
        rng = random.Random(seed)
        game = Game.new(ruleset, seed)
        drafters = (RandomAgent(seed), RandomAgent(seed + 1))
        while game.phase != BATTLE:
            drafters[game.to_move].play_turn(game, game.to_move)
        others = (GreedyAgent(), LookaheadAgent(seed))
        while not game.ended:
            _kept_is_fresh(game)
            acts = game.legal_actions()
            k = rng.randrange(10)
            if k == 0:
                others[seed % 2].play_turn(game, game.to_move)
            elif k == 1:
                chosen = rng.sample(acts, min(len(acts), 4))
                game.answer(game.to_move, ";".join(a.text() for a in chosen) or "PASS")
            elif k == 2 or not acts:
                game.end_turn()
            else:
                game.submit(rng.choice(acts))
        _kept_is_fresh(game)


def test_the_kept_list_counts_every_death_of_a_batch_in_a_full_lane():
    """Two creatures of a full lane of the player to move die in one batch of events: the lane had room for
    no summon before the batch and has after it, so the kept summons must be built again (the first death
    freed it; the second finds the lane not full)."""
    from locm.events.locm.catalog import CreatureDied

    pos = Position()
    mine = [pos.on_board(0, card(20 + k), lane=0) for k in range(3)]
    pos.in_hand(0, card(30, cost=1))
    game = pos.game()
    assert not any(type(a) is Summon and a.lane == 0 for a in game.legal_actions())
    seq = game.state.seq
    game._apply([CreatureDied(seq=seq, cause=-1, rule="TEST", id=mine[0]),
                 CreatureDied(seq=seq + 1, cause=-1, rule="TEST", id=mine[1])])
    assert any(type(a) is Summon and a.lane == 0 for a in game.legal_actions())
    _kept_is_fresh(game)


def test_the_kept_list_of_a_state_changed_behind_its_back_is_built_again():
    from locm.engine.locm.evolve import apply_all

    game = _battle_game()
    kept = game.legal_actions()
    other = Game(game.state.copy(), list(game.log))
    events = other.end_turn()
    apply_all(game.state, events)  # the state moves on without the game's cache seeing the events
    assert game.legal_actions() == legal_actions(game.state) != kept


def test_a_full_lane_is_the_only_reason_a_summon_is_refused_for_its_lane():
    pos = Position()
    for k in range(3):
        pos.on_board(0, card(20 + k), lane=0)
    new = pos.in_hand(0, card(30, cost=1))
    game = pos.game()
    assert problem(game.state, Summon(new, 0)) == "lane 0 already holds 3 creatures"
    assert problem(game.state, Summon(new, 1)) is None
    events = game.submit(Summon(new, 1))
    assert any(type(e) is CreatureSummoned for e in events)


def _battle_game(ruleset="1.2", seed=21, turns=6) -> Game:
    game = Game.new(ruleset, seed)
    agents = (RandomAgent(seed), RandomAgent(seed + 1))
    while game.phase != BATTLE:
        agents[game.to_move].play_turn(game, game.to_move)
    for _ in range(turns):
        if game.ended:
            break
        agents[game.to_move].play_turn(game, game.to_move)
    return game


def _candidates(state) -> list:
    p = state.current
    me, op = state.players[p], state.players[1 - p]
    ids = sorted(state.units) + [0, 999, -1]
    targets = [-1, 999] + [u.id for u in op.board] + [u.id for u in me.board]
    out = []
    for i in ids:
        out += [Summon(i, lane) for lane in (-1, 0, 1, 2)]
        out += [Use(i, t) for t in targets]
        out += [Attack(i, t) for t in targets]
    return out


@settings(deadline=None, max_examples=40)
@given(ruleset=st.sampled_from(RULESETS), seed=st.integers(0, 10_000), turns=st.integers(0, 30))
def test_the_legal_list_and_the_refusal_reasons_come_from_the_same_predicates(ruleset, seed, turns):
    game = _battle_game(ruleset, seed, turns)
    if game.ended:
        return
    state = game.state
    kept = game.legal_actions()  # the list the game keeps: decide trusts an action found in it
    legal = set(legal_actions(state))
    assert set(kept) == legal
    for action in _candidates(state):
        reason = problem(state, action)
        assert (reason is None) == (action in legal), (action, reason)
        events = decide(state, action)  # no list given: decide runs `problem` on every action
        assert decide(state, action, -1, kept) == events, action
        rejected = [e for e in events if type(e).__name__ == "ActionRejected"]
        if reason is None:
            assert not rejected
        else:
            assert len(rejected) == 1 and rejected[0].reason == reason


# --- the 1.2 turn limit ----------------------------------------------------------------------------------------


def test_12_turn_limit_breaks_a_rune_per_draw_and_gives_no_bonus_draw():
    """R-DRAW (1.2): from the player's own turn `turn_limit` on, each draw costs the next rune instead of a card
    (the official limit is 50; the log's own `turn_limit` makes it reachable in a test)."""
    game = Game.new(RULES_12.replace(name="limit-2", turn_limit=2), seed=13)
    play(game, (PassAgent(), PassAgent()))
    starts = [e for e in game.log if type(e) is TurnStarted]
    p0_third = next(e for e in starts if e.player == 0 and e.turn == 4)  # player 0's third turn (index 2)
    after = game.log[p0_third.seq + 1:]
    nxt = next(i for i, e in enumerate(after) if type(e) is not PlayerDamaged and type(e) is not RuneBroken)
    own = after[:nxt]
    assert [type(e) for e in own] == [PlayerDamaged, RuneBroken]
    assert own[0].source == "turn_limit" and own[0].amount == 30 - 25 and own[1].rune == 25
    assert not any(type(e) is CardDrawn and e.player == 0 and e.seq > p0_third.seq for e in game.log)
    assert not any(type(e) is DrawBonus and e.seq > p0_third.seq and e.player == 0 and e.source == "rune"
                   for e in game.log)
    assert game.ended and redecide(game.log).ok


def test_builtin_rulesets_are_the_official_values():
    assert RULES_12.start_health == 30 and RULES_12.turn_limit == 50 and RULES_12.draft_rounds == 30
    assert RULES_CONSTRUCTED.max_copies == 2 and RULES_CONSTRUCTED.runes == ()


def test_game_created_without_rules_in_a_current_schema_log_is_refused():
    created = GameCreated(seq=0, cause=-1, rule="R-SEEDS", ruleset="1.2", ruleset_version="1.2", seed=1,
                          shuffle_player0_seed=1, shuffle_player1_seed=2)
    with pytest.raises(InvalidLogError, match="carries no rules"):
        fold([created])


def test_a_stored_custom_ruleset_game_verifies_with_the_logs_own_rules(tmp_path):
    from locm.store.eventstore import GameExtras, open_store
    from locm.games.locm.tournament import check_stored_game, game_id

    mine = RULES_CONSTRUCTED.replace(name="constructed-25", start_health=25)
    game = Game.new(mine, seed=17, agents=("greedy", "random"))
    from locm.engine.locm.agents import make_agent, seat_seed

    play(game, (make_agent("greedy", seat_seed(17, 0)), make_agent("random", seat_seed(17, 1))))  # the agents
    # it names: `locm verify` re-runs them
    gid = game_id(mine, 17, ("greedy", "random"))
    with open_store(tmp_path / "s.db") as store:
        store.append_game(LOCM_GAME, GameExtras(game_id=gid), game.log)
    with open_store(tmp_path / "s.db", readonly=True) as store:
        record = store.game(gid)
        assert record.ruleset == "constructed-25"
        events = store.events(gid)
        assert events[0].rules == mine and fold(events) == game.state
        assert check_stored_game(store, record) is None
