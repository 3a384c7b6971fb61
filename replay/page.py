"""The replay viewer's page of any game: one self-contained HTML file (what ``locm html`` writes and ``locm
arena`` serves at ``/games/ID``), LOCM's viewer for a LOCM game, the viewer shell with the game's own board for
the others."""

from __future__ import annotations

from pathlib import Path

from locm.replay.game import Replay
from locm.replay.match import MatchReplay


def page_of(r: Replay | MatchReplay) -> str:
    """The viewer's HTML of an opened game (`locm.replay.sources.open_game`)."""
    if isinstance(r, MatchReplay):
        from locm.replay.match_html import render_match_html

        return render_match_html(r)
    from locm.replay.html import render_html

    return render_html(r)


def stored_page(db: str | Path, game_id: str) -> str:
    """The viewer's HTML of a stored game (its chain checked as it is read: `locm.replay.sources.open_stored`)."""
    from locm.replay.sources import open_stored

    return page_of(open_stored(db, game_id))
