"""The start of a turn and drawing cards (R-TURN, R-DRAW, R-RUNES, R-DAMAGEDRAW)."""

from __future__ import annotations

from events.catalog import CardDrawn, DrawLost, TurnEnded, TurnStarted
from engine.emit import Out, Tally, lose_health
from engine.rulesets import LOSE_RUNE, TEN_DAMAGE


def end_turn(state, out: Out, player: int) -> None:
    """The current player's answer is done: its turn ends and the other player's begins."""
    out.emit(TurnEnded(seq=out.seq, cause=out.cause, rule="R-TURN", player=player))
    # No win check needed here: every action checks after itself, and a player killed by its own turn-start
    # draws is caught by `decide` before any command of that turn, this one included.
    start_turn(state, out, 1 - player)


def start_turn(state, out: Out, p: int) -> None:
    """R-TURN: mana and the bonus token, then the draws, then the win check."""
    rules = state.rules
    pl = state.players[p]
    mm = pl.max_mana
    if mm < rules.max_mana + (1 if pl.bonus else 0):
        mm += 1
    spent = pl.bonus and pl.mana == 0
    if spent:
        mm -= 1
    draws = pl.next_draw
    turn = state.turn + 1
    out.emit(
        TurnStarted(
            seq=out.seq,
            cause=out.cause,
            rule="R-TURN",
            player=p,
            turn=turn,
            max_mana=mm,
            mana=mm,
            bonus_spent=spent,
            draws=draws,
        )
    )
    t = Tally(state)
    if rules.empty_deck == LOSE_RUNE:
        _draw_with_runes(state, out, t, p, draws)
    else:
        _draw_with_damage(state, out, t, p, draws)
    # No win check here: a player killed by its own draws still gets its input and answers; the game ends
    # right after that answer, before any of its actions (see `decide`, R-WIN).


def _draw_with_runes(state, out: Out, t: Tally, p: int, draws: int) -> None:
    """1.2: an empty deck or the turn limit costs a rune per draw; a full hand loses the remaining draws."""
    rules = state.rules
    pl = state.players[p]
    deck_n = len(pl.deck)
    hand_n = len(pl.hand)
    over_limit = pl.turns >= rules.turn_limit
    for i in range(draws):
        if deck_n == 0 or over_limit:
            runes = t.runes[p]
            target = runes[0] if runes else 0
            lose_health(out, t, p, t.health[p] - target, "turn_limit" if over_limit else "deck", bonus=False)
            if t.health[p] <= 0:
                return
            continue
        if hand_n >= rules.hand_limit:
            for _ in range(draws - i):
                out.emit(DrawLost(seq=out.seq, cause=out.cause, rule="R-DRAW", player=p, reason="hand_full"))
            return
        deck_n -= 1
        out.emit(CardDrawn(seq=out.seq, cause=out.cause, rule="R-DRAW", player=p, id=pl.deck[deck_n].id))
        hand_n += 1


def _draw_with_damage(state, out: Out, t: Tally, p: int, draws: int) -> None:
    """1.5: the turn limit costs 10 health once per turn; a full hand loses one draw; an empty deck costs 10."""
    rules = state.rules
    pl = state.players[p]
    if rules.turn_limit_penalty == TEN_DAMAGE and pl.turns >= rules.turn_limit:
        lose_health(out, t, p, rules.penalty_damage, "turn_limit", counts=False)
    deck_n = len(pl.deck)
    hand_n = len(pl.hand)
    for _ in range(draws):
        if hand_n >= rules.hand_limit:
            out.emit(DrawLost(seq=out.seq, cause=out.cause, rule="R-DRAW", player=p, reason="hand_full"))
        elif deck_n == 0:
            lose_health(out, t, p, rules.penalty_damage, "deck", counts=False)
        else:
            deck_n -= 1
            out.emit(CardDrawn(seq=out.seq, cause=out.cause, rule="R-DRAW", player=p, id=pl.deck[deck_n].id))
            hand_n += 1


def opening_draws(state, out: Out) -> None:
    """R-TURN: player 0 starts with 4 cards, player 1 with 5, from the top of their decks."""
    for p, n in ((0, 4), (1, 5)):
        deck = state.players[p].deck
        for k in range(1, n + 1):
            out.emit(CardDrawn(seq=out.seq, cause=out.cause, rule="R-TURN", player=p, id=deck[-k].id))
