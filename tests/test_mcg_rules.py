"""my-card-game rule scenarios, each citing the rule of data/mcg/RULES.md it pins down."""

from __future__ import annotations

import pytest

from locm.engine.errors import CommandError
from locm.engine.mcg.commands import Attack, BadAnswer, ChooseStarter, EndTurn, Mulligan, Play, Surrender
from locm.engine.mcg.game import McgGame, outcome
from locm.engine.mcg.legal import legal_actions, problem
from locm.engine.mcg.rules import STANDARD
from locm.engine.mcg.state import MAIN, MULLIGAN
from locm.events.mcg.catalog import (
    ActionRejected, CardBurned, CardDrawn, CardsReturned, CoinFlipped, DeckShuffled, EffectFizzled,
    EffectTriggered, FatigueTaken, GameEnded, MonsterDamaged, MonsterDied, MonsterSummoned, MulliganChosen,
    PlayerDamaged, StarterChosen, StatsChanged, TurnStarted,
)
from locm.events.mcg.rules import EndPhaseEffect
from tests.mcg_helpers import Position, equipment, fx, monster, spell


def of(events, cls):
    return [e for e in events if type(e) is cls]


# --- R-ATTACK --------------------------------------------------------------------------------------------------


def test_the_texts_first_example_damage_is_power_minus_toughness():
    """R-ATTACK: monster #1 (8/2/1) attacks monster #2 (2/4/5): 8 - 4 = 4, so #2 is left with 1 health."""
    pos = Position()
    a = pos.on_board(0, monster(8, 2, 1))
    d = pos.on_board(1, monster(2, 4, 5))
    game = pos.game()
    events = game.submit(Attack(0, a, d))
    assert [(e.id, e.amount, e.reflected) for e in of(events, MonsterDamaged)] == [(d, 4, False)]
    assert game.state.monsters[d].health == 1 and game.state.monsters[a].health == 1  # no counter-attack


def test_the_texts_second_example_negative_damage_hurts_the_attacker():
    """R-ATTACK: monster #3 (2/1/9) attacks #4 (4/6/6): 2 - 6 = -4 hurts the attacker, 9 - 4 = 5; #4 unscathed."""
    pos = Position()
    a = pos.on_board(0, monster(2, 1, 9))
    d = pos.on_board(1, monster(4, 6, 6))
    game = pos.game()
    events = game.submit(Attack(0, a, d))
    assert [(e.id, e.amount, e.reflected) for e in of(events, MonsterDamaged)] == [(a, 4, True)]
    assert game.state.monsters[a].health == 5 and game.state.monsters[d].health == 6


def test_zero_damage_changes_nothing_and_reflection_can_kill_the_attacker():
    """R-ATTACK, R-DEATH: power = toughness deals nothing; a reflected hit kills the attacker like any damage."""
    pos = Position()
    a = pos.on_board(0, monster(3, 0, 2))
    b = pos.on_board(0, monster(1, 0, 2))
    d = pos.on_board(1, monster(0, 3, 1))
    game = pos.game()
    assert not of(game.submit(Attack(0, a, d)), MonsterDamaged)
    events = game.submit(Attack(0, b, d))
    assert [e.id for e in of(events, MonsterDied)] == [b]
    assert b not in game.state.monsters and b in game.state.players[0].graveyard


def test_a_player_takes_the_attackers_power():
    """R-ATTACK: damage to a player = power (a player has no toughness)."""
    pos = Position()
    a = pos.on_board(0, monster(5, 9, 1))
    game = pos.game()
    events = game.submit(Attack(0, a, 1))
    assert [(e.player, e.amount) for e in of(events, PlayerDamaged)] == [(1, 5)]


def test_a_monster_attacks_once_a_turn_not_when_summoned_and_only_enemies():
    """R-ATTACK: once a turn; not in the turn it is summoned; an enemy monster or the enemy player only."""
    pos = Position()
    a = pos.on_board(0, monster(1, 0, 5))
    own = pos.on_board(0, monster(1, 0, 5))
    new = pos.on_board(0, monster(1, 0, 5), fresh=True)
    game = pos.game()
    s = game.state
    assert "summoned this turn" in problem(s, Attack(0, new, 1))
    assert "enemy" in problem(s, Attack(0, a, own)) and "enemy" in problem(s, Attack(0, a, 0))
    game.submit(Attack(0, a, 1))
    assert "already attacked" in problem(game.state, Attack(0, a, 1))
    rejected = of(game.submit(Attack(0, a, 1)), ActionRejected)
    assert rejected and "already attacked this turn (R-ATTACK)" in rejected[0].reason


