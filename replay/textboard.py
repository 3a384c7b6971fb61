"""The text board in the viewer shell (`replay.html`), for a game whose wing and definition name no board of
their own: at every event the definition's ``board_text`` of its ``view``, whole and from each seat, kept line
by line (each distinct line once, a board as its lines' indexes: from one event to the next most lines
repeat). A game longer than `MAX_BOARDS` keeps each turn's start and end only, said on the page."""

from __future__ import annotations

from typing import Any

from locm.replay.game import Replay

MAX_BOARDS = 20_000
"""Boards a page holds (one per event and view)."""


def viewer_data(r: Replay) -> dict[str, Any]:
    seats = len(r.game.agents(r.events[0]))
    turns = [seq for seq, _, _ in r.game.turn_starts(r.events)]
    every = len(r.events) * (seats + 1) <= MAX_BOARDS
    keep = range(len(r.events)) if every else sorted({0, r.last_seq, *turns, *(t - 1 for t in turns if t > 0)})
    index: dict[str, int] = {}
    boards: dict[str, list[list[int]]] = {}
    for seq in keep:
        views = [r.board(seq, None), *(r.board(seq, s) for s in range(seats))]
        boards[str(seq)] = [[index.setdefault(line, len(index)) for line in text.split("\n")] for text in views]
    return {"lines": list(index), "boards": boards,
            "note": "" if every else "a long game: the boards of each turn's start and end only"}


BOARD_JS = r"""
function drawBoard(table) {
  const ks = Object.keys(G.boards).map(Number).filter(k => k <= seq), at = Math.max(...ks);
  table.replaceChildren();
  if (G.note) table.appendChild(el("div", "muted", G.note + (at !== seq ? " (the board of event " + at + ")" : "")));
  table.appendChild(el("pre", "textboard", G.boards[at][as === null ? 0 : as + 1].map(i => G.lines[i]).join("\n")));
}
"""

__all__ = ["viewer_data", "BOARD_JS", "MAX_BOARDS"]
