"""The Python side of the native (C++) rules core, `locm.engine.locm._native` (source: engine/locm/cpp/core.cpp).

The native core plays a whole game between built-in agents it has (``pass``, ``random``, ``greedy``) from the game's opening
to its end: the draft or construct phase and the battle. The opening (`game_created`, the card pool, the draft
offers: what `engine.locm.setup.create` decides before any choice) is the Python core's, handed in as the state
after it; what comes back is the rest of the log as canonical JSON, decoded here into the very msgspec events
the Python core makes, and the final state, set into the game's `GameState`. So a game played natively is an
ordinary `Game`: the same log, byte for byte, and the same state (the tests compare both with the Python core).

`play_jsonl(rules, seed, agents)` plays a whole game from its seed alone, its opening decided natively too
(`opener`: game_created from a template the Python core makes once for the rules and agents, the seeds, the
draft or the generated pool), and gives its log as JSON lines with no Python object made.

`play(game, agents)` says whether it played the game: it plays only a game still at its opening, with agents of
exactly the classes it has (not subclasses: `locm.games.locm.bots` subclasses them), under the selected core
(`engine.corebuild.core`, ``LOCM_CORE``). Anything else (other agents, answer lines of external bots, a game
already under way, a fold) is the Python core's, which `why_not` says in one line.

`redecide(events)` re-decides a stored log of built-in agents natively (`engine.locm.redecide` uses it under the
native core): its recorded inputs, read from the stored events' JSON in C++, played again through the C++ rules,
and the log that makes compared byte for byte with the stored one, in C++. Only the opening is the Python core's
(made again from `game_created` and compared here).
"""

from __future__ import annotations

from typing import Any, Sequence, cast

import msgspec

from locm.events.base import tag_of
from locm.events.locm.cards import Card
from locm.events.locm.catalog import EVENT_TYPES, CardPoolDefined, DraftOffered, Event, GameCreated
from locm.engine.corebuild import native_module
from locm.engine.locm.agents import _KW_VALUE, Agent, GreedyAgent, PassAgent, RandomAgent
from locm.engine.locm.legal import LegalCache
from locm.engine.locm.rulesets import DRAFT, IDS_12, IDS_COG2022, IDS_REVISED, LOSE_RUNE, RUNES, TEN_DAMAGE, Rules
from locm.engine.locm.state import CONSTRUCT, DRAFT as DRAFT_PHASE, GameState, Unit
from locm.engine.seam import behaviour_of

AGENT_KINDS: dict[type[Agent], int] = {PassAgent: 0, RandomAgent: 1, GreedyAgent: 2}
# greedy's keyword values by mask, summed as `agents.card_score` sums them (Python's own float sum, whatever its
# version does): the native greedy takes them as they are
_KW_VALUES = [sum(v for bit, v in _KW_VALUE.items() if mask & bit) for mask in range(64)]
_SCHEMES = {IDS_12: 0, IDS_COG2022: 1, IDS_REVISED: 2}
_ENCODE = msgspec.json.Encoder().encode


_native, WHY_UNAVAILABLE = native_module("locm")
if _native is not None:
    _native.set_event_types({tag_of(t): t for t in EVENT_TYPES})  # the native core builds the events themselves


def available() -> bool:
    return _native is not None


def inner(agent: Agent) -> Agent:
    """The built-in agent an agent plays with: itself, or the one a wrapper names (``native_inner``: e.g. an agent
    that times another's turns, `locm.games.locm.bots.TimedAgent`, which then takes each turn's time through
    ``native_played(turn_ms)``)."""
    return getattr(agent, "native_inner", agent)


