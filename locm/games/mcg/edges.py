"""my-card-game's parts at the edges, as its definition names them (``GameDef.edges``, `locm.store.hooks`): its
accounts, the chained logs the store keeps beside its games (`locm.games.mcg.accounts`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from locm.events.mcg.codec import ACCOUNT_CODEC
from locm.games.mcg import accounts


class _Accounts:
    """The accounts as the store's `locm.store.hooks.SideLogs`: ``{"account": ...}`` blocks of an export file."""

    kind = "account"
    codec = ACCOUNT_CODEC
    error = accounts.AccountStoreError

    def names(self, store: Any) -> list[str]:
        return accounts.account_names(store)

    def lines(self, store: Any, name: str) -> list[bytes]:
        return accounts.account_lines(store, name)

    def hashes(self, lines: Sequence[bytes]) -> list[bytes]:
        return accounts.account_hashes(lines)

    def problem(self, events: Sequence[Any], store: Any = None, also: Mapping[str, Any] | None = None
                ) -> tuple[str | None, int]:
        return accounts.account_problem(events, store, also)

    def credits(self, events: Sequence[Any]) -> dict[str, tuple[str, tuple[int, ...]]] | None:
        found = accounts.credits_of(events)
        return found or None

    def write(self, conn: Any, name: str, lines: Sequence[bytes]) -> None:
        accounts.write_account(conn, name, lines)


SIDE_LOGS = _Accounts()


def _account_file(path: str, data: bytes, redecide: bool) -> list:
    """An account's log (its collection economy, R-ACCOUNT): its seqs 0..n-1 and causes, every event re-decided
    from its command on the state before it (no negative balance, no card not owned), and every card owned at
    the end traced to the starter, a pack or a craft; its economy and card pool the game's. Its rewards name
    matches, which only a store holds: `locm verify --db` and `locm import` check them against it."""
    from locm.events.codec import DecodeError
    from locm.verify.checks import Checked, Verdict

    try:
        events = ACCOUNT_CODEC.from_jsonl(data)
    except DecodeError as exc:
        return [Checked(path, Verdict(f"not a my-card-game account log: {exc}"))]
    problem, seq = accounts.account_problem(events)
    return [Checked(path, Verdict(problem, seq))]


FILE_CHECKS = {"account": _account_file}
"""`locm verify FILE` of an account's log (`locm.replay.sources.read_source`'s kind ``account``)."""

__all__ = ["SIDE_LOGS", "FILE_CHECKS"]
