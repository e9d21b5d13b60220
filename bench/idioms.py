"""Eager steps of common PyTorch idioms beyond `bench/workloads.py`, against PyTorch eager.

The seven workloads of `bench/run.py` are training steps; real code also writes its own SGD
update in `no_grad`, runs chains of in-place ops, indexes one element at a time, stacks
per-row results, steps a recurrent cell and reads a value each iteration. Each idiom is
written once as PyTorch code (`idiom(lib)` returns its step, run with `lib` = autograd_compat
or torch); a step reads its result to host. Medians of interleaved samples (`run._time`), µs
per step; PyTorch with one thread. Run: `python bench/idioms.py [--quick]`.
"""

from __future__ import annotations

import argparse

import numpy as np
from run import _cell, _geomean, _time, real_torch, sampling

import autograd_compat as ours

_RNG = np.random.default_rng(0)
X = _RNG.standard_normal((64, 3)).astype(np.float32)
T = _RNG.standard_normal((64, 1)).astype(np.float32)
W_HIDDEN = (_RNG.standard_normal((16, 16)) * 0.1).astype(np.float32)
W_INPUT = _RNG.standard_normal((3, 16)).astype(np.float32)


def manual_sgd(lib):
    """Linear regression with a hand-written update, as PyTorch's "Learning PyTorch with
    Examples" writes it: `w -= lr * w.grad` in no_grad, then `w.grad.zero_()`."""
    x, t = lib.tensor(X), lib.tensor(T)
    w = lib.zeros(3, 1, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)

    def step():
        loss = ((x @ w + b - t) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            w.sub_(0.01 * w.grad)
            b.sub_(0.01 * b.grad)
            w.grad.zero_()
            b.grad.zero_()
        return loss.item()

    return step


def in_place_chain(lib):
    """100 in-place ops on a 64-vector (`y.mul_(a).add_(b)`), then a sum read to host."""
    x = lib.tensor(X[:, 0].copy())

    def step():
        y = x.clone()
        for _ in range(50):
            y.mul_(1.01).add_(0.1)
        return y.sum().item()

    return step


def index_loop(lib):
    """A sum of squares taken one element at a time: `s = s + x[i] * x[i]`."""
    x = lib.tensor(X[:16, 0].copy())

    def step():
        s = lib.zeros(())
        for i in range(16):
            s = s + x[i] * x[i]
        return s.item()

    return step


def stack_loop(lib):
    """Per-row results stacked (`torch.stack([f(x[i]) for i ...])`), summed, backward."""
    x = lib.tensor(X[:8].copy(), requires_grad=True)

    def step():
        out = lib.stack([x[i].tanh() * 2 for i in range(8)]).sum()
        out.backward()
        x.grad = None
        return out.item()

    return step


def rnn_loop(lib):
    """A tanh RNN cell stepped over 20 time steps (a slice of the input each), backward."""
    w_hidden = lib.tensor(W_HIDDEN, requires_grad=True)
    w_input = lib.tensor(W_INPUT, requires_grad=True)
    xs = lib.tensor(X[:20].copy())

    def step():
        h = lib.zeros(1, 16)
        for i in range(20):
            h = lib.tanh(xs[i : i + 1] @ w_input + h @ w_hidden)
        loss = h.pow(2).sum()
        loss.backward()
        w_hidden.grad = w_input.grad = None
        return loss.item()

    return step


def item_each(lib):
    """A value read to host every iteration (`total += y.sum().item()`), then backward."""
    x = lib.tensor(X[:, 0].copy(), requires_grad=True)

    def step():
        y, total = x, 0.0
        for _ in range(10):
            y = y * 1.1
            total += y.sum().item()
        y.sum().backward()
        x.grad = None
        return total

    return step


IDIOMS = [manual_sgd, in_place_chain, index_loop, stack_loop, rnn_loop, item_each]


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    print("| idiom | ours eager µs | torch eager µs | ours/torch |")
    print("|---|---:|---:|---:|")
    ratios = []
    for idiom in IDIOMS:
        steps = {"ours": idiom(ours)}
        if real_torch is not None:
            steps["torch"] = idiom(real_torch)
        times = _time(steps, repeats, target_s)  # (each warmed up first: `run._calibrate`)
        torch_time = times.get("torch")
        ratios.append(None if torch_time is None else times["ours"] / torch_time)
        print(
            f"| {idiom.__name__} | {_cell(times['ours'], 1)} | {_cell(torch_time, 1)} "
            f"| {_cell(ratios[-1], 2)} |"
        )
    print(f"| **geomean** | | | {_cell(_geomean(ratios), 2)} |")


if __name__ == "__main__":
    main()
