"""`locm games`' table of any registered game's stored games (`EventStore.games`), LOCM's as every other's, any
number of seats: each seat's agent, place and score in seat order, the game's listed index fields
(`GameDef.listed`), the seats that lost by an error or a timeout, and with an agent that agent's own columns;
and a stored game's bots' stderr. What only one game shows comes from its definition's edges
(`locm.store.hooks.edges`), each optional: ``listing_ruleset(store, spec)`` (the stored ruleset name a
``--ruleset`` means: LOCM's aliases, variant files and stored variant names), ``turns_shown(turns)`` (LOCM's
battle turns begun) and ``listing_columns(store, records)`` (more columns: LOCM's rules, base and hash)."""

from __future__ import annotations

from typing import Iterator


def games_table(db, *, game, ruleset, agent, winner, winner_agent, seats, place, limit, fields, echo) -> None:
    """Say the table of ``game``'s stored games in the store ``db`` that pass the filters, then their number."""
    from locm.store.eventstore import open_store

    with open_store(db, create=False, readonly=True) as store:
        _games_table(store, game, ruleset, agent, winner, winner_agent, seats, place, limit, fields, echo)


def _games_table(store, game, ruleset, agent, winner, winner_agent, seats, place, limit, fields, echo) -> None:
    from locm.common.tables import plural as n, table
    from locm.errors import UsageProblem
    from locm.store.hooks import edges

    own = edges(game)
    if ruleset is not None and hasattr(own, "listing_ruleset"):
        ruleset = own.listing_ruleset(store, ruleset)
    turns = getattr(own, "turns_shown", lambda t: t)

    if fields:
        known = {k for m in store.games(game=game.name, limit=1) for k in m.fields}
        unknown = sorted(set(fields) - known)
        if known and unknown:
            raise UsageProblem(f"--field {unknown[0]}: {game.title}'s stored games have the index fields "
                               f"{', '.join(sorted(known))}")
    rows = store.games(game=game.name, ruleset=ruleset, agent=agent, winner=winner, limit=limit,
                         seats=seats, winner_agent=winner_agent, place=None if place is None else place - 1,
                         fields=fields)
    came = store.provenances([m.game_id for m in rows])
    untrusted = {gid for gid, c in came.items() if not c.counted}  # imported untrusted, or no provenance
    points = any(m.scores is not None for m in rows)
    mine = ("seat", "place") + (("score",) if points else ()) if agent is not None else ()
    more, extra = own.listing_columns(store, rows) if hasattr(own, "listing_columns") else ((), {})
    headers = ("game id", "ruleset", *game.listed, "seed", "seats", *mine, "winner",
               "agents (place" + (", score" if points else "") + ") by seat", "reason", "turns", "events", "created",
               "notes", *more)
    echo(table(headers, [(m.game_id, m.ruleset, *(m.fields.get(f, "") for f in game.listed), m.seed,
                          len(m.agents), *agent_columns(m, agent, points),
                          "-" if m.winner < 0 else f"{m.winner} {m.agents[m.winner]}", seat_results(m),
                          m.reason, turns(m.turns), m.n_events, m.created[:19] + "Z",
                          ", ".join(filter(None, (notes(m), "not counted" * (m.game_id in untrusted)))),
                          *extra.get(m.game_id, ("",) * len(more))) for m in rows]))
    echo(n(len(rows), f"{game.title} game") + (f", {len(untrusted)} of them not counted (imported untrusted or "
                                                f"without provenance: see locm verify)" if untrusted else ""))


def notes(m) -> str:
    """The seats that lost by an error or a timeout: ``p0 error, p1 timeout`` ("" for none)."""
    return ", ".join(f"p{s} {what}" for s, x in enumerate(m.seats or ()) for what, flag in (("error", x.error),
                                                                                             ("timeout", x.timeout))
                     if flag)


def seat_results(m) -> str:
    """Every seat's agent, place (1 first, ``=`` where shared) and score: ``hunter 1 (814) | random 3 (-150)``."""
    shared = {p for p in m.places if m.places.count(p) > 1}
    parts = []
    for seat, (a, p) in enumerate(zip(m.agents, m.places)):
        text = f"{a} {p + 1}{'=' if p in shared else ''}"
        if m.scores is not None:
            text += f" ({m.scores[seat]:g})"
        parts.append(text)
    return " | ".join(parts)


def agent_columns(m, agent, points: bool) -> tuple:
    """The seat(s), place(s) and score(s) of ``agent`` in a game (nothing without an agent)."""
    if agent is None:
        return ()
    seats = [s for s, a in enumerate(m.agents) if a == agent]
    cols = (",".join(map(str, seats)), ",".join(str(m.places[s] + 1) for s in seats))
    if points:
        cols += ("-" if m.scores is None else ",".join(f"{m.scores[s]:g}" for s in seats),)
    return cols


def stderr_lines(store, game_id: str) -> Iterator[str]:
    """What the bots of a stored game (of any game) wrote on stderr, seat by seat (`GameNotFoundError` if there
    is no such game)."""
    from locm.runner.bots import lost_by

    m = store.game(game_id)
    for seat, (agent, x) in enumerate(zip(m.agents, m.seats)):
        failed = lost_by(x.error, x.timeout)
        yield (f"== player {seat} ({agent}){f' (lost by {failed})' if failed else ''}: "
               + ("stderr:" if x.stderr else "nothing on stderr"))
        if x.stderr:
            yield x.stderr.rstrip("\n")


__all__ = ["games_table", "notes", "seat_results", "agent_columns", "stderr_lines"]
