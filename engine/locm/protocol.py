"""The referee protocol: the exact text each player is sent (R-INPUT) and how an answer is read (R-ACTIONS).

Rendering is a pure function of the state. Parsing follows the referee: a line split on `;`, blank items
ignored, items trimmed as Java's `String.trim()` does, case-sensitive verbs, arguments separated by single
spaces, free text after the last argument. Anything the referee cannot read raises `ProtocolError`.
"""

from __future__ import annotations

import re

from locm.events.locm.cards import CREATURE, Card, keywords_to_str
from locm.engine.locm.commands import Attack, Command, Pass, Summon, Use
from locm.engine.errors import ProtocolError
from locm.engine.locm.rulesets import Ruleset
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT, GameState, Player

_JAVA_TRIM = "".join(chr(i) for i in range(33))
# Integer.parseInt reads any Unicode decimal digit (Character.digit), as Python's \d and int() do.
_JAVA_INT = re.compile(r"[+-]?\d+\Z")
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
DRAFT_OFFER = 3


# --- rendering (R-INPUT) ----------------------------------------------------------------------------------


def render_input(state: GameState, player: int) -> str:
    """The text the referee sends `player` now: draft, construct or battle input, each line ending in \\n."""
    if state.phase == BATTLE:
        return _battle_input(state, player)
    if state.phase == DRAFT:
        return _draft_input(state, player)
    if state.phase == CONSTRUCT:
        return _construct_input(state)
    raise ProtocolError(f"no input to render in the {state.phase} phase")


def _card_line(c: Card, id: int, location: int, attack: int, defense: int, keywords: int, lane: int,
               zeroed: bool, area: bool) -> str:
    if zeroed:
        effects = "0 0 0"
    else:
        effects = f"{c.my_health} {c.opp_health} {c.draw}"
    mid = f" {c.area}" if area else ""
    return (f"{c.base_id} {id} {location} {c.type} {c.cost} {attack} {defense} {keywords_to_str(keywords)} "
            f"{effects}{mid} {lane} ")


def _offered_line(c: Card, area: bool) -> str:
    return _card_line(c, -1, 0, c.attack, c.defense, c.keywords, -1, False, area)


def _draft_input(state: GameState, p: int) -> str:
    # The referee's mock player lines (DraftPhase.getMockPlayersInput): the round as both "decks", player 1
    # seeing player 0 one card ahead. Both inputs of a round are sent before either answer is read, so they
    # do not depend on what player 0 picks.
    rnd = state.round
    cards = state.cards
    rules = state.rules
    health, rune = rules.start_health, rules.runes[0] if rules.runes else 0  # 30 and 25 in 1.2
    lines = [f"{health} 0 {rnd} {rune} 0", f"{health} 0 {rnd + p} {rune} 0", "0 0", str(DRAFT_OFFER)]
    lines += [_offered_line(cards[b], False) for b in state.offer]
    return "\n".join(lines) + "\n"


def _construct_input(state: GameState) -> str:
    cards = sorted(state.cards.values(), key=lambda c: c.base_id)
    mock = f"{state.rules.start_health} 0 0 0"  # 30 in 1.5
    lines = [mock, mock, "0 0", str(len(cards))]
    lines += [_offered_line(c, True) for c in cards]
    return "\n".join(lines) + "\n"


def _battle_input(state: GameState, p: int) -> str:
    rules = state.rules
    me, op = state.players[p], state.players[1 - p]
    lines = [_player_line(me, rules), _player_line(op, rules), f"{len(op.hand)} {len(op.actions)}"]
    lines += [f"{b} {verb} {i} {arg}" for b, verb, i, arg in op.actions]
    area = rules.input_area
    quirk = rules.zeroed_fields_quirk
    cards = []
    for u in me.hand:
        c = u.card
        cards.append(_card_line(c, u.id, 0, u.attack, u.defense, u.keywords, -1, False, area))
    for loc, side in ((1, me.board), (-1, op.board)):
        for u in side:
            cards.append(_card_line(u.card, u.id, loc, u.attack, u.defense, u.keywords, u.lane,
                                    quirk and u.touched, area))
    lines.append(str(len(cards)))
    lines += cards
    return "\n".join(lines) + "\n"


def _player_line(pl: Player, rules: Ruleset) -> str:
    deck = len(pl.deck)
    if rules.input_runes:
        return f"{pl.health} {pl.max_mana} {deck} {pl.next_rune} {pl.draw_shown}"
    return f"{pl.health} {pl.max_mana} {deck} {pl.draw_shown}"


