"""`decide(state, command) -> events` for my-card-game: validate a command and emit the facts it causes.

Every command is first recorded as a `command_received` (its text: the command's line of the bot protocol, or
the line a bot sent); the facts it causes carry that record's seq as their cause. A player's mistake is a
fact like any other: an illegal action is rejected with the reason `legal.problem` gives (R-REJECT), an answer
that is not an answer loses (R-ANSWER). Only a caller's mistake raises `CommandError`: a command after the end
of the game, or an action of the seat that is not to move (a runner asks only the seat to move; surrender
and inactivity are accepted from either seat at any time, R-SURRENDER).
"""

from __future__ import annotations

from locm.engine.errors import CommandError, ProtocolError
from locm.engine.mcg.actions import attack, play
from locm.engine.mcg.commands import (
    Attack, BadAnswer, ChooseStarter, Command, EndTurn, Mulligan, Play, Surrender, Timeout,
)
from locm.engine.mcg.emit import Out, end_game
from locm.engine.mcg.legal import problem
from locm.engine.mcg.protocol import MAX_LINE, parse_answer
from locm.engine.mcg.state import ENDED, McgState
from locm.engine.mcg.turns import choose_starter, end_turn, mulligan
from locm.events.mcg.catalog import (
    BAD_ANSWER, INACTIVITY, REJECTIONS, SURRENDER, TIMEOUT, ActionRejected, CommandReceived, Event, HardError,
    Surrendered,
)

_RULE_OF: dict[type[Command], str] = {
    ChooseStarter: "R-COIN", Mulligan: "R-MULLIGAN", Play: "R-PLAY", Attack: "R-ATTACK", EndTurn: "R-END-PHASE",
    Surrender: "R-SURRENDER", Timeout: "R-INACTIVE", BadAnswer: "R-ANSWER",
}


def decide(state: McgState, command: Command, text: str | None = None) -> list[Event]:
    """The events `command` causes in `state`; `text` is the line as a bot sent it (else the command's own)."""
    return decide_and_apply(state, command, text)[0]


def decide_and_apply(state: McgState, command: Command, text: str | None = None) -> tuple[list[Event], McgState]:
    """The events of `command`, and the state they lead to (`state` itself is not changed)."""
    rule = _RULE_OF.get(type(command))
    if rule is None:
        raise CommandError(f"not a my-card-game command: {command!r}", command)
    p = command.player
    if state.phase == ENDED:
        raise CommandError(f"the game is over; seat {p} cannot {type(command).__name__}", command)
    if p not in (0, 1):
        raise CommandError(f"no seat {p}: expected 0 or 1", command)
    timeout = type(command) is Timeout
    if not timeout and type(command) not in (Surrender, BadAnswer) and p != state.current:
        raise CommandError(f"it is seat {state.current}'s move, not seat {p}'s", command)
    out = Out(state)
    line = command.text() if text is None else text
    out.cause = out.emit(CommandReceived, rule, -1, player=p, text=line, kind=TIMEOUT if timeout else "action").seq
    match command:
        case Timeout():
            out.emit(Surrendered, rule, player=p, inactive=True)
            end_game(out, 1 - p, INACTIVITY, rule)
        case Surrender():
            out.emit(Surrendered, rule, player=p)
            end_game(out, 1 - p, SURRENDER, rule)
        case BadAnswer():
            error = out.emit(HardError, rule, player=p, reason=command.reason)
            end_game(out, 1 - p, BAD_ANSWER, rule, error.seq)
        case _:
            reason = problem(state, command)
            if reason is not None:
                _reject(out, p, command, reason)
            else:
                _act(out, command)
    return out.events, out.state


def decide_line(state: McgState, player: int, line: str) -> list[Event]:
    """A bot's answer line: parsed (`protocol.parse_answer`) and decided, recorded as received (bounded);
    a line that is not an answer loses (R-ANSWER)."""
    kept = line.rstrip("\r\n")[:MAX_LINE + 1]  # longer is refused as too long either way; the record is bounded
    try:
        command: Command = parse_answer(kept, player)
    except ProtocolError as exc:
        command = BadAnswer(player, kept, str(exc))
    return decide(state, command, kept)


def _reject(out: Out, player: int, command: Command, reason: str) -> None:
    out.emit(ActionRejected, "R-REJECT", player=player, action=command.text(), reason=reason)
    if out.state.players[player].rejections >= out.state.rules.rejection_limit:
        end_game(out, 1 - player, REJECTIONS, "R-CAP")


def _act(out: Out, command: Command) -> None:
    p = command.player
    match command:
        case ChooseStarter():
            choose_starter(out, p, command.first, "R-COIN")
        case Mulligan():
            mulligan(out, p, command.ids)
        case Play():
            play(out, p, command.id, command.target)
        case Attack():
            attack(out, p, command.id, command.target)
        case EndTurn():
            end_turn(out, p)
        case _:  # pragma: no cover - `problem` refuses every other command
            raise CommandError(f"not an action: {command!r}", command)


__all__ = ["decide", "decide_and_apply", "decide_line"]
