"""Run one benchmark row in a fresh Python process (its compilation and peak memory its own)
and read back the JSON object it prints last; None when it fails or runs past `timeout`."""

from __future__ import annotations

import json
import subprocess
import sys


def run_row(script: str, args: list[str], timeout: float) -> dict | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])
