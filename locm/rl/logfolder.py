"""Episodes of my-card-game and Skyport: a folder of JSONL logs.

The event store names a game of theirs by its created event alone (`GameDef.game_id`), which fixes a built-in
agent's play but not a learner's: two episodes of one seed with the same agent names and other actions would
share an id. So an environment's ``store`` option for these games is a folder: each finished episode is
written there as its event log in the game's own codec (one event a line, as `locm play --log` writes one),
named by its game, seed and a hash of the log, so the same game is written once. `locm verify`, `locm show`
and `locm replay` read such a file like any log of the game; ``from_jsonl`` and ``redecide`` do in code.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable, Sequence


class LogFolder:
    """A folder of episode logs (module docstring); ``game`` prefixes each file name."""

    def __init__(self, path: str | os.PathLike[str], game: str) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"store: {self.path} is not a folder (a {game} episode is stored as a JSONL log in "
                             f"a folder)")
        self.path.mkdir(parents=True, exist_ok=True)
        self.game = game

    def append(self, seed: int, log: Sequence[Any], to_jsonl: Callable[[Sequence[Any]], bytes]) -> str:
        """Write a finished game's log (once); returns its id (the file's stem)."""
        data = to_jsonl(log)
        gid = f"env-{self.game}-{seed}-{hashlib.sha256(data).hexdigest()[:12]}"
        target = self.path / f"{gid}.jsonl"
        if not target.exists():
            tmp = target.with_suffix(".jsonl.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)  # a reader never sees half a log
        return gid

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self.path.glob("env-*.jsonl"))

    def read(self, gid: str) -> bytes:
        return (self.path / f"{gid}.jsonl").read_bytes()

    def close(self) -> None:
        pass


__all__ = ["LogFolder"]
