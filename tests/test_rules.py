"""Rule scenarios, each citing the rule of LOCM-RULES.md it pins down."""

from __future__ import annotations

import pytest

from locm.events.locm.cards import BLUE, BREAKTHROUGH, CHARGE, DRAIN, GREEN, GUARD, LETHAL, RED, WARD
from locm.events.locm.catalog import (
    ActionRejected, CardDrawn, CreatureDamaged, CreatureDied, CreatureModified, CreatureSummoned, DrawBonus,
    DrawLost, GameEnded, HardError, PlayerDamaged, PlayerHealed, RuneBroken, TurnStarted, WardLost,
)
from locm.engine.locm.commands import Attack, Summon, Use
from tests.scenario import Position, card, of, types


def test_simultaneous_death_goes_to_the_acting_player():
    """R-WIN: both players reach 0 from one summon (Spiney Chompleaf: -2 each); the acting player wins."""
    pos = Position()
    pos.health = [2, 2]
    chomp = pos.in_hand(0, card(25, cost=2, attack=3, defense=1, my=-2, opp=-2))
    game = pos.game()
    game.submit(Summon(chomp, 0))
    end = of(game.log, GameEnded)
    assert [(e.winner, e.reason) for e in end] == [(0, "health")]
    assert game.state.players[0].health == 0 and game.state.players[1].health == 0


def test_ward_absorbs_and_is_lost_attacker_takes_counter_damage():
    """R-ATTACK: damage to a Ward creature is 0 and the Ward goes; the attacker still takes damage."""
    pos = Position()
    a = pos.on_board(0, card(1, attack=3, defense=3))
    d = pos.on_board(1, card(2, attack=2, defense=2, keywords=WARD))
    game = pos.game()
    events = game.submit(Attack(a, d))
    assert of(events, WardLost)[0].id == d
    assert not of(events, CreatureDied)
    assert [(e.id, e.amount) for e in of(events, CreatureDamaged)] == [(a, 2)]
    assert game.state.units[d].defense == 2 and not game.state.units[d].keywords & WARD


def test_lethal_kill_gives_no_breakthrough_excess():
    """R-ATTACK: Breakthrough is checked before Lethal, so a Lethal-only kill deals no excess."""
    pos = Position()
    a = pos.on_board(0, card(1, attack=2, defense=5, keywords=LETHAL | BREAKTHROUGH))
    d = pos.on_board(1, card(2, attack=0, defense=6))
    game = pos.game()
    events = game.submit(Attack(a, d))
    assert of(events, CreatureDied)[0].id == d
    assert not of(events, PlayerDamaged)


def test_breakthrough_excess_and_drain_heals_full_attack():
    """R-ATTACK: excess = damage - defense goes to the opponent; Drain heals the attacker's full attack."""
    pos = Position()
    pos.health = [20, 30]
    a = pos.on_board(0, card(1, attack=7, defense=9, keywords=BREAKTHROUGH | DRAIN))
    d = pos.on_board(1, card(2, attack=1, defense=3))
    game = pos.game()
    events = game.submit(Attack(a, d))
    assert [(e.player, e.amount, e.source) for e in of(events, PlayerHealed)] == [(0, 7, "drain")]
    assert [(e.player, e.amount, e.source) for e in of(events, PlayerDamaged)] == [(1, 4, "breakthrough")]
    # Order: creatures (defender first), the attacker's owner heals, the defender's owner takes damage.
    assert types(events).index("CreatureDied") < types(events).index("PlayerHealed") < types(events).index(
        "PlayerDamaged")


def test_lethal_defender_kills_the_attacker():
    pos = Position()
    a = pos.on_board(0, card(1, attack=5, defense=9))
    d = pos.on_board(1, card(2, attack=1, defense=8, keywords=LETHAL))
    game = pos.game()
    events = game.submit(Attack(a, d))
    assert {e.id for e in of(events, CreatureDied)} == {a}
    assert game.state.units[d].defense == 3


def test_guard_must_be_attacked_first_and_the_rejection_says_why():
    """R-ACTIONS: with an enemy Guard in the lane, attacking anything else is skipped with a reason."""
    pos = Position()
    a = pos.on_board(0, card(1, attack=2, defense=2))
    guard = pos.on_board(1, card(2, attack=1, defense=1, keywords=GUARD))
    pos.on_board(1, card(3, attack=1, defense=1), lane=1)  # a Guard in the other lane does not matter
    game = pos.game()
    events = game.submit(Attack(a, -1))
    rejected = of(events, ActionRejected)
    assert len(rejected) == 1 and rejected[0].rule == "R-ACTIONS"
    assert rejected[0].reason == f"creature {a} must attack a Guard in lane 0 first: {guard}"
    assert game.state.players[1].health == 30
    assert game.state.units[a].can_attack  # a rejected attack costs nothing


