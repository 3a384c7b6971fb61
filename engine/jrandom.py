"""A bit-exact port of java.util.Random and Collections.shuffle (R-RNG).

Every random choice of the official referee (draft offers, generated cards, deck orders, derived seeds) comes
from this generator, so the port must agree with OpenJDK to the last bit: it is checked against
`tests/data/java-random-vectors.txt`.
"""

from __future__ import annotations

import functools
import sys
from array import array
from typing import Any

_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1
_DOUBLE_UNIT = 1.0 / (1 << 53)


def _signed32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def _signed64(x: int) -> int:
    x &= 0xFFFFFFFFFFFFFFFF
    return x - (1 << 64) if x & 0x8000000000000000 else x


class JavaRandom:
    """java.util.Random with the same seed scrambling and the same outputs."""

    __slots__ = ("_seed",)

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ _MULT) & _MASK

    def next(self, bits: int) -> int:
        self._seed = (self._seed * _MULT + _ADD) & _MASK
        r = self._seed >> (48 - bits)
        # Interpret as a signed 32-bit int, as Java's (int) cast does.
        if r & 0x80000000:
            r -= 1 << 32
        return r

    def next_int(self, bound: int | None = None) -> int:
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError(f"bound must be positive, got {bound}")
        # next(31) inlined (never negative, so no sign fix-up), constants written out and the usual case (one
        # step, no rejection) returning first: bots and the draft call this a few hundred times a game.
        self._seed = seed = (self._seed * 0x5DEECE66D + 0xB) & 0xFFFFFFFFFFFF
        bits = seed >> 17
        if not bound & (bound - 1):  # a power of two
            return (bound * bits) >> 31
        if bits <= 0x80000000 - bound:  # then bits - bits % bound + bound - 1 < 2**31: Java rejects nothing
            return bits % bound
        val = bits % bound
        while bits - val + (bound - 1) >= 0x80000000:
            self._seed = seed = (seed * 0x5DEECE66D + 0xB) & 0xFFFFFFFFFFFF
            bits = seed >> 17
            val = bits % bound
        return val

    def next31s(self, count: int) -> list[int]:
        """The outputs of the next `count` calls of next(31) (the raw draws of `next_int`), all at once; the
        generator moves on `count` steps.

        A caller that makes many `next_int` calls in a row (the draft's offers: about 166) takes its draws
        from this list instead: one call per draw was half of a game's creation. The states come from one
        packed jump-ahead (`packed_states`). `next_int(bound)` is `bits % bound` for a `bits` of at most
        2**31 - bound (`bound * bits >> 31` for a power of two); above that Java may reject the draw and take
        the next one, which the caller must handle (or replay call by call).
        """
        if count <= 0:
            return []
        packed = packed_states(self._seed, count)
        self._seed = packed >> (64 * (count - 1))
        return unpack((packed >> 17) & field_mask(31, 1, count), count)

    def next_long(self) -> int:
        return _signed64((self.next(32) << 32) + self.next(32))

    def next_double(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * _DOUBLE_UNIT

    def shuffle(self, items: list[Any]) -> None:
        """Collections.shuffle(list, rnd) for a random-access list, in place.

        The draws come from one batch (`next31s`): a deck of 30 took 29 `next_int` calls, a tenth of a 1.2
        game's draft. A batch that holds a draw Java might reject (above 2**31 - len(items)) is thrown away
        and the shuffle replayed call by call from the same state."""
        n = len(items)
        if n < 2:
            return
        start = self._seed
        bits = self.next31s(n - 1)  # the draw of nextInt(i) for i = n, n-1, ..., 2
        if max(bits) <= 0x80000000 - n:  # then no draw is rejected at any bound <= n
            for i, b in zip(range(n, 1, -1), bits):
                j = b % i if i & (i - 1) else (i * b) >> 31  # a power of two takes the high bits
                items[i - 1], items[j] = items[j], items[i - 1]
            return
        self._seed = start
        for i in range(n, 1, -1):
            j = self.next_int(i)
            items[i - 1], items[j] = items[j], items[i - 1]


_LOW24 = (1 << 24) - 1


# Many states at once, for callers that know in advance how many draws they take (engine.locm.cardgen's
# sub-generators, `JavaRandom.next31s`): Python pays per object and per call, and a jump-ahead on one packed
# integer makes hundreds of states with a handful of big-integer operations.


def packed_states(state: int, fields: int, stride: int = 1) -> int:
    """Raw 48-bit states of a java.util.Random whose state is `state`, one per 64-bit field (the first in the
    lowest): field k holds the state after `stride * k + 1` steps (every state for stride 1; the first of
    each nextDouble's two for stride 2).

    `state * a mod 2**48` is taken as `lo*a_lo + ((lo*a_hi + hi*a_lo) mod 2**24 << 24)` over 24-bit halves,
    so that no field ever holds more than 50 bits and nothing carries into the next field.
    """
    mults_lo, mults_hi, adds, low24, low48 = _jump(fields, stride)
    lo, hi = state & _LOW24, state >> 24
    cross = (lo * mults_hi + hi * mults_lo) & low24
    return (lo * mults_lo + (cross << 24) + adds) & low48


@functools.cache
def _jump(fields: int, stride: int = 1) -> tuple[int, int, int, int, int]:
    """Packed jump-ahead: field k holds the affine map of `stride * k + 1` LCG steps (multiplier in 24-bit
    halves), then the 24- and 48-bit field masks."""
    mults, adds = [], []
    a, c = 1, 0
    for step in range(stride * (fields - 1) + 1):
        a, c = (a * _MULT) & _MASK, (c * _MULT + _ADD) & _MASK
        if step % stride == 0:
            mults.append(a)
            adds.append(c)
    return (pack([m & _LOW24 for m in mults]), pack([m >> 24 for m in mults]), pack(adds),
            pack([_LOW24] * fields), pack([_MASK] * fields))


@functools.cache
def field_mask(bits: int, stride: int, count: int) -> int:
    """`bits` low ones in every `stride`-th 64-bit field, `count` times."""
    return pack([(1 << bits) - 1 if k % stride == 0 else 0 for k in range(stride * count)])


def pack(values: list[int]) -> int:
    """Values below 2**64 as the 64-bit fields of one integer, the first in the lowest."""
    return int.from_bytes(b"".join(v.to_bytes(8, "little") for v in values), "little")


def unpack(packed: int, fields: int, stride: int = 1) -> list[int]:
    """Every `stride`-th of the `fields` 64-bit fields of `packed`, from the first."""
    return array("Q", packed.to_bytes(fields * 8, sys.byteorder))[::stride].tolist()


__all__ = ["JavaRandom", "packed_states", "field_mask", "pack", "unpack"]
