"""A game's facts as the store keeps them beside its events: what the card report reads of a game (its
``cardfacts_games`` row, its card rows, its draft offers or pool buckets, its constructed bucket counts),
packed into one compact blob by `pack` from the one fold (`analysis.locm.cardfacts.project`).

The store's writer keeps the blob in the game's transaction (`locm.store.records.prepare_game` computes it
where the events already are: a tournament worker, a what-if re-run, an import), so that `locm report` adds up
stored facts instead of reading, checking and folding every log (`analysis.locm.cardtotals`). It is derived data,
never trusted over the events: it is kept with the game's head hash and `FACTS_VERSION` (facts of another
version or of another head are not used: the report projects that game from its events), and `locm verify`
recomputes every game's facts from its events and names a game whose stored facts differ (`difference`).

Layout (`Packed`, a msgspec array encoded as MessagePack, then zlib level 1: about 0.8 KB for a 1.2 game, 1
KB for a constructed one; compressed in the worker, so that the one writing process writes a third of the bytes):
the game row's values; the card rows as one little-endian int32 array (`CARD_COLUMNS`, a missing
``pick_first``/``first_play_turn`` as 0: both are 1 or more when known), which the report reads with
`numpy.frombuffer` and no Python integer per value; the offer keys and their counts (1.2: base ids and rounds
offered; constructed: `FEATURE_ORDER` indices and pool cards); and the constructed bucket counts as bytes, eight
per bucket held (player, `FEATURE_ORDER` index, the six counts of `analysis.locm.cardfacts.unpack_counts`). Pure: no
SQLite, no numpy (tournament workers call it).
"""

from __future__ import annotations

import sys
import zlib
from array import array
from operator import attrgetter

import msgspec

from locm.analysis.locm.cardfacts import CARD_COLUMNS, DEFINITIONS_VERSION, FEATURE_ORDER, GameFacts

LAYOUT_VERSION = 3
FACTS_VERSION = f"{DEFINITIONS_VERSION}/packed-{LAYOUT_VERSION}"
"""What a stored blob is: the definitions it was computed by and its layout. A blob of another version is
never read: the game is projected from its events again."""

WIDTH = len(CARD_COLUMNS)
_NULLABLE = tuple(CARD_COLUMNS.index(c) for c in ("pick_first", "first_play_turn"))
_CODE = {f: i for i, f in enumerate(FEATURE_ORDER)}
_row = attrgetter(*CARD_COLUMNS)
_I32 = next(t for t in "ilh" if array(t).itemsize == 4)  # a 4-byte C integer's array code
_SWAP = sys.byteorder == "big"  # stored little-endian


class Packed(msgspec.Struct, array_like=True, frozen=True, forbid_unknown_fields=True):
    """One game's stored facts (see the module note)."""

    ruleset: str
    seed: int | None
    agent0: str
    agent1: str
    winner: int
    reason: str
    turns: int
    damage: dict[str, int]  # source -> amount, in the order first dealt
    drain: int
    same_decks: bool
    constructed: bool  # the offer keys are pool buckets (constructed), else base ids offered (1.2)
    cards: bytes  # int32 little-endian rows of CARD_COLUMNS, one after the other
    offer_keys: list[int]  # in the order first offered (1.2) or first counted (constructed)
    offer_counts: list[int]
    buckets: bytes  # (player, bucket index, six counts) bytes, a bucket after the other


_enc = msgspec.json.Encoder()
_mp_enc = msgspec.msgpack.Encoder()
_mp_dec = msgspec.msgpack.Decoder(Packed)


