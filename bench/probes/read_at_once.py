"""The chain's eager step after each of its ops was once read right after it (`_defer/lazy.py`).

An op whose result is read at once (a run of one op: a notebook cell printing `y * 1.01`)
runs at its call from then on, since deferring it gains nothing; the ops so marked are
deferred again after `REDEFER_AFTER` calls. Kept for good, the marks would leave the chain's
step, whose ops were all once printed, running each op as an XLA call of its own. This times
the chain's step (`bench/workloads.py`) fresh, over its first steps after the reads and once
steady, with the marks kept for good and with them lifted (the library's rule), beside PyTorch.
Run: `python bench/probes/read_at_once.py [--quick]`.
"""

from __future__ import annotations

import argparse
import sys
import time

import _bench  # noqa: F401  (bench/ on sys.path)
from run import _cell, _time, real_torch, sampling
from workloads import CHAIN_DATA, chain_torch

import autograd_compat as ours
from autograd_compat._defer import lazy

FIRST_STEPS = 20  # the steps right after the reads, timed one by one


def _read_each_op_at_once() -> None:
    """Each op of the chain's round on a tensor of its shape, read right after it, three
    times (the first run learns its shapes, the second is deferred and read at once)."""
    x = ours.tensor(CHAIN_DATA)
    for op in (lambda t: t * 1.01, lambda t: t + 0.1, ours.sin, ours.tanh):
        for _ in range(3):
            op(x).numpy()


def _after_reads(step, for_good: bool, repeats: int, target_s: float) -> tuple[float, float]:
    """Mean µs of the first `FIRST_STEPS` steps after the reads, and the median once steady
    (the marks kept `for_good`: the count to their lifting never reaches zero)."""
    lazy._redefer()
    if for_good:
        lazy._calls_left[0] = sys.maxsize
    _read_each_op_at_once()
    start = time.perf_counter()
    for _ in range(FIRST_STEPS):
        step()
    first = (time.perf_counter() - start) / FIRST_STEPS * 1e6
    steady = _time({"steady": step}, repeats, target_s)["steady"]
    lazy._redefer()
    return first, steady


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    step_ours, compute = chain_torch(ours)

    def step():
        return step_ours(compute)

    steps = {"fresh": step}
    if real_torch is not None:
        step_t, compute_t = chain_torch(real_torch)
        steps["torch"] = lambda: step_t(compute_t)
    fresh = _time(steps, repeats, target_s)
    print("200-op elementwise chain (16), µs per step")
    print(f"| state | first {FIRST_STEPS} steps | steady | steady/torch |")
    print("|---|---:|---:|---:|")
    torch_time = fresh.get("torch")
    rows = [("fresh (no op read at once)", None, fresh["fresh"])]
    rows.append(
        (
            "after the reads, marks kept for good",
            *_after_reads(step, True, repeats, target_s),
        )
    )
    rows.append(
        ("after the reads, marks lifted (the rule)", *_after_reads(step, False, repeats, target_s))
    )
    for name, first, steady in rows:
        ratio = None if torch_time is None else steady / torch_time
        print(f"| {name} | {_cell(first, 1)} | {_cell(steady, 1)} | {_cell(ratio, 2)} |")
    print(f"| PyTorch eager | | {_cell(torch_time, 1)} | 1 |")


if __name__ == "__main__":
    main()
