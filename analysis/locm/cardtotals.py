"""The card report's running totals over a chunk of games, added up from the games' stored facts
(`analysis.locm.packedfacts`) with numpy: what `locm.games.locm.facts_store` adds into its tables per chunk, instead of
inserting every card row and grouping them in SQL.

The sums are the definitions of `locm.games.locm.facts_store`'s tables, keyed by ruleset, agent, opponent and seat
as there. For each card row, for each condition of `CONDITIONS`, the rows that meet it and those of them
won, then picks, pick numbers, player-games that picked it, first picks (0 when none), plays, own turns of
the plays and turns held (`SUM_NAMES`), summed:

- totals (``cardfacts_totals``), over the card rows of games whose decks were drafted (1.2), per card (base
  id, with its ``fkey``);
- buckets (``cardfacts_buckets``), over the card rows of games whose decks were built from a generated pool
  (constructed: a card exists in one game only), per feature bucket (an index of `FEATURE_ORDER`): a row
  counts in every bucket of its card (`analysis.locm.cardfacts.feature_codes`);
- turns, per own turn of a card's first play: the rows played first then and those won;
- offered, per offer key (1.2: base id; constructed: pool bucket), the rounds or pool cards, for each seat of
  the game;
- clusters, per constructed bucket and metric: the sums of the squares of each player-game's count, of those
  won, and the player-games holding it; cross, over games whose two seats have the same agent, the sum of the
  two seats' counts multiplied and the games where both hold it. A row is kept only where its count of
  holders is not zero, as the SQL kept it.

Every sum is exact (`_group`: a chunk's sums stay far below 2**53). A test checks these tables
against the definitions written as SQL over the same card rows (tests/test_cardreport.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np

from locm.analysis.locm.cardfacts import CARD_COLUMNS, FEATURE_ORDER, feature_codes
from locm.analysis.locm.packedfacts import Packed

CONDITIONS = ("deck", "opening_hand", "drawn", "in_hand", "not_seen", "played")
SUM_NAMES = tuple(f"{m}_{k}" for m in CONDITIONS for k in ("n", "wins")) + (
    "picked", "pick_sum", "pick_games", "pick_first_sum", "plays", "play_turn_sum", "held_sum")
"""The columns of ``cardfacts_totals`` after its key, in order."""

_C = {name: i for i, name in enumerate(CARD_COLUMNS)}
_W = len(CARD_COLUMNS)
_METRICS = 6  # bucket counts packed 8 bits each (`analysis.locm.cardfacts.unpack_counts`)


class ChunkTotals(NamedTuple):
    """One chunk's rows for each totals table, in the tables' column order (names and keys as text)."""

    totals: list[tuple]
    turns: list[tuple]
    offered: list[tuple]
    clusters: list[tuple]
    cross: list[tuple]
    buckets: list[tuple]


def _group(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``keys`` (n x k) and, for each, the sums of the ``values`` rows (n x v) that have it,
    in the order of the keys. The key columns are read as the digits of one integer where it fits in 62 bits
    (always, for these tables: one sort and a `numpy.bincount` per value column, exact below 2**53); else one
    `numpy.lexsort` and `numpy.add.reduceat`."""
    if not len(keys):
        return keys, values
    lo = keys.min(axis=0)
    span = (keys.max(axis=0) - lo + 1).tolist()
    mult, m = [], 1
    for size in reversed(span):
        mult.append(m)
        m *= size
    if m >= 1 << 62:
        order = np.lexsort(keys.T[::-1])
        k, v = keys[order], values[order]
        starts = np.flatnonzero(np.concatenate(([True], np.any(k[1:] != k[:-1], axis=1))))
        return k[starts], np.add.reduceat(v, starts, axis=0)
    mult.reverse()
    unique, at = np.unique((keys - lo) @ np.array(mult, dtype=np.int64), return_inverse=True)
    sums = np.empty((len(unique), values.shape[1]), dtype=np.int64)
    for j in range(values.shape[1]):
        sums[:, j] = np.bincount(at, weights=values[:, j], minlength=len(unique))
    out = np.empty((len(unique), keys.shape[1]), dtype=np.int64)
    for i, (size, base) in enumerate(zip(span, lo.tolist())):
        out[:, i] = unique // mult[i] % size + base
    return out, sums


