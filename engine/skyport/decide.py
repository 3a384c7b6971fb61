"""`decide(state, command) -> events` for Skyport: validate a command and emit the facts it causes.

Every command is first recorded as a `command_received`; the facts it causes carry that record's ``seq`` as
their ``cause``. A command that cannot be decided in this state at all (the game is over, not this player's
turn, a second loadout) raises `CommandError`: a caller's mistake, never recorded. A player's mistake (a
refused action or loadout) is a fact like any other.

The turn's flow is the server's (R-TURN, R-ACTIONS): the player to move sends up to ``actions_per_turn``
actions; a valid shot ends the turn at once; so does the last action, or `EndTurn` (the deadline) before it.
Then the penalties (R-IDLE, then R-SPAWN-PENALTY), the end of the turn, and the next turn: the ring moves on,
skipping once a robot destroyed since its last turn and respawning it the time after (R-RESPAWN), unless the
turn limit is reached (R-END).
"""

from __future__ import annotations

from locm.engine.errors import CommandError
from locm.engine.skyport.actions import perform
from locm.engine.skyport.emit import Out
from locm.engine.skyport.rules import WEAPONS
from locm.engine.skyport.state import ENDED, LOADOUT, TURN, SkyportState
from locm.engine.skyport.commands import Act, ChooseLoadout, Command, EndTurn, Forfeit, Stop
from locm.events.skyport.catalog import (
    ACTION, END, FORFEIT, LOADOUT as LOADOUT_KIND, STOP, CommandReceived, Event, LoadoutChosen, LoadoutRejected,
    Penalized, Respawned, TurnEnded, TurnSkipped, TurnStarted,
)


def decide(state: SkyportState, command: Command) -> list[Event]:
    return decide_and_apply(state, command)[0]


def decide_and_apply(state: SkyportState, command: Command) -> tuple[list[Event], SkyportState]:
    """The events of `command`, and a new state: `state` with them applied (the state is not changed)."""
    player = command.player
    if state.phase == ENDED:
        raise CommandError(f"the game is over; player {player} cannot {type(command).__name__}")
    if not 0 <= player < len(state.robots):
        raise CommandError(f"no player {player}: expected 0..{len(state.robots) - 1}")
    match command:
        case ChooseLoadout() | Forfeit():
            if state.phase != LOADOUT or state.robots[player].has_loadout:
                raise CommandError(f"player {player} cannot choose a loadout now (phase {state.phase})")
            out = _loadout(state, command) if isinstance(command, ChooseLoadout) else _forfeit(state, command)
        case Act() | EndTurn():
            if state.phase != TURN or state.current != player:
                raise CommandError(f"it is not player {player}'s turn (phase {state.phase}, to move: "
                                   f"{list(state.to_move)})")
            out = _act(state, command)
        case Stop():
            if state.phase != TURN or state.current != player:
                raise CommandError(f"a game is stopped before the turn of the player to move, not player {player}'s "
                                   f"(phase {state.phase}, to move: {list(state.to_move)})")
            out = Out(state)
            out.cause = out.emit(CommandReceived, "R-WALL-CLOCK", player=player, kind=STOP, text=command.text(),
                                 turn=state.turn).seq
            out.end_game("wall-clock", "R-WALL-CLOCK")
        case _:
            raise CommandError(f"not a Skyport command: {command!r}")
    return out.events, out.state


def _loadout(state: SkyportState, command: ChooseLoadout) -> Out:
    out = Out(state)
    p = command.player
    out.cause = out.emit(CommandReceived, "R-LOADOUT", player=p, kind=LOADOUT_KIND, text=command.text()).seq
    error = loadout_error(command.primary, command.secondary)
    if error:
        out.emit(LoadoutRejected, "R-LOADOUT", player=p, primary=command.primary, secondary=command.secondary,
                 error=error)
        return out
    out.emit(LoadoutChosen, "R-LOADOUT", player=p, primary=command.primary, secondary=command.secondary)
    if all(r.has_loadout for r in out.state.robots):
        next_turn(out)
    return out


