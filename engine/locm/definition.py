"""Legends of Code and Magic as the core sees it (`engine.seam.GameDef`): its registered definition.

Everything here is a name for what LOCM's own modules already do (the rules stay where they are, byte-exact
with the referee); the definition only says which function answers which of the core's questions.
"""

from __future__ import annotations

from typing import Any, Sequence, cast

import msgspec

from locm.engine.locm import protocol
from locm.engine.locm.agents import AGENT_NAMES, Agent, make_agent, seat_seed
from locm.engine.locm.behaviour import BEHAVIOUR
from locm.engine.locm.commands import EndTurn, Pick
from locm.engine.locm.describe import describe
from locm.engine.locm.evolve import apply_all
from locm.engine.locm.folding import fold
from locm.engine.locm.game import Game
from locm.engine.locm.gameid import continued_id, created_id
from locm.engine.locm.legal import legal_actions as battle_actions
from locm.engine.locm.redecide import feed_input, redecide
from locm.engine.locm.rulesets import RULESETS, Rules, by_name, diff_rulesets
from locm.engine.locm.variants import parse_variant
from locm.engine.locm.state import BATTLE, DRAFT, ENDED, GameState
from locm.engine.locm.upcast import upcast
from locm.engine.locm.views import board_text, view
from locm.engine.seam import Divergence, GameDef, Outcome, diff_tuples
from locm.events.locm.catalog import GameCreated, GameEnded, TurnStarted
from locm.events.locm.codec import CODEC
from locm.events.base import Event

INDEX_FIELDS = (
    "ruleset", "ruleset_version", "seed", "shuffle_player0_seed", "shuffle_player1_seed", "draft_choices_seed",
    "predefined_draft_ids", "card_gen_seed", "constructed_choices_seed", "id_scheme",
)
"""The fields of `game_created` the store keeps beside a LOCM game's log."""


def _new(rules: Rules, seed: int, agents: Sequence[str], behaviour: int | None = None) -> Game:
    return Game.new(rules, seed, None, (agents[0], agents[1]), behaviour=behaviour)


def _agent(name: str, game_seed: int, seat: int) -> Agent:
    return make_agent(name, seat_seed(game_seed, seat))


def _legal(state: GameState) -> tuple[Any, ...]:
    """The draft's picks, the battle's actions and the end of the turn; the construct phase's one command (a
    deck of `deck_size` cards of the pool) is not listed: its choices are too many to enumerate."""
    if state.phase == DRAFT:
        return tuple(Pick(state.current, i) for i in range(len(state.offer)))
    if state.phase == BATTLE:
        return (*battle_actions(state), EndTurn())
    return ()


def _to_move(state: GameState) -> int:
    return -1 if state.phase == ENDED else state.current


def _outcome(events: Sequence[Event]) -> Outcome:
    end = cast(GameEnded, events[-1])
    return Outcome(end.winner, end.reason, end.turn)


def _describe(state: GameState, e: Event) -> str:
    return describe(e, state.units)


def _turn_starts(events: Sequence[Event]) -> list[tuple[int, int, int]]:
    return [(e.seq, e.turn, e.player) for e in events if type(e) is TurnStarted]


def _redecide(events: Sequence[Event]) -> Divergence | None:
    return redecide(events).divergence


def _play_out(rules: Rules, seed: int, agents: Sequence[str]) -> bytes | None:
    """A whole game between built-in agents played by the native core (`engine.locm.native.play_out`), when it is
    the selected core (``LOCM_CORE``, `engine.corebuild.core`) and takes these agents and rules; else None (the
    Python core's re-run is then the only one)."""
    from locm.engine.corebuild import core
    from locm.engine.locm import native

    if len(agents) != 2 or not native.available() or core().kind != "native":
        return None
    try:
        return native.play_out(rules, seed, (agents[0], agents[1]))
    except Exception:  # agents it has not, rules a made-up created event gives: the re-run decides  # noqa: BLE001
        return None


def _resume(created: Event, inputs: Sequence[Event]) -> Game:
    """A position's game: its `game_created` and its recorded inputs, every other event decided again."""
    game = Game.from_created(cast(GameCreated, created))
    for e in inputs:
        feed_input(game, e)
    return game


def _continue_as(created: Event, agents: Sequence[str], bots: Sequence[str]) -> GameCreated:
    """The `game_created` of a game played on by other agents: theirs the names and the bots' versions."""
    return msgspec.structs.replace(cast(GameCreated, created), agents=(agents[0], agents[1]),
                                   bot_sha256=(bots[0], bots[1]) if any(bots) else msgspec.UNSET)


def _index(created: Event) -> dict[str, Any]:
    return {f: getattr(created, f) for f in INDEX_FIELDS}


GAME = GameDef(
    name="locm",
    title="Legends of Code and Magic",
    seats=(2, 2),
    codec=CODEC,
    created=GameCreated,
    ended=GameEnded,
    edges="locm.games.locm.edges",
    player="locm.games.locm.tournament",
    rules_file="LOCM-RULES.md",
    rulesets=tuple(RULESETS),
    rules=by_name,
    rules_name=lambda rules: rules.name,
    variant=lambda text, source: parse_variant(text, source),
    rules_diff=lambda a, b: diff_tuples(diff_rulesets(a, b)),
    new=_new,
    from_log=Game.from_log,
    agent_names=AGENT_NAMES,
    make_agent=_agent,
    message=protocol.render_input,
    bots="lines",
    phase=lambda state: state.phase,
    fold=fold,
    apply=apply_all,
    copy=lambda state: state.copy(),
    upcast=upcast,
    legal_actions=_legal,
    to_move=_to_move,
    outcome=_outcome,
    view=view,
    board_text=lambda v: "\n".join(board_text(v)),
    describe=_describe,
    turn_starts=_turn_starts,
    redecide=_redecide,
    behaviour=BEHAVIOUR,
    agents=lambda created: tuple(cast(GameCreated, created).agents),
    game_id=lambda created: created_id(cast(GameCreated, created)),
    index=_index,
    resume=_resume,
    feed=feed_input,
    play_out=_play_out,
    continue_as=_continue_as,
    continued_id=continued_id,
    replay_wing="locm.replay.locm.wing:WING",
    rl_adapter="locm.rl.locm:LocmSpec",
    rl_envs=(("LOCM-draft-v0", ("draft",), "1.2"), ("LOCM-constructed-v0", ("construct",), "constructed"),
             ("LOCM-battle-v0", ("battle",), "1.2"), ("LOCM-v0", None, "1.2")),
)

__all__ = ["GAME", "INDEX_FIELDS"]
