"""Importing an event log into a store: LOCM's (`import_event_log`) and any other registered game's
(`import_match_log`)."""

from __future__ import annotations


def import_event_log(store, data: bytes, source: str, *, skip_existing: bool = False) -> tuple[str, bool]:
    """Store the game of an event log (`locm play --log`) under the id its content gives (`gameid.created_id`,
    the id `locm play --db` stores it under), after the checks every door makes (the store's checker,
    `locm.store.hooks.Checker`: re-deciding its inputs gives exactly its events, the fold ends the game).
    Returns (game id, stored); an identical game already stored is skipped with ``skip_existing``, else
    refused. Hard errors set the record's error flags (timeouts too)."""
    from locm.engine.registry import get
    from locm.errors import InputFileError, StoreError
    from locm.events.locm.catalog import GameCreated, HardError
    from locm.events.locm.codec import DecodeError, from_jsonl, to_json
    from locm.engine.locm.gameid import created_id
    from locm.store.eventstore import GameExtras

    try:
        events = from_jsonl(data)
    except DecodeError as exc:
        raise InputFileError(source, f"not an event log: {exc}") from None
    if not events or type(events[0]) is not GameCreated:
        raise InputFileError(source, "not an event log: it does not start with game_created")
    if store.checker is None:
        raise StoreError(f"{store.path}: a log is checked before it is stored, by the checker its caller hands the "
                         "store (open_store(..., checker=...)): none was given")
    verdict = store.checker.game_problem(get("locm"), None, events)
    if not verdict.ok:
        raise InputFileError(source, f"the log does not follow the rules: {verdict.problem}")
    gid = created_id(events[0])
    if store.has_game(gid):
        if skip_existing and [to_json(e) for e in store.events(gid)] == [to_json(e) for e in events]:
            return gid, False
        raise InputFileError(source, f"game {gid!r} is already in the store"
                             + ("" if skip_existing else " (--skip-existing skips identical games)"))
    errors = [e for e in events if type(e) is HardError]
    flags = {f"{kind}{p}": any(e.player == p and (kind == "error" or e.reason.startswith("timeout"))
                               for e in errors) for p in (0, 1) for kind in ("error", "timeout")}
    store.append_game(GameExtras(game_id=gid, **flags), events)
    return gid, True


def import_match_log(store, game, data: bytes, source: str, *, skip_existing: bool = False) -> tuple[str, bool]:
    """`import_event_log` for a log of any other registered game (`engine.seam.GameDef`: its `locm play --log`
    or `locm serve --log` file): decoded by its codec, re-decided by the core (`engine.core.verify`: every
    event what the rules give for its recorded inputs, the game ended) and stored under the id its content
    gives (`GameDef.game_id`, the id `locm play --db` or `locm serve --db` stores it under). Returns (game id,
    stored); an identical game already stored is skipped with ``skip_existing``, else refused."""
    from locm.engine import core
    from locm.engine.errors import LocmError
    from locm.errors import InputFileError
    from locm.events.codec import DecodeError
    from locm.store.eventstore import GameExtras

    try:
        events = game.codec.from_jsonl(data)
    except DecodeError as exc:
        raise InputFileError(source, f"not a {game.title} log: {exc}") from None
    if not events or type(events[0]) is not game.created:
        raise InputFileError(source, f"not a {game.title} log: it does not start with its created event")
    try:
        found = core.verify(game, events)
    except LocmError as exc:
        raise InputFileError(source, f"the log does not follow the rules: {exc}") from None
    except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:  # a forged log the rules cannot read
        raise InputFileError(source, f"the log does not follow the rules: {type(exc).__name__} {exc}") from None
    if found is not None:
        cut = lambda t: t if len(t) <= 240 else t[:240] + "..."  # noqa: E731  (a created event holds a whole map)
        raise InputFileError(source, f"the log does not follow the rules: it departs from them at seq {found.seq}: "
                             f"{found.message}" + (f"; the log has {cut(found.stored) or 'no event'}, the rules "
                                                   f"give {cut(found.decided) or 'no event'}"
                                                   if found.stored or found.decided else ""))
    gid = game.game_id(events[0])
    if store.has_game(gid):
        same = [game.codec.to_json(e) for e in store.match_events(gid)] == [game.codec.to_json(e) for e in events]
        if skip_existing and same:
            return gid, False
        raise InputFileError(source, f"game {gid!r} is already in the store"
                             + ("" if skip_existing else " (--skip-existing skips identical games)"))
    store.append_match(game, GameExtras(game_id=gid), events)
    return gid, True
