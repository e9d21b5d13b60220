"""The repository's own pages: the README stays a front page, the links of the pages outside
the MkDocs site resolve (`make docs` checks the site's own), and no text tells history."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = ("README.md", "DEVELOPERS.md", "bench/README.md")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")
HISTORY = re.compile(r"session [0-9]|issue [0-9]|issues? #[0-9]", re.IGNORECASE)
SKIPPED = {".git", ".venv", "build", ".pytest_cache", ".hypothesis", "__pycache__"}


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 300, len(lines)
    assert "out.backward()" in "\n".join(lines) and "make test" in "\n".join(lines)


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve(page):
    path = ROOT / page
    targets = [m.group(1) for m in LINK.finditer(path.read_text())]
    missing = [t for t in targets if "://" not in t and not (path.parent / t).exists()]
    assert targets and not missing, missing


def _text_files():
    for path in ROOT.rglob("*"):
        if SKIPPED.intersection(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        if path.suffix in (".py", ".md", ".ipynb") or path.name == "Makefile":
            yield path


def test_no_text_tells_history():
    """Code, tests and pages state the present: no numbered work sessions or issues."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _text_files()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if HISTORY.search(line)
    ]
    assert not found, found
