"""The event buffer of one decision, and the small facts many rules share: a draw, a player's health loss,
the end of the game, and the generators of recorded random draws.

`decide` never changes the state it is given. A decision's later steps depend on its earlier facts (a monster
an effect just killed triggers its death effects; the card drawn is the one on top after the previous draw),
so `Out` applies each fact it emits to a private copy of the state with the same `evolve` the fold uses: what
`decide` reads is exactly what the log leads to, and the two can never disagree.
"""

from __future__ import annotations

import hashlib
from typing import Any, TypeVar

from locm.engine.jrandom import JavaRandom
from locm.engine.mcg.evolve import evolve
from locm.engine.mcg.state import ENDED, McgState
from locm.events.mcg.catalog import CardBurned, CardDrawn, Event, FatigueTaken, GameEnded, HEALTH, PlayerDamaged

E = TypeVar("E", bound=Event)


class Out:
    """Collects the events of one decision, numbered from the state's next seq, each applied to ``state``
    (a copy of the state the decision started from)."""

    __slots__ = ("state", "events", "cause")

    def __init__(self, state: McgState, cause: int = -1) -> None:
        self.state = state.copy()
        self.events: list[Event] = []
        self.cause = cause

    def emit(self, cls: type[E], rule: str, cause: int | None = None, **fields: Any) -> E:
        """Build an event of type `cls` with the next seq and `cause` (the decision's record by default),
        apply it, keep it, and return it."""
        event = cls(seq=self.state.seq, cause=self.cause if cause is None else cause, rule=rule, **fields)
        evolve(self.state, event)
        self.events.append(event)
        return event

    @property
    def ended(self) -> bool:
        return self.state.phase == ENDED


def derived_random(seed: int, salt: object) -> JavaRandom:
    """The generator of one recorded draw (R-RNG): `Random` seeded with the first 8 bytes (big-endian,
    signed) of SHA-256 of ``"<seed>:<salt>"``."""
    digest = hashlib.sha256(f"{seed}:{salt}".encode()).digest()
    return JavaRandom(int.from_bytes(digest[:8], "big", signed=True))


def end_game(out: Out, winner: int, reason: str, rule: str, cause: int | None = None) -> None:
    out.emit(GameEnded, rule, cause, winner=winner, reason=reason, turn=out.state.turn)


def lose_health(out: Out, player: int, amount: int, rule: str, cause: int) -> None:
    """A player loses health (R-ATTACK, R-FX-DAMAGE); at 0 or less they lose at once (R-WIN, R-ORDER)."""
    if amount <= 0:
        return
    hit = out.emit(PlayerDamaged, rule, cause, player=player, amount=amount)
    if out.state.players[player].health <= 0:
        end_game(out, 1 - player, HEALTH, "R-WIN", hit.seq)


def draw(out: Out, player: int, rule: str, cause: int) -> None:
    """One draw (R-DRAW): the top card into the hand, or to the graveyard from a full hand (R-HAND), or the
    fatigue damage of an empty deck (R-FATIGUE), which may end the game (R-WIN)."""
    s = out.state
    pl = s.players[player]
    if not pl.deck:
        rules = s.rules
        amount = rules.fatigue_start + rules.fatigue_step * pl.fatigue
        hit = out.emit(FatigueTaken, "R-FATIGUE", cause, player=player, amount=amount)
        if pl.health <= 0:
            end_game(out, 1 - player, HEALTH, "R-WIN", hit.seq)
        return
    top = pl.deck[0]
    if len(pl.hand) >= s.rules.hand_limit:
        out.emit(CardBurned, "R-HAND", cause, player=player, id=top, card=s.card_of[top])
    else:
        out.emit(CardDrawn, rule, cause, player=player, id=top, card=s.card_of[top])


__all__ = ["Out", "derived_random", "end_game", "lose_health", "draw"]
