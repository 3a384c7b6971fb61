"""LOCM's dataset export (`locm.rl.dataset`'s rows from LOCM's stored games, for behaviour cloning).

    >>> from locm.rl.locm_dataset import export
    >>> summary = export("t.db", "bc.npz", ruleset="1.2", phases=("battle",))   # or: locm dataset --db t.db ...

Every stored game of the ruleset is played again from its `game_created` with its recorded inputs (a built-in
agent's actions, a bot's whole answer lines, the environment's episodes alike), and each decision of a seat
becomes one row, encoded exactly as the environment with the same ``phases`` encodes it. A bot's answer line is
cut into its actions, each encoded in the position it was played from; actions the rules refused (part of the
game, recorded as ``action_rejected``) and answers that lost by a hard error give no row. The construct phase's
deck is one row per card, in the answer's order. The game played again must give the stored log event for
event, or the game is reported and skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from locm.games.locm.api import Choose
from locm.engine.errors import LocmError
from locm.engine.locm import game as engine_game
from locm.engine.locm import protocol
from locm.engine.locm.commands import EndTurn, Pass, Pick, parse_command
from locm.engine.locm.folding import fold
from locm.engine.locm.legal import problem
from locm.engine.locm.redecide import feed_input
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT
from locm.events.locm.catalog import ACTION, END_TURN, ActionReceived, GameCreated, HardError
from locm.events.locm.codec import to_json
from locm.rl.dataset import Row, Summary, save
from locm.rl.env import Layout
from locm.rl.locm import LocmMatch, LocmSpec


def game_rows(events: Sequence[Any], layout: Layout, seats: Sequence[int] = (0, 1)) -> list[Row]:
    """The rows of one game's log: each decision of a seat in `seats`, in a phase the layout learns."""
    created = events[0]
    if type(created) is not GameCreated:
        raise LocmError("the log does not start with game_created")
    k = next((i for i, e in enumerate(events) if e.cause == -1 and isinstance(e, (ActionReceived, HardError))),
             len(events))
    game = engine_game.Game(fold(events[:k]), list(events[:k]))
    rows: list[Row] = []
    for e in events[k:]:
        if not (e.cause == -1 and isinstance(e, (ActionReceived, HardError))):
            continue
        if game.ended:
            raise LocmError(f"event {e.seq}: the game is over, yet the log goes on")
        if e.player in seats and isinstance(e, ActionReceived):
            rows += _decisions(game, e, layout)
        feed_input(game, e)
    if [to_json(x) for x in game.log] != [to_json(x) for x in events]:
        raise LocmError("playing the recorded inputs again does not give the stored log")
    return rows


def _decisions(game: engine_game.Game, e: ActionReceived, layout: Layout) -> list[Row]:
    """The rows of one recorded input, encoded on a copy of the game as each of its actions was played."""
    phase_name = game.phase
    phase = {"draft": 0, "construct": 0, "battle": 1}[phase_name]
    if phase not in layout.learned:
        return []
    sim = LocmMatch.over(engine_game.Game(game.state.copy(), []))
    p = e.player
    rows: list[Row] = []

    def row(action: Any) -> bool:
        obs, mask, actions = layout.encode(sim, p, phase)
        for slot, a in actions.items():
            if a == action:
                rows.append(Row(obs, mask, slot, p, phase))
                return True
        return False

    try:
        if phase_name == BATTLE:
            if e.kind == END_TURN:
                commands = [EndTurn()]
            elif e.kind == ACTION:
                commands = [parse_command(e.text, p, BATTLE)]
            else:
                commands = [c for c in protocol.parse_battle(e.text) if type(c) is not Pass] + [EndTurn()]
            for c in commands:
                if type(c) is EndTurn or problem(sim.state, c) is None:  # refused actions: no row, no effect
                    row(c)
                    sim.play(c)
                if sim.to_move() != p:
                    break
        elif phase_name == DRAFT:
            row(Pick(p, protocol.parse_pick(e.text, game.state.offer)))
        elif phase_name == CONSTRUCT:
            rules = game.rules
            ids = protocol.parse_construct(e.text, len(game.state.cards), rules.deck_size, rules.max_copies)
            for b in ids:
                row(Choose(b))
                sim.chosen.append(b)
    except LocmError:  # a hard error: the answer lost the game, it is no decision to learn from
        return []
    return rows


def export(db: str | Path, out: str | Path, *, ruleset: str = "1.2", phases: Sequence[str] | None = None,
           seats: Sequence[int] = (0, 1), agent: str | None = None, limit: int | None = None,
           progress: Callable[[int], None] | None = None, counted: bool = False) -> Summary:
    """Write the rows of the stored games of `ruleset` (those where `agent` plays a seat, if given; `seats`
    then are that agent's seats; only the games the store may count when `counted`,
    `locm.store.provenance.Provenance.counted`) to `out` (.npz). Returns how many games and rows, and the games
    skipped."""
    from locm.store.eventstore import open_store
    from locm.games.locm.variants import ruleset_name

    spec = LocmSpec(ruleset)
    layout = Layout(spec, phases)
    games: list[tuple[str, tuple[str, str], list[Row], dict[int, float]]] = []
    skipped: list[tuple[str, str]] = []
    with open_store(db, create=False, readonly=True) as store:
        records = store.games(ruleset=ruleset_name(ruleset, store), agent=agent, limit=limit, game="locm",
                              counted=counted)
        for record in records:
            if progress:
                progress(1)
            events = store.events(record.game_id)
            if events[0].rules is not None and events[0].rules != spec.rules:
                skipped.append((record.game_id, "another ruleset's values (a variant)"))
                continue
            names = record.agents
            wanted = [s for s in seats if agent is None or names[s] == agent]
            try:
                rows = game_rows(events, layout, wanted)
            except LocmError as exc:
                skipped.append((record.game_id, str(exc)))
                continue
            games.append((record.game_id, names, rows, {s: 1.0 if record.winner == s else -1.0 for s in (0, 1)}))
    return save(out, spec, layout, games, skipped)


def rows_of(games: Iterable[Sequence[Any]], layout: Layout) -> list[Row]:
    """The rows of several logs (for tests and notebooks)."""
    return [r for events in games for r in game_rows(list(events), layout)]


__all__ = ["export", "game_rows", "rows_of"]
