"""`decide(state, command) -> events`: validate a command against the state and emit the facts it causes.

`decide` never changes the state (nor caches anything in it). A command with ``cause`` -1 is first recorded
as an `ActionReceived` event of kind ``action`` (``end_turn`` for `EndTurn`); the facts it causes carry that
record's ``seq`` as their ``cause``. A command that is one item of an already recorded answer line carries
that line's record as its ``cause``. Dispatch is by the command's exact type (a table, as in
`engine.locm.evolve`); an unknown command raises `CommandError`.
"""

from __future__ import annotations

from typing import Any, Callable, cast

from locm.events.locm.catalog import ACTION, END_TURN, LINE, ActionReceived, Event, GameEnded, HardError
from locm.engine.locm import battle, combat, construct, draft, drawing, items
from locm.engine.locm.commands import Attack, BattleAction, BuildDeck, Command, EndTurn, Pass, Pick, Summon, Use
from locm.engine.locm.emit import Out, win_check
from locm.engine.errors import CommandError
from locm.engine.locm.legal import problem
from locm.engine.locm.state import BATTLE, ENDED, CONSTRUCT, DRAFT, GameState


def decide(state: GameState, command: Command, cause: int = -1,
           legal: tuple[BattleAction, ...] | None = None) -> list[Event]:
    """The events `command` causes in `state`. ``legal``: the legal list of this very state, when the caller
    holds it (a live game's `engine.locm.legal.LegalCache`): a battle action found in it needs no second check."""
    # Runs for every command of every game: one table lookup gives the phase, the handler and the record's
    # kind, and the ended game is looked for only once the phase does not match (ENDED matches no command).
    handler_row = _HANDLERS.get(type(command))
    if handler_row is None or state.phase != handler_row[0]:
        if state.phase == ENDED:
            raise CommandError(f"the game is over; {command.text()} cannot be played", command)
        if handler_row is None:
            raise CommandError(f"not a command: {command!r}", command)
        raise CommandError(f"{command.text()} is not a {state.phase} command", command)
    phase, handler, kind = handler_row
    player = state.current
    if phase == DRAFT and cause == -1:
        quick = _quick_pick(state, player, command)  # type: ignore[arg-type]  # only a Pick is a DRAFT command
        if quick is not None:
            return quick
    out = Out(state, cause)
    if cause == -1:
        out.cause = out.emit(_received(out.seq, player, command.text(), kind))
    if phase == BATTLE:
        p0, p1 = state.players
        if p0.health <= 0 or p1.health <= 0:
            # R-WIN: a player died to its own turn-start draws (empty deck, turn limit). The referee still sends
            # it its input, and ends the game once the answer is in, before any action of it is carried out.
            win_check(out, player)
            return out.events
        if state.seq >= drawing.CAP_EVENTS:  # R-CAP: the log is as long as a game may get
            drawing.cap_end(state, out, player, out.cause)
            return out.events
    handler(state, out, player, command, legal)
    return out.events


def _battle_action(state: GameState, out: Out, player: int, command: BattleAction,
                   legal: tuple[BattleAction, ...] | None) -> None:
    # An action of the legal list (the same predicates, see engine.locm.legal) needs no second check: bots play
    # actions they took from that list, and `problem` would cost a third of the decision.
    reason = None if legal is not None and command in legal else problem(state, command)
    if reason is not None:
        battle.reject(out, player, command, reason)
    elif type(command) is Attack:
        combat.attack(state, out, player, command.id, command.target)
    elif type(command) is Summon:
        battle.summon(state, out, player, command.id, command.lane)
    else:
        use = cast(Use, command)  # the table sends only SUMMON, ATTACK and USE here
        items.use(state, out, player, use.id, use.target)


def _quick_pick(state: GameState, player: int, command: Pick) -> list[Event] | None:
    """A pick that is not the draft's last, as its two events (the record and the `CardPicked`), or None for
    the last (which orders the decks and starts the battle: `_pick` through `Out`).

    Why a path of its own: a game has 60 picks, and the general path (an `Out`, two `emit`s and their calls)
    was a third of a pick's time. The checks are `_pick`'s, the record is `_received`."""
    _check_pick(state, command)
    if draft.is_last_pick(state, player):
        return None
    seq = state.seq
    return [
        _received(seq, player, command.text(), ACTION),
        draft.picked_event(state, seq + 1, seq, player, command.index, False),
    ]


def _end_turn(state: GameState, out: Out, player: int, command: Command, legal: object) -> None:
    drawing.end_turn(state, out, player)


def _pass(state: GameState, out: Out, player: int, command: Command, legal: object) -> None:
    pass


def _pick(state: GameState, out: Out, player: int, command: Pick, legal: object) -> None:
    _check_pick(state, command)
    draft.pick(state, out, command.player, command.index)


def _check_pick(state: GameState, command: Pick) -> None:
    if command.player != state.current:  # tested here first: a call less for each of a game's 60 picks
        _need_player(state, command.player, command)
    if not 0 <= command.index < len(state.offer):
        raise CommandError(f"PICK index must be 0..{len(state.offer) - 1}, got {command.index}", command)


def _build(state: GameState, out: Out, player: int, command: BuildDeck, legal: object) -> None:
    _need_player(state, command.player, command)
    rules = state.rules
    reason = construct.deck_problem(command.base_ids, len(state.cards), rules.deck_size, rules.max_copies)
    if reason is not None:
        raise CommandError(f"not a legal deck: {reason}", command)
    construct.choose_deck(state, out, command.player, command.base_ids)


# The phase a command belongs to, its handler (each takes its own type, and the caller's legal list, which only
# the battle's actions read) and the kind of its record.
_HANDLERS: dict[type[Command], tuple[str, Callable[[GameState, Out, int, Any, Any], None], str]] = {
    Summon: (BATTLE, _battle_action, ACTION),
    Attack: (BATTLE, _battle_action, ACTION),
    Use: (BATTLE, _battle_action, ACTION),
    EndTurn: (BATTLE, _end_turn, END_TURN),
    Pass: (BATTLE, _pass, ACTION),
    Pick: (DRAFT, _pick, ACTION),
    BuildDeck: (CONSTRUCT, _build, ACTION),
}


def hard_error(state: GameState, player: int, reason: str, text: str, cause: int = -1) -> list[Event]:
    """A player's answer the referee does not accept: recorded, and the player loses (R-ACTIONS).

    With ``cause`` -1 (a timeout, a crash: nothing was received) the `HardError` itself is the game's record
    of that input."""
    out = Out(state, cause)
    error = out.emit(HardError(seq=out.seq, cause=cause, rule="R-ACTIONS", player=player, reason=reason, text=text))
    out.emit(
        GameEnded(seq=out.seq, cause=error, rule="R-ACTIONS", winner=1 - player, reason="hard_error", turn=state.turn)
    )
    return out.events


def record(state: GameState, player: int, text: str) -> list[Event]:
    """An answer line as received, before its items are decided one by one."""
    if state.phase == ENDED:
        raise CommandError("the game is over")
    return [_received(state.seq, player, text, LINE)]


def _received(seq: int, player: int, text: str, kind: str) -> ActionReceived:
    """The record of an input as received (R-ACTIONS): the root of the facts it causes."""
    return ActionReceived(seq=seq, cause=-1, rule="R-ACTIONS", player=player, text=text, kind=kind)


def _need_player(state: GameState, p: int, command: Command) -> None:
    if p != state.current:
        raise CommandError(f"it is player {state.current}'s turn, not player {p}'s", command)


__all__ = ["decide", "hard_error", "record", "CONSTRUCT", "DRAFT"]
