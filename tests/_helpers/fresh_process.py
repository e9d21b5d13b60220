"""A small script in a fresh Python process: for settings a process reads once, at import, and
for counts of the whole process that state left by other tests would move."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .paths import ROOT


def run_json(script: str, variable: str | None = None, value: str | None = None) -> dict:
    """The JSON object `script` prints last, run from the repository root in a fresh process
    whose environment has `variable` (if any) set to `value` (removed where None)."""
    env = {k: v for k, v in os.environ.items() if k != variable}
    if variable is not None and value is not None:
        env[variable] = value
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])
