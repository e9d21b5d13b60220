"""Random draws against PyTorch eager on the CPU: the same calls, the same values.

Each case is written once as PyTorch code (`case(lib)` returns its step, run with `lib` =
autograd_compat or torch); a step reads its result to host (`.numpy()`). Medians of
interleaved samples (`run._time`), µs per call, and the ratio of ours to PyTorch's. Both
libraries run on one thread: the process is pinned to one CPU before JAX starts (so XLA's
thread pool has one thread) and `torch.set_num_threads(1)`. Run:
`python bench/rng.py [--quick]`.
"""

from __future__ import annotations

import argparse
import os

if hasattr(os, "sched_setaffinity"):  # before JAX sizes its thread pool
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

from run import _cell, _time, real_torch, sampling  # noqa: E402

import autograd_compat as ours  # noqa: E402

MILLION = 1_000_000


def randn(lib):
    return lambda: lib.randn(MILLION).numpy()


def rand(lib):
    return lambda: lib.rand(MILLION).numpy()


def randn_double(lib):
    return lambda: lib.randn(MILLION, dtype=lib.float64).numpy()


def dropout_mask(lib):
    """`F.dropout` of a million ones (the mask and its scaling, multiplied in)."""
    x = lib.ones(MILLION)
    return lambda: lib.nn.functional.dropout(x, 0.1).numpy()


def randint(lib):
    return lambda: lib.randint(0, 1000, (MILLION,)).numpy()


def randperm(lib):
    """A DataLoader's shuffle of a 60,000-example dataset."""
    return lambda: lib.randperm(60_000).numpy()


def alpha_dropout(lib):
    """`F.alpha_dropout` of a million ones (PyTorch's mask, scaled and shifted)."""
    x = lib.ones(MILLION)
    return lambda: lib.nn.functional.alpha_dropout(x, 0.1, True).numpy()


def rrelu(lib):
    """`F.rrelu` in training of a million values, half of them negative (one slope each)."""
    x = lib.arange(MILLION, dtype=lib.float32) % 2 - 0.5
    return lambda: lib.nn.functional.rrelu(x, training=True).numpy()


def linear_init(lib):
    """`nn.Linear(1024, 1024)`: kaiming_uniform_ of the weight, uniform_ of the bias."""
    return lambda: lib.nn.Linear(1024, 1024).weight.detach().numpy()


CASES = [
    randn,
    rand,
    randn_double,
    dropout_mask,
    alpha_dropout,
    rrelu,
    randint,
    randperm,
    linear_init,
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    args, repeats, target_s = sampling(parser)
    print(f"{'case':<14} {'ours µs':>10} {'torch µs':>10} {'ratio':>7}")
    for case in CASES:
        steps = {"ours": case(ours)}
        if real_torch is not None:
            steps["torch"] = case(real_torch)
        times = _time(steps, repeats, target_s)
        theirs = times.get("torch")
        ratio = times["ours"] / theirs if theirs else None
        print(
            f"{case.__name__:<14} {_cell(times['ours'], 0):>10} {_cell(theirs, 0):>10} "
            f"{_cell(ratio, 2):>7}"
        )


if __name__ == "__main__":
    main()
