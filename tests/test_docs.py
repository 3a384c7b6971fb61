"""The manual: the README stays a front page, every relative link of the README and of docs/ resolves, mkdocs.yml's
navigation lists every page of docs/, and (where MkDocs is installed: `make docs`) the site builds with warnings
as errors and its command reference, generated from the CLI itself, has an entry for every command."""

from __future__ import annotations

import importlib
import re
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_README_LINES = 250

# [text](target) outside code: inline links and images; a target is up to the first space or ")"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of every Markdown link of a file, code blocks and code spans left out."""
    found, fenced = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            found.append((n, m.group(1)))
    return found


def slug(text: str) -> str:
    """Python-Markdown's toc slug of a heading (what MkDocs names its anchor), code and emphasis marks dropped."""
    text = unicodedata.normalize("NFKD", re.sub(r"[`*]", "", text)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def headings(path: Path) -> set[str] | None:
    """The anchors of a page's Markdown headings; None for a page whose headings are generated at build time."""
    text = path.read_text(encoding="utf-8")
    if "::: mkdocs-click" in text:
        return None
    out, fenced = set(), False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
            out.add(slug(m.group(1)))
    return out


def test_the_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines, at most {MAX_README_LINES}: move it to docs/"
    # the two commands that work on a fresh machine open it, and the title names no single game
    assert lines[0].startswith("# ") and "Legends of Code and Magic" not in lines[0]
    first_block = "\n".join(lines[: lines.index("```", 3) + 1])
    assert "make demo" in first_block and "make test" in first_block


@pytest.mark.parametrize("path", [README, *pages()], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    broken = []
    for n, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # http:, https:, mailto:
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{path.relative_to(ROOT)}:{n}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and (known := headings(dest)) is not None and anchor not in known:
            broken.append(f"{path.relative_to(ROOT)}:{n}: {target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_the_link_checker_finds_a_broken_link(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("[gone](nowhere.md) `[not a link](x.md)`\n```\n[code](y.md)\n```\n", encoding="utf-8")
    assert links(page) == [(1, "nowhere.md")]


def nav_pages(nav) -> list[str]:
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                out += nav_pages(value) if isinstance(value, list) else [value]
    return out


def listed_pages() -> list[str]:
    """The pages mkdocs.yml's nav lists: read with PyYAML where it is installed (it comes with MkDocs), else
    every `.md` item of the nav block, which is all this file's nav holds."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    try:
        import yaml
    except ImportError:
        nav = text[text.index("\nnav:"):]
        return re.findall(r"^\s+-\s+(?:[^:\n]+:\s+)?(\S+\.md)\s*$", nav, re.M)
    return nav_pages(yaml.safe_load(text)["nav"])


def test_the_navigation_lists_every_page():
    listed = listed_pages()
    on_disk = [str(p.relative_to(DOCS)) for p in pages()]
    assert sorted(set(on_disk) - set(listed)) == [], "pages of docs/ missing from mkdocs.yml's nav"
    assert sorted(set(listed) - set(on_disk)) == [], "nav entries of mkdocs.yml without a page"
    assert len(listed) == len(set(listed)), "a page listed twice in mkdocs.yml's nav"


def reference_directive() -> dict[str, str]:
    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert "::: mkdocs-click" in text, "the command reference is generated by mkdocs-click"
    return dict(re.findall(r"^\s+:(\w+):\s*(\S+)", text, re.M))


def test_the_command_reference_is_generated_from_the_cli():
    options = reference_directive()
    group = getattr(importlib.import_module(options["module"]), options["command"])
    assert options["prog_name"] == "locm" and group.commands, "the directive names the locm command group"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: `make docs` installs the extra locm[docs]")
    pytest.importorskip("mkdocs_click", reason="mkdocs-click is not installed: `make docs` installs it")
    pytest.importorskip("material", reason="Material for MkDocs is not installed: `make docs` installs it")
    out = tmp_path_factory.mktemp("site")
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                         capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                         timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    return out


def test_the_site_builds_strict_and_every_command_has_its_entry(site):
    options = reference_directive()
    group = getattr(importlib.import_module(options["module"]), options["command"])
    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")

    def walk(cmd, path):
        yield path
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            yield from walk(sub, f"{path}-{name}")

    missing = [p for p in walk(group, "locm") if f'id="{p}"' not in html]
    assert not missing, f"commands without an entry in the generated reference: {missing}"
