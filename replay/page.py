"""The replay viewer's page of a stored game, whatever its game: what ``locm arena`` serves at ``/games/ID``, the
same page ``locm html --db DB GAME_ID`` writes (`replay.html.render_html` over `replay.sources.open_stored`)."""

from __future__ import annotations

from pathlib import Path


def stored_page(db: str | Path, game_id: str) -> str:
    """The viewer's HTML of a stored game (its chain checked as it is read: `locm.replay.sources.open_stored`)."""
    from locm.replay.html import render_html
    from locm.replay.sources import open_stored

    return render_html(open_stored(db, game_id))