# --- R-SUMMON, R-PLAY, R-MANA ---------------------------------------------------------------------------------


def test_five_monsters_a_side_and_mana_pays_for_cards():
    """R-SUMMON: a side holds 5 monsters; R-MANA: a card needs mana >= cost and mana never goes negative."""
    pos = Position(mana=3)
    for _ in range(5):
        pos.on_board(0, monster())
    m = pos.in_hand(0, monster(cost=0))
    expensive = pos.in_hand(0, spell(fx("draw", "own_player", amount=1), cost=4))
    cheap = pos.in_hand(0, spell(fx("draw", "own_player", amount=1), cost=3))
    for _ in range(3):
        pos.in_deck(0, monster())
    game = pos.game()
    assert "already holds 5 monsters (R-SUMMON)" in problem(game.state, Play(0, m))
    assert "costs 4 mana, seat 0 has 3 (R-MANA)" in problem(game.state, Play(0, expensive))
    game.submit(Play(0, cheap))
    assert game.state.players[0].mana == 0


def test_mana_is_one_and_two_by_seat_grows_to_twelve_and_refills():
    """R-MANA: 1 for the starting player, 2 for the other, +1 a turn up to 12, refilled every turn."""
    game = McgGame.new(seeds=5, first=1)
    game.submit(Mulligan(1))
    game.submit(Mulligan(0))
    seen: dict[int, list[int]] = {0: [], 1: []}
    while not game.ended and game.state.turn < 40:
        s = game.state
        seen[s.current].append(s.players[s.current].mana)
        game.submit(EndTurn(s.current))
    assert seen[1][:13] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12]
    assert seen[0][:12] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12]


def test_equipment_boosts_power_and_toughness_of_any_monster():
    """R-EQUIP: equipment raises power and toughness (never health), on an own or an enemy monster."""
    pos = Position()
    sword = pos.in_hand(0, equipment(power=2, toughness=1))
    enemy = pos.on_board(1, monster(1, 1, 3))
    game = pos.game()
    assert "needs a target" in problem(game.state, Play(0, sword))
    events = game.submit(Play(0, sword, enemy))
    assert [(e.id, e.power, e.toughness) for e in of(events, StatsChanged)] == [(enemy, 2, 1)]
    m = game.state.monsters[enemy]
    assert (m.power, m.toughness, m.health, m.max_health) == (3, 2, 3, 3)
    assert sword in game.state.players[0].graveyard


def test_a_spell_is_played_on_a_target_of_its_kind():
    """R-SPELL: a targeted spell needs a target of the kind the card names; an untargeted one takes none."""
    pos = Position()
    zap = pos.in_hand(0, spell(fx("damage", "target", amount=2), target="enemy_monster"))
    rain = pos.in_hand(0, spell(fx("heal", "own_player", amount=2)))
    own = pos.on_board(0, monster(health=3))
    enemy = pos.on_board(1, monster(health=3))
    game = pos.game()
    s = game.state
    assert problem(s, Play(0, zap, own)).endswith("(R-SPELL, R-EQUIP)")
    assert problem(s, Play(0, zap, 1)) is not None and problem(s, Play(0, zap, enemy)) is None
    assert "takes no target" in problem(s, Play(0, rain, 1))
    legal = legal_actions(s)
    assert Play(0, zap, enemy) in legal and Play(0, zap, own) not in legal and Play(0, rain) in legal


# --- R-HEAL, R-DAMAGE, R-FX-* ----------------------------------------------------------------------------------


