"""Time per training step, side by side in one run: autograd_compat (eager, PyTorch-style),
PyTorch eager (when installed) and jax.jit(jax.grad(...)) of the same function.

Reports microseconds per step (median of repeats) and the ratios ours/PyTorch and ours/jit.
Run: `make bench` or `python bench/run.py [--quick]`.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import autograd_compat as ours

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def seed_step(lib, x):
    """The founding example: forward and backward of mean(3 (x + 2)^2)."""
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()


def seed_jax(x):
    return ((x + 2) * (x + 2) * 3).mean()


CHAIN = 200


def chain_step(lib, x):
    """200 elementwise ops, then backward."""
    y = x
    for _ in range(CHAIN // 4):
        y = (y * 1.0001 + 0.001).sin() * 0.5 + y * 0.5
    y.sum().backward()


def chain_jax(x):
    y = x
    for _ in range(CHAIN // 4):
        y = jnp.sin(y * 1.0001 + 0.001) * 0.5 + y * 0.5
    return y.sum()


def mlp_step(lib, params, inputs):
    """A two-layer perceptron: matmul, tanh, matmul, mean squared error, backward."""
    w1, w2 = params
    hidden = (inputs @ w1).tanh()
    loss = ((hidden @ w2) ** 2).mean()
    loss.backward()


def mlp_jax(params, inputs):
    w1, w2 = params
    return ((jnp.tanh(inputs @ w1) @ w2) ** 2).mean()


def _time(fn, repeats: int, number: int) -> float:
    for _ in range(max(3, number // 10)):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(samples)


def _cases():
    rng = np.random.default_rng(0)
    x22 = np.ones((2, 2), np.float32)
    x64 = rng.standard_normal(64).astype(np.float32)
    w1 = (rng.standard_normal((32, 64)) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((64, 8)) * 0.1).astype(np.float32)
    inputs = rng.standard_normal((16, 32)).astype(np.float32)
    return [
        ("seed example (2x2)", seed_step, seed_jax, [x22], 1000),
        (f"{CHAIN}-op elementwise chain", chain_step, chain_jax, [x64], 20),
        ("MLP 16x32 -> 64 -> 8", mlp_step, mlp_jax, [w1, w2, inputs], 300),
    ]


def _leaves(lib, arrays, grad_count):
    return [lib.tensor(a, requires_grad=i < grad_count) for i, a in enumerate(arrays)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    rows = []
    for name, step, pure, arrays, number in _cases():
        number = max(1, number // 5) if args.quick else number
        grad_count = 2 if len(arrays) == 3 else 1
        mine = _leaves(ours, arrays, grad_count)
        call = (
            (lambda s=step, t=mine: s(ours, (t[0], t[1]), t[2]))
            if len(arrays) == 3
            else (lambda s=step, t=mine: s(ours, t[0]))
        )
        t_ours = _time(call, repeats, number)
        t_torch = None
        if real_torch is not None:
            theirs = _leaves(real_torch, arrays, grad_count)
            call_t = (
                (lambda s=step, t=theirs: s(real_torch, (t[0], t[1]), t[2]))
                if len(arrays) == 3
                else (lambda s=step, t=theirs: s(real_torch, t[0]))
            )
            t_torch = _time(call_t, repeats, number)
        jax_args = [jnp.asarray(a) for a in arrays]
        if len(arrays) == 3:
            grad_fn = jax.jit(jax.grad(pure))
            jit_call = lambda g=grad_fn, a=jax_args: jax.block_until_ready(  # noqa: E731
                g((a[0], a[1]), a[2])
            )
        else:
            grad_fn = jax.jit(jax.grad(pure))
            jit_call = lambda g=grad_fn, a=jax_args: jax.block_until_ready(g(a[0]))  # noqa: E731
        t_jit = _time(jit_call, repeats, number)
        rows.append((name, t_ours, t_torch, t_jit))
    header = (
        f"{'case':30s} {'ours us':>10s} {'torch us':>10s} {'jit us':>10s} "
        f"{'ours/torch':>11s} {'ours/jit':>9s}"
    )
    print(header)
    print("-" * len(header))
    for name, t_ours, t_torch, t_jit in rows:
        torch_text = f"{t_torch:10.1f}" if t_torch is not None else f"{'n/a':>10s}"
        ratio = f"{t_ours / t_torch:11.2f}" if t_torch is not None else f"{'n/a':>11s}"
        print(f"{name:30s} {t_ours:10.1f} {torch_text} {t_jit:10.1f} {ratio} {t_ours / t_jit:9.1f}")


if __name__ == "__main__":
    main()
