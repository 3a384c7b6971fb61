"""What reaches a terminal (`locm.common.terminal_text.escape_controls`): every character that reorders or
drives the display is written out, the rest passes."""

from __future__ import annotations

import json

import pytest

from locm.common.terminal_text import escape_controls


@pytest.mark.parametrize("code", [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C])
def test_every_bidirectional_control_is_written_out(code):
    text = f"evil {chr(code)}gnp.exe"
    assert escape_controls(text) == f"evil \\u{code:04x}gnp.exe"
    assert json.loads(f'"{escape_controls(text)}"') == text  # JSON reads it back the same


def test_text_and_layout_pass():
    assert escape_controls("a\tb\nc é ß 日本 \u05d0") == "a\tb\nc é ß 日本 \u05d0"  # Hebrew letters are text