def test_blue_item_on_the_opponent_deals_defense_plus_opp_health():
    """R-USE / R-DOCS 4: one health change of defense + oppHealthChange; the user gets myHealthChange."""
    pos = Position()
    pos.health = [10, 30]
    item = pos.in_hand(0, card(155, type=BLUE, cost=3, attack=0, defense=-3, my=2, opp=-1))
    game = pos.game()
    events = game.submit(Use(item, -1))
    assert [(e.player, e.amount) for e in of(events, PlayerDamaged)] == [(1, 4)]
    assert [(e.player, e.amount) for e in of(events, PlayerHealed)] == [(0, 2)]


def test_green_charge_lets_a_new_creature_attack_but_not_twice():
    pos = Position()
    c = pos.in_hand(0, card(1, cost=1, attack=2, defense=2))
    grow = pos.in_hand(0, card(140, type=GREEN, cost=1, attack=0, defense=0, keywords=CHARGE))
    grow2 = pos.in_hand(0, card(141, type=GREEN, cost=1, attack=0, defense=0, keywords=CHARGE))
    game = pos.game()
    game.submit(Summon(c, 0))
    assert of(game.submit(Attack(c, -1)), ActionRejected)[0].reason.endswith("has no Charge")
    game.submit(Use(grow, c))
    assert of(game.submit(Attack(c, -1)), PlayerDamaged)[0].amount == 2
    game.submit(Use(grow2, c))
    assert not game.state.units[c].can_attack  # it already attacked this turn


def test_red_item_on_ward_removes_ward_and_spares_defense():
    """R-USE: keywords are removed first, then Ward (if still there) absorbs the damage."""
    pos = Position()
    d = pos.on_board(1, card(2, attack=3, defense=3, keywords=WARD | GUARD))
    axe = pos.in_hand(0, card(144, type=RED, cost=1, attack=0, defense=-2))
    knife = pos.in_hand(0, card(148, type=RED, cost=2, attack=0, defense=-2, keywords=0b111111))
    game = pos.game()
    events = game.submit(Use(axe, d))
    assert of(events, CreatureModified)[0].defense == 3 and of(events, WardLost)
    game2 = Position()
    d2 = game2.on_board(1, card(2, attack=3, defense=3, keywords=WARD | GUARD))
    k2 = game2.in_hand(0, card(148, type=RED, cost=2, attack=0, defense=-2, keywords=0b111111))
    g2 = game2.game()
    ev2 = g2.submit(Use(k2, d2))
    assert of(ev2, CreatureModified)[0].defense == 1 and of(ev2, CreatureModified)[0].keywords == 0
    assert not of(ev2, WardLost)


def test_illegal_summons_are_skipped_with_reasons():
    pos = Position()
    pos.mana = 2
    big = pos.in_hand(0, card(1, cost=5))
    item = pos.in_hand(0, card(140, type=GREEN, cost=0))
    for _ in range(3):
        pos.on_board(0, card(3, cost=1))
    game = pos.game()
    reasons = [of(game.submit(cmd), ActionRejected)[0].reason
               for cmd in (Summon(big, 1), Summon(item, 1), Summon(99, 1))]
    assert reasons == [f"card {big} costs 5 mana, you have 2", f"card {item} is an item (itemGreen), not a creature",
                       "card 99 is not in your hand"]
    small = Position()
    s = small.in_hand(0, card(4, cost=1))
    for _ in range(3):
        small.on_board(0, card(3, cost=1))
    g = small.game()
    assert of(g.submit(Summon(s, 0)), ActionRejected)[0].reason == "lane 0 already holds 3 creatures"
    assert of(g.submit(Summon(s, 2)), ActionRejected)[0].reason == "lane must be 0 or 1, got 2"
    assert of(g.submit(Summon(s, 1)), CreatureSummoned)


def test_malformed_answer_is_a_hard_error_and_a_loss():
    pos = Position()
    game = pos.game()
    events = game.answer(0, "SUMMON 1")
    assert types(events) == ["ActionReceived", "HardError", "GameEnded"]
    assert of(events, GameEnded)[0].winner == 1
    assert of(events, HardError)[0].text == "SUMMON 1"


def test_12_empty_deck_breaks_a_rune_per_draw_even_with_a_full_hand():
    """R-DRAW 1.2: an empty deck costs a rune per draw; the draws it forces give no extra draw."""
    pos = Position()
    for k in range(8):
        pos.in_hand(1, card(10 + k))
    game = pos.game()
    game.state.players[1].next_draw = 2
    events = game.end_turn()
    assert [e.rune for e in of(events, RuneBroken)] == [25, 20]
    assert [e.amount for e in of(events, PlayerDamaged)] == [5, 5]
    assert not of(events, DrawBonus) and not of(events, DrawLost)
    assert game.state.players[1].health == 20 and game.state.players[1].next_draw == 1