def test_health_never_exceeds_its_maximum_unless_the_maximum_rises():
    """R-HEAL, R-FX-MAXHEALTH: a heal gives back what is missing only; raising the maximum raises health."""
    pos = Position()
    hurt = pos.on_board(0, monster(health=5))
    mend = pos.in_hand(0, spell(fx("heal", "target", amount=9), target="monster"))
    grow = pos.in_hand(0, spell(fx("raise_max_health", "target", amount=3), target="own_monster"))
    hit = pos.in_hand(0, spell(fx("damage", "target", amount=4), target="monster"))
    game = pos.game()
    game.submit(Play(0, hit, hurt))
    assert game.state.monsters[hurt].health == 1
    game.submit(Play(0, mend, hurt))
    assert game.state.monsters[hurt].health == 5
    game.submit(Play(0, grow, hurt))
    m = game.state.monsters[hurt]
    assert (m.health, m.max_health) == (8, 8)


def test_effect_damage_ignores_toughness_and_toughness_stops_at_zero():
    """R-DAMAGE: an effect's damage goes straight to health; R-FX-TOUGHNESS: toughness never goes below 0."""
    pos = Position()
    bolt = pos.in_hand(0, spell(fx("damage", "target", amount=3), target="enemy_monster"))
    acid = pos.in_hand(0, spell(fx("reduce_toughness", "target", amount=20), target="enemy_monster"))
    wall = pos.on_board(1, monster(0, 9, 10))
    game = pos.game()
    game.submit(Play(0, bolt, wall))
    assert game.state.monsters[wall].health == 7
    events = game.submit(Play(0, acid, wall))
    assert [(e.power, e.toughness) for e in of(events, StatsChanged)] == [(0, -9)]
    assert game.state.monsters[wall].toughness == 0


def test_a_player_has_no_maximum_health():
    """R-PLAYER, R-HEAL: a player's health rises without limit."""
    pos = Position()
    big = pos.in_hand(0, spell(fx("heal", "own_player", amount=50)))
    game = pos.game()
    game.submit(Play(0, big))
    assert game.state.players[0].health == 80


def test_death_effects_chain_in_order_and_an_audit_can_walk_the_chain():
    """R-ORDER, R-DEATH: a spell kills a Plague Rat-like monster whose death damages every monster, which kills
    another whose death hits the enemy player; every result names its trigger, back to the command."""
    pos = Position()
    bomb = pos.in_hand(0, spell(fx("damage", "target", amount=1), target="enemy_monster"))
    hound = pos.on_board(0, monster(health=1, effects=(fx("damage", "enemy_player", on="death", amount=2),)))
    rat = pos.on_board(1, monster(health=1, effects=(fx("damage", "all_monsters", on="death", amount=1),)))
    game = pos.game()
    events = game.submit(Play(0, bomb, rat))
    assert [e.id for e in of(events, MonsterDied)] == [rat, hound]
    hit = of(events, PlayerDamaged)
    assert [(e.player, e.amount) for e in hit] == [(1, 2)]
    by_seq = {e.seq: e for e in game.log}
    chain = []
    e = hit[0]
    while e.cause != -1:
        e = by_seq[e.cause]
        chain.append(type(e).__name__)
    assert chain == ["EffectTriggered", "MonsterDied", "MonsterDamaged", "EffectTriggered", "MonsterDied",
                     "MonsterDamaged", "EffectTriggered", "CardPlayed", "CommandReceived"]


def test_simultaneous_deaths_go_enemy_side_first_and_a_dead_source_fizzles_self_effects():
    """R-ORDER 2-4: an effect on all monsters hits the enemy side first, deaths follow that order; an effect on
    `self` of a monster no longer on the board fizzles."""
    pos = Position()
    wipe = pos.in_hand(0, spell(fx("damage", "all_monsters", amount=5)))
    mine = pos.on_board(0, monster(health=1, effects=(fx("heal", "self", on="death", amount=1),)))
    theirs = pos.on_board(1, monster(health=1))
    game = pos.game()
    events = game.submit(Play(0, wipe))
    assert [e.id for e in of(events, MonsterDamaged)] == [theirs, mine]
    assert [e.id for e in of(events, MonsterDied)] == [theirs, mine]
    assert [e.reason for e in of(events, EffectFizzled)] == ["no target"]