# --- parsing (R-ACTIONS) ----------------------------------------------------------------------------------


def java_trim(s: str) -> str:
    return s.strip(_JAVA_TRIM)


def java_int(token: str, what: str, text: str) -> int:
    """Integer.parseInt: optional sign, decimal digits (any script), 32-bit range; else a hard error."""
    if not _JAVA_INT.match(token):
        raise ProtocolError(f"{what}: expected an integer, got {token!r}", text)
    v = int(token)
    if not _INT_MIN <= v <= _INT_MAX:
        raise ProtocolError(f"{what}: {token} does not fit a 32-bit integer", text)
    return v


def items(line: str) -> list[str]:
    """The non-blank, trimmed items of an answer line."""
    out = []
    for raw in line.split(";"):
        item = java_trim(raw)
        if item:
            out.append(item)
    return out


def _args(item: str, n: int, text: str) -> tuple[str, list[int]]:
    parts = item.split(" ")
    verb = parts[0]
    if len(parts) < n + 1:
        raise ProtocolError(f"{verb} needs {n} argument{'s' if n > 1 else ''}: {item!r}", text)
    return verb, [java_int(parts[k + 1], f"{verb} argument {k + 1}", text) for k in range(n)]


_BATTLE_VERBS = {"SUMMON": Summon, "ATTACK": Attack, "USE": Use}


def parse_battle(line: str) -> list[Command]:
    """A battle answer as commands, in order. PASS items are kept (they are skipped when played)."""
    text = line
    out: list[Command] = []
    for item in items(line):
        verb = item.split(" ", 1)[0]
        if verb == "PASS":
            out.append(Pass())
            continue
        cls = _BATTLE_VERBS.get(verb)
        if cls is None:
            raise ProtocolError(f"unknown action {verb!r}: expected SUMMON, ATTACK, USE or PASS", text)
        _, (a, b) = _args(item, 2, text)
        out.append(cls(a, b))
    return out


def parse_pick(line: str, offer: tuple[int, ...]) -> int:
    """A 1.2 draft answer: `PICK n`, `CHOOSE baseId` (one of the offer) or `PASS` (the first card).

    Unlike a battle answer, the referee reads the draft line as it is (`action.split(" ", 3)` in its
    DraftPhase): no `;` items and no trimming, so `PASS;` or ` PICK 1` is a hard error.
    """
    command = line.split(" ", 2)
    verb = command[0]
    if verb == "PASS":
        return 0
    if verb not in ("PICK", "CHOOSE"):
        raise ProtocolError(f"unknown draft action {verb!r}: expected PICK, CHOOSE or PASS", line)
    if len(command) < 2:
        raise ProtocolError(f"{verb} needs 1 argument: {line!r}", line)
    if verb == "PICK":
        n = java_int(command[1], "PICK argument", line)
        if not 0 <= n < len(offer):
            raise ProtocolError(f"PICK {n}: expected 0..{len(offer) - 1}", line)
        return n
    b = java_int(command[1], "CHOOSE argument", line)
    if b not in offer:
        raise ProtocolError(f"CHOOSE {b}: not one of the offered cards {' '.join(map(str, offer))}", line)
    return offer.index(b)


def parse_construct(line: str, pool_size: int, deck_size: int, max_copies: int) -> tuple[int, ...]:
    """A 1.5 constructed answer: `CHOOSE baseId` items and/or `PASS`, checked as a whole deck
    (`construct.deck_problem`: cards of the pool, at most `max_copies` copies, `deck_size` cards)."""
    from locm.engine.locm.construct import deck_problem, fill_deck

    chosen: list[int] = []
    for item in items(line):
        verb = item.split(" ", 1)[0]
        if verb == "PASS":
            # A bare PASS fills the deck; `PASS text` takes one card: the first with fewer than max_copies.
            fill_deck(chosen, pool_size, deck_size if item == "PASS" else len(chosen) + 1, max_copies)
            continue
        if verb != "CHOOSE":
            raise ProtocolError(f"unknown constructed action {verb!r}: expected CHOOSE or PASS", line)
        _, (b,) = _args(item, 1, line)
        chosen.append(b)
    reason = deck_problem(chosen, pool_size, deck_size, max_copies)
    if reason is not None:
        raise ProtocolError(reason, line)
    return tuple(chosen)


__all__ = ["render_input", "parse_battle", "parse_pick", "parse_construct", "java_trim", "java_int", "CREATURE"]
