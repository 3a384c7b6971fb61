"""The decks (R-DECK), the start of a turn and drawing cards (R-TURN, R-DRAW, R-RUNES, R-DAMAGEDRAW).

Draws read the decks and hand sizes through the decision's look-ahead (`Out.ahead`), so the opening draws
and the first turn start see the decks `build_decks` has just ordered, without folding anything.
"""

from __future__ import annotations

from typing import cast

from locm.events.locm.catalog import CardDrawn, DeckOrdered, DrawLost, GameCreated, GameEnded, TurnEnded, TurnStarted
from locm.engine.jrandom import JavaRandom
from locm.engine.locm.emit import Ahead, Out, lose_health
from locm.engine.locm.rulesets import IDS_12, IDS_REVISED, LOSE_RUNE, TEN_DAMAGE
from locm.engine.locm.state import GameState, Unit

OPENING_HAND = (4, 5)  # R-TURN: cards drawn before the first turn, by seat
CAP_TURNS = 1000
"""R-CAP: no battle begins turn 1000 (turns of both players counted from 0): the game ends when turn 999
ends. No game of the built-in rulesets comes near it (their turn limit ends every game by turn 120)."""
CAP_EVENTS = 50_000
"""R-CAP: a battle decision that begins with 50,000 events in the log ends the game instead, and so does a
turn start whose draws reach that many (the official and oracle games have at most 834)."""
CAP = "cap"
"""The `GameEnded.reason` of a game ended by R-CAP."""


def end_turn(state: GameState, out: Out, player: int) -> None:
    """The current player's answer is done: its turn ends and the other player's begins."""
    ended = out.emit(TurnEnded(seq=out.seq, cause=out.cause, rule="R-TURN", player=player))
    # No win check needed here: every action checks after itself, and a player killed by its own turn-start
    # draws is caught by `decide` before any command of that turn, this one included.
    if state.turn + 1 >= CAP_TURNS:
        cap_end(state, out, player, ended)
        return
    start_turn(state, out, 1 - player, ended)


def cap_end(state: GameState, out: Out, acting: int, cause: int) -> None:
    """R-CAP: the game ends; the player with more health wins, the acting player (whose turn just ended, or
    whose decision it is) when both have the same, as in a double death (R-WIN)."""
    h = out.ahead.health
    winner = acting if h[acting] == h[1 - acting] else (0 if h[0] > h[1] else 1)
    out.emit(GameEnded(seq=out.seq, cause=cause, rule="R-CAP", winner=winner, reason=CAP, turn=state.turn))


def start_turn(state: GameState, out: Out, p: int, cause: int) -> None:
    """R-TURN: mana and the bonus token, the creatures made ready, then the draws, each caused by the turn
    start (itself caused by the turn end before it, or by the choice that ended the deck building)."""
    rules = state.rules
    pl = state.players[p]
    mm = pl.max_mana
    if mm < rules.max_mana + (1 if pl.bonus else 0):
        mm += 1
    spent = pl.bonus and pl.mana == 0
    if spent:
        mm -= 1
    draws = pl.next_draw
    started = out.emit(
        TurnStarted(
            seq=out.seq,
            cause=cause,
            rule="R-TURN",
            player=p,
            turn=state.turn + 1,
            max_mana=mm,
            mana=mm,
            bonus_spent=spent,
            draws=draws,
            ready=_ids(pl.board),
            cleared=_ids(state.players[1 - p].board),
        )
    )
    if rules.empty_deck == LOSE_RUNE:
        _draw_with_runes(state, out, p, draws, started)
    else:
        _draw_with_damage(state, out, p, draws, started)
    # No win check here: a player killed by its own draws still gets its input and answers; the game ends
    # right after that answer, before any of its actions (see `decide`, R-WIN).


def _draw_with_runes(state: GameState, out: Out, p: int, draws: int, cause: int) -> None:
    """1.2: an empty deck or the turn limit costs a rune per draw; a full hand loses the remaining draws."""
    rules = state.rules
    t = out.ahead
    over_limit = state.players[p].turns >= rules.turn_limit
    left = t.deck_size(p)
    for i in range(draws):
        if out.seq >= CAP_EVENTS:  # R-CAP: a turn start cannot draw past the cap (its draws are events)
            cap_end(state, out, 1 - p, cause)
            return
        if over_limit or not left:
            runes = t.runes[p]
            target = runes[0] if runes else 0
            lose_health(out, p, t.health[p] - target, "turn_limit" if over_limit else "deck", "R-DRAW", cause,
                        bonus=False)
            if t.health[p] <= 0:
                return
            continue
        if t.hands[p] >= rules.hand_limit:
            lost = draws - i if rules.full_hand_stops_draws else 1
            for _ in range(lost):
                out.emit(DrawLost(seq=out.seq, cause=cause, rule="R-DRAW", player=p, reason="hand_full"))
            if rules.full_hand_stops_draws:
                return
            continue
        _draw(out, t, p, "R-DRAW", cause)
        left -= 1


