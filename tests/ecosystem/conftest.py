"""Ecosystem tests: one script, written as PyTorch code against a third-party library, run twice
in fresh processes, on real PyTorch and under the `torch` alias, and the JSON each prints
compared.

A library binds `torch` once, when it is first imported, so the two runs cannot share a
process. Scripts live in `scripts/`, set their weights from numpy (never from a hub download)
and end with `common.emit(...)`.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tests._helpers.torch_compare import require_torch

# The scripts run in processes of their own (on either library): never imported by pytest,
# whose doctest collection would otherwise run them in its own process.
collect_ignore = ["scripts"]

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "TRANSFORMERS_VERBOSITY": "error",
    "PYTHONWARNINGS": "ignore",
}


def run_script(name: str, *args: str, aliased: bool, cwd: pathlib.Path, timeout: int = 600):
    """The JSON object that `scripts/<name>` prints last, run on real PyTorch or (aliased) on
    autograd_compat through `python -m autograd_compat run`."""
    script = str(SCRIPTS / name)
    command = [sys.executable, "-m", "autograd_compat", "run"] if aliased else [sys.executable]
    env = {**os.environ, **OFFLINE, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [*command, script, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    which = "autograd_compat" if aliased else "PyTorch"
    assert done.returncode == 0, f"{name} failed on {which}:\n{done.stderr[-6000:]}"
    return json.loads(done.stdout.splitlines()[-1])


def assert_close(ours, theirs, *, rtol: float, atol: float, path: str = "result") -> None:
    """Two JSON results agree: the same keys and structure, numbers within the tolerance."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), (path, ours, theirs)
        for key in theirs:
            assert_close(ours[key], theirs[key], rtol=rtol, atol=atol, path=f"{path}.{key}")
    elif isinstance(theirs, list) and not all(isinstance(v, (int, float)) for v in theirs):
        assert isinstance(ours, list) and len(ours) == len(theirs), (path, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_close(a, b, rtol=rtol, atol=atol, path=f"{path}[{i}]")
    elif isinstance(theirs, (int, float, list)) and not isinstance(theirs, bool):
        np.testing.assert_allclose(
            np.asarray(ours, float), np.asarray(theirs, float), rtol=rtol, atol=atol, err_msg=path
        )
    else:
        assert ours == theirs, (path, ours, theirs)


@pytest.fixture
def both(tmp_path):
    """`both(script, *args, rtol=, atol=)`: run a script on both libraries, assert the results
    agree, and return ours (the real PyTorch run is the oracle)."""
    require_torch()

    def run(name: str, *args: str, rtol: float = 1e-4, atol: float = 1e-5) -> dict:
        theirs_dir, ours_dir = tmp_path / "torch", tmp_path / "ours"
        theirs_dir.mkdir(exist_ok=True)
        ours_dir.mkdir(exist_ok=True)
        theirs = run_script(name, *args, aliased=False, cwd=theirs_dir)
        ours = run_script(name, *args, aliased=True, cwd=ours_dir)
        assert_close(ours, theirs, rtol=rtol, atol=atol)
        return ours

    return run


@pytest.fixture
def script(tmp_path):
    """`script(name, *args, aliased=)`: one run of a script (see `run_script`), for tests
    whose two runs differ (a file written by one library and read by the other)."""
    require_torch()

    def run(name: str, *args: str, aliased: bool) -> dict:
        return run_script(name, *args, aliased=aliased, cwd=tmp_path)

    return run
