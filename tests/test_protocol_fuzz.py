"""Fuzzing the referee protocol (R-ACTIONS, R-DRAFT, R-CONSTRUCT).

- The answer parsers, given any text, return commands or raise `ProtocolError`; nothing else escapes.
- `Game.answer(player, text)` on a live draft, constructed or battle game never raises: it plays the line,
  or records a `hard_error` followed by `game_ended` won by the other player.
- Example cases pin the referee's reading of an answer line.

Texts come from `st.text()` and from the alphabet of real answers (verbs, digits, signs, separators,
non-ASCII digits and spaces, numbers at and past the 32-bit limits). Game seeds are drawn by Hypothesis,
so a failure prints them.
"""

from __future__ import annotations

import pytest
from hypothesis import event, example, given, note, settings, strategies as st

from locm.events.locm.catalog import (
    ActionReceived, CardPicked, DeckChosen, GameEnded, HardError, TurnEnded, TurnStarted,
)
from locm.engine.locm import protocol
from locm.engine.locm.agents import RandomAgent
from locm.engine.locm.commands import Attack, Pass, Summon, Use
from locm.engine.errors import LocmError, ProtocolError
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT

RULESETS = ("1.2", "constructed")
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
SEEDS = st.one_of(st.sampled_from([0, 1, 42, 12700, -1]), st.integers(-(2**63), 2**63 - 1))

# --- texts ------------------------------------------------------------------------------------------------

VERBS = ("SUMMON", "ATTACK", "USE", "PASS", "PICK", "CHOOSE")
NUMBER_WORDS = (
    "0", "1", "2", "-1", "+5", "-0", "+-1", "--1", "+", "-", "007", "5.0", "1e3", "0x10",
    "\u0663", "\u0661\u0662", "\uff11", "\u00b2",  # Arabic-Indic, fullwidth and superscript digits
    "2147483647", "2147483648", "-2147483648", "-2147483649", "99999999999", "9" * 40,
)
SEPARATORS = (" ", "  ", "\t", ";", ";;", " ; ", "\n", "\r\n", "\x00", "\x0b", "\u00a0", "\u3000", "")

numbers = st.one_of(st.integers(-3, 130).map(str), st.sampled_from(NUMBER_WORDS), st.integers().map(str))
verbs = st.one_of(st.sampled_from(VERBS), st.sampled_from(VERBS).map(str.lower), st.sampled_from(VERBS).map(str.title))
tokens = st.one_of(verbs, numbers, st.sampled_from(SEPARATORS), st.text(max_size=3))
alphabet_texts = st.lists(tokens, max_size=14).map("".join)


@st.composite
def item_texts(draw, ids=st.integers(-3, 130)):
    """Answer lines of well-formed-looking items: most readable, some malformed in one way."""
    out = []
    for _ in range(draw(st.integers(0, 5))):
        off = draw(st.sampled_from([None, None, None, None, None, "verb", "argn", "arg", "sep"]))
        verb = draw(verbs if off == "verb" else st.sampled_from(VERBS[:4]))
        argn = draw(st.sampled_from([0, 1, 1, 3])) if off == "argn" else 2
        args = [str(draw(ids)) for _ in range(argn)]
        if off == "arg" and args:
            args[draw(st.integers(0, len(args) - 1))] = draw(numbers)
        sep = draw(st.sampled_from(["  ", "\t", " \t"])) if off == "sep" else " "
        item = sep.join([verb, *args]) + draw(st.sampled_from(["", "", " free text", "\t", "  "]))
        out.append(draw(st.sampled_from(["", "", " ", "\t"])) + item)
    return draw(st.sampled_from([";", ";", " ;", ";;"])).join(out)


answer_texts = st.one_of(st.text(), alphabet_texts, item_texts())

# --- the parsers alone ------------------------------------------------------------------------------------


def _protocol_error(exc: ProtocolError, text: str) -> None:
    assert isinstance(exc, LocmError)
    assert exc.text == text
    assert "\n" not in str(exc) and str(exc)


@settings(deadline=None, max_examples=300)
@given(text=answer_texts)
@example(text="SUMMON 5 0;ATTACK 1 -1;USE 2 -1;PASS")
def test_parse_battle_returns_commands_or_raises_protocol_error(text):
    try:
        commands = protocol.parse_battle(text)
    except ProtocolError as exc:
        event("hard error")
        _protocol_error(exc, text)
        return
    event("read")
    assert len(commands) == len(protocol.items(text))  # one command per non-blank item
    for c in commands:
        assert type(c) in (Summon, Attack, Use, Pass)
        if type(c) is not Pass:
            for v in (c.id, c.lane if type(c) is Summon else c.target):
                assert type(v) is int and INT32_MIN <= v <= INT32_MAX