def test_12_full_hand_loses_the_remaining_draws():
    pos = Position()
    for k in range(8):
        pos.in_hand(1, card(10 + k))
    for k in range(3):
        pos.in_deck(1, card(20 + k))
    game = pos.game()
    game.state.players[1].next_draw = 3
    events = game.end_turn()
    assert len(of(events, DrawLost)) == 3 and not of(events, CardDrawn)


def test_12_damage_breaks_runes_and_earns_draws():
    """R-RUNES: every rune whose value is >= the new health breaks, +1 next-turn draw each."""
    pos = Position()
    a = pos.on_board(0, card(1, attack=12, defense=1))
    game = pos.game()
    events = game.submit(Attack(a, -1))
    assert [e.rune for e in of(events, RuneBroken)] == [25, 20]
    assert of(events, DrawBonus)[0].amount == 2
    assert game.state.players[1].next_draw == 3 and game.state.players[1].next_rune == 15


def test_15_damage_draw_every_five_points():
    """R-DAMAGEDRAW: 12 damage in one hit is 2 extra draws; 3 more makes the counter 15: one more."""
    pos = Position("constructed")
    a = pos.on_board(0, card(1, attack=12, defense=1))
    b = pos.on_board(0, card(2, attack=3, defense=1))
    game = pos.game()
    assert of(game.submit(Attack(a, -1)), DrawBonus)[0].amount == 2
    assert of(game.submit(Attack(b, -1)), DrawBonus)[0].amount == 1
    assert game.state.players[1].next_draw == 4


def test_bonus_mana_token_is_spent_when_no_mana_was_left():
    """R-TURN: player 1's token is spent (max mana -1 for good) when it ends a turn with 0 mana left."""
    from locm.engine.locm.game import Game

    game = Game.new("1.2", 3)
    while game.phase == "draft":
        game.answer(game.to_move, "PASS")
    game.answer(0, "")
    started = of(game.log, TurnStarted)[-1]
    assert (started.player, started.max_mana, started.bonus_spent) == (1, 2, False)
    game.state.players[1].mana = 0
    game.answer(1, "")
    game.answer(0, "")
    started = of(game.log, TurnStarted)[-1]
    assert (started.player, started.max_mana, started.bonus_spent) == (1, 2, True)


def test_15_area_lane1_summon_copies_with_the_next_global_id():
    """R-SUMMON/R-DECK: the copy takes id 61 (COG 2022 counter); health effects double; one action line."""
    pos = Position("constructed")
    c = pos.in_hand(0, card(7, cost=2, attack=2, defense=2, area=1, opp=-1))
    game = pos.game()
    events = game.submit(Summon(c, 1))
    summoned = of(events, CreatureSummoned)
    assert [(e.id, e.lane, e.copy_of) for e in summoned] == [(c, 1, 0), (61, 1, c)]
    assert of(events, PlayerDamaged)[0].amount == 2
    assert game.state.players[0].actions == [(7, "SUMMON", c, 1)]
    assert f"7 SUMMON {c} 1\n" in game.input_for(1)
    c2 = Position("constructed")
    k = c2.in_hand(0, card(8, cost=2, area=2))
    for _ in range(3):
        c2.on_board(0, card(9), lane=1)
    g2 = c2.game()
    assert [e.copy_of for e in of(g2.submit(Summon(k, 0)), CreatureSummoned)] == [0]  # no room in lane 1


def test_15_area_item_hits_the_whole_lane_on_the_targets_side():
    pos = Position("constructed")
    x = pos.on_board(1, card(2, attack=1, defense=2))
    y = pos.on_board(1, card(3, attack=1, defense=5, keywords=WARD))
    z = pos.on_board(1, card(4, attack=1, defense=2), lane=1)
    bolt = pos.in_hand(0, card(50, type=RED, cost=1, attack=0, defense=-2, area=1, opp=-1))
    game = pos.game()
    events = game.submit(Use(bolt, y))
    assert [e.id for e in of(events, CreatureModified)] == [x, y]
    assert [e.id for e in of(events, CreatureDied)] == [x]
    assert [e.id for e in of(events, WardLost)] == [y]
    assert of(events, PlayerDamaged)[0].amount == 2  # oppHealthChange times the 2 creatures hit
    assert game.state.units[z].defense == 2


