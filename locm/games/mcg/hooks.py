"""What my-card-game adds to the generic commands (its hooks in `locm.games.registry`): `locm report --game
mcg`, its card win rates by pairing (`locm.games.mcg.report`)."""

from __future__ import annotations

from pathlib import Path


def report(db: Path, *, min_n: int, max_imbalance: float, agent: str | None, backend: str, echo,
           include_untrusted: bool = False, **_options) -> None:
    """`locm report --game mcg`: card win rates by pairing of agents, printed (over the games the store may
    count unless ``include_untrusted``)."""
    from locm.errors import UsageProblem
    from locm.games.mcg.report import card_rates, report_lines
    from locm.games.locm.cardreport import ReportError
    from locm.common.inputs import existing_store
    from locm.store.eventstore import open_store
    from locm.store.provenance import left_out_note

    if backend != "local":
        raise UsageProblem("--backend ray projects LOCM's card facts only")
    with open_store(existing_store(db), create=False, readonly=True) as store:
        pairings, rates = card_rates(store, min_n, max_imbalance, agent, counted=not include_untrusted)
        note = left_out_note(store.left_out(game="mcg"), include_untrusted)
    if not pairings:
        raise ReportError(f"{db}: no my-card-game games stored (locm tournament --game mcg ... --db {db})"
                          + (f"; {note}" if note else ""))
    for line in report_lines(pairings, rates, min_n):
        echo(line)
    if note:
        echo(note)


def verify_store(store) -> tuple[str, list[tuple[str, str | None]]]:
    """`locm verify` of a store's accounts: each one's chain, then its log re-decided (its economy and card
    pool the game's), every card traced to the starter, a pack or a craft, and every reward for a match the
    store holds with the result its log gives; ``("stored account", [(label, problem or None), ...])``."""
    from locm.games.mcg.accounts import AccountStoreError, account_events, account_names, account_problem

    checked = []
    for name in account_names(store):
        try:
            problem, _ = account_problem(account_events(store, name), store)
        except AccountStoreError as exc:
            problem = str(exc)
        checked.append((f"account {name}", problem))
    return "stored account", checked


def export_count(store) -> tuple[int, str]:
    """What `locm export --all` writes of my-card-game's own beside the games: its accounts."""
    from locm.games.mcg.accounts import account_names

    return len(account_names(store)), "account"


def import_log(store, first: bytes, stream, path: str, db) -> str | None:
    """`locm import` of an account's log (its first line ``first``, the rest in ``stream``): checked as `locm
    verify` checks one and kept as its account's one log (it may only grow); what was done, in words. None
    when the file is not an account's log."""
    if b'"mcg_account_opened"' not in first[:200]:
        return None
    from locm.common.tables import plural as n
    from locm.errors import InputFileError
    from locm.events.codec import DecodeError
    from locm.events.mcg.codec import ACCOUNT_CODEC
    from locm.games.mcg.accounts import AccountStoreError, store_account
    from locm.replay.sources import MAX_FILE

    try:
        events = ACCOUNT_CODEC.from_jsonl(first + stream.read(MAX_FILE))
    except DecodeError as exc:
        raise InputFileError(path, f"not a my-card-game account log: {exc}") from None
    try:
        name, changed = store_account(store, events)
    except AccountStoreError as exc:  # refused as a forged game is: one line naming the file and the event
        raise InputFileError(path, str(exc)) from None
    return (f"stored account {name!r} ({n(len(events), 'event')}) in {db}" if changed else
            f"account {name!r} already stored with this log, unchanged")


__all__ = ["report", "verify_store", "export_count", "import_log"]