@settings(deadline=None, max_examples=200)
@given(text=answer_texts, offer=st.lists(st.integers(1, 160), min_size=3, max_size=3).map(tuple))
@example(text="CHOOSE 12", offer=(12, 12, 3))
def test_parse_pick_returns_an_index_or_raises_protocol_error(text, offer):
    try:
        index = protocol.parse_pick(text, offer)
    except ProtocolError as exc:
        _protocol_error(exc, text)
        return
    assert type(index) is int and 0 <= index < len(offer)


@settings(deadline=None, max_examples=200)
@given(text=st.one_of(answer_texts, st.lists(st.integers(-2, 121).map(lambda b: f"CHOOSE {b}"), max_size=33)
                      .map(";".join)))
@example(text="PASS")
@example(text=";".join(["CHOOSE 3"] * 3 + ["PASS"]))
def test_parse_construct_returns_a_deck_or_raises_protocol_error(text):
    try:
        deck = protocol.parse_construct(text, 120, 30, 2)
    except ProtocolError as exc:
        _protocol_error(exc, text)
        return
    assert len(deck) == 30
    assert all(type(b) is int and 0 <= b < 120 for b in deck)
    assert max(deck.count(b) for b in deck) <= 2


# --- the referee's reading, pinned (R-ACTIONS) --------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("  SUMMON 5 0 free text ;; PASS ;", [Summon(5, 0), Pass()]),
        ("SUMMON +5 0", [Summon(5, 0)]),  # Integer.parseInt accepts a sign
        ("SUMMON 5 -0", [Summon(5, 0)]),
        ("ATTACK 7 -1;USE 3 12", [Attack(7, -1), Use(3, 12)]),
        ("\tATTACK 7 -1\t", [Attack(7, -1)]),  # items are trimmed as String.trim() does
        ("SUMMON 2147483647 -2147483648", [Summon(INT32_MAX, INT32_MIN)]),
        ("PASS", [Pass()]),
        ("PASS now please", [Pass()]),
        ("", []),  # an empty line is no action
        (" ; ;;\t", []),
    ],
)
def test_battle_lines_that_parse(text, expected):
    assert protocol.parse_battle(text) == expected


HARD_ERRORS = [
    "SUMMON 5",  # a missing argument
    "summon 5 0",  # verbs are case-sensitive
    "SUMMON  5 0",  # arguments are separated by single spaces
    "SUMMON 5 99999999999",  # does not fit 32 bits
    "SUMMON 2147483648 0",
    "SUMMON 5 0;FLY 1 2",  # an unknown verb anywhere in the line
    "SUMMON x 0",
    "SUMMON\t5 0",
    "PICK 0",  # a draft verb in battle
]


@pytest.mark.parametrize("text", HARD_ERRORS)
def test_battle_lines_that_are_hard_errors(text):
    with pytest.raises(ProtocolError) as info:
        protocol.parse_battle(text)
    _protocol_error(info.value, text)


@pytest.mark.parametrize("text", HARD_ERRORS)
def test_a_hard_error_line_loses_the_game(text):
    game = _battle_game("1.2", 12700, 3)
    p = game.state.current
    events = game.answer(p, text)
    assert [type(e) for e in events] == [ActionReceived, HardError, GameEnded]
    assert events[1].player == p and events[1].text == text
    assert events[2].winner == 1 - p and events[2].reason == "hard_error"
    assert game.ended and game.winner == 1 - p


def test_an_empty_line_only_ends_the_turn():
    game = _battle_game("constructed", 12700, 2)
    p = game.state.current
    events = game.answer(p, "")
    assert [type(e) for e in events[:3]] == [ActionReceived, TurnEnded, TurnStarted]
    assert events[2].player == 1 - p


@pytest.mark.parametrize(
    "text, index",
    [("PICK 2", 2), ("PASS", 0), ("PICK 1 because ;", 1), ("PICK +1", 1)],
)
def test_draft_lines_that_parse(text, index):
    assert protocol.parse_pick(text, (10, 20, 30)) == index


@pytest.mark.parametrize("text", ["", "PICK 3", "PICK -1", "PICK", "pick 1", "CHOOSE 11", "SUMMON 1 0", "PICK  1",
                                  "  PICK 1 because ;", "PASS;"])
def test_draft_lines_that_are_hard_errors(text):
    with pytest.raises(ProtocolError):
        protocol.parse_pick(text, (10, 20, 30))


