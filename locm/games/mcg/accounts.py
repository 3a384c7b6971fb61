"""my-card-game accounts in the event store: one account per stored log (its collection economy, R-ACCOUNT
in data/mcg/RULES.md), beside the games.

The ``accounts`` table is made by the first account stored (as ``schedules`` is by the first tournament), so
a store without accounts is the schema-3 file it was:

    CREATE TABLE IF NOT EXISTS accounts (
        account   TEXT PRIMARY KEY,              -- the name its mcg_account_opened gives
        n_events  INTEGER NOT NULL CHECK (n_events >= 1),
        head_hash BLOB NOT NULL,                 -- sha256 chain over the events' canonical JSON, as a game's
        updated   TEXT NOT NULL,
        data      BLOB NOT NULL                  -- zlib of the events' JSON lines, as a game's log
    )

An account's log only grows: storing it again replaces the row only with a log that extends the stored one
(the same events first), else it is refused (`AccountStoreError`): history is never rewritten. Every log is
checked before it is stored, as `locm verify` checks an account file: seqs 0..n-1 and earlier causes, every
event re-decided from its command on the state before it (no negative balance, no card not owned), every
card owned traced to the starter, a pack or a craft; the account's economy and card pool the game's, not what
its opening declares (`locm.engine.mcg.economy.not_the_games`); and every reward for a match the store holds,
once, with the result that match's log gives the account its ``mcg_game_created`` names (`reward_problem`).
`account_problem` is that check; `locm verify --db` runs it on every stored account after checking its chain,
and `locm import` on every account of a file (the file's own matches count as held: they are stored with it).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from locm.errors import StoreError
from locm.events.mcg.account import LOSS, WIN
from locm.store.records import chain_hash, pack_log, utc_timestamp

ACCOUNTS_SQL = """\
CREATE TABLE IF NOT EXISTS accounts (
    account   TEXT PRIMARY KEY,
    n_events  INTEGER NOT NULL CHECK (n_events >= 1),
    head_hash BLOB NOT NULL,
    updated   TEXT NOT NULL,
    data      BLOB NOT NULL
)"""


class AccountStoreError(StoreError):
    """An account log the store refuses (it does not verify, or it would rewrite the stored history)."""


Credits = Mapping[str, tuple[str, tuple[int, ...]]]
"""What a stored match gives accounts (R-REWARD): account → (``"win"`` or ``"loss"``, the deck it played,
sorted), for each seat its ``mcg_game_created`` names an account for, by the winner its ``mcg_game_ended``
gives."""


def credits_of(events: Sequence[Any]) -> dict[str, tuple[str, tuple[int, ...]]] | None:
    """The accounts a match's log credits, each with its result and deck (`Credits`; empty for a match played
    without accounts), or None when `events` is not a finished my-card-game match."""
    from locm.events.mcg.catalog import GameCreated, GameEnded

    if len(events) < 2 or type(events[0]) is not GameCreated or type(events[-1]) is not GameEnded:
        return None
    created, winner = events[0], events[-1].winner
    return {name: (WIN if seat == winner else LOSS, tuple(sorted(created.decks[seat])))
            for seat, name in enumerate(created.accounts or ()) if name}


def stored_credits(store: Any, match_id: str) -> dict[str, tuple[str, tuple[int, ...]]] | None:
    """`credits_of` the game `match_id` of `store`, or None when the store holds no such game (or it is not a
    my-card-game match)."""
    if not isinstance(match_id, str) or not store.has_game(match_id):
        return None
    ends = [e for _, e in store.iter_events([match_id], types=("mcg_game_created", "mcg_game_ended"))]
    return credits_of(ends)  # its first and last events, the others not decoded


def reward_problem(events: Sequence[Any], store: Any, also: Mapping[str, Credits] | None = None, since: int = 0
                   ) -> tuple[str | None, int]:
    """None when every reward of an account's log (R-REWARD) is for a match `store` holds (or `also` names:
    an import's matches, stored with it), whose log names this account in a seat, played with a deck the
    account had saved (R-PLAYDECK), and gives it the result the reward claims; else the problem and the
    reward's seq. (Once each: `audit_account` refuses a second reward of one match.) Rewards before seq
    `since` are taken as checked (by the caller, against this store)."""
    from locm.engine.mcg.economy import evolve_account
    from locm.events.mcg.account import MatchRewarded

    name, state = events[0].account, None
    for e in events:
        if type(e) is MatchRewarded and e.seq >= since:
            credits = also[e.match] if also and e.match in also else stored_credits(store, e.match)
            if credits is None:
                return (f"account event {e.seq}: a reward for match {e.match[:80]!r}, which is not a my-card-game "
                        "game the store holds (R-REWARD: gold comes only from stored games)"), e.seq
            if name not in credits:
                seats = ", ".join(map(repr, credits)) or "none"
                return (f"account event {e.seq}: a reward for match {e.match!r}, whose log does not name account "
                        f"{name!r} (its accounts: {seats}; R-REWARD)"), e.seq
            result, deck = credits[name]
            if result != e.result:
                return (f"account event {e.seq}: a reward for a {e.result} in match {e.match!r}, whose log gives "
                        f"account {name!r} a {result} (R-REWARD)"), e.seq
            if all(tuple(sorted(cards)) != deck for _, cards in state.decks.values()):
                return (f"account event {e.seq}: a reward for match {e.match!r}, played with a deck account "
                        f"{name!r} had not saved (R-PLAYDECK)"), e.seq
        state = evolve_account(state, e)
    return None, -1


def account_problem(events: Sequence[Any], store: Any = None, also: Mapping[str, Credits] | None = None,
                    since: int = 0) -> tuple[str | None, int]:
    """None when `events` is an account's log the rules give (see the module docstring), else the problem
    and the seq where it is (-1: the whole log). With `store`, its rewards are checked against the matches
    the store holds (`reward_problem`, from seq `since`); without, a file alone, they are not."""
    from locm.engine.mcg.economy import audit_account, provenance
    from locm.engine.mcg.errors import AccountError
    from locm.events.mcg.account import AccountOpened

    if not events or type(events[0]) is not AccountOpened:
        return "an account's log opens with mcg_account_opened", 0
    for i, e in enumerate(events):
        if e.seq != i or not -1 <= e.cause < i:
            return f"line {i + 1}: seq {e.seq}, cause {e.cause}: expected seq {i} and an earlier cause", i
    found = audit_account(events)
    if not found.ok:
        return f"account event {found.seq} is not what the rules give: {found.reason}", found.seq
    try:
        provenance(events)
    except AccountError as exc:
        return str(exc), -1
    if store is not None:
        return reward_problem(events, store, also, since)
    return None, -1


def account_hashes(lines: Sequence[bytes]) -> list[bytes]:
    """The chained hashes of an account log's lines (``sha256(previous + line)``, from the empty string): the
    last is the row's ``head_hash``; an export writes each beside its line."""
    head, out = b"", []
    for line in lines:
        head = chain_hash(head, line)
        out.append(head)
    return out


