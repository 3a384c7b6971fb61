"""The arena's reading of a store's live spool (`locm.runner.live`): the games being played, each as a
spectator sees it, and the state of the runs with a sequential test (recomputed from the store).

A spectator reads each event in words as the seats' opponents may (`replay.wing.Wing.private`: a card drawn is
"P0 draws a card"), and the opening event without its seed (from the seed and the rules every hidden card
follows). With ``reveal_after`` seconds (the organiser's ``locm arena --reveal-after``), an event published
that long ago is revealed: its words as everyone reads them once the game is stored. The spool's files are
the runners', so they are read as hostile: a line that does not parse, a header that does not say what it
should or an event its game's codec refuses ends that game's feed with one line, and nothing but the spool
folder is read.

A game that hides nothing has a board too (`live_board`: its viewer board's ``live_frame``, Skyport's): the
boards after the new events, which the watch page draws with the viewer's own board script.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import json
import os
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from locm.engine.errors import LocmError
from locm.runner.live import SUFFIX, spool_of

MAX_FILE = 64 << 20
"""A live game's file is not read past this many bytes (a game's log is far smaller)."""


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _header(path: Path) -> dict | None:
    try:
        with open(path, "rb") as f:
            line = f.readline(64 << 10)
        doc = json.loads(line)
    except (OSError, ValueError):
        return None
    if not (isinstance(doc, dict) and doc.get("live") == 1 and isinstance(doc.get("game_id"), str)
            and isinstance(doc.get("game"), str) and isinstance(doc.get("agents"), list)):
        return None
    return doc


class Spool:
    """The live spool of one store (read only; it may not exist)."""

    def __init__(self, db: str | Path, secret: bytes | None = None) -> None:
        self.path = spool_of(db)
        self.secret = secret if secret is not None else os.urandom(16)

    def handle(self, game_id: str) -> str:
        """The name a spectator knows a live game by: not its id, which names its seed (and with its seed and
        rules every hidden card could be computed), but a keyed hash of it (this arena's secret)."""
        return hmac.new(self.secret, game_id.encode(), hashlib.sha256).hexdigest()[:20]

    def make(self) -> bool:
        """Make the spool folder (beside the store, never in it), so that runners publish; whether it exists."""
        try:
            self.path.mkdir(exist_ok=True)
        except OSError:
            return False
        return True

    def games(self) -> list[dict]:
        """The games being played (from their file's header: the handle, game, agents, started; and the id and
        file, which the arena keeps to itself until the game is over), oldest first."""
        if not self.path.is_dir():
            return []
        out = []
        for p in self.path.glob("*.jsonl"):
            h = _header(p)
            if h is not None and _alive(h.get("pid")):
                out.append({"handle": self.handle(h["game_id"]), "game": h["game"],
                            "agents": [str(a) for a in h["agents"]], "started": h.get("started"),
                            "game_id": h["game_id"], "file": p.name})
        return sorted(out, key=lambda g: (g["started"] or 0, g["handle"]))

    def find(self, handle: str) -> dict | None:
        """The live game a handle names (`handle`), None when none is being played."""
        return next((g for g in self.games() if hmac.compare_digest(g["handle"], handle)), None)

    def runs(self) -> dict[str, dict]:
        """The runs with a sequential test, by their schedule's key: what each published (its test, agents,
        pid) and whether its process is still running."""
        out = {}
        if not self.path.is_dir():
            return out
        for p in self.path.glob("sprt-*.json"):
            try:
                doc = json.loads(p.read_text()[:1 << 20])
            except (OSError, ValueError):
                continue
            if isinstance(doc, dict) and isinstance(doc.get("schedule"), str) and isinstance(doc.get("test"), str):
                doc["running"] = _alive(doc.get("pid"))
                out[doc["schedule"]] = doc
        return out


class Feed:
    """One live game as a spectator follows it: `poll` reads what its runner appended since and gives the
    events to send (``[seq, type, rule, cause, text]``, public words) and the seqs now revealed."""

    def __init__(self, path: Path, reveal_after: float | None = None) -> None:
        from locm.engine import registry

        self.path = path
        self.reveal_after = reveal_after
        head = _header(path)
        if head is None:
            raise LocmError(f"{path.name}: not a live game's file")
        self.header = head
        self.file = open(path, "rb")
        try:
            self.game = registry.get(head["game"])
        except LocmError:
            raise LocmError(f"{path.name}: no game {head['game'][:40]!r} here") from None
        self.offset = 0
        self.events: list[Any] = []
        self.times: list[float] = []  # when each event was published
        self.sent = 0
        self.revealed = 0
        self.ended = False
        self.stored_id = head["game_id"]
        """The id the game is stored under (its end line's, for a game published under a live name)."""
        self._replay = None
        self.board = live_board(self.game)
        self._drawn = -1

    def _read(self) -> None:
        if self.ended:
            return
        self.file.seek(self.offset)
        data = self.file.read(max(0, MAX_FILE - self.offset))  # the file stays open: read whole once removed
        end = data.rfind(b"\n")
        if end < 0:
            if (os.fstat(self.file.fileno()).st_nlink == 0 or self.offset >= MAX_FILE
                    or not _alive(self.header.get("pid"))):
                self.close()  # removed without its end line, its runner gone, or too long: over
            return
        lines, self.offset = data[:end].split(b"\n"), self.offset + end + 1
        for line in lines:
            doc = json.loads(line)  # ValueError: a hostile file, the caller ends the feed
            if not isinstance(doc, dict) or doc.get("live") == 1:
                continue
            if doc.get("ended") is True:
                if isinstance(doc.get("game_id"), str):
                    self.stored_id = doc["game_id"][:200]  # a game published under a live name: its id at last
                self.close()
            t = float(doc.get("t", 0))
            for raw in doc.get("events", ()):
                self.events.append(self.game.codec.from_json(json.dumps(raw)))
                self.times.append(t)

    def close(self) -> None:
        """The feed is over (its end read, its runner gone, or its spectator gone): its file closed."""
        self.ended = True
        self.file.close()

    def poll(self) -> tuple[list[list], list[list]]:
        """New events (public words) and newly revealed ones (``[seq, words]``), since the last poll."""
        from locm.replay.game import Replay

        self._read()
        if len(self.events) > self.sent or self._replay is None and self.events:
            self._replay = Replay(self.events, source=self.header["game_id"], game=self.game)
        r = self._replay
        new = []
        for seq in range(self.sent, len(self.events)):
            e = r.events[seq]
            hidden = r.wing.private(r, seq)
            text = hidden[1] if hidden is not None else r.wing.words(r, seq)
            if seq == 0:
                text = f"{self.game.title}: " + " vs ".join(self.header["agents"])  # no seed: it tells every card
            new.append([seq, _tag(e), e.rule, e.cause, text])
        self.sent = len(self.events)
        shown = []
        if self.reveal_after is not None:
            now = time.time()
            while self.revealed < self.sent and self.times[self.revealed] <= now - self.reveal_after:
                seq = self.revealed
                shown.append([seq, r.wing.words(r, seq)])
                self.revealed += 1
        return new, shown

    def frame(self) -> dict | None:
        """The boards after the events not drawn yet (`live_board`'s ``live_frame``); None when there are none,
        for a game without a live board, and from a log its board cannot draw on (then never again)."""
        r = self._replay
        if self.board is None or r is None or len(self.events) - 1 <= self._drawn:
            return None
        since, self._drawn = self._drawn, len(self.events) - 1
        try:
            return self.board.live_frame(r, since)
        except Exception:  # noqa: BLE001  (a forged log the board cannot draw: its events still come, in words)
            self.board = None
            return None


def live_board(game) -> ModuleType | None:
    """The module that draws ``game``'s board in the viewer (`locm.replay.html`), if it draws a live one too:
    its ``live_frame(replay, since)`` gives the page's data for the boards after the events past ``since``
    (and their ``seqs``), which its ``BOARD_JS`` draws one after another. Only a game that hides nothing has
    one (a spectator sees its whole board)."""
    from locm.replay.wing import wing_of

    name = wing_of(game).viewer_board or game.html_board
    board = importlib.import_module(name) if name else None
    return board if hasattr(board, "live_frame") else None


def _tag(event) -> str:
    from locm.events.base import tag_of

    return tag_of(type(event))


def sprt_state(db: str | Path, run: dict, manifest: str) -> dict:
    """A published run's sequential test over the store's games now: `locm.tournament.sequential.SequentialRun`
    over the schedule the store keeps, read-only (its summary, the pairs scheduled, and ``state``: the
    verdict, "running" or "stopped")."""
    from locm.analysis.sprt import Sprt
    from locm.games.registry import SCHEDULE_KINDS
    from locm.store.eventstore import open_store
    from locm.tournament.schedule import Schedule
    from locm.tournament.sequential import SequentialRun

    test = Sprt.parse(run["test"])
    jobs = Schedule.from_manifest(manifest, SCHEDULE_KINDS)
    with open_store(db, create=False, readonly=True) as store:
        seq = SequentialRun(store, jobs, test, publish=False)
        summary = seq.advance().summary()
    state = summary["verdict"] or ("running" if run.get("running") else "stopped")
    return {"schedule": run["schedule"], "agents": list(jobs.agents), "scheduled_pairs": seq.pairs,
            "state": state, **summary}


__all__ = ["Spool", "Feed", "live_board", "sprt_state", "SUFFIX", "MAX_FILE"]