def test_predefined_draft_ids_replace_the_drawn_draft():
    """R-SEEDS: 30 comma-separated triples, `_` for spaces, replace the offers; the pool is their cards."""
    from locm.engine.errors import GameParamError
    from locm.engine.locm.game import Game
    from locm.events.locm.catalog import CardPoolDefined, DraftOffered

    triples = [(1 + k % 150, 2 + k % 150, 160 - k) for k in range(30)]
    text = ",".join("_".join(map(str, t)) for t in triples)
    game = Game.new("1.2", 5, {"predefinedDraftIds": text})
    assert [e.base_ids for e in of(game.log, DraftOffered)] == triples
    pool = of(game.log, CardPoolDefined)[0].cards
    assert {c.base_id for c in pool} == {b for t in triples for b in t}
    assert game.input_for(0).splitlines()[4].startswith("1 -1 0 ")
    game.answer(0, "CHOOSE 160")
    assert game.state.players[0].picks == [160]
    import pytest

    with pytest.raises(GameParamError, match="expected 30 triples, got 2"):
        Game.new("1.2", 5, {"predefinedDraftIds": "1_2_3,4_5_6"})
    with pytest.raises(GameParamError, match="triple 1: expected 3 baseIds in 1..160"):
        Game.new("1.2", 5, {"predefinedDraftIds": "1_2_999," + text.split(",", 1)[1]})


def test_a_player_killed_by_its_own_draws_still_answers_and_then_loses():
    """R-WIN as the referee runs it (EngineReferee: AdvanceState, then the input, the answer, and only then
    CheckAndHandleEndgame): a player whose empty deck kills it at turn start is still sent its input, and the
    game ends once its answer is in, before any action of that answer is carried out."""
    pos = Position()
    pos.health = [1, 4]  # player 1 has no rune left (all runes are >= 4) and an empty deck
    killer = pos.on_board(1, card(1, attack=5, defense=5))
    game = pos.game()
    game.state.units[killer].can_attack = True
    game.end_turn()
    assert not game.ended and game.to_move == 1 and game.state.players[1].health == 0
    assert game.input_for(1).startswith("0 ")  # the referee sends the dying player its input
    events = game.answer(1, f"ATTACK {killer} -1")
    assert types(events) == ["ActionReceived", "GameEnded"]
    assert of(events, GameEnded)[0].winner == 0
    assert game.state.players[0].health == 1  # the lethal attack never happened


def test_15_turn_limit_death_also_waits_for_the_answer():
    pos = Position("constructed")
    pos.health = [30, 5]
    for _ in range(3):
        pos.in_deck(1, card(9))
    game = pos.game()
    game.state.players[1].turns = 50  # its 51st turn: 10 damage at turn start
    game.end_turn()
    assert not game.ended and game.state.players[1].health == -5
    events = game.answer(1, "")
    assert of(events, GameEnded)[0].winner == 0


def test_construct_bare_pass_fills_but_pass_with_text_takes_one_card():
    """R-CONSTRUCT: a bare PASS fills the deck to 30 with the first offered cards that have fewer than 2
    copies; `PASS text` takes just one such card; CHOOSE counts toward the copies."""
    from locm.engine.errors import ProtocolError
    from locm.engine.locm.protocol import parse_construct

    assert parse_construct("CHOOSE 1;PASS", 120, 30, 2) == (1, 0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                                         9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14)
    deck = parse_construct(";".join(["PASS hello"] * 29 + ["CHOOSE 119"]), 120, 30, 2)
    assert deck[:4] == (0, 0, 1, 1) and deck[-1] == 119 and len(deck) == 30
    with pytest.raises(ProtocolError, match="a deck needs 30 cards, got 1"):
        parse_construct("PASS hello", 120, 30, 2)
    with pytest.raises(ProtocolError, match="more than 2 copies"):
        parse_construct("CHOOSE 3;CHOOSE 3;CHOOSE 3;PASS", 120, 30, 2)


@pytest.mark.parametrize("line, index", [("PICK 2", 2), ("PICK 1 my text", 1), ("PASS", 0), ("PASS 2", 0),
                                         ("PICK +1", 1), ("PICK 0 ", 0)])
def test_draft_answer_is_read_raw_like_the_referee(line, index):
    from locm.engine.locm.protocol import parse_pick

    assert parse_pick(line, (5, 6, 7)) == index


@pytest.mark.parametrize("line", ["PASS;", "PICK 1;", " PICK 1", "PICK 1\t", "pick 1", "PICK 3", "PICK", "",
                                  "CHOOSE 9", "PICK  1", "SUMMON 1 0"])
def test_draft_answers_the_referee_refuses(line):
    """DraftPhase.PlayerChoice splits the raw line on single spaces: no `;` items, no trimming."""
    from locm.engine.errors import ProtocolError
    from locm.engine.locm.protocol import parse_pick

    with pytest.raises(ProtocolError):
        parse_pick(line, (5, 6, 7))
