"""Which behaviour of LOCM's rules this engine decides new games under (`engine.seam.GameDef.behaviour`).

The number changes only when what a rule does changes (a rule's bug fixed, the referee's behaviour matched
more closely), never for a faster or a rewritten core that decides the same: every core here (the Python one,
the compiled one, the native one) decides the same behaviour, and the native core says which it decides
(``_native.BEHAVIOUR``, checked against this one by tests/test_behaviour.py). Each game's `game_created`
records the number; the rules read it from the state (``behaviour_of(state.params)``) where a rule's behaviour
changed, so a game stored under an earlier one re-decides as it was decided. docs/guides/behaviours.md says
when to raise it and how an earlier behaviour is kept.

The behaviours, each with what changed:

1. the official referee's rules of 1.2 and of 1.5 (constructed), byte for byte (every game stored before
   behaviours were recorded).
"""

from __future__ import annotations

BEHAVIOUR = 1
"""The behaviour new games are decided under; every one from 1 to it stays selectable."""

__all__ = ["BEHAVIOUR"]
