"""A bit-exact port of java.util.Random and Collections.shuffle (R-RNG).

Every random choice of the official referee (draft offers, generated cards, deck orders, derived seeds) comes
from this generator, so the port must agree with OpenJDK to the last bit: it is checked against
`tests/data/java-random-vectors.txt`.
"""

from __future__ import annotations

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

    def next_long(self) -> int:
        return _signed64((self.next(32) << 32) + self.next(32))

    def next_double(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * _DOUBLE_UNIT

    def shuffle(self, items: list[Any]) -> None:
        """Collections.shuffle(list, rnd) for a random-access list, in place."""
        for i in range(len(items), 1, -1):
            j = self.next_int(i)
            items[i - 1], items[j] = items[j], items[i - 1]


__all__ = ["JavaRandom"]
