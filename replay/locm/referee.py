"""Official referee logs (one game per line, plain or .gz) as replays: each game replayed through the engine
exactly as ``locm conformance`` does (`replay.locm.conformance.check_game`); a game that does not replay
identically is refused with the conformance message. `referee_games` turns a whole official log file into
stored-game form (`locm import-referee`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from locm.replay.game import Replay
from locm.replay.wing import ReplaySourceError

if TYPE_CHECKING:
    from locm.replay.locm.conformance import LoggedGame


def pick_logged(path, data: bytes, game: int | None) -> tuple[LoggedGame, int]:
    """Game `game` (0-based line) of an official log's text, and how many games the file holds."""
    from locm.replay.locm.conformance import ConformanceFileError, parse_log_line

    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    if game is None:
        if len(lines) != 1:
            raise ReplaySourceError(f"{path}: an official log of {len(lines)} games: pick one with --game K "
                                    f"(0..{len(lines) - 1})")
        game = 0
    if not 0 <= game < len(lines):
        raise ReplaySourceError(f"{path}: --game must be in 0..{len(lines) - 1}, got {game}")
    try:
        return parse_log_line(lines[game], game, str(path), game + 1), len(lines)
    except ConformanceFileError as exc:
        raise ReplaySourceError(str(exc)) from None


def replay_logged(logged: LoggedGame, path: str, count: int = 0) -> Replay:
    return Replay(_replayed(logged, path), source=f"{path} game {logged.index}", meta=referee_meta(logged, path))


def _replayed(logged: LoggedGame, path: str | Path) -> list:
    """The event log of an official game replayed through the engine, or `ReplaySourceError` if the engine
    does not send every input the referee sent."""
    from locm.replay.locm.conformance import check_game

    res = check_game(logged, keep_game=True)
    if not res.identical:
        raise ReplaySourceError(f"{path}: game {logged.index} does not replay identically: {res.summary()}")
    return res.game.log


def referee_meta(logged: LoggedGame, path: str) -> dict:
    return {"source": "official referee log", "file": Path(path).name, "game": logged.index,
            "scores": list(logged.scores), "params": logged.params}


@dataclass
class RefereeGame:
    game_id: str
    events: list
    meta: dict


def referee_logs(path: str | Path) -> list[LoggedGame]:
    """The games of an official log file, parsed (not yet replayed)."""
    from locm.replay.locm.conformance import ConformanceFileError, read_log_file

    try:
        return list(read_log_file(path))
    except ConformanceFileError as exc:
        raise ReplaySourceError(str(exc)) from None


def referee_game(logged: LoggedGame, path: str | Path) -> RefereeGame:
    """One official game replayed through the engine, or `ReplaySourceError` if it does not replay
    identically. Its id names its content (`locm.engine.locm.gameid.referee_id`: its game_created and its inputs)."""
    from locm.engine.locm.gameid import referee_id

    events = _replayed(logged, path)
    return RefereeGame(referee_id(events), events, referee_meta(logged, str(path)))


def referee_games(path: str | Path) -> list[RefereeGame]:
    """Every game of an official log file replayed, or `ReplaySourceError` for the first game that does not
    replay identically (so a file is imported all or none)."""
    return [referee_game(logged, path) for logged in referee_logs(path)]


def referee_game_id(logged: LoggedGame) -> str:
    """The id that locm gave a referee game before ids named their content (`locm.engine.locm.gameid`): ``ref-<ruleset>-
    <seed>-<12 hex>``, the hash over the file's parameters and answers. `locm import-referee` looks it up, so
    that a store made then does not get the same game again under its new id."""
    key = json.dumps([logged.ruleset, sorted(logged.params.items()), [t[3] for t in logged.turns]],
                     separators=(",", ":"), ensure_ascii=False)
    seed = logged.params.get("seed", "x")
    return f"ref-{logged.ruleset}-{seed}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


__all__ = ["pick_logged", "replay_logged", "referee_meta", "RefereeGame", "referee_logs", "referee_game",
           "referee_games", "referee_game_id"]