def _draw_with_damage(state: GameState, out: Out, p: int, draws: int, cause: int) -> None:
    """1.5: the turn limit costs 10 health once per turn; a full hand loses one draw; an empty deck costs 10."""
    rules = state.rules
    t = out.ahead
    if rules.turn_limit_penalty == TEN_DAMAGE and state.players[p].turns >= rules.turn_limit:
        lose_health(out, p, rules.penalty_damage, "turn_limit", "R-DRAW", cause, counts=False)
    left = t.deck_size(p)
    for _ in range(draws):
        if out.seq >= CAP_EVENTS:  # R-CAP, as in `_draw_with_runes`
            cap_end(state, out, 1 - p, cause)
            return
        if t.hands[p] >= rules.hand_limit:
            out.emit(DrawLost(seq=out.seq, cause=cause, rule="R-DRAW", player=p, reason="hand_full"))
            if rules.full_hand_stops_draws:
                return
        elif not left:
            lose_health(out, p, rules.penalty_damage, "deck", "R-DRAW", cause, counts=False)
        else:
            _draw(out, t, p, "R-DRAW", cause)
            left -= 1


def _draw(out: Out, t: Ahead, p: int, rule: str, cause: int) -> None:
    out.emit(CardDrawn(seq=out.seq, cause=cause, rule=rule, player=p, id=t.draw(p)))
    t.hands[p] += 1


def _ids(units: list[Unit]) -> tuple[int, ...]:
    return tuple([u.id for u in units]) if units else ()


def opening_draws(state: GameState, out: Out, ordered: tuple[int, int]) -> None:
    """R-TURN: player 0 starts with 4 cards, player 1 with 5, from the top of their decks; each draw is caused
    by its deck's `deck_ordered` (``ordered``: their seqs)."""
    t = out.ahead
    for p, n in enumerate(OPENING_HAND):
        for _ in range(n):
            _draw(out, t, p, "R-TURN", ordered[p])


def build_decks(state: GameState, out: Out, chosen: tuple[list[int], list[int]], cause: int) -> tuple[int, int]:
    """R-DECK: shuffle both players' chosen cards and number the instances; the look-ahead gets the decks.
    Returns the seqs of the two `deck_ordered` events."""
    created = cast(GameCreated, state.params)  # game_created comes before any deck
    scheme = state.rules.id_scheme
    seqs: list[int] = []
    for p in (0, 1):
        picks = chosen[p]
        n = len(picks)
        if scheme == IDS_12:
            order = list(picks)
            JavaRandom(_shuffle_seed(created, p)).shuffle(order)
            ids = tuple(range(p + 1, 2 * n + p + 1, 2))  # 2*i + p + 1 for each i
            base_ids = tuple(order)
        else:
            if scheme == IDS_REVISED:
                numbered = [(2 * i + p * 2 * n, b) for i, b in enumerate(picks)]
            else:  # COG 2022: player 0 gets 1..30, player 1 31..60, in pick order
                numbered = [(i + 1 + p * n, b) for i, b in enumerate(picks)]
            JavaRandom(_shuffle_seed(created, p)).shuffle(numbered)
            ids = tuple(i for i, _ in numbered)
            base_ids = tuple(b for _, b in numbered)
        seqs.append(out.emit(DeckOrdered(seq=out.seq, cause=cause, rule="R-DECK", player=p, ids=ids,
                                         base_ids=base_ids)))
        out.ahead.decks[p] = list(reversed(ids))  # top card last, as drawing pops it
    return seqs[0], seqs[1]


def _shuffle_seed(created: GameCreated, p: int) -> int:
    return created.shuffle_player0_seed if p == 0 else created.shuffle_player1_seed


def begin_battle(state: GameState, out: Out, chosen: tuple[list[int], list[int]], cause: int) -> None:
    """After the last pick or deck choice (`chosen`: both players' cards, the decision's own included; `cause`:
    that pick or choice): decks, opening hands and player 0's first turn. Each step reads what the previous
    ones decided through the decision's look-ahead (`Out.ahead`)."""
    ordered = build_decks(state, out, chosen, cause)
    opening_draws(state, out, ordered)
    start_turn(state, out, 0, cause)