def test_both_players_at_zero_the_first_by_the_order_of_operations_loses():
    """R-WIN: an effect on both players hits the enemy first; the enemy reaches 0 first and loses, even though
    the caster reaches 0 in the same action (nothing resolves after the end)."""
    pos = Position()
    pos.health = [5, 5]
    pact = pos.in_hand(0, spell(fx("damage", "both_players", amount=10)))
    game = pos.game()
    events = game.submit(Play(0, pact))
    assert [(e.winner, e.reason) for e in of(events, GameEnded)] == [(0, "health")]
    assert [e.player for e in of(events, PlayerDamaged)] == [1]  # the caster's damage never resolved


def test_tokens_join_while_there_is_room_and_cannot_attack_at_once():
    """R-FX-SUMMON: tokens join the side while it has room (the rest fizzle); R-ATTACK: not in their first turn."""
    pos = Position()
    token = monster(2, 0, 1, token=True)
    pos.extra.append(token)
    for _ in range(3):
        pos.on_board(0, monster())
    call = pos.in_hand(0, spell(fx("summon", "own_player", card=token.id, count=3)))
    game = pos.game()
    events = game.submit(Play(0, call))
    new = [e.id for e in of(events, MonsterSummoned)]
    assert len(new) == 2 and all(e.token for e in of(events, MonsterSummoned))
    assert [e.reason for e in of(events, EffectFizzled)] == ["board full"]
    assert len(game.state.players[0].board) == 5
    assert "summoned this turn" in problem(game.state, Attack(0, new[0], 1))


def test_destroy_defeats_and_triggers_death_effects():
    """R-FX-DESTROY: the monster is defeated at once; its death effects trigger."""
    pos = Position()
    kill = pos.in_hand(0, spell(fx("destroy", "target"), target="enemy_monster"))
    victim = pos.on_board(1, monster(health=50, effects=(fx("damage", "enemy_player", on="death", amount=3),)))
    game = pos.game()
    events = game.submit(Play(0, kill, victim))
    assert [(e.id, e.destroyed) for e in of(events, MonsterDied)] == [(victim, True)]
    assert [(e.player, e.amount) for e in of(events, PlayerDamaged)] == [(0, 3)]


def test_random_targets_are_recorded_and_redrawn_from_the_trigger():
    """R-RNG: a random enemy monster is drawn from the trigger's seq; the event names the one hit."""
    pos = Position()
    shot = pos.in_hand(0, spell(fx("damage", "random_enemy_monster", amount=1)))
    targets = [pos.on_board(1, monster(health=3)) for _ in range(4)]
    game = pos.game()
    events = game.submit(Play(0, shot))
    (hit,) = of(events, MonsterDamaged)
    again = pos.game().submit(Play(0, shot))
    assert hit.id in targets and of(again, MonsterDamaged) == [hit]


# --- R-TURN-FX, R-END-PHASE, R-DRAW, R-HAND, R-FATIGUE ---------------------------------------------------------


def test_turn_effects_trigger_at_the_end_of_their_controllers_turn_only():
    """R-TURN-FX: seat 0's monster acts at the end of seat 0's turn, not at the end of seat 1's."""
    pos = Position()
    pos.on_board(0, monster(effects=(fx("damage", "enemy_player", on="turn", amount=2),)))
    for seat in (0, 1):
        for _ in range(3):
            pos.in_deck(seat, monster())
    game = pos.game()
    events = game.submit(EndTurn(0))
    assert [(e.player, e.amount) for e in of(events, PlayerDamaged)] == [(1, 2)]
    assert of(events, TurnStarted)[0].player == 1
    events = game.submit(EndTurn(1))
    assert not of(events, PlayerDamaged)


def test_the_thirteenth_card_goes_to_the_graveyard():
    """R-HAND: with 12 cards in hand a drawn card is burned, not kept."""
    pos = Position()
    for _ in range(12):
        pos.in_hand(1, monster(cost=9))
    top = pos.in_deck(1, monster())
    game = pos.game()
    events = game.submit(EndTurn(0))
    assert [(e.player, e.id) for e in of(events, CardBurned)] == [(1, top)]
    assert len(game.state.players[1].hand) == 12 and top in game.state.players[1].graveyard


