"""Plain-text tables for the terminal."""

from __future__ import annotations


def table(headers, rows) -> str:
    rows = [tuple(str(c) for c in r) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def plural(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
