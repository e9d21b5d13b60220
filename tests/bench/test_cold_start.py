"""The cold-start benchmarks' fresh processes (`bench/cold_start.fresh_env`) import the package
from bytecode, as an installed package's processes do. Nothing is timed here."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

from tests._helpers.paths import ROOT

# what a fresh process imports of the package, and which of those modules have no bytecode file
_PROBE = textwrap.dedent(
    """
    import os, sys
    import autograd_compat
    ours = [m for m in list(sys.modules.values()) if m.__name__.startswith("autograd_compat")]
    cached = [m.__spec__.cached for m in ours if m.__spec__ is not None and m.__spec__.cached]
    print(len(cached), sum(not os.path.exists(path) for path in cached))
    """
)


def test_fresh_runs_import_the_package_from_bytecode(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.delitem(sys.modules, "cold_start", raising=False)
    cold_start = importlib.import_module("cold_start")
    env = dict(cold_start.fresh_env(), PYTHONDONTWRITEBYTECODE="1")  # (the process writes none)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    modules, without_bytecode = map(int, out.stdout.split())
    assert modules > 100
    assert without_bytecode == 0
