"""`locm play --game mcg --account NAME [--deck SLOT] [--account1 NAME [--deck1 SLOT]]`: a match played with
accounts' saved decks (R-PLAYDECK), stored, and its gold credited to the accounts once (R-REWARD).

The game is played, said, stored and written by the generic `locm.tournament.workflow.play`, with the
definition's ``new`` giving the accounts' decks (a seat without an account keeps its agent's own deck, the one
it would bring anyway) and naming each seat's account in its ``game_created`` (R-REWARD: the gold goes to the
accounts the stored game names, with the result its log gives). The match's id names its content, decks and
accounts included, so the same command again finds the game stored and credits nothing more: a match id is
credited at most once per account."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from locm.errors import UsageProblem


def play_with_accounts(game: Any, request: Any, seats: Sequence[tuple[str | None, int | None]], echo,
                       sandbox) -> None:
    """Play one match of `game` as `request` asks with the decks of `seats` (``(account, slot)`` each; an
    account of None: the agent's own deck), then credit the stored match's gold to the accounts."""
    from locm.common.inputs import existing_store
    from locm.engine.mcg.game import McgGame
    from locm.games.mcg.collection import credit_match, play_decks
    from locm.store.eventstore import open_store
    from locm.tournament.workflow import play as play_any

    for seat, (account, slot) in enumerate(seats):
        if account is None and slot is not None:
            flag = "--deck" if seat == 0 else f"--deck{seat}"
            raise UsageProblem(f"{flag} names a deck slot of an account: give {flag.replace('deck', 'account')}")
    if request.db is None:
        raise UsageProblem("--account: accounts are kept in a store: give --db (the store that holds them)")
    with open_store(existing_store(request.db), create=False, readonly=True) as store:
        decks = play_decks(store, seats)
    names = tuple(a or "" for a, _ in seats)  # the game's log names its accounts: their gold comes from it
    played: list[McgGame] = []

    def new(rules, seed, agents, bots=()):
        own = McgGame.new(rules, seed, tuple(agents), bots=tuple(bots)).log[0].decks  # the agents' own decks
        match = McgGame.new(rules, seed, tuple(agents), decks=[d or own[i] for i, d in enumerate(decks)],
                            bots=tuple(bots), accounts=names)
        played.append(match)
        return match

    with_decks = dataclasses.replace(game, new=new, new_versioned=new)
    play_any(with_decks, request, echo, sandbox)
    match = played[-1]
    gid = game.game_id(match.log[0])
    say = echo if request.log_path is None or str(request.log_path) != "-" else (lambda s: echo(s, err=True))
    with open_store(request.db) as store:
        if not store.has_game(gid):
            return
        for name, gold in credit_match(store, gid):
            say(f"credited: account {name} +{gold} gold" if gold else
                f"account {name} was already credited for {gid}: credited nothing")


__all__ = ["play_with_accounts"]
