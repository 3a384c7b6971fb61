"""Which behaviour of Skyport's rules this engine decides new games under (`engine.seam.GameDef.behaviour`).

The number changes only when what a rule does changes, never for a rewrite that decides the same. Each game's
created event records it; the state takes it from there (``state.behaviour``) and the rules read it where a
rule's behaviour changed, so a game stored under an earlier one re-decides as it was decided.
docs/guides/behaviours.md says when to raise it and how an earlier behaviour is kept.

The behaviours, each with what changed:

1. the 2013 server's rules, as the oracle plays them (every game stored before behaviours were recorded).
"""

from __future__ import annotations

BEHAVIOUR = 1
"""The behaviour new games are decided under; every one from 1 to it stays selectable."""

__all__ = ["BEHAVIOUR"]