def _ints(lists: list[list[int]], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-game flat lists of ``width``-wide rows as one (rows x width) array, and each row's game index."""
    lens = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    flat = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=int(lens.sum()))
    return flat.reshape(-1, width), np.repeat(np.arange(len(lists), dtype=np.int64), lens // width)


class _Names:
    """The chunk's texts (rulesets, agents) as small integers, and a seat of a game (its ruleset, its agent,
    the opponent, the seat) as one integer."""

    def __init__(self, packs: Sequence[Packed]) -> None:
        codes: dict[str, int] = {}
        self.rs = np.array([codes.setdefault(p.ruleset, len(codes)) for p in packs], dtype=np.int64)
        self.seats = np.array([(codes.setdefault(p.agent0, len(codes)), codes.setdefault(p.agent1, len(codes)))
                               for p in packs], dtype=np.int64).reshape(-1, 2)
        self.text = list(codes)
        self.n = max(1, len(codes))

    def seat(self, gi: np.ndarray, player: np.ndarray) -> np.ndarray:
        """(ruleset, agent, opponent, player) of seat ``player`` of game ``gi``, as one integer."""
        return ((self.rs[gi] * self.n + self.seats[gi, player]) * self.n + self.seats[gi, 1 - player]) * 2 + player

    def head(self, code: int) -> tuple[str, str, str, int]:
        rest, player = divmod(code, 2)
        rest, opponent = divmod(rest, self.n)
        rs, agent = divmod(rest, self.n)
        return self.text[rs], self.text[agent], self.text[opponent], player


def chunk_totals(packs: Sequence[Packed]) -> ChunkTotals:
    """The totals tables' rows over the games of ``packs`` (see the module note)."""
    out = ChunkTotals([], [], [], [], [], [])
    if not packs:
        return out
    names = _Names(packs)
    pooled = np.array([p.constructed for p in packs], dtype=bool)
    winner = np.array([p.winner for p in packs], dtype=np.int64)
    heads: dict[int, tuple] = {}

    def head(code: int) -> tuple:
        h = heads.get(code)
        if h is None:
            h = heads[code] = names.head(code)
        return h

    # the card rows
    lens = np.fromiter((len(p.cards) for p in packs), dtype=np.int64, count=len(packs)) // (4 * _W)
    rows = np.frombuffer(b"".join(p.cards for p in packs), dtype="<i4").reshape(-1, _W).astype(np.int64)
    gi = np.repeat(np.arange(len(packs), dtype=np.int64), lens)
    col = {name: rows[:, i] for name, i in _C.items()}
    player = col["player"]
    seat = names.seat(gi, player)
    won = col["won"] != 0
    deck, opening, drawn, played = col["copies"] > 0, col["opening"] > 0, col["drawn"] > 0, col["plays"] > 0
    in_hand = (col["opening"] + col["drawn"]) > 0
    values = np.empty((len(rows), len(SUM_NAMES)), dtype=np.int64)
    for i, c in enumerate((deck, opening, drawn, in_hand, deck & ~in_hand, played)):
        values[:, 2 * i] = c
        values[:, 2 * i + 1] = c & won
    for i, c in enumerate((col["picked"], col["pick_sum"], col["picked"] > 0, col["pick_first"], col["plays"],
                           col["play_turn_sum"], col["held_sum"]), 2 * len(CONDITIONS)):
        values[:, i] = c
    drafted = ~pooled[gi]
    keys, sums = _group(np.stack([seat, col["card"], col["fkey"]], axis=1)[drafted], values[drafted])
    out.totals.extend((*head(k[0]), k[1], k[2], *v) for k, v in zip(keys.tolist(), sums.tolist()))
    # constructed: by feature key first (a few thousand), then each key's sums into each of its buckets
    keys, sums = _group(np.stack([seat, col["fkey"]], axis=1)[~drafted], values[~drafted])
    if len(keys):
        codes = [feature_codes(f) for f in keys[:, 1].tolist()]
        at = np.repeat(np.arange(len(keys)), np.fromiter(map(len, codes), dtype=np.int64, count=len(codes)))
        feature = np.fromiter(chain.from_iterable(codes), dtype=np.int64, count=len(at))
        keys, sums = _group(np.stack([keys[at, 0], feature], axis=1), sums[at])
        out.buckets.extend((*head(k[0]), k[1], *v) for k, v in zip(keys.tolist(), sums.tolist()))
    keys, sums = _group(np.stack([seat, col["first_play_turn"]], axis=1)[played],
                        np.stack([np.ones(len(rows), dtype=np.int64), won], axis=1)[played].astype(np.int64))
    out.turns.extend((*head(k[0]), k[1], *v) for k, v in zip(keys.tolist(), sums.tolist()))

    # offers: 1.2 base ids offered, constructed pool buckets, counted for each seat of the game
    okeys, ogi = _ints([p.offer_keys for p in packs], 1)
    counts, _ = _ints([p.offer_counts for p in packs], 1)
    kind = np.array([p.constructed for p in packs], dtype=np.int64)[ogi]
    for p in (0, 1):
        keys, sums = _group(np.stack([names.seat(ogi, np.full(len(ogi), p)), kind, okeys[:, 0]], axis=1), counts)
        out.offered.extend((*head(k[0]), FEATURE_ORDER[k[2]] if k[1] else str(k[2]), v[0])
                           for k, v in zip(keys.tolist(), sums.tolist()))

    # constructed buckets: the sums their intervals cluster by
    lens = np.fromiter((len(p.buckets) for p in packs), dtype=np.int64, count=len(packs)) // (2 + _METRICS)
    held = np.frombuffer(b"".join(p.buckets for p in packs), dtype=np.uint8).reshape(-1, 2 + _METRICS)
    if not len(held):
        return out
    held = held.astype(np.int64)
    bgi = np.repeat(np.arange(len(packs), dtype=np.int64), lens)
    bp, feature, n = held[:, 0], held[:, 1], held[:, 2:]
    square = n * n
    won_b = (winner[bgi] == bp)[:, None]
    keys, sums = _group(np.stack([names.seat(bgi, bp), feature], axis=1),
                        np.concatenate([square, square * won_b, (n > 0).astype(np.int64)], axis=1))
    for k, v in zip(keys.tolist(), sums.tolist()):
        h = (*head(k[0]), k[1])
        out.clusters.extend((*h, m, v[m], v[_METRICS + m], v[2 * _METRICS + m])
                            for m in range(_METRICS) if v[2 * _METRICS + m])
    same = names.seats[bgi, 0] == names.seats[bgi, 1]
    width = len(FEATURE_ORDER)
    at0, at1 = np.flatnonzero(same & (bp == 0)), np.flatnonzero(same & (bp == 1))
    _, i0, i1 = np.intersect1d(bgi[at0] * width + feature[at0], bgi[at1] * width + feature[at1], assume_unique=True,
                               return_indices=True)
    a, b = at0[i0], at1[i1]
    if len(a):
        keys, sums = _group(np.stack([names.seat(bgi[a], bp[a]), feature[a]], axis=1),
                            np.concatenate([n[a] * n[b], ((n[a] > 0) & (n[b] > 0)).astype(np.int64)], axis=1))
        for k, v in zip(keys.tolist(), sums.tolist()):
            rs, agent, _, _ = head(k[0])
            out.cross.extend((rs, agent, k[1], m, v[m], v[_METRICS + m]) for m in range(_METRICS) if v[_METRICS + m])
    return out


__all__ = ["chunk_totals", "ChunkTotals", "SUM_NAMES", "CONDITIONS"]
