"""CPU seconds from launch to each of the first three losses of the four real models: PyTorch
eager (one thread); ours eager with an empty compilation cache and with a warm one (the same
model run once before in that cache); ours compiled with an empty cache.

Each run is a fresh process pinned to one CPU (CPU time, unlike the wall time of
`bench/models.py`'s cold-start table, hardly moves with other load on a shared machine), with
a temporary `AUTOGRAD_COMPAT_CACHE_DIR`. Run: `python bench/probes/cold_cpu.py [model ...]`.
Prints one row per model: seconds (import / first / second / third loss) of each column.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

import _bench  # noqa: F401  (bench/ on sys.path)
from cold_start import fresh_env

BENCH = pathlib.Path(__file__).resolve().parent.parent
MODELS = ("gpt", "mnist", "lstm", "resnet")
COLUMNS = ("torch", "eager", "eager, warm cache", "compiled")

CHILD = """
import os, sys, time
os.sched_setaffinity(0, {0})
model, column = sys.argv[1], sys.argv[2]
if column != "torch":
    import autograd_compat
    autograd_compat.alias_torch()
import torch
torch.set_num_threads(1)
times = [time.process_time()]
import real_models
setup = real_models.build(model)
step = torch.compile(setup.train_step) if column == "compiled" else setup.train_step
for _ in range(3):
    float(step())
    times.append(time.process_time())
print(" / ".join(f"{t:.2f}" for t in times))
"""


def run(model: str, column: str) -> str:
    """The times one fresh process reports, or why it failed (a warm cache's column: the
    second of two processes on one cache)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(fresh_env(), AUTOGRAD_COMPAT_CACHE_DIR=cache)
        env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(BENCH)])
        kind, _, warm = column.partition(", ")
        for _ in range(2 if warm else 1):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, model, kind],
                env=env,
                capture_output=True,
                text=True,
                cwd=BENCH,
            )
    lines = done.stdout.strip().splitlines()
    return lines[-1] if done.returncode == 0 and lines else f"failed ({done.returncode})"


def main() -> None:
    models = sys.argv[1:] or MODELS
    print("| model | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for model in models:
        print(f"| {model} | " + " | ".join(run(model, c) for c in COLUMNS) + " |", flush=True)


if __name__ == "__main__":
    main()