def test_draft_choose_names_an_offered_card():
    assert protocol.parse_pick("CHOOSE 20", (10, 20, 30)) == 1


def test_constructed_lines():
    assert protocol.parse_construct("PASS", 120, 30, 2) == tuple(b // 2 for b in range(30))
    assert protocol.parse_construct("CHOOSE 119;CHOOSE 119;PASS", 120, 30, 2)[:3] == (119, 119, 0)
    for bad in ["", "CHOOSE 1", "PICK 0", ";".join(["CHOOSE 1"] * 3 + ["PASS"]), "CHOOSE 120;PASS",
                ";".join(["CHOOSE 5"] * 2 + ["CHOOSE 6"] * 2 + ["PASS", "CHOOSE 7"])]:
        with pytest.raises(ProtocolError):
            protocol.parse_construct(bad, 120, 30, 2)


# --- Game.answer on live games ------------------------------------------------------------------------------


def _battle_game(ruleset: str, seed: int, turns: int) -> Game:
    """A game past deck building, `turns` random turns into the battle (or over, if it ended sooner)."""
    game = Game.new(ruleset, seed)
    agents = (RandomAgent(seed), RandomAgent(~seed))
    while not game.ended and (game.phase != BATTLE or turns > 0):
        if game.phase == BATTLE:
            turns -= 1
        p = game.state.current
        agents[p].play_turn(game, p)
    return game


def _deck_game(ruleset: str, seed: int, picks: int) -> Game:
    """A game in its draft (after up to 59 random picks) or constructed phase (after 0 or 1 deck)."""
    game = Game.new(ruleset, seed)
    agents = (RandomAgent(seed), RandomAgent(~seed))
    limit = 59 if game.phase == DRAFT else 1
    for _ in range(min(picks, limit)):
        p = game.state.current
        agents[p].play_turn(game, p)
    return game


def _parses(state, text: str) -> bool:
    """Whether the referee reads `text` in this phase (the parser is the oracle; it is pinned above)."""
    try:
        if state.phase == BATTLE:
            protocol.parse_battle(text)
        elif state.phase == DRAFT:
            protocol.parse_pick(text, state.offer)
        else:
            protocol.parse_construct(text, len(state.cards), state.rules.deck_size, state.rules.max_copies)
    except ProtocolError:
        return False
    return True


def _check_answer(game: Game, text: str) -> None:
    state = game.state
    p, phase, offer = state.current, state.phase, state.offer
    start = len(game.log)
    readable = _parses(state, text)
    note(f"phase={phase} player={p} readable={readable}")
    events = game.answer(p, text)  # must not raise, whatever the text
    assert events == game.log[start:]
    rec = events[0]
    assert type(rec) is ActionReceived and rec.player == p and rec.text == text and rec.cause == -1
    assert all(rec.seq <= e.cause < e.seq for e in events[1:])  # caused by the record or by what it caused
    assert [e.seq for e in events] == list(range(start, start + len(events)))
    kinds = [type(e) for e in events]
    event(f"{phase}: {'read' if readable else 'hard error'}")
    if phase == BATTLE and readable:
        played = sum(1 for e in events if type(e).__name__ in ("CreatureSummoned", "CreatureAttacked", "ItemUsed"))
        event(f"battle: an action played: {played > 0}")
    if not readable:
        assert kinds == [ActionReceived, HardError, GameEnded]
        assert events[1].player == p and events[1].text == text
        assert events[2].winner == 1 - p and events[2].reason == "hard_error"
        assert game.ended and game.winner == 1 - p
    else:
        assert HardError not in kinds
        if phase == DRAFT:
            picked = [e for e in events if type(e) is CardPicked]
            assert len(picked) == 1 and picked[0].player == p and picked[0].base_id in offer
        elif phase == CONSTRUCT:
            chosen = [e for e in events if type(e) is DeckChosen]
            assert len(chosen) == 1 and chosen[0].player == p and len(chosen[0].base_ids) == 30
        else:
            ended = [e for e in events if type(e) is GameEnded]
            if ended:
                assert events[-1] is ended[0] and len(ended) == 1 and ended[0].reason != "hard_error"
            else:
                assert TurnEnded in kinds and any(type(e) is TurnStarted and e.player == 1 - p for e in events)
    assert fold(game.log) == game.state


def _junk_tail() -> st.SearchStrategy:
    return st.sampled_from(["", "", " ", "\t", ";", " ;;", " free text", ";PASS"])


@st.composite
def legal_lines(draw, state):
    """A line of actions that are legal now (later items may have become illegal by the time they run)."""
    from locm.engine.locm.legal import legal_actions

    acts = legal_actions(state)
    if not acts:
        return "PASS"
    chosen = draw(st.lists(st.sampled_from(acts), min_size=1, max_size=5))
    sep = draw(st.sampled_from([";", " ;", ";;", "; "]))
    return sep.join(a.text() + draw(st.sampled_from(["", "", " why not"])) for a in chosen) + draw(_junk_tail())


@st.composite
def draft_lines(draw, offer):
    item = draw(st.one_of(st.just("PASS"), st.integers(0, 2).map(lambda i: f"PICK {i}"),
                          st.sampled_from(offer).map(lambda b: f"CHOOSE {b}")))
    return draw(st.sampled_from(["", " ", "\t"])) + item + draw(_junk_tail())


@st.composite
def deck_lines(draw, pool: int = 120, size: int = 30):
    """A constructed answer: a legal deck of CHOOSE items (possibly ended by PASS), or one that is just off."""
    slots = draw(st.lists(st.integers(0, 2 * pool - 1), unique=True, min_size=size, max_size=size))
    deck = [k // 2 for k in slots]  # each baseId at most twice
    kind = draw(st.sampled_from(["full", "full", "pass_fill", "short", "long", "third_copy"]))
    if kind == "pass_fill":
        return ";".join(f"CHOOSE {b}" for b in deck[: draw(st.integers(0, size))]) + ";PASS"
    if kind == "short":
        deck = deck[:-1]
    elif kind == "long":
        deck.append(deck[0] if deck.count(deck[0]) < 2 else (deck[0] + 1) % pool)
    elif kind == "third_copy":
        deck[1] = deck[2] = deck[0]
    return ";".join(f"CHOOSE {b}" for b in deck) + draw(_junk_tail())


@settings(deadline=None, max_examples=150)
@given(ruleset=st.sampled_from(RULESETS), seed=SEEDS, turns=st.integers(0, 20), data=st.data())
@example(ruleset="1.2", seed=12700, turns=0, data=None)
def test_answer_in_battle_never_raises(ruleset, seed, turns, data):
    game = _battle_game(ruleset, seed, turns)
    if game.ended:
        return
    if data is None:  # the explicit example: a line of every legal action, most illegal by their turn
        from locm.engine.locm.legal import legal_actions

        text = ";".join(a.text() for a in legal_actions(game.state))
    else:
        state = game.state
        ids = [u.id for pl in state.players for zone in (pl.hand, pl.board) for u in zone] + [-1]
        known = st.one_of(st.sampled_from(ids), st.integers(-1, 2))
        kind = data.draw(st.sampled_from(["any", "items", "legal"]), label="kind")
        text = data.draw({"any": answer_texts, "items": item_texts(ids=known), "legal": legal_lines(state)}[kind],
                         label="text")
    _check_answer(game, text)


@settings(deadline=None, max_examples=120)
@given(ruleset=st.sampled_from(RULESETS), seed=SEEDS, picks=st.integers(0, 59), data=st.data())
@example(ruleset="constructed", seed=0, picks=0, data=";".join(f"CHOOSE {b}" for b in range(30)))
@example(ruleset="constructed", seed=0, picks=1, data="CHOOSE 0;CHOOSE 0;CHOOSE 0;PASS")
@example(ruleset="1.2", seed=0, picks=0, data="CHOOSE 0")
def test_answer_in_deck_building_never_raises(ruleset, seed, picks, data):
    game = _deck_game(ruleset, seed, picks)
    if isinstance(data, str):
        text = data
    else:
        state = game.state
        readable = draft_lines(state.offer) if state.phase == DRAFT else deck_lines(len(state.cards))
        text = data.draw(readable if data.draw(st.booleans(), label="readable") else answer_texts, label="text")
    _check_answer(game, text)


def test_unicode_decimal_digits_are_read_as_java_reads_them():
    """Integer.parseInt uses Character.digit, so the referee reads Arabic-Indic or fullwidth digits too
    (checked with javac: "٣" is 3, "１２" is 12, "²" is refused)."""
    from locm.engine.locm.commands import Summon
    from locm.engine.errors import ProtocolError
    from locm.engine.locm.protocol import parse_battle

    assert parse_battle("SUMMON ٣ 0") == [Summon(3, 0)]
    assert parse_battle("SUMMON １２ ١") == [Summon(12, 1)]
    with pytest.raises(ProtocolError):
        parse_battle("SUMMON ² 0")
