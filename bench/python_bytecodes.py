"""Bytecodes of the library's Python that one eager step of each workload executes: a
measure of the eager overhead that does not vary from run to run.

Timings on a shared machine move by up to 3x between runs (docs/performance.md), too much to
see a change of a few percent in the per-op path; the number of bytecodes a step executes is
the same on every run of the same code. This Python is nearly all
of the chain's eager time and about a third of the doubling loop's, whose XLA calls and host
reads are most of the rest. The count follows
`sys.settrace` opcode events in the package's files after warm-up steps (nothing compiles or
learns shapes while counting); calls are the package's Python functions entered. Time a
change with `bench/run.py` too: a bytecode that builds a big object costs more than one that
loads a name, and XLA's calls are not counted.
`--functions N` lists the N functions that execute the most bytecodes.
Run: `python bench/python_bytecodes.py [--functions 15] [--only chain]`.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

from workloads import WORKLOADS

import autograd_compat as ours

PACKAGE = os.path.dirname(os.path.abspath(ours.__file__)) + os.sep
WARM_STEPS = 5  # steps run before counting: shapes learnt, programs compiled, backward fused


class _BytecodeCounter:
    """A `sys.settrace` tracer counting opcode events and calls in the package's files."""

    def __init__(self) -> None:
        self.opcodes = 0
        self.calls = 0
        self.by_function: collections.Counter = collections.Counter()

    def trace(self, frame, event, arg):
        if not frame.f_code.co_filename.startswith(PACKAGE):
            return None  # (no local tracing: the user's and JAX's code is not counted)
        if event == "call":
            self.calls += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return self.trace
        if event == "opcode":
            self.opcodes += 1
            code = frame.f_code
            self.by_function[(code.co_filename[len(PACKAGE) :], code.co_name)] += 1
        return self.trace


def count(workload) -> _BytecodeCounter:
    """The bytecodes and calls of one eager step of `workload`, after `WARM_STEPS` steps."""
    step, compute = workload.torch_code(ours)
    for _ in range(WARM_STEPS):
        step(compute)
    counter = _BytecodeCounter()
    sys.settrace(counter.trace)
    try:
        step(compute)
    finally:
        sys.settrace(None)
    return counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="workloads whose name contains this text")
    parser.add_argument("--functions", type=int, default=0, help="list the N busiest functions")
    args = parser.parse_args()
    chosen = [w for w in WORKLOADS if args.only is None or args.only in w.name]
    busiest: collections.Counter = collections.Counter()
    print("| workload | library bytecodes / step | library calls / step |")
    print("|---|---:|---:|")
    for workload in chosen:
        counter = count(workload)
        busiest.update(counter.by_function)
        print(f"| {workload.name} | {counter.opcodes} | {counter.calls} |")
    if args.functions:
        print(f"\nThe {args.functions} busiest functions (all chosen workloads)")
        print("| bytecodes | function |")
        print("|---:|---|")
        for (path, name), opcodes in busiest.most_common(args.functions):
            print(f"| {opcodes} | `{path}:{name}` |")


if __name__ == "__main__":
    main()
