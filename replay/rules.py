"""The rule texts that events cite: sections of `data/LOCM-RULES.md` (a byte-for-byte copy of the shared
rules) and of `data/LOCM-EXTRA-RULES.md` (locm's own: the hard cap R-CAP, variants R-VARIANT), looked up by
their id (``R-ATTACK``, ``R-RUNES``, ``R-CAP``, ...).

A section starts at a ``## `` heading whose first words are its ids (``## R-RUNES  1.2 runes / R-DAMAGEDRAW
1.5`` holds both R-RUNES and R-DAMAGEDRAW) and runs to the next heading. The shared file names the files it
cites relative to the shared folder (``../data/``, ``../conformance/``); a text shown here names them where
this repository has them (`REPO_PATHS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

RULES_FILE = "LOCM-RULES.md"
EXTRA_RULES_FILE = "LOCM-EXTRA-RULES.md"
_ID = re.compile(r"\bR-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")
REPO_PATHS = (
    ("../conformance/official-*-games-*.txt", "tests/data/official-*-games-*.txt.gz"),
    ("../conformance/", "tests/data/"),
    ("../data/", "data/"),
)
"""The shared rules' references to files, and where this repository keeps each (in this order)."""


def repo_relative(text: str) -> str:
    """A rule text with the shared folder's file references made this repository's (`REPO_PATHS`)."""
    for shared, here in REPO_PATHS:
        text = text.replace(shared, here)
    return text


@dataclass(frozen=True)
class Rule:
    id: str
    heading: str  # the section's heading line, without the ``## ``
    text: str  # the section's body

    def as_dict(self) -> dict:
        return {"id": self.id, "section": self.heading, "text": self.text}


@lru_cache(maxsize=1)
def _sections() -> dict[str, Rule]:
    return file_sections(RULES_FILE, EXTRA_RULES_FILE)


@lru_cache(maxsize=8)
def file_sections(*names: str) -> dict[str, Rule]:
    """The rule sections of the data files `names` (a game definition's ``rules_file``), by id."""
    out: dict[str, Rule] = {}
    for name in names:
        text = repo_relative((files("locm.data") / name).read_text(encoding="utf-8"))
        blocks = re.split(r"(?m)^## ", text)[1:]
        for block in blocks:
            heading, _, body = block.partition("\n")
            for rid in _ID.findall(heading):
                out.setdefault(rid, Rule(rid, heading.strip(), body.strip()))
    return out


def game_rule(rules_file: str, rule_id: str) -> Rule:
    """The section of `rule_id` in a game's rules file, else in LOCM's (`rule`, which says when neither has it)."""
    sections = file_sections(rules_file) if rules_file else {}
    found = sections.get(rule_id) or next(  # an id listed inside a section (mcg's R-FX-* in R-EFFECTS)
        (r for r in sections.values() if re.search(rf"\b{re.escape(rule_id)}\b", r.text)), None)
    return found if found is not None else rule(rule_id)


def rule(rule_id: str) -> Rule:
    """The section of a rule id; an id the rules do not define gets an explanatory placeholder."""
    found = _sections().get(rule_id)
    if found is not None:
        return found
    return Rule(rule_id, rule_id, f"({rule_id} is not a section of {RULES_FILE} nor of {EXTRA_RULES_FILE})")


def rule_ids() -> list[str]:
    return list(_sections())
