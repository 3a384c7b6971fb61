"""Skyport's events in words for the replay tools: a robot's move, a shot (its weapon, where it went, what it
hit), a hit and its damage, points won and lost, a player's command (what it asks, not its JSON). A robot is
named by its seat and name (``P1 random1``), a tile by ``(j, k)``."""

from __future__ import annotations

import json
from typing import Any

from locm.events.skyport.catalog import (ActionRejected, AreaHit, CommandReceived, Died, DroidFired, GameCreated,
                                         GameEnded, HitAbsorbed, Hit, LaserFired, LoadoutChosen, LoadoutRejected,
                                         Mined, MortarFired, Moved, Penalized, Respawned, Scored, SpawnsDrawn,
                                         TileDepleted, TurnEnded, TurnOrderDrawn, TurnSkipped, TurnStarted,
                                         Upgraded)


def _tile(p: Any) -> str:
    return f"({p[0]}, {p[1]})"


def _tiles(ps: Any) -> str:
    return " \u2192 ".join(_tile(p) for p in ps)


def _command(text: str, kind: str) -> str:
    if kind == "end" or not text:
        return "ends its turn" if kind == "end" else f"sends {kind}"
    try:
        c = json.loads(text)
    except ValueError:
        return f"sends an unreadable {kind} ({len(text)} characters)"
    if not isinstance(c, dict):
        return f"sends an unreadable {kind}"
    if kind == "loadout":
        return f"asks for {c.get('primary-weapon', '?')} and {c.get('secondary-weapon', '?')}"
    what = c.get("type")
    if what == "move":
        return f"asks to move {c.get('direction', '?')}"
    if what == "laser":
        return f"asks to fire its laser {c.get('direction', '?')}"
    if what == "mortar":
        return f"asks to fire its mortar at {c.get('coordinates', '?')} away"
    if what == "droid":
        steps = c.get("sequence") if isinstance(c.get("sequence"), list) else []
        return f"asks to send its droid {', '.join(str(s) for s in steps) or 'nowhere'}"
    if what == "mine":
        return "asks to mine"
    if what == "upgrade":
        return f"asks to upgrade its {c.get('weapon', '?')}"
    return f"sends an action the game does not know ({str(what)[:30]})"


def describe(e: Any, names: tuple[str, ...]) -> str:
    """Event `e` in words; `names` the robots' names by seat."""
    def who(p: int) -> str:
        return f"P{p} {names[p]}" if 0 <= p < len(names) else f"P{p}"

    match e:
        case GameCreated():
            return (f"the game is created: map {e.map.name}, seed {e.seed}, "
                    f"{len(e.names)} robots ({', '.join(e.names)})")
        case SpawnsDrawn():
            return "the spawn tiles are drawn: " + ", ".join(f"{who(i)} at {_tile(p)}" for i, p in enumerate(e.spawns))
        case TurnOrderDrawn():
            return "the turn order is drawn: " + ", ".join(who(p) for p in e.order)
        case CommandReceived(kind="stop"):
            return f"the game is stopped before {who(e.player)}'s turn: {e.text or 'its wall-clock limit'}"
        case CommandReceived(kind="forfeit"):
            return f"{who(e.player)} forfeits its seat: {e.text or 'its client did not join'}"
        case CommandReceived():
            return f"{who(e.player)} {_command(e.text, e.kind)}"
        case LoadoutChosen():
            return f"{who(e.player)} arms itself with {e.primary} (primary) and {e.secondary} (secondary)"
        case LoadoutRejected():
            return f"{who(e.player)}'s loadout {e.primary} / {e.secondary} is refused: {e.error}"
        case TurnStarted():
            return f"turn {e.turn}: {who(e.player)} to move"
        case TurnSkipped():
            return f"{who(e.player)} is destroyed: its turn is skipped"
        case Respawned():
            return f"{who(e.player)} comes back at {_tile(e.position)} with {e.health} health"
        case TurnEnded():
            return f"{who(e.player)} ends turn {e.turn} ({e.valid} of {e.used} actions valid)"
        case GameEnded():
            score = lambda p: e.scores[p] if 0 <= p < len(e.scores) else "?"  # noqa: E731
            ranking = ", ".join(f"{i + 1}. {who(p)} ({score(p)})" for i, p in enumerate(e.ranking))
            return f"the game ends at turn {e.turn} ({e.reason}): {who(e.winner)} wins; {ranking}"
        case ActionRejected():
            error = f" ({e.error})" if e.error else ""
            return f"{who(e.player)}'s action {e.index + 1} is refused: {e.reason}{error}"
        case Moved():
            return f"{who(e.player)} moves {e.direction} from {_tile(e.origin)} to {_tile(e.to)}"
        case Mined():
            return (f"{who(e.player)} mines {e.resource} at {_tile(e.position)} ({e.left} left there, "
                    f"{e.total} carried)")
        case TileDepleted():
            return f"the {e.resource} at {_tile(e.position)} is used up: the tile turns to grass"
        case Upgraded():
            return f"{who(e.player)} upgrades its {e.weapon} to level {e.level} for {e.cost} {e.resource}"
        case LaserFired():
            path = f" through {_tiles(e.path)}" if e.path else ""
            return (f"{who(e.player)} fires its level {e.level} laser {e.direction} from {_tile(e.start)}{path}, "
                    f"stopping at {_tile(e.stop)} ({e.damage} damage)")
        case MortarFired():
            boom = (f"it explodes: {e.damage} damage there, {e.area_damage} to the tiles around" if e.exploded
                    else "it does not explode")
            return (f"{who(e.player)} fires its level {e.level} mortar {e.vector[0]}, {e.vector[1]} away, at "
                    f"{_tile(e.target)}: {boom}")
        case DroidFired():
            walk = f"along {_tiles(e.path)}" if e.path else "nowhere"
            return (f"{who(e.player)} sends its level {e.level} droid {walk}; it explodes at {_tile(e.target)}: "
                    f"{e.damage} damage there, {e.area_damage} to the tiles around")
        case Hit():
            return (f"{who(e.player)} at {_tile(e.position)} is hit by {who(e.by)}'s {e.weapon}: -{e.amount}, "
                    f"{e.health} health left")
        case AreaHit():
            return (f"{who(e.player)} at {_tile(e.position)} is caught in the blast of {who(e.by)}'s {e.weapon}: "
                    f"-{e.amount}, {e.health} health left")
        case HitAbsorbed():
            return f"{who(e.by)}'s {e.weapon} reaches {who(e.player)} at {_tile(e.position)}: no damage ({e.reason})"
        case Scored():
            victim = f" on {who(e.victim)}" if e.victim >= 0 else ""
            return f"{who(e.player)} scores {e.points} ({e.reason}{victim})"
        case Died():
            return f"{who(e.player)} is destroyed at {_tile(e.position)} by {who(e.by)}"
        case Penalized():
            return f"{who(e.player)} loses {e.points} points ({e.reason})"
        case _:
            raise ValueError(f"an event Skyport's words do not know: {type(e).__name__}")
