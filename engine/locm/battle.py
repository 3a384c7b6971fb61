"""Battle actions: rejecting an illegal one (R-ACTIONS) and summoning (R-SUMMON).

Legality itself is `engine.locm.legal`: one set of predicates that builds the legal list and explains a refusal.
"""

from __future__ import annotations

from locm.events.locm.cards import CHARGE
from locm.events.locm.catalog import ActionRejected, CreatureSummoned
from locm.engine.locm.commands import Command
from locm.engine.locm.emit import Out, card_effects
from locm.engine.locm.legal import lane_free
from locm.engine.locm.rulesets import IDS_REVISED
from locm.engine.locm.state import GameState


def reject(out: Out, p: int, action: Command, reason: str) -> None:
    out.emit(
        ActionRejected(
            seq=out.seq, cause=out.cause, rule="R-ACTIONS", player=p, action=action.text(), reason=reason
        )
    )


def summon(state: GameState, out: Out, p: int, unit_id: int, lane: int) -> None:
    """R-SUMMON, with the 1.5 Area copy (lane1: same lane if room; lane2: the other lane if room)."""
    u = state.units[unit_id]
    c = u.card
    charge = bool(u.keywords & CHARGE)
    summoned = out.emit(
        CreatureSummoned(
            seq=out.seq,
            cause=out.cause,
            rule="R-SUMMON",
            player=p,
            id=unit_id,
            base_id=c.base_id,
            lane=lane,
            cost=c.cost,
            can_attack=charge,
        )
    )
    placed = 1
    if state.rules.area and c.area:
        copy_lane = lane if c.area == 1 else 1 - lane
        count = state.players[p].lane_count(copy_lane) + (copy_lane == lane)  # + the creature just summoned
        if lane_free(copy_lane, count, state.rules.lane_size) is None:  # the same room rule as a summon's
            copy_id = unit_id + 1 if state.rules.id_scheme == IDS_REVISED else state.next_id
            out.emit(
                CreatureSummoned(
                    seq=out.seq,
                    cause=summoned,
                    rule="R-SUMMON",
                    player=p,
                    id=copy_id,
                    base_id=c.base_id,
                    lane=copy_lane,
                    cost=0,
                    copy_of=unit_id,
                    can_attack=bool(c.keywords & CHARGE),
                )
            )
            placed = 2
    card_effects(out, p, c, placed, "summon", "R-SUMMON", summoned)


__all__ = ["summon", "reject"]
