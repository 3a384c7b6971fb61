"""A dataset of (observation, mask, action, reward, outcome) from recorded games, for behaviour cloning: the
rows and the arrays every game's export writes (`save`), and the export of a folder of episode logs
(`export_logs`: each recorded command played again through the game's adapter, ``decisions``).

    >>> from locm.rl.dataset import export_logs
    >>> summary = export_logs("mcg", "episodes/", "bc.npz", phases=("main",))   # or: locm dataset --game mcg ...

Each decision of a seat becomes one row, encoded exactly as the environment with the same ``phases`` encodes
it (`locm.rl.env.Layout`): a policy cloned from the rows plays in that environment as it is. The game played
again must give the recorded log event for event, or the game is reported and skipped (the rows are the game's,
never another). LOCM's stored games (a bot's whole answer lines cut into their actions) are read by its own
wing, `locm.rl.locm_dataset`.

Arrays of the ``.npz`` (NumPy, no other dependency): ``obs`` (float32, rows x features), ``mask`` (bool, rows x
slots), ``action`` (int64 slot), ``reward`` (the seat's result on its last row of a game, else 0), ``outcome``
(the seat's result on every row: 1 won, -1 lost), ``done`` (the seat's last row of a game), ``game`` (index
into ``game_ids``), ``seat``, ``phase`` (index into ``phase_names``), ``agent`` (index into ``agents``), and
``feature_names``, ``game_ids``, ``phase_names``, ``agents``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

from locm.engine.errors import LocmError
from locm.rl.env import Layout


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
    from locm.engine import registry
    from locm.rl import game_spec
    from locm.rl.logfolder import LogFolder

    spec = game_spec(game, ruleset)
    if not hasattr(spec, "decisions"):
        raise LocmError(f"{game}: its games are in the event store (locm dataset)")
    from_jsonl = registry.get(spec.game).codec.from_jsonl
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
    return save(out, spec, layout, games, skipped)


def save(out: str | Path, spec: Any, layout: Layout,
          games: Sequence[tuple[str, tuple[str, str], list[Row], dict[int, float]]],
          skipped: list[tuple[str, str]]) -> Summary:
    """Write the rows of `games` ((game id, each seat's agent, rows, each seat's result)) to `out` (.npz)."""
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


__all__ = ["export_logs", "log_rows", "save", "Row", "Summary"]