def _head(lines: Sequence[bytes]) -> bytes:
    hashes = account_hashes(lines)
    return hashes[-1] if hashes else b""


def write_account(conn, name: str, lines: Sequence[bytes]) -> None:
    """Write an account's row (its log's lines, checked by the caller) inside the caller's transaction."""
    conn.execute(ACCOUNTS_SQL)
    conn.execute("INSERT OR REPLACE INTO accounts (account, n_events, head_hash, updated, data) "
                 "VALUES (?, ?, ?, ?, ?)", (name, len(lines), _head(lines), utc_timestamp(), pack_log(lines)))


def _sqlite(store):
    conn = getattr(store, "_conn", None)
    if conn is None:
        raise AccountStoreError(f"{store.path}: accounts are kept in a store file (SQLite), not in memory")
    return conn


def store_account(store, events: Sequence[Any], checked: int = 0) -> tuple[str, bool]:
    """Store an account's log (checked first); returns (account, whether the row changed). A log equal to
    the stored one changes nothing; a longer one that extends it replaces it; any other is refused.
    `checked`: how many of its first events the caller has just checked against this store (their rewards
    are not looked up again: a command's cost does not grow with the account's matches)."""
    import zlib

    from locm.events.mcg.codec import ACCOUNT_CODEC

    problem, seq = account_problem(events, store, since=checked)
    if problem:
        raise AccountStoreError(f"account log refused: {problem}")
    name = events[0].account
    lines = [ACCOUNT_CODEC.to_json(e) for e in events]
    conn = _sqlite(store)
    if store.readonly:
        raise AccountStoreError(f"{store.path}: opened read-only, cannot write")
    with store._transaction():
        conn.execute(ACCOUNTS_SQL)
        row = conn.execute("SELECT n_events, data FROM accounts WHERE account = ?", (name,)).fetchone()
        if row is not None:
            stored = zlib.decompress(row[1]).split(b"\n")
            if lines[:len(stored)] != stored:
                raise AccountStoreError(f"account {name!r}: the log does not extend the stored one (its first "
                                        f"{row[0]} events differ): an account's history is never rewritten")
            if len(lines) == len(stored):
                return name, False
        write_account(conn, name, lines)
    return name, True


def account_names(store) -> list[str]:
    conn = getattr(store, "_conn", None)
    if conn is None or not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'accounts'").fetchone():
        return []
    return [r[0] for r in conn.execute("SELECT account FROM accounts ORDER BY account")]


def account_lines(store, name: str) -> list[bytes]:
    """A stored account's log as its events' JSON lines, its chain checked against its row
    (`AccountStoreError` if it does not hold: the log was changed after it was stored)."""
    import zlib

    row = _sqlite(store).execute("SELECT n_events, head_hash, data FROM accounts WHERE account = ?",
                                 (name,)).fetchone() if name in account_names(store) else None
    if row is None:
        raise AccountStoreError(f"{store.path}: no account {name!r}")
    try:
        lines = zlib.decompress(row[2]).split(b"\n")
    except zlib.error as exc:
        raise AccountStoreError(f"account {name!r}: the log does not inflate: {exc}") from None
    if len(lines) != row[0] or _head(lines) != row[1]:
        raise AccountStoreError(f"account {name!r}: its hash chain does not hold ({len(lines)} events, the row "
                                f"says {row[0]}): the log was changed after it was stored")
    return lines


def account_events(store, name: str) -> list[Any]:
    """A stored account's events, its chain checked against its row (`AccountStoreError` if it does not
    hold: the log was changed after it was stored)."""
    from locm.events.codec import DecodeError
    from locm.events.mcg.codec import ACCOUNT_CODEC

    lines = account_lines(store, name)
    try:
        return ACCOUNT_CODEC.from_json_array(b"[" + b",".join(lines) + b"]")
    except DecodeError as exc:
        raise AccountStoreError(f"account {name!r}: {exc}") from None


__all__ = ["ACCOUNTS_SQL", "AccountStoreError", "account_problem", "reward_problem", "credits_of", "stored_credits",
           "Credits", "store_account", "account_names",
           "account_events", "account_lines", "account_hashes", "write_account"]
