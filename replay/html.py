"""`locm html`: one self-contained page (no network) that replays a game, for every game: the viewer shell
(`replay/viewer.html`: its one stylesheet, the controls, the event list, an event's rule and causes, play and
pause at a speed, perspectives, deep links ``page.html#seq=S&as=P``) around the game's board.

`render_html(r)` gives the shell its data (`page_data`): the events in words (``Wing.words``; where an event's
words show a seat's hidden information, ``Wing.private`` gives what the other seats read), the rules they
cite (the sections of the game's ``rules_file``), the turns, the stops of a step by action (``Wing.stops``),
the warning and the departures of a forged log. The board is the game's: the module its wing names
(``Wing.viewer_board``), else its definition's ``html_board``, else the text board (`replay.textboard`); the
module's ``viewer_data(replay)`` is merged into the page's data and its ``BOARD_JS`` defines ``drawBoard``.

Every text the log holds reaches the page through JSON inside a ``<script type="application/json">`` element
(``<`` escaped) and is shown with ``textContent``: a card or player name cannot become markup.
"""

from __future__ import annotations

import importlib
import json
from importlib.resources import files
from types import ModuleType
from typing import Any

from locm.events.base import tag_of
from locm.replay.game import Replay
from locm.replay.rules import game_rule

SHELL_KEYS = ("meta", "events", "rules", "turns", "stops", "warning", "departs")
"""The keys of the page's data that the shell reads; a board's data may add any other (``diffs`` is read by
the shell too when a board gives it)."""


def board_module(r: Replay) -> ModuleType:
    """The module that draws `r`'s board (see the module text)."""
    return importlib.import_module(r.wing.viewer_board or r.game.html_board or "locm.replay.textboard")


def page_data(r: Replay) -> dict[str, Any]:
    """The shell's part of the page's data (`SHELL_KEYS`)."""
    events = []
    for e in r.events:
        hidden = r.wing.private(r, e.seq)
        owner, public = hidden if hidden is not None else (-1, "")
        events.append([e.seq, tag_of(type(e)), e.rule, e.cause, r.wing.words(r, e.seq), owner, public])
    agents = list(r.game.agents(r.events[0]))
    if not any(agents):  # a log that names no agents: a stored game's record does
        agents = [str(a) for a in r.meta.get("agents", ())] or agents
    rules_file = getattr(r.game, "rules_file", "")
    cited = sorted({e.rule for e in r.events})
    return {
        "meta": {"title": f"{r.game.title}: {r.source}" if r.source else r.game.title, "result": r.wing.result(r),
                 "seats": len(agents), "agents": agents, "behaviour": r.behaviour()["text"], **_stored_as(r)},
        "events": events,
        "rules": {rid: {"section": (s := game_rule(rules_file, rid)).heading, "text": s.text} for rid in cited},
        "turns": [[t.number, t.player, t.first_seq, t.start_seq, t.last_seq] for t in r.turns()],
        "stops": r.wing.stops(r), "warning": r.warning, "departs": {str(k): v for k, v in r.departs().items()},
    }


def _stored_as(r: Replay) -> dict[str, str]:
    """A stored game's id and its store's path (the viewer's line that plays on from an event), from the
    replay of a stored game (its source is ``"STORE ID"``: `replay.sources.open_stored`); {} for a file's."""
    gid = r.meta.get("game_id")
    if not isinstance(gid, str) or not r.source.endswith(" " + gid):
        return {}
    return {"game_id": gid, "store": r.source[:-len(gid) - 1]}


def render_html(r: Replay) -> str:
    """The page of a game: the shell, its data and the game's board."""
    board = board_module(r)
    data = board.viewer_data(r)
    clash = set(data) & set(SHELL_KEYS)
    assert not clash, f"{board.__name__}.viewer_data gives the shell's keys {sorted(clash)}"
    data.update(page_data(r))
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    shell = (files("locm.replay") / "viewer.html").read_text(encoding="utf-8")
    title = data["meta"]["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (shell.replace("__TITLE__", title).replace("/*__BOARD_CSS__*/", getattr(board, "BOARD_CSS", ""))
            .replace("/*__BOARD_JS__*/", board.BOARD_JS).replace("/*__DATA__*/null", payload))


__all__ = ["render_html", "page_data", "board_module", "SHELL_KEYS"]
