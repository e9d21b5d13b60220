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
that the goal "no step above 1.5x PyTorch" leaves once the XLA calls are paid.

A third floor, "minimal tape", runs the step's own code (`loop_torch`) on the least autograd
any tape can be (`_MinimalTensor`): a tensor of a value and a grad_fn, a node of an edge and a
scale, the same two jitted calls an iteration and one for the backward, and nothing else (no
version counters, views, hooks, modes or deferral). What our step spends above it is the cost
of those semantics; a second table splits each step into its pieces (timed inside the step)
for ours, the minimal tape and PyTorch.
Run: `python bench/probes/eager_floor.py [--quick]`.
"""

from __future__ import annotations

import argparse
import functools
import time

import _bench  # noqa: F401  (bench/ on sys.path)
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


_NORM = jax.jit(_norm)
_SCALE = jax.jit(lambda v, scale: v * scale)  # the backward of every floor: v * 2^k


def _double_and_norm(y, double=_double, norm=_norm):
    """The next doubling of `y` and its norm (`double` and `norm`: how each is called)."""
    doubled = double(y)
    return doubled, norm(doubled)


def _floor_step(one_call: bool):
    """The loop's step as bare jitted calls and host reads (see the module docstring)."""
    if one_call:
        advance = jax.jit(_double_and_norm)
    else:
        advance = functools.partial(_double_and_norm, double=jax.jit(_double), norm=_NORM)

    def step():
        x = np.array(LOOP_DATA)  # the step's leaf, made from host data as the step makes it
        y, size = advance(x)
        doublings = 1
        while np.asarray(size).item() < LOOP_LIMIT:
            y, size = advance(y)
            doublings += 1
        grad = _SCALE(np.array(LOOP_WEIGHTS), np.float32(2.0**doublings))
        return np.asarray(y), np.asarray(grad)

    return step


_PRODUCT = jax.jit(jnp.multiply)


@functools.lru_cache(maxsize=8)
def _constant(number: float):
    """A Python number as a float32 device array, made once (as our ops cache constants)."""
    return jnp.asarray(np.float32(number))


class _Node:
    """The minimal tape's node of `y * scale`: its input's node (or leaf) and the scale."""

    __slots__ = ("edge", "scale")

    def __init__(self, edge, scale: float) -> None:
        self.edge = edge
        self.scale = scale


class _MinimalTensor:
    """Just what the loop's step uses, on the least state a tape needs (see the docstring)."""

    __slots__ = ("value", "requires_grad", "grad_fn", "grad")

    def __init__(self, value, requires_grad: bool = False, grad_fn=None) -> None:
        self.value = value
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self.grad = None

    def __mul__(self, number: float):
        value = _PRODUCT(self.value, _constant(number))
        if not self.requires_grad:
            return _MinimalTensor(value)
        edge = self if self.grad_fn is None else self.grad_fn
        return _MinimalTensor(value, True, _Node(edge, number))

    def detach(self):
        return _MinimalTensor(self.value)

    data = property(detach)

    def norm(self):
        return _MinimalTensor(_NORM(self.value))

    def __lt__(self, number: float):
        return _MinimalTensor(np.asarray(self.value).item() < number)

    def __bool__(self) -> bool:
        return bool(self.value)

    def backward(self, gradient) -> None:
        scale, node = 1.0, self.grad_fn
        while type(node) is _Node:
            scale *= node.scale
            node = node.edge
        node.grad = _MinimalTensor(_SCALE(gradient.value, _constant(scale)))

    def numpy(self):
        return np.asarray(self.value)


class _MinimalLib:
    """`lib` for the step code: `lib.tensor` makes a minimal tensor from host data."""

    @staticmethod
    def tensor(data, requires_grad: bool = False) -> _MinimalTensor:
        return _MinimalTensor(np.array(data), requires_grad)


PIECES = ("leaves", "mul", ".data", "norm", "<", "bool", "backward", "reads")


def _pieces_step(lib, totals: dict):
    """The loop's step (as `loop_torch`'s) with each piece's time added to `totals`."""
    clock = time.perf_counter

    def step():
        t0 = clock()
        x = lib.tensor(LOOP_DATA, requires_grad=True)
        v = lib.tensor(LOOP_WEIGHTS)
        t1 = clock()
        y = x * 2
        totals["leaves"] += t1 - t0
        totals["mul"] += clock() - t1
        while True:
            t0 = clock()
            data = y.data
            t1 = clock()
            size = data.norm()
            t2 = clock()
            below = size < LOOP_LIMIT
            t3 = clock()
            again = bool(below)
            t4 = clock()
            totals[".data"] += t1 - t0
            totals["norm"] += t2 - t1
            totals["<"] += t3 - t2
            totals["bool"] += t4 - t3
            if not again:
                break
            t0 = clock()
            y = y * 2
            totals["mul"] += clock() - t0
        t0 = clock()
        y.backward(v)
        t1 = clock()
        results = y.detach().numpy(), x.grad.numpy()
        totals["backward"] += t1 - t0
        totals["reads"] += clock() - t1
        return results

    return step


def _piece_times(libs: dict, steps: int) -> dict:
    """µs per step of each piece, per library (name -> lib), after a warm-up."""
    times = {}
    for name, lib in libs.items():
        totals = dict.fromkeys(PIECES, 0.0)
        step = _pieces_step(lib, totals)
        for _ in range(100):
            step()
        totals.update(dict.fromkeys(PIECES, 0.0))
        for _ in range(steps):
            step()
        times[name] = {piece: total / steps * 1e6 for piece, total in totals.items()}
    return times


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    workload = next(w for w in WORKLOADS if w.torch_code is loop_torch)
    libs: dict = {"ours": ours, "minimal tape": _MinimalLib}
    if real_torch is not None:
        libs["torch"] = real_torch
    steps = {}
    for name, lib in libs.items():
        step, compute = workload.torch_code(lib)
        steps[name] = functools.partial(step, compute)
    steps["two calls"] = _floor_step(one_call=False)
    steps["one call"] = _floor_step(one_call=True)
    expected = steps["ours"]()
    for name in ("minimal tape", "two calls", "one call"):
        for got, want in zip(steps[name](), expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6)  # the floors do the step's work
    times = _time(steps, repeats, target_s)
    torch_time = times.get("torch")
    print(f"{workload.name}, µs per step (PyTorch eager: {_cell(torch_time, 1)})")
    print("| column | µs | /torch | Python left within 1.5x torch, µs |")
    print("|---|---:|---:|---:|")
    for name in ("ours", "minimal tape", "two calls", "one call"):
        left = None if torch_time is None else 1.5 * torch_time - times[name]
        budget = "" if name == "ours" else _cell(left, 1)
        ratio = _cell(_ratio(times[name], torch_time), 2)
        print(f"| {name} | {_cell(times[name], 1)} | {ratio} | {budget} |")
    pieces = _piece_times(libs, steps=300 if repeats < 9 else 1500)
    print("\nThe step's pieces, timed inside it, µs per step (10 iterations)")
    print("| piece | " + " | ".join(pieces) + " |")
    print("|---|" + "---:|" * len(pieces))
    for piece in (*PIECES, "total"):
        row = [sum(t.values()) if piece == "total" else t[piece] for t in pieces.values()]
        print(f"| {piece} | " + " | ".join(_cell(value, 0) for value in row) + " |")


if __name__ == "__main__":
    main()
