"""Shared test helpers: reading the vectors file and the official logs shipped under tests/data."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
LOG_12 = DATA / "official-1.2-games-00-49.txt.gz"
LOG_15 = DATA / "official-1.5-games-00-49.txt.gz"
VECTORS = DATA / "java-random-vectors.txt"


def vector_lines() -> list[str]:
    return VECTORS.read_text(encoding="utf-8").splitlines()


def vector_after(prefix: str) -> str:
    """The text after `prefix` on the first line of the vectors file that starts with it."""
    for line in vector_lines():
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    raise AssertionError(f"no vector line starts with {prefix!r}")


def section(title_start: str) -> list[str]:
    """The lines of the vectors file section whose heading starts with `## title_start`."""
    lines = vector_lines()
    for i, line in enumerate(lines):
        if line.startswith("## " + title_start):
            out = []
            for rest in lines[i + 1:]:
                if rest.startswith("## "):
                    break
                out.append(rest)
            return out
    raise AssertionError(f"no section {title_start!r}")
