"""How much of a compiled step is our Python around its program: the compiled column of
`bench/run.py` beside a *floor* and jax.jit, in one run.

The floor serves the same step with the compiled program and nothing around it: given the
step's arguments it runs the entry's program on them and on the captured memories' values, and
writes back only what later steps read (the returned tensor, the new `.grad`s, the memories the
step replaced). No guard, no version counters, no checks, no Python object but the outputs: a
call path that cost nothing. It is not a correct call in general (it serves calls the guard
would refuse); it measures what any call path, however lean, could reach. The step around it
(making leaves with `torch.tensor`, reading results with `.item()` and `.numpy()`) is the
workload's own, as in `bench/run.py`.

Run: `python bench/probes/compile_floor.py [--quick]`.
"""

from __future__ import annotations

import argparse
import warnings

import _bench  # noqa: F401  (bench/ on sys.path)
from run import _cell, _geomean, _ratio, _time, sampling
from workloads import WORKLOADS

import autograd_compat as ours
from autograd_compat._compile.entry import Entry
from autograd_compat._state.tensor import Tensor, program_input


def _floor_call(entry: Entry):
    """The entry's program called on a step's arguments with the least write-back."""
    program, effects = entry.program, entry.effects
    memories, written = effects.memories, entry.written
    n_out = len(entry.out_tensor_index)

    def call(*args):
        tail = entry._tail(args) if entry.has_tail else []  # the learning rate, for example
        raw = program(*[program_input(a) for a in args], *[m.get() for m in memories], *tail)
        for memory, value in zip(written, raw[n_out:]):
            memory.set(value)
        position = n_out + len(written)
        for t in effects.grad_results:
            t._grad = Tensor._wrap(raw[position])
            position += 1
        for k in effects.arg_grads:
            args[k]._grad = Tensor._wrap(raw[position])
            position += 1
        return Tensor._wrap(raw[0])

    return call


def main() -> None:
    _, repeats, target_s = sampling(argparse.ArgumentParser(description=__doc__))
    print("| workload | ours compiled µs | floor µs | jax.jit µs | compiled/jit | floor/jit |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for workload in [w for w in WORKLOADS if w.compile_target]:
        step, compute = workload.torch_code(ours)
        compiled = ours.compile(compute)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a graph break has no program to measure
            for _ in range(3):
                step(compiled)
        (entry,) = compiled.entries.values()
        single = isinstance(entry, Entry) and len(entry.out_tensor_index) == 1
        if not single or entry.program is None:
            continue  # a step recorded as a node, or of several outputs: not measured here
        floor = _floor_call(entry)
        steps = {
            "compiled": lambda: step(compiled),  # noqa: B023
            "floor": lambda: step(floor),  # noqa: B023
            "jit": workload.jax_code(),
        }
        times = _time(steps, repeats, target_s)
        row = (times["compiled"], times["floor"], times["jit"])
        rows.append(row)
        print(
            f"| {workload.name} | {_cell(row[0], 1)} | {_cell(row[1], 1)} | {_cell(row[2], 1)} "
            f"| {_cell(_ratio(row[0], row[2]), 2)} | {_cell(_ratio(row[1], row[2]), 2)} |"
        )
    compiled_over_jit = _geomean(_ratio(r[0], r[2]) for r in rows)
    floor_over_jit = _geomean(_ratio(r[1], r[2]) for r in rows)
    print(
        f"| **geomean** (target ≤ 1.2) | | | | {_cell(compiled_over_jit, 2)} "
        f"| {_cell(floor_over_jit, 2)} |"
    )


if __name__ == "__main__":
    main()