def why_not(game: Any, agents: Sequence[Agent]) -> str | None:
    """Why the native core cannot play this game (one line), or None when it can."""
    if _native is None:
        return WHY_UNAVAILABLE
    for a in agents:
        if type(inner(a)) not in AGENT_KINDS:
            return (f"the native core has no agent {getattr(a, 'name', type(a).__name__)!r} (it has pass, random "
                    "and greedy)")
    state: GameState = game.state
    log = game.log
    behaviour = behaviour_of(state.params) if state.params is not None else 1
    if behaviour != _native.BEHAVIOUR:
        return (f"the native core decides behaviour {_native.BEHAVIOUR} of the rules, not this game's "
                f"{behaviour}")
    if state.phase not in (DRAFT_PHASE, CONSTRUCT) or state.seq != len(log) or state.current != 0 or state.round:
        return "the game is under way: the native core plays games from their opening"
    if any(type(e) not in (GameCreated, CardPoolDefined, DraftOffered) for e in log):
        return "the game is under way: the native core plays games from their opening"
    if any(p.picks for p in state.players):
        return "the game is under way: the native core plays games from their opening"
    return None


def rules_tuple(r: Rules) -> tuple[Any, ...]:
    """The rules as the native core reads them (engine/locm/cpp/core.cpp's `rules_from`)."""
    return (list(r.runes), r.draw_rule == RUNES, r.damage_draw_step, r.empty_deck == LOSE_RUNE, r.turn_limit,
            r.turn_limit_penalty == TEN_DAMAGE, r.penalty_damage, r.full_hand_stops_draws, r.area,
            _SCHEMES[r.id_scheme], r.hand_limit, r.start_health, r.deck_size, r.lane_size, r.max_mana,
            r.draft_rounds, r.max_copies, r.deck_building == DRAFT)


def opening(game: Any) -> tuple[int, int, bytes, list[list[int]], int]:
    """What the native core takes of a game at its opening: the shuffle seeds, the card pool (canonical JSON of
    the array-like Cards), the draft offers and the next seq."""
    state: GameState = game.state
    created = state.params
    assert created is not None
    cards = _ENCODE(tuple(state.cards.values()))  # array-like Cards: [base_id, type, ..., area, name, text]
    return (created.shuffle_player0_seed, created.shuffle_player1_seed, cards, [list(o) for o in state._offers],
            state.seq)


def encode(value: Any) -> bytes:
    """Canonical JSON, as the native core parses it (cards: arrays of their fields)."""
    return _ENCODE(value)


def opening_of(events: Sequence[Event]) -> tuple[int, int, bytes, list[list[int]], int]:
    """`opening` from a game's opening events themselves (`engine.locm.setup.create`'s), with no state folded:
    what a vector environment hands the native core once an episode."""
    created = events[0]
    pool = events[1]
    assert type(created) is GameCreated and type(pool) is CardPoolDefined
    offers = [list(e.base_ids) for e in events[2:] if type(e) is DraftOffered]
    return (created.shuffle_player0_seed, created.shuffle_player1_seed, _ENCODE(pool.cards), offers, len(events))


def agent_specs(agents: Sequence[Agent]) -> list[tuple[int, int]]:
    """The agents as the native core takes them: (kind, the generator's state) a seat."""
    players = [inner(a) for a in agents]
    return [(AGENT_KINDS[type(a)], a.rng._seed if type(a) is RandomAgent else 0) for a in players]


def battle_vec(rules: Rules, n: int, bounded: bool, keep_log: bool, invalid_reward: float, max_invalid: int) -> Any:
    """The native battle environment of `n` games (core.cpp's `BattleVec`; locm/rl/locm_native.py drives it)."""
    if _native is None:
        raise RuntimeError(WHY_UNAVAILABLE)
    return _native.BattleVec(rules_tuple(rules), n, bounded, keep_log, invalid_reward, max_invalid, _KW_VALUES)


def _run(game: Any, agents: Sequence[Agent], as_json: bool) -> tuple[Any, Any, Any, Any]:
    made = _native.play_game(rules_tuple(game.state.rules), *opening(game), agent_specs(agents), not as_json, as_json,
                             _KW_VALUES)
    return cast("tuple[Any, Any, Any, Any]", made)


