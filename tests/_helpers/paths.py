"""The repository's folders, wherever a test file sits below tests/."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
HELPERS = TESTS / "_helpers"