def packed(g: GameFacts) -> Packed:
    """The stored form of one game's facts (`pack` encodes it); `ValueError` for a value beyond 32 bits (a log
    no rules give: card ids and counts are small)."""
    rows: list = []
    extend = rows.extend
    for f in g.cards:
        extend(_row(f))
    rows = [0 if v is None else v for v in rows]
    try:
        cards = array(_I32, rows)
    except OverflowError:
        raise ValueError(f"a card fact beyond 32 bits (card {max(rows, key=abs)})") from None
    if _SWAP:
        cards.byteswap()
    constructed = bool(g.pool)
    if constructed:
        keys = [_CODE[k] for k in g.pool]
        counts = list(g.pool.values())
    else:
        keys, counts = list(g.offered), list(g.offered.values())
    # (player, bucket index, the six 8-bit counts of `unpack_counts`, lowest first) in eight little-endian bytes
    buckets = b"".join((p | code << 8 | v << 16).to_bytes(8, "little") for p in (0, 1)
                       for code, v in g.buckets[p].items())
    a0, a1 = g.agents
    return Packed(g.ruleset, g.seed, a0, a1, g.winner, g.reason, g.turns, dict(g.damage), g.drain,
                  bool(g.same_decks), constructed, cards.tobytes(), keys, counts, buckets)


def pack(g: GameFacts) -> bytes:
    """One game's facts as the blob the store keeps (`FACTS_VERSION`)."""
    return encode(packed(g))


def encode(p: Packed) -> bytes:
    """A `Packed` as the blob the store keeps (`pack` of the facts it was made from)."""
    return zlib.compress(_mp_enc.encode(p), 1)


def unpack(data: bytes) -> Packed:
    """A stored blob read back; `ValueError` if it is not one (damaged, or of another layout)."""
    try:
        return _mp_dec.decode(zlib.decompress(data))
    except (zlib.error, msgspec.DecodeError) as exc:
        raise ValueError(f"not a stored game's facts ({exc})") from None


def offers(p: Packed) -> dict[str, int]:
    """The game's offer counts as the report keys them: 1.2, base id (as text) -> rounds offered; constructed,
    feature bucket -> pool cards."""
    names = FEATURE_ORDER if p.constructed else None
    return {(names[k] if names else str(k)): n for k, n in zip(p.offer_keys, p.offer_counts)}


def game_row(game_id: str, p: Packed) -> tuple:
    """The game's ``cardfacts_games`` values, in `locm.games.locm.facts_store.GAME_COLUMNS` order (damage as JSON)."""
    return (game_id, p.ruleset, p.seed, p.agent0, p.agent1, p.winner, p.reason, p.turns,
            _enc.encode(p.damage).decode(), p.drain, int(p.constructed), int(p.same_decks))


def card_ints(p: Packed) -> list[int]:
    """The game's card rows as one flat list of integers (`CARD_COLUMNS` per row)."""
    a = array(_I32)
    a.frombytes(p.cards)
    if _SWAP:
        a.byteswap()
    return a.tolist()


def card_rows(game_id: str, p: Packed) -> list[tuple]:
    """The game's card rows (`locm.games.locm.facts_store.ROW_COLUMNS`: game id, ruleset, agent, opponent, then
    `CARD_COLUMNS`), a missing value as None."""
    flat = card_ints(p)
    agents = (p.agent0, p.agent1)
    out = []
    for k in range(0, len(flat), WIDTH):
        row = flat[k:k + WIDTH]
        for i in _NULLABLE:
            if row[i] == 0:
                row[i] = None
        out.append((game_id, p.ruleset, agents[row[0]], agents[1 - row[0]], *row))
    return out


def difference(stored: Packed, fresh: Packed) -> str | None:
    """None if two games' facts are equal; else the first field that differs, with both values, in one line."""
    if stored == fresh:
        return None
    for name in Packed.__struct_fields__:
        a, b = getattr(stored, name), getattr(fresh, name)
        if a != b:
            if name == "cards":
                a, b = card_ints(stored), card_ints(fresh)
            if isinstance(a, (list, bytes)):
                at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                what = f"{name}[{at}]" if name != "cards" else f"card row {at // WIDTH}, {CARD_COLUMNS[at % WIDTH]}"
                return (f"{what}: stored {a[at] if at < len(a) else 'nothing'}, the events give "
                        f"{b[at] if at < len(b) else 'nothing'}")
            return f"{name}: stored {a!r:.60}, the events give {b!r:.60}"
    return "they differ"  # pragma: no cover - equal fields make equal structs


__all__ = ["FACTS_VERSION", "Packed", "pack", "packed", "encode", "unpack", "offers", "game_row", "card_rows", "card_ints",
           "difference"]
