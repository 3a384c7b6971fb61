"""Text bound for a terminal: `escape_controls` (its own module, stdlib only, so that every command can
import it at start-up without the rest of locm)."""

from __future__ import annotations

import re

_CONTROL_CODES = [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F),
                  *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
"""C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional embeddings, overrides and
isolates (U+202A-U+202E, U+2066-U+2069) and marks (U+200E, U+200F, U+061C: they reorder the text around
them as the "Trojan Source" attacks do)."""
_ESCAPED = {c: f"\\u{c:04x}" for c in _CONTROL_CODES if c not in (0x09, 0x0A)}


def escape_controls(text: str, keep: re.Pattern[str] | None = None) -> str:
    """``text`` with every character a terminal would obey rather than show written out as ``\\uXXXX``: C0
    and C1 controls but tab and newline (escape sequences that clear the screen, set the title or write the
    clipboard; carriage returns that overwrite a line), DEL, line separators and bidirectional overrides, isolates and marks.
    What a bot wrote, a log or a store holds, reaches a terminal only through this. ``keep``: sequences of
    our own to pass as they are (a progress bar's). JSON stays valid: its strings read ``\\uXXXX`` the same."""
    if keep is None:
        return text.translate(_ESCAPED)
    parts = keep.split(text)
    return "".join(p if i % 2 else p.translate(_ESCAPED) for i, p in enumerate(parts))


__all__ = ["escape_controls"]