FORFEIT_LOADOUT = ("laser", "mortar")
"""The weapons of a seat whose client did not join (R-FORFEIT)."""


def _forfeit(state: SkyportState, command: Forfeit) -> Out:
    out = Out(state)
    p = command.player
    out.cause = out.emit(CommandReceived, "R-FORFEIT", player=p, kind=FORFEIT, text=command.text()).seq
    out.emit(LoadoutChosen, "R-FORFEIT", player=p, primary=FORFEIT_LOADOUT[0], secondary=FORFEIT_LOADOUT[1])
    if all(r.has_loadout for r in out.state.robots):
        next_turn(out)
    return out


def loadout_error(primary: str, secondary: str) -> str:
    """The server's message refusing a loadout, or "" (R-LOADOUT)."""
    if primary not in WEAPONS:
        return f"Invalid primary weapon: '{primary}'"
    if secondary not in WEAPONS:
        return f"Invalid secondary weapon: '{secondary}'"
    if primary == secondary:
        return "Invalid loadout: Can't have the same weapon twice."
    return ""


def _act(state: SkyportState, command: Act | EndTurn) -> Out:
    out = Out(state)
    p = command.player
    if isinstance(command, EndTurn):
        out.cause = out.emit(CommandReceived, "R-TURN", player=p, kind=END, turn=state.turn, index=state.used).seq
        end_turn(out, p, by_shot=False)
        return out
    index = state.used
    text = command.text()
    out.cause = out.emit(CommandReceived, "R-ACTIONS", player=p, kind=ACTION, text=text, turn=state.turn,
                         index=index).seq
    valid, shot = perform(out, p, command.action, index, text)
    if out.state.phase == ENDED:  # the action stopped the server (R-MORTAR-CRASH)
        return out
    if (valid and shot) or out.state.used >= state.rules.actions_per_turn:
        end_turn(out, p, by_shot=valid and shot)
    return out


def end_turn(out: Out, player: int, by_shot: bool) -> None:
    """The turn of `player` is over: a turn without a valid action costs the idle penalty (R-IDLE), ending it
    on the spawn tile the spawn penalty (R-SPAWN-PENALTY); then the next turn or the end (R-END)."""
    s = out.state
    rules = s.rules
    robot = s.robots[player]
    if not by_shot and s.valid == 0:
        out.emit(Penalized, "R-IDLE", player=player, points=rules.idle_penalty, reason="idle")
    if robot.position == robot.spawn:
        out.emit(Penalized, "R-SPAWN-PENALTY", player=player, points=rules.spawn_penalty, reason="spawn")
    out.emit(TurnEnded, "R-TURN", player=player, turn=s.turn, used=s.used, valid=s.valid)
    next_turn(out)


def next_turn(out: Out) -> None:
    """Begin the next turn (R-TURN), or end the game when the turn limit is reached (R-END)."""
    s = out.state
    if s.turn + 1 > s.rules.turn_limit:
        out.end_game("turn-limit", "R-END")
        return
    n = len(s.order)
    cursor = s.cursor
    while True:
        cursor = (cursor + 1) % n
        robot = s.robots[s.order[cursor]]
        if robot.has_to_pass:
            out.emit(TurnSkipped, "R-RESPAWN", player=robot.slot)
            continue
        if robot.needs_respawn:
            out.emit(Respawned, "R-RESPAWN", player=robot.slot, position=robot.spawn, health=s.rules.health)
        break
    order = tuple(s.order[(cursor + i) % n] for i in range(n))
    out.emit(TurnStarted, "R-TURN", turn=s.turn + 1, player=order[0], order=order)


__all__ = ["decide", "decide_and_apply", "loadout_error", "end_turn", "next_turn"]
