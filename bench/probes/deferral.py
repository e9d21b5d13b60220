"""Eager steps with deferred small ops on and off, in one process (`_defer/lazy.py`).

Two full runs of `bench/run.py` differ by up to 30% on this machine, more than deferral moves
some steps, so this compares the settings where they meet the same machine: each workload's
eager step (`bench/workloads.py`) with deferral on, with it off (`lazy.ENABLED`, read at every
op) and PyTorch eager, their samples interleaved round by round (`run._time`), medians in µs.
Run: `python bench/probes/deferral.py [--quick]`.
"""

from __future__ import annotations

import argparse

import _bench  # noqa: F401  (bench/ on sys.path)
from run import _cell, _geomean, _ratio, _time, real_torch, sampling
from workloads import WORKLOADS

import autograd_compat as ours
from autograd_compat._defer import lazy


def _switched(step, compute, enabled: bool):
    """The step with deferral set to `enabled` while it runs (what was deferred before is
    computed first, so no setting sees the other's work)."""

    def run():
        lazy.flush_current()
        before, lazy.ENABLED = lazy.ENABLED, enabled
        try:
            return step(compute)
        finally:
            lazy.ENABLED = before

    return run


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    print(
        "| workload | deferred µs | at each call µs | torch eager µs | deferred/torch "
        "| at call/torch |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for workload in WORKLOADS:
        step, compute = workload.torch_code(ours)
        steps = {
            "on": _switched(step, compute, True),
            "off": _switched(step, compute, False),
        }
        if real_torch is not None:
            step_t, compute_t = workload.torch_code(real_torch)
            steps["torch"] = lambda: step_t(compute_t)  # noqa: B023
        times = _time(steps, repeats, target_s)
        on, off, torch_time = times["on"], times["off"], times.get("torch")
        rows.append((_ratio(on, torch_time), _ratio(off, torch_time)))
        print(
            f"| {workload.name} | {_cell(on, 1)} | {_cell(off, 1)} | {_cell(torch_time, 1)} "
            f"| {_cell(rows[-1][0], 2)} | {_cell(rows[-1][1], 2)} |"
        )
    on_geomean = _geomean(r[0] for r in rows)
    off_geomean = _geomean(r[1] for r in rows)
    print(f"| **geomean** | | | | {_cell(on_geomean, 2)} | {_cell(off_geomean, 2)} |")


if __name__ == "__main__":
    main()