def test_fatigue_is_one_then_two_then_three():
    """R-FATIGUE: each draw from an empty deck hurts more: 1, 2, 3, …; a draw effect counts too."""
    pos = Position()
    study = pos.in_hand(0, spell(fx("draw", "own_player", amount=2)))
    game = pos.game()
    events = game.submit(Play(0, study))
    assert [e.amount for e in of(events, FatigueTaken)] == [1, 2]
    game.submit(EndTurn(0))
    events = game.submit(EndTurn(1))
    assert [e.amount for e in of(events, FatigueTaken)] == [3]
    assert game.state.players[0].health == 30 - 6


def test_fatigue_can_end_the_game_at_the_start_of_a_turn():
    """R-FATIGUE, R-WIN: the draw of the turn's start can be the last thing that happens."""
    pos = Position()
    pos.health = [30, 1]
    game = pos.game()
    events = game.submit(EndTurn(0))
    assert [(e.winner, e.reason) for e in of(events, GameEnded)] == [(0, "health")]


# --- R-COIN, R-SERIES, R-OPENING, R-MULLIGAN -------------------------------------------------------------------


def test_the_coin_winner_chooses_who_starts():
    """R-COIN: the coin's winner (recorded) chooses; only they may; the chosen seat starts with 5 cards each."""
    game = McgGame.new(seeds=11)
    (coin,) = of(game.log, CoinFlipped)
    w = coin.winner
    assert game.to_move == w
    with pytest.raises(CommandError):
        game.submit(ChooseStarter(1 - w, 0))
    events = game.submit(ChooseStarter(w, 1 - w))
    assert of(events, StarterChosen)[0].first == 1 - w and game.state.phase == MULLIGAN
    assert game.to_move == 1 - w
    assert [len(p.hand) for p in game.state.players] == [5, 5]


def test_a_series_gives_the_first_turn_and_flips_no_coin():
    """R-SERIES: with `first` given there is no coin; that seat mulligans and plays first."""
    game = McgGame.new(seeds=11, first=1)
    assert not of(game.log, CoinFlipped) and game.to_move == 1
    assert of(game.log, StarterChosen)[0].player == -1


def test_a_best_of_three_alternates_the_starting_seat():
    """R-SERIES: the coin decides the first match only; then the seat that did not start starts."""
    from locm.engine.mcg.game import next_first, play_match

    previous = play_match(seeds=21, agents=("random", "greedy"))
    starters = [previous.state.first]
    for seed in (22, 23):
        previous = play_match(seeds=seed, agents=("random", "greedy"), first=next_first(previous.state))
        assert not of(previous.log, CoinFlipped)
        starters.append(previous.state.first)
    assert starters == [starters[0], 1 - starters[0], starters[0]]


def test_one_mulligan_of_up_to_three_draws_first_then_shuffles_back():
    """R-MULLIGAN: up to 3 cards go back, replacements are drawn before the returned cards are shuffled in,
    only once; the other seat then decides, then the first turn starts."""
    game = McgGame.new(seeds=3, first=0)
    hand = sorted(game.state.players[0].hand)
    assert "at most 3" in problem(game.state, Mulligan(0, tuple(hand[:4])))
    top = game.state.players[0].deck[:2]
    events = game.submit(Mulligan(0, tuple(hand[:2])))
    kinds = [type(e) for e in events[2:]]
    assert kinds == [CardDrawn, CardDrawn, CardsReturned, DeckShuffled]
    assert [e.id for e in of(events, CardDrawn)] == top
    assert of(events, MulliganChosen)[0].returned == tuple(hand[:2])
    assert len(game.state.players[0].hand) == 5 and set(hand[:2]) <= set(game.state.players[0].deck)
    assert game.to_move == 1
    game.submit(Mulligan(1))
    assert game.state.phase == MAIN and game.state.turn == 1 and game.to_move == 0
    assert "an action of the mulligan phase" in problem(game.state, Mulligan(0))


def test_a_draw_starts_every_turn_the_first_included():
    """R-DRAW: the first turn starts with a draw too."""
    game = McgGame.new(seeds=4, first=0)
    game.submit(Mulligan(0))
    events = game.submit(Mulligan(1))
    started = of(events, TurnStarted)[0]
    assert [(e.player, e.cause) for e in of(events, CardDrawn)] == [(0, started.seq)]
    assert len(game.state.players[0].hand) == 6


