"""my-card-game as the core sees it (`engine.seam.GameDef`): its registered definition. The rules stay in
this package's modules; the definition says which function answers which of the core's questions."""

from __future__ import annotations

import json
from typing import Any, Sequence, cast

import msgspec

from locm.engine.mcg.agents import AGENT_NAMES, make_agent
from locm.engine.mcg.behaviour import BEHAVIOUR
from locm.engine.mcg.evolve import evolve, fold
from locm.engine.mcg.game import McgGame, agent_seed, feed_input, redecide, resume
from locm.engine.mcg.legal import legal_actions, to_move
from locm.engine.mcg.protocol import message
from locm.engine.mcg.rules import FIELDS, RULESETS, by_name
from locm.engine.mcg.variants import parse_variant
from locm.engine.mcg.setup import derive_seeds
from locm.engine.mcg.state import McgState
from locm.engine.mcg.views import describe, view
from locm.engine import seam
from locm.engine.seam import Divergence, GameDef, Outcome, content_id, continued_content_id, diff_tuples
from locm.events.base import Event
from locm.events.mcg.catalog import (
    ActionRejected, CardsReturned, DeckShuffled, GameCreated, GameEnded, HardError, MonsterAttacked,
    MulliganChosen, TurnStarted,
)
from locm.events.mcg.codec import CODEC
from locm.events.mcg.rules import McgRules


class _Agent:
    """A built-in agent on the core's side: one command a decision."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self._agent = make_agent(name, seed)

    def play_turn(self, match: McgGame, seat: int) -> None:
        match.submit(self._agent.act(match.state, seat))


def _new(rules: McgRules, seed: int, agents: Sequence[str], behaviour: int | None = None) -> McgGame:
    return McgGame.new(rules, seed, tuple(agents), behaviour=behaviour)


def _agent(name: str, game_seed: int, seat: int) -> _Agent:
    return _Agent(name, agent_seed(derive_seeds(game_seed), seat))


def _apply(state: McgState, events: Sequence[Event]) -> McgState:
    for e in events:
        state = evolve(state, e)
    return state


def _view(state: McgState, seat: int | None) -> dict[str, Any]:
    """A seat's view (R-VIEW); None: both seats' views, each with its own hand."""
    if seat is not None:
        return view(state, seat)
    return {"seats": [view(state, s) for s in (0, 1)]}


def _side_text(v: dict[str, Any]) -> list[str]:
    you, enemy = v["you"], v["enemy"]
    hand = ", ".join(f"#{c['id']} {c['name']}" for c in you["hand"])

    def board(ms: list[dict[str, Any]]) -> str:
        return ", ".join(f"#{m['id']} {m['name']} {m['power']}/{m['toughness']} hp {m['health']}" for m in ms)

    return [f"P{v['seat']}  health {you['health']}  mana {you['mana']}/{you['max_mana']}  deck {you['deck']}  "
            f"fatigue {you['fatigue']}",
            f"    hand: {hand or '-'}", f"    board: {board(v['board']['you']) or '-'}",
            f"    enemy: health {enemy['health']}  hand {enemy['hand']}  board: {board(v['board']['enemy']) or '-'}"]


def _board_text(v: dict[str, Any]) -> str:
    views = v["seats"] if "seats" in v else [v]
    mover = views[0]["to_move"]
    head = f"turn {views[0]['turn']}  phase {views[0]['phase']}  " + (f"to move P{mover}" if mover >= 0 else "game over")
    return "\n".join([head, *(line for w in views for line in _side_text(w))])


def _outcome(events: Sequence[Event]) -> Outcome:
    end = cast(GameEnded, events[-1])
    return Outcome(end.winner, end.reason, end.turn)


def _redecide(events: Sequence[Event]) -> Divergence | None:
    game, at = redecide(events)
    if at < 0:
        return None
    mine = CODEC.to_json(events[at]).decode() if at < len(events) else ""
    theirs = CODEC.to_json(game.log[at]).decode() if at < len(game.log) else ""
    return Divergence(at, "the rules give another event" if mine and theirs else
                      ("the rules end the game here" if mine else "the log stops before the game ends"),
                      mine, theirs)


def _rules_diff(a: McgRules, b: McgRules) -> list[tuple[str, str, Any, Any]]:
    return diff_tuples(seam.diff_rules(a, b, FIELDS, skip=("name", "base", "version")))


def _rejections(events: Sequence[Event]) -> list[int]:
    return [e.seq for e in events if type(e) in (ActionRejected, HardError)]


_ID_FIELDS = ("id", "source", "attacker")


def _about(e: Event, cid: int) -> bool:
    """Whether event `e` concerns card instance `cid` (ids from 2 on; 0 and 1 are the players: R-SETUP)."""
    if type(e) in (DeckShuffled, CardsReturned):
        return cid in e.ids  # type: ignore[attr-defined]
    if type(e) is MulliganChosen:
        return cid in e.returned
    if type(e) is MonsterAttacked or hasattr(e, "target"):
        if getattr(e, "target", -1) == cid:
            return True
    return any(getattr(e, f, None) == cid for f in _ID_FIELDS)


def _instance_events(events: Sequence[Event], cid: int) -> list[int]:
    return [e.seq for e in events if _about(e, cid)] if cid >= 2 else []


def _holdings(e: Event) -> list[dict[str, int]]:
    """Each seat's deck by card name (cards of the same name are one key, as a player sees them)."""
    created = _created(e)
    names = {c.id: c.name for c in created.cards}
    out = []
    for deck in created.decks:
        held: dict[str, int] = {}
        for cid in deck:
            key = f"{names.get(cid, cid)} ({cid})"
            held[key] = held.get(key, 0) + 1
        out.append(held)
    return out


