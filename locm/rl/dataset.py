"""A dataset of (observation, mask, action, reward, outcome) from stored games, for behaviour cloning.

    >>> from locm.rl.dataset import export
    >>> summary = export("t.db", "bc.npz", ruleset="1.2", phases=("battle",))   # or: locm dataset --db t.db ...

Every stored game of the ruleset is played again from its `game_created` with its recorded inputs (a built-in
agent's actions, a bot's whole answer lines, the environment's episodes alike), and each decision of a seat
becomes one row, encoded exactly as the environment with the same ``phases`` encodes it (`locm.rl.env.Layout`):
a policy cloned from the rows plays in that environment as it is. A bot's answer line is cut into its actions,
each encoded in the position it was played from; actions the rules refused (part of the game, recorded as
``action_rejected``) and answers that lost by a hard error give no row. The construct phase's deck is one row
per card, in the answer's order. The game played again must give the stored log event for event, or the game
is reported and skipped (the rows are the game's, never another).

Arrays of the ``.npz`` (NumPy, no other dependency): ``obs`` (float32, rows x features), ``mask`` (bool, rows x
slots), ``action`` (int64 slot), ``reward`` (the seat's result on its last row of a game, else 0), ``outcome``
(the seat's result on every row: 1 won, -1 lost), ``done`` (the seat's last row of a game), ``game`` (index
into ``game_ids``), ``seat``, ``phase`` (index into ``phase_names``), ``agent`` (index into ``agents``), and
``feature_names``, ``game_ids``, ``phase_names``, ``agents``.

my-card-game's and Skyport's episodes are logs in a folder (`locm.rl.logfolder`): `export_logs` writes the same
arrays from them, each recorded command played again through the game's adapter (``decisions``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import numpy as np

from locm.engine.locm import game as engine_game
from locm.engine.locm import protocol
from locm.api import Choose
from locm.engine.locm.commands import EndTurn, Pass, Pick, parse_command
from locm.engine.errors import LocmError
from locm.engine.locm.folding import fold
from locm.engine.locm.legal import problem
from locm.engine.locm.redecide import feed_input
from locm.engine.locm.state import BATTLE, CONSTRUCT, DRAFT
from locm.events.locm.catalog import ACTION, END_TURN, ActionReceived, GameCreated, HardError
from locm.events.locm.codec import to_json
from locm.rl.env import Layout
from locm.rl.locm import LocmMatch, LocmSpec


class Row(NamedTuple):
    obs: np.ndarray
    mask: np.ndarray
    action: int
    seat: int
    phase: int


class Summary(NamedTuple):
    games: int
    rows: int
    skipped: list[tuple[str, str]]  # (game id, why)


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
           progress: Callable[[int], None] | None = None) -> Summary:
    """Write the rows of the stored games of `ruleset` (those where `agent` plays a seat, if given; `seats`
    then are that agent's seats) to `out` (.npz). Returns how many games and rows, and the games skipped."""
    from locm.store.eventstore import open_store
    from locm.games.locm.variants import ruleset_name

    spec = LocmSpec(ruleset)
    layout = Layout(spec, phases)
    games: list[tuple[str, tuple[str, str], list[Row], dict[int, float]]] = []
    skipped: list[tuple[str, str]] = []
    with open_store(db, create=False, readonly=True) as store:
        records = store.games(ruleset=ruleset_name(ruleset, store), agent=agent, limit=limit)
        for record in records:
            if progress:
                progress(1)
            events = store.events(record.game_id)
            if events[0].rules is not None and events[0].rules != spec.rules:
                skipped.append((record.game_id, "another ruleset's values (a variant)"))
                continue
            names = (record.agent0, record.agent1)
            wanted = [s for s in seats if agent is None or names[s] == agent]
            try:
                rows = game_rows(events, layout, wanted)
            except LocmError as exc:
                skipped.append((record.game_id, str(exc)))
                continue
            games.append((record.game_id, names, rows, {s: 1.0 if record.winner == s else -1.0 for s in (0, 1)}))
    return _save(out, spec, layout, games, skipped)


def log_rows(spec: Any, log: Sequence[Any], layout: Layout, seats: Sequence[int] = (0, 1)) -> tuple[
        list[Row], tuple[float, ...]]:
    """The rows of one stored log of a game whose adapter plays logs again (``spec.decisions``: my-card-game,
    Skyport), and each seat's result. A recorded command that is none of the listed actions (refused by the
    rules, or another droid route to the same tile) gives no row; the log played again must be the stored one."""
    rows: list[Row] = []
    match = None
    for match, p, command in spec.decisions(log):
        phase = match.phase()
        if p not in seats or phase not in layout.learned or match.to_move() != p:
            continue
        obs, mask, actions = layout.encode(match, p, phase)
        slot = next((k for k, a in actions.items() if a == command), None)
        if slot is not None:
            rows.append(Row(obs, mask, slot, p, phase))
    if match is None or list(match.log) != list(log):
        raise LocmError("playing the recorded commands again does not give the stored log")
    result = match.result()
    if result is None:
        raise LocmError("the log ends before the game does")
    return rows, result


def export_logs(game: str, folder: str | Path, out: str | Path, *, ruleset: Any = None,
                phases: Sequence[str] | None = None, seats: Sequence[int] = (0, 1)) -> Summary:
    """Write the rows of the episodes stored in a folder of logs (`locm.rl.logfolder`: my-card-game, Skyport)
    to `out` (.npz), encoded as that game's environment with the same ``phases`` encodes them."""
    from locm.rl import game_spec
    from locm.rl.logfolder import LogFolder

    spec = game_spec(game, ruleset)
    codec = {"mcg": "locm.events.mcg.codec", "skyport": "locm.events.skyport.codec"}.get(spec.game)
    if codec is None:
        raise LocmError(f"{game}: its games are in the event store (locm dataset)")
    from_jsonl = importlib.import_module(codec).from_jsonl
    layout = Layout(spec, phases)
    folder_ = LogFolder(folder, spec.game)
    games: list[tuple[str, tuple[str, str], list[Row], dict[int, float]]] = []
    skipped: list[tuple[str, str]] = []
    for gid in folder_.ids():
        try:
            log = from_jsonl(folder_.read(gid))
            if not log or getattr(log[0], "rules", None) != spec.rules:
                skipped.append((gid, "not a game of these rules (another ruleset's values, or no game_created)"))
                continue
            rows, result = log_rows(spec, log, layout, seats)
        except (LocmError, ValueError) as exc:  # a file that is no log of the game (DecodeError is a ValueError)
            skipped.append((gid, str(exc)))
            continue
        agents = tuple(log[0].agents) or ("", "")
        games.append((gid, (agents[0], agents[1]), rows, dict(enumerate(result))))
    return _save(out, spec, layout, games, skipped)


def _save(out: str | Path, spec: Any, layout: Layout,
          games: Sequence[tuple[str, tuple[str, str], list[Row], dict[int, float]]],
          skipped: list[tuple[str, str]]) -> Summary:
    obs, masks, actions, seat_col, phase_col, game_col, agent_col, rewards, outcomes, done = ([] for _ in range(10))
    game_ids: list[str] = []
    agents: list[str] = []
    for gid, names, rows, result in games:
        g = len(game_ids)
        game_ids.append(gid)
        last: dict[int, int] = {}
        for r in rows:
            last[r.seat] = len(obs)
            obs.append(r.obs)
            masks.append(r.mask)
            actions.append(r.action)
            seat_col.append(r.seat)
            phase_col.append(layout.learned.index(r.phase))
            game_col.append(g)
            name = names[r.seat]
            if name not in agents:
                agents.append(name)
            agent_col.append(agents.index(name))
            outcomes.append(result[r.seat])
            rewards.append(0.0)
            done.append(False)
        for seat, i in last.items():
            rewards[i], done[i] = outcomes[i], True
    width = layout.obs_size
    np.savez_compressed(
        out, obs=np.array(obs, dtype=np.float32).reshape(-1, width),
        mask=np.array(masks, dtype=bool).reshape(-1, layout.n_actions), action=np.array(actions, dtype=np.int64),
        reward=np.array(rewards, dtype=np.float32), outcome=np.array(outcomes, dtype=np.float32),
        done=np.array(done, dtype=bool), game=np.array(game_col, dtype=np.int64),
        seat=np.array(seat_col, dtype=np.int8), phase=np.array(phase_col, dtype=np.int8),
        agent=np.array(agent_col, dtype=np.int64), feature_names=np.array(layout.feature_names()),
        game_ids=np.array(game_ids), phase_names=np.array([spec.phases[i].name for i in layout.learned]),
        agents=np.array(agents))
    return Summary(len(game_ids), len(obs), skipped)


def rows_of(games: Iterable[Sequence[Any]], layout: Layout) -> list[Row]:
    """The rows of several logs (for tests and notebooks)."""
    return [r for events in games for r in game_rows(list(events), layout)]


__all__ = ["export", "export_logs", "game_rows", "log_rows", "rows_of", "Row", "Summary"]