# --- R-SURRENDER, R-INACTIVE, R-ANSWER, R-REJECT, R-CAP ----------------------------------------------------


def test_surrender_at_any_time_by_either_seat():
    """R-SURRENDER: even the seat not to move, even in the mulligan; the other wins at once."""
    game = McgGame.new(seeds=2, first=0)
    events = game.submit(Surrender(1))
    assert outcome(game.state).winner == 0 and of(events, GameEnded)[0].reason == "surrender"


def test_inactivity_is_surrender_and_a_bad_answer_loses():
    """R-INACTIVE: a timeout surrenders; R-ANSWER: a line that is not an answer loses, with the reason."""
    game = McgGame.new(seeds=2, first=0)
    game.timeout(0)
    assert (game.state.winner, game.state.end_reason) == (1, "inactivity")
    game = McgGame.new(seeds=2, first=0)
    game.answer(0, '{"do": "dance"}')
    assert (game.state.winner, game.state.end_reason) == (1, "bad_answer")
    assert "'do' must be one of" in game.log[-2].reason
    game = McgGame.new(seeds=2, first=0)
    game.submit(BadAnswer(0, "x", "test"))
    assert game.state.winner == 1


def test_the_rejection_limit_loses_the_game():
    """R-REJECT, R-CAP: each illegal action is rejected with a reason; the limit-th one loses."""
    game = McgGame.new(STANDARD.replace(rejection_limit=3), seeds=2, first=0)
    for _ in range(3):
        events = game.submit(Play(0, 999))
        assert of(events, ActionRejected)[0].reason == "play is an action of the main phase; this is the mulligan phase"
    assert (game.state.winner, game.state.end_reason) == (1, "rejections")


def test_the_turn_limit_ends_the_game_by_health_ties_to_the_second_player():
    """R-CAP: after the last turn the healthier player wins; equal health goes to the seat that did not start."""
    game = McgGame.new(STANDARD.replace(turn_limit=2), seeds=6, first=0)
    game.submit(Mulligan(0))
    game.submit(Mulligan(1))
    game.submit(EndTurn(0))
    events = game.submit(EndTurn(1))
    assert [(e.winner, e.reason, e.turn) for e in of(events, GameEnded)] == [(1, "turn_limit", 2)]


def test_the_chain_limit_stops_a_loop_of_death_effects():
    """R-CAP: a token that summons two of itself when it dies, and a spell that hits all monsters on a turn
    effect, could loop; the chain limit makes the rest fizzle."""
    pos = Position(rules=STANDARD.replace(chain_limit=12))
    loop = monster(0, 0, 1, token=True, name="Loop")
    loop = loop.__class__(**{**{f: getattr(loop, f) for f in loop.__struct_fields__},
                             "effects": (fx("summon", "own_player", on="death", card=loop.id, count=1),
                                         fx("damage", "all_monsters", on="death", amount=1))})
    pos.extra.append(loop)
    spark = pos.in_hand(0, spell(fx("summon", "own_player", card=loop.id, count=1),
                                 fx("damage", "all_monsters", amount=1)))
    game = pos.game()
    events = game.submit(Play(0, spark))
    assert len(of(events, EffectTriggered)) == 12
    assert of(events, EffectFizzled)[-1].reason == "chain limit"
    assert not game.ended


def test_end_phase_effects_of_a_variant_apply_from_their_turn():
    """R-VARIANT, R-END-PHASE: an added end-phase effect acts at the end of each turn from `from_turn` on."""
    extra = EndPhaseEffect(effect=fx("damage", "both_players", amount=2), from_turn=4)
    pos = Position(rules=STANDARD.replace(end_phase=(extra,)), turn=3)
    for seat in (0, 1):
        for _ in range(3):
            pos.in_deck(seat, monster())
    game = pos.game()
    assert not of(game.submit(EndTurn(0)), PlayerDamaged)
    events = game.submit(EndTurn(1))
    assert [(e.player, e.amount) for e in of(events, PlayerDamaged)] == [(0, 2), (1, 2)]
