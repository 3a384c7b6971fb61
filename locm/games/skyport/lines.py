"""Skyport's server at the byte level: the lines a client's bytes make as the 2013 server's reader reads them
(`JavaLineReader`), and the transcript of a served game in the oracle's log format (`Transcript`)."""

from __future__ import annotations

import codecs
import gzip
import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any, TextIO

from locm.engine.skyport.hexmap import format_map
from locm.errors import ServeError

TRANSCRIPT_FORMAT = "skyport-oracle/1"


# --- reading lines as Java does -------------------------------------------------------------------------------


_EOL = re.compile(r"\r\n?|\n")


class JavaLineReader:
    """The lines ``BufferedReader.readLine`` reads from a byte stream (UTF-8, malformed bytes replaced; ``\\n``,
    ``\\r`` and ``\\r\\n`` end a line; a last line without an end is read at the end). A line longer than
    `limit` characters sets `overflow` (the lines before it are still returned) and nothing more is read."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.overflow = False
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self._part: list[str] = []
        self._size = 0
        self._cr = False  # the last chunk ended with \r: a \n starting the next one ends nothing

    def feed(self, data: bytes, final: bool = False) -> list[str]:
        if self.overflow:
            return []
        text = self._decode(data, final)
        out: list[str] = []
        pos = 0
        if self._cr and text:
            self._cr = False
            if text[0] == "\n":
                pos = 1
        for m in _EOL.finditer(text, pos):
            if not self._add(text[pos:m.start()]):
                return out
            out.append("".join(self._part))
            self._part, self._size = [], 0
            pos = m.end()
            if m.group() == "\r" and pos == len(text):
                self._cr = True
        if self._add(text[pos:]) and final and self._part:
            out.append("".join(self._part))
            self._part, self._size = [], 0
        return out

    def _add(self, piece: str) -> bool:
        if piece:
            self._size += len(piece)
            if self._size > self.limit:
                self.overflow = True
                self._part = []
                return False
            self._part.append(piece)
        return True


# --- transcript -----------------------------------------------------------------------------------------------


class Transcript:
    """Every line each client sent (as read) and was sent, in the server's order, in the oracle's log format:
    a ``header`` (map, seed, players, think time), ``msg``, ``connect``, ``close`` and ``end`` records. Records
    before the game is created (no names yet) wait in memory for the header."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self.file: TextIO = (gzip.open(self.path, "wt", encoding="utf-8") if self.path.endswith(".gz")
                                 else open(self.path, "w", encoding="utf-8"))
        except OSError as exc:
            raise ServeError(f"cannot write the transcript {self.path}: {exc.strerror or exc}", "transcript") \
                from None
        self.early: list[dict[str, Any]] | None = []
        self.seq = 0
        self.t0 = time.monotonic()

    def start(self, server: Any, names: tuple[str, ...]) -> None:
        """Write the header (`server`: the `locm.games.skyport.server.SkyportServer` whose game begins)."""
        text = format_map(server.map)
        header = {"type": "header", "format": TRANSCRIPT_FORMAT, "server": "locm serve", "map": server.map.name,
                  "map_sha1": hashlib.sha1(text.encode()).hexdigest(), "map_text": text, "seed": server.seed,
                  "think_ms": server.timing.think_ms, "timing": server.timing.name,
                  "turns": server.rules.turn_limit, "game_s": 0,
                  "players": [{"slot": s.slot, "name": n, "client": s.label} for s, n in zip(server.seats, names)]}
        self._write(header)
        for rec in self.early or ():
            self._write(rec)
        self.early = None

    def msg(self, player: int, direction: str, line: str) -> None:
        self.seq += 1
        self.record({"type": "msg", "seq": self.seq, "t": round((time.monotonic() - self.t0) * 1000, 1),
                     "player": player, "dir": direction, "line": line})

    def record(self, rec: dict[str, Any]) -> None:
        if "seq" not in rec:
            rec = {**rec, "seq_after": self.seq}
        if self.early is not None:
            self.early.append(rec)
        else:
            self._write(rec)

    def _write(self, rec: dict[str, Any]) -> None:
        self.file.write(json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n")

    def close(self) -> None:
        if not self.file.closed:
            self.file.close()


__all__ = ["TRANSCRIPT_FORMAT", "JavaLineReader", "Transcript"]
