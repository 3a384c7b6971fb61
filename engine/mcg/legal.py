"""Legality: `problem(state, command)` says why a command is not legal now (with its rule), and
`legal_actions(state)` lists the legal commands of the player to move. They are one source: the list is the
candidates for which `problem` finds nothing, so a bot choosing from the list and `decide` judging an
answer can never disagree, and every rejection's reason (R-REJECT) is the one `problem` gives.

Surrender (R-SURRENDER) is always possible for either player and is not listed.
"""

from __future__ import annotations

from itertools import combinations

from locm.engine.mcg.cards import chosen_target
from locm.engine.mcg.commands import Attack, ChooseStarter, Command, EndTurn, Mulligan, Play
from locm.engine.mcg.state import CHOOSE, ENDED, MAIN, MULLIGAN, McgState
from locm.events.mcg.rules import MONSTER

_PHASE_OF: dict[type[Command], str] = {ChooseStarter: CHOOSE, Mulligan: MULLIGAN, Play: MAIN, Attack: MAIN,
                                       EndTurn: MAIN}


def to_move(state: McgState) -> int:
    """The seat whose answer the game waits for, or -1 once it has ended."""
    return -1 if state.phase == ENDED else state.current


def legal_actions(state: McgState) -> list[Command]:
    """Every legal command of the player to move, in a fixed order (empty once the game has ended)."""
    return [c for c in _candidates(state) if problem(state, c) is None]


def problem(state: McgState, command: Command) -> str | None:
    """Why `command` cannot be played now, with the rule it breaks, or None when it is legal."""
    if state.phase == ENDED:
        return "the game is over"
    phase = _PHASE_OF.get(type(command))
    if phase is None:
        return f"not an action: {type(command).__name__}"
    p = command.player
    if p != state.current:
        return f"it is seat {state.current}'s move, not seat {p}'s"
    if phase != state.phase:
        return f"{command.action()['do']} is an action of the {phase} phase; this is the {state.phase} phase"
    match command:
        case ChooseStarter():
            if command.first not in (0, 1):
                return f"the starting seat is 0 or 1, not {command.first} (R-COIN)"
            return None
        case Mulligan():
            return _mulligan_problem(state, command)
        case Play():
            return _play_problem(state, command)
        case Attack():
            return _attack_problem(state, command)
        case EndTurn():
            return None
    return f"not an action: {type(command).__name__}"  # pragma: no cover - _PHASE_OF lists every case


def target_ok(state: McgState, player: int, kind: str, target: int) -> bool:
    """Whether `target` is a character of `kind` (R-SPELL) for `player`."""
    if target in (0, 1):
        return kind == "character" or (kind == "enemy_character" and target != player)
    m = state.monsters.get(target)
    if m is None:
        return False
    if kind in ("monster", "character"):
        return True
    if kind == "own_monster":
        return m.side == player
    return m.side != player  # enemy_monster, enemy_character


def _mulligan_problem(state: McgState, command: Mulligan) -> str | None:
    pl = state.players[command.player]
    limit = state.rules.mulligan_max
    if pl.mulliganed:
        return "a player has one mulligan only (R-MULLIGAN)"
    if len(command.ids) > limit:
        return f"at most {limit} cards go back, not {len(command.ids)} (R-MULLIGAN)"
    if len(set(command.ids)) != len(command.ids):
        return "a card goes back once (R-MULLIGAN)"
    for i in command.ids:
        if i not in pl.hand:
            return f"card #{i} is not in seat {command.player}'s hand (R-MULLIGAN)"
    if list(command.ids) != sorted(command.ids):
        return "the cards going back are listed by id, smallest first (R-MULLIGAN)"
    return None


def _play_problem(state: McgState, command: Play) -> str | None:
    p = command.player
    pl = state.players[p]
    if command.id not in pl.hand:
        return f"card #{command.id} is not in seat {p}'s hand (R-PLAY)"
    card = state.card(command.id)
    if card.cost > pl.mana:
        return f"{card.name} costs {card.cost} mana, seat {p} has {pl.mana} (R-MANA)"
    if card.type == MONSTER:
        if len(pl.board) >= state.rules.board_size:
            return f"seat {p}'s side already holds {state.rules.board_size} monsters (R-SUMMON)"
        if command.target != -1:
            return f"{card.name} is a monster: it is played without a target (R-SUMMON)"
        return None
    kind = chosen_target(card)
    if not kind:
        if command.target != -1:
            return f"{card.name} takes no target (R-SPELL)"
        return None
    if command.target == -1:
        return f"{card.name} needs a target: {kind.replace('_', ' ')} (R-SPELL, R-EQUIP)"
    if not target_ok(state, p, kind, command.target):
        return f"{card.name} is played on a {kind.replace('_', ' ')}, not on #{command.target} (R-SPELL, R-EQUIP)"
    return None


def _attack_problem(state: McgState, command: Attack) -> str | None:
    p = command.player
    m = state.monsters.get(command.id)
    if m is None or m.side != p:
        return f"#{command.id} is not a monster on seat {p}'s side (R-ATTACK)"
    if m.summoned_turn == state.turn:
        return f"{m.card.name} was summoned this turn and cannot attack yet (R-ATTACK)"
    if m.attacked:
        return f"{m.card.name} has already attacked this turn (R-ATTACK)"
    t = command.target
    if t == 1 - p:
        return None
    target = state.monsters.get(t)
    if target is None or target.side == p:
        return f"a monster attacks an enemy monster or the enemy player, not #{t} (R-ATTACK)"
    return None


def _candidates(state: McgState) -> list[Command]:
    """A superset of the legal commands of the player to move."""
    p = state.current
    if state.phase == CHOOSE:
        return [ChooseStarter(p, 0), ChooseStarter(p, 1)]
    if state.phase == MULLIGAN:
        hand = sorted(state.players[p].hand)
        out: list[Command] = []
        for k in range(min(state.rules.mulligan_max, len(hand)) + 1):
            out += [Mulligan(p, ids) for ids in combinations(hand, k)]
        return out
    if state.phase != MAIN:
        return []
    pl = state.players[p]
    characters = [0, 1, *state.players[0].board, *state.players[1].board]
    out = []
    for i in pl.hand:
        card = state.card(i)
        if card.type == MONSTER or not chosen_target(card):
            out.append(Play(p, i))
        else:
            out += [Play(p, i, t) for t in characters]
    enemy = [1 - p, *state.players[1 - p].board]
    for i in pl.board:
        out += [Attack(p, i, t) for t in enemy]
    out.append(EndTurn(p))
    return out


__all__ = ["legal_actions", "problem", "to_move", "target_ok"]