def play(game: Any, agents: Sequence[Agent]) -> bool:
    """Play `game` to its end natively if it can (`why_not`); True if it did."""
    if why_not(game, agents) is not None:
        return False
    events, final, rngs, turn_ms = _run(game, agents, False)
    game.log.extend(events)
    _set_state(game.state, final)
    game.legal_cache = LegalCache()
    for a, s, ms in zip(agents, rngs, turn_ms):
        player = inner(a)
        if type(player) is RandomAgent:
            player.rng._seed = s
        if player is not a and hasattr(a, "native_played"):
            a.native_played(ms)
    return True


def play_jsonl(rules: Rules | str, seed: int, agents: tuple[str, str] = ("random", "random")) -> bytes:
    """A whole game between built-in agents (seeded as `locm.play.play_one` seeds them) as its log in JSON lines,
    the bytes a store keeps and hashes (`events.locm.codec.to_jsonl`), with no event object made: its opening too
    is decided natively, from the seed (`opener`), where the native core makes it; else the Python core's opening
    is handed in. `CoreChoiceError`-free: it raises `LocmError` when the native core cannot play these agents,
    `GameParamError` for a seed the rules refuse."""
    made = _cached_opener(rules, agents, seed)
    if made is not None:
        return cast(bytes, made.play(seed))
    return _play_jsonl_opened(rules, seed, agents)


def _cached_opener(rules: Rules | str, agents: tuple[str, str], seed: Any) -> Any:
    """`opener(rules, agents)`, kept for the next game of these, or None where it does not make this seed's game."""
    made: Any = _OPENERS.get((rules, agents))
    if made is None:
        if len(_OPENERS) >= 64:  # many rules in turn (variants): the cache kept small
            _OPENERS.clear()
        made = _OPENERS[(rules, agents)] = opener(rules, agents) or False
    return made if made is not False and type(seed) is int and _LONG_MIN <= seed <= _LONG_MAX else None


def _play_jsonl_opened(rules: Rules | str, seed: int, agents: tuple[str, str]) -> bytes:
    """`play_jsonl` from the Python core's opening (`Game.new`)."""
    from locm.engine.errors import LocmError
    from locm.engine.locm.agents import make_agent, seat_seed
    from locm.engine.locm.game import Game
    from locm.events.locm.codec import to_jsonl

    game = Game.new(rules, seed, None, agents=agents)
    players = [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)]
    why = why_not(game, players)
    if why is not None:
        raise LocmError(why)
    rest, _, _, _ = _run(game, players, True)
    return to_jsonl(game.log) + cast(bytes, rest)


def play_out(rules: Rules, seed: int, agents: tuple[str, str]) -> bytes | None:
    """`play_jsonl` with no `Game` made (its opening events made by `engine.locm.setup.create` and handed over as
    `opening_of` reads them, no state folded): the whole log of the game a stored one's created event names, as
    `locm verify` plays it out (`engine.locm.definition`'s ``play_out``); None where the native core does not play
    it (not built, an agent it has not, a behaviour it does not decide)."""
    from locm.engine.locm.agents import make_agent, seat_seed
    from locm.engine.locm.setup import create
    from locm.events.locm.codec import to_jsonl

    if _native is None:
        return None
    made = _cached_opener(rules, agents, seed)  # the opening decided natively too, as play_jsonl does
    if made is not None:
        return cast(bytes, made.play(seed))
    players = [make_agent(agents[s], seat_seed(seed, s)) for s in (0, 1)]
    if any(type(p) not in AGENT_KINDS for p in players):
        return None
    events = create(rules, seed, None, agents, None, None)
    if behaviour_of(events[0]) != _native.BEHAVIOUR:
        return None
    rest = _native.play_game(rules_tuple(rules), *opening_of(events), agent_specs(players), False, True, _KW_VALUES)[0]
    return to_jsonl(events) + cast(bytes, rest)


