"""What an eager design that makes one XLA call per op could reach on the doubling loop, at
best: the loop's step (`bench/workloads.loop_torch`) beside *floors* made of the same XLA calls
with no Python of ours around them, in one run.

The loop reads a value to the host every iteration (`while y.data.norm() < 1000`), so no design
that computes with XLA can batch across iterations: each one makes at least one XLA call and one
host read. The floors are plain JAX doing exactly that, from the same host data, with jitted
functions cached once:
- "two calls": `y * 2` and the norm as two jitted calls an iteration, then the comparison on the
  host (what our eager mode does: the product is read at once, so it runs at its call);
- "one call": the product and its norm as one jitted call an iteration (the most any deferral of
  the product into the norm's call could give);
each followed by one jitted call for the backward (`v * 2^k`, as our fused backward) and the
host reads of `y` and `x.grad`. PyTorch runs on one thread. The last column gives what is left
for all of our Python per step if the step is to stay within 1.5x of PyTorch eager: the budget
that issue 10's "none above 1.5" leaves once the XLA calls are paid.
Run: `python bench/eager_floor.py [--quick]`.
"""

from __future__ import annotations

import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np
from run import _cell, _ratio, _time, real_torch, sampling
from workloads import LOOP_DATA, LOOP_LIMIT, LOOP_WEIGHTS, WORKLOADS, loop_torch

import autograd_compat as ours  # JAX as the library sets it up: x64, CPU calls run inline


def _double(y):
    return y * 2


def _norm(y):
    return jnp.sqrt(jnp.sum(y * y))


def _double_and_norm(y, double=_double, norm=_norm):
    """The next doubling of `y` and its norm (`double` and `norm`: how each is called)."""
    doubled = double(y)
    return doubled, norm(doubled)


def _floor_step(one_call: bool):
    """The loop's step as bare jitted calls and host reads (see the module docstring)."""
    if one_call:
        advance = jax.jit(_double_and_norm)
    else:
        advance = functools.partial(_double_and_norm, double=jax.jit(_double), norm=jax.jit(_norm))
    backward = jax.jit(lambda v, scale: v * scale)

    def step():
        x = np.array(LOOP_DATA)  # the step's leaf, made from host data as the step makes it
        y, size = advance(x)
        doublings = 1
        while np.asarray(size).item() < LOOP_LIMIT:
            y, size = advance(y)
            doublings += 1
        grad = backward(np.array(LOOP_WEIGHTS), np.float32(2.0**doublings))
        return np.asarray(y), np.asarray(grad)

    return step


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    workload = next(w for w in WORKLOADS if w.torch_code is loop_torch)
    step, compute = workload.torch_code(ours)
    steps = {
        "ours": lambda: step(compute),
        "two calls": _floor_step(one_call=False),
        "one call": _floor_step(one_call=True),
    }
    if real_torch is not None:
        step_t, compute_t = workload.torch_code(real_torch)
        steps["torch"] = lambda: step_t(compute_t)
    expected = steps["ours"]()
    for name in ("two calls", "one call"):
        for got, want in zip(steps[name](), expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6)  # the floors do the step's work
    times = _time(steps, repeats, target_s)
    torch_time = times.get("torch")
    print(f"{workload.name}, µs per step (PyTorch eager: {_cell(torch_time, 1)})")
    print("| column | µs | /torch | Python left within 1.5x torch, µs |")
    print("|---|---:|---:|---:|")
    for name in ("ours", "two calls", "one call"):
        left = None if torch_time is None else 1.5 * torch_time - times[name]
        budget = "" if name == "ours" else _cell(left, 1)
        ratio = _cell(_ratio(times[name], torch_time), 2)
        print(f"| {name} | {_cell(times[name], 1)} | {ratio} | {budget} |")


if __name__ == "__main__":
    main()