def _created(e: Event) -> GameCreated:
    return cast(GameCreated, e)


GAME = GameDef(
    name="mcg",
    title="my-card-game",
    aliases=("my-card-game",),
    seats=(2, 2),
    codec=CODEC,
    created=GameCreated,
    ended=GameEnded,
    edges="locm.games.mcg.edges",
    player="locm.games.mcg.tournament",
    rules_file="mcg/RULES.md",
    rulesets=tuple(RULESETS),
    rules=by_name,
    rules_name=lambda rules: rules.name,
    variant=lambda text, source: parse_variant(text, source),
    rules_diff=_rules_diff,
    new=_new,
    behaviour=BEHAVIOUR,
    from_log=McgGame.from_log,
    new_versioned=lambda rules, seed, agents, bots: McgGame.new(rules, seed, tuple(agents), bots=tuple(bots)),
    agent_names=AGENT_NAMES,
    make_agent=_agent,
    message=message,
    bots="lines",
    phase=lambda state: state.phase,
    fold=fold,
    apply=_apply,
    copy=lambda state: state.copy(),
    upcast=lambda events: events,
    legal_actions=legal_actions,
    to_move=to_move,
    outcome=_outcome,
    view=_view,
    board_text=_board_text,
    describe=lambda state, e: describe(e, state),
    turn_starts=lambda events: [(e.seq, e.turn, e.player) for e in events if type(e) is TurnStarted],
    redecide=_redecide,
    resume=resume,
    feed=feed_input,
    continue_as=lambda created, agents, bots: msgspec.structs.replace(
        _created(created), agents=tuple(agents), bots=tuple(bots) if any(bots) else msgspec.UNSET),
    continued_id=lambda events: continued_content_id("mcg", _created(events[0]).rules.name,
                                                     _created(events[0]).seeds.seed, events, CODEC.to_json),
    agents=lambda created: tuple(_created(created).agents),
    game_id=lambda created: content_id("mcg", _created(created).rules.name, _created(created).seeds.seed,
                                       CODEC.to_json(created)),
    index=lambda created: {"ruleset": _created(created).rules.name, "rules_hash": _created(created).rules_hash,
                           "seed": _created(created).seeds.seed, "first": _created(created).first,
                           "decks": json.loads(json.dumps(_created(created).decks))},
    rejections=_rejections,
    instance_events=_instance_events,
    html_board="locm.replay.mcg.board",
    holdings=_holdings,
    replay_wing="locm.replay.mcg.wing:WING",
    rl_adapter="locm.rl.mcg:McgSpec",
    rl_envs=(("MCG-v0", None, "standard"), ("MCG-main-v0", ("main",), "standard")),
)

__all__ = ["GAME"]