_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
# `agents.make_agent`'s classes (AGENT_KINDS) by name, as the native core numbers them
_KINDS_BY_NAME = AGENT_KIND_OF = {"pass": 0, "random": 1, "greedy": 2}
_OPENERS: dict[tuple[Any, tuple[str, str]], Any] = {}  # play_jsonl's, by rules and agents (False: none)
_SENTINEL = 7_346_019_281_553_000_000  # the seed parameters' stand-ins while game_created is cut (any longs)


def opener(rules: Rules | str, agents: tuple[str, str]) -> Any:
    """The native core's maker of whole games under `rules` between built-in `agents` from a seed alone
    (core.cpp's `Opener`: `.play(seed)` gives the log as JSON lines), or None where it does not make them: not
    built, agents it has not, an earlier behaviour of the rules, weights whose ``cardChanges`` change the
    generated cards, or an opening that is not the Python core's (checked here on one seed)."""
    if _native is None or len(agents) != 2 or any(a not in _KINDS_BY_NAME for a in agents):
        return None
    from locm.engine.locm import setup
    from locm.engine.locm.rulesets import by_name

    r = by_name(rules) if isinstance(rules, str) else rules
    names = list(r.seed_params)
    pool_name = "draftChoicesSeed" if r.deck_building == DRAFT else "cardGenSeed"
    if not {pool_name, "shufflePlayer0Seed", "shufflePlayer1Seed"} <= set(names) or len(names) > 8:
        return None
    # game_created made with every seed parameter a stand-in (and no seed), cut where the seeds go
    stand_in = {name: _SENTINEL + k for k, name in enumerate(names)}
    created = setup.create(r, None, stand_in, agents)[0]
    if behaviour_of(created) != _native.BEHAVIOUR:
        return None
    text = _ENCODE(created)
    marks = [(b'"seed":', b"null", 0)] + [(b'"%s":' % setup.PARAM_FIELDS[n].encode(), b"%d" % stand_in[n], 1 + k)
                                          for k, n in enumerate(names)]
    cuts = []
    for key, value, slot in marks:
        if text.count(key + value) != 1:
            return None
        at = text.index(key + value) + len(key)
        cuts.append((at, at + len(value), slot))
    cuts.sort()
    pieces, slots, last = [], [], 0
    for at, end, slot in cuts:
        pieces.append(text[last:at])
        slots.append(slot)
        last = end
    pieces.append(text[last:])
    card_list, card_json, handle = b"", [], -1
    if r.deck_building == DRAFT:
        from locm.engine.locm.carddata import CARDLIST_SIZE, cardlist_12

        cards = {**cardlist_12(), **{c.base_id: c for c in r.cards}}  # as draft.draft_events takes them
        listed = tuple(cards[b] for b in range(1, CARDLIST_SIZE + 1))
        card_list, card_json = _ENCODE(listed), [_ENCODE(c) for c in listed]
    else:
        from locm.engine.locm.cardgen import _load_tables
        from locm.engine.locm.nativecards import cardgen_handle

        found = cardgen_handle(r.card_weights, _load_tables)
        if found is None:
            return None
        handle = found
    made = _native.Opener(rules_tuple(r), len(names), names.index(pool_name), names.index("shufflePlayer0Seed"),
                          names.index("shufflePlayer1Seed"), pieces, slots, card_list, card_json, handle,
                          [_KINDS_BY_NAME[a] for a in agents], _KW_VALUES)
    from locm.events.locm.codec import to_jsonl

    opening = to_jsonl(setup.create(r, _SENTINEL, None, agents))  # the same opening as the Python core's, or none
    if made.play(_SENTINEL)[:len(opening)] != opening:
        return None
    return made


