"""Games being played, published for spectators (`locm arena`'s live games), and the runs that stop on a test:
the live spool of a store, a folder beside it (``t.db`` -> ``t.db.live/``) that runners write and the arena reads,
so that the arena never writes the store and the runner never waits on a watcher.

Publishing is on while the folder exists (``locm arena`` makes it, or ``mkdir t.db.live``; delete it to stop):
`enable(db)` (called by `locm play` and `locm tournament` with their store) points this process and the worker
processes it starts (through `ENV`) at it. A game is published by `watching` around its loop of turns: a
thread of this module looks at the game's log every `POLL` seconds and appends the events added since to the
game's file. A game that ends before its first look is never written (built-in agents play a game in a few
milliseconds: they cost a dictionary entry per game), so only games slow enough to watch reach the disk.

A game's file ``<game_id>.jsonl`` is append-only: a first line ``{"live": 1, "game_id", "game", "agents",
"pid", "started"}``, then lines ``{"t": unix time, "events": [event, ...]}`` (each event its codec's canonical
JSON, what the store will hold), and ``{"t": ..., "ended": true}`` when the game is over, after which the file
is removed (the game is then stored, or failed). A game whose id is known only once it is over (a Skyport game
with a seat its client took by itself: its id names its whole log) is published under a name of its own
(`live_name`), and its end line says the id it is stored under (``"game_id"``). The file holds every seat's
hidden information: the arena shows a spectator only what a seat's opponents may see (`locm.arena.live`). A
file left by a killed process names its ``pid``, which the arena checks.

A run with a sequential test writes ``sprt-<schedule key>.json`` (`publish_run`): its test, agents and pid,
rewritten as the test advances, so that the arena can show its state (computed again from the store).
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence
from contextlib import contextmanager

ENV = "LOCM_LIVE_SPOOL"
"""The spool folder of this process and of the workers it starts (set by `enable`)."""

POLL = 0.25
"""Seconds between two looks at the games being played."""

SUFFIX = ".live"


def spool_of(db: str | Path) -> Path:
    """The live spool folder of the store ``db``."""
    db = Path(db)
    return db.with_name(db.name + SUFFIX)


def enable(db: str | Path | None) -> None:
    """Publish this process's games (and its workers') into ``db``'s spool while the spool exists (None: a game
    played without a store, published nowhere)."""
    if db is None:
        os.environ.pop(ENV, None)
        return
    os.environ[ENV] = str(spool_of(db).resolve())


def _spool() -> Path | None:
    where = os.environ.get(ENV)
    if not where:
        return None
    path = Path(where)
    try:
        return path if path.is_dir() else None
    except (OSError, ValueError):  # a spool this process may not look into (another user's): published nowhere
        return None


class _Watched:
    __slots__ = ("path", "header", "log", "codec", "written", "since", "lock", "done", "final_id")

    def __init__(self, path: Path, header: dict, log: list, codec: Any,
                 final_id: Callable[[], str] | None = None) -> None:
        self.path, self.header, self.log, self.codec = path, header, log, codec
        self.final_id = final_id
        self.lock = threading.Lock()  # the watcher's flush and the game's last one
        self.done = False
        self.written = -1  # -1: nothing written yet (not even the header)
        self.since = time.monotonic()


_watched: dict[int, _Watched] = {}
_lock = threading.Lock()
_thread: threading.Thread | None = None


def _forked() -> None:
    """In a child made by fork: none of the parent's games, a lock of its own, no watcher thread yet."""
    global _lock, _thread
    _watched.clear()
    _lock, _thread = threading.Lock(), None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _line(doc: dict, events: Sequence[bytes] = ()) -> bytes:
    head = json.dumps(doc, separators=(",", ":"))
    if not events:
        return head.encode() + b"\n"
    return head[:-1].encode() + b',"events":[' + b",".join(events) + b"]}\n"


def _flush(w: _Watched) -> None:
    """Append what ``w``'s game logged since its last flush (the header first)."""
    with w.lock:
        if not w.done:
            _append(w, False)


def _append(w: _Watched, ended: bool) -> None:
    n = len(w.log)  # the game's thread only appends: the first n events are there and final
    out = b""
    if w.written < 0:
        out += _line(w.header)
        w.written = 0
    if n > w.written:
        out += _line({"t": round(time.time(), 3)}, [w.codec.to_json(e) for e in w.log[w.written:n]])
        w.written = n
    if ended:
        end: dict[str, Any] = {"t": round(time.time(), 3), "ended": True}
        if w.final_id is not None:
            try:
                end["game_id"] = w.final_id()
            except Exception:  # noqa: BLE001  (a game that failed has no id: its feed ends all the same)
                pass
        out += _line(end)
    if out:
        with open(w.path, "ab") as f:
            f.write(out)


def _loop() -> None:
    while True:
        time.sleep(POLL)
        with _lock:
            games = list(_watched.values())
        for w in games:
            if time.monotonic() - w.since < POLL:
                continue
            try:
                _flush(w)
            except (OSError, ValueError):  # the spool removed, a full disk: the game goes on unwatched
                with _lock:
                    _watched.pop(id(w.log), None)


@contextmanager
def watching(game, game_id: str, agents: Sequence[str], log: list,
             final_id: Callable[[], str] | None = None) -> Iterator[None]:
    """Publish the game whose log is ``log`` (``game``: its definition, whose codec writes the events) while the
    block plays it, if the spool is on; its file is ended and removed when the block ends, however. ``game_id``
    names its file; ``final_id``, for a game published under a `live_name`, gives the id it is stored under
    once it is over (said in its end line)."""
    global _thread
    spool = _spool()
    if spool is None:
        yield
        return
    header = {"live": 1, "game_id": game_id, "game": game.name, "agents": list(agents), "pid": os.getpid(),
              "started": round(time.time(), 3)}
    w = _Watched(spool / f"{_safe(game_id)}.jsonl", header, log, game.codec, final_id)
    with _lock:
        _watched[id(log)] = w
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_loop, name="locm-live", daemon=True)
            _thread.start()
    try:
        yield
    finally:
        with _lock:
            _watched.pop(id(log), None)
        with w.lock:
            published, w.done = w.written >= 0 and not w.done, True
            try:
                if published:  # its last events and its end, then the file goes (the game is stored next)
                    _append(w, True)
                    w.path.unlink()
            except OSError:
                pass


_names = itertools.count()


def live_name(game_name: str) -> str:
    """A name to publish a game under while its id is not known (``GAME-live-PID-N-RANDOM``: unique among the
    games being played, and telling nothing of the game's seed)."""
    return f"{game_name}-live-{os.getpid()}-{next(_names)}-{secrets.token_hex(4)}"


def _safe(game_id: str) -> str:
    """A file name for a game id (ids are content hashes and rulesets: letters, digits, ``.-_``)."""
    return "".join(c if c.isalnum() or c in ".-_" else "_" for c in game_id)[:200]


def publish_run(key: str, doc: dict) -> None:
    """Write (replace) a run's file ``sprt-<key>.json`` in the spool, if the spool is on: ``doc`` and this
    process's pid, for the arena (`locm.arena.live`)."""
    spool = _spool()
    if spool is None:
        return
    path = spool / f"sprt-{_safe(key)}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps({**doc, "pid": os.getpid(), "updated": round(time.time(), 3)}))
        tmp.replace(path)
    except OSError:
        pass


__all__ = ["ENV", "POLL", "spool_of", "enable", "watching", "live_name", "publish_run"]
