"""The flow of a match: who starts (R-COIN, R-SERIES), the shuffles and opening hands (R-SHUFFLE, R-OPENING),
the mulligan (R-MULLIGAN), the start of a turn with its mana, draw and phase hooks (R-TURN, R-MANA, R-DRAW,
R-FX-PHASE, R-FX-DELAY), the end phase (R-END-PHASE, R-TURN-FX) and the cap (R-CAP)."""

from __future__ import annotations

from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.effects import Trigger, delayed_trigger, resolve, triggers_of
from locm.engine.mcg.emit import Out, derived_random, draw, end_game
from locm.events.mcg.catalog import (
    AT_END_PHASE, AT_TURN_START, ON_END_PHASE, ON_MAIN_START, ON_TURN, ON_TURN_START, TURN_LIMIT, CardsReturned,
    DeckShuffled, MulliganChosen, StarterChosen, TurnEnded, TurnStarted,
)


def choose_starter(out: Out, chooser: int, first: int, rule: str, cause: int | None = None) -> None:
    """The starting seat is known: record it, shuffle both decks, deal the opening hands (the starter's
    first) and wait for the starter's mulligan."""
    chosen = out.emit(StarterChosen, rule, cause, player=chooser, first=first)
    s = out.state
    for seat in (0, 1):
        deck = list(s.players[seat].deck)
        JavaRandom(s.seeds.shuffle[seat]).shuffle(deck)
        out.emit(DeckShuffled, "R-SHUFFLE", chosen.seq, player=seat, ids=tuple(deck))
    for seat in (first, 1 - first):
        for _ in range(s.rules.opening_hand):
            draw(out, seat, "R-OPENING", chosen.seq)


def mulligan(out: Out, player: int, returned: tuple[int, ...]) -> None:
    """A player's one mulligan (R-MULLIGAN): the replacements are drawn first, then the cards put back are
    shuffled into the deck. After the second player's, the first turn starts."""
    s = out.state
    chosen = out.emit(MulliganChosen, "R-MULLIGAN", player=player, returned=returned)
    if returned:
        for _ in returned:
            draw(out, player, "R-MULLIGAN", chosen.seq)
        out.emit(CardsReturned, "R-MULLIGAN", chosen.seq, player=player, ids=returned)
        deck = list(s.players[player].deck)
        derived_random(s.seeds.shuffle[player], "mulligan").shuffle(deck)
        out.emit(DeckShuffled, "R-MULLIGAN", chosen.seq, player=player, ids=tuple(deck))
    if all(p.mulliganed for p in s.players):
        start_turn(out, s.first, 1, chosen.seq)


def start_turn(out: Out, player: int, turn: int, cause: int) -> None:
    """A turn begins (R-TURN): mana refilled and grown (R-MANA); the start of the draw phase (R-FX-PHASE: the
    player's monsters' ``turn_start`` effects, then the spells' effects waiting for it, R-FX-DELAY); the draw
    (R-DRAW); the start of the main phase (the monsters' ``main_start`` effects)."""
    s = out.state
    due = [d for d in s.delayed if d.at == AT_TURN_START and d.turn == turn]
    rules = s.rules
    previous = s.players[player].max_mana
    if previous == 0:  # the player's first turn
        mana = rules.first_mana if player == s.first else rules.second_mana
    else:
        mana = min(rules.max_mana, previous + rules.mana_step)
    started = out.emit(TurnStarted, "R-TURN", cause, player=player, turn=turn, max_mana=mana)
    _board_effects(out, player, ON_TURN_START, started.seq, "R-FX-PHASE")
    for d in due:
        if out.ended:
            return
        resolve(out, [delayed_trigger(d, s.cards[d.card], started.seq)])
    if out.ended:
        return
    draw(out, player, "R-DRAW", started.seq)
    if not out.ended:
        _board_effects(out, player, ON_MAIN_START, started.seq, "R-FX-PHASE")


def _board_effects(out: Out, player: int, on: str, cause: int, rule: str) -> None:
    """The effects of the player's monsters that trigger ``on`` (the start of a phase, R-FX-PHASE; the end
    phase, R-TURN-FX), in board order, each monster still on the board when its turn comes."""
    s = out.state
    for i in list(s.players[player].board):
        if out.ended:
            return
        m = s.monsters.get(i)
        if m is not None:
            resolve(out, triggers_of(m.card, on, player, i, cause, rule=rule))


def end_turn(out: Out, player: int) -> None:
    """The end phase (R-END-PHASE): the turn effects of the player's monsters in board order, each still on
    the board when its turn comes (R-TURN-FX), then the spells' effects waiting for it (R-FX-DELAY, in the order
    played), then a variant's end-phase effects (R-VARIANT), each with all it triggers; then the cap (R-CAP) or
    the next turn."""
    s = out.state
    due = [d for d in s.delayed if d.at == AT_END_PHASE and d.turn == s.turn]
    ended = out.emit(TurnEnded, "R-END-PHASE", player=player, turn=s.turn)
    _board_effects(out, player, ON_TURN, ended.seq, "R-ORDER")
    for d in due:
        if out.ended:
            return
        resolve(out, [delayed_trigger(d, s.cards[d.card], ended.seq)])
    for index, extra in enumerate(s.rules.end_phase):
        if out.ended:
            return
        if s.turn >= extra.from_turn:
            resolve(out, [Trigger(player, -1, -1, ON_END_PHASE, index, extra.effect, ended.seq, rule="R-VARIANT")])
    if out.ended:
        return
    if s.turn >= s.rules.turn_limit:
        h0, h1 = s.players[0].health, s.players[1].health
        winner = 0 if h0 > h1 else 1 if h1 > h0 else 1 - s.first
        end_game(out, winner, TURN_LIMIT, "R-CAP", ended.seq)
        return
    start_turn(out, 1 - player, s.turn + 1, ended.seq)


__all__ = ["choose_starter", "mulligan", "start_turn", "end_turn"]