def redecide(events: list[Event]) -> tuple[int, int, int] | None:
    """Re-decide a log of the current schema natively: (0, -1, inputs) when every event is what the rules give
    (byte for byte, the game over at its end), (1, seq, inputs) for the first event that is not, and None when
    the native core does not take this log (not built; an input of kind ``line``, an external bot's answer; an
    opening the Python core cannot make again, or that differs from the
    stored one; an input it does not play as it is, such as a command the rules refuse): the Python path
    (`engine.locm.redecide`) re-decides those, and says what is wrong with a log in its words."""
    if _native is None or not events or type(events[0]) is not GameCreated:
        return None
    created = events[0]
    if created.rules is None:  # a schema 1 log (read through engine.locm.upcast): the Python path's
        return None
    if behaviour_of(created) != _native.BEHAVIOUR:  # decided under another behaviour of the rules: Python's
        return None
    from locm.engine.locm.setup import opening as make_opening

    try:
        made = [created, *make_opening(created)]
        rules = rules_tuple(created.rules)
    except Exception:  # a made-up game_created may break the opening anywhere: the Python path says how
        return None
    n = len(made)
    if _ENCODE(made) != _ENCODE(events[:n]):
        return None
    s0, s1, cards, offers, seq = opening_of(made)
    status, at, inputs = _native.redecide_inputs(rules, s0, s1, cards, offers, seq, _ENCODE(events[n:]))
    if status == 2:
        return None
    if status == 1 and at < len(events):  # named as the Python path names it: by the stored event's own seq
        at = events[at].seq
    return status, at, inputs


def generated_cards(card_gen_seed: int, weights: str = "") -> tuple[Card, ...] | None:
    """`engine.locm.cardgen.generate_cards` by the native core, from the Python core's tables; None where it
    does not make them (not built here, or weights whose ``cardChanges`` change the generated cards)."""
    from locm.engine.locm.cardgen import _load_tables
    from locm.engine.locm import nativecards

    return nativecards.generated_cards(card_gen_seed, weights, _load_tables)


def _set_state(s: GameState, final: tuple[Any, ...]) -> None:
    """Set the native core's final state into `s` (the state after the opening), as folding the log would."""
    phase, seq, current, turn, rnd, next_id, winner, reason, players, units = final
    cards = s.cards
    made: dict[int, Unit] = {}
    for uid, base, owner, attack, defense, keywords, can_attack, has_attacked, lane, touched in units:
        u = Unit(uid, cards[base], owner)
        u.attack, u.defense, u.keywords = attack, defense, keywords
        u.can_attack, u.has_attacked, u.lane, u.touched = can_attack, has_attacked, lane, touched
        made[uid] = u
    s.units = made
    for pl, (health, max_mana, mana, bonus, runes, next_draw, draw_shown, damage_counter, deck, hand, board,
             actions, turns, picks, last_damage) in zip(s.players, players):
        pl.health, pl.max_mana, pl.mana, pl.bonus, pl.runes = health, max_mana, mana, bonus, runes
        pl.next_draw, pl.draw_shown, pl.damage_counter = next_draw, draw_shown, damage_counter
        pl.deck = [made[i] for i in deck]
        pl.hand = [made[i] for i in hand]
        pl.board = [made[i] for i in board]
        pl.actions = actions
        pl.turns, pl.picks, pl.last_damage = turns, picks, last_damage
    s.phase, s.seq, s.current, s.turn, s.round, s.next_id = phase, seq, current, turn, rnd, next_id
    s.winner, s.end_reason = winner, reason
    offers = s._offers
    s.offer = offers[rnd] if phase == DRAFT_PHASE and rnd < len(offers) else ()


__all__ = ["available", "why_not", "play", "opening", "opening_of", "encode", "agent_specs", "battle_vec", "play_jsonl", "play_out", "opener", "redecide", "generated_cards", "inner", "rules_tuple", "WHY_UNAVAILABLE",
           "AGENT_KIND_OF"]
